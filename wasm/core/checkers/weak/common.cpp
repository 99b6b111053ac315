#include "checkers/weak/common.h"

#include <algorithm>

#include "model/anomaly_kinds.h"
#include "checkers/explain.h"
#include "checkers/read_consistency.h"

namespace isoscope::weak {

// ---- reads ----------------------------------------------------------------------------------

Reads collect_reads(const History& h) {
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  Reads R;
  R.begin.assign(static_cast<size_t>(n) + 1, 0);
  R.num_writes.assign(n, 0);
  R.write_sig.assign(n, 0);
  R.op.reserve(h.ops.size() / 2 + 1);
  R.writer.reserve(h.ops.size() / 2 + 1);
  // One backward pass: each transaction's write count and key signature, and which writes are
  // its last to their key (what last_writes_in_txn computes, here without a second pass).
  std::vector<char> last(h.ops.size(), 0);
  std::vector<uint32_t> stamp(h.keys.size(), kNone);
  for (uint32_t t = 1; t < n; ++t) {
    const Txn& x = h.txns[t];
    for (uint32_t i = x.op_end; i-- > x.op_begin;) {
      const Op& o = h.ops[i];
      if (!o.is_write()) continue;
      ++R.num_writes[t];
      R.write_sig[t] |= key_bit(o.key);
      if (stamp[o.key] == t) continue;
      stamp[o.key] = t;
      last[i] = 1;
    }
  }
  // The external reads, grouped by transaction (begin[t] == begin[t + 1] for aborted ones).
  uint32_t filled = 1;  // begin[1..filled) are set
  classify_reads(h, last, [&](uint32_t t, uint32_t r, ReadClass c, uint32_t) {
    for (; filled <= t; ++filled) R.begin[filled] = static_cast<uint32_t>(R.op.size());
    if (c == ReadClass::FromOther || c == ReadClass::FromInitial) {
      R.op.push_back(r);
      R.writer.push_back(c == ReadClass::FromInitial ? kInitialTxn : h.op_txn[h.read_from[r]]);
    } else if (!is_consistent(c)) {
      ++R.inconsistent;
    }
  });
  for (; filled <= n; ++filled) R.begin[filled] = static_cast<uint32_t>(R.op.size());
  return R;
}

bool WriteIndex::writes(uint32_t txn, uint32_t key) {
  if (!built_) {
    size_t writes = 0;
    for (const Op& o : h_.ops) writes += o.is_write();
    map_.reserve(writes);
    for (uint32_t i = 0; i < h_.ops.size(); ++i)
      if (h_.ops[i].is_write())
        map_.insert((static_cast<uint64_t>(h_.op_txn[i]) << 32) | h_.ops[i].key, i);
    built_ = true;
  }
  return map_.find((static_cast<uint64_t>(txn) << 32) | key) != FlatMap64::kAbsent;
}

// ---- the co' graph --------------------------------------------------------------------------

CoGraph::CoGraph(const History& h, const Reads& R) : b_(static_cast<uint32_t>(h.txns.size())) {
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  b_.reserve(n + R.op.size() + R.op.size() / 2);
  std::vector<uint32_t> seen(n, kNone);
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    uint32_t prev = kInitialTxn;
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (!h.txns[t].committed) continue;
      b_.add(prev, t, kTagSO);
      prev = t;
      for (uint32_t i = R.begin[t]; i < R.begin[t + 1]; ++i) {
        uint32_t w = R.writer[i];
        if (seen[w] == t) continue;
        seen[w] = t;
        b_.add(w, t, kTagWR | R.op[i]);
      }
    }
  }
}

// ---- reporting ------------------------------------------------------------------------------

LevelResult begin_result(const History& h) {
  LevelResult r;
  // The same classification (classify_reads) made `reads`: its inconsistent reads are these.
  r.anomalies = check_read_consistency(h);
  r.anomalies_total = r.anomalies.size();
  return r;
}

void set_verdict(LevelResult& out) {
  if (out.anomalies_total < out.anomalies.size()) out.anomalies_total = out.anomalies.size();
  out.verdict = out.anomalies_total > 0 ? Verdict::Fail : Verdict::Pass;
}

size_t report_non_repeatable(const History& h, const Reads& R, LevelResult& out,
                             std::vector<char>* multi, bool phantoms) {
  const size_t nk = h.keys.size();
  std::vector<uint32_t> stamp(nk, kNone), first(nk, 0), reported(nk, kNone);
  if (multi) multi->assign(R.op.size(), 0);
  size_t count = 0;
  for (uint32_t t = 1; t + 1 < R.begin.size(); ++t) {
    const uint32_t b = R.begin[t], e = R.begin[t + 1];
    if (e - b < 2) continue;
    bool any = false;
    for (uint32_t i = b; i < e; ++i) {
      const Op& o = h.ops[R.op[i]];
      if (phantoms && o.in_predicate() && o.value == kNoRow) continue;
      const uint32_t k = o.key;
      if (stamp[k] != t) {
        stamp[k] = t;
        first[k] = i;
        continue;
      }
      const uint32_t f = first[k];
      if (R.writer[f] == R.writer[i] || reported[k] == t) continue;
      reported[k] = t;
      any = true;
      ++count;
      Anomaly a;
      a.kind = AnomalyKind::NonRepeatableRead;
      const uint32_t w1 = R.writer[f], w2 = R.writer[i];
      a.txns = {t, w1, w2};
      a.ops = {R.op[f], R.op[i]};
      auto wr_edge = [&](uint32_t w, uint32_t r) {
        AnomalyEdge ed;
        ed.from_txn = w;
        ed.to_txn = t;
        ed.type = EdgeType::WR;
        ed.key = k;
        ed.from_op = h.read_from[r] < kThinAir ? h.read_from[r] : kNone;
        ed.to_op = r;
        ed.why = h.txn_name(t) + " reads " + h.op_text(r) +
                 (w == kInitialTxn ? std::string(", the initial value")
                                   : " written by " + h.txn_name(w));
        return ed;
      };
      a.edges.push_back(wr_edge(w1, R.op[f]));
      a.edges.push_back(wr_edge(w2, R.op[i]));
      a.explanation = h.txn_name(t) + " reads key " + h.keys.display(k) +
                      " twice before writing it and gets two different versions: " +
                      h.op_text(R.op[f]) + " from " + h.txn_name(w1) + ", then " +
                      h.op_text(R.op[i]) + " from " + h.txn_name(w2) +
                      (phantoms || !(h.ops[R.op[f]].value == kNoRow || h.ops[R.op[i]].value == kNoRow)
                           ? ". Repeatable reads requires every such read of a key to see one writer"
                           : ": the row appeared or vanished between them (a phantom). Read atomic requires a "
                             "transaction to see one version of each row, whether a predicate returned it or not");
      out.anomalies.push_back(std::move(a));
    }
    if (any && multi) {
      for (uint32_t i = b; i < e; ++i)
        if (reported[h.ops[R.op[i]].key] == t) (*multi)[i] = 1;
    }
  }
  out.anomalies_total += count;
  return count;
}

namespace {

// Shortest so ∪ wr path from a to b (edge ids), by BFS over the non-co' edges.
class HbPaths {
 public:
  explicit HbPaths(const Digraph& g) : g_(g), mark_(g.n, 0), parent_(g.n, kNone) {}
  std::vector<uint32_t> path(uint32_t a, uint32_t b) {
    ++epoch_;
    queue_.clear();
    queue_.push_back(a);
    mark_[a] = epoch_;
    for (size_t qi = 0; qi < queue_.size(); ++qi) {
      uint32_t u = queue_[qi];
      if (u == b) break;
      for (uint32_t e = g_.begin(u); e < g_.end(u); ++e) {
        if (is_co_tag(g_.tags[e])) continue;
        uint32_t v = g_.targets[e];
        if (mark_[v] == epoch_) continue;
        mark_[v] = epoch_;
        parent_[v] = e;
        queue_.push_back(v);
      }
    }
    std::vector<uint32_t> p;
    if (mark_[b] != epoch_ || a == b) return p;
    // Walk back: find each edge's source by scanning (paths are short).
    for (uint32_t v = b; v != a;) {
      uint32_t e = parent_[v];
      p.push_back(e);
      v = source_of(e);
    }
    std::reverse(p.begin(), p.end());
    return p;
  }
  uint32_t source_of(uint32_t e) const {
    // offsets is sorted: the source is the last u with offsets[u] <= e.
    auto it = std::upper_bound(g_.offsets.begin(), g_.offsets.end(), e);
    return static_cast<uint32_t>(it - g_.offsets.begin()) - 1;
  }

 private:
  const Digraph& g_;
  std::vector<uint32_t> mark_, parent_, queue_;
  uint32_t epoch_ = 0;
};


}  // namespace

void report_cycles(const History& h, const Digraph& g, const std::vector<CoWhy>& co, Axiom ax,
                   LevelResult& out) {
  uint32_t count = 0;
  std::vector<uint32_t> comp = strongly_connected_components(g, count);
  std::vector<uint32_t> size(count, 0);
  for (uint32_t u = 0; u < g.n; ++u) ++size[comp[u]];
  std::vector<char> done(count, 0);
  HbPaths hb(g);
  size_t reported = 0, total = 0;
  for (uint32_t u = 0; u < g.n; ++u) {
    const uint32_t c = comp[u];
    if (done[c]) continue;
    std::vector<uint32_t> cycle;
    for (uint32_t e = g.begin(u); e < g.end(u); ++e)
      if (g.targets[e] == u) {
        cycle = {e};
        break;
      }
    if (cycle.empty() && size[c] < 2) continue;
    done[c] = 1;
    ++total;
    if (reported >= kMaxCycles) continue;
    // The cycle as (from, to, tag) steps. Through the initial transaction, the shortest one is
    // T0 -> v -> T0 for an edge v -> T0 (the initial transaction precedes every transaction,
    // not only the first of each session); elsewhere, the shortest of a few BFS cycles.
    struct Step {
      uint32_t from, to, tag;
    };
    std::vector<Step> steps;
    if (cycle.empty() && comp[kInitialTxn] == c)
      for (uint32_t v = 1; v < g.n && steps.empty(); ++v)
        for (uint32_t e = g.begin(v); e < g.end(v); ++e)
          if (g.targets[e] == kInitialTxn && comp[v] == c) {
            steps = {{kInitialTxn, v, kTagSO}, {v, kInitialTxn, g.tags[e]}};
            break;
          }
    if (steps.empty()) {
      if (cycle.empty()) {
        size_t tries = 0;
        for (uint32_t v = u; v < g.n && tries < 8; ++v) {
          if (comp[v] != c) continue;
          ++tries;
          std::vector<uint32_t> cv = shortest_cycle_through(g, comp, v);
          if (!cv.empty() && (cycle.empty() || cv.size() < cycle.size())) cycle = std::move(cv);
          if (cycle.size() == 2) break;
        }
      }
      if (cycle.empty()) continue;
      uint32_t at = kNone;  // the source of the first edge: the node whose out-edge it is
      for (uint32_t v = 0; v < g.n && at == kNone; ++v)
        if (cycle[0] >= g.begin(v) && cycle[0] < g.end(v)) at = v;
      for (uint32_t e : cycle) {
        steps.push_back({at, g.targets[e], g.tags[e]});
        at = g.targets[e];
      }
    }
    ++reported;

    Anomaly a;
    bool any_so = false, any_co = false, any_ra_wr = false;
    std::vector<uint32_t> context;  // transactions the inferred edges depend on (readers, paths)
    for (const Step& step : steps) {
      const uint32_t from = step.from, to = step.to, tag = step.tag;
      AnomalyEdge ed;
      ed.from_txn = from;
      ed.to_txn = to;
      a.txns.push_back(from);
      if (tag == kTagSO) {
        any_so = true;
        ed.type = EdgeType::SO;
        ed.why = session_order_why(h, from, to);
      } else if (is_wr_tag(tag)) {
        const uint32_t r = tag & ~kTagWR;
        ed.type = EdgeType::WR;
        ed.key = h.ops[r].key;
        ed.from_op = h.read_from[r] < kThinAir ? h.read_from[r] : kNone;
        ed.to_op = r;
        ed.why = reads_from_why(h, r, from);
      } else {
        any_co = true;
        const CoWhy& w = co[tag];
        const uint32_t rx = w.rx, t3 = h.op_txn[rx], x = h.ops[rx].key;
        ed.type = EdgeType::CO;
        ed.key = x;
        ed.from_op = h.last_write_of(from, x);
        ed.to_op = h.read_from[rx] < kThinAir ? h.read_from[rx] : kNone;
        if (w.r != kNone) a.ops.push_back(w.r);
        a.ops.push_back(rx);
        context.push_back(t3);
        const std::string T1 = h.txn_name(to), T2 = h.txn_name(from), T3 = h.txn_name(t3);
        const std::string X = h.keys.display(x);
        const std::string must = ": so " + T2 + " must commit before " + T1;
        if (ax == Axiom::RC) {
          ed.why = T3 + " reads " + h.read_text(w.r, from) + " and later reads " +
                   h.read_text(rx, to) + ", while " + T2 + " also writes " + X +
                   " (read committed: once a transaction has seen " + T2 +
                   ", it may not read an older version of " + X + ")" + must;
        } else if (ax == Axiom::RA && w.r != kNone) {
          any_ra_wr = true;
          ed.why = T3 + " reads " + h.read_text(w.r, from) + " and " + h.read_text(rx, to) +
                   ", but " + T2 + " also writes " + X + " (read atomic: " + T3 +
                   " sees " + T2 + ", so it must see all of " + T2 + "'s writes)" + must;
        } else if (ax == Axiom::RA) {
          ed.why = T2 + " writes " + X + " and precedes " + T3 + " in session " +
                   std::to_string(h.txns[t3].session) + ", yet " + T3 + " reads " +
                   h.read_text(rx, to) + " (read atomic: a session sees its own writes)" +
                   must;
        } else {
          std::string via;
          if (reported <= 16) {
            std::vector<uint32_t> p = hb.path(from, t3);
            for (uint32_t pe : p) {
              const uint32_t ptag = g.tags[pe], pt = g.targets[pe];
              context.push_back(pt);
              via += via.empty() ? " (" : ", then ";
              if (ptag == kTagSO)
                via += "session order to " + short_name(h, pt);
              else
                via += short_name(h, pt) + " reads " + h.op_text(ptag & ~kTagWR);
              }
            if (!via.empty()) via += ")";
          }
          ed.why = T2 + " writes " + X + " and happens before " + T3 + via + ", yet " + T3 +
                   " reads " + h.read_text(rx, to) +
                   " (causal consistency: a transaction sees the latest write among those that "
                   "happen before it)" +
                   must;
        }
      }
      a.edges.push_back(std::move(ed));
    }
    for (uint32_t t : context)
      if (std::find(a.txns.begin(), a.txns.end(), t) == a.txns.end()) a.txns.push_back(t);
    if (!any_co)
      a.kind = any_so ? AnomalyKind::CausalityCycle : AnomalyKind::G1c;
    else if (ax == Axiom::RC)
      a.kind = AnomalyKind::NonMonotonicRead;
    else if (ax == Axiom::RA)
      a.kind = any_ra_wr ? AnomalyKind::FracturedRead : AnomalyKind::SessionGuaranteeViolation;
    else
      a.kind = AnomalyKind::CausalityViolation;
    a.explanation = cycle_explanation(h, a.edges, "");
    out.anomalies.push_back(std::move(a));
  }
  out.anomalies_total += total;
}

}  // namespace isoscope::weak
