#include "service/s3_xml.h"

#include <expat.h>

#include <limits>
#include <memory>

#include "stowage/error.h"

namespace stowage::service {

namespace {

// expat reports "namespace|local" when namespace processing is on.
constexpr char kNamespaceSeparator = '|';

struct ParseState {
  XmlElement root;
  // The open elements, innermost last; empty before the root opens.
  std::vector<XmlElement*> open;
};

void on_start(void* user, const XML_Char* name, const XML_Char** /*attributes*/) {
  auto* state = static_cast<ParseState*>(user);
  std::string_view full(name);
  std::size_t separator = full.rfind(kNamespaceSeparator);
  std::string local(separator == std::string_view::npos ? full
                                                        : full.substr(separator + 1));
  if (state->open.empty()) {
    state->root.name = std::move(local);
    state->open.push_back(&state->root);
    return;
  }
  // Children are only appended to the innermost open element, so pointers
  // to the elements further out stay valid.
  XmlElement& parent = *state->open.back();
  parent.children.push_back(XmlElement{std::move(local), {}, {}});
  state->open.push_back(&parent.children.back());
}

void on_end(void* user, const XML_Char* /*name*/) {
  static_cast<ParseState*>(user)->open.pop_back();
}

void on_text(void* user, const XML_Char* text, int length) {
  auto* state = static_cast<ParseState*>(user);
  if (!state->open.empty()) state->open.back()->text.append(text, length);
}

struct ParserFree {
  void operator()(XML_Parser parser) const { XML_ParserFree(parser); }
};

std::string body_start(std::string_view body) {
  constexpr std::size_t kShown = 200;
  return body.size() <= kShown ? std::string(body)
                               : std::string(body.substr(0, kShown)) + "…";
}

}  // namespace

const XmlElement* XmlElement::child(std::string_view child_name) const {
  for (const XmlElement& element : children) {
    if (element.name == child_name) return &element;
  }
  return nullptr;
}

std::string XmlElement::child_text(std::string_view child_name) const {
  const XmlElement* element = child(child_name);
  return element ? element->text : std::string();
}

XmlElement parse_xml(std::string_view body, std::string_view what) {
  std::unique_ptr<XML_ParserStruct, ParserFree> parser(
      XML_ParserCreateNS("UTF-8", kNamespaceSeparator));
  if (!parser) throw Error(ErrorCode::IoError, "out of memory creating an XML parser");
  if (body.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error::malformed_response(std::string(what) + " is too large to parse (" +
                                    std::to_string(body.size()) + " bytes)");
  }
  ParseState state;
  XML_SetUserData(parser.get(), &state);
  XML_SetElementHandler(parser.get(), &on_start, &on_end);
  XML_SetCharacterDataHandler(parser.get(), &on_text);
  if (XML_Parse(parser.get(), body.data(), static_cast<int>(body.size()),
                /*isFinal=*/1) != XML_STATUS_OK) {
    throw Error::malformed_response(
        std::string(what) + " is not well-formed XML (" +
        XML_ErrorString(XML_GetErrorCode(parser.get())) + " at line " +
        std::to_string(XML_GetCurrentLineNumber(parser.get())) + "): " +
        body_start(body));
  }
  return std::move(state.root);
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace stowage::service
