// Witnesses of the mini-transaction checkers, named after MTC Table I where one applies.
#pragma once
#include <cstdint>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// Edge kinds of the MT dependency graph (Point: an edge through the real-time points).
enum class EdgeKind : uint8_t { SO, WR, RW, RT, Point };

// A dependency edge between transactions. op: for WR the reading op, for RW the reading op of
// the source (whose version the target overwrote); kNone otherwise.
struct DepEdge {
  uint32_t from, to;
  EdgeKind kind;
  uint32_t op;
};

// Two external reads of one key in one transaction that read different writers.
Anomaly non_repeatable_reads(const History& h, uint32_t read1, uint32_t read2);
// The Divergence pattern: reads r1 and r2 (of two transactions that both write the key) read
// the same version, written by w.
Anomaly lost_update(const History& h, uint32_t w, uint32_t r1, uint32_t r2);
// A dependency cycle (edges in cycle order) that refutes `level`, named by its shape:
// SessionGuaranteeViolation, NonMonotonicRead, FracturedRead, CausalityViolation, LongFork,
// WriteSkew, G1c / CausalityCycle (no RW edge), RealTimeViolation.
Anomaly cycle_anomaly(const History& h, const std::vector<DepEdge>& cycle, Level level);

// Text of one edge, as used in explanations.
AnomalyEdge anomaly_edge(const History& h, const DepEdge& e);

}  // namespace isoscope
