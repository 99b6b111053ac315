#include "checkers/explain.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace isoscope {

std::string short_name(const History& h, uint32_t t) {
  return t == kInitialTxn ? "T0 (initial)" : "T" + std::to_string(h.shown(t).txn);
}

std::string time_text(const Time& t) { return t.text(); }

std::string session_order_why(const History& h, uint32_t from, uint32_t to) {
  if (from == kInitialTxn) return "the initial transaction precedes every transaction";
  return h.txn_name(from) + " precedes " + h.txn_name(to) + " in session " + std::to_string(h.txns[to].session);
}

std::string reads_from_why(const History& h, uint32_t read_op, uint32_t writer_txn) {
  return h.txn_name(h.op_txn[read_op]) + " reads " + h.read_text(read_op, writer_txn);
}

std::string txns_text(const History& h, const std::vector<uint32_t>& txns, const char* conj, const char* more,
                      size_t max_named) {
  std::string s;
  const size_t named = txns.size() > max_named + 1 ? max_named : txns.size();
  for (size_t i = 0; i < named; ++i) {
    if (i) s += i + 1 == txns.size() ? std::string(" ") + conj + " " : ", ";
    s += txns[i] == kInitialTxn ? std::string("the initial transaction") : short_name(h, txns[i]);
  }
  if (named < txns.size()) s += std::string(" ") + conj + " " + more + std::to_string(txns.size() - named) + " more";
  return s;
}

std::string candidates_text(const History& h, uint32_t read_op) {
  // Each writer once (a transaction's writes of the pair are adjacent), the first eight named.
  std::vector<uint32_t> writers;
  for (uint32_t w : h.ambiguous.candidates(read_op)) {
    const uint32_t t = h.candidate_txn(w);
    if (writers.empty() || writers.back() != t) writers.push_back(t);
  }
  return txns_text(h, writers, "or", "any of ", 8);
}

std::string real_time_why(const History& h, uint32_t from, uint32_t to) {
  return h.txn_name(from) + " ends (at " + time_text(h.times[from].end) + ") before " + h.txn_name(to) +
         " starts (at " + time_text(h.times[to].start) + ")";
}

AnomalyEdge session_order_edge(const History& h, uint32_t from, uint32_t to) {
  AnomalyEdge e;
  e.from_txn = from;
  e.to_txn = to;
  e.type = EdgeType::SO;
  e.why = session_order_why(h, from, to);
  return e;
}

std::string cycle_explanation(const History& h, const std::vector<AnomalyEdge>& edges, const std::string& under) {
  std::string s;
  for (size_t i = 0; i < edges.size(); ++i) {
    const AnomalyEdge& ed = edges[i];
    if (i) s += "; ";
    if (i + 1 == edges.size() && edges.size() > 1) s += "however ";
    s += short_name(h, ed.from_txn) + " < " + short_name(h, ed.to_txn) + " because " + ed.why;
  }
  return s + ": a contradiction (a cycle in the order in which transactions must commit" + under + ")";
}

AnomalyEdge reads_from_edge(const History& h, uint32_t writer_txn, uint32_t read_op) {
  AnomalyEdge e;
  e.from_txn = writer_txn;
  e.to_txn = h.op_txn[read_op];
  e.type = EdgeType::WR;
  e.key = h.ops[read_op].key;
  e.from_op = h.read_from[read_op] < kThinAir ? h.read_from[read_op] : kNone;
  e.to_op = read_op;
  e.why = reads_from_why(h, read_op, writer_txn);
  return e;
}

}  // namespace isoscope
