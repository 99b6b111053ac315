#include "formats/not_history.h"

#include <vector>

namespace isoscope {

using namespace std::literals;

std::string_view known_non_history(std::string_view b) {
  auto starts = [&](std::string_view magic, size_t at = 0) { return b.size() >= at + magic.size() && b.substr(at, magic.size()) == magic; };
  if (starts("\x89PNG\r\n\x1a\n"sv)) return "a PNG image";
  if (starts("\xff\xd8\xff"sv)) return "a JPEG image";
  if (starts("GIF87a"sv) || starts("GIF89a"sv)) return "a GIF image";
  if (starts("RIFF"sv) && starts("WEBP"sv, 8)) return "a WebP image";
  if (starts("BM"sv) && b.size() > 26 && b[14] >= 12 && b[15] == 0 && b[16] == 0 && b[17] == 0) return "a BMP image";
  if (starts("II*\0"sv, 0) || starts("MM\0*"sv)) return "a TIFF image";
  if (starts("ftypheic"sv, 4) || starts("ftypheix"sv, 4) || starts("ftypmif1"sv, 4)) return "a HEIC image";
  if (starts("ftypisom"sv, 4) || starts("ftypmp42"sv, 4) || starts("ftypqt  "sv, 4)) return "a video";
  if (starts("%PDF-"sv)) return "a PDF document";
  if (starts("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"sv)) return "an old Microsoft Office document";
  if (starts("SQLite format 3\0"sv, 0)) return "an SQLite database";
  if (starts("\x7f" "ELF"sv)) return "a program (ELF)";
  if (starts("MZ"sv) && b.size() > 64) return "a Windows program";
  if (starts("\xca\xfe\xba\xbe"sv) || starts("\xcf\xfa\xed\xfe"sv)) return "a program (Mach-O)";
  if (starts("\0asm"sv)) return "a WebAssembly module";
  if (starts("7z\xbc\xaf\x27\x1c"sv)) return "a 7-Zip archive (isoscope reads zip and gzip)";
  if (starts("Rar!\x1a\x07"sv)) return "a RAR archive (isoscope reads zip and gzip)";
  if (starts("BZh"sv) && b.size() > 4 && b[3] >= '1' && b[3] <= '9') return "a bzip2 file (isoscope reads zip and gzip)";
  if (starts("\xfd" "7zXZ\0"sv)) return "an xz file (isoscope reads zip and gzip)";
  if (starts("\x28\xb5\x2f\xfd"sv)) return "a zstd file (isoscope reads zip and gzip)";
  return {};
}

std::optional<std::string> not_a_history(std::span<const InputFile> files) {
  std::vector<std::pair<std::string_view, std::string_view>> found;  // name, what
  for (const InputFile& f : files) {
    if (f.bytes.empty()) continue;
    std::string_view what = known_non_history(f.bytes);
    if (what.empty()) return std::nullopt;
    found.push_back({f.name, what});
  }
  if (found.empty()) return std::nullopt;
  if (found.size() == 1) return "this is " + std::string(found[0].second) + ", not a history";
  std::string s = "none of these " + std::to_string(found.size()) + " files is a history: ";
  for (size_t i = 0; i < found.size() && i < 5; ++i)
    s += (i ? ", " : "") + std::string(found[i].first) + " is " + std::string(found[i].second);
  if (found.size() > 5) s += ", and " + std::to_string(found.size() - 5) + " more";
  return s;
}

}  // namespace isoscope
