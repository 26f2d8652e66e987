// How the attachment and blob commands read records from the command line
// and print them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "stowage/records.h"

namespace stowage::cli {

// Accepts TYPE:ID (e.g. Card:42) with neither part empty; the key rules
// (no separator in either part) are the model's to check.
CLI::Validator record_validator();
// REQUIRES: `text` passed record_validator(). The ID is everything after the
// first ':'.
OwnerRef parse_record(const std::string& text);
// "Card:42".
std::string format_record(const OwnerRef& owner);

// One field per line, names aligned.
void print_blob(std::ostream& out, const Blob& blob);
void print_attachment(std::ostream& out, const Attachment& attachment);
// A table with a header: id, name, filename, content type, bytes, created_at.
void print_attachment_table(std::ostream& out, const std::vector<Attachment>& attachments);

}  // namespace stowage::cli
