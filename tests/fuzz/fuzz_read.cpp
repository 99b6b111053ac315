// libFuzzer targets, one binary (build-fuzz/fuzz_read): the target is named by the environment
// variable ISOSCOPE_FUZZ_TARGET (the table kTargets below; "list" prints their names). Each
// runs one reader (its format; "" = detection, with zip and gzip expanded) on arbitrary bytes;
// "check" then checks every level of the small histories that parse (with a budget). "folder"
// makes the bytes a folder of files (split at the marker "\xff\xfe|", each part's first byte
// choosing its name from a table: Cobra logs, history.bincode, dot files, ...), read with
// detection: folder layouts, hidden files and the diagnosis of inputs that no reader recognises
// (every reader, after the memory estimate). "unrecognised" skips inputs that some detector
// recognises: the fuzzer spends its time on the diagnosis alone.
// Built by -DISOSCOPE_FUZZ=ON (clang); run by `npm run fuzz` (scripts/fuzz.sh).
//
// The single-file text targets also meet an oracle, not just the sanitizers: line endings must
// not matter (a CR-only file once lost every operation after a comment and passed). An input
// without CR is read again with each LF made CR and CRLF: both must parse or both fail on the
// same line, to the same shape of history.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/check.h"
#include "formats/archive.h"
#include "formats/formats.h"

using namespace isoscope;

namespace {

enum class Mode : uint8_t { OneFile, Check, Unrecognised, Folder };
struct Target {
  const char* name;
  const char* format;     // "" = detection
  const char* file_name;  // the name the bytes are read under
  Mode mode;
};
constexpr Target kTargets[] = {
    {"isoscope", "isoscope", "h.json", Mode::OneFile},
    {"plume", "plume", "h.txt", Mode::OneFile},
    {"awdit-test", "awdit-test", "h.txt", Mode::OneFile},
    {"dbcop-bincode", "dbcop-bincode", "history.bincode", Mode::OneFile},
    {"dbcop-json", "dbcop-json", "h.json", Mode::OneFile},
    {"dbcop-text", "dbcop-text", "h.txt", Mode::OneFile},
    {"cobra", "cobra", "logs/T1.log", Mode::OneFile},
    {"elle", "elle", "history.edn", Mode::OneFile},
    {"jepsen", "jepsen", "history.edn", Mode::OneFile},
    {"jepsen-log", "jepsen-log", "jepsen.log", Mode::OneFile},
    {"archive", "", "input.zip", Mode::OneFile},
    {"check", "", "input", Mode::Check},
    {"unrecognised", "", "h.txt", Mode::Unrecognised},
    {"folder", "", "run", Mode::Folder},
};
const Target* g_target = nullptr;

bool text_format(std::string_view f) {
  return f == "isoscope" || f == "plume" || f == "awdit-test" || f == "dbcop-json" || f == "dbcop-text" ||
         f == "elle" || f == "jepsen" || f == "jepsen-log";
}

Expected<History> read_one(std::string_view input) {
  std::string bytes;
  bytes.reserve(input.size() + 64);  // padding, as above
  bytes.assign(input);
  std::vector<InputFile> files(1);
  files[0].name = g_target->file_name;
  files[0].bytes = std::string_view(bytes.data(), input.size());
  files[0].padding = bytes.capacity() - input.size();
  return read_history(files, g_target->format, uint64_t{64} << 20);
}

// The same history, whatever its line endings: same outcome, same error line, same shape.
void check_line_endings(std::string_view input, const Expected<History>& lf) {
  if (input.find('\r') != std::string_view::npos || input.find('\n') == std::string_view::npos) return;
  // An archive is expanded before the reader sees text: its 0x0A bytes are compressed data, not
  // line ends, and changing them breaks the archive, not the oracle.
  if (archive_kind(input) != ArchiveKind::None) return;
  for (std::string_view nl : {std::string_view("\r"), std::string_view("\r\n")}) {
    std::string other;
    other.reserve(input.size() * 2);
    for (char c : input) {
      if (c == '\n')
        other.append(nl);
      else
        other.push_back(c);
    }
    const Expected<History> h = read_one(other);
    if (h.ok() != lf.ok()) std::abort();  // one line ending read, the other refused
    if (!h.ok()) {
      if (h.error().line != lf.error().line) std::abort();
      continue;
    }
    if (h->num_sessions() != lf->num_sessions() || h->num_txns() != lf->num_txns() || h->num_ops() != lf->num_ops() ||
        h->read_from != lf->read_from || h->has_timestamps != lf->has_timestamps)
      std::abort();
    for (size_t t = 0; t < h->txns.size(); ++t)
      if (h->txns[t].status != lf->txns[t].status || h->txns[t].committed != lf->txns[t].committed) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("ISOSCOPE_FUZZ_TARGET");
  const std::string_view want = name ? name : "";
  for (const Target& t : kTargets) {
    if (want == "list") std::printf("%s\n", t.name);
    if (want == t.name) g_target = &t;
  }
  if (want == "list") std::exit(0);
  if (!g_target) {
    std::fprintf(stderr, "fuzz_read: set ISOSCOPE_FUZZ_TARGET to one of:");
    for (const Target& t : kTargets) std::fprintf(stderr, " %s", t.name);
    std::fprintf(stderr, " (or list)\n");
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes;
  bytes.reserve(size + 64);  // the JSON readers' padding, as the CLI and the wasm API give it
  bytes.assign(reinterpret_cast<const char*>(data), size);
  std::vector<InputFile> files;
  if (g_target->mode == Mode::Folder) {
    static const char* const kNames[] = {"run/T1.log", "run/T2.log", "run/T10.log",    "run/history.bincode",
                                         "run/h.json", "run/.DS_Store", "run/history.edn", "run/h.txt"};
    constexpr std::string_view kMarker = "\xff\xfe|";
    const std::string_view all(bytes.data(), size);
    size_t start = 0;
    while (files.size() < 16) {
      size_t cut = all.find(kMarker, start);
      const std::string_view part = all.substr(start, cut == std::string_view::npos ? std::string_view::npos : cut - start);
      InputFile f;
      f.name = kNames[part.empty() ? 0 : static_cast<uint8_t>(part[0]) % 8];
      f.bytes = part.empty() ? part : part.substr(1);
      files.push_back(std::move(f));  // no padding: the JSON readers copy (the front ends' other path)
      if (cut == std::string_view::npos) break;
      start = cut + kMarker.size();
    }
  } else {
    files.resize(1);
    files[0].name = g_target->file_name;
    files[0].bytes = std::string_view(bytes.data(), size);
    files[0].padding = bytes.capacity() - size;
  }
  if (g_target->mode == Mode::Unrecognised)
    for (const FormatInfo& f : all_formats())
      if (f.detect(files)) return -1;  // not an input for this target: kept out of its corpus
  Expected<History> h = read_history(files, g_target->format, uint64_t{64} << 20);
  if (g_target->mode != Mode::Folder && text_format(g_target->format))
    check_line_endings(std::string_view(bytes.data(), size), h);
  if (g_target->mode == Mode::Check && h.ok() && h->txns.size() <= 48) {
    CheckOptions o;
    o.budget_ms = 200;
    (void)check_history(*h, o);
  }
  return 0;
}
