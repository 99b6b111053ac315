// The anomaly vocabulary: every kind of anomaly any checker reports, with its family, the
// weakest level that forbids it, a title and a one-line description. The checkers name their
// anomalies from here, `isoscope anomalies --json` prints the table, the web app shows these
// titles (web/generated/anomaly-kinds.json, written by the build), and `isoscope generate
// --target inject=NAME` plants anomalies by these names.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "model/levels.h"

namespace isoscope {

enum class AnomalyFamily : uint8_t {
  ReadConsistency,  // a read that no commit order can explain (AWDIT Def. 2.3)
  Adya,             // Adya's phenomena: G0, G1a-c, G-single, G2
  Session,          // read committed / atomic / causal guarantees across sessions
  SnapshotIsolation,
  Serializability,
  RealTime,
  ListOrder,        // list-append histories
  CausalModel,      // the bad patterns of the non-transactional causal models (CausalC)
};
const char* family_name(AnomalyFamily f);

enum class AnomalyKind : uint8_t {
  ThinAirRead, AbortedRead, FutureRead, NotMyOwnWrite, NotMyLastWrite, IntermediateRead,
  ReadConsistency,
  G0, G1c, GSingle, G2, CausalityCycle,
  NonMonotonicRead, NonRepeatableRead, FracturedRead, SessionGuaranteeViolation,
  CausalityViolation,
  LongFork, LostUpdate, WriteConflict, PCViolation, SIViolation,
  WriteSkew, SERViolation,
  StaleRead, RealTimeViolation, SSERViolation,
  DuplicateElements, IncompatibleOrder,
  CyclicCO, WriteCOInitRead, WriteCORead, CyclicCF, CyclicHB, WriteHBInitRead,
  NotLinearizable,
  // Over predicate reads (docs/formats.md, "Rows that come and go"): a read of a key the
  // predicate read did not return is in the cycle or pattern.
  Phantom, GSinglePredicate, G2Predicate,
  // A committed write a crash lost (History::faults): a later read returns an older version.
  LostWrite,
};

struct AnomalyKindInfo {
  AnomalyKind kind;
  const char* name;  // as reported in the result JSON
  AnomalyFamily family;
  Level weakest;      // the weakest level that forbids it
  const char* title;  // for people: "Lost update"
  const char* description;
};
std::span<const AnomalyKindInfo> anomaly_kinds();
const AnomalyKindInfo& kind_info(AnomalyKind k);
inline const char* kind_name(AnomalyKind k) { return kind_info(k).name; }
const AnomalyKindInfo* find_anomaly_kind(std::string_view name);
// The level-named core of a violation found by search (no named pattern).
AnomalyKind violation_of(Level l);

}  // namespace isoscope
