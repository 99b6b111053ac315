// The table of formats, in auto-detection order (most specific first), and read_history().
#include <cctype>

#include "formats/archive.h"
#include "formats/formats.h"

namespace isoscope {

namespace {
const FormatInfo kFormats[] = {
    {"isoscope", detect_isoscope_json, read_isoscope_json},
    // Importers (issue 3). Binary and directory formats first (decided by file names and magic
    // bytes), then JSON shapes, then the line-based text formats, which tell each other apart by
    // their first lines: "r(1,2,3,4)" plume, "r 1 2" awdit-test, "[x:=1]" dbcop-text.
    {"cobra", detect_cobra, read_cobra},
    {"dbcop-bincode", detect_dbcop_bincode, read_dbcop_bincode},
    {"dbcop-json", detect_dbcop_json, read_dbcop_json},
    {"elle", detect_elle, read_elle},
    {"plume", detect_plume, read_plume},
    {"awdit-test", detect_awdit_test, read_awdit_test},
    {"dbcop-text", detect_dbcop_text, read_dbcop_text},
};
}  // namespace

std::span<const FormatInfo> all_formats() { return kFormats; }

const FormatInfo* find_format(std::string_view name) {
  for (const FormatInfo& f : kFormats)
    if (name == f.name) return &f;
  return nullptr;
}

namespace {
Expected<History> read_expanded(std::span<const InputFile> files, std::string_view format) {
  InputError e;
  if (files.empty()) {
    e.message = "no input files (an empty directory?)";
    return e;
  }
  if (!format.empty()) {
    const FormatInfo* f = find_format(format);
    if (!f) {
      e.message = "unknown format '" + std::string(format) + "'; known formats:";
      for (const FormatInfo& k : kFormats) e.message += std::string(" ") + k.name;
      return e;
    }
    return f->read(files);
  }
  for (const FormatInfo& f : kFormats)
    if (f.detect(files)) return f.read(files);
  e.file = files[0].name;
  bool empty = true;
  for (const InputFile& f : files) empty = empty && f.bytes.empty();
  e.message = empty ? "the input is empty: expected a history"
                    : "could not recognise the format; pass --format with one of:";
  if (!empty)
    for (const FormatInfo& k : kFormats) e.message += std::string(" ") + k.name;
  // Archives are expanded one level deep, so one inside another arrives here unread.
  for (const InputFile& f : files)
    if (archive_kind(f.bytes) != ArchiveKind::None) {
      e.file = f.name;
      e.message = "an archive inside an archive, which isoscope does not expand (only one level is): "
                  "expected the files themselves; unpack it first";
      break;
    }
  return e;
}
}  // namespace

// Archives (zip, gzip) are expanded here, the one place every front end passes through; the
// expanded bytes live only for this call, since a History owns all its data.
Expected<History> read_history(std::span<const InputFile> files, std::string_view format,
                               uint64_t max_expanded_bytes) {
  bool any_archive = false;
  for (const InputFile& f : files) any_archive = any_archive || archive_kind(f.bytes) != ArchiveKind::None;
  if (!any_archive) return read_expanded(files, format);
  ExpandedInput expanded;
  ArchiveLimits limits;
  if (max_expanded_bytes > 0) limits.max_total_bytes = max_expanded_bytes;
  if (std::optional<InputError> err = expand_archives(files, expanded, limits)) return std::move(*err);
  return read_expanded(expanded.files, format);
}

}  // namespace isoscope
