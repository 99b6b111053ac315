// The strong checkers (PC, SI, SER, SSER), native.
//
//   isoscope_bench --benchmark_filter=Strong
//
// StrongCorpus/<entry>   all four levels (check_strong, PC SI SER SSER) on a corpus history:
//                        the dbcop-oopsla19 histories, the PolySI PostgreSQL runs, Cobra's G2.
// StrongSessions/<lvl>/<s>  generated histories, s = 3..30 sessions x 20 txns, 6 ops, 4*s keys
//                        (Serial: every level holds; counters: search states, forced edges)
// StrongTxns/<lvl>/<t>   4 sessions x t = 25..400 txns per session
// StrongCausal/<lvl>/<s> causally consistent (usually not PC/SI/SER) histories, 1 s budget
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checkers/strong/strong.h"
#include "formats/formats.h"
#include "generate/random_history.h"

using namespace isoscope;

namespace {

#ifndef ISOSCOPE_BENCH_CORPUS
#define ISOSCOPE_BENCH_CORPUS "../shared/corpus"
#endif

constexpr Level kLevels[] = {Level::PC, Level::SI, Level::SER, Level::SSER};

void run_all_levels(benchmark::State& state, const History& h, double budget_ms) {
  size_t fails = 0, unknown = 0;
  for (auto _ : state) {
    fails = unknown = 0;
    for (Level l : kLevels) {
      CheckBudget b;
      if (budget_ms > 0) b.deadline_ms = now_ms() + budget_ms;
      StrongReport r = check_strong(h, l, b);
      fails += r.result.verdict == Verdict::Fail;
      unknown += r.result.verdict == Verdict::Unknown;
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["txns"] = static_cast<double>(h.num_txns());
  state.counters["fail_levels"] = static_cast<double>(fails);
  state.counters["unknown_levels"] = static_cast<double>(unknown);
}

Expected<History> read_history_path(const std::string& path, const std::string& format) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths, storage;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::directory_iterator(path))
      if (e.is_regular_file()) paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
  } else {
    paths.push_back(path);
  }
  storage.reserve(paths.size());
  for (const std::string& q : paths) {
    std::ifstream f(q, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    storage.push_back(ss.str());
  }
  std::vector<InputFile> files;
  for (size_t i = 0; i < paths.size(); ++i) files.push_back({paths[i], storage[i]});
  return read_history(files, format);
}

void BM_StrongCorpus(benchmark::State& state, std::string rel, std::string format) {
  const std::string path = std::string(ISOSCOPE_BENCH_CORPUS) + "/" + rel;
  if (!find_format(format)) {
    state.SkipWithError(("format " + format + " is not registered").c_str());
    return;
  }
  Expected<History> h = read_history_path(path, format);
  if (!h.ok()) {
    state.SkipWithError(("cannot read " + path + ": " + h.error().to_string()).c_str());
    return;
  }
  run_all_levels(state, *h, 0);
}

void one_level(benchmark::State& state, const GenParams& p, Level l, double budget_ms) {
  Expected<History> h = generate_history(p);
  StrongStats st;
  size_t unknown = 0;
  for (auto _ : state) {
    CheckBudget b;
    if (budget_ms > 0) b.deadline_ms = now_ms() + budget_ms;
    StrongReport r = check_strong(*h, l, b);
    st = r.stats;
    unknown = r.result.verdict == Verdict::Unknown;
    benchmark::DoNotOptimize(r);
  }
  state.counters["txns"] = static_cast<double>(h->num_txns());
  state.counters["states"] = static_cast<double>(st.states);
  state.counters["forced"] = static_cast<double>(st.forced_edges);
  state.counters["unknown"] = static_cast<double>(unknown);
}

void BM_StrongSessions(benchmark::State& state, Level l) {
  GenParams p;
  p.seed = 11;
  p.mode = GenMode::Serial;
  p.sessions = static_cast<uint32_t>(state.range(0));
  p.txns_per_session = 20;
  p.max_ops = 6;
  p.keys = 4 * p.sessions;
  p.timestamps = true;
  p.overlap = 3;
  one_level(state, p, l, 0);
}

void BM_StrongTxns(benchmark::State& state, Level l) {
  GenParams p;
  p.seed = 12;
  p.mode = GenMode::Serial;
  p.sessions = 4;
  p.txns_per_session = static_cast<uint32_t>(state.range(0));
  p.max_ops = 6;
  p.keys = 50;
  p.timestamps = true;
  p.overlap = 3;
  one_level(state, p, l, 0);
}

void BM_StrongCausal(benchmark::State& state, Level l) {
  GenParams p;
  p.seed = 13;
  p.mode = GenMode::Causal;
  p.sessions = static_cast<uint32_t>(state.range(0));
  p.txns_per_session = 20;
  p.max_ops = 6;
  p.keys = 4 * p.sessions;
  p.sync_ratio = 0.5;
  one_level(state, p, l, 1000);
}

// Reading goes through the format registry (file or directory).
struct Registrar {
  Registrar() {
    const char* entries[][2] = {
        {"dbcop-oopsla19/antidote_all_writes/3_30_20_180/hist-00000/history.bincode", "dbcop-bincode"},
        {"dbcop-oopsla19/antidote_all_writes/3_30_20_180/hist-00001/history.bincode", "dbcop-bincode"},
        {"dbcop-oopsla19/galera_all_writes/3_30_20_180/hist-00000/history.bincode", "dbcop-bincode"},
        {"dbcop-oopsla19/galera_partition_writes/3_30_20_180/hist-00000/history.bincode", "dbcop-bincode"},
        {"dbcop-oopsla19/roachdb_all_writes/3_30_20_180/hist-00000/history.bincode", "dbcop-bincode"},
        {"dbcop-oopsla19/roachdb_partition_writes/3_30_20_180/hist-00001/history.bincode", "dbcop-bincode"},
        {"dbcop-oopsla19/diy_excutions/5_45_15_1000/hist-00000/history.bincode", "dbcop-bincode"},
        {"polysi/postgres-5_100_15/hist-00000/history.bincode", "dbcop-bincode"},
        {"polysi/postgres-5_100_15/hist-00001/history.bincode", "dbcop-bincode"},
        {"polysi/postgres-5_100_15/hist-00002/history.bincode", "dbcop-bincode"},
        {"cobra/cock-G2", "cobra"},
    };
    for (auto& e : entries)
      benchmark::RegisterBenchmark(("StrongCorpus/" + std::string(e[0])).c_str(), BM_StrongCorpus,
                                   std::string(e[0]), std::string(e[1]))
          ->Unit(benchmark::kMillisecond);
    for (Level l : kLevels) {
      const std::string n = level_name(l);
      benchmark::RegisterBenchmark(("StrongSessions/" + n).c_str(), BM_StrongSessions, l)
          ->DenseRange(3, 30, 3)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("StrongTxns/" + n).c_str(), BM_StrongTxns, l)
          ->RangeMultiplier(2)
          ->Range(25, 400)
          ->Unit(benchmark::kMillisecond);
      if (l != Level::SSER)
        benchmark::RegisterBenchmark(("StrongCausal/" + n).c_str(), BM_StrongCausal, l)
            ->DenseRange(3, 30, 9)
            ->Unit(benchmark::kMillisecond)
            ->Iterations(1);
    }
  }
} registrar;

}  // namespace
