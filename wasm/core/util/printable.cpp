#include "util/printable.h"

namespace isoscope {

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

uint32_t utf8_code_point(std::string_view seq) {
  static const unsigned char lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t cp = static_cast<unsigned char>(seq[0]) & lead_mask[seq.size()];
  for (size_t k = 1; k < seq.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(seq[k]) & 0x3F);
  return cp;
}

bool is_terminal_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string_view utf8_prefix(std::string_view s, size_t bytes) {
  if (s.size() <= bytes) return s;
  size_t i = 0;
  while (i < bytes) {
    const size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : utf8_sequence(s, i);
    const size_t step = n == 0 ? 1 : n;  // a byte that is not UTF-8 is one unit (shown as \xNN)
    if (i + step > bytes) break;
    i += step;
  }
  return s.substr(0, i);
}

std::string shortened(std::string_view s, std::string_view what) {
  if (s.size() <= kLongText) return std::string(s);
  std::string out(utf8_prefix(s, kShownText));
  out += "\u2026[";  // …
  if (!what.empty()) {
    out += what;
    out += ", ";
  }
  return out + std::to_string(s.size()) + " bytes]";
}

namespace {
void put_hex(std::string& out, std::string_view bytes) {
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : bytes) {
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  }
}
}  // namespace

std::string printable(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c >= 0x20 && c != 0x7F) || (keep_lines && (c == '\n' || c == '\t'))) out += static_cast<char>(c);
      else put_hex(out, s.substr(i, 1));
      ++i;
      continue;
    }
    const size_t n = utf8_sequence(s, i);
    if (n == 0) {
      put_hex(out, s.substr(i, 1));  // not UTF-8: a raw 0x9B is CSI to an 8-bit terminal
      ++i;
    } else {
      if (is_terminal_control(utf8_code_point(s.substr(i, n)))) put_hex(out, s.substr(i, n));
      else out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace isoscope
