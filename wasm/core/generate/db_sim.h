// A concurrent-database simulator (`isoscope generate --engine ser|si|rc`): the histories that
// real isolation tests record, with verdicts known by construction.
//
// N client sessions run transactions against one simulated key-value store (integer keys,
// initial value 0, every write a fresh value unless value_range is set). Time is a clock of events: at each step one
// random session with work left takes its next step (begin, one operation, or commit), so with
// many sessions every transaction overlaps many others. A transaction's start and end
// timestamps are its begin and commit events. The engine decides what reads return and which
// commits succeed:
//   ser  optimistic concurrency control with backward validation: reads see the snapshot taken
//        at begin (and the transaction's own writes); the commit aborts when a key it read or
//        wrote was committed by another transaction since its begin. A committed transaction
//        behaves as if it ran alone at its commit event: strictly serializable, so the history
//        passes every level (SSER included).
//   si   snapshot isolation: reads as in ser; the commit aborts only on a write-write conflict
//        (first committer wins). Passes SI (and PC, CC, ...); write skew makes SER fail.
//   rc   read committed: every read sees the latest committed value when it runs (own writes
//        first); commits never abort. Passes RC; lost updates, fractured and non-repeatable
//        reads make the stronger levels fail.
// Aborted transactions (engine or client, abort_ratio) are recorded as aborted.
//
// Workload: the register programs of generate/workload.h (the shapes of Cobra's and PolySI's
// benchmarks, shared with `isoscope run`); keys uniform, zipfian or hotspot.
//
// inject: an anomaly pattern (generate/inject.h) planted in the middle of the run on fresh
// keys: its sessions finish their current transaction, then run the pattern's transactions
// overlapping each other in time (real-time anomalies in consecutive slots). The rest of the
// history satisfies the engine's levels, so with ser the history fails exactly the levels that
// forbid the anomaly.
//
// Same parameters and seed: the same history on every platform. Memory: the operations of the
// run (about 24 bytes each) and the committed versions of every key.
#pragma once
#include <cstdint>

#include "generate/inject.h"
#include "generate/mt_history.h"
#include "generate/workload.h"

namespace isoscope {

enum class DbEngine : uint8_t { Serializable, SnapshotIsolation, ReadCommitted };

struct DbSimParams {
  uint64_t seed = 1;
  DbEngine engine = DbEngine::Serializable;
  uint32_t sessions = 10;
  uint32_t txns_per_session = 100;
  uint32_t min_ops = 8, max_ops = 8;
  KeyParams key;
  double read_ratio = 0.5;
  WorkloadMix mix;
  double abort_ratio = 0;  // client-side aborts
  const InjectableAnomaly* inject = nullptr;
  bool labels = false;
  // 0: every write a fresh value. N > 0: writes draw values from 1..N (repeated values: the
  // reads become ambiguous, and the engine's levels still hold for the choice that happened;
  // never 0, the initial value, which a single write would claim: docs/formats.md).
  uint32_t value_range = 0;
};

void simulate_database(const DbSimParams& p, GenSink& sink);
Expected<History> simulate_database(const DbSimParams& p);

}  // namespace isoscope
