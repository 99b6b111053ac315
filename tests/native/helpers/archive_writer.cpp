// The writers the archive tests build their inputs with (archive_writer.h).
#include "archive_writer.h"

#include <algorithm>
#include <cstdio>

#include "formats/inflate.h"

using isoscope::crc32;

// ---------- a small DEFLATE writer, so the test can build exact streams ----------

namespace {

constexpr uint16_t kLenBase[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
constexpr uint8_t kClOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

}  // namespace

// Canonical codes for code lengths (RFC 1951 3.2.2).
std::vector<uint32_t> canonical(const std::vector<uint8_t>& lens) {
  unsigned count[16] = {};
  for (uint8_t l : lens) ++count[l];
  count[0] = 0;
  uint32_t next[16] = {}, code = 0;
  for (unsigned b = 1; b <= 15; ++b) next[b] = code = (code + count[b - 1]) << 1;
  std::vector<uint32_t> codes(lens.size());
  for (size_t s = 0; s < lens.size(); ++s)
    if (lens[s]) codes[s] = next[lens[s]]++;
  return codes;
}

unsigned len_symbol(unsigned len) {
  unsigned i = 28;
  while (kLenBase[i] > len) --i;
  return i;
}
unsigned dist_symbol(unsigned dist) {
  unsigned i = 29;
  while (kDistBase[i] > dist) --i;
  return i;
}

std::vector<uint8_t> fixed_lit_lens() {
  std::vector<uint8_t> l(288);
  for (int s = 0; s < 288; ++s) l[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
  return l;
}

// Huffman-coded symbols of a block (fixed or dynamic), ending with end-of-block.
void put_tokens(BitWriter& w, const std::vector<Token>& tokens, const std::vector<uint8_t>& lit_lens,
                const std::vector<uint8_t>& dist_lens) {
  const std::vector<uint32_t> lc = canonical(lit_lens), dc = canonical(dist_lens);
  for (const Token& t : tokens) {
    if (t.lit >= 0) {
      w.code(lc[t.lit], lit_lens[t.lit]);
      continue;
    }
    const unsigned ls = len_symbol(t.len), ds = dist_symbol(t.dist);
    w.code(lc[257 + ls], lit_lens[257 + ls]);
    w.bits(t.len - kLenBase[ls], kLenExtra[ls]);
    w.code(dc[ds], dist_lens[ds]);
    w.bits(t.dist - kDistBase[ds], kDistExtra[ds]);
  }
  w.code(lc[256], lit_lens[256]);
}

void put_fixed_block(BitWriter& w, const std::vector<Token>& tokens, bool final) {
  w.bits(final, 1);
  w.bits(1, 2);
  put_tokens(w, tokens, fixed_lit_lens(), std::vector<uint8_t>(30, 5));
}

// A dynamic block header with the given code-length code and the code-length symbols (with
// their extra bits) as given, valid or not.
void put_dynamic_header(BitWriter& w, bool final, unsigned nlit, unsigned ndist, const std::vector<uint8_t>& cl_lens,
                        const std::vector<std::pair<unsigned, unsigned>>& cl_symbols, unsigned ncl) {
  w.bits(final, 1);
  w.bits(2, 2);
  w.bits(nlit - 257, 5);
  w.bits(ndist - 1, 5);
  w.bits(ncl - 4, 4);
  for (unsigned i = 0; i < ncl; ++i) w.bits(cl_lens[kClOrder[i]], 3);
  const std::vector<uint32_t> cc = canonical(cl_lens);
  for (auto [sym, extra] : cl_symbols) {
    w.code(cc[sym], cl_lens[sym]);
    if (sym == 16) w.bits(extra, 2);
    if (sym == 17) w.bits(extra, 3);
    if (sym == 18) w.bits(extra, 7);
  }
}
// A complete code-length code: 13 symbols of 4 bits and 6 of 5 bits.
std::vector<uint8_t> default_cl_lens() {
  std::vector<uint8_t> l(19, 4);
  for (int s : {13, 14, 15, 16, 17, 18}) l[s] = 5;
  return l;
}

void put_dynamic_block(BitWriter& w, const std::vector<Token>& tokens, bool final, const std::vector<uint8_t>& lit_lens,
                       const std::vector<uint8_t>& dist_lens) {
  std::vector<std::pair<unsigned, unsigned>> syms;
  for (uint8_t l : lit_lens) syms.push_back({l, 0});
  for (uint8_t l : dist_lens) syms.push_back({l, 0});
  put_dynamic_header(w, final, static_cast<unsigned>(lit_lens.size()), static_cast<unsigned>(dist_lens.size()),
                     default_cl_lens(), syms);
  put_tokens(w, tokens, lit_lens, dist_lens);
}

void put_stored_block(BitWriter& w, std::string_view bytes, bool final) {
  w.bits(final, 1);
  w.bits(0, 2);
  w.align();
  w.bits(static_cast<uint32_t>(bytes.size()), 16);
  w.bits(static_cast<uint32_t>(bytes.size()) ^ 0xffff, 16);
  w.out.append(bytes);
}

// A random complete prefix code over the given symbols: start from two 1-bit codes and split
// random leaves (a split keeps the code complete); deep splits give codes of up to 15 bits.
std::vector<uint8_t> random_code(std::mt19937& rng, size_t alphabet, std::vector<unsigned> symbols) {
  std::shuffle(symbols.begin(), symbols.end(), rng);
  std::vector<uint8_t> leaves = {1, 1};
  while (leaves.size() < symbols.size()) {
    size_t i = rng() % 2 ? leaves.size() - 1 : rng() % leaves.size();  // often deepen the newest
    if (leaves[i] >= 15) i = std::min_element(leaves.begin(), leaves.end()) - leaves.begin();
    ++leaves[i];
    leaves.push_back(leaves[i]);
  }
  std::vector<uint8_t> lens(alphabet, 0);
  for (size_t i = 0; i < leaves.size() && i < symbols.size(); ++i) lens[symbols[i]] = leaves[i];
  if (symbols.size() < 2) {  // one symbol: give it company so the code is complete
    lens[symbols[0]] = 1;
    lens[symbols[0] == 0 ? 1 : 0] = 1;
  }
  return lens;
}

// Applies tokens to a reference output, byte by byte (the definition of a match).
void apply_tokens(std::string& ref, const std::vector<Token>& tokens) {
  for (const Token& t : tokens) {
    if (t.lit >= 0) {
      ref += static_cast<char>(t.lit);
    } else {
      for (unsigned i = 0; i < t.len; ++i) ref += ref[ref.size() - t.dist];
    }
  }
}

// Literals only, one fixed block: the simplest valid deflate stream of any data.
std::string deflate_literals(std::string_view data) {
  std::vector<Token> tokens;
  for (unsigned char c : data) tokens.push_back({c});
  BitWriter w;
  put_fixed_block(w, tokens, true);
  return w.finish();
}

// n zero bytes as one literal and 258-byte matches: a tiny stream that inflates enormously.
std::string deflate_zeros(size_t n) {
  std::vector<Token> tokens = {{0}};
  for (size_t left = n - 1; left > 0;) {
    const unsigned len = static_cast<unsigned>(std::min<size_t>(258, left));
    if (len < 3) {
      for (unsigned i = 0; i < len; ++i) tokens.push_back({0});
    } else {
      tokens.push_back({-1, len, 1});
    }
    left -= len;
  }
  BitWriter w;
  put_fixed_block(w, tokens, true);
  return w.finish();
}

// ---------- zip and gzip writers ----------

void put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}
void put64(std::string& s, uint64_t v) {
  put32(s, static_cast<uint32_t>(v));
  put32(s, static_cast<uint32_t>(v >> 32));
}

std::string make_zip(const std::vector<ZipEntry>& entries, const ZipOptions& opt) {
  std::string z, cd;
  for (const ZipEntry& e : entries) {
    const std::string packed = e.packed ? *e.packed : e.method == 8 ? deflate_literals(e.data) : e.data;
    const uint32_t crc = e.crc ? *e.crc : crc32(e.data);
    const uint64_t usize = e.usize ? *e.usize : e.data.size();
    const uint32_t flags = e.flags | (e.descriptor ? 8 : 0);
    const uint64_t local = z.size();
    std::string extra;
    if (e.zip64) {
      put16(extra, 1);
      put16(extra, 24);
      put64(extra, usize);
      put64(extra, packed.size());
      put64(extra, local);
    }
    // local header
    put32(z, 0x04034b50);
    put16(z, e.zip64 ? 45 : 20);
    put16(z, flags);
    put16(z, e.method);
    put32(z, 0);  // time, date
    put32(z, e.descriptor ? 0 : crc);
    put32(z, e.descriptor ? 0 : e.zip64 ? 0xffffffff : static_cast<uint32_t>(packed.size()));
    put32(z, e.descriptor ? 0 : e.zip64 ? 0xffffffff : static_cast<uint32_t>(usize));
    put16(z, static_cast<uint32_t>(e.name.size()));
    put16(z, 0);
    z += e.name;
    z += packed;
    if (e.descriptor) {
      put32(z, 0x08074b50);
      put32(z, crc);
      put32(z, static_cast<uint32_t>(packed.size()));
      put32(z, static_cast<uint32_t>(usize));
    }
    // central directory record
    put32(cd, 0x02014b50);
    put16(cd, 20);
    put16(cd, e.zip64 ? 45 : 20);
    put16(cd, flags);
    put16(cd, e.method);
    put32(cd, 0);
    put32(cd, crc);
    put32(cd, e.zip64 ? 0xffffffff : static_cast<uint32_t>(packed.size()));
    put32(cd, e.zip64 ? 0xffffffff : static_cast<uint32_t>(usize));
    put16(cd, static_cast<uint32_t>(e.name.size()));
    put16(cd, static_cast<uint32_t>(extra.size()));
    put16(cd, 0);  // comment
    put16(cd, 0);  // disk
    put16(cd, 0);
    put32(cd, 0);
    put32(cd, e.zip64 ? 0xffffffff : static_cast<uint32_t>(local));
    cd += e.name;
    cd += extra;
  }
  const uint64_t cd_off = z.size();
  z += cd;
  const uint64_t n = entries.size();
  if (opt.zip64_end) {
    const uint64_t z64 = z.size();
    put32(z, 0x06064b50);
    put64(z, 44);
    put16(z, 45);
    put16(z, 45);
    put32(z, 0);
    put32(z, 0);
    put64(z, n);
    put64(z, n);
    put64(z, cd.size());
    put64(z, cd_off);
    put32(z, 0x07064b50);
    put32(z, 0);
    put64(z, z64);
    put32(z, 1);
  }
  put32(z, 0x06054b50);
  put16(z, 0);
  put16(z, 0);
  put16(z, opt.zip64_end ? 0xffff : static_cast<uint32_t>(n));
  put16(z, opt.zip64_end ? 0xffff : static_cast<uint32_t>(n));
  put32(z, opt.zip64_end ? 0xffffffff : static_cast<uint32_t>(cd.size()));
  put32(z, opt.zip64_end ? 0xffffffff : static_cast<uint32_t>(cd_off));
  put16(z, static_cast<uint32_t>(opt.comment.size()));
  z += opt.comment;
  return z;
}

// A gzip member: header (with the given flags' fields), deflate stream, CRC-32, ISIZE.
std::string make_gzip(std::string_view data, uint8_t flags, std::optional<std::string> packed) {
  std::string g = {'\x1f', '\x8b', 8, static_cast<char>(flags), 0, 0, 0, 0, 0, 3};
  if (flags & 4) {
    put16(g, 4);
    g += "abcd";
  }
  if (flags & 8) g += std::string("history.json") + '\0';
  if (flags & 16) g += std::string("a comment") + '\0';
  if (flags & 2) put16(g, crc32(g) & 0xffff);
  g += packed ? *packed : deflate_literals(data);
  put32(g, crc32(data));
  put32(g, static_cast<uint32_t>(data.size()));
  return g;
}

// A tar archive of one empty file: a POSIX ustar header with its checksum, and an end block.
std::string tar_of(const std::string& name) {
  std::string tar(1024, '\0');
  tar.replace(0, name.size(), name);
  tar.replace(100, 8, "0000644");
  tar.replace(124, 12, "00000000000");
  tar[156] = '0';
  tar.replace(257, 8, std::string("ustar\0" "00", 8));
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += i >= 148 && i < 156 ? ' ' : static_cast<unsigned char>(tar[i]);
  char field[8];
  std::snprintf(field, sizeof field, "%06o", sum);  // six digits, then NUL and space
  tar.replace(148, 8, std::string(field, 6) + std::string("\0 ", 2));
  return tar;
}

ZipEntry stored(std::string name, std::string data) { return {std::move(name), std::move(data)}; }
ZipEntry deflated(std::string name, std::string data) {
  ZipEntry e{std::move(name), std::move(data)};
  e.method = 8;
  return e;
}
