// Parse throughput of the importers (MB/s), native:
//   isoscope_bench --benchmark_filter=Import
// Plume: a generated ~100 MB file (1000 sessions, 10-op transactions, the sessions'
// transactions interleaved line-group by line-group as Plume/PolySI collectors write them,
// unique write values, reads of earlier values). `bytes_per_op` is History::memory_bytes()
// divided by the number of operations.
#include <benchmark/benchmark.h>

#include <string>

#include "formats/formats.h"

using namespace isoscope;

namespace {

std::string make_plume(size_t target_bytes) {
  std::string s;
  s.reserve(target_bytes + 4096);
  uint64_t x = 88172645463325252ULL;
  uint64_t next_value = 1, txn = 0;
  const size_t sessions = 1000, keys = 100000;
  char buf[96];
  while (s.size() < target_bytes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const uint64_t session = x % sessions;
    ++txn;
    for (int j = 0; j < 10; ++j) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const bool write = (x & 1) == 0;
      const uint64_t key = (x >> 8) % keys;
      const uint64_t value = write ? next_value++ : (x >> 30) % next_value;
      int n = std::snprintf(buf, sizeof buf, "%c(%llu,%llu,%llu,%llu)\n", write ? 'w' : 'r',
                            static_cast<unsigned long long>(key), static_cast<unsigned long long>(value),
                            static_cast<unsigned long long>(session), static_cast<unsigned long long>(txn));
      s.append(buf, static_cast<size_t>(n));
    }
  }
  return s;
}

void BM_ImportPlume(benchmark::State& state) {
  static const std::string text = make_plume(static_cast<size_t>(state.range(0)) << 20);
  InputFile f{"bench.txt", text};
  size_t ops = 0, mem = 0;
  for (auto _ : state) {
    Expected<History> h = read_plume(std::span<const InputFile>(&f, 1));
    if (!h) {
      state.SkipWithError(h.error().to_string().c_str());
      break;
    }
    ops = h->num_ops();
    mem = h->memory_bytes();
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["bytes_per_op"] = ops ? static_cast<double>(mem) / static_cast<double>(ops) : 0;
}
BENCHMARK(BM_ImportPlume)->Arg(100)->Unit(benchmark::kMillisecond)->MinTime(3.0);

}  // namespace
