// libFuzzer target: one reader (FUZZ_FORMAT; "" = detection, with zip and gzip expanded) on
// arbitrary bytes; with FUZZ_CHECK, every level is then checked on the small histories that
// parse (with a budget). Built by -DISOSCOPE_FUZZ=ON (clang); run by `npm run fuzz`.
#include <cstdint>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"

using namespace isoscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes;
  bytes.reserve(size + 64);  // the JSON readers' padding, as the CLI and the wasm API give it
  bytes.assign(reinterpret_cast<const char*>(data), size);
  std::vector<InputFile> files(1);
  files[0].name = FUZZ_FILE_NAME;
  files[0].bytes = std::string_view(bytes.data(), size);
  files[0].padding = bytes.capacity() - size;
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
