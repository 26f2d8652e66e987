// Number: a DynamoDB number — a signed decimal of up to 38 significant
// digits with magnitude between 1E-130 and 9.99…E+125, exact, never a double.
//
// Addition is exact (so ADD on counters is exact far beyond 2^63) and
// comparison is numeric ("10" > "9"). order_key() gives bytes whose memcmp
// order is numeric order, which the embedded engines use to sort range keys.
// Immutable value type; thread-compatible.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stowage::table {

class Number {
 public:
  Number() = default;  // zero
  explicit Number(std::int64_t value);

  // Parses DynamoDB's number syntax ("-12.50", "1e3", "0.001").
  // Throws Error(ValidationError) naming `text` when it is not a number or
  // is outside DynamoDB's precision or range.
  static Number parse(std::string_view text);

  // Canonical decimal text: no exponent, no leading/trailing zeros ("1000",
  // "-0.5", "0").
  std::string to_string() const;
  // The value if it is an integer that fits, else nullopt.
  std::optional<std::int64_t> to_int64() const;

  bool is_zero() const { return digits_.empty(); }
  bool is_negative() const { return negative_; }

  // Exact; throws Error(ValidationError) if the result leaves DynamoDB's
  // precision or range.
  Number operator+(const Number& other) const;
  Number operator-() const;
  Number operator-(const Number& other) const { return *this + (-other); }

  friend bool operator==(const Number& a, const Number& b) = default;
  friend std::strong_ordering operator<=>(const Number& a, const Number& b);

  // Bytes whose lexicographic (memcmp) order equals numeric order.
  std::string order_key() const;
  // DynamoDB's storage size of this number, for the 400 KB item limit.
  std::size_t storage_size() const;

 private:
  // value = (negative ? -1 : 1) × 0.d1d2…dn × 10^exponent_; digits_ has no
  // leading or trailing '0'; zero is digits_ empty, exponent_ 0, positive.
  bool negative_ = false;
  std::string digits_;
  int exponent_ = 0;
};

}  // namespace stowage::table
