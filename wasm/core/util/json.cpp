#include "util/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace isoscope {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) n = 3;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xEE && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else return 0;
  if (i + n > s.size()) return 0;
  const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
  if (c1 < lo || c1 > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

// Output JSON is always valid UTF-8: a byte that does not belong to a well-formed sequence
// (user data may hold anything) becomes U+FFFD, the replacement character.
std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else if (c < 0x80) {
          out += static_cast<char>(c);
        } else if (const size_t n = utf8_sequence(s, i)) {
          out.append(s.substr(i, n));
          i += n - 1;
        } else {
          out += "\\ufffd";
        }
    }
  }
  out += '"';
  return out;
}

std::string json_number(double d) {
  if (!std::isfinite(d)) return "null";
  char buf[32];
  if (d == std::floor(d) && std::fabs(d) < 9e15)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
  else {
    std::snprintf(buf, sizeof buf, "%.15g", d);  // shortest that usually round-trips
    if (std::strtod(buf, nullptr) != d) std::snprintf(buf, sizeof buf, "%.17g", d);
  }
  return buf;
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ += newline_ ? ",\n " : ", ";
    else if (newline_) out_ += "\n ";
    has_items_.back() = true;
  }
  newline_ = false;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  separate();
  out_ += json_quote(name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::open(char c) {
  separate();
  out_ += c;
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char c) {
  has_items_.pop_back();
  out_ += c;
  return *this;
}

}  // namespace isoscope
