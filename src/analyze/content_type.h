// detect_content_type(): the MIME type of a blob, identified from its bytes
// (libmagic on the first 4 KB), with the filename's extension only refining
// what the bytes alone leave generic. The type a client declares is never
// consulted: a served content type must not be the uploader's choice.
//
// Thread-safe: each thread uses its own libmagic handle, which libmagic
// requires.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stowage::analyze {

// How many leading bytes detection looks at; callers need read no more.
inline constexpr std::size_t kContentTypeSniffLength = 4096;

// Returns libmagic's MIME type for `first_bytes` (only the first
// kContentTypeSniffLength are read), except that when libmagic can only say
// "some text" (text/plain or a guessed programming language) or "some
// bytes" (application/octet-stream, empty), a known text extension of
// `filename` decides: .css → text/css, .js → text/javascript,
// .svg → image/svg+xml, .csv → text/csv, .md → text/markdown, and a few
// more. HTML is never inferred from a name. Empty input without such an
// extension is application/octet-stream.
// Throws Error(ConfigurationError) if libmagic's database cannot be loaded.
std::string detect_content_type(std::string_view first_bytes,
                                std::string_view filename);

}  // namespace stowage::analyze
