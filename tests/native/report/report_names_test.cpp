// The report's names hold the lattice (issue 27, item 6): no anomaly of a failing level is of a
// kind that a passing level forbids; every lost update (two committed transactions that read
// one version of a key and both write it) is named under SI and above, with its exact count;
// kinds are listed most specific first, each with an example of its own kind; and a
// 3-transaction anti-dependency cycle is G2 while the 2-transaction one is a write skew.
// Over random histories, the simulator's, and histories recorded from real databases by
// `isoscope run` (tests/fixtures/db/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "checkers/check.h"
#include "checkers/cycle_names.h"
#include "checkers/strong/strong.h"
#include "generate/db_sim.h"
#include "generate/random_history.h"
#include "strong_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

bool forbids(Level level, const std::string& kind) {
  const AnomalyKindInfo* info = find_anomaly_kind(kind);
  return info && (info->weakest == level || is_weaker(info->weakest, level));
}

void expect_names_hold(const History& h, const CheckReport& report, const std::string& what) {
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i] || report.results[i].verdict != Verdict::Fail) continue;
    const LevelResult& r = report.results[i];
    const Level level = static_cast<Level>(i);
    EXPECT_FALSE(r.kinds.empty()) << what << " " << level_name(level);
    for (const KindCount& k : r.kinds) {
      EXPECT_GE(k.count, 1u);
      if (k.example != kNone) {
        ASSERT_LT(k.example, r.anomalies.size());
        EXPECT_EQ(r.anomalies[k.example].kind, k.kind);
      }
    }
    if (r.implied_by || !is_transactional(level)) continue;
    for (const Anomaly& a : r.anomalies)
      for (int j = 0; j < kNumLevels; ++j)
        if (report.requested[j] && report.results[j].verdict == Verdict::Pass && is_transactional(static_cast<Level>(j)))
          EXPECT_FALSE(forbids(static_cast<Level>(j), name_of(a.kind)))
              << what << ": " << level_name(level) << " names " << name_of(a.kind) << " though " << level_name(static_cast<Level>(j))
              << " passes: " << a.explanation;
  }
  size_t lost = 0;
  lost_updates(h, 0, lost);
  if (lost == 0) return;
  for (Level l : {Level::SI, Level::SER, Level::SSER}) {
    const LevelResult& r = report.results[static_cast<int>(l)];
    if (!report.requested[static_cast<int>(l)] || r.verdict == Verdict::NotApplicable) continue;
    EXPECT_EQ(r.verdict, Verdict::Fail) << what << ": " << lost << " lost updates, yet " << level_name(l) << " does not fail";
    bool named = false;
    for (const KindCount& k : r.kinds)
      if (k.kind == AnomalyKind::LostUpdate) {
        named = true;
        EXPECT_EQ(k.count, lost);
        EXPECT_FALSE(k.lower_bound);
      }
    EXPECT_TRUE(named) << what << ": " << level_name(l) << " does not name LostUpdate";
  }
}

// The histories the naming properties run over: `randoms` small generated ones (random and
// causal, some timed), then the database simulator's engines at 60 seeds (cobra and polysi mixes);
// both counts scaled (test_util.h), never below 12 (every combination of their shapes comes up).
template <typename Visit>
void for_each_test_history(uint64_t randoms, Visit visit) {
  for (uint64_t seed = 1, n = scaled(static_cast<int>(randoms), 12); seed <= n; ++seed) {
    GenParams p;
    p.seed = seed;
    p.sessions = 2 + seed % 3;
    p.txns_per_session = 3 + seed % 4;
    p.keys = 2 + seed % 3;
    p.mode = seed % 2 ? GenMode::Random : GenMode::Causal;
    p.timestamps = seed % 3 == 0;
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(static_cast<bool>(h));
    visit(*h, "random seed " + std::to_string(seed));
  }
  for (uint64_t seed = 1, n = scaled(60, 12); seed <= n; ++seed)
    for (DbEngine engine : {DbEngine::ReadCommitted, DbEngine::SnapshotIsolation, DbEngine::Serializable}) {
      DbSimParams p;
      p.seed = seed;
      p.engine = engine;
      p.sessions = 4;
      p.txns_per_session = 12;
      p.min_ops = 1;
      p.max_ops = 4;
      p.key.keys = 3 + seed % 4;
      parse_workload_mix(seed % 2 ? "cobra" : "polysi", p.mix);
      Expected<History> h = simulate_database(p);
      ASSERT_TRUE(static_cast<bool>(h));
      visit(*h, "db_sim seed " + std::to_string(seed));
    }
}

}  // namespace

TEST(ReportNames, GeneratedAndSimulatedHistoriesNameOnlyWhatPassingLevelsAllow) {
  for_each_test_history(400, [](const History& h, const std::string& what) { expect_names_hold(h, check_history(h, {}), what); });
}

TEST(ReportNames, RecordedHistoriesNameOnlyWhatPassingLevelsAllow) {
  const std::filesystem::path dir = std::filesystem::path(ISOSCOPE_FIXTURES) / "db";
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json" || e.path().filename() == "manifest.json") continue;
    Expected<History> h = read_path(e.path().string());
    ASSERT_TRUE(static_cast<bool>(h)) << e.path();
    expect_names_hold(*h, check_history(*h, {}), e.path().filename().string());
    ++n;
  }
  EXPECT_GE(n, 3u);
}

// The gallery's recorded histories get the verdicts their manifest states.
TEST(ReportNames, RecordedHistoriesGetTheirManifestVerdicts) {
  const std::filesystem::path dir = std::filesystem::path(ISOSCOPE_FIXTURES) / "db";
  std::ifstream in(dir / "manifest.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::regex entry("\\{\"file\": \"([^\"]+)\"[^{]*\"expect\": \\{([^}]*)\\}");
  const std::regex verdict("\"([A-Z]+)\": \"([a-z/]+)\"");
  size_t n = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it, ++n) {
    Expected<History> h = read_path((dir / (*it)[1].str()).string());
    ASSERT_TRUE(static_cast<bool>(h)) << (*it)[1];
    const CheckReport r = check_history(*h, {});
    const std::string expect = (*it)[2].str();
    for (std::sregex_iterator v(expect.begin(), expect.end(), verdict); v != end; ++v) {
      Level l;
      ASSERT_TRUE(parse_level((*v)[1].str(), l));
      EXPECT_EQ(verdict_name(r.results[static_cast<int>(l)].verdict), (*v)[2].str()) << (*it)[1] << " " << (*v)[1];
    }
    // A history recorded through crashes names its lost writes first at SSER.
    if (!h->faults.empty()) {
      const LevelResult& sser = r.results[static_cast<int>(Level::SSER)];
      ASSERT_FALSE(sser.anomalies.empty()) << (*it)[1];
      EXPECT_EQ(name_of(sser.anomalies[0].kind), "LostWrite") << (*it)[1];
    }
  }
  EXPECT_EQ(n, 6u);
}

TEST(ReportNames, AThreeTransactionAntiDependencyCycleIsG2) {
  const History h = parse_json(R"({"initial": 0, "sessions": [
    [[["r","x",0], ["w","y",1]]], [[["r","y",0], ["w","z",2]]], [[["r","z",0], ["w","x",3]]]]})");
  const CheckReport r = check_history(h, {});
  EXPECT_EQ(r.results[static_cast<int>(Level::SI)].verdict, Verdict::Pass);
  const LevelResult& ser = r.results[static_cast<int>(Level::SER)];
  ASSERT_EQ(ser.verdict, Verdict::Fail);
  EXPECT_EQ(name_of(ser.anomalies.at(0).kind), "G2");
}

TEST(ReportNames, TheTwoTransactionFormIsAWriteSkew) {
  const History h = parse_json(R"({"initial": 0, "sessions": [
    [[["r","x",0], ["r","y",0], ["w","x",1]]], [[["r","x",0], ["r","y",0], ["w","y",2]]]]})");
  const CheckReport r = check_history(h, {});
  const LevelResult& ser = r.results[static_cast<int>(Level::SER)];
  ASSERT_EQ(ser.verdict, Verdict::Fail);
  EXPECT_EQ(name_of(ser.anomalies.at(0).kind), "WriteSkew");
}

// The witness is the shortest cycle, not the first one met: a 60-transaction anti-dependency
// cycle comes first in the history (every search from its transactions meets it), a write
// skew of two transactions after it.
TEST(ReportNames, AWriteSkewIsNamedThoughALongerCycleComesFirst) {
  std::string json = R"({"initial": 0, "sessions": [)";
  const int n = 60;
  for (int i = 0; i < n; ++i)  // t_i reads k_i, t_{i+1} overwrites it: t_i -> t_{i+1}, around
    json += "[[[\"r\",\"k" + std::to_string(i) + "\",0], [\"w\",\"k" + std::to_string((i + n - 1) % n) + "\"," +
            std::to_string(i + 1) + "]]], ";
  json += R"([[["r","x",0], ["w","y",100]]], [[["r","y",0], ["w","x",101]]]]})";
  const History h = parse_json(json);
  for (Level level : {Level::SER}) {
    const StrongReport rep = check_strong(h, level, CheckBudget{});
    ASSERT_EQ(rep.result.verdict, Verdict::Fail);
    EXPECT_EQ(verify_strong_report(h, level, rep, false), "");
    const Anomaly& a = rep.result.anomalies.at(0);
    EXPECT_EQ(name_of(a.kind), "WriteSkew") << a.explanation;
    EXPECT_EQ(a.edges.size(), 2u) << a.explanation;
    EXPECT_LE(a.txns.size(), 6u);
    for (uint32_t t : a.txns) EXPECT_GE(t, static_cast<uint32_t>(n + 1)) << "the write skew's own transactions";
  }
  const CheckReport r = check_history(h, {});
  EXPECT_EQ(r.results[static_cast<int>(Level::SI)].verdict, Verdict::Pass);
  EXPECT_EQ(name_of(r.results[static_cast<int>(Level::SER)].anomalies.at(0).kind), "WriteSkew");
  expect_names_hold(h, r, "a long cycle and a write skew");
}

// Under SI too: a lost update of two transactions, though a cycle of 60 that SI forbids (no two
// anti-dependencies in a row) comes first.
TEST(ReportNames, AShortSICycleIsPreferredToALongerOne) {
  std::string json = R"({"initial": 0, "sessions": [)";
  const int n = 30;
  int v = 0;
  for (int i = 0; i < n; ++i) {  // w_i -wr-> r_i -rw-> w_{i+1}, around
    const std::string I = std::to_string(i), prev = std::to_string((i + n - 1) % n);
    const std::string va = std::to_string(++v), vm = std::to_string(++v);
    json += "[[[\"w\",\"a" + I + "\"," + va + "], [\"w\",\"m" + prev + "\"," + vm + "]]], ";
    json += "[[[\"r\",\"a" + I + "\"," + va + "], [\"r\",\"m" + I + "\",0]]], ";
  }
  json += R"([[["r","x",0], ["w","x",1000]]], [[["r","x",0], ["w","x",1001]]]]})";
  const History h = parse_json(json);
  const StrongReport rep = check_strong(h, Level::SI, CheckBudget{});
  ASSERT_EQ(rep.result.verdict, Verdict::Fail);
  EXPECT_EQ(verify_strong_report(h, Level::SI, rep, false), "");
  const Anomaly& a = rep.result.anomalies.at(0);
  EXPECT_EQ(name_of(a.kind), "LostUpdate") << a.explanation;
  for (uint32_t t : a.txns) EXPECT_GT(t, static_cast<uint32_t>(2 * n)) << a.explanation;
}

TEST(ReportNames, LostUpdatesAreCountedExactly) {
  const History h = parse_json(R"({"initial": 0, "sessions": [
    [[["r","x",0], ["w","x",1]]], [[["r","x",0], ["w","x",2]]], [[["r","x",0], ["w","x",3]]],
    [[["r","y",0], ["w","y",4]]]]})");
  const CheckReport r = check_history(h, {});
  const LevelResult& si = r.results[static_cast<int>(Level::SI)];
  ASSERT_EQ(si.verdict, Verdict::Fail);
  ASSERT_FALSE(si.kinds.empty());
  EXPECT_EQ(name_of(si.kinds[0].kind), "LostUpdate");
  EXPECT_EQ(si.kinds[0].count, 2u);  // the second and the third reader each lose the first's update
  EXPECT_FALSE(si.kinds[0].lower_bound);
  expect_names_hold(h, r, "three readers of x");
}

// A lost update is found by the reads alone, before any polygraph (saturation took minutes on
// 10^5 such transactions, the solver ran out of memory): SI, SER fail with the planted pair,
// PC (which allows lost updates) passes. A reader that writes its key before reading it reads its
// own write: no lost update.
TEST(ReportNames, LostUpdatesAreFoundBeforeAnyPolygraph) {
  const History h = planted_history("LostUpdate", 50, 40);
  for (Level l : {Level::SI, Level::SER}) {
    const StrongReport rep = check_strong(h, l, CheckBudget{});
    ASSERT_EQ(rep.result.verdict, Verdict::Fail) << level_name(l);
    EXPECT_EQ(rep.stats.nodes, 0u) << level_name(l) << ": a polygraph was built";
    const Anomaly& a = rep.result.anomalies.at(0);
    EXPECT_EQ(name_of(a.kind), "LostUpdate") << a.explanation;
    EXPECT_EQ(a.txns.size(), 2u) << a.explanation;
    EXPECT_EQ(verify_strong_report(h, l, rep, false), "");
  }
  EXPECT_EQ(check_strong(h, Level::PC, CheckBudget{}).result.verdict, Verdict::Pass);
  const History own = parse_json(R"({"initial": 0, "sessions": [
    [[["r","x",0], ["w","x",1]]], [[["w","x",2], ["r","x",2], ["w","x",3]]]]})");
  EXPECT_EQ(check_strong(own, Level::SER, CheckBudget{}).result.verdict, Verdict::Pass);
}

// The web page decides one level at a time (decide_level, in check_order: SER before SI and PC).
// Its names must be those of check_history, which names every level once all are decided: no
// failing level's anomaly may be of a kind that a level decided after it (passing) forbids.
TEST(ReportNames, LevelByLevelNamesAreTheWholeCheck) {
  size_t compared = 0;
  auto compare = [&](const History& h, const std::string& what) {
    const CheckReport whole = check_history(h, {});
    CheckReport one;
    for (Level l : check_order(h))
      if (whole.requested[static_cast<int>(l)]) decide_level(h, l, {}, one);
    for (int i = 0; i < kNumLevels; ++i) {
      if (!whole.requested[i] || whole.results[i].verdict != Verdict::Fail) continue;
      ++compared;
      std::vector<std::string> a, b;
      for (const Anomaly& x : whole.results[i].anomalies) a.push_back(name_of(x.kind));
      for (const Anomaly& x : one.results[i].anomalies) b.push_back(name_of(x.kind));
      EXPECT_EQ(a, b) << what << " " << level_name(static_cast<Level>(i));
    }
    expect_names_hold(h, one, what + " (level by level)");
  };
  for_each_test_history(200, compare);
  EXPECT_GT(compared, 100u);
}
