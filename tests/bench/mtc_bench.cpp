// The mini-transaction checkers (checkers/mtc) on generated histories, native, against the
// general strong checkers (checkers/strong) on the same histories.
//
//   isoscope_bench --benchmark_filter=Mtc
//
// Histories (generate/mt_history.h):
//   mt1m    1M mini-transactions, 100 sessions, 10k keys (uniform), Serial engine with
//           timestamps: SER, SI and SSER all hold, so every checker does all of its work
//   lwt1m   1M lightweight operations (reads and compare-and-sets, inserts creating the keys),
//           100 sessions, 10k keys: linearizable
//   lwt1m_rw the same without inserts: reads and read&writes only, so it is also an MT history
//           and SSER (MT path) can be compared with LIN
// General-search rows run with a 60 s budget (verdict counter: 1 pass, 0 fail, -1 unknown).
#include <benchmark/benchmark.h>

#include <map>

#include "checkers/mtc/mtc.h"
#include "checkers/strong/strong.h"
#include "generate/mt_history.h"

using namespace isoscope;

namespace {

const History& mt_history(uint32_t txns) {
  static std::map<uint32_t, History> cache;
  auto it = cache.find(txns);
  if (it != cache.end()) return it->second;
  MtGenParams p;
  p.seed = 42;
  p.sessions = 100;
  p.txns_per_session = txns / 100;
  p.key.keys = 10000;
  p.timestamps = true;
  return cache.emplace(txns, std::move(*generate_mt_history(p))).first->second;
}

const History& lwt_history(uint32_t ops, bool inserts) {
  static std::map<std::pair<uint32_t, bool>, History> cache;
  auto it = cache.find({ops, inserts});
  if (it != cache.end()) return it->second;
  LwtGenParams p;
  p.seed = 43;
  p.sessions = 100;
  p.ops_per_session = ops / 100;
  p.key.keys = 10000;
  p.inserts = inserts;
  return cache.emplace(std::pair{ops, inserts}, std::move(*generate_lwt_history(p))).first->second;
}

double verdict_code(Verdict v) { return v == Verdict::Pass ? 1 : v == Verdict::Fail ? 0 : -1; }

template <LevelResult (*Fn)(const History&, const CheckBudget&)>
void run(benchmark::State& state, const History& h, double budget_ms) {
  Verdict v = Verdict::Unknown;
  for (auto _ : state) {
    CheckBudget b;
    b.deadline_ms = budget_ms > 0 ? now_ms() + budget_ms : 0;
    v = Fn(h, b).verdict;
    benchmark::DoNotOptimize(v);
  }
  state.counters["verdict"] = verdict_code(v);
  state.counters["txns"] = static_cast<double>(h.num_txns());
}

}  // namespace

static void BM_Mtc_SER_mt(benchmark::State& s) { run<check_ser_mt>(s, mt_history(s.range(0)), 0); }
static void BM_Mtc_SI_mt(benchmark::State& s) { run<check_si_mt>(s, mt_history(s.range(0)), 0); }
static void BM_Mtc_SSER_mt(benchmark::State& s) { run<check_sser_mt>(s, mt_history(s.range(0)), 0); }
static void BM_Mtc_General_SER(benchmark::State& s) { run<check_ser>(s, mt_history(s.range(0)), 60000); }
static void BM_Mtc_General_SI(benchmark::State& s) { run<check_si>(s, mt_history(s.range(0)), 60000); }
static void BM_Mtc_General_SSER(benchmark::State& s) { run<check_sser>(s, mt_history(s.range(0)), 60000); }
static void BM_Mtc_LIN_lwt(benchmark::State& s) { run<check_lin>(s, lwt_history(s.range(0), true), 0); }
static void BM_Mtc_LIN_lwt_rw(benchmark::State& s) { run<check_lin>(s, lwt_history(s.range(0), false), 0); }
static void BM_Mtc_SSER_mt_lwt_rw(benchmark::State& s) {
  run<check_sser_mt>(s, lwt_history(s.range(0), false), 0);
}
static void BM_Mtc_General_SSER_lwt(benchmark::State& s) {
  run<check_sser>(s, lwt_history(s.range(0), true), 60000);
}

BENCHMARK(BM_Mtc_SER_mt)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mtc_SI_mt)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mtc_SSER_mt)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mtc_LIN_lwt)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mtc_LIN_lwt_rw)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mtc_SSER_mt_lwt_rw)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Mtc_General_SER)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Mtc_General_SI)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Mtc_General_SSER)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Mtc_General_SSER_lwt)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond)->Iterations(1);
