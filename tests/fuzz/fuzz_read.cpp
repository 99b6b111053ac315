// libFuzzer target: one reader (FUZZ_FORMAT; "" = detection, with zip and gzip expanded) on
// arbitrary bytes; with FUZZ_CHECK, every level is then checked on the small histories that
// parse (with a budget). Built by -DISOSCOPE_FUZZ=ON (clang); run by `npm run fuzz`.
//
// Text readers also meet an oracle, not just the sanitizers: line endings must not matter
// (issue 22, class 2, where a CR-only file lost every operation after a comment and passed).
// An input without CR is read again with each LF made CR and CRLF: both must parse or both fail
// on the same line, to the same shape of history.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"

using namespace isoscope;

namespace {

constexpr std::string_view kFormat = FUZZ_FORMAT;
constexpr bool kTextFormat = kFormat == "isoscope" || kFormat == "plume" || kFormat == "awdit-test" ||
                             kFormat == "dbcop-json" || kFormat == "dbcop-text" || kFormat == "elle";

Expected<History> read(std::string_view input) {
  std::string bytes;
  bytes.reserve(input.size() + 64);  // the JSON readers' padding, as the CLI and the wasm API give it
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
  for (std::string_view nl : {std::string_view("\r"), std::string_view("\r\n")}) {
    std::string other;
    other.reserve(input.size() * 2);
    for (char c : input) {
      if (c == '\n')
        other.append(nl);
      else
        other.push_back(c);
    }
    const Expected<History> h = read(other);
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
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Expected<History> h = read(input);
  if constexpr (kTextFormat) check_line_endings(input, h);
#ifdef FUZZ_CHECK
  if (h.ok() && h->txns.size() <= 48) {
    CheckOptions o;
    o.budget_ms = 200;
    (void)check_history(*h, o);
  }
#endif
  return 0;
}
