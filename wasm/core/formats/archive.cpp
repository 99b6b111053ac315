// Zip and gzip input (see archive.h). The layouts follow PKWARE's APPNOTE (zip, ZIP64) and
// RFC 1952 (gzip). Everything is read from the bytes in memory; every offset and size read from
// the file is checked against the file's size before use, since archives may be hostile.
#include "formats/archive.h"

#include <algorithm>
#include <cstring>

#include "formats/inflate.h"

namespace isoscope {

namespace {

uint32_t le16(const uint8_t* p) { return p[0] | p[1] << 8; }
uint32_t le32(const uint8_t* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;

InputError error_at(std::string file, int64_t offset, std::string message) {
  InputError e;
  e.file = std::move(file);
  e.offset = offset;
  e.message = std::move(message);
  return e;
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char a = s[s.size() - suffix.size() + i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (a != suffix[i]) return false;
  }
  return true;
}

// The entries worth reading, as folders skip them (skipped_in_folder, formats.h): no directories,
// no macOS resource forks (__MACOSX/), no dot files (.DS_Store).
bool keep_entry(std::string_view name) {
  if (name.empty() || name.back() == '/') return false;
  size_t start = 0;
  for (;;) {
    const size_t slash = name.find('/', start);
    const std::string_view part = name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (slash == std::string_view::npos) return !skipped_in_folder(part);
    if (part == "__MACOSX") return false;
    start = slash + 1;
  }
}

std::string mb(uint64_t bytes) { return std::to_string((bytes + (1u << 19)) >> 20) + " MB"; }

// A file of the expanded input: a view into the caller's bytes or into storage[index].
struct Pending {
  std::string name;
  std::string_view view;
  size_t index = SIZE_MAX;
};

struct Entry {
  std::string name;
  uint32_t flags = 0, method = 0, crc = 0;
  uint64_t csize = 0, usize = 0, local = 0;  // sizes; offset of the local header
  uint64_t record = 0;                       // offset of the central directory record
  uint64_t data = 0;                         // offset of the data (after the local header)
  bool keep = false;
};

class Expander {
 public:
  Expander(const ArchiveLimits& limits, ExpandedInput& out) : limits_(limits), out_(out) {}

  uint64_t total = 0;  // bytes of the expanded input so far
  std::vector<Pending> pending;

  std::optional<InputError> zip(const InputFile& f, uint64_t passthrough);
  std::optional<InputError> gzip(const InputFile& f, uint64_t passthrough);

 private:
  const ArchiveLimits& limits_;
  ExpandedInput& out_;
  Inflater inflater_;

  std::optional<InputError> read_central(const InputFile& f, std::vector<Entry>& entries, uint64_t& cd_begin);
};

// The end-of-central-directory record, then the central directory, then each entry's local
// header (for the data offset); the sizes, CRC and method come from the central directory,
// which also covers entries written with a data descriptor (flag bit 3).
std::optional<InputError> Expander::read_central(const InputFile& f, std::vector<Entry>& entries, uint64_t& cd_begin) {
  const uint8_t* d = reinterpret_cast<const uint8_t*>(f.bytes.data());
  const uint64_t n = f.bytes.size();
  const std::string& file = f.name;
  if (n < 22) return error_at(file, static_cast<int64_t>(n), "the zip is truncated: expected an end-of-central-directory record (22 bytes)");
  // Search backwards over a comment of up to 65535 bytes. A record whose comment length reaches
  // exactly the end of the file wins over one that merely fits (which may sit in a comment).
  int64_t eocd = -1, loose = -1;
  const uint64_t lowest = n - 22 > 65535 ? n - 22 - 65535 : 0;
  for (uint64_t pos = n - 22 + 1; pos-- > lowest;) {
    if (le32(d + pos) != kEndSig) continue;
    const uint64_t comment = le16(d + pos + 20);
    if (pos + 22 + comment == n) {
      eocd = static_cast<int64_t>(pos);
      break;
    }
    if (loose < 0 && pos + 22 + comment <= n) loose = static_cast<int64_t>(pos);
  }
  if (eocd < 0) eocd = loose;
  if (eocd < 0)
    return error_at(file, static_cast<int64_t>(n),
                    "no end-of-central-directory record (PK\\5\\6) in the last 64 KB: the zip is truncated or damaged");
  const uint8_t* e = d + eocd;
  uint64_t disk = le16(e + 4), cd_disk = le16(e + 6), n_disk = le16(e + 8), n_total = le16(e + 10);
  uint64_t cd_size = le32(e + 12), cd_off = le32(e + 16);
  uint64_t cd_limit = static_cast<uint64_t>(eocd);  // the central directory ends before this
  // ZIP64: a locator right before the record points at the ZIP64 end-of-central-directory record.
  if (eocd >= 20 && le32(d + eocd - 20) == kZip64LocatorSig) {
    const uint64_t z = le64(d + eocd - 20 + 8);
    if (z > static_cast<uint64_t>(eocd - 20) || eocd - 20 - z < 56 || le32(d + z) != kZip64EndSig)
      return error_at(file, eocd - 20, "the ZIP64 locator points at byte " + std::to_string(z) +
                                           ", where there is no ZIP64 end-of-central-directory record (PK\\6\\6)");
    disk = le32(d + z + 16);
    cd_disk = le32(d + z + 20);
    n_disk = le64(d + z + 24);
    n_total = le64(d + z + 32);
    cd_size = le64(d + z + 40);
    cd_off = le64(d + z + 48);
    cd_limit = z;
  } else if (cd_size == 0xffffffff || cd_off == 0xffffffff) {
    // ZIP64 markers (an entry count of 0xffff may also just be 65535 entries)
    return error_at(file, eocd, "the end-of-central-directory record holds ZIP64 markers (0xffffffff): expected a ZIP64 locator before it");
  }
  if (disk != 0 || cd_disk != 0 || n_disk != n_total)
    return error_at(file, eocd, "a split (multi-volume) zip: expected a single-file archive");
  if (n_total > limits_.max_entries)
    return error_at(file, eocd, "the archive holds " + std::to_string(n_total) + " entries; at most " +
                                    std::to_string(limits_.max_entries) + " are accepted");
  if (cd_off > cd_limit || cd_size > cd_limit - cd_off)
    return error_at(file, eocd, "the central directory (" + std::to_string(cd_size) + " bytes at byte " + std::to_string(cd_off) +
                                    ") lies outside the file, which has " + std::to_string(cd_limit) +
                                    " bytes before the end record: the zip is truncated or damaged");
  cd_begin = cd_off;

  const uint64_t cd_end = cd_off + cd_size;
  uint64_t pos = cd_off;
  entries.reserve(static_cast<size_t>(n_total));
  for (uint64_t i = 0; i < n_total; ++i) {
    if (cd_end - pos < 46 || le32(d + pos) != kCentralSig)
      return error_at(file, static_cast<int64_t>(pos),
                      "expected central directory record " + std::to_string(i + 1) + " of " + std::to_string(n_total) + " (PK\\1\\2)");
    const uint8_t* r = d + pos;
    Entry en;
    en.record = pos;
    en.flags = le16(r + 8);
    en.method = le16(r + 10);
    en.crc = le32(r + 16);
    en.csize = le32(r + 20);
    en.usize = le32(r + 24);
    const uint64_t name_len = le16(r + 28), extra_len = le16(r + 30), comment_len = le16(r + 32);
    en.local = le32(r + 42);
    if (cd_end - pos - 46 < name_len + extra_len + comment_len)
      return error_at(file, static_cast<int64_t>(pos), "central directory record " + std::to_string(i + 1) +
                                                           " runs past the end of the central directory");
    en.name.assign(reinterpret_cast<const char*>(r + 46), name_len);
    // ZIP64 extended information (header 0x0001): 8-byte values for the fields saturated at
    // 0xffffffff, in this order: uncompressed size, compressed size, local header offset.
    const uint8_t* x = r + 46 + name_len;
    const uint8_t* const x_end = x + extra_len;
    const bool need64 = en.usize == 0xffffffff || en.csize == 0xffffffff || en.local == 0xffffffff;
    bool got64 = false;
    while (x_end - x >= 4) {
      const uint32_t id = le16(x), size = le16(x + 2);
      if (static_cast<uint64_t>(x_end - x - 4) < size) break;  // a malformed extra field: ignored
      if (id == 0x0001) {
        const uint8_t* v = x + 4;
        uint32_t left = size;
        for (uint64_t* field : {&en.usize, &en.csize, &en.local}) {
          if (*field != 0xffffffff) continue;
          if (left < 8)
            return error_at(file, static_cast<int64_t>(pos), "entry " + en.name + ": the ZIP64 extra field is too short for its sizes");
          *field = le64(v);
          v += 8;
          left -= 8;
        }
        got64 = true;
      }
      x += 4 + size;
    }
    if (need64 && !got64)
      return error_at(file, static_cast<int64_t>(pos), "entry " + en.name + ": sizes marked ZIP64 (0xffffffff) but no ZIP64 extra field");
    en.keep = keep_entry(en.name);
    entries.push_back(std::move(en));
    pos += 46 + name_len + extra_len + comment_len;
  }

  // Local headers: they give the data offset, and no entry's data may overlap another's (a
  // classic zip bomb reuses one deflate stream for many entries) or the central directory.
  for (Entry& en : entries) {
    const std::string where = file + ", entry " + en.name;
    if (en.local > cd_begin || cd_begin - en.local < 30 || le32(d + en.local) != kLocalSig)
      return error_at(where, static_cast<int64_t>(en.record),
                      "the entry's central directory record points at byte " + std::to_string(en.local) +
                          ", where there is no local header (PK\\3\\4): expected one there");
    const uint64_t after = en.local + 30 + le16(d + en.local + 26) + le16(d + en.local + 28);
    if (after > cd_begin || en.csize > cd_begin - after)
      return error_at(where, static_cast<int64_t>(en.local),
                      "the entry's " + std::to_string(en.csize) + " bytes of data at byte " + std::to_string(after) +
                          " run into the central directory at byte " + std::to_string(cd_begin) + ": the zip is damaged");
    en.data = after;
  }
  std::vector<const Entry*> by_offset;
  by_offset.reserve(entries.size());
  for (const Entry& en : entries) by_offset.push_back(&en);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) { return a->local < b->local; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const Entry& a = *by_offset[i - 1];
    const Entry& b = *by_offset[i];
    if (b.local < a.data + a.csize)
      return error_at(file + ", entry " + b.name, static_cast<int64_t>(b.local),
                      "the entry starts at byte " + std::to_string(b.local) + ", inside entry " + a.name + " (bytes " +
                          std::to_string(a.local) + "-" + std::to_string(a.data + a.csize) +
                          "): entries must not overlap");
  }
  return std::nullopt;
}

std::optional<InputError> Expander::zip(const InputFile& f, uint64_t passthrough) {
  std::vector<Entry> entries;
  uint64_t cd_begin = 0;
  if (auto err = read_central(f, entries, cd_begin)) return err;

  std::vector<Entry*> kept;
  uint64_t declared = 0;
  for (Entry& en : entries) {
    if (!en.keep) continue;
    const std::string where = f.name + ", entry " + en.name;
    if (en.flags & 0x41 || en.method == 99)  // bit 0 encrypted, bit 6 strong encryption, 99 AES
      return error_at(where, static_cast<int64_t>(en.record),
                      std::string("the entry is encrypted") + (en.method == 99 ? " (method 99, AES)" : "") +
                          ": expected an unencrypted archive");
    if (en.method != 0 && en.method != 8)
      return error_at(where, static_cast<int64_t>(en.record),
                      "the entry is compressed with " + zip_method_name(en.method) +
                          ", which isoscope does not read: expected stored (0) or deflate (8)");
    if (en.method == 0 && en.csize != en.usize)
      return error_at(where, static_cast<int64_t>(en.record), "a stored entry of " + std::to_string(en.usize) +
                                                                  " bytes occupies " + std::to_string(en.csize) +
                                                                  " bytes: expected equal sizes");
    declared = declared + en.usize < declared ? UINT64_MAX : declared + en.usize;  // ZIP64 sizes may be absurd
    kept.push_back(&en);
  }
  if (kept.empty()) return error_at(f.name, -1, "the archive holds no files");
  // Zip bombs: refuse on the declared sizes before inflating anything; each entry then inflates
  // to exactly its declared size or fails.
  if (declared > limits_.max_total_bytes - std::min(limits_.max_total_bytes, total + passthrough))
    return error_at(f.name, -1, "the archive expands to " + std::to_string(declared) + " bytes; with the rest of the input that is more than the limit of " +
                                    std::to_string(limits_.max_total_bytes) + " bytes (" + mb(limits_.max_total_bytes) + ")");
  std::stable_sort(kept.begin(), kept.end(), [](const Entry* a, const Entry* b) { return a->name < b->name; });

  std::string prefix = f.name;
  if (ends_with_ci(prefix, ".zip")) prefix.resize(prefix.size() - 4);
  for (Entry* en : kept) {
    const std::string where = f.name + ", entry " + en->name;
    const std::string_view data = f.bytes.substr(static_cast<size_t>(en->data), static_cast<size_t>(en->csize));
    Pending p;
    p.name = prefix + "/" + en->name;
    if (en->method == 0) {
      p.view = data;  // stored: a view into the archive itself, no copy
    } else {
      std::string s;
      const size_t usize = static_cast<size_t>(en->usize);
      InflateResult r = inflater_.inflate(data, s, usize, usize);
      if (!r.ok) {
        const int64_t at = static_cast<int64_t>(en->data) + r.offset;
        const std::string inside = " (byte " + std::to_string(r.offset) + " of the entry's compressed data)";
        if (r.over_limit)
          return error_at(where, at, "the entry inflates to more than the " + std::to_string(en->usize) +
                                         " bytes its central directory record declares" + inside);
        return error_at(where, at, r.message + inside);
      }
      if (s.size() != en->usize)
        return error_at(where, static_cast<int64_t>(en->data), "the entry inflates to " + std::to_string(s.size()) +
                                                                   " bytes, but its central directory record declares " +
                                                                   std::to_string(en->usize));
      p.index = out_.storage.size();
      out_.storage.push_back(std::move(s));
    }
    const std::string_view bytes = p.index == SIZE_MAX ? p.view : std::string_view(out_.storage[p.index]);
    const uint32_t crc = crc32(bytes);
    if (crc != en->crc)
      return error_at(where, static_cast<int64_t>(en->data), "the entry's CRC-32 is " + std::to_string(crc) +
                                                                 " but the archive records " + std::to_string(en->crc) +
                                                                 ": the entry is damaged");
    total += bytes.size();
    pending.push_back(std::move(p));
  }
  return std::nullopt;
}

// RFC 1952: members of a 10-byte header (optional extra field, name, comment, header CRC), a
// deflate stream, then CRC-32 and ISIZE (the size mod 2^32). Concatenated members form one file.
std::optional<InputError> Expander::gzip(const InputFile& f, uint64_t passthrough) {
  const uint8_t* d = reinterpret_cast<const uint8_t*>(f.bytes.data());
  const size_t n = f.bytes.size();
  const std::string& file = f.name;
  std::string s;
  size_t pos = 0;
  const uint64_t budget = limits_.max_total_bytes - std::min(limits_.max_total_bytes, total + passthrough);
  // ISIZE of the last member sizes the output when there is one member (the usual case).
  size_t hint = n >= 18 ? le32(d + n - 4) : 0;
  for (int member = 1;; ++member) {
    const size_t start = pos;
    auto truncated = [&](const char* what) {
      return error_at(file, static_cast<int64_t>(n), std::string("the gzip data ends early: expected ") + what);
    };
    if (n - pos < 10) return truncated("a 10-byte gzip header");
    if (d[pos] != 0x1f || d[pos + 1] != 0x8b)
      return error_at(file, static_cast<int64_t>(pos), "expected a gzip header (1f 8b)");
    if (d[pos + 2] != 8)
      return error_at(file, static_cast<int64_t>(pos + 2), "gzip compression method " + std::to_string(d[pos + 2]) + ": expected 8 (deflate)");
    const uint8_t flags = d[pos + 3];
    if (flags & 0xe0) return error_at(file, static_cast<int64_t>(pos + 3), "reserved gzip header flags are set: expected 0");
    pos += 10;
    if (flags & 4) {  // FEXTRA
      if (n - pos < 2) return truncated("the length of the header's extra field");
      const size_t xlen = le16(d + pos);
      if (n - pos - 2 < xlen) return truncated("the header's extra field");
      pos += 2 + xlen;
    }
    for (uint8_t bit : {uint8_t{8}, uint8_t{16}}) {  // FNAME, FCOMMENT: zero-terminated
      if (!(flags & bit)) continue;
      const void* zero = std::memchr(d + pos, 0, n - pos);
      if (!zero) return truncated(bit == 8 ? "the end of the original file name (a zero byte)" : "the end of the comment (a zero byte)");
      pos = static_cast<const uint8_t*>(zero) - d + 1;
    }
    if (flags & 2) {  // FHCRC: the low 16 bits of the header's CRC-32
      if (n - pos < 2) return truncated("the header CRC");
      const uint32_t want = le16(d + pos), got = crc32(f.bytes.substr(start, pos - start)) & 0xffff;
      if (want != got)
        return error_at(file, static_cast<int64_t>(pos), "the gzip header CRC is " + std::to_string(want) + " but the header's is " + std::to_string(got));
      pos += 2;
    }
    const size_t before = s.size();
    const size_t room = static_cast<size_t>(std::min<uint64_t>(budget - before, SIZE_MAX));
    InflateResult r = inflater_.inflate(f.bytes.substr(pos), s, member == 1 ? hint : 0, room);
    if (!r.ok) {
      const std::string inside = " (byte " + std::to_string(r.offset) + " of member " + std::to_string(member) + "'s compressed data)";
      if (r.over_limit)
        return error_at(file, static_cast<int64_t>(pos) + r.offset,
                        "the gzip data expands to more than the limit of " + std::to_string(limits_.max_total_bytes) + " bytes (" +
                            mb(limits_.max_total_bytes) + ") for the whole input" + inside);
      return error_at(file, static_cast<int64_t>(pos) + r.offset, r.message + inside);
    }
    pos += r.in_used;
    if (n - pos < 8) return truncated("the gzip trailer (CRC-32 and size, 8 bytes)");
    const uint32_t crc = crc32(std::string_view(s).substr(before)), want_crc = le32(d + pos);
    const uint32_t size = static_cast<uint32_t>(s.size() - before), want_size = le32(d + pos + 4);
    if (crc != want_crc)
      return error_at(file, static_cast<int64_t>(pos), "the data's CRC-32 is " + std::to_string(crc) + " but the gzip trailer records " +
                                                           std::to_string(want_crc) + ": the file is damaged");
    if (size != want_size)
      return error_at(file, static_cast<int64_t>(pos + 4), "the data is " + std::to_string(size) +
                                                               " bytes (mod 2^32) but the gzip trailer records " + std::to_string(want_size));
    pos += 8;
    if (pos == n) break;
    if (n - pos >= 2 && d[pos] == 0x1f && d[pos + 1] == 0x8b) continue;  // another member
    if (std::all_of(d + pos, d + n, [](uint8_t b) { return b == 0; })) break;  // zero padding
    return error_at(file, static_cast<int64_t>(pos), "unexpected data after the gzip stream: expected another member (1f 8b) or the end of the file");
  }
  Pending p;
  p.name = file;
  if (ends_with_ci(p.name, ".gz")) p.name.resize(p.name.size() - 3);
  else if (ends_with_ci(p.name, ".tgz")) p.name.replace(p.name.size() - 4, 4, ".tar");
  if (archive_kind(s) == ArchiveKind::Tar)
    return error_at(file, -1, "the gzip file holds a tar archive, which isoscope does not read: unpack it, or give a zip or the files themselves");
  total += s.size();
  p.index = out_.storage.size();
  out_.storage.push_back(std::move(s));
  pending.push_back(std::move(p));
  return std::nullopt;
}

// Whether the first 512 bytes are a tar header whose checksum holds (POSIX ustar: the field at
// 148..155 is the octal sum of the header's bytes, counting the field itself as eight spaces).
// "ustar" at byte 257 alone is five bytes any history may hold there.
bool tar_checksum_ok(std::string_view b) {
  uint32_t sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += i >= 148 && i < 156 ? ' ' : static_cast<uint8_t>(b[i]);
  size_t i = 148;
  while (i < 156 && b[i] == ' ') ++i;  // leading spaces, as some writers pad
  uint32_t stored = 0;
  const size_t digits = i;
  while (i < 156 && b[i] >= '0' && b[i] <= '7') stored = stored * 8 + static_cast<uint32_t>(b[i++] - '0');
  if (i == digits) return false;
  while (i < 156 && (b[i] == ' ' || b[i] == '\0')) ++i;  // NUL or space terminated
  return i == 156 && stored == sum;
}

}  // namespace

ArchiveKind archive_kind(std::string_view b) {
  if (b.size() >= 4 && b[0] == 'P' && b[1] == 'K' && ((b[2] == 3 && b[3] == 4) || (b[2] == 5 && b[3] == 6))) return ArchiveKind::Zip;
  if (b.size() >= 3 && b[0] == '\x1f' && b[1] == '\x8b' && b[2] == 8) return ArchiveKind::Gzip;
  if (b.size() >= 512 && b.substr(257, 5) == "ustar" && tar_checksum_ok(b)) return ArchiveKind::Tar;
  return ArchiveKind::None;
}

std::string zip_method_name(uint32_t method) {
  switch (method) {
    case 0: return "method 0 (stored)";
    case 1: return "method 1 (shrink)";
    case 6: return "method 6 (implode)";
    case 8: return "method 8 (deflate)";
    case 9: return "method 9 (deflate64)";
    case 12: return "method 12 (bzip2)";
    case 14: return "method 14 (lzma)";
    case 93: return "method 93 (zstd)";
    case 95: return "method 95 (xz)";
    case 98: return "method 98 (ppmd)";
    case 99: return "method 99 (AES encryption)";
    default: return "method " + std::to_string(method);
  }
}

std::optional<InputError> expand_archives(std::span<const InputFile> files, ExpandedInput& out, const ArchiveLimits& limits) {
  out.storage.clear();
  out.files.clear();
  Expander ex(limits, out);
  // Files that pass through count against the limit from the start, so that the declared-size
  // check of each archive sees the whole input.
  uint64_t passthrough = 0;
  auto kind = [&](const InputFile& f) {
    const ArchiveKind k = archive_kind(f.bytes);
    return k == ArchiveKind::Tar && limits.tar_passes_through ? ArchiveKind::None : k;
  };
  for (const InputFile& f : files)
    if (kind(f) == ArchiveKind::None) passthrough += f.bytes.size();
  if (passthrough > limits.max_total_bytes)
    return error_at(files.empty() ? "" : files[0].name, -1,
                    "the input is " + std::to_string(passthrough) + " bytes, more than the limit of " + std::to_string(limits.max_total_bytes));
  for (const InputFile& f : files) {
    switch (kind(f)) {
      case ArchiveKind::None:
        ex.pending.push_back({f.name, f.bytes});
        passthrough -= f.bytes.size();
        ex.total += f.bytes.size();
        break;
      case ArchiveKind::Zip:
        if (auto err = ex.zip(f, passthrough)) return err;
        break;
      case ArchiveKind::Gzip:
        if (auto err = ex.gzip(f, passthrough)) return err;
        break;
      case ArchiveKind::Tar:
        return error_at(f.name, -1, "a tar archive, which isoscope does not read: unpack it, or give a zip or the files themselves");
    }
  }
  // Views are taken only now: storage no longer moves.
  out.files.reserve(ex.pending.size());
  for (Pending& p : ex.pending)
    out.files.push_back({std::move(p.name), p.index == SIZE_MAX ? p.view : std::string_view(out.storage[p.index])});
  return std::nullopt;
}

}  // namespace isoscope
