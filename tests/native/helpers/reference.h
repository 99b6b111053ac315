// The brute-force reference every checker in the project is tested against. Obviously correct,
// not fast: it is meant for histories of up to ~8-10 committed transactions.
#pragma once
#include "checkers/result.h"
#include "model/history.h"

namespace isoscope {

// Decides level l for h straight from the definitions of docs/formats.md:
//  1. Read consistency (AWDIT Def. 2.3) for every read of every committed transaction:
//     no thin-air, aborted, future, not-my-own-write, not-my-last-write / intermediate reads.
//     Any violation: Fail (for every level; SSER without timestamps stays NotApplicable).
//  2. Enumerates every total commit order co of the committed transactions (the initial
//     transaction first) that extends so ∪ wr (and real time for SSER), then
//     evaluates the Biswas & Enea axiom of the level literally (OOPSLA'19 Fig. 2, Table 1):
//        t1 != t2 ∧ t1 -wr_x-> α ∧ t2 writes x ∧ φ(t2, α)  =>  t2 -co-> t1
//     RC: t2 -wr-> β -po-> α (β, α reads of one transaction)   RA: t2 -(so ∪ wr)-> t3
//     CC: t2 -(so ∪ wr)+-> t3      PC: t2 -co*-> t4 -(so ∪ wr)-> t3
//     SI: Prefix ∧ Conflict (t2 -co*-> t4 -co-> t3, t4 and t3 write a common key)
//     SER / SSER: t2 -co-> t3
//     RR is RC plus repeatable reads (a committed transaction reads each key, before writing
//     it, from one writer). wr relates a write to a read of another transaction (a read of the
//     transaction's own write is settled by read consistency); the initial transaction writes
//     every key and precedes every transaction in session order.
// Repeated values: a read of a (key, value) written more than once may read from any of its
// writes (and from the initial transaction when the value is the initial value); the reference
// finds those reads itself and tries every combination of choices (up to 20,000; Unknown
// beyond), each with its own effective status of unknown transactions.
// Pass iff some choice and some commit order satisfy the axiom(s). SSER is NotApplicable when no
// transaction has timestamps. Returns Unknown for more than 12 committed transactions and for
// levels outside RC, RR, RA, CC, PC, SI, SER, SSER.
Verdict reference_check(const History& h, Level l);

// Step 1 alone: whether every read of every committed transaction is read consistent.
bool reference_read_consistent(const History& h);

}  // namespace isoscope
