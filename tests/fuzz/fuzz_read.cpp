// libFuzzer target: one reader (FUZZ_FORMAT; "" = detection, with zip and gzip expanded) on
// arbitrary bytes; with FUZZ_CHECK, every level is then checked on the small histories that
// parse (with a budget). With FUZZ_FOLDER, the bytes become a folder of files (split at the
// marker "\xff\xfe|", each part's first byte choosing its name from a table: Cobra logs,
// history.bincode, dot files, ...), read with detection: folder layouts, hidden files and the
// diagnosis of inputs that no reader recognises (every reader, after the memory estimate). With
// FUZZ_UNRECOGNISED, inputs that some detector recognises are skipped: the fuzzer spends its
// time on the diagnosis alone.
// Built by -DISOSCOPE_FUZZ=ON (clang); run by `npm run fuzz` (scripts/fuzz.sh).
//
// The single-file text targets also meet an oracle, not just the sanitizers: line endings must
// not matter (issue 22, class 2, where a CR-only file lost every operation after a comment and
// passed). An input without CR is read again with each LF made CR and CRLF: both must parse or
// both fail on the same line, to the same shape of history.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/check.h"
#include "formats/archive.h"
#include "formats/formats.h"

using namespace isoscope;

namespace {

constexpr std::string_view kFormat = FUZZ_FORMAT;
constexpr bool kTextFormat = kFormat == "isoscope" || kFormat == "plume" || kFormat == "awdit-test" ||
                             kFormat == "dbcop-json" || kFormat == "dbcop-text" || kFormat == "elle" ||
                             kFormat == "jepsen" || kFormat == "jepsen-log";

Expected<History> read_one(std::string_view input) {
  std::string bytes;
  bytes.reserve(input.size() + 64);  // padding, as above
  bytes.assign(input);
  std::vector<InputFile> files(1);
  files[0].name = FUZZ_FILE_NAME;
  files[0].bytes = std::string_view(bytes.data(), input.size());
  files[0].padding = bytes.capacity() - input.size();
  return read_history(files, FUZZ_FORMAT, uint64_t{64} << 20);
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes;
  bytes.reserve(size + 64);  // the JSON readers' padding, as the CLI and the wasm API give it
  bytes.assign(reinterpret_cast<const char*>(data), size);
  std::vector<InputFile> files;
#ifdef FUZZ_FOLDER
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
#else
  files.resize(1);
  files[0].name = FUZZ_FILE_NAME;
  files[0].bytes = std::string_view(bytes.data(), size);
  files[0].padding = bytes.capacity() - size;
#endif
#ifdef FUZZ_UNRECOGNISED
  for (const FormatInfo& f : all_formats())
    if (f.detect(files)) return -1;  // not an input for this target: kept out of its corpus
#endif
  Expected<History> h = read_history(files, FUZZ_FORMAT, uint64_t{64} << 20);
#ifndef FUZZ_FOLDER
  if constexpr (kTextFormat) check_line_endings(std::string_view(bytes.data(), size), h);
#endif
#ifdef FUZZ_CHECK
  if (h.ok() && h->txns.size() <= 48) {
    CheckOptions o;
    o.budget_ms = 200;
    (void)check_history(*h, o);
  }
#endif
  return 0;
}
