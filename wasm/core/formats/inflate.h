// DEFLATE (RFC 1951) decoding and CRC-32, for histories that arrive compressed (zip, gzip:
// formats/archive.h). Written for hostile input: every malformed stream is an error value that
// names the byte offset within the compressed data and what was expected; nothing recurses.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace isoscope {

struct InflateResult {
  bool ok = false;
  bool over_limit = false;  // failed because the output would exceed max_out
  bool out_of_memory = false;  // failed because the output buffer could not be allocated
  size_t in_used = 0;       // ok: bytes of the input the stream occupied (through its final block)
  int64_t offset = -1;      // error: byte offset within the compressed data
  std::string message;      // error: what was found and what was expected
};

// Decodes DEFLATE streams. One Inflater holds the Huffman tables (about 60 KB), so a caller
// that inflates many streams (the entries of a zip) reuses one.
class Inflater {
 public:
  Inflater();
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Decodes the raw DEFLATE stream at the start of `in` and appends its output to `out`.
  // size_hint: the expected output size (allocated up front; the zip central directory knows it,
  // gzip's ISIZE suggests it). max_out: the most bytes this call may append; more is an error
  // with over_limit set. Matches never reach into what `out` held before the call.
  InflateResult inflate(std::string_view in, std::string& out, size_t size_hint, size_t max_out);

 private:
  struct Tables;
  std::unique_ptr<Tables> t_;
};

// Convenience: one stream with a fresh Inflater.
InflateResult inflate_raw(std::string_view in, std::string& out, size_t size_hint, size_t max_out);

// CRC-32 (ISO-HDLC, as zip and gzip use it): crc32(data) of "123456789" is 0xCBF43926. Pass the
// previous result as `crc` to continue over more data.
uint32_t crc32(std::string_view data, uint32_t crc = 0);

}  // namespace isoscope
