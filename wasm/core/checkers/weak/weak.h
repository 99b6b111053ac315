// The weak isolation levels at AWDIT's optimal bounds (Møldrup & Pavlogiannis, PLDI 2025):
//   RC   Read Committed      O(n^1.5)  AWDIT Alg. 1
//   RR   RC + repeatable reads (a committed transaction reads each key, before writing it, from
//        one writer), as Plume and IsoVista define it
//   RA   Read Atomic         O(n^1.5)  AWDIT Alg. 2
//   CC   Causal Consistency  O(n*k)    AWDIT Alg. 3 (k sessions), vector clocks kept only while
//                                      a later reader still needs them
//
// Each checker first reports every read that breaks read consistency (check_read_consistency),
// then discards those reads and saturates a partial commit order co' over so ∪ wr with the
// orderings the level's axiom forces; a cycle of co' (one short cycle per strongly connected
// component) is an anomaly whose edges say why each ordering holds. Only committed (effective)
// transactions take part; the initial transaction (id 0) precedes every transaction.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

LevelResult check_rc(const History& h, const CheckBudget& budget);
LevelResult check_rr(const History& h, const CheckBudget& budget);
LevelResult check_ra(const History& h, const CheckBudget& budget);
LevelResult check_cc(const History& h, const CheckBudget& budget);
// The clocks check_cc keeps: Auto picks dense ones for up to a few thousand writing sessions,
// sparse ones beyond (tests force either, to compare them).
enum class CcClocks { Auto, Dense, Sparse };
// The forced orderings check_cc keeps: those no other one implies through session order
// (Staircase, the default); for tests, every one found (All), or the same staircase found by
// compacting often, without the filter that runs as they are found (Compacted).
enum class CcEdges { Staircase, All, Compacted };
LevelResult check_cc(const History& h, const CheckBudget& budget, CcClocks clocks,
                     CcEdges edges = CcEdges::Staircase);
// For tests: the forced orderings (t2, t1), t2 before t1, that check_cc keeps (none when
// so ∪ wr is cyclic).
std::vector<std::pair<uint32_t, uint32_t>> cc_kept_orderings(const History& h, CcClocks clocks, CcEdges edges);
// The memory check_cc's vector clocks, kept orderings and their bookkeeping may take (the
// estimate checked before it runs).
size_t cc_clock_bytes_estimate(const History& h);

}  // namespace isoscope
