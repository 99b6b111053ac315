// The choice layer's working state (choice.h says what it decides and how): one Chooser per
// check of a level on a history with ambiguous reads. Its steps live in the files beside this:
//   strategy.cpp       run(): the order of the steps, and the entry points of choice.h
//   first_guess.cpp    each read's candidates and the first choices, from what times say
//   learn.cpp          nogoods from failing choices, the next choice, the witness's words
//   refutations.cpp    proofs that every choice fails (values alone; the fixed reads)
//   solver_bridge.cpp  the strong levels: pruning by known edges, the solver's choice
//   schedules.cpp      the schedule searches' choices (serial_schedule.h, concurrent_schedule.h)
#pragma once
#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <unordered_map>

#include "checkers/check.h"
#include "checkers/choice/choice.h"
#include "checkers/choice/concurrent_schedule.h"
#include "checkers/read_consistency.h"

namespace isoscope::choice {

// A failure shown by one anomaly.
inline LevelResult failure_of(Anomaly a) {
  LevelResult r;
  r.verdict = Verdict::Fail;
  r.anomalies.push_back(std::move(a));
  r.anomalies_total = 1;
  return r;
}

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

class Chooser {
 public:
  // depth: 0 for the history asked about, 1 and more for the sub-histories its witnesses are
  // decided on (a nested check goes no deeper: it reports its own first anomaly).
  Chooser(const History& h, Level level, LevelChecker leaf, const CheckBudget& budget, bool solver_only = false,
          int depth = 0)
      : h_(h), level_(level), leaf_(leaf), depth_(depth), budget_(budget), solver_only_(solver_only),
        is_last_(last_writes_in_txn(h)), work_(h) {
    work_.ambiguous = AmbiguousReads{};
    budget_.cc_holds = false;  // CC holding for SOME choice says nothing of this one
    budget_.cc_unknown = false;
    // The memo is the checked history's (h); the checks of work_ and of projections have none.
    if (budget.memo && (!budget.memo->history || budget.memo->history == &h)) memo_ = budget.memo;
    budget_.memo = nullptr;
  }

  LevelResult run();

 private:
  // The level on a history with the reads chosen (the leaf checker), or on a witness's
  // sub-history that kept some choices (a check of its own, one level deeper).
  LevelResult decide(const History& x, const CheckBudget& b) const {
    if (x.ambiguous.empty()) return leaf_(x, b);
    Chooser nested(x, level_, leaf_, b, /*solver_only=*/false, depth_ + 1);
    return nested.run();
  }
  // The level on the current choice (work_): true when it passes, with out its result (whose
  // time the caller's check counts).
  bool current_choice_passes(LevelResult& out) const {
    LevelResult r = decide(work_, budget_);
    if (r.verdict != Verdict::Pass) return false;
    r.ms = 0;
    out = std::move(r);
    return true;
  }
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
  LevelChecker leaf_;  // the level's checker for histories without ambiguous reads
  int depth_;
  CheckBudget budget_;
  bool solver_only_;  // the solver decides at once (check_with_choices_by_solver)
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

}  // namespace isoscope::choice
