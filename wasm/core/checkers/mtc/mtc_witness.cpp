#include "checkers/mtc/mtc_witness.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "model/anomaly_kinds.h"
#include "checkers/cycle_names.h"
#include "checkers/explain.h"

namespace isoscope {

namespace {

// The last write of key x in transaction t, or kNone.
uint32_t last_write(const History& h, uint32_t t, uint32_t x) {
  if (t == kInitialTxn) return kNone;
  uint32_t w = kNone;
  for (uint32_t i = h.txns[t].op_begin; i < h.txns[t].op_end; ++i)
    if (h.ops[i].is_write() && h.ops[i].key == x) w = i;
  return w;
}

const char* level_words(Level l) {
  switch (l) {
    case Level::SSER: return "strict serializability (a serial order that also respects real time)";
    case Level::SI: return "snapshot isolation";
    case Level::LIN: return "linearizability";
    default: return "serializability";
  }
}

}  // namespace

AnomalyEdge anomaly_edge(const History& h, const DepEdge& e) {
  AnomalyEdge a;
  a.from_txn = e.from;
  a.to_txn = e.to;
  switch (e.kind) {
    case EdgeKind::SO:
      a.type = EdgeType::SO;
      a.why = session_order_why(h, e.from, e.to);
      break;
    case EdgeKind::WR: {
      a.type = EdgeType::WR;
      a.key = h.ops[e.op].key;
      a.from_op = h.read_from[e.op] < kThinAir ? h.read_from[e.op] : kNone;
      a.to_op = e.op;
      a.why = reads_from_why(h, e.op, e.from);
      const uint32_t w = last_write(h, e.to, a.key);
      if (w != kNone) a.why += " and overwrites it with " + h.op_text(w);
      break;
    }
    case EdgeKind::RW: {
      a.type = EdgeType::RW;
      a.key = h.ops[e.op].key;
      a.from_op = e.op;
      a.to_op = last_write(h, e.to, a.key);
      const uint32_t w = h.writer_txn(e.op);
      a.why = h.txn_name(e.from) + " reads " + h.op_text(e.op) + " (written by " + h.txn_name(w) +
              "), the version that " + h.txn_name(e.to) + " read and overwrote" +
              (a.to_op != kNone ? " with " + h.op_text(a.to_op) : std::string()) +
              ", so " + h.txn_name(e.from) + " comes before " + h.txn_name(e.to);
      break;
    }
    case EdgeKind::RT:
    case EdgeKind::Point:
      a.type = EdgeType::RT;
      a.why = real_time_why(h, e.from, e.to);
      break;
  }
  return a;
}

Anomaly non_repeatable_reads(const History& h, uint32_t read1, uint32_t read2) {
  Anomaly a;
  a.kind = AnomalyKind::NonRepeatableRead;
  const uint32_t t = h.op_txn[read1], w1 = h.writer_txn(read1), w2 = h.writer_txn(read2);
  a.txns = {w1, w2, t};
  a.ops = {read1, read2};
  a.edges.push_back(anomaly_edge(h, {w1, t, EdgeKind::WR, read1}));
  a.edges.push_back(anomaly_edge(h, {w2, t, EdgeKind::WR, read2}));
  a.explanation = h.txn_name(t) + " reads " + h.keys.display(h.ops[read1].key) + " twice, " +
                  h.op_text(read1) + " from " + h.txn_name(w1) + " and then " + h.op_text(read2) +
                  " from " + h.txn_name(w2) +
                  ", without writing it in between: the two reads cannot both come from one "
                  "snapshot or one point of a serial order";
  return a;
}

Anomaly lost_update(const History& h, uint32_t w, uint32_t r1, uint32_t r2) {
  Anomaly a;
  a.kind = AnomalyKind::LostUpdate;
  const uint32_t t1 = h.op_txn[r1], t2 = h.op_txn[r2], x = h.ops[r1].key;
  a.txns = {w, t1, t2};
  a.ops = {r1, r2};
  a.edges.push_back(anomaly_edge(h, {w, t1, EdgeKind::WR, r1}));
  a.edges.push_back(anomaly_edge(h, {w, t2, EdgeKind::WR, r2}));
  // The conflict: each read the version the other overwrote, so each must come before the
  // other (the cycle the diagram draws).
  a.edges.push_back(anomaly_edge(h, {t1, t2, EdgeKind::RW, r1}));
  a.edges.push_back(anomaly_edge(h, {t2, t1, EdgeKind::RW, r2}));
  const uint32_t w1 = last_write(h, t1, x), w2 = last_write(h, t2, x);
  a.explanation = h.txn_name(t1) + " and " + h.txn_name(t2) + " both read " + h.op_text(r1) +
                  " from " + h.txn_name(w) + " and both overwrite it (" +
                  (w1 != kNone ? h.op_text(w1) : std::string("?")) + ", " +
                  (w2 != kNone ? h.op_text(w2) : std::string("?")) +
                  "): whichever writes second has not seen the other's update, which is lost "
                  "(the Divergence pattern; snapshot isolation and every stronger level forbid it)";
  return a;
}

Anomaly cycle_anomaly(const History& h, const std::vector<DepEdge>& cycle, Level level) {
  Anomaly a;
  const size_t k = cycle.size();
  std::string because;
  std::vector<uint32_t> context;
  for (size_t i = 0; i < k; ++i) {
    a.edges.push_back(anomaly_edge(h, cycle[i]));
    a.txns.push_back(cycle[i].from);
    if (cycle[i].op != kNone) a.ops.push_back(cycle[i].op);
    because += (i ? "; " : "") + a.edges.back().why;
    // The writer of the version an anti-dependency read: the explanation names it.
    if (cycle[i].kind == EdgeKind::RW) context.push_back(h.writer_txn(cycle[i].op));
  }
  for (uint32_t t : context)
    if (t < h.txns.size() && std::find(a.txns.begin(), a.txns.end(), t) == a.txns.end()) a.txns.push_back(t);
  a.kind = classify_cycle(h, a.edges);
  const std::string first = k ? h.txn_name(cycle[0].from) : std::string("?");
  a.explanation = because + ". Each of these orders the first transaction before the second" +
                  (level == Level::SI ? " (and no two anti-dependencies (RW) are consecutive)"
                                      : std::string()) +
                  ", so " + first + " would have to come before itself: a contradiction with " +
                  level_words(level);
  return a;
}

}  // namespace isoscope
