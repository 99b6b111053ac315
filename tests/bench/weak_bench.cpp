// The weak checkers (RC, RR, RA, CC) on generated histories of 1M operations, native.
// Reports time per check and the peak heap the check allocates on top of the history
// (counted by a global operator new/delete hook: `peak_MB`).
//
//   isoscope_bench --benchmark_filter=Weak
//
// Histories (generate/random_history.h, 10k keys, uniform, 1-15 ops per transaction, 50% reads):
//   serial  every level holds, so each checker does all its work (no early cycle)
//   random  stale and wild reads: anomalies at every level
//   causal  causally consistent views (CC holds)
// and `txns1m`: 1M single-or-two-op transactions in 1000 sessions (CC's clock memory).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>

#include "checkers/weak/weak.h"
#include "generate/random_history.h"

using namespace isoscope;

// ---- heap accounting ------------------------------------------------------------------------

namespace {
std::atomic<int64_t> g_live{0}, g_peak{0};
void note_alloc(void* p) {
  if (!p) return;
  int64_t now = g_live.fetch_add(static_cast<int64_t>(malloc_usable_size(p))) +
                static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}
void note_free(void* p) {
  if (p) g_live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
}
}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) std::abort();
  note_alloc(p);
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept {
  note_free(p);
  std::free(p);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, size_t) noexcept { operator delete(p); }
void operator delete[](void* p, size_t) noexcept { operator delete(p); }

// ---- histories ------------------------------------------------------------------------------

namespace {

enum Kind { kSerial, kRandom, kCausal, kTxns1M };

const History& history(Kind kind, uint32_t sessions) {
  static std::map<std::pair<int, uint32_t>, History> cache;
  auto key = std::make_pair(static_cast<int>(kind), sessions);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  GenParams p;
  p.seed = 42;
  p.sessions = sessions;
  p.keys = 10000;
  p.min_ops = 1;
  p.max_ops = 15;
  p.read_ratio = 0.5;
  p.txns_per_session = 1000000 / 8 / sessions;  // ~1M operations
  switch (kind) {
    case kSerial: p.mode = GenMode::Serial; break;
    case kRandom:
      p.mode = GenMode::Random;
      p.stale_ratio = 0.05;
      p.wild_ratio = 0.001;
      break;
    case kCausal: p.mode = GenMode::Causal; p.sync_ratio = 0.2; break;
    case kTxns1M:
      p.mode = GenMode::Serial;
      p.txns_per_session = 1000000 / sessions;
      p.max_ops = 2;
      break;
  }
  Expected<History> h = generate_history(p);
  if (!h) std::abort();
  return cache.emplace(key, std::move(*h)).first->second;
}

template <LevelResult (*Check)(const History&, const CheckBudget&)>
void BM_Weak(benchmark::State& state) {
  const Kind kind = static_cast<Kind>(state.range(0));
  const uint32_t sessions = static_cast<uint32_t>(state.range(1));
  const History& h = history(kind, sessions);
  CheckBudget budget;
  int64_t peak = 0;
  Verdict v = Verdict::Unknown;
  size_t anomalies = 0;
  for (auto _ : state) {
    const int64_t base = g_live.load();
    g_peak.store(base);
    LevelResult r = Check(h, budget);
    peak = std::max(peak, g_peak.load() - base);
    v = r.verdict;
    anomalies = r.anomalies_total;
    benchmark::DoNotOptimize(r);
  }
  state.counters["ops"] = static_cast<double>(h.num_ops());
  state.counters["txns"] = static_cast<double>(h.num_txns());
  state.counters["peak_MB"] = static_cast<double>(peak) / 1e6;
  state.counters["history_MB"] = static_cast<double>(h.memory_bytes()) / 1e6;
  state.counters["fail"] = v == Verdict::Fail ? 1 : 0;
  state.counters["anomalies"] = static_cast<double>(anomalies);
}

void args(benchmark::internal::Benchmark* b) {
  for (int kind : {kSerial, kRandom, kCausal})
    for (int sessions : {100, 1000}) b->Args({kind, sessions});
  b->Unit(benchmark::kMillisecond)->MinTime(1.0);
}

}  // namespace

BENCHMARK(BM_Weak<check_rc>)->Name("Weak/RC")->Apply(args);
BENCHMARK(BM_Weak<check_rr>)->Name("Weak/RR")->Apply(args);
BENCHMARK(BM_Weak<check_ra>)->Name("Weak/RA")->Apply(args);
BENCHMARK(BM_Weak<check_cc>)->Name("Weak/CC")->Apply(args);
BENCHMARK(BM_Weak<check_cc>)
    ->Name("Weak/CC/txns1m")
    ->Args({kTxns1M, 1000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
