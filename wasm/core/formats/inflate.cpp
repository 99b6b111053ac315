// DEFLATE decoding (RFC 1951) and CRC-32. See inflate.h.
//
// Decoding is table-driven: a Huffman code becomes a table indexed by the next kLitRoot (or
// kDistRoot) input bits, least significant first as DEFLATE packs them; codes longer than that
// continue in a subtable. The fast loop runs while at least 8 input bytes and 258 bytes of output
// room remain, refilling a 64-bit bit buffer once per symbol with one unaligned load; a careful
// slow path handles the last bytes of input and output, so hostile and truncated streams end in
// an error value, never a read or write out of bounds.
#include "formats/inflate.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "util/memory.h"

namespace isoscope {

namespace {

static_assert(std::endian::native == std::endian::little, "the bit buffer loads little-endian words");

// Table entry: bits 0-7 the bits to consume (at most 15, so `& 63` extracts them too and lets the
// compiler drop the mask before a 64-bit shift); 8-11 extra bits (lengths, distances) or the index
// bits of a subtable; 12-15 flags; 16-31 the value (literal, base length or distance, code-length
// symbol, or the subtable's offset).
constexpr uint32_t kLit = 1u << 12, kEob = 1u << 13, kSub = 1u << 14, kBad = 1u << 15;
constexpr unsigned kLitRoot = 10, kDistRoot = 8, kClRoot = 7;
constexpr uint32_t kLitMask = (1u << kLitRoot) - 1, kDistMask = (1u << kDistRoot) - 1;
// Bounds on table sizes: the root plus at most one subtable (of at most 2^(15-root) entries) per
// symbol with a longer code.
constexpr size_t kLitTableSize = (1u << kLitRoot) + 288 * (1u << (15 - kLitRoot));
constexpr size_t kDistTableSize = (1u << kDistRoot) + 32 * (1u << (15 - kDistRoot));
// Chunked match copies write up to 7 bytes past the match; the output buffer keeps this slack.
constexpr size_t kSlack = 16;
// The most output one input byte can give (258-byte matches of under 2 bits each, RFC 1951):
// bounds how much a size hint may preallocate, so a lying header cannot reserve gigabytes.
constexpr size_t kMaxRatio = 1032;

// Resizes `out` (of which the first `keep` bytes matter) to exactly `size` bytes: a string's own
// growth may double its capacity, asking for far more memory than was probed.
void resize_exactly(std::string& out, size_t keep, size_t size) {
  if (size <= out.capacity()) {
    out.resize(size);
    return;
  }
  std::string grown;
  grown.reserve(size);  // a fresh string reserves what it is asked for
  grown.assign(out.data(), keep);
  grown.resize(size);
  out.swap(grown);
}

constexpr uint16_t kLenBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLenExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                   2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,
                                    33,  49,  65,  97,  129, 193,  257,  385,  513,  769,
                                    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                    6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order in which a dynamic block lists the code-length code's lengths.
constexpr uint8_t kClOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

// What each symbol decodes to, without its code length.
constexpr std::array<uint32_t, 288> make_lit_entries() {
  std::array<uint32_t, 288> e{};
  for (uint32_t s = 0; s < 256; ++s) e[s] = kLit | s << 16;
  e[256] = kEob;
  for (uint32_t s = 257; s < 286; ++s) e[s] = uint32_t{kLenExtra[s - 257]} << 8 | uint32_t{kLenBase[s - 257]} << 16;
  e[286] = e[287] = kBad;  // have codes in the fixed code, but mean nothing
  return e;
}
constexpr std::array<uint32_t, 32> make_dist_entries() {
  std::array<uint32_t, 32> e{};
  for (uint32_t s = 0; s < 30; ++s) e[s] = uint32_t{kDistExtra[s]} << 8 | uint32_t{kDistBase[s]} << 16;
  e[30] = e[31] = kBad;
  return e;
}
constexpr std::array<uint32_t, 19> make_cl_entries() {
  std::array<uint32_t, 19> e{};
  for (uint32_t s = 0; s < 19; ++s) e[s] = s << 16;
  return e;
}
constexpr auto kLitEntries = make_lit_entries();
constexpr auto kDistEntries = make_dist_entries();
constexpr auto kClEntries = make_cl_entries();

uint32_t reverse_bits(uint32_t x, unsigned n) {
  uint32_t r = 0;
  for (unsigned i = 0; i < n; ++i, x >>= 1) r = r << 1 | (x & 1);
  return r;
}

// Builds the decoding table of the canonical Huffman code with the given code lengths
// (RFC 1951 3.2.2). Returns nullptr, or why the lengths do not form a usable code.
// allow_sparse: the literal/length and distance codes may be empty or hold one code of one bit
// (as zlib allows); otherwise the code must be complete.
const char* build_table(const uint8_t* lens, unsigned n, const uint32_t* entries, unsigned root,
                        bool allow_sparse, uint32_t* table, size_t table_size) {
  unsigned count[16] = {};
  for (unsigned s = 0; s < n; ++s) ++count[lens[s]];
  count[0] = 0;
  int left = 1;  // code space still free, in units of the current length
  unsigned total = 0, max_len = 0;
  for (unsigned len = 1; len <= 15; ++len) {
    left = left * 2 - static_cast<int>(count[len]);
    if (left < 0) return "over-subscribed";
    total += count[len];
    if (count[len]) max_len = len;
  }
  if (left > 0 && !(allow_sparse && (total == 0 || (total == 1 && max_len == 1)))) return "incomplete";

  uint32_t next[16] = {};
  for (unsigned len = 1, code = 0; len <= 15; ++len) {
    code = (code + count[len - 1]) << 1;
    next[len] = code;
  }
  uint32_t codes[320];
  for (unsigned s = 0; s < n; ++s)
    if (lens[s]) codes[s] = next[lens[s]]++;

  const uint32_t root_size = 1u << root;
  std::fill(table, table + root_size, kBad);
  // Subtables: one per root prefix shared by longer codes, sized for the longest of them.
  uint8_t sub_bits[1u << kLitRoot] = {};
  uint16_t sub_off[1u << kLitRoot];
  for (unsigned s = 0; s < n; ++s) {
    if (lens[s] <= root) continue;
    const uint32_t prefix = codes[s] >> (lens[s] - root);
    sub_bits[prefix] = std::max<uint8_t>(sub_bits[prefix], static_cast<uint8_t>(lens[s] - root));
  }
  size_t used = root_size;
  for (uint32_t prefix = 0; prefix < root_size; ++prefix) {
    if (!sub_bits[prefix]) continue;
    const size_t size = size_t{1} << sub_bits[prefix];
    if (used + size > table_size) return "too large";  // cannot happen for valid lengths; defensive
    sub_off[prefix] = static_cast<uint16_t>(used);
    table[reverse_bits(prefix, root)] = kSub | uint32_t{sub_bits[prefix]} << 8 | static_cast<uint32_t>(used) << 16 | root;
    std::fill(table + used, table + used + size, kBad);
    used += size;
  }
  for (unsigned s = 0; s < n; ++s) {
    const unsigned len = lens[s];
    if (!len) continue;
    if (len <= root) {
      for (uint32_t i = reverse_bits(codes[s], len); i < root_size; i += 1u << len) table[i] = entries[s] | len;
    } else {
      const uint32_t prefix = codes[s] >> (len - root);
      const unsigned rest = len - root;
      const uint32_t size = 1u << sub_bits[prefix];
      uint32_t* sub = table + sub_off[prefix];
      for (uint32_t i = reverse_bits(codes[s] & ((1u << rest) - 1), rest); i < size; i += 1u << rest)
        sub[i] = entries[s] | rest;
    }
  }
  return nullptr;
}

// Copies a match of len bytes from dist bytes back. The caller guarantees dist <= bytes written
// and kSlack bytes of room after q + len.
inline void copy_match(uint8_t* q, size_t dist, size_t len) {
  const uint8_t* src = q - dist;
  if (dist >= 8) {
    // 8-byte chunks: each chunk's source lies entirely before its destination, so overlapping
    // matches (dist < len) still replicate correctly; the last chunk may spill into the slack.
    for (size_t i = 0; i < len; i += 8) std::memcpy(q + i, src + i, 8);
  } else if (dist == 1) {
    std::memset(q, *src, len);  // runs of one byte
  } else {
    for (size_t i = 0; i < len; ++i) q[i] = src[i];  // overlapping by under 8 bytes
  }
}

}  // namespace

struct Inflater::Tables {
  uint32_t lit[kLitTableSize];
  uint32_t dist[kDistTableSize];
  uint32_t cl[1u << kClRoot];
  uint32_t fixed_lit[1u << kLitRoot];
  uint32_t fixed_dist[1u << kDistRoot];
  bool fixed_built = false;
};

Inflater::Inflater() : t_(std::make_unique<Tables>()) {}
Inflater::~Inflater() = default;

InflateResult Inflater::inflate(std::string_view in, std::string& out, size_t size_hint, size_t max_out) {
  Tables& t = *t_;
  InflateResult res;
  const uint8_t* const begin = reinterpret_cast<const uint8_t*>(in.data());
  const uint8_t* const end = begin + in.size();
  const uint8_t* p = begin;
  uint64_t bb = 0;  // bit buffer: the next bc bits of input, least significant first
  unsigned bc = 0;  // (above bc it may hold the following input bits: see the fast path)

  // Output: written in place into out[base, base + cap), with kSlack spare bytes after.
  const size_t base = out.size();
  max_out = std::min(max_out, out.max_size() - base - kSlack);
  size_t cap = std::min({size_hint, max_out, in.size() > (SIZE_MAX - 1024) / kMaxRatio ? max_out : in.size() * kMaxRatio + 1024});
  if (!can_allocate(base + cap + kSlack)) {
    res.out_of_memory = true;
    res.offset = 0;
    res.message = "not enough memory for the " + std::to_string(cap) + " bytes the data is declared to expand to";
    return res;
  }
  resize_exactly(out, base, base + cap + kSlack);
  uint8_t* ob = reinterpret_cast<uint8_t*>(out.data()) + base;
  uint8_t* q = ob;
  uint8_t* oend = ob + cap;

  // Position of the next unread bit, as a byte offset into the input (for error messages).
  auto offset_now = [&] { return (static_cast<int64_t>(p - begin) * 8 - bc) / 8; };
  auto fail = [&](int64_t offset, std::string message) {
    out.resize(base);  // on an error, out holds what it held before
    res.ok = false;
    res.offset = offset;
    res.message = std::move(message);
    return res;
  };
  auto truncated = [&](const char* what) {
    return fail(static_cast<int64_t>(in.size()), std::string("the compressed data ends early: expected ") + what);
  };
  // Makes room for n more output bytes, growing the buffer toward max_out (never past it) when
  // the memory is there; out_of_memory says when it is not.
  auto room = [&](size_t n) {
    if (static_cast<size_t>(oend - q) >= n) return true;
    const size_t have = q - ob;
    if (n > max_out - have) return false;
    // grown as the whole buffer grows (earlier members of a gzip file included), not this call's part
    const size_t want = grow_capacity(base + cap, base + have + n, base + max_out) - base;
    if (!can_allocate(base + want + kSlack)) {
      res.out_of_memory = true;
      return false;
    }
    resize_exactly(out, base + have, base + want + kSlack);
    ob = reinterpret_cast<uint8_t*>(out.data()) + base;
    q = ob + have;
    cap = want;
    oend = ob + cap;
    return true;
  };
  auto over_limit = [&](int64_t offset) {
    if (res.out_of_memory)
      return fail(offset, "not enough memory to hold more than " + std::to_string(base + (q - ob)) +
                              " bytes of the expanded data (the input is too large for this machine or browser)");
    res.over_limit = true;
    return fail(offset, "the data inflates to more than " + std::to_string(max_out) + " bytes");
  };

  auto too_far = [&](int64_t offset, uint32_t d) {
    return fail(offset, "distance " + std::to_string(d) + " reaches back before the start of the data (" +
                            std::to_string(q - ob) + " bytes written so far; expected at most that)");
  };

  // Fast-path bit access: one unaligned 8-byte load tops the buffer up to 56-63 bits. Bits
  // above bc come along too; they are the following input bits, so loading them again later
  // (or masking them off, as slow_fill does) is harmless.
  auto fast_ok = [&] { return end - p >= 8 && oend - q >= 258; };
  auto refill = [&] {
    uint64_t w;
    std::memcpy(&w, p, 8);
    bb |= w << bc;
    p += (63 - bc) >> 3;
    bc |= 56;
  };
  auto consume = [&](unsigned n) {
    bb >>= n;
    bc -= n;
  };

  // Slow-path bit access: byte by byte, never past the end.
  auto slow_fill = [&] {
    bb &= bc ? ~uint64_t{0} >> (64 - bc) : 0;  // drop look-ahead bits left by fast_refill
    while (bc <= 48 && p < end) {
      bb |= uint64_t{*p++} << bc;
      bc += 8;
    }
  };
  auto take = [&](unsigned n) {  // caller checked bc >= n
    const uint32_t v = static_cast<uint32_t>(bb & ((uint64_t{1} << n) - 1));
    bb >>= n;
    bc -= n;
    return v;
  };
  // Decodes one symbol on the slow path; false on an error (res filled by the caller's check).
  enum class Sym { Ok, Truncated, Bad };
  auto slow_decode = [&](const uint32_t* table, unsigned root, uint32_t& e) {
    slow_fill();
    e = table[bb & ((1u << root) - 1)];
    if (e & kSub) {
      if (bc < root) return Sym::Truncated;
      take(root);
      e = table[(e >> 16) + (bb & ((1u << ((e >> 8) & 15)) - 1))];
    }
    // A bit pattern that is no code (nbits 0) may only look so for want of input.
    if (e & kBad) return (e & 0xff) == 0 && p == end && bc < 15 ? Sym::Truncated : Sym::Bad;
    if ((e & 0xff) > bc) return Sym::Truncated;
    take(e & 0xff);
    return Sym::Ok;
  };

  bool final_block = false;
  while (!final_block) {
    // Block header: BFINAL, then BTYPE.
    const int64_t header_at = offset_now();
    slow_fill();
    if (bc < 3) return truncated("a block header");
    final_block = take(1);
    const uint32_t type = take(2);
    if (type == 3) return fail(header_at, "invalid block type 3 (expected 0 stored, 1 fixed or 2 dynamic Huffman)");

    if (type == 0) {
      // Stored: skip to a byte boundary, then LEN, NLEN (its one's complement) and LEN bytes.
      take(bc & 7);
      p -= bc / 8;  // the whole bytes still in the bit buffer are re-read directly
      bb = 0;
      bc = 0;
      if (end - p < 4) return truncated("a stored block's length and its complement");
      const uint32_t len = p[0] | p[1] << 8, nlen = p[2] | p[3] << 8;
      if ((len ^ 0xffff) != nlen)
        return fail(p - begin, "stored block length " + std::to_string(len) + " does not match its complement " +
                                   std::to_string(nlen) + " (expected NLEN = ~LEN)");
      p += 4;
      if (static_cast<size_t>(end - p) < len)
        return truncated(("the stored block's " + std::to_string(len) + " bytes, but only " +
                          std::to_string(end - p) + " remain").c_str());
      if (!room(len)) return over_limit(p - begin);
      std::memcpy(q, p, len);
      q += len;
      p += len;
      continue;
    }

    const uint32_t* lit;
    const uint32_t* dist;
    if (type == 1) {
      if (!t.fixed_built) {
        uint8_t lens[288 + 32];
        std::fill(lens, lens + 144, 8);
        std::fill(lens + 144, lens + 256, 9);
        std::fill(lens + 256, lens + 280, 7);
        std::fill(lens + 280, lens + 288, 8);
        std::fill(lens + 288, lens + 320, 5);
        build_table(lens, 288, kLitEntries.data(), kLitRoot, false, t.fixed_lit, 1u << kLitRoot);
        build_table(lens + 288, 32, kDistEntries.data(), kDistRoot, false, t.fixed_dist, 1u << kDistRoot);
        t.fixed_built = true;
      }
      lit = t.fixed_lit;
      dist = t.fixed_dist;
    } else {
      // Dynamic: HLIT, HDIST, HCLEN, the code-length code, then the two codes' lengths.
      slow_fill();
      if (bc < 14) return truncated("a dynamic block's code counts");
      const int64_t counts_at = offset_now();
      const unsigned nlit = take(5) + 257, ndist = take(5) + 1, ncl = take(4) + 4;
      if (nlit > 286 || ndist > 30)
        return fail(counts_at, "the dynamic block declares " + std::to_string(nlit) + " literal/length and " +
                                   std::to_string(ndist) + " distance codes (expected at most 286 and 30)");
      uint8_t cl_lens[19] = {};
      for (unsigned i = 0; i < ncl; ++i) {
        slow_fill();
        if (bc < 3) return truncated("the code-length code's lengths");
        cl_lens[kClOrder[i]] = static_cast<uint8_t>(take(3));
      }
      if (const char* why = build_table(cl_lens, 19, kClEntries.data(), kClRoot, false, t.cl, 1u << kClRoot))
        return fail(counts_at, std::string("the code-length code is ") + why + " (expected a complete prefix code)");
      uint8_t lens[286 + 30] = {};
      for (unsigned i = 0; i < nlit + ndist;) {
        const int64_t at = offset_now();
        uint32_t e;
        const Sym s = slow_decode(t.cl, kClRoot, e);
        if (s == Sym::Truncated) return truncated("the literal/length and distance code lengths");
        if (s == Sym::Bad) return fail(at, "a bit pattern that is no code-length code");  // unreachable: complete code
        const uint32_t sym = e >> 16;
        if (sym < 16) {
          lens[i++] = static_cast<uint8_t>(sym);
          continue;
        }
        // 16: repeat the previous length 3-6 times; 17: 3-10 zeros; 18: 11-138 zeros.
        const unsigned extra = sym == 16 ? 2 : sym == 17 ? 3 : 7;
        slow_fill();
        if (bc < extra) return truncated("a code-length repeat count");
        const unsigned repeat = (sym == 16 ? 3 : sym == 17 ? 3 : 11) + take(extra);
        if (sym == 16 && i == 0) return fail(at, "code-length symbol 16 repeats the previous length, but there is none (expected a length first)");
        if (repeat > nlit + ndist - i)
          return fail(at, "code lengths run past the " + std::to_string(nlit) + " + " + std::to_string(ndist) +
                              " the block declares (expected at most " + std::to_string(nlit + ndist - i) + " more)");
        const uint8_t v = sym == 16 ? lens[i - 1] : 0;
        std::fill(lens + i, lens + i + repeat, v);
        i += repeat;
      }
      if (lens[256] == 0) return fail(counts_at, "the literal/length code has no end-of-block symbol (expected a code for symbol 256)");
      if (const char* why = build_table(lens, nlit, kLitEntries.data(), kLitRoot, true, t.lit, kLitTableSize))
        return fail(counts_at, std::string("the literal/length code is ") + why + " (expected a complete prefix code)");
      if (const char* why = build_table(lens + nlit, ndist, kDistEntries.data(), kDistRoot, true, t.dist, kDistTableSize))
        return fail(counts_at, std::string("the distance code is ") + why + " (expected a complete prefix code)");
      lit = t.lit;
      dist = t.dist;
    }

    // Huffman-coded data until end-of-block.
    for (;;) {
      uint32_t e;
      uint32_t len, d;
      int64_t sym_at;
      if (fast_ok()) {
        // Fast path, while at least 8 input bytes and 258 bytes of output room remain. Each
        // refill leaves at least 56 bits, enough for a literal/length code (15), its extra bits
        // (5), a distance code (15) and its extra bits (13). The next symbol's table entry is
        // looked up before a match is copied, so the two overlap.
        refill();
        e = lit[bb & kLitMask];
        bool end_of_block = false;
        for (;;) {
          const uint8_t* const p0 = p;
          const unsigned bc0 = bc;
          if (e & kSub) {
            consume(kLitRoot);
            e = lit[(e >> 16) + (bb & ((1u << ((e >> 8) & 15)) - 1))];
          }
          consume(e & 63);
          if (e & kLit) {
            *q++ = static_cast<uint8_t>(e >> 16);
            e = lit[bb & kLitMask];
            if (e & kLit) {  // a second literal fits in the bits left (>= 41) without a refill
              consume(e & 63);
              *q++ = static_cast<uint8_t>(e >> 16);
            }
            if (!fast_ok()) break;
            refill();
            e = lit[bb & kLitMask];
            continue;
          }
          sym_at = (static_cast<int64_t>(p0 - begin) * 8 - bc0) / 8;
          if (e & kEob) {
            end_of_block = true;
            break;
          }
          if (e & kBad) return fail(sym_at, "an invalid literal/length code (expected one of the block's codes, 0-285)");
          len = (e >> 16) + static_cast<uint32_t>(bb & ((uint64_t{1} << ((e >> 8) & 15)) - 1));
          consume((e >> 8) & 15);
          e = dist[bb & kDistMask];
          if (e & kSub) {
            consume(kDistRoot);
            e = dist[(e >> 16) + (bb & ((1u << ((e >> 8) & 15)) - 1))];
          }
          if (e & kBad) return fail(sym_at, "an invalid distance code (expected one of the block's codes, 0-29)");
          consume(e & 63);
          d = (e >> 16) + static_cast<uint32_t>(bb & ((uint64_t{1} << ((e >> 8) & 15)) - 1));
          consume((e >> 8) & 15);
          if (d > static_cast<size_t>(q - ob)) return too_far(sym_at, d);
          uint8_t* const at = q;  // room: the loop condition left 258 bytes
          q += len;
          if (!fast_ok()) {
            copy_match(at, d, len);
            break;
          }
          refill();
          e = lit[bb & kLitMask];
          copy_match(at, d, len);
        }
        if (end_of_block) break;
        continue;
      } else {
        // Slow path: the last bytes of input or of output room.
        sym_at = offset_now();
        const Sym s = slow_decode(lit, kLitRoot, e);
        if (s == Sym::Truncated) return truncated("a literal/length code");
        if (s == Sym::Bad) return fail(sym_at, "an invalid literal/length code (expected one of the block's codes, 0-285)");
        if (e & kLit) {
          if (!room(1)) return over_limit(sym_at);
          *q++ = static_cast<uint8_t>(e >> 16);
          continue;
        }
        if (e & kEob) break;
        const unsigned len_extra = (e >> 8) & 15;
        slow_fill();
        if (bc < len_extra) return truncated("a length's extra bits");
        len = (e >> 16) + take(len_extra);
        const Sym sd = slow_decode(dist, kDistRoot, e);
        if (sd == Sym::Truncated) return truncated("a distance code");
        if (sd == Sym::Bad) return fail(sym_at, "an invalid distance code (expected one of the block's codes, 0-29)");
        const unsigned dist_extra = (e >> 8) & 15;
        slow_fill();
        if (bc < dist_extra) return truncated("a distance's extra bits");
        d = (e >> 16) + take(dist_extra);
      }
      if (d > static_cast<size_t>(q - ob)) return too_far(sym_at, d);
      if (!room(len)) return over_limit(sym_at);
      copy_match(q, d, len);
      q += len;
    }
  }
  out.resize(base + (q - ob));
  res.ok = true;
  res.in_used = static_cast<size_t>(p - begin) - bc / 8;  // whole bytes left in the buffer are unread
  return res;
}

InflateResult inflate_raw(std::string_view in, std::string& out, size_t size_hint, size_t max_out) {
  Inflater inf;
  return inf.inflate(in, out, size_hint, max_out);
}

namespace {
// Slicing-by-8 tables: table[0] is the classic byte-at-a-time table of the reflected polynomial
// 0xEDB88320; table[k][b] is the CRC of byte b followed by k zero bytes.
struct CrcTables {
  uint32_t t[8][256];
  constexpr CrcTables() : t{} {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
      t[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; ++b)
      for (int k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
};
constexpr CrcTables kCrc;
}  // namespace

uint32_t crc32(std::string_view data, uint32_t crc) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  crc = ~crc;
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = kCrc.t[7][lo & 0xff] ^ kCrc.t[6][(lo >> 8) & 0xff] ^ kCrc.t[5][(lo >> 16) & 0xff] ^ kCrc.t[4][lo >> 24] ^
          kCrc.t[3][hi & 0xff] ^ kCrc.t[2][(hi >> 8) & 0xff] ^ kCrc.t[1][(hi >> 16) & 0xff] ^ kCrc.t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ kCrc.t[0][(crc ^ *p++) & 0xff];
  return ~crc;
}

}  // namespace isoscope
