// The anomaly vocabulary (model/anomaly_kinds.h) is the one source of names: every kind a
// checker reports on a wide spread of histories is in it, every plantable anomaly is, and each
// planted anomaly is reported under its own name at the weakest level the vocabulary gives.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "model/anomaly_kinds.h"
#include "checkers/check.h"
#include "generate/inject.h"
#include "generate/mt_history.h"
#include "generate/random_history.h"
#include "test_util.h"

using namespace isoscope;

TEST(AnomalyKinds, EveryKindHasOneRow) {
  std::set<std::string> names;
  for (const AnomalyKindInfo& k : anomaly_kinds()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name << " twice";
    EXPECT_EQ(&kind_info(k.kind), &k) << k.name;
    EXPECT_EQ(find_anomaly_kind(k.name), &k);
    EXPECT_GT(std::string(k.title).size(), 2u);
    EXPECT_GT(std::string(k.description).size(), 20u);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(AnomalyKind::LostWrite) + 1);  // the last enumerator
}

TEST(AnomalyKinds, PlantableAnomaliesUseTheVocabulary) {
  for (const InjectableAnomaly& a : injectable_anomalies()) {
    const AnomalyKindInfo* k = find_anomaly_kind(a.name);
    ASSERT_NE(k, nullptr) << a.name;
    EXPECT_EQ(k->weakest, a.weakest_failing) << a.name;
  }
}

// Every kind reported on random, causal, injected, mini-transaction, lightweight-transaction and
// single-operation histories (every level, every checker) is in the vocabulary.
TEST(AnomalyKinds, EveryReportedKindIsInTheVocabulary) {
  std::set<std::string> seen, unknown;
  int incomplete = 0;
  const std::regex txn_ref("\\bT([0-9]+)\\b");
  auto scan = [&](const History& h) {
    CheckOptions o;  // every level that applies
    const CheckReport r = check_history(h, o);
    for (int i = 0; i < kNumLevels; ++i)
      for (const Anomaly& a : r.results[i].anomalies) {
        seen.insert(name_of(a.kind));
        if (!find_anomaly_kind(name_of(a.kind))) unknown.insert(name_of(a.kind) + " (" + level_name(static_cast<Level>(i)) + ")");
        // Complete and plain: every transaction the explanation names is in the witness, and
        // no reasoning is hidden behind "otherwise a cycle follows".
        EXPECT_EQ(a.explanation.find("otherwise a cycle"), std::string::npos) << a.explanation;
        for (std::sregex_iterator m(a.explanation.begin(), a.explanation.end(), txn_ref), end; m != end; ++m) {
          const uint32_t t = static_cast<uint32_t>(std::stoul((*m)[1].str()));
          if (t != kInitialTxn && std::find(a.txns.begin(), a.txns.end(), t) == a.txns.end() && ++incomplete <= 5)
            ADD_FAILURE() << name_of(a.kind) << " at " << level_name(static_cast<Level>(i)) << " names T" << t
                          << " but does not list it: " << a.explanation;
        }
      }
  };
  for (uint64_t seed = 1, n = scaled(240); seed <= n; ++seed) {
    Rng rng(seed);
    GenParams p;
    p.seed = seed;
    p.sessions = 2 + rng.below(4);
    p.txns_per_session = 2 + rng.below(5);
    p.min_ops = 1;
    p.max_ops = seed % 4 == 0 ? 1 : 4;  // single-operation histories for the causal models
    p.keys = 2 + rng.below(4);
    p.mode = seed % 3 == 0 ? GenMode::Causal : GenMode::Random;
    p.causal_stale_ratio = seed % 6 == 0 ? 0.3 : 0;
    p.wild_ratio = 0.1;
    p.thin_air_ratio = seed % 5 == 0 ? 0.1 : 0;
    p.abort_ratio = 0.1;
    p.timestamps = seed % 2 == 0;
    p.overlap = rng.below(3);
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    scan(*h);
  }
  for (const InjectableAnomaly& a : injectable_anomalies()) {
    GenParams p;
    p.sessions = 5;
    p.txns_per_session = 6;
    p.timestamps = true;
    HistorySink sink(false);
    generate_with_anomaly(p, &a, sink);
    Expected<History> h = sink.builder().finish("generated");
    ASSERT_TRUE(h.ok());
    scan(*h);
  }
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    MtGenParams m;
    m.seed = seed;
    m.sessions = 3;
    m.txns_per_session = 6;
    m.key.keys = 3;
    m.engine = seed % 3 == 0 ? MtEngine::ReadCommitted : seed % 3 == 1 ? MtEngine::Stale : MtEngine::SnapshotIsolation;
    Expected<History> h = generate_mt_history(m);
    ASSERT_TRUE(h.ok());
    scan(*h);
    LwtGenParams l;
    l.seed = seed;
    l.sessions = 3;
    l.ops_per_session = 6;
    l.key.keys = 2;
    l.stale_ratio = 0.3;
    Expected<History> lh = generate_lwt_history(l);
    ASSERT_TRUE(lh.ok());
    scan(*lh);
  }
  EXPECT_TRUE(unknown.empty()) << [&] {
    std::string s;
    for (const std::string& k : unknown) s += k + " ";
    return s;
  }();
  EXPECT_GE(seen.size(), 15u);
}
