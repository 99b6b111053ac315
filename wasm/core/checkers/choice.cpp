// Deciding a level over the choices of reads-from of ambiguous reads (see choice.h).
#include "checkers/choice.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <unordered_map>

#include "checkers/causal/causal.h"
#include "checkers/check.h"
#include "checkers/concurrent_schedule.h"
#include "checkers/counterexample.h"
#include "checkers/explain.h"
#include "checkers/read_consistency.h"
#include "checkers/serial_schedule.h"
#include "checkers/strong/strong.h"
#include "checkers/weak/weak.h"
#include "graph/digraph.h"
#include "model/anomaly_kinds.h"

namespace isoscope {

namespace {

// A failure shown by one anomaly.
LevelResult failure_of(Anomaly a) {
  LevelResult r;
  r.verdict = Verdict::Fail;
  r.anomalies.push_back(std::move(a));
  r.anomalies_total = 1;
  return r;
}

// The level's checker for a history whose reads are resolved (no ambiguous reads: the fast
// paths). The mini-transaction checkers rely on unique values and are not used here.
LevelChecker resolved_checker(Level l) { return checker_for(l, /*general_only=*/true); }

// How many of a failing check's anomalies become nogoods (each costs a check of its small
// projection).
constexpr size_t kLearnPerCheck = 256;

// An ambiguous read that matters: its transaction may commit, and it has a choice.
struct Var {
  uint32_t amb;   // index in History::ambiguous
  uint32_t op, txn;
  uint32_t mine;  // the reader's last write to the key before the read, or kNone
  uint32_t first[2];  // the preferred candidate in each phase (Chooser::rank)
  uint32_t valid;  // how many candidates are read consistent (after the session-order prune)
};

// How far the schedule searches go: a short search before the solver, a thorough one after it.
enum class SearchEffort : uint8_t { Short, Thorough };

// A nested check of a witness's sub-history goes no deeper (it reports its own first anomaly).
thread_local int g_witness_depth = 0;

class Chooser {
 public:
  Chooser(const History& h, Level level, const CheckBudget& budget, bool solver_only = false)
      : h_(h), level_(level), budget_(budget), solver_only_(solver_only), is_last_(last_writes_in_txn(h)), work_(h) {
    work_.ambiguous = AmbiguousReads{};
    budget_.cc_holds = false;  // CC holding for SOME choice says nothing of this one
    budget_.cc_unknown = false;
    // The memo is the checked history's (h); the checks of work_ and of projections have none.
    if (budget.memo && (!budget.memo->history || budget.memo->history == &h)) memo_ = budget.memo;
    budget_.memo = nullptr;
  }

  LevelResult run();

 private:
  // Whether candidate w of read r (of transaction t) can be chosen at all.
  bool consistent(const Var& v, uint32_t w) const {
    return is_consistent(classify_candidate(h_, is_last_, v.txn, v.op, w, v.mine));
  }
  // A later transaction of the reader's own session: reading from it closes a cycle with so.
  bool after_in_session(uint32_t t, uint32_t w) const {
    const uint32_t u = h_.candidate_txn(w);
    return u != kInitialTxn && u != t && h_.txns[u].session == h_.txns[t].session && h_.txns[u].index > h_.txns[t].index;
  }
  // Preference of candidate w for read v (lower first), in one of two guesses of what the
  // database served: phase 0, the snapshot at the reader's start (the latest writer to end
  // before it; what serializable and snapshot engines serve); phase 1, the latest value when
  // the read ran (its time interpolated by its place in the transaction; read committed).
  // Then writers that overlap the reader, the initial transaction, and last whatever real time
  // or session order makes implausible. Its own transaction always comes first.
  std::pair<int, double> rank(const Var& v, uint32_t w, int phase) const {
    const uint32_t u = h_.candidate_txn(w);
    const Txn& t = h_.txns[v.txn];
    if (u == v.txn) return {0, 0};
    if (u != kInitialTxn && h_.txns[u].session == t.session && h_.txns[u].index > t.index) return {9, 0};
    if (t.has_time()) {
      if (u == kInitialTxn) return {1, HUGE_VAL};
      if (h_.txns[u].has_time()) {  // (a guess: approximate times do)
        const double ts = start_[v.txn], te = end_[v.txn];
        const double xs = start_[u], xe = end_[u];
        const double at = phase == 0 ? ts : ts + (te - ts) * (v.op - t.op_begin + 1) / (t.size() + 1);
        if (xe <= at) return {1, -xe};
        if (xs <= te) return {3, xe};
        return {8, xs};
      }
    }
    if (u == kInitialTxn) return {5, 0};
    const Txn& x = h_.txns[u];
    if (x.session == t.session) return {4, -static_cast<double>(x.index)};
    return {6, static_cast<double>(u)};
  }
  static constexpr int kPhases = 2;
  static constexpr double kFirstSliceMs = 1000;  // first_slice's without a deadline
  // A read with many candidates (values repeated thousands of times) and a time: its first
  // choices as rank's order gives them, found among its candidates sorted by end (per candidate
  // group, once) instead of ranking every one (reads x candidates), and valid only told >= 2.
  // False (v untouched) when the search cannot tell: then every candidate is ranked.
  static constexpr size_t kFewCandidates = 32;
  bool first_by_time(Var& v, std::span<const uint32_t> cands);
  std::unordered_map<uint32_t, std::vector<std::pair<double, uint32_t>>> by_end_;  // group -> (end, candidate)
  std::vector<uint32_t> domain(const Var& v) const;
  // The candidates of v that can be chosen at all (domain's, unordered).
  std::vector<uint32_t> choosable(const Var& v) const;
  std::vector<double> start_, end_;  // per transaction with a time: its times, approximated
  // Phase 1's first choice, refined: each read reads the version current at some moment of its
  // transaction, moments increasing with the reads (a read committed engine's reads).
  void sweep_read_committed();
  void apply();
  History project(const std::vector<char>& in_s);
  // The nogood a failing anomaly justifies (false: none could be justified short of the
  // whole choice).
  bool learn_from(const Anomaly& a, std::vector<std::pair<uint32_t, uint32_t>>& lits);
  void whole_choice(std::vector<std::pair<uint32_t, uint32_t>>& lits) const;
  bool next_choice();
  Anomaly annotate(Anomaly a, const std::vector<std::pair<uint32_t, uint32_t>>& lits) const;
  // The strong levels: the choice inside the polygraph solver (strong.h, decide_choices).
  // True when it decided (out is the result).
  bool solver_applies() const;
  bool decide_in_solver(LevelResult& out, const Anomaly& best,
                        const std::vector<std::pair<uint32_t, uint32_t>>& best_lits);
  bool core_witness(const std::vector<char>& core, Anomaly& a);
  // The history less every read with a choice fails on its own: then every choice fails (each
  // level here is closed under dropping reads), with that anomaly, which needs no choice.
  bool fixed_reads_fail(LevelResult& out);
  // Its commit order when it passes (h_'s transaction ids): a solution of every read but those
  // with a choice, the solver's first candidate order.
  std::vector<uint32_t> fixed_order_;
  // SI, SER and SSER: the read-modify-write transactions of a key cannot each be given a
  // distinct writer to read from (a Hall condition; see the definition). Then every choice
  // fails, with a lost update among them.
  bool updates_outnumber_versions(LevelResult& out);
  // RR and every level from RA up: two reads of a key before the transaction writes it whose
  // candidate writers have none in common. Then every choice fails.
  bool reads_cannot_repeat(LevelResult& out);
  // SER and SSER: a serial schedule found by search over the keys' values
  // (serial_schedule.h), its reads-from checked by the level's own checker.
  bool schedule_passes(LevelResult& out, SearchEffort effort);
  bool unlimited() const;  // no deadline: a share of the time left is all of it
  // The budget of a first attempt that a thorough search should follow when it fails: a share
  // of the time left, or without a deadline kFirstSliceMs (else the search would never come).
  CheckBudget first_slice(double fraction) const;
  // RC..SI: the run of a snapshot-isolation engine (read committed for RC) found by search
  // over the keys' values (concurrent_schedule.h), its reads-from checked by the level's own
  // checker.
  // A first search is short (it costs little when it fails); a thorough one comes after the
  // solver has had half the time left.
  bool concurrent_schedule_passes(LevelResult& out, SearchEffort effort);
  // The steps a schedule search may take (each dead end remembers 16 bytes; a million take
  // about a second), and past how many it stops if it never placed half the transactions
  // (a short search stuck that far from the end fails: on VeriStrong's histories but
  // twitter-1k, placed in one step each, it never got past 45%). thorough_base: what a
  // thorough search gets beyond 256 steps per transaction.
  struct SearchLimits {
    size_t max_steps, stall_steps;
  };
  SearchLimits search_limits(SearchEffort effort, size_t thorough_base) const;
  const ConcurrentSchedule& concurrent_schedule(ScheduleModel model, SearchLimits limits);
  // A pass whose witness is a commit order found and checked here (committed transactions).
  static LevelResult pass_in_order(const std::vector<uint32_t>& order);
  LevelMemo* memo_ = nullptr;                              // the check's, when it is of h_
  std::shared_ptr<const ConcurrentSchedule> schedule_;     // the last search's (without a memo)
  // The writer transactions read op o (of committed transaction t) may read from, sorted.
  std::vector<uint32_t> writer_txns(uint32_t t, uint32_t o);
  // Whether the projection on keep, less the reads in drop, fails on its own (decided as a
  // history of its own); a is then its anomaly in h_'s ids. When it passes with a commit
  // order, pass_order (if given) receives it in h_'s ids.
  bool projection_fails(const std::vector<char>& keep, const std::vector<char>& drop, Anomaly& a,
                        std::vector<uint32_t>* pass_order = nullptr);
  // SSER: drops from d (candidates of v) those real time rules out.
  void prune_by_real_time(const Var& v, std::vector<uint32_t>& d);
  // The strong levels: drops from doms[i] (candidates of vars_[i], empty for the reads without
  // a choice) those the known edges rule out (see the definition); a domain left with one
  // candidate makes its edge known and the pruning goes again.
  void prune_by_reachability(std::vector<std::vector<uint32_t>>& doms);
  std::vector<std::vector<std::pair<Time, Time>>> writers_by_end_;  // per key: (end, max start so far)
  // The committed transactions that write each key, each once, ascending (built on first use).
  const std::vector<std::vector<uint32_t>>& committed_writers();
  std::vector<std::vector<uint32_t>> committed_writers_;

  const History& h_;
  Level level_;
  CheckBudget budget_;
  bool solver_only_;  // tests: the solver decides at once (no first guess)
  std::vector<char> is_last_;
  History work_;                // h_ with the current choice in read_from
  std::vector<Var> vars_;
  std::unordered_map<uint32_t, uint32_t> var_of_op_;  // read op -> its index in vars_
  std::vector<uint32_t> fixed_op_, fixed_w_;  // reads with one candidate that counts
  std::vector<uint32_t> cur_;   // the current choice, per var
  std::vector<uint32_t> best_cur_;  // the choice of the failure reported
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> nogoods_;  // (var, candidate)
  std::unordered_map<uint32_t, std::vector<uint32_t>> domains_;      // of the vars in nogoods
  size_t tried_ = 0;
  int phase_ = 0;  // the guess the domains are ordered by
};

std::vector<uint32_t> Chooser::choosable(const Var& v) const {
  std::vector<uint32_t> d;
  for (uint32_t w : h_.ambiguous.candidates_at(v.amb))
    if (consistent(v, w)) d.push_back(w);
  if (std::any_of(d.begin(), d.end(), [&](uint32_t w) { return !after_in_session(v.txn, w); }))
    d.erase(std::remove_if(d.begin(), d.end(), [&](uint32_t w) { return after_in_session(v.txn, w); }), d.end());
  return d;
}

bool Chooser::first_by_time(Var& v, std::span<const uint32_t> cands) {
  const Txn& t = h_.txns[v.txn];
  if (!t.has_time()) return false;
  // Two choosable candidates (not later in the reader's session: choosable keeps those only
  // when every candidate is).
  uint32_t found = 0;
  for (uint32_t w : cands)
    if (consistent(v, w) && !after_in_session(v.txn, w) && ++found == 2) break;
  if (found < 2) return false;
  v.valid = 2;  // (at least)
  // Rank 0: a write of its own transaction (the first in candidate order).
  for (uint32_t w : cands)
    if (h_.candidate_txn(w) == v.txn && consistent(v, w)) {
      v.first[0] = v.first[1] = w;
      return true;
    }
  std::vector<std::pair<double, uint32_t>>& e = by_end_[h_.ambiguous.group[v.amb]];
  if (e.empty()) {
    for (uint32_t w : cands)
      if (const uint32_t u = h_.candidate_txn(w); u != kInitialTxn && h_.txns[u].has_time()) e.push_back({end_[u], w});
    std::sort(e.begin(), e.end());
  }
  const double ts = start_[v.txn], te = end_[v.txn];
  for (int ph = 0; ph < kPhases; ++ph) {
    // Rank 1: the latest end at or before the moment (the first candidate among equal ends),
    // then the initial value.
    const double at = ph == 0 ? ts : ts + (te - ts) * (v.op - t.op_begin + 1) / (t.size() + 1);
    auto it = std::upper_bound(e.begin(), e.end(), at,
                               [](double a, const std::pair<double, uint32_t>& x) { return a < x.first; });
    uint32_t best = kNone;
    double best_end = 0;
    while (it != e.begin()) {
      --it;
      if (best != kNone && it->first != best_end) break;
      if (!consistent(v, it->second) || after_in_session(v.txn, it->second)) continue;
      best = it->second, best_end = it->first;  // (equal ends: the lower candidate last)
    }
    if (best == kNone && cands.back() == kReadsInitial && consistent(v, kReadsInitial)) best = kReadsInitial;
    if (best == kNone) return false;
    v.first[ph] = best;
  }
  return true;
}

std::vector<uint32_t> Chooser::domain(const Var& v) const {
  std::vector<uint32_t> d = choosable(v);
  std::vector<std::pair<std::pair<int, double>, uint32_t>> ranked;  // (each rank computed once)
  ranked.reserve(d.size());
  for (uint32_t w : d) ranked.push_back({rank(v, w, phase_), w});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < d.size(); ++i) d[i] = ranked[i].second;
  return d;
}

// A read committed engine serves each read the latest version committed when the read runs, at
// some moment inside its transaction, later for later reads. Taking versions in the order their
// writers end (commit times are not recorded; ends approximate them), version W of a key is
// current from W's end until the next writer of the key ends. Per transaction, the reads in
// order: a fixed read's writer ending raises the earliest moment; an ambiguous read takes the
// candidate current at the earliest moment not before it (leaving the most room for the reads
// after it). Only a guess: the level's checker verifies the choice it gives.
void Chooser::sweep_read_committed() {
  const std::vector<std::vector<uint32_t>>& writers = committed_writers();
  std::vector<std::vector<std::pair<double, uint32_t>>> ends(h_.keys.size());  // (end, txn) per key
  for (uint32_t k = 0; k < ends.size(); ++k) {
    for (uint32_t t : writers[k])
      if (h_.txns[t].has_time()) ends[k].push_back({end_[t], t});
    std::sort(ends[k].begin(), ends[k].end());
  }
  // Per read, the versions of its key from the one current at the earliest moment on (each
  // version current from its writer's end to the next one's), up to the first whose writer is a
  // candidate: the scan stops at once when values repeat often, where going through every
  // candidate cost reads x candidates (seconds on 25,000 transactions of two values).
  uint32_t last_txn = kNone;
  double at = 0;
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if ((i & 1023) == 0 && budget_.expired()) return;  // (a guess: the rank's stays)
    const uint32_t t = vars_[i].txn;
    if (t == last_txn || !h_.txns[t].has_time()) continue;
    last_txn = t;
    at = start_[t];
    const double until = end_[t];
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      if (!h_.ops[o].is_read()) continue;
      auto vi = var_of_op_.find(o);
      if (vi == var_of_op_.end()) {
        const uint32_t u = h_.writer_txn(o);
        if (u != kInitialTxn && u != kThinAir && u != t && h_.txns[u].has_time())
          at = std::max(at, end_[u]);
        continue;
      }
      Var& v = vars_[vi->second];
      if (h_.candidate_txn(v.first[1]) == t) continue;  // its own write
      const uint32_t k = h_.ops[o].key, value = h_.ops[o].value;
      const auto& e = ends[k];
      // The first version that ends after at; the one before it is current at at (-1: the
      // initial one).
      const auto first_after = std::upper_bound(e.begin(), e.end(), at,
                                                 [](double a, const std::pair<double, uint32_t>& x) { return a < x.first; });
      uint32_t best = kNone;
      double best_at = HUGE_VAL;
      for (ptrdiff_t j = (first_after - e.begin()) - 1; j < static_cast<ptrdiff_t>(e.size()); ++j) {
        const double from = j < 0 ? -HUGE_VAL : e[j].first;
        const double to = j + 1 < static_cast<ptrdiff_t>(e.size()) ? e[j + 1].first : HUGE_VAL;
        const double m = std::max(from, at);
        if (m > until) break;  // (later versions begin later still)
        if (!(m < to)) continue;
        uint32_t w = kNone;
        if (j < 0) {
          if (h_.initial && *h_.initial == value) w = kReadsInitial;
        } else if (const uint32_t lw = h_.last_write_of(e[j].second, k); lw != kNone && h_.ops[lw].value == value) {
          w = lw;
        }
        if (w == kNone || !consistent(v, w) || after_in_session(t, w)) continue;
        best = w, best_at = m;
        break;
      }
      if (best == kNone) continue;  // (the rank's guess stays)
      v.first[1] = best;
      at = best_at;
    }
  }
}

void Chooser::apply() {
  for (size_t i = 0; i < vars_.size(); ++i) work_.read_from[vars_[i].op] = cur_[i];
  compute_effective_status(work_);
}

// The sub-history of the transactions in_s (committed under the current choice): their
// operations, less the reads of writers outside it (a projection: fewer constraints).
History Chooser::project(const std::vector<char>& in_s) {
  History s;
  s.txns.push_back(work_.txns[0]);
  std::unordered_map<uint32_t, uint32_t> op_map;
  std::vector<uint32_t> orig;
  for (size_t c = 0; c < work_.num_sessions(); ++c) {
    bool any = false;
    for (uint32_t t = work_.session_begin[c]; t < work_.session_begin[c + 1]; ++t) {
      if (!in_s[t] || !work_.txns[t].committed) continue;
      if (!any) s.session_begin.push_back(static_cast<uint32_t>(s.txns.size()));
      any = true;
      Txn x = work_.txns[t];
      x.session = static_cast<uint32_t>(s.session_begin.size() - 1);
      x.index = static_cast<uint32_t>(s.txns.size() - s.session_begin.back());
      x.op_begin = static_cast<uint32_t>(s.ops.size());
      x.label = kNone;
      x.status = TxnStatus::Committed;
      x.committed = true;
      const uint32_t nt = static_cast<uint32_t>(s.txns.size());
      for (uint32_t o = work_.txns[t].op_begin; o < work_.txns[t].op_end; ++o) {
        if (work_.ops[o].is_read()) {
          const uint32_t u = work_.writer_txn(o);
          if (u == kThinAir || (u != kInitialTxn && u != t && !in_s[u])) continue;
        }
        op_map[o] = static_cast<uint32_t>(s.ops.size());
        orig.push_back(o);
        s.ops.push_back(work_.ops[o]);
        s.op_txn.push_back(nt);
      }
      x.op_end = static_cast<uint32_t>(s.ops.size());
      s.txns.push_back(x);
      if (!work_.times.empty()) {
        s.times.resize(s.txns.size());
        s.times.back() = work_.times[t];
      }
    }
  }
  s.session_begin.push_back(static_cast<uint32_t>(s.txns.size()));
  s.read_from.resize(s.ops.size(), kNone);
  for (uint32_t i = 0; i < s.ops.size(); ++i) {
    if (!s.ops[i].is_read()) continue;
    const uint32_t w = work_.read_from[orig[i]];
    s.read_from[i] = w == kReadsInitial ? kReadsInitial : op_map.at(w);
  }
  s.initial = work_.initial;
  s.has_timestamps = work_.has_timestamps;
  s.format = work_.format;
  return s;
}

void Chooser::whole_choice(std::vector<std::pair<uint32_t, uint32_t>>& lits) const {
  lits.clear();
  for (uint32_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].valid > 1) lits.push_back({i, cur_[i]});
}

bool Chooser::learn_from(const Anomaly& a, std::vector<std::pair<uint32_t, uint32_t>>& lits) {
  if (is_causal_model(level_)) return false;
  std::vector<char> in_s(h_.txns.size(), 0);
  in_s[kInitialTxn] = 1;
  for (uint32_t t : a.txns) in_s[t] = 1;
  for (const AnomalyEdge& e : a.edges) in_s[e.from_txn] = in_s[e.to_txn] = 1;
  // Does the projection fail on its own? The interners are lent to it for the check.
  History s = project(in_s);
  s.keys = std::move(work_.keys);
  s.values = std::move(work_.values);
  CheckBudget b = budget_;
  const Verdict v = resolved_checker(level_)(s, b).verdict;
  work_.keys = std::move(s.keys);
  work_.values = std::move(s.values);
  if (v != Verdict::Fail) return false;
  lits.clear();
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].valid < 2) continue;
    const uint32_t u = h_.candidate_txn(cur_[i]);
    // Inside S; or an unknown writer, whose reader makes it (and what it reads) committed.
    if ((in_s[vars_[i].txn] && in_s[u]) || (u != kInitialTxn && h_.txns[u].status == TxnStatus::Unknown))
      lits.push_back({i, cur_[i]});
  }
  return true;
}

// The next choice that satisfies every nogood: a backtracking search over the vars they
// mention (domains in order of preference, the current value first); false when none is left
// (or the budget ran out: budget_.expired() tells).
bool Chooser::next_choice() {
  std::vector<uint32_t> order;
  std::unordered_map<uint32_t, uint32_t> pos_of;
  std::unordered_map<uint64_t, std::vector<uint32_t>> occ;
  for (uint32_t n = 0; n < nogoods_.size(); ++n)
    for (auto [v, w] : nogoods_[n]) {
      if (pos_of.emplace(v, static_cast<uint32_t>(order.size())).second) order.push_back(v);
      occ[(static_cast<uint64_t>(v) << 32) | w].push_back(n);
    }
  std::vector<std::vector<uint32_t>> dom(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    auto it = domains_.find(order[k]);
    if (it == domains_.end()) it = domains_.emplace(order[k], domain(vars_[order[k]])).first;
    dom[k] = it->second;
    auto c = std::find(dom[k].begin(), dom[k].end(), cur_[order[k]]);
    if (c != dom[k].end()) std::rotate(dom[k].begin(), c, c + 1);
  }
  std::vector<uint32_t> cnt(nogoods_.size(), 0), at(order.size(), 0);
  auto lits_of = [&](size_t k, uint32_t w) -> const std::vector<uint32_t>* {
    auto it = occ.find((static_cast<uint64_t>(order[k]) << 32) | w);
    return it == occ.end() ? nullptr : &it->second;
  };
  // Assign dom[k][at[k]]; false (undone) when it completes a nogood.
  auto assign = [&](size_t k) {
    const std::vector<uint32_t>* ns = lits_of(k, dom[k][at[k]]);
    if (!ns) return true;
    bool ok = true;
    for (uint32_t n : *ns) ok &= ++cnt[n] < nogoods_[n].size();
    if (!ok)
      for (uint32_t n : *ns) --cnt[n];
    return ok;
  };
  auto unassign = [&](size_t k) {
    if (const std::vector<uint32_t>* ns = lits_of(k, dom[k][at[k]]))
      for (uint32_t n : *ns) --cnt[n];
  };
  size_t k = 0, steps = 0;
  while (k < order.size()) {
    if ((++steps & 1023) == 0 && budget_.expired()) return false;
    bool placed = false;
    for (; at[k] < dom[k].size(); ++at[k])
      if (assign(k)) {
        placed = true;
        break;
      }
    if (placed) {
      ++k;
      if (k < order.size()) at[k] = 0;
      continue;
    }
    if (k == 0) return false;  // every choice is refuted
    --k;
    unassign(k);
    ++at[k];
  }
  for (size_t j = 0; j < order.size(); ++j) cur_[order[j]] = dom[j][at[j]];
  return true;
}

// Names the ambiguous reads a failure rests on: those of its nogood and those the anomaly
// shows, each with its candidates, and the choice shown.
Anomaly Chooser::annotate(Anomaly a, const std::vector<std::pair<uint32_t, uint32_t>>& lits) const {
  std::vector<uint32_t> reads;  // ambiguous read ops
  for (auto [v, w] : lits) reads.push_back(vars_[v].op);
  auto note = [&](uint32_t op) {
    if (op != kNone && op < h_.ops.size() && h_.read_from[op] == kAmbiguous &&
        std::find(reads.begin(), reads.end(), op) == reads.end())
      reads.push_back(op);
  };
  for (uint32_t op : a.ops) note(op);
  for (const AnomalyEdge& e : a.edges) note(e.to_op), note(e.from_op);
  if (reads.empty()) return a;
  std::string s, chosen;
  for (size_t i = 0; i < reads.size() && i < 4; ++i) {
    const uint32_t op = reads[i];
    if (i) s += "; ", chosen += ", ";
    s += h_.op_text(op) + " of " + short_name(h_, h_.op_txn[op]) + " may read from " + candidates_text(h_, op);
    auto v = std::find_if(vars_.begin(), vars_.end(), [&](const Var& x) { return x.op == op; });
    const uint32_t w = v != vars_.end() ? best_cur_[v - vars_.begin()] : work_.read_from[op];
    chosen += h_.op_text(op) + " from " + short_name(h_, h_.candidate_txn(w));
  }
  if (reads.size() > 4) s += "; and " + std::to_string(reads.size() - 4) + " more such reads";
  a.explanation = "Values written more than once: " + s + ". With any choice " +
                  (reads.size() == 1 ? "of its" : "of their") + " writers, " + level_name(level_) +
                  " fails; shown with " + chosen + ": " + a.explanation;
  return a;
}

LevelResult Chooser::run() {
  LevelResult res;
  if (!resolved_checker(level_)) {
    res.verdict = Verdict::NotApplicable;
    res.reason = "not decided for histories with repeated values";
    return res;
  }
  // 1. Read consistency, every candidate considered.
  std::vector<Anomaly> bad = check_read_consistency(h_);
  if (!bad.empty()) {
    res.verdict = Verdict::Fail;
    res.anomalies = std::move(bad);
    res.anomalies_total = res.anomalies.size();
    return res;
  }
  // 2. The reads with a choice, and a first choice.
  const AmbiguousReads& A = h_.ambiguous;
  if (h_.has_timestamps) {
    start_.assign(h_.txns.size(), 0);
    end_.assign(h_.txns.size(), 0);
    for (uint32_t t = 1; t < h_.txns.size(); ++t)
      if (h_.txns[t].has_time()) start_[t] = h_.times[t].start.approx(), end_[t] = h_.times[t].end.approx();
  }
  double choices = 1;
  for (uint32_t i = 0; i < A.size(); ++i) {
    Var v;
    v.amb = i;
    v.op = A.op[i];
    v.txn = h_.op_txn[v.op];
    v.mine = kNone;
    const Txn& t = h_.txns[v.txn];
    const std::span<const uint32_t> cands = A.candidates_at(i);
    if (t.status == TxnStatus::Aborted) {  // its reads are no part of the history
      work_.read_from[v.op] = cands[0];
      continue;
    }
    for (uint32_t o = t.op_begin; o < v.op; ++o)
      if (h_.ops[o].is_write() && h_.ops[o].key == h_.ops[v.op].key) v.mine = o;
    if (!is_causal_model(level_) && cands.size() > kFewCandidates && first_by_time(v, cands)) {
      var_of_op_[v.op] = static_cast<uint32_t>(vars_.size());
      vars_.push_back(v);
      cur_.push_back(v.first[0]);
      continue;
    }
    std::vector<uint32_t> d = choosable(v);
    if (d.empty()) d.push_back(cands[0]);  // an unknown reader that never commits
    v.valid = static_cast<uint32_t>(d.size());
    for (int ph = 0; ph < kPhases; ++ph) {
      v.first[ph] = d[0];
      std::pair<int, double> best = rank(v, d[0], ph);
      for (uint32_t w : d)
        if (const auto r = rank(v, w, ph); r < best) v.first[ph] = w, best = r;
    }
    choices *= v.valid;
    var_of_op_[v.op] = static_cast<uint32_t>(vars_.size());
    vars_.push_back(v);
    cur_.push_back(v.first[0]);
  }
  if (h_.has_timestamps) sweep_read_committed();
  if (is_causal_model(level_) && choices > kMaxCausalChoices) {
    res.verdict = Verdict::NotApplicable;
    res.reason = std::string(level_name(level_)) + " is decided on repeated values only up to " +
                 std::to_string(static_cast<int>(kMaxCausalChoices)) +
                 " choices of reads-from (by enumeration; this history has more)";
    return res;
  }
  // 3-4. Check, learn, choose again.
  const LevelChecker check = resolved_checker(level_);
  Anomaly best;
  std::vector<std::pair<uint32_t, uint32_t>> best_lits, lits;
  if (solver_only_) {
    LevelResult decided;
    if (!solver_applies()) {
      decided.verdict = Verdict::NotApplicable;
      return decided;
    }
    best_cur_ = cur_;
    if (decide_in_solver(decided, best, best_lits)) return decided;
    decided.verdict = Verdict::Unknown;
    decided.reason = "the solver's pass did not verify";
    return decided;
  }
  bool have_best = false;
  // Each phase's first choice is checked; the search goes on from the one with the fewest
  // anomalies (a phase that timestamps cannot tell apart is skipped).
  const int phases = h_.has_timestamps ? kPhases : 1;
  int phase = 0, best_phase = 0;
  size_t best_phase_anomalies = SIZE_MAX;
  // Every phase's first choice is checked before any is learned from: the one that passes
  // saves the learning (hundreds of projections) from the ones that do not.
  std::vector<LevelResult> first_results;
  for (int ph = 0; ph < phases; ++ph) {
    if (budget_.expired()) return CheckBudget::ran_out();
    for (size_t i = 0; i < vars_.size(); ++i) cur_[i] = vars_[i].first[ph];
    apply();
    ++tried_;
    LevelResult r = check(work_, budget_);
    if (r.verdict != Verdict::Fail) {
      r.ms = 0;
      return r;
    }
    first_results.push_back(std::move(r));
  }
  // Refutations by values alone, which hold with every choice (cheap: no check, no learning).
  if (LevelResult decided; reads_cannot_repeat(decided) || updates_outnumber_versions(decided)) return decided;
  // The weak levels try the concurrent schedules at once (a short search, before SER's solver,
  // which gets a quarter of the time left; a thorough one after it); PC and SI after the history less
  // the ambiguous reads is checked. (SER and SSER have their serial search: an SI run's choice
  // rarely serves them, and a failed search costs them seconds where their solver decides.)
  if (LevelResult decided; !is_strong(level_) && concurrent_schedule_passes(decided, SearchEffort::Short)) return decided;
  // RC, RR, RA and CC: a choice that satisfies SER satisfies them too, and SER's solver finds
  // one where the nogoods of these levels converge slowly (minutes on VeriStrong's 10^4
  // transactions). Its choice is checked by the level's own checker, so a pass stays a pass.
  // SER gets a quarter of the time left (without a deadline, a first slice), then the thorough
  // concurrent search, then, without a deadline, SER again for as long as it takes.
  if ((level_ == Level::RC || level_ == Level::RR || level_ == Level::RA || level_ == Level::CC) &&
      g_witness_depth == 0 && !solver_only_) {
    const auto ser_choice_passes = [&](const CheckBudget& ser_budget, LevelResult& out) {
      Chooser ser(h_, Level::SER, ser_budget);
      if (!ser.solver_applies() || ser.run().verdict != Verdict::Pass || ser.cur_.size() != cur_.size()) return false;
      cur_ = ser.cur_;
      apply();
      ++tried_;
      out = check(work_, budget_);
      out.ms = 0;
      return out.verdict == Verdict::Pass;
    };
    if (LevelResult decided; ser_choice_passes(first_slice(0.25), decided)) return decided;
    if (budget_.expired()) return CheckBudget::ran_out();
    if (LevelResult decided; concurrent_schedule_passes(decided, SearchEffort::Thorough)) return decided;
    if (LevelResult decided; unlimited() && ser_choice_passes(budget_, decided)) return decided;
    if (budget_.expired()) return CheckBudget::ran_out();
  }
  while (true) {
    if (budget_.expired()) return CheckBudget::ran_out();
    if (phase < phases)
      for (size_t i = 0; i < vars_.size(); ++i) cur_[i] = vars_[i].first[phase];
    apply();
    LevelResult r;
    if (phase < phases) {
      r = std::move(first_results[phase]);
    } else {
      ++tried_;
      r = check(work_, budget_);
    }
    if (r.verdict != Verdict::Fail) {
      r.ms = 0;
      return r;  // a pass (with its commit order), or unknown
    }
    bool learned = false;
    for (size_t i = 0; i < r.anomalies.size() && i < kLearnPerCheck; ++i) {
      if (budget_.expired()) return CheckBudget::ran_out();
      if (!learn_from(r.anomalies[i], lits)) continue;
      if (!have_best || lits.size() < best_lits.size()) {
        best_cur_ = cur_;
        best = r.anomalies[i];
        best_lits = lits;
        have_best = true;
      }
      nogoods_.push_back(lits);
      learned = true;
      if (lits.empty()) break;
    }
    if (!learned) {
      whole_choice(lits);
      if (!have_best) {
        best_cur_ = cur_;
        best = r.anomalies.empty() ? Anomaly{} : r.anomalies[0];
        best_lits = lits;
        have_best = true;
      }
      nogoods_.push_back(lits);
    }
    if (phase < phases) {
      if (r.anomalies.size() < best_phase_anomalies) {
        best_phase_anomalies = r.anomalies.size();
        best_phase = phase;
      }
      if (++phase < phases && !nogoods_.back().empty()) continue;
      phase_ = best_phase;
      for (size_t i = 0; i < vars_.size(); ++i) cur_[i] = vars_[i].first[phase_];
      phase = phases;
      LevelResult decided;
      const bool concurrent = level_ == Level::PC || level_ == Level::SI;
      // The short searches first: where one finds the run (twitter-1k, in a step per
      // transaction) the check of the fixed reads, a whole history's, is saved; one stuck early
      // stops at its stall point.
      if (!nogoods_.back().empty() && concurrent && concurrent_schedule_passes(decided, SearchEffort::Short)) return decided;
      if (!nogoods_.back().empty() && schedule_passes(decided, SearchEffort::Short)) return decided;
      if (!nogoods_.back().empty() && g_witness_depth == 0 && !is_causal_model(level_) && fixed_reads_fail(decided))
        return decided;
      if (!nogoods_.back().empty() && solver_applies()) {
        // The solver gets half the time left (without a deadline, a first slice), then a
        // thorough schedule search (PC and SI: concurrent; SER and SSER: serial), then, without
        // a deadline, the solver again for as long as it takes.
        const CheckBudget full = budget_;
        budget_ = first_slice(0.5);
        const bool done = decide_in_solver(decided, best, best_lits);
        budget_ = full;
        if (done && !(decided.verdict == Verdict::Unknown && !budget_.expired())) return decided;
        if (done && ((concurrent && concurrent_schedule_passes(decided, SearchEffort::Thorough)) || schedule_passes(decided, SearchEffort::Thorough)))
          return decided;
        if (done && unlimited() && decide_in_solver(decided, best, best_lits)) return decided;
      }
    }
    if (nogoods_.back().empty() || !next_choice()) {
      if (budget_.expired()) return CheckBudget::ran_out();
      return failure_of(annotate(best, best_lits));
    }
  }
}

bool Chooser::unlimited() const { return budget_.deadline_ms <= 0; }

CheckBudget Chooser::first_slice(double fraction) const {
  if (!unlimited()) return budget_.share(fraction);
  CheckBudget b = budget_;
  b.deadline_ms = now_ms() + kFirstSliceMs;
  return b;
}

bool Chooser::solver_applies() const {
  if (!is_strong(level_)) return false;
  // A transaction that may or may not have committed makes its writes (and reads) optional,
  // which the solver's problem does not express: those histories keep the enumeration.
  for (uint32_t t = 1; t < h_.txns.size(); ++t)
    if (h_.txns[t].status == TxnStatus::Unknown) return false;
  return true;
}

const std::vector<std::vector<uint32_t>>& Chooser::committed_writers() {
  if (committed_writers_.empty()) {
    committed_writers_.resize(h_.keys.size());
    for (uint32_t t = 1; t < h_.txns.size(); ++t) {
      if (h_.txns[t].status != TxnStatus::Committed) continue;
      for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
        std::vector<uint32_t>& w = committed_writers_[h_.ops[o].key];
        if (h_.ops[o].is_write() && (w.empty() || w.back() != t)) w.push_back(t);
      }
    }
  }
  return committed_writers_;
}

// Under SSER the commit order extends real time, so a read of t cannot read from a candidate
// that starts after t ends (a cycle), nor from one that ends before another writer of the key
// starts when that one ends before t starts (it is overwritten in between). When none is left
// the candidates stay (the solver then finds the contradiction and its witness).
void Chooser::prune_by_real_time(const Var& v, std::vector<uint32_t>& d) {
  if (!h_.txns[v.txn].has_time()) return;
  if (writers_by_end_.empty()) {
    const std::vector<std::vector<uint32_t>>& writers = committed_writers();
    writers_by_end_.resize(h_.keys.size());
    for (uint32_t k = 0; k < writers_by_end_.size(); ++k)
      for (uint32_t t : writers[k])
        if (h_.txns[t].has_time()) writers_by_end_[k].push_back({h_.times[t].end, h_.times[t].start});
    for (auto& w : writers_by_end_) {
      std::sort(w.begin(), w.end());
      for (size_t i = 1; i < w.size(); ++i) w[i].second = std::max(w[i].second, w[i - 1].second);
    }
  }
  const Interval& me = h_.times[v.txn];
  const auto& w = writers_by_end_[h_.ops[v.op].key];
  // The latest start among the writers that end before the reader starts.
  auto it = std::lower_bound(w.begin(), w.end(), me.start,
                             [](const std::pair<Time, Time>& e, const Time& s) { return e.first < s; });
  const bool any = it != w.begin();
  const Time latest = any ? (it - 1)->second : Time{};
  std::vector<uint32_t> kept;
  for (uint32_t c : d) {
    const uint32_t u = h_.candidate_txn(c);
    bool out = false;
    if (u == kInitialTxn) {
      out = any;
    } else if (h_.txns[u].has_time()) {
      const Interval& x = h_.times[u];
      out = me.end < x.start || (any && x.end < latest);
    }
    if (!out) kept.push_back(c);
  }
  if (!kept.empty()) d = std::move(kept);
}


bool Chooser::decide_in_solver(LevelResult& out, const Anomaly& best,
                               const std::vector<std::pair<uint32_t, uint32_t>>& best_lits) {
  if (budget_.expired()) {  // (the solver's set-up does not poll it)
    out = CheckBudget::ran_out();
    return true;
  }
  std::vector<uint32_t> ops, which;
  std::vector<std::vector<uint32_t>> cands, doms(vars_.size());
  apply();
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].valid < 2) continue;  // (its one candidate: apply() set it)
    doms[i] = domain(vars_[i]);
    if (level_ == Level::SSER) prune_by_real_time(vars_[i], doms[i]);
  }
  prune_by_reachability(doms);
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].valid < 2) continue;
    std::vector<uint32_t>& d = doms[i];
    if (d.size() == 1) {  // the others are ruled out: a read without a choice
      cur_[i] = d[0];
      work_.read_from[vars_[i].op] = d[0];
      continue;
    }
    auto c = std::find(d.begin(), d.end(), cur_[i]);
    if (c != d.end()) std::rotate(d.begin(), c, c + 1);
    ops.push_back(vars_[i].op);
    cands.push_back(std::move(d));
    which.push_back(i);
    work_.read_from[vars_[i].op] = kThinAir;  // left out of the solver's instance
  }
  const ChoiceOutcome o = decide_choices(work_, level_, ops, cands, budget_, fixed_order_);
  if (o.verdict == Verdict::Pass)
    for (size_t k = 0; k < which.size(); ++k) cur_[which[k]] = o.choice[k];
  apply();
  if (o.verdict == Verdict::Unknown) {
    if (!budget_.expired()) return false;  // (cannot happen: the enumeration goes on)
    out = CheckBudget::ran_out();
    return true;
  }
  if (o.verdict == Verdict::Pass) {
    // Verified as the level's own checker verifies a candidate order (CC, then the order
    // against every read: decide_choices), else by that checker on the solution's reads-from.
    if (!o.commit_order.empty() && check_cc(work_, budget_).verdict == Verdict::Pass) {
      out = LevelResult{};
      out.verdict = Verdict::Pass;
      out.commit_order = o.commit_order;
      return true;
    }
    LevelResult r = resolved_checker(level_)(work_, budget_);
    if (r.verdict != Verdict::Pass) return false;
    r.ms = 0;
    out = std::move(r);
    return true;
  }
  Anomaly a;
  if (g_witness_depth == 0 && core_witness(o.core, a)) {
    out = failure_of(std::move(a));
  } else if (!best.txns.empty()) {
    out = failure_of(annotate(best, best_lits));
  } else {
    // No anomaly at hand (the solver was asked first): the current choice's, which fails too.
    best_cur_ = cur_;
    LevelResult r = resolved_checker(level_)(work_, budget_);
    if (r.verdict != Verdict::Fail || r.anomalies.empty()) {
      out = budget_.expired() ? CheckBudget::ran_out() : LevelResult{};
      if (!budget_.expired()) out.reason = "internal error: the choice shown does not fail";
      return true;
    }
    std::vector<std::pair<uint32_t, uint32_t>> lits;
    whole_choice(lits);
    out = failure_of(annotate(r.anomalies[0], lits));
  }
  return true;
}

// Candidates that no choice can take, by the known edges alone (session order and the reads
// without a choice; every strong level implies causal consistency, so their closure hb is
// acyclic in every choice):
//   - the reader reaches the candidate's transaction along hb: reading from it closes a cycle;
//   - the candidate's transaction reaches another writer W of the key that reaches the reader
//     (the initial transaction reaches every W): W is causally between the write and the read,
//     which causal consistency forbids (W would have to commit both before and after it).
// Reachability is kept per transaction as the earliest transaction of each session it reaches
// (transactions x sessions entries; histories beyond kMaxReachEntries are not pruned). A
// domain that would be left empty keeps its candidates (the solver refutes it with a witness).
void Chooser::prune_by_reachability(std::vector<std::vector<uint32_t>>& doms) {
  constexpr size_t kMaxReachEntries = size_t(1) << 24;
  constexpr size_t kMaxWriterScans = size_t(1) << 26;
  const uint32_t n = static_cast<uint32_t>(h_.txns.size());
  const uint32_t k = static_cast<uint32_t>(h_.num_sessions());
  if (k == 0 || size_t(n) * k > kMaxReachEntries) return;
  auto live = [&](uint32_t t) { return t != kInitialTxn && t < n && h_.txns[t].status == TxnStatus::Committed; };
  const std::vector<std::vector<uint32_t>>& writers = committed_writers();
  std::vector<char> open(h_.ops.size(), 0);
  std::vector<uint32_t> reach(size_t(n) * k);
  size_t scans = 0;
  for (int pass = 0; pass < 8; ++pass) {
    for (uint32_t i = 0; i < vars_.size(); ++i) open[vars_[i].op] = doms[i].size() >= 2;
    // hb's edges among committed transactions: session order (to the next committed one) and
    // every read of another transaction's write that has no choice left.
    DigraphBuilder b(n);
    for (uint32_t c = 0; c < k; ++c) {
      uint32_t prev = kNone;
      for (uint32_t t = h_.session_begin[c]; t < h_.session_begin[c + 1]; ++t) {
        if (!live(t)) continue;
        if (prev != kNone) b.add(prev, t);
        prev = t;
      }
    }
    for (uint32_t t = 1; t < n; ++t) {
      if (!live(t)) continue;
      for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
        if (!h_.ops[o].is_read() || open[o]) continue;
        const uint32_t u = work_.writer_txn(o);
        if (live(u) && u != t) b.add(u, t);
      }
    }
    const Digraph hb = b.build();
    const std::vector<uint32_t> topo = topological_order(hb);
    if (topo.empty()) return;  // hb has a cycle: every choice fails (the solver shows it)
    // reach[t][c]: the index in session c of the first transaction t reaches (kNone: none).
    std::fill(reach.begin(), reach.end(), kNone);
    for (size_t i = topo.size(); i-- > 0;) {
      const uint32_t t = topo[i];
      uint32_t* r = &reach[size_t(t) * k];
      for (uint32_t e = hb.begin(t); e < hb.end(t); ++e) {
        const uint32_t s = hb.targets[e];
        const uint32_t* rs = &reach[size_t(s) * k];
        for (uint32_t c = 0; c < k; ++c) r[c] = std::min(r[c], rs[c]);
        r[h_.txns[s].session] = std::min(r[h_.txns[s].session], h_.txns[s].index);
      }
    }
    // Whether a reaches b along hb (a != b; the initial transaction reaches every one).
    auto reaches = [&](uint32_t a, uint32_t b) {
      if (a == kInitialTxn) return b != kInitialTxn;
      return h_.txns[b].index >= reach[size_t(a) * k + h_.txns[b].session] &&
             reach[size_t(a) * k + h_.txns[b].session] != kNone;
    };
    bool fixed_more = false;
    std::vector<uint32_t> before;  // the writers of the key that reach the reader
    for (uint32_t i = 0; i < vars_.size(); ++i) {
      std::vector<uint32_t>& d = doms[i];
      if (d.size() < 2) continue;
      const uint32_t t = vars_[i].txn;
      if (!live(t)) continue;
      const std::vector<uint32_t>& ws = writers[h_.ops[vars_[i].op].key];
      before.clear();
      if (scans + ws.size() <= kMaxWriterScans) {
        scans += ws.size();
        for (uint32_t w : ws)
          if (w != t && reaches(w, t)) before.push_back(w);
      }
      std::vector<uint32_t> kept;
      for (uint32_t c : d) {
        const uint32_t u = h_.candidate_txn(c);
        bool out = false;
        if (u != t && u != kInitialTxn && reaches(t, u)) {
          out = true;
          if (budget_.stats) ++budget_.stats->pruned_reader_reaches;
        }
        for (size_t j = 0; j < before.size() && !out && u != t; ++j)
          if (before[j] != u && reaches(u, before[j])) {
            out = true;
            if (budget_.stats) ++budget_.stats->pruned_overwritten;
          }
        if (!out) kept.push_back(c);
      }
      if (kept.empty() || kept.size() == d.size()) continue;
      if (kept.size() == 1) {
        fixed_more = true;
        if (budget_.stats) ++budget_.stats->pruned_fixed;
        work_.read_from[vars_[i].op] = kept[0];
      }
      d = std::move(kept);
    }
    if (!fixed_more) return;
  }
}

// The witness of a refutation by the solver: the sub-history of the transactions it used, less
// the ambiguous reads that may read from outside them (so that its failure is the history's:
// every choice of the history gives one of it), decided on its own and its anomaly told in the
// history's ids. False when it does not fail (then the first guess's anomaly is shown).
bool Chooser::core_witness(const std::vector<char>& core, Anomaly& a) {
  std::vector<char> keep = core;
  keep[kInitialTxn] = 1;
  std::vector<char> drop(h_.ops.size(), 0);
  size_t kept = 0;
  for (uint32_t t = 1; t < h_.txns.size(); ++t) kept += keep[t];
  if (kept + 1 >= h_.txns.size()) return false;  // no smaller than the history
  for (const Var& v : vars_) {
    if (!keep[v.txn]) continue;
    for (uint32_t w : domain(v))
      if (!keep[h_.candidate_txn(w)]) drop[v.op] = 1;
  }
  return projection_fails(keep, drop, a);
}

// Why it is sound. Let T (committed) read key x before writing it, then write x, and let it
// read x from W. Under SER, W is the last writer of x before T in the commit order, and T
// writes x: no writer of x comes between W and T, so T comes right after W in x's version
// order. Under SI, W is the last writer of x that T's snapshot sees; a writer W' of x after W
// and before T would be unseen by T, so concurrent with it, and both write x: forbidden (first
// committer wins). SSER implies SER. So in every choice and commit order satisfying the level,
// these readers of x read from pairwise distinct writers (each version has one next version),
// none from itself, each from one of its read's candidates (those that read consistency and
// session order leave: reading any other fails every level). When no such assignment exists
// (a maximum bipartite matching leaves a reader out), every choice fails; the witness is the
// set S of readers an alternating search from that reader reaches, whose candidates are |S| - 1
// writers, all of them taken by S (Hall's theorem). PC allows lost updates, so not PC.
bool Chooser::updates_outnumber_versions(LevelResult& out) {
  if (level_ != Level::SI && level_ != Level::SER && level_ != Level::SSER) return false;
  // The readers per key (their read op), each with its writer transactions adj[begin, end).
  std::vector<std::vector<uint32_t>> readers_of(h_.keys.size());
  std::vector<uint32_t> read_op, adj_begin, adj;
  std::vector<uint32_t> read_stamp(h_.keys.size(), kNone), write_stamp(h_.keys.size(), kNone);
  std::vector<uint32_t> pending, seen(h_.txns.size(), kNone);
  for (uint32_t t = 1; t < h_.txns.size(); ++t) {
    if (h_.txns[t].status != TxnStatus::Committed) continue;
    pending.clear();
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      const uint32_t k = h_.ops[o].key;
      if (h_.ops[o].is_write()) {
        write_stamp[k] = t;
      } else if (h_.ops[o].is_read() && write_stamp[k] != t && read_stamp[k] != t) {
        read_stamp[k] = t;
        pending.push_back(o);
      }
    }
    for (uint32_t o : pending) {
      const uint32_t k = h_.ops[o].key;
      if (write_stamp[k] != t) continue;  // T reads x but does not write it
      const uint32_t begin = static_cast<uint32_t>(adj.size());
      auto add = [&](uint32_t u) {
        if (u != t && u != kThinAir && seen[u] != o) seen[u] = o, adj.push_back(u);
      };
      if (h_.read_from[o] == kAmbiguous) {
        auto it = var_of_op_.find(o);
        if (it == var_of_op_.end()) continue;
        std::vector<uint32_t> d = choosable(vars_[it->second]);
        if (level_ == Level::SSER) prune_by_real_time(vars_[it->second], d);  // (sound there)
        for (uint32_t w : d) add(h_.candidate_txn(w));
      } else {
        add(h_.writer_txn(o));
      }
      if (adj.size() == begin) continue;  // (read consistency fails it already)
      readers_of[k].push_back(static_cast<uint32_t>(read_op.size()));
      read_op.push_back(o);
      adj_begin.push_back(begin);
    }
  }
  adj_begin.push_back(static_cast<uint32_t>(adj.size()));
  std::vector<uint32_t> owner(h_.txns.size(), kNone), visit(h_.txns.size(), 0), touched;
  uint32_t stamp = 0;
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (reader, next adj index)
  std::vector<uint32_t> reached;                      // the readers the last search reached
  size_t steps = 0;
  // An augmenting path from reader r0 (iterative: the stack may be as deep as the readers).
  auto augment = [&](uint32_t r0) {
    ++stamp;
    reached.assign(1, r0);
    stack.assign(1, {r0, adj_begin[r0]});
    while (!stack.empty()) {
      auto& [r, i] = stack.back();
      if (i == adj_begin[r + 1]) {
        stack.pop_back();
        continue;
      }
      const uint32_t w = adj[i++];
      if (visit[w] == stamp) continue;
      visit[w] = stamp;
      if (owner[w] != kNone) {
        reached.push_back(owner[w]);
        stack.push_back({owner[w], adj_begin[owner[w]]});
        continue;
      }
      for (const auto& [fr, fi] : stack) {  // each reader on the path takes the writer it went by
        const uint32_t fw = adj[fi - 1];
        if (owner[fw] == kNone) touched.push_back(fw);
        owner[fw] = fr;
      }
      return true;
    }
    return false;
  };
  for (uint32_t k = 0; k < readers_of.size(); ++k) {
    for (uint32_t w : touched) owner[w] = kNone;
    touched.clear();
    for (uint32_t r : readers_of[k]) {
      if ((++steps & 255) == 0 && budget_.expired()) return false;
      if (augment(r)) continue;
      // A Hall violator: the readers reached, and the writers visited (all owned by them).
      std::vector<uint32_t> S(reached.begin(), reached.end()), N;
      ++stamp;
      for (uint32_t r2 : S)
        for (uint32_t q = adj_begin[r2]; q < adj_begin[r2 + 1]; ++q)
          if (visit[adj[q]] != stamp) visit[adj[q]] = stamp, N.push_back(adj[q]);
      std::sort(S.begin(), S.end(), [&](uint32_t a, uint32_t b) { return read_op[a] < read_op[b]; });
      std::sort(N.begin(), N.end());
      Anomaly a;
      a.kind = kind_name(AnomalyKind::LostUpdate);
      std::vector<uint32_t> readers;
      for (uint32_t r2 : S) {
        readers.push_back(h_.op_txn[read_op[r2]]);
        a.ops.push_back(read_op[r2]);
      }
      a.txns = readers;
      a.txns.insert(a.txns.end(), N.begin(), N.end());
      const std::string key = h_.keys.display(h_.ops[read_op[S[0]]].key);
      std::string reads;  // the reads' texts, each once
      size_t kinds = 0;
      for (uint32_t r2 : S) {
        const std::string t = h_.op_text(read_op[r2]);
        if (reads.find(t) != std::string::npos) continue;
        if (++kinds > 3) {
          reads += ", ...";
          break;
        }
        reads += (kinds > 1 ? ", " : "") + t;
      }
      a.explanation = "Values written more than once: " + txns_text(h_, readers, "and", "", 4) + " each read " + key +
                      " (" + reads + ") and then write " + key + ", and each may read it only from " + txns_text(h_, N, "and", "", 4) + " (" +
                      std::to_string(N.size()) + " writer" + (N.size() == 1 ? "" : "s") + " for " +
                      std::to_string(S.size()) + " transactions). A transaction that reads " + key +
                      " and overwrites it must come right after the version it read (under " +
                      level_name(level_) + " a write in between would be lost to it), so no two of them can read the same version: " +
                      "with any choice of writers, one of these updates is lost";
      out = failure_of(std::move(a));
      return true;
    }
  }
  return false;
}

std::vector<uint32_t> Chooser::writer_txns(uint32_t t, uint32_t o) {
  std::vector<uint32_t> ws;
  if (h_.read_from[o] == kAmbiguous) {
    auto it = var_of_op_.find(o);
    if (it != var_of_op_.end())
      for (uint32_t w : choosable(vars_[it->second])) ws.push_back(h_.candidate_txn(w));
  } else if (const uint32_t u = h_.writer_txn(o); u != kThinAir) {
    ws.push_back(u);
  }
  ws.erase(std::remove(ws.begin(), ws.end(), t), ws.end());
  std::sort(ws.begin(), ws.end());
  ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
  return ws;
}

// Why it is sound. Let committed T read key x twice, r1 then r2, before T's first write of x,
// from writers W1 and W2 (candidates of r1 and r2; reading any other fails every level). When
// the two reads have no candidate in common, W1 != W2 in every choice. RR requires such reads
// to read from one writer. RA and the levels above it (CC, PC, SI, SER, SSER) require, for a
// read of x from W and another writer W' of x that precedes T by session order or reads-from,
// that W' commits before W: W2 precedes T by reads-from and writes x, so W2 before W1; and W1
// before W2 likewise: a contradiction. RC allows it (a non-repeatable read), and the causal
// models are left to their enumeration.
bool Chooser::reads_cannot_repeat(LevelResult& out) {
  if (!is_transactional(level_) || level_ == Level::RC) return false;
  std::vector<uint32_t> write_stamp(h_.keys.size(), kNone);
  std::vector<uint32_t> reads;  // this transaction's reads before its write of their key
  for (uint32_t t = 1; t < h_.txns.size(); ++t) {
    if (h_.txns[t].status != TxnStatus::Committed) continue;
    if ((t & 1023) == 0 && budget_.expired()) return false;
    reads.clear();
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      const uint32_t k = h_.ops[o].key;
      if (h_.ops[o].is_write()) write_stamp[k] = t;
      else if (h_.ops[o].is_read() && write_stamp[k] != t) reads.push_back(o);
    }
    for (size_t i = 0; i < reads.size(); ++i)
      for (size_t j = i + 1; j < reads.size(); ++j) {
        const uint32_t r1 = reads[i], r2 = reads[j];
        if (h_.ops[r1].key != h_.ops[r2].key) continue;
        if (h_.read_from[r1] != kAmbiguous && h_.read_from[r2] != kAmbiguous) continue;  // (the checker's)
        const std::vector<uint32_t> a = writer_txns(t, r1), b = writer_txns(t, r2);
        if (a.empty() || b.empty()) continue;
        std::vector<uint32_t> both;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
        if (!both.empty()) continue;
        Anomaly an;
        an.kind = kind_name(AnomalyKind::NonRepeatableRead);
        an.txns = {t};
        an.ops = {r1, r2};
        const std::string key = h_.keys.display(h_.ops[r1].key);
        an.explanation = "Values written more than once: " + short_name(h_, t) + " reads " + key +
                         " twice before writing it, " + h_.op_text(r1) + " (which may read from " +
                         txns_text(h_, a, "or", "any of ", 4) + ") and then " + h_.op_text(r2) + " (from " + txns_text(h_, b, "or", "any of ", 4) +
                         "). No transaction is a candidate of both, so with any choice of writers the two reads " +
                         "see different versions of " + key +
                         (level_ == Level::RR ? std::string(": a non-repeatable read, which RR forbids")
                                              : ", which " + std::string(level_name(level_)) +
                                                    " forbids (each writer would have to commit before the other)");
        out = failure_of(std::move(an));
        return true;
      }
  }
  return false;
}

bool Chooser::schedule_passes(LevelResult& out, SearchEffort effort) {
  if (level_ != Level::SER && level_ != Level::SSER) return false;
  // A search that finds nothing decides nothing: it gets a quarter of the time left and a
  // bounded number of steps, few enough that the short one costs little before the solver when
  // it fails (a quarter of SER's time on VeriStrong's PostgreSQL runs at 16 steps per
  // transaction, where the solver passes them at once). A thorough one (after the solver has
  // had half the time left) goes further, with backjumps.
  const SearchLimits limits = search_limits(effort, 4096);
  const SerialSchedule s = find_serial_schedule(h_, level_ == Level::SSER, budget_.share(0.25), limits.max_steps,
                                                effort == SearchEffort::Thorough, limits.stall_steps);
  if (!s.found) return false;
  for (size_t i = 0; i < vars_.size(); ++i)
    if (s.choice[vars_[i].amb] != kNone) cur_[i] = s.choice[vars_[i].amb];
  apply();
  ++tried_;
  // SER: the schedule's order is checked at once (the checker would replay the history to find
  // an order); SSER's real time is left to its checker.
  if (level_ == Level::SER && serial_order_holds(work_, s.order)) {
    out = pass_in_order(s.order);
    return true;
  }
  LevelResult r = resolved_checker(level_)(work_, budget_);
  if (r.verdict != Verdict::Pass) return false;
  r.ms = 0;
  out = std::move(r);
  return true;
}

Chooser::SearchLimits Chooser::search_limits(SearchEffort effort, size_t thorough_base) const {
  const size_t n = h_.txns.size(), cap = size_t(1) << 21;
  switch (effort) {
    case SearchEffort::Short: return {std::min<size_t>(4 * n + 4096, cap), n + 1024};
    case SearchEffort::Thorough: break;
  }
  return {std::min<size_t>(256 * n + thorough_base, cap), SIZE_MAX};
}

LevelResult Chooser::pass_in_order(const std::vector<uint32_t>& order) {
  LevelResult r;
  r.verdict = Verdict::Pass;
  r.commit_order.reserve(order.size() + 1);
  r.commit_order.push_back(kInitialTxn);
  r.commit_order.insert(r.commit_order.end(), order.begin(), order.end());
  return r;
}

const ConcurrentSchedule& Chooser::concurrent_schedule(ScheduleModel model, SearchLimits limits) {
  LevelMemo::Schedule* m = memo_ ? &memo_->schedules[static_cast<int>(model)] : nullptr;
  // A schedule found serves any search; one that found none, a search no longer than the steps
  // it surely took (its limit, or its stall point if it stalled).
  if (m && m->result && (m->result->found || limits.max_steps <= std::min(m->max_steps, m->stall_steps)))
    return *m->result;
  schedule_ = std::make_shared<const ConcurrentSchedule>(
      find_concurrent_schedule(h_, model, budget_.share(0.25), limits.max_steps, limits.stall_steps));
  if (m && !schedule_->stopped) {
    memo_->history = &h_;
    m->result = schedule_, m->max_steps = limits.max_steps, m->stall_steps = limits.stall_steps;
  }
  return *schedule_;
}

bool Chooser::concurrent_schedule_passes(LevelResult& out, SearchEffort effort) {
  if (!is_transactional(level_) || h_.has_lists) return false;
  // A bounded number of steps and a quarter of the time left: a search that finds nothing
  // decides nothing.
  const SearchLimits limits = search_limits(effort, 65536);
  // A choice that satisfies SI satisfies every level below it, and RC's its own; either may
  // satisfy a weak level, whose own checker decides.
  const ScheduleModel first = level_ == Level::RC ? ScheduleModel::ReadCommitted : ScheduleModel::SnapshotIsolation;
  const ScheduleModel second = level_ == Level::RC ? ScheduleModel::SnapshotIsolation : ScheduleModel::ReadCommitted;
  for (const ScheduleModel model : {first, second}) {
    if (budget_.expired()) return false;
    if (model == ScheduleModel::ReadCommitted && is_strong(level_)) continue;  // (never serves PC or SI)
    const ConcurrentSchedule& s = concurrent_schedule(model, limits);
    if (!s.found || s.choice.size() != h_.ambiguous.size()) continue;
    bool candidates = true;  // (a memo's choice is of this history: checked all the same)
    for (size_t i = 0; i < vars_.size() && candidates; ++i) {
      const uint32_t w = s.choice[vars_[i].amb];
      const std::span<const uint32_t> c = h_.ambiguous.candidates_at(vars_[i].amb);
      if (w == kNone) continue;
      candidates = std::binary_search(c.begin(), c.end(), w);
      cur_[i] = w;
    }
    if (!candidates) continue;
    apply();
    ++tried_;
    // PC and SI: the run's commit order is checked at once (their checker would replay the
    // history to find an order again).
    if (model == ScheduleModel::SnapshotIsolation && (level_ == Level::PC || level_ == Level::SI) &&
        snapshot_order_holds(work_, s.commits, level_ == Level::SI)) {
      out = pass_in_order(s.commits);
      return true;
    }
    LevelResult r = resolved_checker(level_)(work_, budget_);
    if (r.verdict != Verdict::Pass) continue;
    r.ms = 0;
    out = std::move(r);
    return true;
  }
  return false;
}

bool Chooser::fixed_reads_fail(LevelResult& out) {
  std::vector<char> keep(h_.txns.size(), 1), drop(h_.ops.size(), 0);
  bool any = false;
  for (const Var& v : vars_)
    if (v.valid > 1) drop[v.op] = any = 1;
  Anomaly a;
  if (!any || !projection_fails(keep, drop, a, &fixed_order_)) return false;
  out = failure_of(std::move(a));
  return true;
}

bool Chooser::projection_fails(const std::vector<char>& keep, const std::vector<char>& drop, Anomaly& a,
                               std::vector<uint32_t>* pass_order) {
  // The kept transactions and operations, in the order project_history numbers them.
  std::vector<uint32_t> txn_of(1, kInitialTxn), op_of;
  for (size_t s = 0; s < h_.num_sessions(); ++s)
    for (uint32_t t = h_.session_begin[s]; t < h_.session_begin[s + 1]; ++t) {
      if (!keep[t] || t == kInitialTxn) continue;
      txn_of.push_back(t);
      for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
        if (h_.ops[o].is_read()) {
          const uint32_t w = h_.writer_txn(o);
          if (drop[o] || !(w == kInitialTxn || w == kThinAir || keep[w])) continue;
        }
        op_of.push_back(o);
      }
    }
  const History sub = project_history(h_, keep, &drop, AmbiguousProjection::AsIs);
  if (sub.ops.size() != op_of.size() || sub.txns.size() != txn_of.size()) return false;
  std::string reason;
  if (!level_applies(sub, level_, reason)) return false;
  ++g_witness_depth;
  LevelResult r = checker_for(level_, /*general_only=*/true)(sub, budget_);
  --g_witness_depth;
  auto txn = [&](uint32_t t) { return t < txn_of.size() ? txn_of[t] : t; };
  if (r.verdict == Verdict::Pass && pass_order) {
    pass_order->clear();
    for (uint32_t t : r.commit_order) pass_order->push_back(txn(t));
  }
  if (r.verdict != Verdict::Fail || r.anomalies.empty()) return false;
  a = std::move(r.anomalies[0]);
  auto op = [&](uint32_t o) { return o < op_of.size() ? op_of[o] : o; };
  for (uint32_t& t : a.txns) t = txn(t);
  for (uint32_t& o : a.ops) o = op(o);
  for (AnomalyEdge& e : a.edges) {
    e.from_txn = txn(e.from_txn);
    e.to_txn = txn(e.to_txn);
    e.from_op = op(e.from_op);
    e.to_op = op(e.to_op);
  }
  return true;
}

}  // namespace

LevelResult check_with_choices(const History& h, Level level, const CheckBudget& budget) {
  Chooser c(h, level, budget);
  return c.run();
}

LevelResult check_choices_in_solver(const History& h, Level level, const CheckBudget& budget) {
  Chooser c(h, level, budget, /*solver_only=*/true);
  return c.run();
}

}  // namespace isoscope
