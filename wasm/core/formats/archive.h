// Archives among the input files: zip (stored and deflated entries) and gzip, recognised by
// their content. read_history() (formats/registry.cpp) expands them, so the CLI, the embind API
// and the web app all accept archives through this one implementation.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/formats.h"

namespace isoscope {

enum class ArchiveKind { None, Zip, Gzip, Tar };

// By content: zip "PK\3\4" (or "PK\5\6", an empty archive), gzip 1f 8b 08, POSIX tar "ustar" at
// byte 257 in a header whose checksum holds. Tar is recognised only to say that it is not
// supported.
ArchiveKind archive_kind(std::string_view bytes);

struct ArchiveLimits {
  // The most bytes the expanded input may hold in all (the files passed through count too):
  // one wasm heap's worth, as the web app always had.
  uint64_t max_total_bytes = (uint64_t{1} << 31) - 1;
  uint64_t max_entries = 100000;  // per zip
  // A tar passes through as a file instead of being refused: the user named the format
  // (--format, the app's format choice), and that choice wins over a header that looks like tar.
  bool tar_passes_through = false;
};

// The input with every archive replaced by its files. `files` view into `storage` or into the
// caller's input (files that are no archive pass through), so it lives only as long as both.
struct ExpandedInput {
  std::vector<std::string> storage;
  std::vector<InputFile> files;
};

// Expands every zip and gzip among files, one level deep: an archive inside an archive passes
// through as a file (no importer reads it; read_history then says why). A zip's entries become
// "<archive name without .zip>/<entry path>", sorted by name; directories, __MACOSX/ and dot
// files are skipped. A gzip becomes one file named like the archive without ".gz". Errors name
// the archive (and entry), the byte offset in the archive and what was expected.
std::optional<InputError> expand_archives(std::span<const InputFile> files, ExpandedInput& out,
                                          const ArchiveLimits& limits = {});

// The zip format's method numbers, named for messages: 9 -> "deflate64", 12 -> "bzip2".
std::string zip_method_name(uint32_t method);

}  // namespace isoscope
