#include "model/anomaly_kinds.h"


namespace isoscope {

namespace {

using K = AnomalyKind;
using F = AnomalyFamily;
constexpr AnomalyKindInfo kKinds[] = {
    {K::ThinAirRead, "ThinAirRead", F::ReadConsistency, Level::RC, "Thin-air read",
     "A read returns a value that no transaction wrote."},
    {K::AbortedRead, "AbortedRead", F::ReadConsistency, Level::RC, "Aborted read (G1a)",
     "A read returns a value written by a transaction that aborted."},
    {K::FutureRead, "FutureRead", F::ReadConsistency, Level::RC, "Future read",
     "A transaction reads a value that it writes only later."},
    {K::NotMyOwnWrite, "NotMyOwnWrite", F::ReadConsistency, Level::RC, "Not my own write",
     "After writing a key, a transaction reads a value someone else wrote."},
    {K::NotMyLastWrite, "NotMyLastWrite", F::ReadConsistency, Level::RC, "Not my last write",
     "After writing a key twice, a transaction reads its own older value."},
    {K::IntermediateRead, "IntermediateRead", F::ReadConsistency, Level::RC, "Intermediate read (G1b)",
     "A read returns a value that its writer overwrote later in the same transaction."},
    {K::ReadConsistency, "ReadConsistency", F::ReadConsistency, Level::RC, "Inconsistent read",
     "A read that no commit order can explain."},
    {K::G0, "G0", F::Adya, Level::RC, "G0: write cycle",
     "Transactions overwrite each other's writes in a cycle."},
    {K::G1c, "G1c", F::Adya, Level::RC, "G1c: circular information flow",
     "Transactions read from (or overwrite) each other in a cycle."},
    {K::GSingle, "G-single", F::Adya, Level::SI, "G-single: read skew",
     "A cycle of dependencies with exactly one anti-dependency: a transaction misses a write it must have seen."},
    {K::G2, "G2", F::Adya, Level::SER, "G2: anti-dependency cycle",
     "A cycle of dependencies with several anti-dependencies."},
    {K::CausalityCycle, "CausalityCycle", F::Session, Level::RC, "Causality cycle",
     "Session order and reads-from form a cycle: a transaction observes its own future."},
    {K::NonMonotonicRead, "NonMonotonicRead", F::Session, Level::RC, "Non-monotonic read",
     "After seeing a newer version of a key, a transaction reads an older one."},
    {K::NonRepeatableRead, "NonRepeatableRead", F::Session, Level::RR, "Non-repeatable read",
     "A transaction reads the same key twice and gets values from different writers."},
    {K::FracturedRead, "FracturedRead", F::Session, Level::RA, "Fractured read",
     "A transaction sees some but not all of another transaction's writes."},
    {K::SessionGuaranteeViolation, "SessionGuaranteeViolation", F::Session, Level::RA,
     "Session guarantee violation", "A session does not see the writes of its own earlier transactions."},
    {K::CausalityViolation, "CausalityViolation", F::Session, Level::CC, "Causality violation",
     "A transaction sees an effect without its cause."},
    {K::LongFork, "LongFork", F::SnapshotIsolation, Level::PC, "Long fork",
     "Two transactions see two independent writes in opposite orders."},
    {K::LostUpdate, "LostUpdate", F::SnapshotIsolation, Level::SI, "Lost update",
     "Two transactions read the same version of a key and both overwrite it: one update is lost."},
    {K::WriteConflict, "WriteConflict", F::SnapshotIsolation, Level::SI, "Concurrent write conflict",
     "Two concurrent transactions write the same key and both commit."},
    {K::PCViolation, "PCViolation", F::SnapshotIsolation, Level::PC, "Prefix consistency violation",
     "No commit order lets every transaction see a prefix of it: the smallest set of transactions that shows it."},
    {K::SIViolation, "SIViolation", F::SnapshotIsolation, Level::SI, "Snapshot isolation violation",
     "No commit order gives every transaction a snapshot without write conflicts: the smallest set of transactions that shows it."},
    {K::WriteSkew, "WriteSkew", F::Serializability, Level::SER, "Write skew",
     "Two transactions each read what the other writes and both commit: no serial order explains them."},
    {K::SERViolation, "SERViolation", F::Serializability, Level::SER, "Serializability violation",
     "No serial order explains the history: the smallest set of transactions that shows it."},
    {K::StaleRead, "StaleRead", F::RealTime, Level::SSER, "Stale read",
     "A read misses a write that had finished, in real time, before the read began."},
    {K::RealTimeViolation, "RealTimeViolation", F::RealTime, Level::SSER, "Real-time violation",
     "Every order that explains the reads contradicts the real-time order of the transactions."},
    {K::SSERViolation, "SSERViolation", F::RealTime, Level::SSER, "Strict serializability violation",
     "No serial order that respects real time explains the history: the smallest set of transactions that shows it."},
    {K::LostWrite, "LostWrite", F::RealTime, Level::SSER, "Lost write",
     "A committed write was lost in a crash: a transaction that began after the crash, and after the write was acknowledged, "
     "read an older version (or a list without the element)."},
    {K::DuplicateElements, "DuplicateElements", F::ListOrder, Level::RC, "Duplicate list elements",
     "A list read contains the same appended element twice."},
    {K::IncompatibleOrder, "IncompatibleOrder", F::ListOrder, Level::RC, "Incompatible list orders",
     "Two reads of a list show its elements in orders that no single history of appends explains."},
    {K::CyclicCO, "CyclicCO", F::CausalModel, Level::WCC, "Causal-order cycle",
     "Program order and reads-from form a cycle (the causal order must be a partial order)."},
    {K::WriteCOInitRead, "WriteCOInitRead", F::CausalModel, Level::WCC, "Initial read after a causal write",
     "An operation reads the initial value although a write of that key is in its causal past."},
    {K::WriteCORead, "WriteCORead", F::CausalModel, Level::WCC, "Overwritten causal read",
     "An operation reads a value that a write in its causal past had already overwritten."},
    {K::CyclicCF, "CyclicCF", F::CausalModel, Level::CCv, "Conflict-order cycle",
     "The order in which conflicting writes must be arbitrated forms a cycle (convergence is impossible)."},
    {K::CyclicHB, "CyclicHB", F::CausalModel, Level::CM, "Happens-before cycle",
     "The happens-before order of a process's view forms a cycle."},
    {K::WriteHBInitRead, "WriteHBInitRead", F::CausalModel, Level::CM, "Initial read after a happens-before write",
     "An operation reads the initial value although a write of that key happens before it in its process's view."},
    {K::NotLinearizable, "NotLinearizable", F::RealTime, Level::LIN, "Not linearizable",
     "No order of one object's operations that respects real time explains what they returned: the longest prefix that does, and the operation that cannot follow it."},
    {K::Phantom, "PMP", F::Adya, Level::RA, "PMP: phantom",
     "A row appears or vanishes between a transaction's predicate reads, or a transaction sees part of another's inserts and deletes (predicate-many-preceders)."},
    {K::GSinglePredicate, "G-single-predicate", F::Adya, Level::SI, "G-single over a predicate: predicate read skew",
     "A cycle with one anti-dependency from a predicate read: it missed a row (or a change) it must have seen."},
    {K::G2Predicate, "G2-predicate", F::Adya, Level::SER, "G2 over a predicate: predicate write skew",
     "A cycle of anti-dependencies, one from a predicate read: each transaction's predicate missed the other's insert, update or delete."},
};

}  // namespace

const char* family_name(AnomalyFamily f) {
  switch (f) {
    case F::ReadConsistency: return "read consistency";
    case F::Adya: return "Adya";
    case F::Session: return "session and causal guarantees";
    case F::SnapshotIsolation: return "prefix and snapshot isolation";
    case F::Serializability: return "serializability";
    case F::RealTime: return "real time";
    case F::ListOrder: return "list order";
    case F::CausalModel: return "causal models";
  }
  return "?";
}

std::span<const AnomalyKindInfo> anomaly_kinds() { return kKinds; }

const AnomalyKindInfo& kind_info(AnomalyKind k) {
  for (const AnomalyKindInfo& i : kKinds)
    if (i.kind == k) return i;
  return kKinds[0];  // every enumerator has a row (the vocabulary test checks it)
}

const AnomalyKindInfo* find_anomaly_kind(std::string_view name) {
  for (const AnomalyKindInfo& i : kKinds)
    if (name == i.name) return &i;
  return nullptr;
}

AnomalyKind violation_of(Level l) {
  switch (l) {
    case Level::PC: return K::PCViolation;
    case Level::SI: return K::SIViolation;
    case Level::SSER: return K::SSERViolation;
    default: return K::SERViolation;
  }
}

}  // namespace isoscope
