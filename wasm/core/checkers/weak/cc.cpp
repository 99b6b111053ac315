// Causal Consistency (AWDIT Alg. 3, O(n*k) for k sessions).
//
// Axiom: t1 != t2, t1 -wr_x-> t3, t2 writes x, t2 -(so ∪ wr)+-> t3  =>  t2 -co-> t1.
// so ∪ wr must be acyclic (else the causality cycles are the anomalies). Transactions are then
// visited in a topological order of so ∪ wr with vector clocks: HB(t3)[s'] is the so-latest
// transaction of session s' that happens before t3. For a read of x from t1 and each session s'
// that writes x, the latest writer t2 of x in s' with t2 <= HB(t3)[s'] must commit before t1;
// earlier writers of s' follow through session order, and a t2 that already happens before t1
// adds nothing (that ordering is in so ∪ wr).
//
// Memory: clocks have one entry per session that writes anything. A session's running clock
// lives from its first to its last transaction; a transaction's own clock is kept only while
// a reader in another session has not been visited yet, then recycled. So memory is
// O(k * (active sessions + pending writers)), not O(n * k).
//
// Many sessions (more than kDenseWidth that write): a dense clock per session would cost
// O(k) to create and to join, O(n * k) in all, quadratic when each session holds a few
// transactions (a million clients of one operation each). Clocks are then sparse, sorted
// (session, index) pairs holding only the sessions a transaction has heard of, and the axiom
// visits the smaller of t3's clock and x's writer sessions. Same algorithm, same verdicts and
// edges; the dense form stays for ordinary histories, where it is faster.
//
// Few edges (CoEdges): an edge t2 -> t1 from the i-th transaction of session s' to the j-th of
// session S is implied by any edge from (s', i' >= i) to (S, j' <= j), through session order
// (t2 -so-> t2' -co-> t1' -so-> t1). The axiom gives about one edge per read and writer session
// (10^8 on 10^6 transactions of 100 sessions), mostly implied so: only the edges no other edge
// implies are kept, a staircase per pair of sessions. The closure of so ∪ wr ∪ co, hence the
// verdict and every strongly connected component, is unchanged, and every kept edge is a real
// instance of the axiom, so a cycle of the kept edges is a cycle of the full relation.
#include <algorithm>
#include <optional>
#include <utility>

#include "checkers/weak/cc_storage.h"
#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"
#include "util/memory.h"

namespace isoscope {

using cc_storage::ClockPool;
using cc_storage::CoEdges;
using cc_storage::SparsePool;
using cc_storage::kMaxClockBytes;

namespace {

// Above this many writing sessions, clocks are sparse.
constexpr uint32_t kDenseWidth = 2048;

// The writers of one key in one session: entries [begin, end) of entry_txn / entry_idx; finger
// is the entry the last search answered.
struct Group {
  uint32_t session, dim, begin, end, finger;
};

// The last entry of gr (by session index, idx) at or before index bound, or kNone. The search
// gallops from the group's last answer: the visit follows causality, so the bounds asked of
// one group mostly grow a little at a time, and a search costs O(1) rather than O(log n).
uint32_t latest_at_most(Group& gr, const int32_t* idx, int32_t bound) {
  uint32_t lo, hi;  // idx[lo] <= bound < idx[hi] (lo = begin - 1, hi = end: the ends)
  uint32_t f = gr.finger;
  if (idx[f] <= bound) {
    lo = f;
    uint32_t step = 1;
    while (lo + step < gr.end && idx[lo + step] <= bound) lo += step, step *= 2;
    hi = std::min(lo + step, gr.end);
  } else {
    hi = f;
    uint32_t step = 1;
    while (hi >= gr.begin + step && idx[hi - step] > bound) hi -= step, step *= 2;
    if (hi == gr.begin) return kNone;
    lo = hi >= gr.begin + step ? hi - step : gr.begin;
    if (idx[lo] > bound) return kNone;
  }
  // idx[lo] <= bound; the answer is the last position in [lo, hi) with idx <= bound.
  const uint32_t at = static_cast<uint32_t>(std::upper_bound(idx + lo + 1, idx + hi, bound) - idx) - 1;
  gr.finger = at;
  return at;
}

LevelResult out_of_clock_memory() {
  return unknown_result("causal consistency needs more than 1.5 GB of vector clocks for this history");
}

LevelResult out_of_edge_memory() {
  return unknown_result("causal consistency needs more memory than is available for the orderings this history forces");
}

// Each committed transaction's written keys, each once per transaction, in transaction order:
// f(transaction, key). stamp: a scratch array of a slot per key.
template <class F>
void for_each_written_key(const History& h, std::vector<uint32_t>& stamp, F f) {
  std::fill(stamp.begin(), stamp.end(), kNone);
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const Txn& x = h.txns[t];
    if (!x.committed) continue;
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      const Op& op = h.ops[o];
      if (!op.is_write() || stamp[op.key] == t) continue;
      stamp[op.key] = t;
      f(t, op.key);
    }
  }
}

// Every 4,096 transactions of the visit: whether to stop it, for the budget or for memory.
template <class Pool>
std::optional<LevelResult> visit_limits(size_t& visited, const CheckBudget& budget, const Pool& pool, const CoEdges& co) {
  if ((++visited & 4095) != 0) return std::nullopt;
  if (budget.expired()) return CheckBudget::ran_out();
  if (pool.bytes() > kMaxClockBytes) return out_of_clock_memory();
  if (co.too_many()) return out_of_edge_memory();
  return std::nullopt;
}

// After t3's visit (its reads are R's entries b..e): the clocks no one reads again go back to
// the pool: a writer's own clock once its last reader in another session was visited (each
// writer counted once per reader), t3's session's running clock at the session's end.
template <class Pool>
void release_after_visit(Pool& pool, const History& h, const weak::Reads& R, uint32_t b, uint32_t e, uint32_t t3,
                         std::vector<uint32_t>& seen, std::vector<uint32_t>& pending, std::vector<uint32_t>& own_slot,
                         std::vector<uint32_t>& run_slot, const std::vector<uint32_t>& last_in_session) {
  const uint32_t s = h.txns[t3].session;
  for (uint32_t i = b; i < e; ++i) {
    const uint32_t w = R.writer[i];
    if (w == kInitialTxn || seen[w] != t3 || h.txns[w].session == s) continue;
    seen[w] = kNone;
    if (--pending[w] == 0) {
      pool.release(own_slot[w]);
      own_slot[w] = kNone;
    }
  }
  if (last_in_session[s] == t3) {
    pool.release(run_slot[s]);
    run_slot[s] = kNone;
  }
}

// The end of check_cc: the kept co edges join so ∪ wr in g, whose cycles are the anomalies.
LevelResult finish(const History& h, weak::CoGraph& g, CoEdges& co, LevelResult& res,
                   std::vector<std::pair<uint32_t, uint32_t>>* kept_out) {
  co.settle();
  size_t kept = 0;
  co.for_each([&](const CoEdges::Edge&) { ++kept; });
  // The graph holds each edge in its builder, its reasons and its adjacency (28 bytes).
  if (co.too_many() || !can_allocate(kept * 28)) return out_of_edge_memory();
  g.reserve_co(kept);
  co.for_each([&](const CoEdges::Edge& e) { g.add_co(e.t2, e.t1, kNone, e.rx); });
  if (kept_out)
    co.for_each([&](const CoEdges::Edge& e) { kept_out->push_back({e.t2, e.t1}); });
  co.release();
  weak::report_cycles(h, g.build(), g.co, weak::Axiom::CC, res);
  weak::set_verdict(res);
  return std::move(res);
}

// The visit of the dense loop in check_cc, with sparse clocks (see the header comment); adds
// the co edges to g. Returns a result only when it stops early (budget, memory).
std::optional<LevelResult> visit_sparse(const History& h, const weak::Reads& R, const std::vector<uint32_t>& order,
                                        CoEdges& co, const CheckBudget& budget, const std::vector<uint32_t>& dim,
                                        uint32_t width, std::vector<Group>& groups,
                                        const std::vector<uint32_t>& gbeg, const std::vector<uint32_t>& entry_txn,
                                        const std::vector<int32_t>& entry_idx, std::vector<uint32_t>& pending,
                                        std::vector<uint32_t>& seen, const std::vector<uint32_t>& last_in_session) {
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const uint32_t ns = static_cast<uint32_t>(h.num_sessions());
  std::vector<uint32_t> dim_session(width);
  for (uint32_t s = 0; s < ns; ++s)
    if (dim[s] != kNone) dim_session[dim[s]] = s;
  SparsePool pool;
  std::vector<uint32_t> run_slot(ns, kNone), own_slot(n, kNone);
  std::vector<std::pair<uint32_t, int32_t>> cand;  // per read: (group, bound) worth a search
  size_t visited = 0;
  for (uint32_t t3 : order) {
    if (t3 == kInitialTxn || !h.txns[t3].committed) continue;
    if (std::optional<LevelResult> stop = visit_limits(visited, budget, pool, co)) return stop;
    const Txn& x3 = h.txns[t3];
    const uint32_t s = x3.session;
    if (run_slot[s] == kNone) run_slot[s] = pool.alloc();
    const uint32_t C = run_slot[s];
    const uint32_t b = R.begin[t3], e = R.begin[t3 + 1];
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t w = R.writer[i];
      if (w == kInitialTxn || seen[w] == t3 || h.txns[w].session == s) continue;
      seen[w] = t3;
      if (pool.get(C, dim[h.txns[w].session]) >= static_cast<int32_t>(h.txns[w].index)) continue;
      pool.join(C, own_slot[w]);
    }
    const std::vector<SparsePool::Entry>& CE = pool.at(C);
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t rx = R.op[i], x = h.ops[rx].key, t1 = R.writer[i];
      uint32_t T1 = kNone, t1_session = kNone;
      int32_t t1_index = -1;
      if (t1 != kInitialTxn) {
        t1_session = h.txns[t1].session;
        t1_index = static_cast<int32_t>(h.txns[t1].index);
        if (t1_session != s) T1 = own_slot[t1];
      }
      const CoEdges::Floors floor = co.floors(t1);
      auto lo_of = [&](const Group& gr) {
        return std::max(T1 != kNone ? pool.get(T1, gr.dim) : (gr.session == t1_session ? t1_index : -1), floor(gr.dim));
      };
      cand.clear();
      const uint32_t g0 = gbeg[x], g1 = gbeg[x + 1];
      if (CE.size() < g1 - g0) {
        // The sessions t3 has heard of, each looked up among x's writer sessions (by session).
        for (const auto& [d, bound] : CE) {
          const uint32_t ws = dim_session[d];
          auto it = std::lower_bound(groups.begin() + g0, groups.begin() + g1, ws,
                                     [](const Group& gr, uint32_t v) { return gr.session < v; });
          if (it == groups.begin() + g1 || it->session != ws) continue;
          if (bound > lo_of(*it)) cand.push_back({static_cast<uint32_t>(it - groups.begin()), bound});
        }
      } else {
        for (uint32_t gi = g0; gi < g1; ++gi) {
          const int32_t bound = pool.get(C, groups[gi].dim);
          if (bound > lo_of(groups[gi])) cand.push_back({gi, bound});
        }
      }
      for (const auto& [gi, bound] : cand) {
        Group& gr = groups[gi];
        const uint32_t at = latest_at_most(gr, entry_idx.data(), bound);
        if (at == kNone || entry_idx[at] <= lo_of(gr)) continue;
        co.add(entry_txn[at], gr.dim, t1, rx);
      }
    }
    if (dim[s] != kNone) pool.set(C, dim[s], static_cast<int32_t>(x3.index));
    if (pending[t3] > 0) {
      own_slot[t3] = pool.alloc();
      pool.copy(own_slot[t3], C);
    }
    release_after_visit(pool, h, R, b, e, t3, seen, pending, own_slot, run_slot, last_in_session);
  }
  return std::nullopt;
}
}  // namespace

namespace {
LevelResult run_cc(const History& h, const CheckBudget& budget, CcClocks clocks, CcEdges edges,
                   std::vector<std::pair<uint32_t, uint32_t>>* kept_out);
}  // namespace

LevelResult check_cc(const History& h, const CheckBudget& budget) { return check_cc(h, budget, CcClocks::Auto); }

size_t cc_clock_bytes_estimate(const History& h) {
  const size_t txns = h.txns.size(), sessions = h.num_sessions();
  // Per transaction: its slot, pending count and mark (16 bytes); sparse clocks add a list
  // header and a few entries (measured: 10^6 one-operation sessions peak at 217 MB in all),
  // and the kept orderings a few more (a transaction hears of few sessions).
  if (sessions > kDenseWidth) return txns * 96;
  // Dense: one clock per running session and per transaction a reader has yet to visit; the
  // checker stops (unknown) beyond kMaxClockBytes, so more is never needed. The kept orderings
  // (measured: 13 per transaction on 10^6 transactions of 100 sessions, at 16 bytes while
  // found and 28 in the graph) grow with the sessions; the checker probes memory before it
  // grows them (unknown when it cannot), so this is what they usually need, not a bound.
  const size_t orderings = txns * std::min<size_t>(sessions, 16) * 16;
  return txns * 16 + std::min(txns * sessions * 4, kMaxClockBytes) + CoEdges::filter_bytes(static_cast<uint32_t>(sessions)) + orderings;
}

LevelResult check_cc(const History& h, const CheckBudget& budget, CcClocks clocks, CcEdges edges) {
  return run_cc(h, budget, clocks, edges, nullptr);
}

std::vector<std::pair<uint32_t, uint32_t>> cc_kept_orderings(const History& h, CcClocks clocks, CcEdges edges) {
  std::vector<std::pair<uint32_t, uint32_t>> kept;
  run_cc(h, CheckBudget{}, clocks, edges, &kept);
  return kept;
}

namespace {
LevelResult run_cc(const History& h, const CheckBudget& budget, CcClocks clocks, CcEdges edges,
                   std::vector<std::pair<uint32_t, uint32_t>>* kept_out) {
  if (!h.ambiguous.empty()) return unresolved_reads();  // checker_for routes them
  if (budget.stats) ++budget.stats->cc_runs;
  weak::Reads R = weak::collect_reads(h);
  LevelResult res = weak::begin_result(h);
  weak::CoGraph g(h, R);
  std::vector<uint32_t> order;
  {
    Digraph hb = g.build();
    order = topological_order(hb);
    if (order.empty()) {  // so ∪ wr is cyclic: report its cycles
      weak::report_cycles(h, hb, g.co, weak::Axiom::CC, res);
      weak::set_verdict(res);
      return res;
    }
  }
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const size_t nk = h.keys.size();
  const uint32_t ns = static_cast<uint32_t>(h.num_sessions());

  // Writers of each key in transaction order (= grouped by session, in session order), one
  // entry per (transaction, key); then per key the groups of entries of one session.
  std::vector<uint32_t> kbeg(nk + 1, 0);
  std::vector<uint32_t> kstamp(nk);
  std::vector<char> writes_any(ns, 0);
  for_each_written_key(h, kstamp, [&](uint32_t t, uint32_t key) {
    ++kbeg[key + 1];
    writes_any[h.txns[t].session] = 1;
  });
  for (size_t k = 0; k < nk; ++k) kbeg[k + 1] += kbeg[k];
  std::vector<uint32_t> entry_txn(kbeg[nk]);
  std::vector<int32_t> entry_idx(kbeg[nk]);
  {
    std::vector<uint32_t> pos(kbeg.begin(), kbeg.end() - 1);
    for_each_written_key(h, kstamp, [&](uint32_t t, uint32_t key) {
      entry_txn[pos[key]] = t;
      entry_idx[pos[key]++] = static_cast<int32_t>(h.txns[t].index);
    });
  }
  // Clock dimensions: sessions that write.
  std::vector<uint32_t> dim(ns, kNone);
  uint32_t width = 0;
  for (uint32_t s = 0; s < ns; ++s)
    if (writes_any[s]) dim[s] = width++;
  std::vector<uint32_t> gbeg(nk + 1, 0);
  std::vector<Group> groups;
  for (size_t k = 0; k < nk; ++k) {
    gbeg[k] = static_cast<uint32_t>(groups.size());
    for (uint32_t i = kbeg[k]; i < kbeg[k + 1]; ++i) {
      const uint32_t s = h.txns[entry_txn[i]].session;
      if (i == kbeg[k] || groups.back().session != s)
        groups.push_back({s, dim[s], i, i + 1, i});
      else
        groups.back().end = i + 1;
    }
  }
  gbeg[nk] = static_cast<uint32_t>(groups.size());


  // Pending readers in other sessions of each transaction (its clock lives until they are
  // visited), and each session's last committed transaction (its running clock dies there).
  std::vector<uint32_t> pending(n, 0), seen(n, kNone);
  for (uint32_t t = 1; t < n; ++t)
    for (uint32_t i = R.begin[t]; i < R.begin[t + 1]; ++i) {
      const uint32_t w = R.writer[i];
      if (w == kInitialTxn || seen[w] == t || h.txns[w].session == h.txns[t].session) continue;
      seen[w] = t;
      ++pending[w];
    }
  std::vector<uint32_t> last_in_session(ns, kNone);
  for (uint32_t t = 1; t < n; ++t)
    if (h.txns[t].committed) last_in_session[h.txns[t].session] = t;

  CoEdges co(h, dim, width, edges);
  const bool sparse = clocks == CcClocks::Sparse || (clocks == CcClocks::Auto && width > kDenseWidth);
  if (sparse) {
    std::fill(seen.begin(), seen.end(), kNone);
    if (std::optional<LevelResult> stop = visit_sparse(h, R, order, co, budget, dim, width, groups, gbeg,
                                                       entry_txn, entry_idx, pending, seen, last_in_session))
      return *stop;
    return finish(h, g, co, res, kept_out);
  }

  ClockPool pool(width);
  std::vector<uint32_t> run_slot(ns, kNone), own_slot(n, kNone);
  std::fill(seen.begin(), seen.end(), kNone);
  size_t visited = 0;
  std::vector<uint32_t> cand;  // per read: groups worth a binary search
  for (size_t k = 0; k < nk; ++k) cand.resize(std::max<size_t>(cand.size(), gbeg[k + 1] - gbeg[k]));
  // Each key's writer group per dimension (kNone: none), when that table is small: a read of a
  // key most sessions write then compares t3's and t1's clocks whole (contiguous, vectorized)
  // rather than group by group, and looks groups up only where t3 knows more.
  std::vector<uint32_t> group_at, dcand;
  if (nk * width <= (size_t(1) << 22)) {
    group_at.assign(nk * width, kNone);
    for (size_t k = 0; k < nk; ++k)
      for (uint32_t gi = gbeg[k]; gi < gbeg[k + 1]; ++gi) group_at[k * width + groups[gi].dim] = gi;
    dcand.resize(width);
  }
  for (uint32_t t3 : order) {
    if (t3 == kInitialTxn || !h.txns[t3].committed) continue;
    if (std::optional<LevelResult> stop = visit_limits(visited, budget, pool, co)) return *stop;
    const Txn& x3 = h.txns[t3];
    const uint32_t s = x3.session;
    if (run_slot[s] == kNone) {
      run_slot[s] = pool.alloc();
      std::fill_n(pool.at(run_slot[s]), width, -1);
    }
    int32_t* C = pool.at(run_slot[s]);
    const uint32_t b = R.begin[t3], e = R.begin[t3 + 1];
    // HB(t3) = HB(previous in session) joined with the inclusive clocks of its writers.
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t w = R.writer[i];
      if (w == kInitialTxn || seen[w] == t3 || h.txns[w].session == s) continue;
      seen[w] = t3;
      // HB sets are causally closed: if C already covers w, it covers w's whole past.
      if (C[dim[h.txns[w].session]] >= static_cast<int32_t>(h.txns[w].index)) continue;
      const int32_t* P = pool.at(own_slot[w]);
      for (uint32_t d = 0; d < width; ++d) C[d] = std::max(C[d], P[d]);
    }
    // The axiom for each read.
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t rx = R.op[i], x = h.ops[rx].key, t1 = R.writer[i];
      const int32_t* T1 = nullptr;
      uint32_t t1_session = kNone;
      int32_t t1_index = -1;
      if (t1 != kInitialTxn) {
        t1_session = h.txns[t1].session;
        t1_index = static_cast<int32_t>(h.txns[t1].index);
        if (t1_session != s) T1 = pool.at(own_slot[t1]);
      }
      const CoEdges::Floors floor = co.floors(t1);
      if (T1 && !group_at.empty() && 4 * (gbeg[x + 1] - gbeg[x]) >= width) {
        uint32_t m = 0;
        for (uint32_t d = 0; d < width; ++d) {
          dcand[m] = d;
          m += C[d] > T1[d];
        }
        const uint32_t* row = group_at.data() + static_cast<size_t>(x) * width;
        for (uint32_t ci = 0; ci < m; ++ci) {
          const uint32_t d = dcand[ci], gi = row[d];
          if (gi == kNone) continue;
          const int32_t bound = C[d], lo = std::max(T1[d], floor(d));
          if (bound <= lo) continue;
          Group& gr = groups[gi];
          const uint32_t at = latest_at_most(gr, entry_idx.data(), bound);
          if (at == kNone || entry_idx[at] <= lo) continue;
          co.add(entry_txn[at], d, t1, rx);
        }
        continue;
      }
      // First pass (branch-free): the sessions where t3 knows more of x's writers than t1, and
      // more than an edge already kept into t1's session implies.
      uint32_t m = 0;
      for (uint32_t gi = gbeg[x]; gi < gbeg[x + 1]; ++gi) {
        const Group& gr = groups[gi];
        const int32_t lo = std::max(T1 ? T1[gr.dim] : (gr.session == t1_session ? t1_index : -1), floor(gr.dim));
        cand[m] = gi;
        m += C[gr.dim] > lo;
      }
      for (uint32_t ci = 0; ci < m; ++ci) {
        const uint32_t gi = cand[ci];
        Group& gr = groups[gi];
        const int32_t bound = C[gr.dim];
        const int32_t lo = std::max(T1 ? T1[gr.dim] : (gr.session == t1_session ? t1_index : -1), floor(gr.dim));
        const uint32_t at = latest_at_most(gr, entry_idx.data(), bound);
        if (at == kNone || entry_idx[at] <= lo) continue;
        co.add(entry_txn[at], gr.dim, t1, rx);
      }
    }
    if (dim[s] != kNone) C[dim[s]] = static_cast<int32_t>(x3.index);
    if (pending[t3] > 0) {
      own_slot[t3] = pool.alloc();
      std::copy_n(pool.at(run_slot[s]), width, pool.at(own_slot[t3]));
    }
    release_after_visit(pool, h, R, b, e, t3, seen, pending, own_slot, run_slot, last_in_session);
  }
  return finish(h, g, co, res, kept_out);
}

}  // namespace

}  // namespace isoscope
