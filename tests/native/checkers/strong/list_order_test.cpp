// List-append histories at the strong levels: a list read shows its key's append order, which
// make_problem turns into known write-write and anti-dependency edges (Elle's dependency graph),
// and the generator keeps lists short by retiring keys (generate/list_append.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "checkers/check.h"
#include "checkers/strong/internal.h"
#include "generate/list_append.h"
#include "generate/random_history.h"
#include "test_util.h"

namespace isoscope {
namespace {

struct ListOp {
  bool append;
  int64_t key, value;            // append: the value
  std::vector<int64_t> list;     // read: the list seen
};
using ListTxn = std::vector<ListOp>;

History build(const std::vector<std::vector<ListTxn>>& sessions) {
  HistoryBuilder b;
  b.set_initial(b.values().intern_int(0));
  std::vector<uint32_t> vals;
  for (const auto& s : sessions) {
    b.begin_session();
    for (const ListTxn& t : s) {
      b.begin_txn();
      for (const ListOp& o : t) {
        const uint32_t key = b.keys().intern_int(o.key);
        if (o.append) {
          b.append(key, b.values().intern_int(o.value));
        } else {
          vals.clear();
          for (int64_t v : o.list) vals.push_back(b.values().intern_int(v));
          b.list_read(key, vals);
        }
      }
      b.end_txn();
    }
  }
  Expected<History> h = b.finish("test");
  EXPECT_TRUE(h.ok());
  return std::move(*h);
}

// Serializability of a list-append history by brute force: some order of the transactions
// (session order kept) whose serial execution gives every read its list.
bool serializable_by_brute_force(const std::vector<std::vector<ListTxn>>& sessions) {
  std::vector<std::pair<uint32_t, uint32_t>> txns;  // (session, index)
  for (uint32_t s = 0; s < sessions.size(); ++s)
    for (uint32_t i = 0; i < sessions[s].size(); ++i) txns.push_back({s, i});
  std::vector<uint32_t> perm(txns.size());
  std::iota(perm.begin(), perm.end(), 0u);
  do {
    std::vector<uint32_t> next(sessions.size(), 0);
    bool ok = true;
    std::map<int64_t, std::vector<int64_t>> lists;
    for (uint32_t k = 0; k < perm.size() && ok; ++k) {
      const auto [s, i] = txns[perm[k]];
      if (next[s]++ != i) ok = false;
      for (const ListOp& o : sessions[s][i]) {
        if (!ok) break;
        if (o.append) lists[o.key].push_back(o.value);
        else ok = lists[o.key] == o.list;
      }
    }
    if (ok) return true;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return false;
}

// Session order puts T1's append of 1 before T2's append of 2; T3 reads [2 1]. As registers
// (T3 reads 1 from T1) the history serializes (T1 T3 T2); as lists it does not.
TEST(ListOrder, TheOrderALongListShowsBindsEveryStrongLevel) {
  const History h = build({{{{true, 1, 1, {}}}, {{true, 1, 2, {}}}},
                           {{{false, 1, 0, {2, 1}}}}});
  for (Level l : {Level::PC, Level::SI, Level::SER}) EXPECT_EQ(verdict(h, l), Verdict::Fail) << level_name(l);
  CheckOptions o;
  o.levels = {Level::SER};
  const LevelResult r = check_history(h, o).results[static_cast<int>(Level::SER)];
  ASSERT_FALSE(r.anomalies.empty());
  EXPECT_NE(r.anomalies[0].explanation.find("append comes before"), std::string::npos) << r.anomalies[0].explanation;
}

// Random small list-append histories, half of them disturbed (two transactions' appends
// swapped in a list, a list shortened or given an element too many): SER agrees with the brute
// force on every one.
TEST(ListOrder, SerAgreesWithBruteForceOnRandomListHistories) {
  size_t fails = 0, passes = 0;
  for (uint64_t seed = 1, n = scaled(3000); seed <= n; ++seed) {
    Rng rng(seed);
    const uint32_t ns = 1 + rng.below(3), nt = 2 + rng.below(5), keys = 1 + rng.below(2);
    // A serial execution: transactions in a random interleaving of the sessions.
    std::vector<std::vector<ListTxn>> sessions(ns);
    std::map<int64_t, std::vector<int64_t>> lists;
    int64_t value = 1;
    std::vector<uint32_t> appended_by = {0};  // value -> transaction
    for (uint32_t t = 0; t < nt; ++t) {
      ListTxn txn;
      std::map<int64_t, std::vector<int64_t>> own = lists;
      for (uint32_t k = 1 + rng.below(3); k-- > 0;) {
        const int64_t key = rng.below(keys);
        if (rng.chance(0.5)) {
          txn.push_back({true, key, value, {}});
          appended_by.push_back(t);
          own[key].push_back(value++);
        } else {
          txn.push_back({false, key, 0, own[key]});
        }
      }
      for (const ListOp& o : txn)
        if (o.append) lists[o.key].push_back(o.value);
      sessions[rng.below(ns)].push_back(std::move(txn));
    }
    std::erase_if(sessions, [](const auto& s) { return s.empty(); });
    if (rng.chance(0.5)) {  // disturb one read
      std::vector<ListOp*> reads;
      for (auto& s : sessions)
        for (auto& t : s)
          for (auto& o : t)
            if (!o.append && !o.list.empty()) reads.push_back(&o);
      if (!reads.empty()) {
        std::vector<int64_t>& l = reads[rng.below(static_cast<uint32_t>(reads.size()))]->list;
        const uint32_t what = rng.below(3);
        // (Swapped appends are of two transactions: one transaction's appends out of their
        // program order are not what this test is about.)
        if (what == 0 && l.size() > 1 && appended_by[l[0]] != appended_by[l[1]]) std::swap(l[0], l[1]);
        else if (what == 1) l.pop_back();
        else if (value > 1) l.push_back(1 + rng.below(static_cast<uint32_t>(value - 1)));
      }
    }
    const History h = build(sessions);
    if (h.num_txns() > 9) continue;
    const bool expected = serializable_by_brute_force(sessions);
    (expected ? passes : fails)++;
    EXPECT_EQ(verdict(h, Level::SER), expected ? Verdict::Pass : Verdict::Fail) << "seed " << seed;
  }
  EXPECT_GT(fails, scaled_threshold(300));
  EXPECT_GT(passes, scaled_threshold(300));
}

// Keys are retired after kMaxAppendsPerKey appends: 20 sessions x 200 transactions on 8 keys
// read lists of at most that many elements plus the reader's own (without, of thousands), and
// the strong levels pass by the order the lists give.
TEST(ListOrder, GeneratedListsStayShortAndPassByTheirOrder) {
  GenParams p;
  p.seed = 3;
  p.sessions = 20;
  p.txns_per_session = 200;
  p.keys = 8;
  Expected<History> h = generate_list_append_history(p);
  ASSERT_TRUE(h.ok());
  size_t longest = 0;
  for (const ListSpan& l : h->lists) longest = std::max<size_t>(longest, l.size);
  EXPECT_LE(longest, kMaxAppendsPerKey + p.max_ops);
  EXPECT_GT(h->keys.size(), 100u);
  const strong::Instance in = strong::make_instance(*h);
  const strong::Problem pr = strong::make_problem(in, Level::SER, false);
  const std::vector<uint32_t> order = strong::known_order(pr);
  ASSERT_EQ(order.size(), pr.n);
  EXPECT_TRUE(strong::verify_order(pr, {}, order));
}

}  // namespace
}  // namespace isoscope
