// The non-transactional causal checkers (WCC, CCv, CM) on generated single-operation
// histories of 100,000 operations in 10 processes (issue 9's target: WCC and CCv under 1 s,
// CM under 5 s, native), and a 1M-operation history.
//
//   isoscope_bench --benchmark_filter=Causal
//
// Histories (generate/random_history.h, one operation per transaction, 50% reads):
//   serial  a sequential execution: every model holds, so each checker does all its work
//   causal  causally consistent views (every model holds)
//   random  stale reads (1%): every model fails, with many anomalies
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>

#include "checkers/causal/causal.h"
#include "generate/random_history.h"

using namespace isoscope;

namespace {

enum Kind { kSerial, kCausal, kRandom };

const History& causal_history(Kind kind, uint32_t ops, uint32_t processes, uint32_t keys) {
  static std::map<std::tuple<int, uint32_t, uint32_t, uint32_t>, History> cache;
  auto key = std::make_tuple(static_cast<int>(kind), ops, processes, keys);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  GenParams p;
  p.seed = 9;
  p.sessions = processes;
  p.txns_per_session = ops / processes;
  p.min_ops = p.max_ops = 1;
  p.keys = keys;
  p.read_ratio = 0.5;
  switch (kind) {
    case kSerial: p.mode = GenMode::Serial; break;
    case kCausal:
      p.mode = GenMode::Causal;
      p.sync_ratio = 0.2;
      break;
    case kRandom:
      p.mode = GenMode::Random;
      p.stale_ratio = 0.01;
      p.wild_ratio = 0;
      break;
  }
  Expected<History> h = generate_history(p);
  if (!h) std::abort();
  return cache.emplace(key, std::move(*h)).first->second;
}

template <LevelResult (*Check)(const History&, const CheckBudget&)>
void BM_Causal(benchmark::State& state) {
  const History& h = causal_history(static_cast<Kind>(state.range(0)), static_cast<uint32_t>(state.range(1)),
                                    static_cast<uint32_t>(state.range(2)), static_cast<uint32_t>(state.range(3)));
  CheckBudget budget;
  Verdict v = Verdict::Unknown;
  size_t anomalies = 0;
  for (auto _ : state) {
    LevelResult r = Check(h, budget);
    v = r.verdict;
    anomalies = r.anomalies_total;
    benchmark::DoNotOptimize(r);
  }
  state.counters["ops"] = static_cast<double>(h.num_ops());
  state.counters["fail"] = v == Verdict::Fail ? 1 : v == Verdict::Pass ? 0 : -1;
  state.counters["anomalies"] = static_cast<double>(anomalies);
}

void args(benchmark::internal::Benchmark* b) {
  for (int kind : {kSerial, kCausal, kRandom})
    for (int keys : {100, 10000}) b->Args({kind, 100000, 10, keys});
  b->Args({kSerial, 1000000, 10, 10000});
  b->Args({kCausal, 1000000, 10, 10000});
  b->Unit(benchmark::kMillisecond)->MinTime(0.5);
}

}  // namespace

BENCHMARK(BM_Causal<check_wcc>)->Name("Causal/WCC")->Apply(args);
BENCHMARK(BM_Causal<check_ccv>)->Name("Causal/CCv")->Apply(args);
BENCHMARK(BM_Causal<check_cm>)->Name("Causal/CM")->Apply(args);
