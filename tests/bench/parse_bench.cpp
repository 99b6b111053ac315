// Parse throughput of the canonical JSON format (MB/s), native, on a ~100 MB document held the
// way the CLI holds a file (with readable padding, so simdjson parses it in place). The wasm
// figure comes from tests/bench/wasm-parse-bench.mjs on the same generated text; the end-to-end
// figures of both (CLI and wasm API) are in docs/benchmarks.md (`npm run bench`).
#include <benchmark/benchmark.h>

#include <string>

#include "formats/formats.h"

using namespace isoscope;

// A random-looking but deterministic history: `sessions` sessions of transactions of 10 ops,
// reads of earlier writes, unique write values. About 25 bytes per operation.
static std::string make_history_json(size_t ops, size_t sessions) {
  std::string s = "{\"format\": \"isoscope/1\", \"initial\": 0, \"sessions\": [";
  s.reserve(ops * 26 + 1024);
  const size_t per_session = ops / sessions;
  uint64_t x = 88172645463325252ULL, next_value = 1;
  for (size_t si = 0; si < sessions; ++si) {
    s += si ? ",\n[" : "\n[";
    for (size_t i = 0; i < per_session; i += 10) {
      s += i ? ", [" : "[";
      for (size_t j = 0; j < 10; ++j) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        if (j) s += ", ";
        bool write = (x & 3) == 0;
        s += write ? "[\"w\", " : "[\"r\", ";
        s += std::to_string((x >> 8) % 10000);
        s += ", ";
        s += std::to_string(write ? next_value++ : (x >> 20) % (next_value + 1));
        s += "]";
      }
      s += "]";
    }
    s += "]";
  }
  s += "]}";
  return s;
}

static void BM_ParseCanonicalJson(benchmark::State& state) {
  static const std::string text = [] {
    std::string t = make_history_json(5'000'000, 100);
    t.reserve(t.size() + 64);
    return t;
  }();
  InputFile f{"bench.json", text, text.capacity() - text.size()};
  for (auto _ : state) {
    Expected<History> h = read_isoscope_json(std::span<const InputFile>(&f, 1));
    if (!h) state.SkipWithError(h.error().to_string().c_str());
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ParseCanonicalJson)->Unit(benchmark::kMillisecond)->MinTime(3.0);
