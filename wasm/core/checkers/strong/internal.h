// Internals of the strong checkers (checkers/strong/). See strong.h for the pipeline.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "checkers/result.h"
#include "checkers/strong/strong.h"

namespace isoscope::strong {

// The committed transactions of a history as the strong levels see them. Instance txn 0 is the
// initial transaction; the others are grouped by session, in session order. Reads are the
// external reads (of another transaction's write), one per (key, writer) pair.
struct Instance {
  const History* h = nullptr;
  uint32_t num_keys = 0;
  std::vector<uint32_t> orig;        // instance txn -> History txn
  std::vector<uint32_t> session;     // instance txn -> instance session (kNone for txn 0)
  std::vector<uint32_t> sess_begin;  // txns of session s: [sess_begin[s], sess_begin[s+1])
  struct Read {
    uint32_t key, writer, op;  // writer: instance txn; op: the History read op
  };
  std::vector<uint32_t> rbeg;  // reads of txn t: [rbeg[t], rbeg[t+1])
  std::vector<Read> reads;
  std::vector<uint32_t> wbeg;  // distinct written keys of t: [wbeg[t], wbeg[t+1])
  std::vector<uint32_t> wkeys;
  std::vector<Interval> times;  // exact real time, where timed[t]
  std::vector<char> timed;
  uint32_t n() const { return static_cast<uint32_t>(orig.size()); }
  uint32_t num_sessions() const { return static_cast<uint32_t>(sess_begin.size()) - 1; }
};

// Requires read consistency (check_cc passed): every read's writer is committed.
Instance make_instance(const History& h);
// The sub-history of the transactions with keep[t] (txn 0 is always kept): reads from a
// dropped writer are dropped; empty sessions disappear. Violations of it are violations of
// the whole history (every level here is closed under such projections).
Instance sub_instance(const Instance& in, const std::vector<char>& keep);

// What a node of the SER problem stands for.
enum class Part : uint8_t { Whole, Read, Write };

// A serializability problem: nodes in chains (node 0 = the initial transaction, before all;
// chain c holds nodes [chain_begin[c], chain_begin[c+1]) in order).
struct Problem {
  Level level = Level::SER;
  uint32_t n = 0, k = 0, num_keys = 0;
  bool si = false;  // SI: a write half may not commit while another write half of a
                    // transaction with a common written key is open (read half placed)
  std::vector<uint32_t> chain_begin, chain;  // chain[v]: kNone for node 0
  std::vector<uint32_t> txn;                 // node -> instance txn
  std::vector<Part> part;
  struct Read {
    uint32_t key, writer, op;  // writer: node
  };
  std::vector<uint32_t> rbeg;
  std::vector<Read> reads;
  std::vector<uint32_t> wbeg, wkeys;
  struct Out {
    uint32_t key, count;  // readers of this node's write of key
  };
  std::vector<uint32_t> obeg;
  std::vector<Out> outs;
  // Extra predecessors (real time for SSER; the search adds wr and forced edges).
  struct Edge {
    uint32_t from, to;
    EdgeType type;
    uint32_t key = kNone;
    uint32_t a = kNone, b = kNone;  // WR: read op; WW/RW forced: reader node, read op; CO (SI
                                    // conflict): the other node; RT: unused
    // Forced edges: how many of saturation's edges were known when this one was forced (the
    // path that rules out the alternative uses only those); kNone for the others.
    uint32_t basis = kNone;
  };
  std::vector<Edge> fixed;  // real time
  uint32_t chain_pred(uint32_t v) const {
    if (v == 0) return kNone;
    return v > chain_begin[chain[v]] ? v - 1 : 0;
  }
  // Whether node v writes key.
  bool writes(uint32_t v, uint32_t key) const {
    for (uint32_t i = wbeg[v]; i < wbeg[v + 1]; ++i)
      if (wkeys[i] == key) return true;
    return false;
  }
};

// real_time: SSER's real-time edges (add_real_time adds them later when it is false).
Problem make_problem(const Instance& in, Level level, bool real_time = true);
void add_real_time(const Instance& in, Problem& p);
// The sub-problem of the chains with keep_chain[c]: edges and reads leaving it are dropped.
// node_map receives old node -> new node (kNone when dropped).
Problem sub_problem(const Problem& p, const std::vector<char>& keep_chain,
                    std::vector<uint32_t>& node_map);
void compute_outs(Problem& p);
// The reads of each node's writes (CSR): reads index reads[beg[w], beg[w + 1]) of writer w.
struct ReadsByWriter {
  std::vector<uint32_t> beg, reads;
  explicit ReadsByWriter(const Problem& p);
};

// An open polygraph constraint, one of two orderings (saturate.cpp):
//   serialization (x = read index, y = t2): t2 -> t1 (WW)  or  reader -> t2 (RW)
//   SI conflict   (x = W_t1, y = W_t2 | kConflictFlag): W_t2 -> R_t1  or  W_t1 -> R_t2
struct Constraint {
  uint32_t x, y;
};
constexpr uint32_t kConflictFlag = 0x80000000u;

struct Saturation {
  enum Outcome { Cycle, Settled, Open, Unknown } outcome = Open;
  // Open: the constraints saturation could not settle (complete: every constraint is here or
  // settled by `edges`; incomplete when the constraint cap was hit).
  std::vector<Constraint> open;
  std::vector<uint32_t> reader;  // read index -> reading node
  bool complete = true;
  std::vector<Problem::Edge> edges;  // every known edge (chain edges included); Cycle: they
                                     // close a cycle (shortest_known_cycle finds a shortest)
  std::vector<uint32_t> order;       // Settled: a topological order (a solution)
  size_t constraints = 0, forced = 0, rounds = 0;
};
// polygraph: generate the constraints; force: settle those one side of which would close a
// cycle (off only in tests, so that the solver meets every open constraint).
// Saturation's reachability tables hold at most this many entries (nodes x (sessions + 1)).
constexpr size_t kMaxReachEntries = size_t(48) << 20;  // 48 M (192 MB)
// long_tail_reach: on problems larger than this (nodes x sessions), rounds stop once one forces
// little (the solver takes the rest).
Saturation saturate(const Problem& p, bool polygraph, bool force, const CheckBudget& budget,
                    size_t long_tail_reach = size_t(1) << 20);

struct SearchResult {
  Verdict verdict = Verdict::Unknown;
  std::string reason;
  std::vector<uint32_t> order;  // Pass: nodes in a valid serial order (node 0 first)
  std::vector<char> failed_chains;  // Fail: the chains of the failing component
  size_t states = 0, memo_hits = 0, components = 0;
};
// Alg. 2 on p with the known edges of sat (all but chain edges become predecessors).
SearchResult search(const Problem& p, const Saturation& sat, const StrongOptions& opts,
                    const CheckBudget& budget);

// The polygraph solver (solver.h): CDCL over the open constraints of a complete saturation,
// with an incremental acyclicity theory.
struct SolveResult {
  Verdict verdict = Verdict::Unknown;
  std::string reason;
  std::vector<uint32_t> order;       // Pass: every node in a valid serial order (node 0 first)
  std::vector<char> core_nodes;      // Fail: the nodes of every conflict cycle met
  size_t vars = 0, conflicts = 0, decisions = 0, learned = 0, restarts = 0;
};
// Repeated values: the reads whose writer is a choice (VeriStrong's hyper-polygraph). Each
// reads from one of its candidates (write nodes); a literal per candidate implies its WR edge
// (candidate -> reader), and each open choice constraint (x = candidate index, y = t2) says
// that when the read reads from cands[x], t2 commits before cands[x] or after the reader.
// Candidates are added as the lazy rounds need them (expanded[r] of them, in cands order): a
// read not yet fully expanded has one more literal, "reads from a candidate not yet here",
// which implies nothing (a relaxation: a failure stays sound).
struct Hyper {
  struct Read {
    uint32_t reader, key, op;  // reader: node (the read half for PC/SI); op: History read op
    uint32_t cbeg, cend;       // candidates: cands[cbeg, cend)
    uint32_t expanded;         // how many of them the solver sees
    uint32_t chosen;           // the current choice (a candidate index), or kNone: not yet here
  };
  std::vector<Read> reads;
  std::vector<uint32_t> cands;  // write nodes
  std::vector<Constraint> open;
};
SolveResult solve(const Problem& p, const Saturation& sat, const CheckBudget& budget,
                  Hyper* hyper = nullptr);

// Candidate commit orders (candidate.cpp; the replay in replay.h), to be verified: from the
// timestamps (empty when a transaction has none), and by replaying a whole-transaction problem
// (empty when the replay gets stuck). The replay is a search: when the budget runs out it stops undoing its choices
// (forced: it places the rest by its fallback, guessing, and gives up after max_guesses
// guesses; else it gives up).
std::vector<uint32_t> timestamp_order(const Instance& in, const Problem& p);
std::vector<uint32_t> replay_order(const Problem& p, bool force = false, const CheckBudget* budget = nullptr,
                                   size_t max_guesses = SIZE_MAX);
// A whole-transaction order (of the SER problem) as one of the split problems (PC, SI): each
// transaction's read half then its write half. Empty for an empty order.
std::vector<uint32_t> split_order(const std::vector<uint32_t>& whole);
// A whole-transaction order that may break reads (a forced replay's) as one of the split
// problems: each transaction commits at its place and takes its snapshot (read half) at the
// latest place before it where every value it read is current. Where a serial order breaks
// only reads that an older snapshot sees (a write skew), this one holds for PC and SI; for a
// serial order it is split_order's.
std::vector<uint32_t> snapshot_order(const Problem& ser, const std::vector<uint32_t>& whole);
// A guess for split problems and the rest: sessions interleaved by their progress (each node at
// the fraction of its chain that precedes it).
std::vector<uint32_t> progress_order(const Problem& p);
// A topological order of the known edges (chains, reads, p.fixed), node 0 first; empty when
// they close a cycle. A candidate where they are the whole story: list-append histories,
// whose lists give the version order (make_problem).
std::vector<uint32_t> known_order(const Problem& p);
// Whether order (whole transactions) extends the real-time order of the timestamps.
bool respects_real_time(const Instance& in, const Problem& p, const std::vector<uint32_t>& order);

// The lazy polygraph (lazy.cpp): from a candidate order (every node once), the solver on the
// constraints the candidates violate, until one violates none (pass) or the solver fails.
// real_time: SSER's real-time edges, added as the candidates break them (p.fixed then holds
// none).
struct LazyStats {
  size_t rounds = 0, constraints = 0, vars = 0, conflicts = 0;
};
SolveResult lazy_solve(const Problem& p, const Instance* real_time, std::vector<uint32_t> order,
                       const CheckBudget& budget, LazyStats& stats, Hyper* hyper = nullptr);
// The lazy polygraph's first candidate order: the timestamps', else a replay (for split
// problems, SER's with snapshots), else the sessions interleaved by progress.
std::vector<uint32_t> first_order(const Instance& in, const Problem& p, const CheckBudget* budget = nullptr);

// Whether order (nodes, node 0 first) satisfies p: every known edge, the serialization
// axiom, and SI's conflict rule.
bool verify_order(const Problem& p, const std::vector<Problem::Edge>& edges,
                  const std::vector<uint32_t>& order);

// The decision alone (no witness work): saturation then search.
struct Decision {
  Verdict verdict = Verdict::Unknown;
  std::string reason;
  Problem problem;
  Saturation sat;
  SearchResult search;  // when the session-antichain search decided
  SolveResult solved;   // when the polygraph solver decided
  bool by_solver = false;
  std::vector<uint32_t> order;  // Pass: nodes
  bool by_ser = false;          // PC / SI decided by a SER witness
  bool by_candidate = false;    // a pass by a candidate order (timestamps, replay)
  bool by_lazy = false;         // decided by the lazy polygraph (solved holds its result)
  LazyStats lazy;
  std::vector<uint32_t> guess;  // a candidate order that did not verify (the lazy polygraph's start)
};
Decision decide(const Instance& in, Level level, const StrongOptions& opts,
                const CheckBudget& budget);

// Witnesses.
// A shortest cycle of sat.edges counted in transactions (a read half -> write half edge counts
// nothing), as edge indexes in cycle order; among the two-transaction cycles, one whose
// explanation needs the fewest other transactions. First it adds to sat.edges what the edges
// of saturation's last round force directly (one more step: saturation stops at the first
// round that closes a cycle). Bounded work: every two-transaction cycle is found
// (linear time); longer ones are looked for within a budget of edge visits, so a longer cycle
// than the shortest may be returned on large graphs. Empty when the edges are acyclic.
std::vector<uint32_t> shortest_known_cycle(const Problem& p, Saturation& sat);
// sat: its outcome is Cycle; the witness may add derived edges to it.
Anomaly cycle_anomaly(const Instance& in, const Problem& p, Saturation& sat, Level level);
Anomaly core_anomaly(const Instance& core, Level level, const CheckBudget& budget,
                     bool minimal);

}  // namespace isoscope::strong
