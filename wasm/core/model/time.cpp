#include "model/time.h"

#include <cstdio>

namespace isoscope {

namespace {

constexpr uint64_t kPow10[19] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull};

bool is_digit(char c) { return static_cast<unsigned>(c - '0') <= 9; }

// The 18 fractional digits of f (< 10^18) without trailing zeros, after a '.'; "" for 0.
std::string fraction_text(uint64_t f) {
  if (f == 0) return {};
  char buf[Time::kFracDigits + 2];
  buf[0] = '.';
  for (int i = Time::kFracDigits; i >= 1; --i, f /= 10) buf[i] = static_cast<char>('0' + f % 10);
  int n = Time::kFracDigits;
  while (buf[n] == '0') --n;
  return std::string(buf, static_cast<size_t>(n + 1));
}

}  // namespace

std::string Time::text() const {
  std::string s;
  if (whole >= 0 || frac == 0) {
    s = std::to_string(whole);
    s += fraction_text(frac);
  } else {  // whole + frac/10^18 with whole < 0 < frac: -(-(whole + 1) + (10^18 - frac)/10^18)
    s = '-';
    s += std::to_string(static_cast<uint64_t>(-(whole + 1)));
    s += fraction_text(kFracUnit - frac);
  }
  return s;
}

double Time::approx() const { return static_cast<double>(whole) + static_cast<double>(frac) * 1e-18; }

TimeParse parse_time(std::string_view s, Time& out) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  // The digits, with the point's position among them: [int_begin, int_end) before it,
  // [frac_begin, frac_end) after it.
  const size_t int_begin = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  const size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i < s.size() && s[i] == '.') {
    frac_begin = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    frac_end = i;
  }
  if (int_end == int_begin) return TimeParse::NotANumber;  // ".5", "-", "NaN", "Infinity"
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) exp_negative = s[i++] == '-';
    const size_t exp_begin = i;
    while (i < s.size() && is_digit(s[i])) {
      if (exponent < 1'000'000) exponent = exponent * 10 + (s[i] - '0');  // saturates: 1e999999999
      ++i;
    }
    if (i == exp_begin) return TimeParse::NotANumber;
    if (exp_negative) exponent = -exponent;
  }
  if (i < s.size() && (s[i] == 'N' || s[i] == 'M')) ++i;  // EDN: bigint / bigdecimal
  if (i != s.size()) return TimeParse::NotANumber;

  // Each non-zero digit adds digit * 10^q; q >= 19 is beyond int64, q < -18 beyond the fraction.
  uint64_t whole = 0, frac = 0;
  auto add = [&](char c, int64_t q) -> TimeParse {
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (d == 0) return TimeParse::Ok;
    if (q >= 19) return TimeParse::TooLarge;
    if (q < -Time::kFracDigits) return TimeParse::TooPrecise;
    if (q >= 0)
      whole += d * kPow10[q];  // at most 9.99..e18 in all: no overflow of 64 bits
    else
      frac += d * kPow10[Time::kFracDigits + q];
    return TimeParse::Ok;
  };
  const int64_t int_digits = static_cast<int64_t>(int_end - int_begin);
  for (size_t k = int_begin; k < int_end; ++k)
    if (TimeParse r = add(s[k], int_digits - 1 - static_cast<int64_t>(k - int_begin) + exponent); r != TimeParse::Ok)
      return r;
  for (size_t k = frac_begin; k < frac_end; ++k)
    if (TimeParse r = add(s[k], -1 - static_cast<int64_t>(k - frac_begin) + exponent); r != TimeParse::Ok) return r;

  constexpr uint64_t kMaxPositive = uint64_t{INT64_MAX};
  if (!negative || (whole == 0 && frac == 0)) {
    if (whole > kMaxPositive) return TimeParse::TooLarge;
    out = {static_cast<int64_t>(whole), frac};
  } else if (frac == 0) {
    if (whole > kMaxPositive + 1) return TimeParse::TooLarge;
    out = {static_cast<int64_t>(0 - whole), 0};  // two's complement: -2^63 too
  } else {  // -(W + F) = -(W + 1) + (1 - F)
    if (whole + 1 > kMaxPositive + 1) return TimeParse::TooLarge;
    out = {static_cast<int64_t>(0 - (whole + 1)), Time::kFracUnit - frac};
  }
  return TimeParse::Ok;
}

const char* time_parse_problem(TimeParse p) {
  switch (p) {
    case TimeParse::Ok: return "";
    case TimeParse::NotANumber: return "is not a finite decimal number";
    case TimeParse::TooLarge:
      return "does not fit in 64 bits (times are integers from -9223372036854775808 to 9223372036854775807, "
             "with at most 18 fractional digits)";
    case TimeParse::TooPrecise: return "has more than 18 fractional digits (times are exact to 10^-18 of a unit)";
  }
  return "";
}

std::string interval_problem(const Time& start, const Time& end) {
  if (start <= end) return {};
  return "the transaction ends (at " + end.text() + ") before it starts (at " + start.text() + ")";
}

}  // namespace isoscope
