#include "table/value.h"

#include <fmt/format.h>

#include "stowage/error.h"

namespace stowage::table {
namespace {

// Keeps error messages readable when a value is a large blob of text.
constexpr std::size_t kDescribeMaxChars = 40;
constexpr std::size_t kDescribeMaxElements = 8;

// DynamoDB charges a document (M or L) 3 bytes plus 1 byte per element.
constexpr std::size_t kDocumentOverhead = 3;
constexpr std::size_t kDocumentElementOverhead = 1;

std::string quoted(std::string_view s) {
  if (s.size() <= kDescribeMaxChars) return fmt::format("\"{}\"", s);
  return fmt::format("\"{}…\" ({} bytes)", s.substr(0, kDescribeMaxChars),
                     s.size());
}

// Renders up to kDescribeMaxElements elements, then how many were left out.
template <typename Range, typename Render>
std::string describe_elements(const Range& range, Render render) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& element : range) {
    if (shown == kDescribeMaxElements) {
      out += fmt::format(", … {} more", range.size() - shown);
      break;
    }
    if (shown > 0) out += ", ";
    out += render(element);
    ++shown;
  }
  return out;
}

}  // namespace

std::string_view type_name(Type type) {
  switch (type) {
    case Type::S: return "S";
    case Type::N: return "N";
    case Type::B: return "B";
    case Type::BOOL: return "BOOL";
    case Type::NUL: return "NULL";
    case Type::M: return "M";
    case Type::L: return "L";
    case Type::SS: return "SS";
    case Type::NS: return "NS";
    case Type::BS: return "BS";
  }
  return "?";
}

Value::Value() : type_(Type::NUL), data_(std::monostate{}) {}

Value::Value(Type type, Storage data) : type_(type), data_(std::move(data)) {}

Value Value::string(std::string s) { return Value(Type::S, std::move(s)); }
Value Value::number(Number n) { return Value(Type::N, std::move(n)); }
Value Value::number(std::int64_t n) { return Value(Type::N, Number(n)); }
Value Value::binary(std::string bytes) {
  return Value(Type::B, std::move(bytes));
}
Value Value::boolean(bool b) { return Value(Type::BOOL, b); }
Value Value::null() { return Value(); }
Value Value::map(Item m) { return Value(Type::M, std::move(m)); }
Value Value::list(List l) { return Value(Type::L, std::move(l)); }
Value Value::string_set(std::set<std::string> ss) {
  return Value(Type::SS, std::move(ss));
}
Value Value::number_set(std::set<Number> ns) {
  return Value(Type::NS, std::move(ns));
}
Value Value::binary_set(std::set<std::string> bs) {
  return Value(Type::BS, std::move(bs));
}

void Value::expect(Type wanted) const {
  if (type_ != wanted) {
    throw Error::validation(fmt::format("expected {}, got {}",
                                        type_name(wanted), type_name(type_)));
  }
}

const std::string& Value::as_string() const {
  expect(Type::S);
  return std::get<std::string>(data_);
}
const Number& Value::as_number() const {
  expect(Type::N);
  return std::get<Number>(data_);
}
const std::string& Value::as_binary() const {
  expect(Type::B);
  return std::get<std::string>(data_);
}
bool Value::as_bool() const {
  expect(Type::BOOL);
  return std::get<bool>(data_);
}
const Item& Value::as_map() const {
  expect(Type::M);
  return std::get<Item>(data_);
}
const List& Value::as_list() const {
  expect(Type::L);
  return std::get<List>(data_);
}
const std::set<std::string>& Value::as_string_set() const {
  expect(Type::SS);
  return std::get<std::set<std::string>>(data_);
}
const std::set<Number>& Value::as_number_set() const {
  expect(Type::NS);
  return std::get<std::set<Number>>(data_);
}
const std::set<std::string>& Value::as_binary_set() const {
  expect(Type::BS);
  return std::get<std::set<std::string>>(data_);
}

std::size_t Value::storage_size() const {
  switch (type_) {
    case Type::S:
    case Type::B:
      return std::get<std::string>(data_).size();
    case Type::N:
      return std::get<Number>(data_).storage_size();
    case Type::BOOL:
    case Type::NUL:
      return 1;
    case Type::M: {
      std::size_t size = kDocumentOverhead;
      for (const auto& [name, value] : std::get<Item>(data_)) {
        size += kDocumentElementOverhead + name.size() + value.storage_size();
      }
      return size;
    }
    case Type::L: {
      std::size_t size = kDocumentOverhead;
      for (const Value& value : std::get<List>(data_)) {
        size += kDocumentElementOverhead + value.storage_size();
      }
      return size;
    }
    case Type::SS:
    case Type::BS: {
      std::size_t size = 0;
      for (const auto& s : std::get<std::set<std::string>>(data_)) {
        size += s.size();
      }
      return size;
    }
    case Type::NS: {
      std::size_t size = 0;
      for (const Number& n : std::get<std::set<Number>>(data_)) {
        size += n.storage_size();
      }
      return size;
    }
  }
  return 0;
}

bool operator==(const Value& a, const Value& b) {
  return a.type_ == b.type_ && a.data_ == b.data_;
}

std::size_t item_size(const Item& item) {
  std::size_t size = 0;
  for (const auto& [name, value] : item) size += name.size() + value.storage_size();
  return size;
}

std::string describe(const Value& value) {
  switch (value.type()) {
    case Type::S:
      return "S " + quoted(value.as_string());
    case Type::N:
      return "N " + value.as_number().to_string();
    case Type::B:
      return fmt::format("B ({} bytes)", value.as_binary().size());
    case Type::BOOL:
      return value.as_bool() ? "BOOL true" : "BOOL false";
    case Type::NUL:
      return "NULL";
    case Type::M:
      return "M " + describe(value.as_map());
    case Type::L:
      return "L [" +
             describe_elements(value.as_list(),
                               [](const Value& v) { return describe(v); }) +
             "]";
    case Type::SS:
      return "SS {" + describe_elements(value.as_string_set(), quoted) + "}";
    case Type::NS:
      return "NS {" +
             describe_elements(value.as_number_set(),
                               [](const Number& n) { return n.to_string(); }) +
             "}";
    case Type::BS:
      return fmt::format("BS ({} elements)", value.as_binary_set().size());
  }
  return "?";
}

std::string describe(const Item& item) {
  return "{" +
         describe_elements(item,
                           [](const auto& attribute) {
                             return quoted(attribute.first) + ": " +
                                    describe(attribute.second);
                           }) +
         "}";
}

}  // namespace stowage::table
