#include "util/json.h"

#include "util/printable.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace isoscope {


// Output JSON is always valid UTF-8: a byte that does not belong to a well-formed sequence
// (user data may hold anything) becomes U+FFFD, the replacement character.
std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    // A run of printable ASCII that needs no escape is copied whole (most text is).
    size_t run = i;
    while (run < s.size() && static_cast<unsigned char>(s[run]) >= 0x20 && static_cast<unsigned char>(s[run]) < 0x7F &&
           s[run] != '"' && s[run] != '\\')
      ++run;
    if (run > i) {
      out.append(s.data() + i, run - i);
      i = run - 1;
      continue;
    }
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
          // C1 controls and direction overrides as \uXXXX: the same string to a JSON reader,
          // nothing a terminal acts on when the output is shown raw.
          const uint32_t cp = utf8_code_point(s.substr(i, n));
          if (is_terminal_control(cp)) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
          } else {
            out.append(s.substr(i, n));
          }
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
  if (d == std::floor(d) && std::fabs(d) < 9e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
  } else if (const long long k = std::llround(d * 1000); std::fabs(d) < 1e12 && static_cast<double>(k) / 1000 == d) {
    // Milliseconds rounded to microseconds (every time in a report): "%.15g" would print the
    // same digits, k / 1000, but printf and strtod of doubles are slow in wasm.
    const unsigned long long a = static_cast<unsigned long long>(k < 0 ? -k : k);
    int n = std::snprintf(buf, sizeof buf, "%s%llu.%03llu", k < 0 ? "-" : "", a / 1000, a % 1000);
    while (buf[n - 1] == '0') buf[--n] = '\0';
  } else {
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
  // Names are mostly the writer's own ("verdict", "txn"): quoted in place when nothing needs
  // an escape, without json_quote's string.
  bool plain = true;
  for (char c : name) plain = plain && static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F && c != '"' && c != '\\';
  if (plain) {
    out_ += '"';
    out_ += name;
    out_ += '"';
  } else {
    out_ += json_quote(name);
  }
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
