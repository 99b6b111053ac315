// Archives: DEFLATE decoding (formats/inflate.cpp) against Node's zlib and against streams this
// test encodes itself, CRC-32, zip and gzip expansion (formats/archive.cpp) through
// read_history(), the corpus through a zip and hostile archives (the command line on archives:
// cli/input_test.cpp). The streams and archives come from helpers/archive_writer.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "formats/archive.h"
#include "formats/formats.h"
#include "formats/inflate.h"
#include "archive_writer.h"
#include "simdjson.h"
#include "test_util.h"

using namespace isoscope;
namespace fs = std::filesystem;

namespace {

// tests/fixtures/archives (CMake passes ISOSCOPE_FIXTURES).
const std::string kArchiveFixtures = std::string(ISOSCOPE_FIXTURES) + "/archives";

InflateResult inflate_all(std::string_view in, std::string& out, size_t max_out = size_t{1} << 26) {
  out.clear();
  return inflate_raw(in, out, 0, max_out);
}

// Expands one named file.
std::optional<InputError> expand(const std::string& name, const std::string& bytes, ExpandedInput& out,
                                 const ArchiveLimits& limits = {}) {
  InputFile f{name, bytes};
  return expand_archives(std::span<const InputFile>(&f, 1), out, limits);
}
InputError expand_error(const std::string& name, const std::string& bytes, const ArchiveLimits& limits = {}) {
  ExpandedInput out;
  std::optional<InputError> e = expand(name, bytes, out, limits);
  EXPECT_TRUE(e.has_value()) << "expected an error for " << name;
  return e ? *e : InputError{};
}
std::vector<std::string> names_of(const ExpandedInput& x) {
  std::vector<std::string> v;
  for (const InputFile& f : x.files) v.push_back(f.name);
  return v;
}

// ---------- CRC-32 ----------

uint32_t crc32_bitwise(std::string_view s) {
  uint32_t c = 0xffffffff;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
  }
  return ~c;
}

TEST(Crc32, CheckValueAndEveryTableEntry) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  EXPECT_EQ(crc32(""), 0u);
  // One byte of each value reads every entry of the byte table; a byte after zeros reads the
  // slicing tables.
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    ASSERT_EQ(crc32(one), crc32_bitwise(one)) << "byte " << b;
    for (int pos = 0; pos < 8; ++pos) {
      std::string eight(8, '\0');
      eight[pos] = static_cast<char>(b);
      ASSERT_EQ(crc32(eight), crc32_bitwise(eight)) << "byte " << b << " at " << pos;
    }
  }
  std::mt19937 rng(3);
  std::string data(5000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t len : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{63}, size_t{4999}}) {
    const std::string_view s = std::string_view(data).substr(1, len);  // unaligned
    EXPECT_EQ(crc32(s), crc32_bitwise(s)) << len;
    EXPECT_EQ(crc32(s.substr(len / 3), crc32(s.substr(0, len / 3))), crc32(s)) << "continued, " << len;
  }
}

// ---------- inflate ----------

struct Mixed {
  uint64_t size = 0, crc = 0;
};
Mixed mixed_manifest() {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  Mixed m;
  EXPECT_FALSE(parser.load(kArchiveFixtures + "/mixed.json").get(doc)) << "missing " << kArchiveFixtures << "/mixed.json";
  if (doc["size"].get(m.size) || doc["crc32"].get(m.crc)) ADD_FAILURE() << "bad mixed.json";
  return m;
}

TEST(Inflate, NodeZlibFixtures) {
  const Mixed m = mixed_manifest();
  ASSERT_GT(m.size, 32768u);
  std::string first;
  for (const char* name : {"mixed.level0.deflate", "mixed.level1.deflate", "mixed.level9.deflate", "mixed.fixed.deflate"}) {
    const std::string in = slurp(kArchiveFixtures + "/" + name);
    ASSERT_FALSE(in.empty()) << name;
    for (size_t hint : {static_cast<size_t>(m.size), size_t{0}, size_t{100}}) {
      std::string out = "kept";  // inflate appends
      InflateResult r = inflate_raw(in, out, hint, m.size);
      ASSERT_TRUE(r.ok) << name << ": byte " << r.offset << ": " << r.message;
      EXPECT_EQ(r.in_used, in.size()) << name;
      ASSERT_EQ(out.substr(0, 4), "kept");
      out.erase(0, 4);
      EXPECT_EQ(out.size(), m.size) << name;
      EXPECT_EQ(crc32(out), m.crc) << name;
      if (first.empty()) first = out;
      EXPECT_TRUE(out == first) << name << " differs from the stored blocks' output";
    }
    // One byte less room than the data needs: refused, flagged as over the limit.
    std::string out;
    InflateResult r = inflate_raw(in, out, m.size, m.size - 1);
    EXPECT_FALSE(r.ok) << name;
    EXPECT_TRUE(r.over_limit) << name;
    EXPECT_TRUE(out.empty());
  }
}

TEST(Inflate, EdgeCasesOfTheFormat) {
  std::mt19937 rng(11);
  std::string window(32768, '\0');
  for (char& c : window) c = static_cast<char>(rng());
  // A full window stored, then matches reaching exactly 32768 back, the longest match, and
  // matches overlapping their own output at every short distance.
  BitWriter w;
  put_stored_block(w, window.substr(0, 20000), false);
  put_stored_block(w, window.substr(20000), false);
  std::vector<Token> t = {{-1, 258, 32768}, {-1, 3, 32768}, {'a'}, {'b'}, {'c'}};
  for (unsigned d = 1; d <= 9; ++d) t.push_back({-1, 3 + d * 25, d});
  put_fixed_block(w, t, false);
  put_stored_block(w, "", false);  // empty stored block
  put_fixed_block(w, {}, false);   // empty fixed block
  // A dynamic block whose literal/length code holds only end-of-block (one 1-bit code) and whose
  // distance code is empty: valid, as zlib accepts it.
  std::vector<uint8_t> only_eob(257, 0);
  only_eob[256] = 1;
  put_dynamic_block(w, {}, true, only_eob, std::vector<uint8_t>(1, 0));
  const std::string in = w.finish();
  std::string ref = window;
  apply_tokens(ref, t);
  std::string out;
  InflateResult r = inflate_all(in, out);
  ASSERT_TRUE(r.ok) << r.offset << ": " << r.message;
  EXPECT_EQ(r.in_used, in.size());
  EXPECT_TRUE(out == ref);
  EXPECT_EQ(out.substr(32768, 258), window.substr(0, 258));
}

// Round trips: random literals and matches (distances 1 to 32768, lengths 3 to 258), split into
// stored, fixed and dynamic blocks; dynamic blocks use random complete codes of up to 15 bits.
TEST(Inflate, RandomStreamsRoundTrip) {
  Inflater inflater;  // one, reused across streams
  for (unsigned seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    const size_t target = seed % 10 == 0 ? 70000 : rng() % 6000;
    const int alphabet = 1 + static_cast<int>(rng() % 256);
    std::string ref;
    BitWriter w;
    while (true) {
      // one block
      std::vector<Token> tokens;
      const std::string before = ref;
      const size_t n = rng() % 400;
      for (size_t i = 0; i < n && ref.size() < target; ++i) {
        if (ref.empty() || rng() % 3 == 0) {
          tokens.push_back({static_cast<int>(rng() % alphabet)});
        } else {
          const size_t maxd = std::min<size_t>(ref.size(), 32768);
          unsigned d;
          switch (rng() % 4) {
            case 0: d = 1 + rng() % std::min<size_t>(maxd, 8); break;
            case 1: d = static_cast<unsigned>(maxd); break;
            default: d = 1 + rng() % maxd;
          }
          const unsigned len = rng() % 5 == 0 ? 258 : 3 + rng() % 100;
          tokens.push_back({-1, len, d});
        }
        apply_tokens(ref, {tokens.back()});
      }
      const bool final = ref.size() >= target;
      switch (rng() % 3) {
        case 0: {  // stored: the block's bytes as they are (in pieces of at most 65535)
          std::string_view bytes = std::string_view(ref).substr(before.size());
          while (bytes.size() > 65535) {
            put_stored_block(w, bytes.substr(0, 65535), false);
            bytes.remove_prefix(65535);
          }
          put_stored_block(w, bytes, final);
          break;
        }
        case 1: put_fixed_block(w, tokens, final); break;
        default: {
          std::vector<unsigned> lit_syms = {256}, dist_syms;
          std::vector<bool> seen_l(286), seen_d(30);
          seen_l[256] = true;
          for (const Token& tk : tokens) {
            const unsigned ls = tk.lit >= 0 ? tk.lit : 257 + len_symbol(tk.len);
            if (!seen_l[ls]) lit_syms.push_back(ls), seen_l[ls] = true;
            if (tk.lit < 0 && !seen_d[dist_symbol(tk.dist)]) dist_syms.push_back(dist_symbol(tk.dist)), seen_d[dist_symbol(tk.dist)] = true;
          }
          for (unsigned k = rng() % 20; k > 0; --k) {  // some unused symbols too
            const unsigned s = rng() % 286;
            if (!seen_l[s]) lit_syms.push_back(s), seen_l[s] = true;
          }
          std::vector<uint8_t> ll = random_code(rng, 286, lit_syms);
          std::vector<uint8_t> dl = dist_syms.empty() ? std::vector<uint8_t>(1, 0) : random_code(rng, 30, dist_syms);
          size_t nlit = 286;
          while (nlit > 257 && ll[nlit - 1] == 0) --nlit;
          ll.resize(nlit);
          put_dynamic_block(w, tokens, final, ll, dl);
        }
      }
      if (final) break;
    }
    const std::string in = w.finish();
    std::string out;
    InflateResult r = inflater.inflate(in, out, seed % 2 ? ref.size() : 0, ref.size());
    ASSERT_TRUE(r.ok) << "seed " << seed << ": byte " << r.offset << ": " << r.message;
    ASSERT_EQ(r.in_used, in.size()) << "seed " << seed;
    ASSERT_TRUE(out == ref) << "seed " << seed << ": " << out.size() << " vs " << ref.size() << " bytes";
    if (!ref.empty()) {
      out.clear();
      r = inflater.inflate(in, out, ref.size(), ref.size() - 1);
      EXPECT_TRUE(!r.ok && r.over_limit) << "seed " << seed;
    }
  }
}

struct Hostile {
  const char* what;
  std::string stream;
  const char* expect;  // part of the message
};

std::vector<Hostile> hostile_streams() {
  std::vector<Hostile> v;
  auto dyn = [](unsigned nlit, unsigned ndist, std::vector<uint8_t> cl, std::vector<std::pair<unsigned, unsigned>> syms) {
    BitWriter w;
    put_dynamic_header(w, true, nlit, ndist, cl, syms);
    return w.finish();
  };
  auto lens_syms = [](const std::vector<uint8_t>& lit, const std::vector<uint8_t>& dist) {
    std::vector<std::pair<unsigned, unsigned>> s;
    for (uint8_t l : lit) s.push_back({l, 0});
    for (uint8_t l : dist) s.push_back({l, 0});
    return s;
  };
  // Complete codes to break: literals 256 x 9 bits (half the code space), 256-257 5 bits and
  // 258-285 6 bits (the other half); distances 0-1 4 bits and 2-29 5 bits.
  std::vector<uint8_t> lit8(286, 6), dist5(30, 5);
  std::fill(lit8.begin(), lit8.begin() + 256, 9);
  lit8[256] = lit8[257] = 5;
  dist5[0] = dist5[1] = 4;
  {
    BitWriter w;
    w.bits(1, 1);
    w.bits(3, 2);
    v.push_back({"block type 3", w.finish(), "invalid block type 3"});
  }
  v.push_back({"empty input", "", "ends early"});
  {
    BitWriter w;
    w.bits(1, 1);
    w.bits(0, 2);
    w.align();
    w.bits(5, 16);
    w.bits(5, 16);
    v.push_back({"stored LEN/NLEN mismatch", w.finish() + "hello", "complement"});
  }
  {
    BitWriter w;
    put_stored_block(w, std::string(100, 'x'), true);
    v.push_back({"stored block truncated", w.finish().substr(0, 40), "ends early"});
  }
  v.push_back({"HLIT 287", dyn(287, 1, default_cl_lens(), {}), "at most 286"});
  v.push_back({"HDIST 31", dyn(257, 31, default_cl_lens(), {}), "at most 286 and 30"});
  v.push_back({"code-length code over-subscribed", dyn(257, 1, std::vector<uint8_t>(19, 1), {}), "code-length code is over-subscribed"});
  {
    std::vector<uint8_t> cl(19, 0);
    cl[0] = 2;
    cl[8] = 2;
    v.push_back({"code-length code incomplete", dyn(257, 1, cl, {}), "code-length code is incomplete"});
  }
  v.push_back({"repeat with no previous length", dyn(257, 1, default_cl_lens(), {{16, 0}}), "repeats the previous length"});
  {
    std::vector<std::pair<unsigned, unsigned>> s = {{18, 127}, {18, 127}, {18, 127}};  // 3 x 138 > 258
    v.push_back({"lengths run past the count", dyn(257, 1, default_cl_lens(), s), "run past"});
  }
  {
    std::vector<uint8_t> lit = lit8;
    lit[256] = 0;
    v.push_back({"no end-of-block code", dyn(286, 30, default_cl_lens(), lens_syms(lit, dist5)), "no end-of-block"});
  }
  {
    std::vector<uint8_t> lit = lit8;
    lit[10] = 1;  // one 1-bit code on top of a full code
    v.push_back({"literal/length code over-subscribed", dyn(286, 30, default_cl_lens(), lens_syms(lit, dist5)),
                 "literal/length code is over-subscribed"});
  }
  {
    std::vector<uint8_t> lit = lit8;
    lit[257] = 0;  // a code space hole
    v.push_back({"literal/length code incomplete", dyn(286, 30, default_cl_lens(), lens_syms(lit, dist5)),
                 "literal/length code is incomplete"});
  }
  {
    std::vector<uint8_t> dist = dist5;
    dist[3] = 4;
    v.push_back({"distance code over-subscribed", dyn(286, 30, default_cl_lens(), lens_syms(lit8, dist)), "distance code is over-subscribed"});
    dist = dist5;
    dist[3] = 0;
    dist[4] = 0;
    v.push_back({"distance code incomplete", dyn(286, 30, default_cl_lens(), lens_syms(lit8, dist)), "distance code is incomplete"});
  }
  {
    BitWriter w;  // fixed block: literal/length symbol 286 (8-bit code 11000110)
    w.bits(1, 1);
    w.bits(1, 2);
    w.code(0xc6, 8);
    v.push_back({"literal/length symbol 286", w.finish() + std::string(10, '\0'), "invalid literal/length code"});
  }
  {
    BitWriter w;  // fixed block: 'a', then length 3 with distance symbol 30
    w.bits(1, 1);
    w.bits(1, 2);
    w.code(0x30 + 'a', 8);
    w.code(1, 7);   // symbol 257, length 3
    w.code(30, 5);  // distance symbol 30
    v.push_back({"distance symbol 30", w.finish() + std::string(10, '\0'), "invalid distance code"});
  }
  {
    BitWriter w;
    put_fixed_block(w, {{'a'}, {'b'}, {-1, 5, 3}}, true);
    v.push_back({"distance too far back", w.finish(), "reaches back before the start"});
  }
  {
    BitWriter w;  // a literal/length code of one 1-bit code (end-of-block is 0): bit 1 is no code
    std::vector<uint8_t> only_eob(257, 0);
    only_eob[256] = 1;
    put_dynamic_header(w, true, 257, 1, default_cl_lens(), lens_syms(only_eob, {0}));
    w.bits(1, 1);
    v.push_back({"a bit pattern outside an incomplete code", w.finish() + std::string(4, '\0'), "invalid literal/length code"});
  }
  {
    BitWriter w;
    put_fixed_block(w, {{'a'}, {'b'}, {'c'}}, false);  // not final, and then nothing
    v.push_back({"no final block", w.finish(), "ends early"});
  }
  return v;
}

TEST(Inflate, HostileStreamsAreErrorsWithOffsets) {
  for (const Hostile& h : hostile_streams()) {
    std::string out = "x";
    InflateResult r = inflate_raw(h.stream, out, 0, 1 << 20);
    EXPECT_FALSE(r.ok) << h.what;
    EXPECT_TRUE(contains(r.message, h.expect)) << h.what << ": " << r.message;
    EXPECT_TRUE(contains(r.message, "expected")) << h.what << ": " << r.message;
    EXPECT_GE(r.offset, 0) << h.what;
    EXPECT_LE(r.offset, static_cast<int64_t>(h.stream.size())) << h.what;
    EXPECT_EQ(out, "x") << h.what << ": the output is left as it was";
  }
}

TEST(Inflate, TruncatedAndCorruptedStreamsNeverCrash) {
  const std::string full = slurp(kArchiveFixtures + "/mixed.level9.deflate");
  const std::string fixed = slurp(kArchiveFixtures + "/mixed.fixed.deflate");
  ASSERT_FALSE(full.empty());
  Inflater inf;
  std::string out;
  // Every cut of the stream ends early (the last block is final only at its end).
  for (size_t cut = 0; cut < full.size(); cut += 1 + cut / 50) {
    out.clear();
    InflateResult r = inf.inflate(std::string_view(full).substr(0, cut), out, 0, 1 << 20);
    ASSERT_FALSE(r.ok) << "cut at " << cut;
    ASSERT_GE(r.offset, 0);
    ASSERT_LE(r.offset, static_cast<int64_t>(cut));
  }
  // Flipped bits and random bytes: any outcome but a crash (the sanitizer build watches).
  std::mt19937 rng(5);
  size_t oks = 0;
  for (int i = 0, n = scaled(1500); i < n; ++i) {
    std::string s = i % 2 ? full : fixed;
    s.resize(std::min<size_t>(s.size(), 200 + rng() % 3000));
    for (int k = 1 + rng() % 3; k > 0; --k) s[rng() % s.size()] ^= static_cast<char>(1 << (rng() % 8));
    out.clear();
    InflateResult r = inf.inflate(s, out, rng() % 2 ? 1000 : 0, 1 << 16);
    oks += r.ok;
    if (!r.ok) {
      ASSERT_GE(r.offset, 0);
      ASSERT_LE(r.offset, static_cast<int64_t>(s.size()));
    }
  }
  EXPECT_LT(oks, 1500u);
}

// ---------- zip ----------

TEST(Zip, EntriesAreNamedSortedAndFiltered) {
  const std::string z = make_zip({deflated("logs/b.log", "BB"), stored("logs/a.log", "A"), stored("logs/", ""),
                                  stored("__MACOSX/logs/._a.log", "junk"), stored("logs/.DS_Store", "d"),
                                  deflated("logs/c.log", std::string(3000, 'c'))});
  EXPECT_EQ(archive_kind(z), ArchiveKind::Zip);
  const std::string other = "{}";
  InputFile files[] = {{"first.json", other}, {"dir/Run.ZIP", z}, {"h.json", other}};
  ExpandedInput x;
  ASSERT_FALSE(expand_archives(files, x).has_value());
  EXPECT_EQ(names_of(x), (std::vector<std::string>{"first.json", "dir/Run/logs/a.log", "dir/Run/logs/b.log",
                                                   "dir/Run/logs/c.log", "h.json"}));
  EXPECT_EQ(x.files[1].bytes, "A");
  EXPECT_EQ(x.files[2].bytes, "BB");
  EXPECT_EQ(x.files[3].bytes, std::string(3000, 'c'));
  EXPECT_EQ(x.files[1].base_name(), "a.log");
}

TEST(Zip, DataDescriptorsZip64AndComments) {
  ZipEntry a = deflated("a.txt", "alpha alpha alpha");
  a.descriptor = true;
  ZipEntry b = stored("b.txt", "beta");
  b.descriptor = true;
  ZipEntry c = deflated("c.txt", std::string(5000, 'z'));
  c.zip64 = true;
  ZipEntry d = stored("d.txt", "delta");
  d.zip64 = true;
  for (bool zip64_end : {false, true})
    for (std::string comment : {std::string(), std::string("a comment"), std::string("PK\x05\x06 inside a comment"),
                                std::string(65535, 'c')}) {
      const std::string z = make_zip({a, b, c, d}, {comment, zip64_end});
      ExpandedInput x;
      std::optional<InputError> e = expand("t.zip", z, x);
      ASSERT_FALSE(e.has_value()) << e->to_string();
      ASSERT_EQ(names_of(x), (std::vector<std::string>{"t/a.txt", "t/b.txt", "t/c.txt", "t/d.txt"}));
      EXPECT_EQ(x.files[0].bytes, "alpha alpha alpha");
      EXPECT_EQ(x.files[1].bytes, "beta");
      EXPECT_EQ(x.files[2].bytes, std::string(5000, 'z'));
      EXPECT_EQ(x.files[3].bytes, "delta");
    }
}

TEST(Zip, NodeDeflateStreamsInsideAZip) {
  const Mixed m = mixed_manifest();
  std::vector<ZipEntry> entries;
  for (const char* f : {"level0", "level1", "level9", "fixed"}) {
    ZipEntry e{std::string("mixed.") + f};
    e.method = 8;
    e.packed = slurp(kArchiveFixtures + "/mixed." + f + ".deflate");
    e.crc = static_cast<uint32_t>(m.crc);
    e.usize = m.size;
    entries.push_back(e);
  }
  entries[1].descriptor = true;
  ExpandedInput x;
  std::optional<InputError> e = expand("m.zip", make_zip(entries), x);
  ASSERT_FALSE(e.has_value()) << e->to_string();
  ASSERT_EQ(x.files.size(), 4u);
  for (const InputFile& f : x.files) {
    EXPECT_EQ(f.bytes.size(), m.size) << f.name;
    EXPECT_EQ(crc32(f.bytes), m.crc) << f.name;
  }
}

// A zip of a Cobra corpus directory loads like the directory.
TEST(Zip, CobraCorpusThroughAZip) {
  SKIP_WITHOUT_CORPUS();
  for (const char* dir : {"cobra/cock-G2", "cobra/chengRW-100", "cobra/cock-blog"}) {
    LoadedFiles lf = load_path(corpus_dir() + "/" + dir);
    ASSERT_FALSE(lf.files.empty()) << dir;
    Expected<History> plain = read_history(lf.files);
    ASSERT_TRUE(plain.ok()) << plain.error().to_string();
    for (uint32_t method : {0u, 8u}) {
      std::vector<ZipEntry> entries = {stored(std::string(fs::path(dir).filename()) + "/", "")};
      for (size_t i = 0; i < lf.files.size(); ++i) {
        ZipEntry e{std::string(fs::path(dir).filename()) + "/" + std::string(lf.files[i].base_name()), lf.storage[i]};
        e.method = method;
        entries.push_back(e);
      }
      std::reverse(entries.begin(), entries.end());  // the archive's order does not matter
      const std::string z = make_zip(entries);
      const std::string zip_name = std::string(fs::path(dir).filename()) + ".zip";
      InputFile f{zip_name, z};
      Expected<History> h = read_history(std::span<const InputFile>(&f, 1));
      ASSERT_TRUE(h.ok()) << dir << ": " << h.error().to_string();
      EXPECT_EQ(h->format, "cobra");
      EXPECT_EQ(h->num_sessions(), plain->num_sessions()) << dir;
      EXPECT_EQ(h->num_txns(), plain->num_txns()) << dir;
      EXPECT_EQ(h->num_ops(), plain->num_ops()) << dir;
      EXPECT_EQ(h->keys.size(), plain->keys.size()) << dir;
      // Same history; written after the expanded bytes are gone (a History owns its data).
      EXPECT_TRUE(write_isoscope_json(*h) == write_isoscope_json(*plain)) << dir;
    }
  }
}

TEST(Gzip, CorpusFileAndNodeFixture) {
  SKIP_WITHOUT_CORPUS();
  const std::string json = slurp(corpus_dir() + "/textbook/lost-update.json");
  ASSERT_FALSE(json.empty());
  Expected<History> plain = read_path(corpus_dir() + "/textbook/lost-update.json");
  ASSERT_TRUE(plain.ok());
  for (uint8_t flags : {0, 2, 4, 8, 16, 2 | 4 | 8 | 16}) {
    const std::string g = make_gzip(json, flags);
    EXPECT_EQ(archive_kind(g), ArchiveKind::Gzip);
    InputFile f{"lost-update.json.gz", g};
    Expected<History> h = read_history(std::span<const InputFile>(&f, 1));
    ASSERT_TRUE(h.ok()) << "flags " << int(flags) << ": " << h.error().to_string();
    EXPECT_TRUE(write_isoscope_json(*h) == write_isoscope_json(*plain));
    ExpandedInput x;
    ASSERT_FALSE(expand("lost-update.json.GZ", g, x).has_value());
    EXPECT_EQ(names_of(x), std::vector<std::string>{"lost-update.json"});
  }
  // Node's two concatenated members, and trailing zero padding.
  const Mixed m = mixed_manifest();
  const std::string two = slurp(kArchiveFixtures + "/mixed.gz");
  for (const std::string& g : {two, two + std::string(100, '\0')}) {
    ExpandedInput x;
    std::optional<InputError> e = expand("mixed.gz", g, x);
    ASSERT_FALSE(e.has_value()) << e->to_string();
    ASSERT_EQ(names_of(x), std::vector<std::string>{"mixed"});
    EXPECT_EQ(x.files[0].bytes.size(), m.size);
    EXPECT_EQ(crc32(x.files[0].bytes), m.crc);
  }
}

// Every kind of bad zip is an error naming the archive (and entry), with an offset where one is
// known, and what was expected.
TEST(Zip, HostileArchivesAreErrors) {
  const std::string good = make_zip({deflated("h/a.log", std::string(2000, 'a')), stored("h/b.log", "bbbb")});
  struct Case {
    const char* what;
    std::string zip;
    const char* expect;
    const char* entry;  // expected in InputError::file, or ""
    ArchiveLimits limits = {};
  };
  std::vector<Case> cases;
  cases.push_back({"truncated before the end record", good.substr(0, good.size() - 10), "end-of-central-directory", ""});
  cases.push_back({"only a few bytes", good.substr(0, 12), "truncated", ""});
  {
    ZipEntry e = deflated("h/a.log", std::string(2000, 'a'));
    e.packed = deflate_literals(e.data).substr(0, 100);
    cases.push_back({"truncated deflate stream", make_zip({e}), "ends early", "h/a.log"});
  }
  {
    ZipEntry e = deflated("h/a.log", "some text");
    e.crc = 1234;
    cases.push_back({"bad CRC, deflated", make_zip({e}), "CRC-32", "h/a.log"});
    ZipEntry s = stored("h/s.log", "some text");
    s.crc = 1234;
    cases.push_back({"bad CRC, stored", make_zip({s}), "CRC-32", "h/s.log"});
  }
  {
    ZipEntry e = deflated("h/a.log", "some text");
    e.usize = 20;
    cases.push_back({"declared size too large", make_zip({e}), "inflates to 9 bytes", "h/a.log"});
    ZipEntry s = stored("h/s.log", "some text");
    s.usize = 4;
    cases.push_back({"stored sizes differ", make_zip({s}), "expected equal sizes", "h/s.log"});
  }
  {
    // A bomb: declares 1000 bytes, inflates to 10 MB.
    ZipEntry e = deflated("h/bomb.log", "");
    e.packed = deflate_zeros(10 << 20);
    e.usize = 1000;
    cases.push_back({"declared small, inflates big", make_zip({e}), "more than the 1000 bytes", "h/bomb.log"});
  }
  {
    ArchiveLimits small;
    small.max_total_bytes = 1500;
    cases.push_back({"total over the limit", good, "limit of 1500", "", small});
    ArchiveLimits few;
    few.max_entries = 1;
    cases.push_back({"too many entries", good, "at most 1", "", few});
  }
  {
    ZipEntry e = stored("h/a.log", "secret");
    e.flags = 1;
    cases.push_back({"encrypted", make_zip({e}), "encrypted", "h/a.log"});
  }
  for (auto [method, name] : std::vector<std::pair<uint32_t, const char*>>{
           {9, "deflate64"}, {12, "bzip2"}, {14, "lzma"}, {93, "zstd"}, {95, "xz"}, {99, "AES"}}) {
    ZipEntry e = stored("h/a.log", "data");
    e.method = method;
    e.packed = "data";
    cases.push_back({name, make_zip({e}), name, "h/a.log"});
  }
  cases.push_back({"zero entries", make_zip({}), "holds no files", ""});
  cases.push_back({"only junk", make_zip({stored("__MACOSX/x", "x"), stored(".hidden", "h"), stored("dir/", "")}),
                   "holds no files", ""});
  {
    // Two central records for one local header (entries overlap).
    std::string z = make_zip({stored("h/a.log", "aaaa"), stored("h/b.log", "bbbb")});
    const size_t second = z.find(std::string("PK\x01\x02", 4), z.find(std::string("PK\x01\x02", 4)) + 1);
    z.replace(second + 42, 4, std::string(4, '\0'));  // its local header offset -> 0
    cases.push_back({"overlapping entries", z, "must not overlap", "h/"});
    std::string far = make_zip({stored("h/a.log", "aaaa")});
    far.replace(far.find(std::string("PK\x01\x02", 4)) + 42, 4, std::string("\x00\x00\x01\x00", 4));
    cases.push_back({"local header offset out of range", far, "local header", "h/a.log"});
    std::string cd = make_zip({stored("h/a.log", "aaaa")});
    cd.replace(cd.size() - 6, 4, std::string("\x00\x00\x01\x00", 4));  // central directory offset
    cases.push_back({"central directory out of range", cd, "central directory", ""});
    std::string big = make_zip({stored("h/a.log", "aaaa")});
    big.replace(big.find(std::string("PK\x01\x02", 4)) + 20, 4, std::string("\xff\xff\x00\x00", 4));  // compressed size
    cases.push_back({"data running into the central directory", big, "run into the central directory", "h/a.log"});
    std::string split = make_zip({stored("h/a.log", "aaaa")});
    split[split.size() - 22 + 4] = 1;  // disk number
    cases.push_back({"split archive", split, "split", ""});
  }
  for (const Case& c : cases) {
    InputError e = expand_error("bad.zip", c.zip, c.limits);
    EXPECT_TRUE(contains(e.message, c.expect)) << c.what << ": " << e.to_string();
    EXPECT_TRUE(contains(e.file, "bad.zip")) << c.what << ": " << e.to_string();
    if (*c.entry) {
      EXPECT_TRUE(contains(e.file, c.entry)) << c.what << ": " << e.to_string();
    }
    if (!contains(c.expect, "no files") && !contains(c.expect, "limit")) {
      EXPECT_GE(e.offset, 0) << c.what << ": " << e.to_string();
    }
    EXPECT_LE(e.offset, static_cast<int64_t>(c.zip.size())) << c.what;
    // read_history passes the same error on.
    InputFile f{"bad.zip", c.zip};
    if (c.limits.max_total_bytes == ArchiveLimits{}.max_total_bytes && c.limits.max_entries == ArchiveLimits{}.max_entries) {
      Expected<History> h = read_history(std::span<const InputFile>(&f, 1));
      ASSERT_FALSE(h.ok()) << c.what;
      EXPECT_EQ(h.error().message, e.message) << c.what;
    }
  }
}

TEST(Zip, EveryTruncationAndCorruptionIsHandled) {
  const std::string z = make_zip({deflated("h/a.log", std::string(300, 'a') + "tail"), stored("h/b.log", "bbbb"),
                                  deflated("h/c.log", "cc")});
  for (size_t cut = 0; cut < z.size(); ++cut) {
    ExpandedInput x;
    std::optional<InputError> e = expand("cut.zip", z.substr(0, cut), x);
    if (cut < 4) continue;  // no longer a zip by its content; not expand_archives' business
    ASSERT_TRUE(e.has_value()) << "cut at " << cut;
    EXPECT_TRUE(contains(e->file, "cut.zip"));
  }
  std::mt19937 rng(9);
  for (int i = 0, n = scaled(3000); i < n; ++i) {
    std::string s = z;
    for (int k = 1 + rng() % 4; k > 0; --k) s[4 + rng() % (s.size() - 4)] = static_cast<char>(rng());
    ExpandedInput x;
    std::optional<InputError> e = expand("fuzz.zip", s, x);
    if (e) {
      EXPECT_LE(e->offset, static_cast<int64_t>(s.size()));
      EXPECT_TRUE(contains(e->file, "fuzz.zip"));
    }
  }
}

TEST(Gzip, HostileFilesAreErrors) {
  const std::string data = "some history text\n";
  const std::string g = make_gzip(data, 8);
  struct Case {
    const char* what;
    std::string gz;
    const char* expect;
  };
  std::vector<Case> cases = {
      {"truncated header", g.substr(0, 6), "ends early"},
      {"truncated file name", g.substr(0, 14), "file name"},
      {"truncated deflate stream", g.substr(0, g.size() - 12), "ends early"},
      {"truncated trailer", g.substr(0, g.size() - 3), "trailer"},
      {"reserved flags", make_gzip(data, 0x20), "reserved"},
      {"trailing garbage", g + "junk", "after the gzip stream"},
  };
  {
    std::string bad = g;
    bad[bad.size() - 8] ^= 1;
    cases.push_back({"bad CRC", bad, "CRC-32"});
    bad = g;
    bad[bad.size() - 4] ^= 1;
    cases.push_back({"bad size", bad, "trailer records"});
    bad = make_gzip(data, 2);
    bad[10] ^= 1;
    cases.push_back({"bad header CRC", bad, "header CRC"});
  }
  {
    // ustar inside the gzip
    const std::string tar = tar_of("h/a.json");
    cases.push_back({"a tar inside", make_gzip(tar, 0, deflate_literals(tar)), "tar"});
  }
  for (const Case& c : cases) {
    InputError e = expand_error("h.json.gz", c.gz);
    EXPECT_TRUE(contains(e.message, c.expect)) << c.what << ": " << e.to_string();
    EXPECT_EQ(e.file, "h.json.gz") << c.what;
    EXPECT_LE(e.offset, static_cast<int64_t>(c.gz.size())) << c.what;
  }
  // The total limit holds while inflating (gzip declares no trustworthy size up front).
  ArchiveLimits small;
  small.max_total_bytes = 4096;
  InputError e = expand_error("bomb.gz", make_gzip(std::string(100000, '\0'), 0, deflate_zeros(100000)), small);
  EXPECT_TRUE(contains(e.message, "limit of 4096")) << e.to_string();
  EXPECT_GE(e.offset, 0);
}

TEST(Archive, TarAndNestedArchives) {
  SKIP_WITHOUT_CORPUS();
  const std::string tar = tar_of("logs/T1.log");
  EXPECT_EQ(archive_kind(tar), ArchiveKind::Tar);
  InputFile t{"logs.tar", tar};
  Expected<History> h = read_history(std::span<const InputFile>(&t, 1));
  ASSERT_FALSE(h.ok());
  EXPECT_TRUE(contains(h.error().message, "tar archive")) << h.error().to_string();
  // One level: a zip inside a zip passes through, and then nothing can read it.
  const std::string inner = make_zip({stored("a.json", "{}")});
  const std::string outer = make_zip({stored("inner.zip", inner)});
  InputFile o{"outer.zip", outer};
  h = read_history(std::span<const InputFile>(&o, 1));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().file, "outer/inner.zip");
  EXPECT_TRUE(contains(h.error().message, "archive inside an archive")) << h.error().to_string();
  // Nested beside Cobra logs: the logs are read, the nested archive ignored.
  LoadedFiles g2 = load_path(corpus_dir() + "/cobra/cock-G2");
  std::vector<ZipEntry> entries = {stored("g2/old.zip", inner)};
  for (size_t i = 0; i < g2.files.size(); ++i) entries.push_back(stored("g2/" + std::string(g2.files[i].base_name()), g2.storage[i]));
  const std::string mixed = make_zip(entries);
  InputFile m{"m.zip", mixed};
  h = read_history(std::span<const InputFile>(&m, 1));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->format, "cobra");
  EXPECT_EQ(h->num_txns(), 446u);
}

}  // namespace
