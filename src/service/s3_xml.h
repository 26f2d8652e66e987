// XmlElement and parse_xml(): the small, strict XML reader (on expat) that
// the S3 service uses for S3's response bodies (ListObjectsV2,
// CreateMultipartUpload, DeleteObjects, Error), plus the escaping its
// request bodies need.
//
// Element names are local names: S3's namespace is dropped, so callers
// match "Contents", not "http://s3.amazonaws.com/doc/2006-03-01/|Contents".
// Pure functions and plain values; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stowage::service {

struct XmlElement {
  std::string name;
  // The character data directly inside this element (not its children's).
  std::string text;
  std::vector<XmlElement> children;

  // The first child with that name, or null.
  const XmlElement* child(std::string_view child_name) const;
  // The text of the first child with that name, or "" when there is none.
  std::string child_text(std::string_view child_name) const;
};

// The document's root element. Throws Error(MalformedResponse) naming
// `what` (e.g. "ListObjectsV2 response") and the start of `body` if it is
// not well-formed XML.
XmlElement parse_xml(std::string_view body, std::string_view what);

// `text` with &, <, >, " and ' replaced by entities, for element content
// and attribute values.
std::string xml_escape(std::string_view text);

}  // namespace stowage::service
