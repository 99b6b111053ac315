// The words for the facts every witness rests on, written one way for all checkers: session
// order, reads-from, real time, and how transactions and times are named. Checkers add the
// reasoning of their own inferred edges (anti-dependencies, forced orderings) around these.
#pragma once
#include <string>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

std::string short_name(const History& h, uint32_t txn);  // "T5", "T0 (initial)" (numbered as in the original history)
std::string time_text(const Time& t);  // exact: "1", "1.5", "1700000000000000100"

// "the initial transaction precedes every transaction" / "T1 (...) precedes T2 (...) in session 0"
std::string session_order_why(const History& h, uint32_t from, uint32_t to);
// "T2 (...) reads r(x, 1) from T1 (...)" / "... (the initial value)"
std::string reads_from_why(const History& h, uint32_t read_op, uint32_t writer_txn);
// An ambiguous read's candidate writers: "T3 or T7", "T3, T7 or the initial transaction".
std::string candidates_text(const History& h, uint32_t read_op);
// Transactions named in a list: "T1, T2 and T3" (conj "and"); beyond max_named + 1 of them,
// max_named and the count: "T1, T2, T3, T4 or any of 7 more" (conj "or", more "any of ").
std::string txns_text(const History& h, const std::vector<uint32_t>& txns, const char* conj, const char* more,
                      size_t max_named);
// "T1 (...) ends (at 3) before T2 (...) starts (at 5)"
std::string real_time_why(const History& h, uint32_t from, uint32_t to);

// A cycle's explanation, Elle's way: "T1 < T2 because ...; however T2 < T1 because ...: a
// contradiction (a cycle in the order in which transactions must commit under SER)", where
// `under` is what follows "commit" ("" or " under SER").
std::string cycle_explanation(const History& h, const std::vector<AnomalyEdge>& edges, const std::string& under);

// The edges themselves, with their anchors and reasons.
AnomalyEdge session_order_edge(const History& h, uint32_t from, uint32_t to);
AnomalyEdge reads_from_edge(const History& h, uint32_t writer_txn, uint32_t read_op);

}  // namespace isoscope
