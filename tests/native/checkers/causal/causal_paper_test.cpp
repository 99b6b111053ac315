// The non-transactional causal models (WCC, CCv, CM) on the histories of CausalC's Fig. 1 with
// the verdicts the paper gives, and one small history per bad pattern.
#include <gtest/gtest.h>

#include <string>

#include "causal_reference.h"
#include "checkers/causal/causal.h"
#include "checkers/check.h"
#include "formats/formats.h"

using namespace isoscope;

namespace {

// Sessions of single-operation transactions: {"w x 1", "r z 0"} per process.
std::string processes(std::initializer_list<std::initializer_list<const char*>> ps, const char* extra = "") {
  std::string s = R"({"format": "isoscope/1", "initial": 0)";
  s += extra;
  s += R"(, "sessions": [)";
  bool first_p = true;
  for (auto& p : ps) {
    s += first_p ? "[" : ", [";
    first_p = false;
    bool first = true;
    for (const char* op : p) {
      char kind;
      char key[16];
      int value;
      sscanf(op, "%c %15s %d", &kind, key, &value);
      s += first ? "" : ", ";
      first = false;
      s += std::string("[[\"") + kind + "\", \"" + key + "\", " + std::to_string(value) + "]]";
    }
    s += "]";
  }
  return s + "]}";
}

struct Verdicts {
  Verdict wcc, ccv, cm;
};

bool has_kind(const LevelResult& r, const std::string& kind) {
  for (const Anomaly& a : r.anomalies)
    if (name_of(a.kind) == kind) return true;
  return false;
}

std::string kinds(const LevelResult& r) {
  std::string s;
  for (const Anomaly& a : r.anomalies) s += name_of(a.kind) + ": " + a.explanation + "\n";
  return s;
}

void expect_verdicts(const History& h, Verdicts want, const char* name) {
  CheckBudget budget;
  LevelResult wcc = check_wcc(h, budget), ccv = check_ccv(h, budget), cm = check_cm(h, budget);
  EXPECT_EQ(wcc.verdict, want.wcc) << name << " WCC\n" << kinds(wcc);
  EXPECT_EQ(ccv.verdict, want.ccv) << name << " CCv\n" << kinds(ccv);
  EXPECT_EQ(cm.verdict, want.cm) << name << " CM\n" << kinds(cm);
  // The brute-force reference agrees (these histories have at most 10 events).
  EXPECT_EQ(causal_reference_check(h, Level::WCC), want.wcc) << name;
  EXPECT_EQ(causal_reference_check(h, Level::CCv), want.ccv) << name;
  EXPECT_EQ(causal_reference_check(h, Level::CM), want.cm) << name;
  // And so does the literal evaluation of the bad patterns (CM_1: hb_o for every operation).
  EXPECT_EQ(causal_patterns_reference(h, Level::WCC, true), want.wcc) << name;
  EXPECT_EQ(causal_patterns_reference(h, Level::CCv, true), want.ccv) << name;
  EXPECT_EQ(causal_patterns_reference(h, Level::CM, true), want.cm) << name;
}

const Verdict P = Verdict::Pass, F = Verdict::Fail;

}  // namespace

// (a) CCv but not CM: p2 reads z = 0 after w(x, 2), yet reads y = 1 and so must have seen
// w(x, 1) -> w(z, 1) first (WriteHBInitRead in hb of p2's last operation).
TEST(CausalPaper, Fig1a_CCvButNotCM) {
  History h = parse_json(processes({{"w z 1", "w x 1", "w y 1"}, {"w x 2", "r z 0", "r y 1", "r x 2"}}));
  expect_verdicts(h, {P, P, F}, "Fig. 1a");
  LevelResult cm = check_cm(h, CheckBudget{});
  EXPECT_TRUE(has_kind(cm, "WriteHBInitRead")) << kinds(cm);
  ASSERT_FALSE(cm.anomalies.empty());
  const Anomaly& a = cm.anomalies[0];
  EXPECT_EQ(a.ops.size(), 2u);
  EXPECT_EQ(h.op_text(a.ops[0]), "w(z, 1)");
  EXPECT_EQ(h.op_text(a.ops[1]), "r(z, 0)");
  EXPECT_FALSE(a.edges.empty());
}

// (b) CM but not CCv: the two processes order the concurrent writes of x differently.
TEST(CausalPaper, Fig1b_CMButNotCCv) {
  History h = parse_json(processes({{"w x 1", "r x 2"}, {"w x 2", "r x 1"}}));
  expect_verdicts(h, {P, F, P}, "Fig. 1b");
  LevelResult ccv = check_ccv(h, CheckBudget{});
  EXPECT_TRUE(has_kind(ccv, "CyclicCF")) << kinds(ccv);
  ASSERT_EQ(ccv.anomalies.size(), 1u);
  EXPECT_EQ(ccv.anomalies[0].edges.size(), 2u);  // w(x,1) cf w(x,2) cf w(x,1)
  for (const AnomalyEdge& e : ccv.anomalies[0].edges) EXPECT_EQ(e.type, EdgeType::WW);
}

// (c) CC, CCv and CM.
TEST(CausalPaper, Fig1c_AllModels) {
  History h = parse_json(processes({{"w x 1", "r y 0", "w y 1", "r x 1"}, {"w x 2", "r y 0", "w y 2", "r x 2"}}));
  expect_verdicts(h, {P, P, P}, "Fig. 1c");
}

// (d) CC but neither CCv nor CM: p2 reads x = 1 then x = 2 while p1 wrote x = 1 concurrently.
TEST(CausalPaper, Fig1d_CCOnly) {
  History h = parse_json(processes({{"w x 1"}, {"w x 2", "r x 1", "r x 2"}}));
  expect_verdicts(h, {P, F, F}, "Fig. 1d");
  EXPECT_TRUE(has_kind(check_ccv(h, CheckBudget{}), "CyclicCF"));
  EXPECT_TRUE(has_kind(check_cm(h, CheckBudget{}), "CyclicHB"));
}

// (e) not CC: w(x, 1) -> w(y, 1) -> r(y, 1) -> w(x, 2) -> r(x, 2) -> r(x, 1) (WriteCORead).
TEST(CausalPaper, Fig1e_NotCC) {
  History h = parse_json(processes({{"w x 1", "w y 1"}, {"r y 1", "w x 2"}, {"r x 2", "r x 1"}}));
  expect_verdicts(h, {F, F, F}, "Fig. 1e");
  LevelResult wcc = check_wcc(h, CheckBudget{});
  ASSERT_EQ(wcc.anomalies.size(), 1u) << kinds(wcc);
  const Anomaly& a = wcc.anomalies[0];
  EXPECT_EQ(name_of(a.kind), "WriteCORead");
  ASSERT_EQ(a.ops.size(), 3u);
  EXPECT_EQ(h.op_text(a.ops[0]), "w(x, 1)");
  EXPECT_EQ(h.op_text(a.ops[1]), "w(x, 2)");
  EXPECT_EQ(h.op_text(a.ops[2]), "r(x, 1)");
  // wr edge, then w(x,1) -po-> w(y,1) -wr-> r(y,1) -po-> w(x,2), then w(x,2) -wr-> r(x,2) -po-> r(x,1).
  EXPECT_EQ(a.edges.size(), 1u + 3u + 2u);
}

TEST(CausalPaper, LatticeThroughCheckHistory) {
  History h = parse_json(processes({{"w x 1", "w y 1"}, {"r y 1", "w x 2"}, {"r x 2", "r x 1"}}));
  CheckOptions opts;
  CheckReport rep = check_history(h, opts);
  for (Level l : {Level::WCC, Level::CCv, Level::CM}) {
    EXPECT_TRUE(rep.requested[static_cast<int>(l)]) << level_name(l);
    EXPECT_EQ(rep.results[static_cast<int>(l)].verdict, Verdict::Fail) << level_name(l);
  }
  // A transactional history: n/a.
  History t = parse_json(R"({"initial": 0, "sessions": [[[["w","x",1],["w","y",1]]]]})");
  opts.levels = {Level::WCC, Level::CCv, Level::CM};
  rep = check_history(t, opts);
  for (Level l : {Level::WCC, Level::CCv, Level::CM})
    EXPECT_EQ(rep.results[static_cast<int>(l)].verdict, Verdict::NotApplicable) << level_name(l);
}

TEST(CausalPatterns, CyclicCO) {
  History h = parse_json(processes({{"r x 1", "w y 1"}, {"r y 1", "w x 1"}}));
  expect_verdicts(h, {F, F, F}, "CyclicCO");
  LevelResult r = check_wcc(h, CheckBudget{});
  ASSERT_EQ(r.anomalies.size(), 1u) << kinds(r);
  EXPECT_EQ(name_of(r.anomalies[0].kind), "CyclicCO");
  EXPECT_EQ(r.anomalies[0].edges.size(), 4u);
}

TEST(CausalPatterns, ThinAirRead) {
  History h = parse_json(processes({{"w x 1"}, {"r x 7"}}));
  expect_verdicts(h, {F, F, F}, "ThinAirRead");
  LevelResult r = check_wcc(h, CheckBudget{});
  ASSERT_EQ(r.anomalies.size(), 1u);
  EXPECT_EQ(name_of(r.anomalies[0].kind), "ThinAirRead");
  // A value only an aborted operation wrote comes from nowhere as well.
  History a = parse_json(R"({"initial": 0, "sessions": [[{"ops": [["w","x",1]], "status": "aborted"}],
                        [[["r","x",1]]]]})");
  LevelResult ra = check_wcc(a, CheckBudget{});
  EXPECT_EQ(ra.verdict, Verdict::Fail);
  ASSERT_EQ(ra.anomalies.size(), 1u);
  EXPECT_EQ(name_of(ra.anomalies[0].kind), "ThinAirRead");
  EXPECT_EQ(causal_reference_check(a, Level::WCC), Verdict::Fail);
}

TEST(CausalPatterns, WriteCOInitRead) {
  History h = parse_json(processes({{"w x 1", "w y 1"}, {"r y 1", "r x 0"}}));
  expect_verdicts(h, {F, F, F}, "WriteCOInitRead");
  LevelResult r = check_wcc(h, CheckBudget{});
  ASSERT_EQ(r.anomalies.size(), 1u) << kinds(r);
  EXPECT_EQ(name_of(r.anomalies[0].kind), "WriteCOInitRead");
  EXPECT_EQ(r.anomalies[0].edges.size(), 3u);  // w(x,1) -po-> w(y,1) -wr-> r(y,1) -po-> r(x,0)
  // CM does not repeat it as WriteHBInitRead.
  LevelResult cm = check_cm(h, CheckBudget{});
  EXPECT_FALSE(has_kind(cm, "WriteHBInitRead")) << kinds(cm);
}

TEST(CausalPatterns, CyclicHBNeedsALaterRead) {
  // CM_2's saturation must let a later read of p2 (r(x, 2)) order w(x, 1) before w(x, 2),
  // which p2's earlier read r(z, 1) has in its past, so that r(y, 1) cannot read w(y, 1):
  // w(y, 1) -po-> w(y, 2) -po-> w(x, 1) -hb-> w(x, 2) -po-> w(z, 1) -wr-> r(z, 1) -po-> r(y, 1).
  History h = parse_json(processes({{"w y 1", "w y 2", "w x 1", "w u 1"},
                               {"w x 2", "w z 1"},
                               {"r z 1", "r y 1", "r u 1", "r x 2"}}));
  expect_verdicts(h, {P, P, F}, "CyclicHB");  // CCv holds: arbitrate w(x, 1) before w(x, 2)
  LevelResult cm = check_cm(h, CheckBudget{});
  EXPECT_TRUE(has_kind(cm, "CyclicHB")) << kinds(cm);
}

TEST(CausalPatterns, EmptyAndWriteOnly) {
  History h = parse_json(processes({{"w x 1", "w x 2"}, {"w y 1"}}));
  expect_verdicts(h, {P, P, P}, "write-only");
}
