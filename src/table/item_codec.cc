#include "table/item_codec.h"

#include <cstdint>
#include <fmt/format.h>

#include "stowage/error.h"

// Layout: a format byte, then the attribute count and, per attribute in name
// order, the name and the value. A value is a tag byte and its payload:
//   S, B       length, bytes          N      length, canonical decimal text
//   BOOL       one byte 0 or 1        NULL   nothing
//   M          count, (name, value)…  L      count, value…
//   SS, BS     count, (length, bytes)…  NS   count, (length, text)…
// Lengths and counts are LEB128 varints. Names and set elements are stored
// in strictly increasing order, which decode checks.

namespace stowage::table {
namespace {

constexpr char kFormatVersion = 1;

enum Tag : std::uint8_t {
  kTagS = 1,
  kTagN = 2,
  kTagB = 3,
  kTagBool = 4,
  kTagNull = 5,
  kTagM = 6,
  kTagL = 7,
  kTagSS = 8,
  kTagNS = 9,
  kTagBS = 10,
};

// Bounds recursion on corrupt input far above DynamoDB's 32 levels of
// nesting, so every item DynamoDB accepts round-trips.
constexpr int kMaxDecodeDepth = 256;

void put_varint(std::string& out, std::uint64_t n) {
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_varint(out, bytes.size());
  out.append(bytes);
}

void put_number(std::string& out, const Number& n) { put_bytes(out, n.to_string()); }

void put_value(std::string& out, const Value& value);

void put_attributes(std::string& out, const Item& item) {
  put_varint(out, item.size());
  for (const auto& [name, value] : item) {
    put_bytes(out, name);
    put_value(out, value);
  }
}

void put_value(std::string& out, const Value& value) {
  switch (value.type()) {
    case Type::S:
      out.push_back(kTagS);
      put_bytes(out, value.as_string());
      return;
    case Type::N:
      out.push_back(kTagN);
      put_number(out, value.as_number());
      return;
    case Type::B:
      out.push_back(kTagB);
      put_bytes(out, value.as_binary());
      return;
    case Type::BOOL:
      out.push_back(kTagBool);
      out.push_back(value.as_bool() ? 1 : 0);
      return;
    case Type::NUL:
      out.push_back(kTagNull);
      return;
    case Type::M:
      out.push_back(kTagM);
      put_attributes(out, value.as_map());
      return;
    case Type::L:
      out.push_back(kTagL);
      put_varint(out, value.as_list().size());
      for (const Value& element : value.as_list()) put_value(out, element);
      return;
    case Type::SS:
      out.push_back(kTagSS);
      put_varint(out, value.as_string_set().size());
      for (const auto& s : value.as_string_set()) put_bytes(out, s);
      return;
    case Type::NS:
      out.push_back(kTagNS);
      put_varint(out, value.as_number_set().size());
      for (const Number& n : value.as_number_set()) put_number(out, n);
      return;
    case Type::BS:
      out.push_back(kTagBS);
      put_varint(out, value.as_binary_set().size());
      for (const auto& b : value.as_binary_set()) put_bytes(out, b);
      return;
  }
}

// Reads an encoded item, checking every length against what is left so that
// corrupt input ends in IntegrityError, never an out-of-bounds read.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  Item item() {
    if (byte("format byte") != static_cast<std::uint8_t>(kFormatVersion)) {
      fail(0, "unknown item format");
    }
    Item result = attributes(0);
    if (pos_ != bytes_.size()) fail(pos_, "trailing bytes after the item");
    return result;
  }

 private:
  [[noreturn]] void fail(std::size_t offset, std::string_view what) const {
    throw Error(ErrorCode::IntegrityError,
                fmt::format("corrupt item encoding at offset {} of {}: {}",
                            offset, bytes_.size(), what));
  }

  std::uint8_t byte(std::string_view what) {
    if (pos_ >= bytes_.size()) fail(pos_, fmt::format("truncated {}", what));
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }

  std::uint64_t varint(std::string_view what) {
    std::size_t start = pos_;
    std::uint64_t n = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      std::uint8_t b = byte(what);
      n |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return n;
    }
    fail(start, fmt::format("{} is not a valid varint", what));
  }

  // A count of elements, each of which takes at least one byte, so a count
  // above the bytes left is corruption (and never drives an allocation).
  std::size_t count(std::string_view what) {
    std::size_t start = pos_;
    std::uint64_t n = varint(what);
    if (n > bytes_.size() - pos_) fail(start, fmt::format("{} too large", what));
    return static_cast<std::size_t>(n);
  }

  std::string_view bytes(std::string_view what) {
    std::size_t start = pos_;
    std::uint64_t length = varint(what);
    if (length > bytes_.size() - pos_) {
      fail(start, fmt::format("{} length {} runs past the end", what, length));
    }
    std::string_view view = bytes_.substr(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return view;
  }

  Number number() {
    std::size_t start = pos_;
    std::string_view text = bytes("number");
    try {
      return Number::parse(text);
    } catch (const Error&) {
      fail(start, "malformed number");
    }
  }

  Item attributes(int depth) {
    Item result;
    std::size_t n = count("attribute count");
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t start = pos_;
      std::string_view name = bytes("attribute name");
      if (!result.empty() && !(result.rbegin()->first < name)) {
        fail(start, "attribute names out of order");
      }
      result.emplace_hint(result.end(), name, value(depth));
    }
    return result;
  }

  template <typename Element, typename ReadElement>
  std::set<Element> set(ReadElement read) {
    std::set<Element> result;
    std::size_t n = count("set size");
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t start = pos_;
      Element element = read();
      if (!result.empty() && !(*result.rbegin() < element)) {
        fail(start, "set elements out of order");
      }
      result.emplace_hint(result.end(), std::move(element));
    }
    return result;
  }

  Value value(int depth) {
    std::size_t start = pos_;
    switch (byte("type tag")) {
      case kTagS:
        return Value::string(std::string(bytes("string")));
      case kTagN:
        return Value::number(number());
      case kTagB:
        return Value::binary(std::string(bytes("binary")));
      case kTagBool: {
        std::uint8_t b = byte("boolean");
        if (b > 1) fail(start + 1, "boolean is neither 0 nor 1");
        return Value::boolean(b == 1);
      }
      case kTagNull:
        return Value::null();
      case kTagM:
        if (depth == kMaxDecodeDepth) fail(start, "nesting too deep");
        return Value::map(attributes(depth + 1));
      case kTagL: {
        if (depth == kMaxDecodeDepth) fail(start, "nesting too deep");
        List list;
        std::size_t n = count("list size");
        list.reserve(n);
        for (std::size_t i = 0; i < n; ++i) list.push_back(value(depth + 1));
        return Value::list(std::move(list));
      }
      case kTagSS:
        return Value::string_set(set<std::string>(
            [this] { return std::string(bytes("string set element")); }));
      case kTagNS:
        return Value::number_set(set<Number>([this] { return number(); }));
      case kTagBS:
        return Value::binary_set(set<std::string>(
            [this] { return std::string(bytes("binary set element")); }));
      default:
        fail(start, "unknown type tag");
    }
  }

  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode_item(const Item& item) {
  std::string out;
  // Most of an item is its values' bytes; reserving that avoids regrowth.
  out.reserve(item_size(item) + 4 * item.size() + 8);
  out.push_back(kFormatVersion);
  put_attributes(out, item);
  return out;
}

Item decode_item(std::string_view bytes) { return Reader(bytes).item(); }

std::string key_order_bytes(const Value& key_value) {
  switch (key_value.type()) {
    case Type::S:
      return key_value.as_string();
    case Type::N:
      return key_value.as_number().order_key();
    default:
      throw Error::validation(fmt::format(
          "a key attribute value must be S or N, got {}",
          type_name(key_value.type())));
  }
}

}  // namespace stowage::table
