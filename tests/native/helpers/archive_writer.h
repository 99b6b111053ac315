// Writers of DEFLATE streams, zip, gzip and tar archives, exact to the bit, so that the tests
// can build any archive, valid or not: the archive tests' (formats/archive_test.cpp) and the
// command line's on archives (cli/input_test.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// ---------- DEFLATE ----------

struct BitWriter {
  std::string out;
  uint64_t acc = 0;
  unsigned n = 0;
  void bits(uint32_t v, unsigned len) {
    acc |= static_cast<uint64_t>(v) << n;
    n += len;
    while (n >= 8) {
      out += static_cast<char>(acc & 0xff);
      acc >>= 8;
      n -= 8;
    }
  }
  // Huffman codes are packed starting with their most significant bit.
  void code(uint32_t c, unsigned len) {
    uint32_t r = 0;
    for (unsigned i = 0; i < len; ++i) r |= ((c >> i) & 1) << (len - 1 - i);
    bits(r, len);
  }
  void align() {
    if (n % 8) bits(0, 8 - n % 8);
  }
  std::string finish() {
    align();
    return out;
  }
};

// Canonical codes for code lengths (RFC 1951 3.2.2).
std::vector<uint32_t> canonical(const std::vector<uint8_t>& lens);

struct Token {
  int lit = -1;  // a literal byte, or -1 for a match
  unsigned len = 0, dist = 0;
};
unsigned len_symbol(unsigned len);
unsigned dist_symbol(unsigned dist);
std::vector<uint8_t> fixed_lit_lens();

// Huffman-coded symbols of a block (fixed or dynamic), ending with end-of-block.
void put_tokens(BitWriter& w, const std::vector<Token>& tokens, const std::vector<uint8_t>& lit_lens,
                const std::vector<uint8_t>& dist_lens);
void put_fixed_block(BitWriter& w, const std::vector<Token>& tokens, bool final);
// A dynamic block header with the given code-length code and the code-length symbols (with
// their extra bits) as given, valid or not.
void put_dynamic_header(BitWriter& w, bool final, unsigned nlit, unsigned ndist, const std::vector<uint8_t>& cl_lens,
                        const std::vector<std::pair<unsigned, unsigned>>& cl_symbols, unsigned ncl = 19);
// A complete code-length code: 13 symbols of 4 bits and 6 of 5 bits.
std::vector<uint8_t> default_cl_lens();
void put_dynamic_block(BitWriter& w, const std::vector<Token>& tokens, bool final, const std::vector<uint8_t>& lit_lens,
                       const std::vector<uint8_t>& dist_lens);
void put_stored_block(BitWriter& w, std::string_view bytes, bool final);
// A random complete prefix code over the given symbols (codes of up to 15 bits).
std::vector<uint8_t> random_code(std::mt19937& rng, size_t alphabet, std::vector<unsigned> symbols);
// Applies tokens to a reference output, byte by byte (the definition of a match).
void apply_tokens(std::string& ref, const std::vector<Token>& tokens);
// Literals only, one fixed block: the simplest valid deflate stream of any data.
std::string deflate_literals(std::string_view data);
// n zero bytes as one literal and 258-byte matches: a tiny stream that inflates enormously.
std::string deflate_zeros(size_t n);

// ---------- zip, gzip and tar ----------

// Little-endian fields.
void put16(std::string& s, uint32_t v);
void put32(std::string& s, uint32_t v);
void put64(std::string& s, uint64_t v);

struct ZipEntry {
  std::string name;
  std::string data;    // uncompressed
  uint32_t method = 0;  // 0 stored, 8 deflate (packed defaults to literals), anything else as is
  std::optional<std::string> packed;
  uint32_t flags = 0;
  bool descriptor = false;  // flag bit 3: zero sizes in the local header, a data descriptor after
  bool zip64 = false;       // sizes and offset as 0xffffffff plus a ZIP64 extra field
  std::optional<uint32_t> crc;
  std::optional<uint64_t> usize;
};
struct ZipOptions {
  std::string comment;
  bool zip64_end = false;
};

std::string make_zip(const std::vector<ZipEntry>& entries, const ZipOptions& opt = {});
// A zip entry stored as is, or deflated (as literals).
ZipEntry stored(std::string name, std::string data);
ZipEntry deflated(std::string name, std::string data);
// A gzip member: header (with the given flags' fields), deflate stream, CRC-32, ISIZE.
std::string make_gzip(std::string_view data, uint8_t flags = 0, std::optional<std::string> packed = std::nullopt);
// A tar archive of one empty file: a POSIX ustar header with its checksum, and an end block.
std::string tar_of(const std::string& name);
