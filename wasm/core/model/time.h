// Real time, exactly. A history's start/end are "numbers in any one unit": epoch nanoseconds
// (about 1.7e18, beyond a double's 2^53), seconds with a fraction, Cobra's u64 clocks. Real-time
// order decides verdicts (SSER, LIN), so a time is never rounded: it is a whole part over the full
// int64 range plus a fraction in units of 10^-18, compared exactly (docs/formats.md, "Times").
// An input time that does not fit (beyond int64, more than 18 fractional digits, not finite) is
// refused by its reader with a located error; nothing rounds it.
#pragma once
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace isoscope {

struct Time {
  static constexpr uint64_t kFracUnit = 1'000'000'000'000'000'000ull;  // 10^18: one whole unit
  static constexpr int kFracDigits = 18;

  int64_t whole = 0;  // floor of the value
  uint64_t frac = 0;  // value - whole, in units of 10^-18: [0, kFracUnit)

  static constexpr Time integer(int64_t v) { return {v, 0}; }
  // Lower / higher than every time an input can hold (for "unbounded" ends of intervals).
  static constexpr Time below_all() { return {INT64_MIN, 0}; }  // equal to the least; never above one
  static constexpr Time above_all() { return {INT64_MAX, kFracUnit}; }

  friend constexpr auto operator<=>(const Time&, const Time&) = default;
  friend constexpr bool operator==(const Time&, const Time&) = default;

  // The exact decimal: "1700000000000000100", "-1.5", "0.000000000000000001". Valid JSON and EDN.
  std::string text() const;
  // The nearest double: for display only (the web app's timeline), never for a verdict.
  double approx() const;
};

// A transaction's real-time interval [start, end] (start <= end once a reader accepted it).
struct Interval {
  Time start, end;
};

enum class TimeParse : uint8_t {
  Ok,
  NotANumber,  // not a decimal number: junk, NaN, Infinity
  TooLarge,    // the whole part is outside int64
  TooPrecise,  // a non-zero digit beyond the 18th after the point
};

// Parses a decimal number in JSON or EDN syntax exactly: an optional sign ('+' too), digits, an
// optional fraction and exponent ("1.5e3" is 1500), and EDN's N / M suffix. The whole text must be
// the number.
TimeParse parse_time(std::string_view text, Time& out);

// What a reader says about a time that parse_time refused, e.g. "does not fit in 64 bits".
const char* time_parse_problem(TimeParse p);

// "the start (20) is after the end (10)"-style check shared by every reader: empty when
// start <= end, else the message body.
std::string interval_problem(const Time& start, const Time& end);

}  // namespace isoscope
