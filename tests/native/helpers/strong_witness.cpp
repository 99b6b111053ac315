#include "strong_witness.h"

#include "checkers/counterexample.h"

#include <algorithm>

#include "reference.h"

namespace isoscope {

namespace {

uint32_t writer_of(const History& h, uint32_t r) {
  const uint32_t w = h.read_from[r];
  if (w == kReadsInitial) return kInitialTxn;
  if (w == kThinAir || w == kNone) return kNone;
  return h.op_txn[w];
}

bool writes(const History& h, uint32_t t, uint32_t key) {
  if (t == kInitialTxn) return true;
  for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o)
    if (h.ops[o].is_write() && h.ops[o].key == key) return true;
  return false;
}

}  // namespace

std::string verify_commit_order(const History& h, Level level, const std::vector<uint32_t>& order) {
  const uint32_t N = static_cast<uint32_t>(h.txns.size());
  std::vector<uint32_t> pos(N, kNone);
  if (order.empty() || order[0] != kInitialTxn) return "the order does not start with the initial transaction";
  for (uint32_t i = 0; i < order.size(); ++i) {
    const uint32_t t = order[i];
    if (t >= N || pos[t] != kNone) return "the order repeats or names a bad transaction";
    if (t != kInitialTxn && !h.txns[t].committed) return "the order holds an uncommitted transaction";
    pos[t] = i;
  }
  for (uint32_t t = 1; t < N; ++t)
    if (h.txns[t].committed && pos[t] == kNone) return "the order misses T" + std::to_string(t);
  // so, wr, rt
  std::vector<std::vector<uint32_t>> direct(N);  // so ∪ wr predecessors (direct)
  for (uint32_t a = 1; a < N; ++a) {
    if (!h.txns[a].committed) continue;
    direct[a].push_back(kInitialTxn);
    for (uint32_t b = 1; b < N; ++b) {
      if (!h.txns[b].committed) continue;
      const Txn &x = h.txns[a], &y = h.txns[b];
      if (x.session == y.session && x.index < y.index) {
        if (pos[a] > pos[b]) return "the order breaks session order";
        direct[b].push_back(a);
      }
      if (level == Level::SSER && x.has_time() && y.has_time() && h.times[a].end < h.times[b].start && pos[a] > pos[b])
        return "the order breaks real time";
    }
  }
  struct Read {
    uint32_t t3, key, t1;
  };
  std::vector<Read> reads;
  for (uint32_t t = 1; t < N; ++t) {
    if (!h.txns[t].committed) continue;
    for (uint32_t r = h.txns[t].op_begin; r < h.txns[t].op_end; ++r) {
      if (!h.ops[r].is_read()) continue;
      const uint32_t w = writer_of(h, r);
      if (w == t) continue;
      if (w == kNone || pos[w] == kNone) return "a read has no committed writer";
      if (pos[w] > pos[t]) return "the order breaks write-read";
      reads.push_back({t, h.ops[r].key, w});
      direct[t].push_back(w);
    }
  }
  const size_t nk = h.keys.size();
  for (const Read& a : reads) {
    for (uint32_t t2 : order) {
      if (t2 == a.t1 || !writes(h, t2, a.key)) continue;
      bool phi = false;
      if (level == Level::SER || level == Level::SSER) {
        phi = pos[t2] < pos[a.t3];
      } else {
        for (uint32_t t4 : direct[a.t3])
          if (pos[t2] <= pos[t4]) phi = true;
        if (level == Level::SI && !phi)
          for (uint32_t t4 : order) {
            if (pos[t4] < pos[t2] || pos[t4] >= pos[a.t3]) continue;
            for (uint32_t y = 0; y < nk && !phi; ++y)
              if (writes(h, t4, y) && writes(h, a.t3, y)) phi = true;
          }
      }
      if (phi && pos[t2] > pos[a.t1])
        return std::string("the order breaks the ") + level_name(level) + " axiom at T" +
               std::to_string(a.t3) + "'s read of " + h.keys.display(a.key);
    }
  }
  return "";
}

History project_history(const History& h, const std::vector<uint32_t>& txns) {
  std::vector<char> keep(h.txns.size(), 0);
  for (uint32_t t : txns) keep[t] = 1;
  return isoscope::project_history(h, keep);
}

std::string verify_strong_report(const History& h, Level level, const StrongReport& r,
                                 bool check_cores) {
  const LevelResult& res = r.result;
  if (res.verdict == Verdict::Pass) return verify_commit_order(h, level, r.result.commit_order);
  if (res.verdict != Verdict::Fail) return "";
  if (res.anomalies.empty()) return "a violation without anomalies";
  for (const Anomaly& a : res.anomalies) {
    if (a.explanation.empty()) return "an anomaly without an explanation";
    const bool core = a.explanation.find("core of") != std::string::npos;
    if (!core && a.explanation.find("a contradiction") != std::string::npos && !a.edges.empty()) {
      for (size_t i = 0; i < a.edges.size(); ++i) {
        const AnomalyEdge& e = a.edges[i];
        const AnomalyEdge& next = a.edges[(i + 1) % a.edges.size()];
        if (e.to_txn != next.from_txn) return std::string(kind_name(a.kind)) + ": the cycle does not close";
      }
    }
    if (core && check_cores) {
      History p = project_history(h, a.txns);
      if (reference_check(p, level) != Verdict::Fail) return std::string(kind_name(a.kind)) + ": the core does not violate";
      if (a.explanation.find("a minimal core") != std::string::npos)
        for (uint32_t drop : a.txns) {
          std::vector<uint32_t> rest;
          for (uint32_t t : a.txns)
            if (t != drop) rest.push_back(t);
          History q = project_history(h, rest);
          if (reference_check(q, level) != Verdict::Pass) return std::string(kind_name(a.kind)) + ": the core is not minimal";
        }
    }
  }
  return "";
}

}  // namespace isoscope
