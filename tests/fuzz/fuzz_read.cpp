// libFuzzer target: one reader (FUZZ_FORMAT; "" = detection, with zip and gzip expanded) on
// arbitrary bytes; with FUZZ_CHECK, every level is then checked on the small histories that
// parse (with a budget). With FUZZ_FOLDER, the bytes become a folder of files (split at the
// marker "\xff\xfe|", each part's first byte choosing its name from a table: Cobra logs,
// history.bincode, dot files, ...), read with detection: folder layouts, hidden files and the
// diagnosis of inputs that no reader recognises (every reader, after the memory estimate). With
// FUZZ_UNRECOGNISED, inputs that some detector recognises are skipped: the fuzzer spends its
// time on the diagnosis alone.
// Built by -DISOSCOPE_FUZZ=ON (clang); run by `npm run fuzz` (scripts/fuzz.sh).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"

using namespace isoscope;

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
#ifdef FUZZ_CHECK
  if (h.ok() && h->txns.size() <= 48) {
    CheckOptions o;
    o.budget_ms = 200;
    (void)check_history(*h, o);
  }
#endif
  return 0;
}
