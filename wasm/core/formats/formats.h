// Reading and writing histories in every supported format.
// Each format lives in its own file (formats/<name>.cpp) and registers a detector and a reader
// in formats/registry.cpp; auto-detection tries the detectors in a fixed order.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/history.h"

namespace isoscope {

// One file of an input. A directory (Cobra logs, a dbcop history folder) or a zip arrives as
// several files; a single file or stdin as one. The caller owns the bytes.
struct InputFile {
  std::string name;  // path or name as the user gave it ("<stdin>" for stdin)
  std::string_view bytes;
};

struct FormatInfo {
  const char* name;  // as in shared/spec/history-format.md: "isoscope", "plume", ...
  // True when the content looks like this format (cheap: looks at a prefix / file names).
  bool (*detect)(std::span<const InputFile> files);
  Expected<History> (*read)(std::span<const InputFile> files);
};

// Every format, in detection order.
std::span<const FormatInfo> all_formats();
const FormatInfo* find_format(std::string_view name);

// Reads with the named format, or detects it when format is empty.
Expected<History> read_history(std::span<const InputFile> files, std::string_view format = {});

// Writers.
std::string write_isoscope_json(const History& h);
std::string write_plume(const History& h);

// Individual readers (registered in formats/registry.cpp).
Expected<History> read_isoscope_json(std::span<const InputFile> files);
bool detect_isoscope_json(std::span<const InputFile> files);

}  // namespace isoscope
