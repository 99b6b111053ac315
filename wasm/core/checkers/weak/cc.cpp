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
#include <algorithm>
#include <atomic>
#include <optional>
#include <utility>

#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"
#include "checkers/choice.h"

namespace isoscope {

namespace {

class ClockPool {
 public:
  explicit ClockPool(uint32_t width) : w_(width) {}
  uint32_t alloc() {
    if (!free_.empty()) {
      uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    data_.resize(data_.size() + w_);
    return slots_++;
  }
  void release(uint32_t slot) { free_.push_back(slot); }
  int32_t* at(uint32_t slot) { return data_.data() + static_cast<size_t>(slot) * w_; }
  size_t bytes() const { return data_.capacity() * sizeof(int32_t); }

 private:
  uint32_t w_;
  uint32_t slots_ = 0;
  std::vector<int32_t> data_;
  std::vector<uint32_t> free_;
};

constexpr size_t kMaxClockBytes = size_t(1536) << 20;  // 1.5 GB: beyond this, give up (unknown)

// Sparse clocks: per slot a sorted list of (dimension, index); a missing dimension is -1.
class SparsePool {
 public:
  using Entry = std::pair<uint32_t, int32_t>;
  uint32_t alloc() {
    if (!free_.empty()) {
      const uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    clocks_.emplace_back();
    return static_cast<uint32_t>(clocks_.size() - 1);
  }
  void release(uint32_t slot) {
    bytes_ -= clocks_[slot].capacity() * sizeof(Entry);
    std::vector<Entry>().swap(clocks_[slot]);  // its memory goes back now: a freed clock may be large
    free_.push_back(slot);
  }
  const std::vector<Entry>& at(uint32_t slot) const { return clocks_[slot]; }
  int32_t get(uint32_t slot, uint32_t dim) const {
    const std::vector<Entry>& c = clocks_[slot];
    auto it = std::lower_bound(c.begin(), c.end(), Entry{dim, INT32_MIN});
    return it != c.end() && it->first == dim ? it->second : -1;
  }
  void set(uint32_t slot, uint32_t dim, int32_t v) {
    std::vector<Entry>& c = clocks_[slot];
    auto it = std::lower_bound(c.begin(), c.end(), Entry{dim, INT32_MIN});
    if (it != c.end() && it->first == dim) {
      it->second = v;
    } else {
      const size_t before = c.capacity();
      c.insert(it, Entry{dim, v});
      bytes_ += (c.capacity() - before) * sizeof(Entry);
    }
  }
  // dst = max(dst, src), entry by entry.
  void join(uint32_t dst, uint32_t src) {
    const std::vector<Entry>& a = clocks_[dst];
    const std::vector<Entry>& b = clocks_[src];
    scratch_.clear();
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (a[i].first < b[j].first) scratch_.push_back(a[i++]);
      else if (b[j].first < a[i].first) scratch_.push_back(b[j++]);
      else scratch_.push_back({a[i].first, std::max(a[i].second, b[j].second)}), ++i, ++j;
    }
    scratch_.insert(scratch_.end(), a.begin() + i, a.end());
    scratch_.insert(scratch_.end(), b.begin() + j, b.end());
    const size_t before = clocks_[dst].capacity();
    clocks_[dst].assign(scratch_.begin(), scratch_.end());
    bytes_ += (clocks_[dst].capacity() - before) * sizeof(Entry);
  }
  void copy(uint32_t dst, uint32_t src) {
    const size_t before = clocks_[dst].capacity();
    clocks_[dst] = clocks_[src];
    bytes_ += (clocks_[dst].capacity() - before) * sizeof(Entry);
  }
  size_t bytes() const { return bytes_ + clocks_.capacity() * sizeof(std::vector<Entry>) + scratch_.capacity() * sizeof(Entry); }

 private:
  std::vector<std::vector<Entry>> clocks_;
  std::vector<uint32_t> free_;
  std::vector<Entry> scratch_;
  size_t bytes_ = 0;
};

}  // namespace

namespace {
std::atomic<size_t> g_cc_runs{0};

// Above this many writing sessions, clocks are sparse.
constexpr uint32_t kDenseWidth = 2048;

// The writers of one key in one session: entries [begin, end) of entry_txn / entry_idx.
struct Group {
  uint32_t session, dim, begin, end;
};

LevelResult out_of_clock_memory() {
  LevelResult u;
  u.verdict = Verdict::Unknown;
  u.reason = "causal consistency needs more than 1.5 GB of vector clocks for this history";
  return u;
}

// The visit of the dense loop in check_cc, with sparse clocks (see the header comment); adds
// the co edges to g. Returns a result only when it stops early (budget, memory).
std::optional<LevelResult> visit_sparse(const History& h, const weak::Reads& R, const std::vector<uint32_t>& order,
                                        weak::CoGraph& g, const CheckBudget& budget, const std::vector<uint32_t>& dim,
                                        uint32_t width, const std::vector<Group>& groups,
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
    if ((++visited & 4095) == 0) {
      if (budget.expired()) return CheckBudget::ran_out();
      if (pool.bytes() > kMaxClockBytes) return out_of_clock_memory();
    }
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
      auto lo_of = [&](const Group& gr) {
        return T1 != kNone ? pool.get(T1, gr.dim) : (gr.session == t1_session ? t1_index : -1);
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
        const Group& gr = groups[gi];
        const int32_t* ib = entry_idx.data() + gr.begin;
        const int32_t* ie = entry_idx.data() + gr.end;
        const int32_t* p = std::upper_bound(ib, ie, bound);
        if (p == ib) continue;
        --p;
        if (*p <= lo_of(gr)) continue;
        g.add_co(entry_txn[gr.begin + (p - ib)], t1, kNone, rx);
      }
    }
    if (dim[s] != kNone) pool.set(C, dim[s], static_cast<int32_t>(x3.index));
    if (pending[t3] > 0) {
      own_slot[t3] = pool.alloc();
      pool.copy(own_slot[t3], C);
    }
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
  return std::nullopt;
}
}  // namespace
size_t check_cc_runs() { return g_cc_runs.load(); }

LevelResult check_cc(const History& h, const CheckBudget& budget) { return check_cc(h, budget, CcClocks::Auto); }

size_t cc_clock_bytes_estimate(const History& h) {
  const size_t txns = h.txns.size(), sessions = h.num_sessions();
  // Per transaction: its slot, pending count and mark (16 bytes); sparse clocks add a list
  // header and a few entries (measured: 10^6 one-operation sessions peak at 217 MB in all).
  if (sessions > kDenseWidth) return txns * 64;
  // Dense: one clock per running session and per transaction a reader has yet to visit; the
  // checker stops (unknown) beyond kMaxClockBytes, so more is never needed.
  return txns * 16 + std::min(txns * sessions * 4, kMaxClockBytes);
}

LevelResult check_cc(const History& h, const CheckBudget& budget, CcClocks clocks) {
  if (!h.ambiguous.empty()) return check_with_choices(h, Level::CC, budget);
  ++g_cc_runs;
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
  std::vector<uint32_t> kstamp(nk, kNone);
  std::vector<char> writes_any(ns, 0);
  for (uint32_t t = 1; t < n; ++t) {
    const Txn& x = h.txns[t];
    if (!x.committed) continue;
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      const Op& op = h.ops[o];
      if (!op.is_write() || kstamp[op.key] == t) continue;
      kstamp[op.key] = t;
      ++kbeg[op.key + 1];
      writes_any[x.session] = 1;
    }
  }
  for (size_t k = 0; k < nk; ++k) kbeg[k + 1] += kbeg[k];
  std::vector<uint32_t> entry_txn(kbeg[nk]);
  std::vector<int32_t> entry_idx(kbeg[nk]);
  {
    std::vector<uint32_t> pos(kbeg.begin(), kbeg.end() - 1);
    std::fill(kstamp.begin(), kstamp.end(), kNone);
    for (uint32_t t = 1; t < n; ++t) {
      const Txn& x = h.txns[t];
      if (!x.committed) continue;
      for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
        const Op& op = h.ops[o];
        if (!op.is_write() || kstamp[op.key] == t) continue;
        kstamp[op.key] = t;
        entry_txn[pos[op.key]] = t;
        entry_idx[pos[op.key]++] = static_cast<int32_t>(x.index);
      }
    }
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
        groups.push_back({s, dim[s], i, i + 1});
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

  const bool sparse = clocks == CcClocks::Sparse || (clocks == CcClocks::Auto && width > kDenseWidth);
  if (sparse) {
    std::fill(seen.begin(), seen.end(), kNone);
    if (std::optional<LevelResult> stop = visit_sparse(h, R, order, g, budget, dim, width, groups, gbeg,
                                                       entry_txn, entry_idx, pending, seen, last_in_session))
      return *stop;
    weak::report_cycles(h, g.build(), g.co, weak::Axiom::CC, res);
    weak::set_verdict(res);
    return res;
  }

  ClockPool pool(width);
  std::vector<uint32_t> run_slot(ns, kNone), own_slot(n, kNone);
  std::fill(seen.begin(), seen.end(), kNone);
  size_t visited = 0;
  std::vector<uint32_t> cand;  // per read: groups worth a binary search
  for (size_t k = 0; k < nk; ++k) cand.resize(std::max<size_t>(cand.size(), gbeg[k + 1] - gbeg[k]));
  for (uint32_t t3 : order) {
    if (t3 == kInitialTxn || !h.txns[t3].committed) continue;
    if ((++visited & 4095) == 0) {
      if (budget.expired()) return CheckBudget::ran_out();
      if (pool.bytes() > kMaxClockBytes) return out_of_clock_memory();
    }
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
      // First pass (branch-free): the sessions where t3 knows more of x's writers than t1.
      uint32_t m = 0;
      for (uint32_t gi = gbeg[x]; gi < gbeg[x + 1]; ++gi) {
        const Group& gr = groups[gi];
        const int32_t lo = T1 ? T1[gr.dim] : (gr.session == t1_session ? t1_index : -1);
        cand[m] = gi;
        m += C[gr.dim] > lo;
      }
      for (uint32_t ci = 0; ci < m; ++ci) {
        const uint32_t gi = cand[ci];
        const Group& gr = groups[gi];
        const int32_t bound = C[gr.dim];
        const int32_t lo = T1 ? T1[gr.dim] : (gr.session == t1_session ? t1_index : -1);
        const int32_t* ib = entry_idx.data() + gr.begin;
        const int32_t* ie = entry_idx.data() + gr.end;
        const int32_t* p = std::upper_bound(ib, ie, bound);
        if (p == ib) continue;
        --p;
        if (*p <= lo) continue;
        g.add_co(entry_txn[gr.begin + (p - ib)], t1, kNone, rx);
      }
    }
    if (dim[s] != kNone) C[dim[s]] = static_cast<int32_t>(x3.index);
    if (pending[t3] > 0) {
      own_slot[t3] = pool.alloc();
      std::copy_n(pool.at(run_slot[s]), width, pool.at(own_slot[t3]));
    }
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t w = R.writer[i];
      if (w == kInitialTxn || seen[w] != t3 || h.txns[w].session == s) continue;
      seen[w] = kNone;  // count each writer once
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
  weak::report_cycles(h, g.build(), g.co, weak::Axiom::CC, res);
  weak::set_verdict(res);
  return res;
}

}  // namespace isoscope
