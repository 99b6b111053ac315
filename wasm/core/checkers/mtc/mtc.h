// Mini-transactions (Wei et al., "Boosting End-to-End Database Isolation Checking via
// Mini-Transactions", MTC): linear-time SER and SI, O(n log n) SSER on mini-transaction
// histories (Alg. 1 with the Section IV-C optimisation), and linear-time LIN on
// lightweight-transaction histories (Alg. 2).
//
// Mini-transaction (MT, Def. 8): one or two reads, at most two writes (at most four ops in all),
// and every write is preceded in program order by a read of the same key. An MT history
// (Def. 9) holds only MTs (the implicit initial transaction aside) with unique writes (which the
// HistoryBuilder enforces for every history).
//
// Why it is fast: a committed MT that writes x first reads x from some transaction W (the RMW
// pattern), so its write must come right after W's in the version order of x. Hence the version
// order is forced: it is a chain from the initial transaction unless two transactions read the
// same version and both overwrite it (the Divergence pattern, a LostUpdate that no level from SI
// up allows) or the "reads from" links of writers form a loop (a cycle in the graph). The
// dependency graph is then unique and SER / SI / SSER reduce to acyclicity of a graph with O(n)
// edges (real time adds O(n) edges through a sorted chain of time points instead of O(n^2)).
//
// Semantics are those of docs/formats.md (Biswas & Enea axioms; SSER adds
// T1.end < T2.start); every read of a committed transaction counts, not just the first one of a
// key (two reads of one key from different writers are NonRepeatableRead and fail SER/SI).
#pragma once
#include "checkers/result.h"
#include "model/history.h"
#include "model/shapes.h"

namespace isoscope {

// Precondition: is_mini_transaction_history(h) (otherwise Verdict::Unknown with a reason).
// Read consistency (checkers/read_consistency.h) is checked first; its anomalies fail the level.
LevelResult check_ser_mt(const History& h, const CheckBudget& budget);
LevelResult check_si_mt(const History& h, const CheckBudget& budget);
// NotApplicable when no transaction carries timestamps.
LevelResult check_sser_mt(const History& h, const CheckBudget& budget);

// Lightweight transactions (MTC Sec. IV-E): every transaction holds timestamps and is one of
//   [r(x, v)]                 a read (also a compare-and-set that failed),
//   [w(x, v)]                 a successful insert-if-not-exists,
//   [r(x, v), w(x, v')]       a read&write (a successful compare-and-set).
bool is_lightweight_history(const History& h);

// Linearizability of a lightweight-transaction history (MTC Alg. 2, per key, linear time).
// Each key is a register that starts absent (holding the initial value, if the history has
// one). An insert succeeds only on the absent key, so it acts as a read&write of the absent
// state: two inserts of one key, or an insert and a read&write of the absent state, diverge.
// Per key the writers must form one chain from the absent state (each read&write reads the
// value its predecessor wrote); reads belong between the write they read and the next write;
// and no operation may end before an operation that the chain puts before it starts.
// Real time: T1 precedes T2 iff T1.end < T2.start; aborted transactions take no part.
// Witnesses: LostUpdate (divergence), G1c (writers reading each other in a
// loop), RealTimeViolation (the chain link or read and the operation that ended before it).
// NotApplicable when !is_lightweight_history(h).
LevelResult check_lin(const History& h, const CheckBudget& budget);

}  // namespace isoscope
