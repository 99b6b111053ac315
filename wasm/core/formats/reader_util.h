// Small helpers shared by the importers (formats/<name>.cpp): error construction with a
// location, bounds-checked scanning of text and big/little-endian binary, and file selection.
// Internal to formats/; nothing here allocates per operation.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"
#include "model/errors.h"

namespace isoscope::fmt {

// An error in a text file at a byte offset: line and column are derived from the offset.
inline InputError text_error(const InputFile& f, size_t offset, std::string message) {
  InputError e;
  e.file = f.name;
  e.offset = static_cast<int64_t>(std::min(offset, f.bytes.size()));
  e.message = std::move(message);
  locate_line(f.bytes, e);
  return e;
}

// An error in a binary file at a byte offset.
inline InputError binary_error(const InputFile& f, size_t offset, std::string message) {
  InputError e;
  e.file = f.name;
  e.offset = static_cast<int64_t>(offset);
  e.message = std::move(message);
  return e;
}

// An error about the input as a whole (no position).
inline InputError input_error(std::string file, std::string message) {
  InputError e;
  e.file = std::move(file);
  e.message = std::move(message);
  return e;
}

// "'x'", "end of line", "end of file" or "byte 0x07": what a scanner found at p.
inline std::string found_at(const char* p, const char* end) {
  if (p >= end) return "end of file";
  unsigned char c = static_cast<unsigned char>(*p);
  if (c == '\n' || c == '\r') return "end of line";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
}

// Parses an optionally negative decimal integer at p (no leading '+', no spaces).
// Advances p past it; false (p unchanged) when there is no digit or it overflows int64.
inline bool parse_i64(const char*& p, const char* end, int64_t& out) {
  const char* q = p;
  bool neg = false;
  if (q < end && *q == '-') {
    neg = true;
    ++q;
  }
  const char* digits = q;
  uint64_t v = 0;
  while (q < end && static_cast<unsigned>(*q - '0') <= 9) {
    v = v * 10 + static_cast<uint64_t>(*q - '0');
    ++q;
  }
  const size_t n = static_cast<size_t>(q - digits);
  if (n == 0) return false;
  if (n > 18) {  // may overflow: redo with checks (18 digits always fit)
    const uint64_t limit = neg ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
    v = 0;
    for (const char* d = digits; d < q; ++d) {
      uint64_t dv = static_cast<uint64_t>(*d - '0');
      if (v > (limit - dv) / 10) return false;
      v = v * 10 + dv;
    }
  }
  out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  p = q;
  return true;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }  // not newline
inline bool is_digit(char c) { return static_cast<unsigned>(c - '0') <= 9; }

// The file's content after a UTF-8 byte order mark, if any.
inline size_t bom_length(std::string_view s) {
  return s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF &&
                 static_cast<unsigned char>(s[1]) == 0xBB && static_cast<unsigned char>(s[2]) == 0xBF
             ? 3
             : 0;
}

// Reads fixed-width integers from a byte buffer with bounds checks.
struct ByteReader {
  const unsigned char* data;
  size_t size;
  size_t pos = 0;

  explicit ByteReader(std::string_view s)
      : data(reinterpret_cast<const unsigned char*>(s.data())), size(s.size()) {}
  size_t remaining() const { return size - pos; }
  bool has(size_t n) const { return n <= size - pos; }
  bool u8(uint8_t& v) {
    if (!has(1)) return false;
    v = data[pos++];
    return true;
  }
  bool u64_le(uint64_t& v) {
    if (!has(8)) return false;
    v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | data[pos + static_cast<size_t>(i)];
    pos += 8;
    return true;
  }
  bool u64_be(uint64_t& v) {
    if (!has(8)) return false;
    v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | data[pos + static_cast<size_t>(i)];
    pos += 8;
    return true;
  }
};

inline std::string hex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  char buf[19];
  int n = 0;
  char tmp[16];
  do {
    tmp[n++] = digits[v & 15];
    v >>= 4;
  } while (v);
  buf[0] = '0';
  buf[1] = 'x';
  for (int i = 0; i < n; ++i) buf[2 + i] = tmp[n - 1 - i];
  return std::string(buf, static_cast<size_t>(2 + n));
}

// Natural order of file names: "T2.log" < "T10.log".
inline bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && a[i2] == '0') ++i2;
      while (j2 < b.size() && b[j2] == '0') ++j2;
      size_t ie = i2, je = j2;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      if (ie - i2 != je - j2) return ie - i2 < je - j2;
      int c = a.substr(i2, ie - i2).compare(b.substr(j2, je - j2));
      if (c != 0) return c < 0;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// The one file a single-file text format reads: the only file, or the only one that is not
// hidden (".DS_Store" and the like come along when a folder is dropped). nullptr otherwise.
inline const InputFile* single_text_file(std::span<const InputFile> files) {
  const InputFile* found = nullptr;
  for (const InputFile& f : files) {
    if (files.size() > 1 && f.base_name().starts_with('.')) continue;
    if (found) return nullptr;
    found = &f;
  }
  return found;
}

// The error for a text format given no file or several.
inline InputError not_one_file(std::span<const InputFile> files, const char* format) {
  return input_error(files.empty() ? "" : files[0].name,
                     std::string("the ") + format + " format reads exactly one file, got " +
                         std::to_string(files.size()));
}

}  // namespace isoscope::fmt
