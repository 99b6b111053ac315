#include "report/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace isoscope {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
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

}  // namespace isoscope
