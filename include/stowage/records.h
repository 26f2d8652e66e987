// The records a Stowage user reads and writes: OwnerRef (the application
// record that owns attachments, e.g. Card 42), Blob (a file's bytes and
// metadata), Attachment (one blob attached to one owner under a name), and
// the inputs and results of the operations on them.
//
// They are defined once, with the model that stores them (model/records.h,
// model/blob_store.h, model/attachments.h, model/sweep.h) and re-exported
// here, so a library user and the model speak of the same types.
// Plain value types; thread-compatible.
#pragma once

#include "model/attachments.h"
#include "model/blob_store.h"
#include "model/records.h"
#include "model/sweep.h"
#include "service/service.h"

namespace stowage {

using model::Attachment;
using model::AttachmentPage;
using model::Blob;
using model::BlobInput;
using model::OwnerRef;
using model::SweepReport;
using model::SweptObject;

// Byte streams for uploads (ByteSource: StringSource, FileSource) and
// downloads (ByteSink: StringSink).
using service::ByteSink;
using service::ByteSource;
using service::Disposition;
using service::FileSource;
using service::StringSink;
using service::StringSource;

}  // namespace stowage
