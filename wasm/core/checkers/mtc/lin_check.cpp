// Linearizability of lightweight-transaction histories: MTC Alg. 2, generalised to reads
// (compare-and-set operations that failed) and to the implicit initial value. See mtc.h.
//
// Per key x: the writers (inserts and read&writes) must form one chain from the absent state,
// each reading the value its predecessor wrote (step 1 of Alg. 2). Number the slots
//   readers of the absent state < w1 < readers of w1 < w2 < readers of w2 < ...
// Every linearization orders operations by slot (readers of one slot in any order), so one that
// respects real time exists iff no operation ends before an operation of a smaller slot starts:
// a scan of the chain in reverse with the minimum end time seen so far (step 2 of Alg. 2).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "checkers/mtc/mtc.h"
#include "model/anomaly_kinds.h"
#include "checkers/mtc/mtc_witness.h"
#include "checkers/read_consistency.h"

namespace isoscope {

bool is_lightweight_history(const History& h) {
  if (h.num_txns() == 0 || h.has_lists) return false;
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const Txn& x = h.txns[t];
    if (!x.has_time()) return false;
    const Op* o = h.ops.data() + x.op_begin;
    if (x.size() == 1) {
      if (o[0].kind != OpKind::Read && o[0].kind != OpKind::Write) return false;
    } else if (x.size() == 2) {
      if (o[0].kind != OpKind::Read || o[1].kind != OpKind::Write || o[0].key != o[1].key) return false;
    } else {
      return false;
    }
  }
  return true;
}

namespace {

constexpr size_t kMaxLinReported = 32;
// An operation without times spans all of real time (is_lightweight_history wants them, though).
Time start_of(const History& h, uint32_t t) { return h.txns[t].has_time() ? h.times[t].start : Time::below_all(); }
Time end_of(const History& h, uint32_t t) { return h.txns[t].has_time() ? h.times[t].end : Time::above_all(); }

struct Lin {
  const History& h;
  const uint32_t n;
  // Per transaction: the version it reads (writer txn, 0 = absent / initial), its successor
  // writer, the next reader of the same version, its position in its key's chain.
  std::vector<uint32_t> source, next, rnext, pos;
  std::vector<uint32_t> init_next, init_rhead, rhead;  // per key / per writer
  std::vector<Anomaly> anomalies;
  size_t total = 0;
  std::vector<std::vector<uint32_t>> chains_;  // per key, its writers from the absent state on

  // After a run() that found nothing: a linearization of the whole history. Within a key, slot
  // by slot (the readers of the absent state, then each writer and the readers of its value),
  // the readers of a slot by start time: step 2 showed that no operation ends before one of an
  // earlier slot starts, and start order keeps real time within a slot. Each operation then
  // takes effect at its linearization point, max(its start, the previous point of its key),
  // which stays within its interval for the same reason; all keys merge by point (Porcupine's
  // picture).
  std::vector<uint32_t> linearization() const {
    std::vector<uint32_t> order, slot;
    auto readers = [&](uint32_t head) {
      slot.clear();
      for (uint32_t r = head; r != kNone; r = rnext[r]) slot.push_back(r);
      std::sort(slot.begin(), slot.end(), [&](uint32_t a, uint32_t b) { return start_of(h, a) < start_of(h, b); });
      order.insert(order.end(), slot.begin(), slot.end());
    };
    for (uint32_t key = 0; key < chains_.size(); ++key) {
      readers(init_rhead[key]);
      for (uint32_t w : chains_[key]) {
        order.push_back(w);
        readers(rhead[w]);
      }
    }
    std::vector<Time> point(n, Time::below_all());
    Time prev = Time::below_all();
    for (size_t i = 0; i < order.size(); ++i) {
      if (i && key_of(order[i]) != key_of(order[i - 1])) prev = Time::below_all();
      point[order[i]] = prev = std::max(prev, start_of(h, order[i]));
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return point[a] < point[b]; });
    return order;
  }

  explicit Lin(const History& hist)
      : h(hist), n(static_cast<uint32_t>(hist.txns.size())), source(n, kNone), next(n, kNone),
        rnext(n, kNone), pos(n, kNone), init_next(hist.keys.size(), kNone),
        init_rhead(hist.keys.size(), kNone), rhead(n, kNone) {}

  bool is_writer(uint32_t t) const { return h.ops[h.txns[t].op_end - 1].is_write(); }
  bool is_insert(uint32_t t) const { return h.txns[t].size() == 1 && is_writer(t); }
  uint32_t key_of(uint32_t t) const { return h.ops[h.txns[t].op_begin].key; }
  uint32_t read_op(uint32_t t) const { return is_insert(t) ? kNone : h.txns[t].op_begin; }
  uint32_t write_op(uint32_t t) const { return is_writer(t) ? h.txns[t].op_end - 1 : kNone; }

  void add(Anomaly a) {
    ++total;
    if (anomalies.size() < kMaxLinReported) anomalies.push_back(std::move(a));
  }

  std::string state_text(uint32_t src, uint32_t key) const {
    if (src == kInitialTxn)
      return "the absent state of " + h.keys.display(key) +
             (h.initial ? " (initial value " + h.values.display(*h.initial) + ")" : std::string());
    return h.op_text(write_op(src)) + " of " + h.txn_name(src);
  }
  std::string op_words(uint32_t t) const {
    if (is_insert(t)) return h.txn_name(t) + " inserts " + h.op_text(write_op(t));
    if (is_writer(t))
      return h.txn_name(t) + " reads " + h.op_text(read_op(t)) + " and writes " + h.op_text(write_op(t));
    return h.txn_name(t) + " reads " + h.op_text(read_op(t));
  }

  void divergence(uint32_t src, uint32_t t1, uint32_t t2) {
    Anomaly a;
    a.kind = AnomalyKind::LostUpdate;
    const uint32_t key = key_of(t2);
    a.txns = {src, t1, t2};
    for (uint32_t t : {t1, t2}) {
      if (read_op(t) != kNone) {
        a.ops.push_back(read_op(t));
        if (src != kInitialTxn) a.edges.push_back(anomaly_edge(h, {src, t, EdgeKind::WR, read_op(t)}));
      } else {
        a.ops.push_back(write_op(t));
      }
    }
    a.explanation = op_words(t1) + "; " + op_words(t2) + ". Both replace " + state_text(src, key) +
                    " (an insert succeeds only on the absent key), so whichever takes effect second "
                    "did not see the other's write: one update is lost and no linearization exists";
    add(std::move(a));
  }

  // Writers whose "reads from" links loop instead of leading back to the absent state.
  void writer_cycle(uint32_t t, std::vector<char>& seen) {
    std::vector<uint32_t> path;
    uint32_t u = t;
    while (u != kNone && u != kInitialTxn && !seen[u]) {
      seen[u] = 1;
      path.push_back(u);
      u = source[u];
    }
    if (u == kNone || u == kInitialTxn || pos[u] != kNone) return;
    // u is on a cycle: collect it.
    Anomaly a;
    a.kind = AnomalyKind::G1c;
    std::vector<uint32_t> cyc{u};
    for (uint32_t v = source[u]; v != u; v = source[v]) cyc.push_back(v);
    std::string because;
    for (size_t i = cyc.size(); i-- > 0;) {  // writer -> reader order
      const uint32_t from = cyc[i], to = cyc[(i + cyc.size() - 1) % cyc.size()];
      a.txns.push_back(from);
      a.edges.push_back(anomaly_edge(h, {from, to, EdgeKind::WR, read_op(to)}));
      a.ops.push_back(read_op(to));
      because += (because.empty() ? "" : "; ") + a.edges.back().why;
    }
    a.explanation = because + ". Each must take effect after the one it read from, so " +
                    h.txn_name(cyc[0]) + " would take effect before itself: no linearization exists";
    for (uint32_t v : cyc) pos[v] = 0;  // reported
    add(std::move(a));
  }

  // a's slot is before b's, but b ended before a started. chain: the key's writers in order.
  void realtime(uint32_t a_txn, uint32_t b_txn, const std::vector<uint32_t>& chain) {
    Anomaly an;
    an.kind = AnomalyKind::RealTimeViolation;
    const uint32_t key = key_of(a_txn);
    auto cluster = [&](uint32_t t) -> int64_t {  // chain index of the version t writes / reads
      if (is_writer(t)) return pos[t];
      return source[t] == kInitialTxn ? -1 : static_cast<int64_t>(pos[source[t]]);
    };
    std::vector<DepEdge> path;
    int64_t i = cluster(a_txn);
    uint32_t cur = a_txn;
    const int64_t j = cluster(b_txn);
    if (!is_writer(a_txn)) {  // a read the version that chain[i + 1] overwrote
      ++i;
      path.push_back({a_txn, chain[i], EdgeKind::RW, read_op(a_txn)});
      cur = chain[i];
    }
    const int64_t steps = j - i;
    constexpr int64_t kShow = 6;
    for (int64_t s = i; s < j; ++s) {
      if (steps > kShow && s == i + kShow / 2) {  // elide the middle of a long chain
        const int64_t to = j - kShow / 2;
        AnomalyEdge co{chain[s], chain[to], EdgeType::CO, key, write_op(chain[s]), write_op(chain[to]), {}};
        co.why = h.txn_name(chain[s]) + " precedes " + h.txn_name(chain[to]) + " in the chain of " +
                 std::to_string(to - s) + " read&writes of " + h.keys.display(key) +
                 " (each reads the value the previous one wrote)";
        path.push_back({chain[s], chain[to], EdgeKind::SO, kNone});  // placeholder, replaced below
        an.edges.push_back(co);
        s = to - 1;
        cur = chain[to];
        continue;
      }
      path.push_back({chain[s], chain[s + 1], EdgeKind::WR, read_op(chain[s + 1])});
      cur = chain[s + 1];
    }
    if (!is_writer(b_txn)) path.push_back({cur, b_txn, EdgeKind::WR, read_op(b_txn)});
    // Assemble edges in order (the elided placeholder keeps its CO edge).
    std::vector<AnomalyEdge> edges;
    size_t co_used = 0;
    for (const DepEdge& e : path) {
      if (e.kind == EdgeKind::SO && e.op == kNone) {
        edges.push_back(an.edges[co_used++]);
      } else if (e.kind == EdgeKind::WR && e.from == kInitialTxn) {
        continue;
      } else {
        AnomalyEdge ae = anomaly_edge(h, e);
        if (e.kind == EdgeKind::RW && is_insert(e.to))
          ae.why = h.txn_name(e.from) + " reads " + h.op_text(e.op) + ", the absent state that " +
                   h.txn_name(e.to) + " replaced by inserting " + h.op_text(write_op(e.to)) +
                   ", so it takes effect before " + h.txn_name(e.to);
        edges.push_back(std::move(ae));
      }
    }
    edges.push_back(anomaly_edge(h, {b_txn, a_txn, EdgeKind::RT, kNone}));
    an.edges = std::move(edges);
    std::string because;
    for (const AnomalyEdge& e : an.edges) {
      an.txns.push_back(e.from_txn);
      because += (because.empty() ? "" : "; ") + e.why;
    }
    an.ops = {h.txns[a_txn].op_begin, h.txns[b_txn].op_begin};
    an.explanation = because + ". The values read force " + h.txn_name(a_txn) +
                     " to take effect before " + h.txn_name(b_txn) + ", but " + h.txn_name(b_txn) +
                     " finished before " + h.txn_name(a_txn) + " started: no linearization exists";
    add(std::move(an));
  }

  void run() {
    // Step 1: successors and readers of every version.
    for (uint32_t t = 1; t < n; ++t) {
      if (!h.txns[t].committed) continue;
      const uint32_t key = key_of(t);
      const uint32_t src = is_insert(t) ? kInitialTxn : h.writer_txn(read_op(t));
      source[t] = src;
      if (!is_writer(t)) {
        uint32_t& head = src == kInitialTxn ? init_rhead[key] : rhead[src];
        rnext[t] = head;
        head = t;
        continue;
      }
      uint32_t& slot = src == kInitialTxn ? init_next[key] : next[src];
      if (slot == kNone)
        slot = t;
      else
        divergence(src, slot, t);
    }
    if (!anomalies.empty()) return;
    // The chains from the absent state; writers left over read each other in loops.
    std::vector<std::vector<uint32_t>>& chains = chains_;
    chains.assign(h.keys.size(), {});
    for (uint32_t key = 0; key < h.keys.size(); ++key)
      for (uint32_t w = init_next[key]; w != kNone; w = next[w]) {
        pos[w] = static_cast<uint32_t>(chains[key].size());
        chains[key].push_back(w);
      }
    std::vector<char> seen(n, 0);
    for (uint32_t t = 1; t < n; ++t)
      if (h.txns[t].committed && is_writer(t) && pos[t] == kNone) writer_cycle(t, seen);
    if (!anomalies.empty()) return;
    // Step 2: real time, per key, from the last slot back.
    for (uint32_t key = 0; key < h.keys.size(); ++key) {
      const std::vector<uint32_t>& chain = chains[key];
      Time min_f = Time::above_all();
      uint32_t arg = kNone;
      bool bad = false;
      for (int64_t i = static_cast<int64_t>(chain.size()) - 1; i >= -1 && !bad; --i) {
        const uint32_t head = i >= 0 ? rhead[chain[i]] : init_rhead[key];
        Time group_f = Time::above_all();
        uint32_t group_arg = kNone;
        for (uint32_t r = head; r != kNone && !bad; r = rnext[r]) {
          if (start_of(h, r) > min_f) {
            realtime(r, arg, chain);
            bad = true;
          }
          if (end_of(h, r) < group_f) group_f = end_of(h, r), group_arg = r;
        }
        if (bad) break;
        if (group_f < min_f) min_f = group_f, arg = group_arg;
        if (i < 0) break;
        const uint32_t w = chain[i];
        if (start_of(h, w) > min_f) {
          realtime(w, arg, chain);
          bad = true;
        }
        if (end_of(h, w) < min_f) min_f = end_of(h, w), arg = w;
      }
    }
  }
};

}  // namespace

LevelResult check_lin(const History& h, const CheckBudget& budget) {
  if (!h.ambiguous.empty()) {
    LevelResult r;
    r.verdict = Verdict::NotApplicable;
    r.reason = "applies only to histories whose reads each have one writer (this one has repeated values)";
    return r;
  }
  LevelResult r;
  if (!is_lightweight_history(h)) {
    r.verdict = Verdict::NotApplicable;
    r.reason = "applies only to timestamped lightweight transactions (read, insert, read&write of one key)";
    return r;
  }
  r.anomalies = check_read_consistency(h);
  if (!r.anomalies.empty()) {
    r.verdict = Verdict::Fail;
    r.anomalies_total = r.anomalies.size();
    return r;
  }
  if (budget.expired()) return CheckBudget::ran_out();
  Lin lin(h);
  // An operation that ends before it starts precedes itself in real time.
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const Txn& x = h.txns[t];
    if (!x.committed || !x.has_time() || !(h.times[t].end < h.times[t].start)) continue;
    Anomaly a;
    a.kind = AnomalyKind::RealTimeViolation;
    a.txns = {t};
    a.edges.push_back(anomaly_edge(h, {t, t, EdgeKind::RT, kNone}));
    a.explanation = h.txn_name(t) + " ends before it starts, so real time orders it before itself";
    lin.add(std::move(a));
  }
  if (lin.anomalies.empty()) lin.run();
  if (lin.anomalies.empty()) {
    r.verdict = Verdict::Pass;
    r.commit_order = lin.linearization();
    return r;
  }
  r.verdict = Verdict::Fail;
  r.anomalies_total = lin.total;
  r.anomalies = std::move(lin.anomalies);
  return r;
}

}  // namespace isoscope
