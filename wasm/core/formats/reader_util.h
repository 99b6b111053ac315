// Small helpers shared by the importers (formats/<name>.cpp): error construction with a
// location, bounds-checked scanning of text and big/little-endian binary, and file selection.
// Internal to formats/; nothing here allocates per operation.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"
#include "model/errors.h"

#if defined(__SSE2__) || defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

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

// An integer at p too large for 64 bits ("99999999999999999999"), or empty when there is none.
inline std::string_view overflowing_integer(const char* p, const char* end) {
  const char* q = p + (p < end && *p == '-');
  const char* digits = q;
  while (q < end && static_cast<unsigned>(*q - '0') <= 9) ++q;
  if (q - digits < 19) return {};
  int64_t v;
  const char* r = p;
  return parse_i64(r, end, v) ? std::string_view() : std::string_view(p, static_cast<size_t>(q - p));
}

// "'x'", "end of line", "end of file", "byte 0x07" or "99999999999999999999, which does not fit
// in 64 bits": what a scanner found at p.
inline std::string found_at(const char* p, const char* end) {
  if (p >= end) return "end of file";
  if (std::string_view big = overflowing_integer(p, end); !big.empty())
    return std::string(big.substr(0, 40)) + (big.size() > 40 ? "..." : "") +
           ", which does not fit in 64 bits (-9223372036854775808 to 9223372036854775807)";
  unsigned char c = static_cast<unsigned char>(*p);
  if (c == '\n' || c == '\r') return "end of line";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
}

// ---- Vectorised scanning of short numeric lines --------------------------------------------
// The hot loops of the line-based readers spend their time on integers whose lengths vary line
// by line. nondigit_mask64() classifies 64 bytes at once (AVX2, SSE2, wasm SIMD or 64-bit SWAR),
// so a line's separators come from bit scans and its fields convert independently, 8 digits
// per step. The callers guarantee the bytes are readable; little-endian hosts (x86-64, wasm).
static_assert(std::endian::native == std::endian::little, "the SWAR helpers assume little-endian");
#define ISOSCOPE_HOT inline __attribute__((always_inline))  // per-line paths: always inline

ISOSCOPE_HOT uint64_t load_u64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The value of the first n (1..8) bytes of w (first byte lowest), which are ASCII digits.
ISOSCOPE_HOT uint64_t digits_value(uint64_t w, unsigned n) {
  w = (w << (8 * (8 - n))) & 0x0F0F0F0F0F0F0F0Full;  // right-align: leading zero digits
  w = (w * 2561) >> 8;                                // pairs of digits
  w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;  // groups of four
  return ((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

// Bit i is set when p[i] is not an ASCII digit, for i in 0..63 (64 readable bytes at p):
// the portable version, used where no SIMD is available (and tested everywhere).
inline uint64_t nondigit_mask64_swar(const char* p) {
  uint64_t mask = 0;
  for (int i = 0; i < 8; ++i) {
    const uint64_t w = load_u64(p + 8 * i);
    constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull, kLow = 0x0F0F0F0F0F0F0F0Full;
    // Non-zero exactly in the non-digit bytes: high nibble other than 3, or low nibble above 9
    // (no carry crosses a byte: 0x0F + 0x06 < 0x100).
    const uint64_t bad = ((w & kHigh) ^ 0x3030303030303030ull) | (((w & kLow) + 0x0606060606060606ull) & kHigh);
    const uint64_t top = (((bad & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | bad) & 0x8080808080808080ull;
    mask |= (((top >> 7) * 0x0102040810204080ull) >> 56) << (8 * i);  // gather the 8 flags
  }
  return mask;
}

// The same, vectorised where the target allows.
ISOSCOPE_HOT uint64_t nondigit_mask64(const char* p) {
#if defined(__AVX2__)
  const __m256i zero = _mm256_set1_epi8('0'), nine = _mm256_set1_epi8(9);
  const __m256i a = _mm256_sub_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), zero);
  const __m256i b = _mm256_sub_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32)), zero);
  // A byte is a digit when (byte - '0') <= 9 unsigned, i.e. min(byte - '0', 9) == byte - '0'.
  const uint32_t da = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(a, nine), a)));
  const uint32_t db = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(b, nine), b)));
  return ~((static_cast<uint64_t>(db) << 32) | da);
#elif defined(__SSE2__) || defined(__wasm_simd128__)
  uint64_t digits = 0;
  for (int i = 0; i < 4; ++i) {
#if defined(__SSE2__)
    const __m128i v = _mm_sub_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), _mm_set1_epi8('0'));
    const uint64_t d = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(9)), v)));
#else
    const v128_t v = wasm_i8x16_sub(wasm_v128_load(p + 16 * i), wasm_i8x16_splat('0'));
    const uint64_t d = wasm_i8x16_bitmask(wasm_u8x16_le(v, wasm_i8x16_splat(9)));
#endif
    digits |= d << (16 * i);
  }
  return ~digits;
#else
  return nondigit_mask64_swar(p);
#endif
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
// Line ends: CR, LF and CRLF alike in every text format (a CR-only file is as good as another).
inline bool is_newline(char c) { return c == '\n' || c == '\r'; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }  // white space within a line
// p at a line end (is_newline): past it, a CRLF counting as one.
inline const char* past_newline(const char* p, const char* end) {
  return p + 1 + (*p == '\r' && p + 1 < end && p[1] == '\n');
}
// The line end at or after p (a CR or LF), or end.
inline const char* find_newline(const char* p, const char* end) {
  while (p < end && !is_newline(*p)) ++p;
  return p;
}
// The end of the last whole line in [p, end): past its last CR or LF, or p when there is none.
inline const char* last_whole_line_end(const char* p, const char* end) {
  while (end > p && !is_newline(end[-1])) --end;
  return end;
}
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
