#include "table/number.h"

#include <algorithm>
#include <fmt/format.h>

#include "stowage/error.h"
#include "table/limits.h"

namespace stowage::table {
namespace {

// DynamoDB's range, 1E-130 .. 9.99…E+125, in the 0.d1d2… × 10^e form.
constexpr int kMinExponent = -129;
constexpr int kMaxExponent = 126;

// Keeps a hostile exponent ("1e99999999999") from overflowing an int while
// parsing; anything this large is out of range anyway.
constexpr long kExponentParseCap = 1'000'000;

// Orders the sign classes in order_key().
constexpr char kNegativeTag = 0x01;
constexpr char kZeroTag = 0x02;
constexpr char kPositiveTag = 0x03;
// Follows the inverted digits of a negative number: above every inverted
// digit, so that -0.5 (a prefix of -0.51 once inverted) sorts after it.
constexpr char kNegativeTerminator = 0x7f;

Error invalid_number(std::string_view text, std::string_view why) {
  return Error::validation(fmt::format("invalid number \"{}\": {}", text, why));
}

// Magnitude comparison of two normalized (digits, exponent) pairs.
int compare_magnitude(const std::string& a_digits, int a_exponent,
                      const std::string& b_digits, int b_exponent) {
  if (a_digits.empty() || b_digits.empty()) {
    return static_cast<int>(!a_digits.empty()) -
           static_cast<int>(!b_digits.empty());
  }
  if (a_exponent != b_exponent) return a_exponent < b_exponent ? -1 : 1;
  // Normalized digits have no trailing zeros, so plain string order is
  // numeric order of the fractions 0.a and 0.b.
  int c = a_digits.compare(b_digits);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Sum or difference of two non-negative integers written in decimal with
// the same length; for a difference, REQUIRES: a >= b.
std::string add_aligned(const std::string& a, const std::string& b) {
  std::string out(a.size() + 1, '0');
  int carry = 0;
  for (std::size_t i = a.size(); i-- > 0;) {
    int d = (a[i] - '0') + (b[i] - '0') + carry;
    out[i + 1] = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  out[0] = static_cast<char>('0' + carry);
  return out;
}

std::string subtract_aligned(const std::string& a, const std::string& b) {
  std::string out(a.size(), '0');
  int borrow = 0;
  for (std::size_t i = a.size(); i-- > 0;) {
    int d = (a[i] - '0') - (b[i] - '0') - borrow;
    borrow = d < 0 ? 1 : 0;
    out[i] = static_cast<char>('0' + d + borrow * 10);
  }
  return out;
}

}  // namespace

Number::Number(std::int64_t value) {
  if (value == 0) return;
  negative_ = value < 0;
  // Unsigned negation keeps INT64_MIN exact.
  std::uint64_t magnitude = negative_ ? 0 - static_cast<std::uint64_t>(value)
                                      : static_cast<std::uint64_t>(value);
  digits_ = std::to_string(magnitude);
  exponent_ = static_cast<int>(digits_.size());
  while (digits_.back() == '0') digits_.pop_back();
}

Number Number::parse(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  std::string mantissa;
  long integer_digits = 0;
  bool seen_point = false;
  bool seen_digit = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      seen_digit = true;
      // Leading zeros carry no value; skipping them here keeps `mantissa`
      // short for inputs like "0000…1".
      if (mantissa.empty() && c == '0') {
        if (seen_point) --integer_digits;
        continue;
      }
      mantissa.push_back(c);
      if (!seen_point) ++integer_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) throw invalid_number(text, "expected digits");

  long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
      exponent_negative = text[i] == '-';
      ++i;
    }
    if (i == text.size()) throw invalid_number(text, "expected exponent digits");
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      exponent = std::min(exponent * 10 + (text[i] - '0'), kExponentParseCap);
    }
    if (exponent_negative) exponent = -exponent;
  }
  if (i != text.size()) throw invalid_number(text, "unexpected characters");

  while (!mantissa.empty() && mantissa.back() == '0') mantissa.pop_back();
  Number n;
  if (mantissa.empty()) return n;
  if (mantissa.size() > limits::kMaxNumberDigits) {
    throw invalid_number(
        text, fmt::format("more than {} significant digits",
                          limits::kMaxNumberDigits));
  }
  long scaled = integer_digits + exponent;
  if (scaled > kMaxExponent) {
    throw invalid_number(text, "magnitude larger than 9.99E+125");
  }
  if (scaled < kMinExponent) {
    throw invalid_number(text, "magnitude smaller than 1E-130");
  }
  n.negative_ = negative;
  n.digits_ = std::move(mantissa);
  n.exponent_ = static_cast<int>(scaled);
  return n;
}

std::string Number::to_string() const {
  if (is_zero()) return "0";
  std::string out;
  if (negative_) out.push_back('-');
  int length = static_cast<int>(digits_.size());
  if (exponent_ <= 0) {
    out.append("0.");
    out.append(static_cast<std::size_t>(-exponent_), '0');
    out.append(digits_);
  } else if (exponent_ < length) {
    out.append(digits_, 0, static_cast<std::size_t>(exponent_));
    out.push_back('.');
    out.append(digits_, static_cast<std::size_t>(exponent_));
  } else {
    out.append(digits_);
    out.append(static_cast<std::size_t>(exponent_ - length), '0');
  }
  return out;
}

std::optional<std::int64_t> Number::to_int64() const {
  if (is_zero()) return 0;
  if (exponent_ < static_cast<int>(digits_.size()) || exponent_ > 19) {
    return std::nullopt;
  }
  unsigned __int128 magnitude = 0;
  for (int k = 0; k < exponent_; ++k) {
    int d = k < static_cast<int>(digits_.size()) ? digits_[k] - '0' : 0;
    magnitude = magnitude * 10 + static_cast<unsigned>(d);
  }
  constexpr unsigned __int128 kMaxPositive = INT64_MAX;
  if (magnitude > kMaxPositive + (negative_ ? 1 : 0)) return std::nullopt;
  if (negative_) {
    return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(magnitude));
  }
  return static_cast<std::int64_t>(magnitude);
}

Number Number::operator-() const {
  Number n = *this;
  if (!n.is_zero()) n.negative_ = !n.negative_;
  return n;
}

Number Number::operator+(const Number& other) const {
  if (is_zero()) return other;
  if (other.is_zero()) return *this;

  // Write both as integers counted in units of 10^unit, the smaller of the
  // two lowest digit positions, so that digit strings line up.
  int a_unit = exponent_ - static_cast<int>(digits_.size());
  int b_unit = other.exponent_ - static_cast<int>(other.digits_.size());
  int unit = std::min(a_unit, b_unit);
  std::string a = digits_ + std::string(a_unit - unit, '0');
  std::string b = other.digits_ + std::string(b_unit - unit, '0');
  std::size_t width = std::max(a.size(), b.size());
  a.insert(0, width - a.size(), '0');
  b.insert(0, width - b.size(), '0');

  Number sum;
  std::string total;
  if (negative_ == other.negative_) {
    total = add_aligned(a, b);
    sum.negative_ = negative_;
  } else {
    int c = a.compare(b);
    if (c == 0) return Number();
    total = c > 0 ? subtract_aligned(a, b) : subtract_aligned(b, a);
    sum.negative_ = c > 0 ? negative_ : other.negative_;
  }

  std::size_t first = total.find_first_not_of('0');
  std::size_t last = total.find_last_not_of('0');
  sum.digits_ = total.substr(first, last - first + 1);
  sum.exponent_ = static_cast<int>(total.size() - first) + unit;

  std::string why;
  if (sum.digits_.size() > limits::kMaxNumberDigits) {
    why = fmt::format("more than {} significant digits",
                      limits::kMaxNumberDigits);
  } else if (sum.exponent_ > kMaxExponent) {
    why = "magnitude larger than 9.99E+125";
  } else if (sum.exponent_ < kMinExponent) {
    why = "magnitude smaller than 1E-130";
  }
  if (!why.empty()) {
    throw Error::validation(fmt::format("number overflow: {} + {}: {}",
                                        to_string(), other.to_string(), why));
  }
  return sum;
}

std::strong_ordering operator<=>(const Number& a, const Number& b) {
  int a_sign = a.is_zero() ? 0 : (a.negative_ ? -1 : 1);
  int b_sign = b.is_zero() ? 0 : (b.negative_ ? -1 : 1);
  if (a_sign != b_sign) return a_sign <=> b_sign;
  int c = compare_magnitude(a.digits_, a.exponent_, b.digits_, b.exponent_);
  if (a_sign < 0) c = -c;
  return c <=> 0;
}

std::string Number::order_key() const {
  if (is_zero()) return std::string(1, kZeroTag);
  std::string key;
  key.reserve(digits_.size() + 3);
  // The biased exponent fits one byte: kMinExponent..kMaxExponent is 256
  // values.
  auto biased = static_cast<unsigned char>(exponent_ - kMinExponent);
  if (!negative_) {
    key.push_back(kPositiveTag);
    key.push_back(static_cast<char>(biased));
    key.append(digits_);
  } else {
    // Larger magnitude must sort first: invert every byte after the tag.
    key.push_back(kNegativeTag);
    key.push_back(static_cast<char>(0xff - biased));
    for (char d : digits_) key.push_back(static_cast<char>('9' - d + '0'));
    key.push_back(kNegativeTerminator);
  }
  return key;
}

std::size_t Number::storage_size() const {
  // DynamoDB: one byte per two significant digits, plus one.
  return (digits_.size() + 1) / 2 + 1;
}

}  // namespace stowage::table
