// The replay (replay_order, internal.h): the history executed again one transaction at a time
// against a store, choosing next a transaction whose reads see the current values and whose
// writes overwrite no value still to be read. A search: it prefers the transaction with the
// longest chain of known edges still after it, and at a dead end learns which of its placements
// must turn around and backjumps there (within a budget); asked to (force), it guesses on when
// learning runs out. Its parts: the indexes, the store, the front and the queues of runnable
// transactions, and the main loop (replay.cpp); the conflict analysis and the learned edges
// (replay_learn.cpp).
#pragma once
#include <cstdint>
#include <deque>
#include <queue>
#include <utility>
#include <vector>

#include "checkers/strong/internal.h"

namespace isoscope::strong {

class Replay {
 public:
  Replay(const Problem& p, bool force, const CheckBudget* budget, size_t max_guesses);
  // Every node once, node 0 first; empty when the replay gives up.
  std::vector<uint32_t> run();

 private:
  // Learned edges (the conflict analysis, replay_learn.cpp): `to` runs only after one of `froms`
  // (most often one node), for as long as the placements the conflict rested on stay (guard: the
  // place of the last of them; kNone: for good). An edge adds one to indeg_[to] while none of its
  // froms is placed.
  struct Learned {
    uint32_t to, guard, fbeg, fend, placed_froms;
    bool active;
  };
  struct Link {
    uint32_t edge, next;
  };
  // A condition (V, U): U placed while V is not.
  using Cond = std::pair<uint32_t, uint32_t>;

  // The store and the front (replay.cpp).
  // Whether the current value of x still has readers to run (live_ kept up to date).
  void refresh(uint32_t x);
  void enter(uint32_t u);  // u's known predecessors are all placed: it joins the front
  void leave(uint32_t u);
  // Visits the unplaced nodes that must run before u along the known edges and the values
  // their writes would overwrite (the current value's readers go first).
  template <class Visit>
  void visit_before(uint32_t u, Visit&& visit);
  // Whether another unplaced writer of x must run before r (so it cannot come after v's write
  // that r reads, nor between it and r): a backward search from r through the unplaced nodes,
  // bounded: left is the nodes it may still visit, shared by the searches of one transaction's
  // readers (beyond it, assumed not: a value read by thousands would otherwise cost thousands of
  // searches each time its writer is considered).
  bool writer_before(uint32_t r, uint32_t x, uint32_t v, uint32_t& left);
  // Whether v can run now without a violation: its reads see the latest writes, no value it
  // overwrites has a reader still to run (other than v itself), and no reader of its writes
  // depends on another write of the key still to run. blocked_on: a key to wait on (v may run
  // once it changes).
  bool clean(uint32_t v, uint32_t& blocked_on, bool lookahead = true);
  // v into the queues: a ready one if clean, else it waits on its key.
  void consider(uint32_t v);
  void unblock(uint32_t u);  // one known (or learned) predecessor of u placed
  void block(uint32_t u);    // one placed again
  void wake_keys();
  template <class F>
  void each_out(uint32_t v, F&& f);  // the active learned edges from v
  void place(uint32_t v);
  // Undoes the last placement (the queues are rebuilt after a backjump).
  void undo();
  // The writers the present waits on: a value still to be read pins its key until its readers
  // run, so their unplaced predecessors (visit_before) come next. Among those whose known
  // predecessors are all placed, the clean one with the longest path left; kNone when none.
  uint32_t demanded();
  // Whether u, taken from a queue, may run now (else it leaves the queue).
  bool takes(uint32_t u);
  // After a backjump the queues start again from the front.
  void rebuild();

  // The conflict analysis (replay_learn.cpp).
  void hold(uint32_t e);
  void release(uint32_t e);
  void append_conds(uint32_t e, std::vector<Cond>& out);
  // Nodes of the front one of which must run before r (r itself when it is there), the
  // conditions of the learned edges it went through appended to conds: one known (or learned)
  // predecessor is followed where there is one, else every from of a learned edge with several.
  // False beyond the bound.
  bool before_set(uint32_t r, std::vector<uint32_t>& out, std::vector<Cond>& conds);
  // Drops the learned edges whose conditions no longer hold (a placement they rest on undone).
  void drop_stale();
  // Whether a path of known and learned edges runs from u to v among the nodes a backjump to
  // `last` leaves unplaced (learned edges that outlive it only); the conditions of the learned
  // edges on it are appended to conds.
  bool path_to(uint32_t u, uint32_t v, uint32_t last, std::vector<Cond>& conds);
  // Backjumps to just before the last placed U of clause, which then waits for its V.
  bool backjump_and_learn(std::vector<Cond>& clause);
  // S: nodes of the front, each held up by a value whose reader r waits for nodes of S. None of S
  // can run first among them (it would overwrite the value before r reads it), and so none
  // can ever run: some (V, U) of S must turn around (or a condition of the learned edges the
  // waits went through). S closed from one seed: its pairs (V, U) in lits_, the conditions in
  // conds_, its nodes in seq_; false when some node of it is not held up so (or a search ran
  // beyond its bound).
  bool close_from(uint32_t seed);
  // Analyses the dead end; on success backjumps and learns (true).
  bool learn();
  // Every learned edge gone (before the guesses of a forced replay).
  void forget_learned();

  const Problem& p_;
  const uint32_t n_;
  const bool force_;
  const CheckBudget* budget_;
  const size_t max_guesses_;

  // The known edges: successors (CSR), the count of unplaced predecessors, predecessors by the
  // fixed edges (CSR), and the longest path of known edges from each node to the end.
  std::vector<uint32_t> indeg_, sbeg_, succ_, fbeg_, fpred_, height_;
  // Readers still to run of each (writer, key) (index into p.outs, "out"); the out of each read
  // and of each write (kNone: not read), the reads of each out (CSR) and of each writer, the
  // reader of each read.
  std::vector<uint32_t> pending_, read_out_, wout_, orbeg_, oreads_, reader_;
  const ReadsByWriter by_writer_;
  // The store: the out of the current value of each key, its writer; the keys whose current
  // value still has readers to run (an indexed set); the values placements overwrote.
  std::vector<uint32_t> cur_out_, latest_, live_, live_at_, saved_latest_, wake_;
  std::vector<char> placed_, queued_;
  std::vector<uint32_t> mark_, stack_;  // writer_before's search
  uint32_t epoch_ = 0;
  std::vector<uint32_t> order_, at_;  // at_: each placed node's place in order_
  // The nodes whose known predecessors are all placed (an indexed set).
  std::vector<uint32_t> front_, front_at_;
  // The queues: transactions none of whose writes is read, the writers (by height), those
  // waiting on a key, and the last resort (known predecessors placed, by height).
  std::deque<uint32_t> ready_free_;
  std::priority_queue<std::pair<uint32_t, uint32_t>> ready_writers_;  // (height, node)
  std::vector<std::vector<uint32_t>> waiting_;                         // blocked on a key
  std::priority_queue<std::pair<uint32_t, uint32_t>> blocked_;
  std::vector<uint32_t> dmark_, dstack_;  // demanded's search
  uint32_t depoch_ = 0;

  // The learned edges.
  std::vector<Learned> learned_;
  std::vector<uint32_t> learned_froms_;
  std::vector<uint32_t> out_head_, in_head_;  // per node: lists of links
  std::vector<Link> links_;
  std::priority_queue<std::pair<uint32_t, uint32_t>> guarded_;  // (guard, edge) of those active
  // The active edges none of whose froms is placed (those holding a node back), an indexed set:
  // the analysis lists them at some dead ends, and a scan of every edge learned made those
  // quadratic on 10^6 transactions.
  std::vector<uint32_t> holding_, holding_at_;
  std::vector<Cond> cond_pool_;  // the conditions of each learned edge: [cbeg, cend) by edge
  std::vector<std::pair<uint32_t, uint32_t>> cond_range_;
  // The analysis' searches and sets.
  std::vector<uint32_t> cmark_, parent_, via_, in_set_, cstack_;
  uint32_t cepoch_ = 0;
  std::vector<Cond> lits_, conds_, best_conds_, trial_conds_;
  std::vector<uint32_t> seq_, root_marked_, best_, trial_;
  std::vector<char> in_root_;
};

}  // namespace isoscope::strong
