// Reading and writing histories in every supported format.
// Each format lives in its own file (formats/<name>.cpp) and registers a detector and a reader
// in formats/registry.cpp; auto-detection tries the detectors in a fixed order.
#pragma once
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/writers.h"
#include "model/history.h"

namespace isoscope {

// One file of an input. A directory (Cobra logs, a dbcop history folder) arrives as several
// files; a single file, an archive or stdin as one. The caller owns the bytes.
struct InputFile {
  std::string name;  // path or name as the user gave it ("<stdin>" for stdin)
  std::string_view bytes;
  // How many bytes past the end of `bytes` are allocated and readable. The JSON readers need
  // 64 (simdjson reads ahead in blocks); callers that allocate them save a copy of the file.
  size_t padding = 0;

  // The last path component: "logs/T3.log" -> "T3.log" ('/' and '\\' separate). [importers]
  std::string_view base_name() const {
    std::string_view n = name;
    size_t cut = n.find_last_of("/\\");
    return cut == std::string_view::npos ? n : n.substr(cut + 1);
  }
  // Whether the base name ends with suffix, ignoring ASCII case (".log", "history.bincode").
  bool name_ends_with(std::string_view suffix) const {
    std::string_view n = base_name();
    if (n.size() < suffix.size()) return false;
    for (size_t i = 0; i < suffix.size(); ++i) {
      char a = n[n.size() - suffix.size() + i], b = suffix[i];
      if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
      if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
      if (a != b) return false;
    }
    return true;
  }
};

// Whether a file or folder name (one path component) is left out of a folder's files: dot files
// (.DS_Store, ._x) and macOS resource forks (__MACOSX). The one rule for folders on the command
// line, folders dropped in the app (web/src/load/input.ts) and zip entries (formats/archive.cpp).
inline bool skipped_in_folder(std::string_view component) {
  return component.starts_with('.') || component == "__MACOSX";
}

struct FormatInfo {
  const char* name;   // as in docs/formats.md: "isoscope", "plume", ...
  const char* title;  // for people: "Cobra logs (a folder of .log files)"
  // Memory while reading, per input byte (input, parser state and the History with its growth
  // slack), measured at 10^6 operations: the estimate checked before reading, so an input too
  // large for the wasm heap is refused with an error instead of aborting the module.
  unsigned load_factor;
  // True when the content looks like this format (cheap: looks at a prefix / file names).
  bool (*detect)(std::span<const InputFile> files);
  // locator: nullptr, but for the second read that locates a duplicate write (model/history.h).
  Expected<History> (*read)(std::span<const InputFile> files, OpLocator* locator);
  // Memory while reading, when a factor per byte misjudges it: formats with one short line per
  // operation cost per line, not per byte (see plume.cpp). Overrides load_factor when set.
  uint64_t (*memory_estimate)(std::span<const InputFile> files) = nullptr;
};

// Every format, in detection order.
std::span<const FormatInfo> all_formats();
const FormatInfo* find_format(std::string_view name);

// Reads with the named format, or detects it when format is empty. Zip and gzip files among
// files are expanded first (formats/archive.h), so every front end accepts archives.
// max_expanded_bytes: the most bytes archives may expand to in all (0: the default of
// formats/archive.h, 2 GiB - 1; the wasm API passes less, since its heap holds everything).
Expected<History> read_history(std::span<const InputFile> files, std::string_view format = {},
                               uint64_t max_expanded_bytes = 0);

// --unique-values: the error of a history that writes some (key, value) more than once, naming
// both writes with their lines (bytes in binary formats) as read from files; nullopt when every
// pair is written once.
std::optional<InputError> unique_values_error(const History& h, std::span<const InputFile> files);

// --initial VALUE: every object of an object history (register, cas-register, key-value,
// multi-register) starts with VALUE instead of absent: an integer, nil, or else a string (a
// Jepsen keyword :k is the string k). An error for a mutex (it starts free) and for a history of
// transactions (its format says what keys start with); errors name the file of files.
std::optional<InputError> set_initial_value(History& h, std::string_view value, std::span<const InputFile> files);

// The input options of every front end (check's --unique-values and --initial, the wasm load's
// uniqueValues and initial) on a history read from files: --unique-values refuses a repeated
// write (object histories excepted: LIN reads no reads-from), then --initial (when given).
struct InputOptions {
  bool unique_values = false;
  std::optional<std::string> initial;
};
std::optional<InputError> apply_input_options(History& h, std::span<const InputFile> files, const InputOptions& o);

// Writers: formats/writers.h.

// Individual readers (registered in formats/registry.cpp).
Expected<History> read_isoscope_json(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_isoscope_json(std::span<const InputFile> files);

// Importers of the other formats (formats/<name>.cpp; see docs/formats.md).
// A front end passes a directory as all its files: each reader picks what it needs by name.
// Text formats read exactly one file (hidden files such as .DS_Store are ignored); cobra reads the *.log files of a directory (one session
// per file, in natural name order); dbcop-bincode reads one file or the history.bincode of a
// directory.
Expected<History> read_plume(std::span<const InputFile> files, OpLocator* locator = nullptr);
uint64_t plume_memory_estimate(std::span<const InputFile> files);
bool detect_plume(std::span<const InputFile> files);
Expected<History> read_awdit_test(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_awdit_test(std::span<const InputFile> files);
Expected<History> read_dbcop_bincode(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_dbcop_bincode(std::span<const InputFile> files);
Expected<History> read_dbcop_json(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_dbcop_json(std::span<const InputFile> files);
Expected<History> read_dbcop_text(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_dbcop_text(std::span<const InputFile> files);
Expected<History> read_cobra(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_cobra(std::span<const InputFile> files);
Expected<History> read_elle(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_elle(std::span<const InputFile> files);
// Non-transactional object histories (register, cas-register, key-value, multi-register, mutex;
// model/registers.h): Jepsen/Knossos/Porcupine EDN or JSON maps, and Jepsen's log lines.
Expected<History> read_jepsen(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_jepsen(std::span<const InputFile> files);
Expected<History> read_jepsen_log(std::span<const InputFile> files, OpLocator* locator = nullptr);
bool detect_jepsen_log(std::span<const InputFile> files);

}  // namespace isoscope
