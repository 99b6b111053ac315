// Histories whose reads may read from several writes (a (key, value) written more than once:
// History::ambiguous). A level holds when SOME choice of reads-from (and commit order)
// satisfies it, which makes even RC, RA and CC NP-complete; unique-value histories never come
// here (their checkers are unchanged).
//
// The choice is decided lazily, as an SMT solver decides a theory (the files of checkers/choice/, chooser.h):
//   1. Read consistency, per read: a read is a violation only when EVERY candidate is (a
//      thin-air read only when it has none); the others keep the candidates that are read
//      consistent, pruned again by session order (a later transaction of the reader's own
//      session closes a cycle with so).
//   2. A first choice from what the history says about time: the writer's transaction in the
//      reader's session, else the latest to end before the reader starts, else any; with
//      timestamps, a second one (what a read committed engine serves): each transaction's reads
//      in order through the versions current during it, versions ordered by their writers' ends.
//   3. The level's own checker decides the history with each first choice. A pass is a pass (its
//      commit order is the witness). When every first choice fails, two refutations by values
//      alone, each holding with every choice: a transaction reading a key twice (before writing
//      it) from candidates with none in common (RR and RA up), and read-modify-writes of a key
//      outnumbering the versions they may read (SI, SER, SSER: a bipartite matching; see
//      refutations.cpp for both proofs). Otherwise a failing choice's anomaly names a few
//      transactions S; when the sub-history of S fails on its own (every level here is closed
//      under such projections, and more reads only add constraints), every choice that agrees
//      on the reads inside S fails too: that conjunction is learned as a nogood.
//   4. The next choice satisfies every nogood (a backtracking search over the reads the nogoods
//      mention; the others keep their first choice); none left: the level fails, and the
//      witness is the anomaly that depended on the fewest choices, naming them.
//   5. SER and SSER, once the first guesses fail and the history less the reads with a choice
//      does not: a serial schedule searched over the values the keys hold (serial_schedule.h;
//      no reads-from needed), its choice checked by the level's own checker. Then
//      PC, SI, SER and SSER, once the first guesses fail (and no transaction's status is
//      unknown): the choice goes inside the strong levels' lazy polygraph solver instead
//      (strong.h, decide_choices: a literal per candidate writer implying its WR edge, the
//      anti-dependency edges guarded by it), which refutes whole families of choices at once.
//      Before it, the candidates the known edges rule out are dropped (causal consistency,
//      which every strong level implies: the reader reaches the candidate, or another writer
//      of the key lies causally between them); a read left with one candidate becomes a known
//      edge and the pruning goes again. The solver starts from the commit order of the history
//      less the reads with a choice (found when checking whether it fails on its own: then
//      every choice fails, with an anomaly that needs none). Its pass is verified as
//      check_strong verifies a candidate order (CC, then the order against every read, with
//      the choice it found; else the level's own checker on that choice); its failure is
//      shown on the sub-history of the transactions the refutation used (less the ambiguous
//      reads that could read from outside it), decided on its own, so the witness stays small.
// Every level RC..SSER, once its first guesses fail (the strong ones: once the history less the
// reads with a choice passes), tries the choices of two schedules found by search over the
// values the keys hold (concurrent_schedule.h): the run of a snapshot-isolation engine (a
// choice satisfying SI satisfies every level below it) and of a read-committed one; each
// checked by the level's own checker (so a pass stays a pass; finding none decides nothing).
// They need no timestamps. RC, RR, RA and CC, when these fail, try the choice SER's solver finds (a choice
// that satisfies SER satisfies them), checked by their own checker, before learning nogoods; on
// a table (whose predicate reads the schedule searches skip), SI's and then PC's when SER's
// finds none.
// WCC, CCv and CM (not closed under projections) learn the whole choice instead, so they are
// decided by enumeration, up to kMaxCausalChoices choices.
#pragma once
#include "checkers/check.h"

namespace isoscope {

// The level's verdict on a history with ambiguous reads (levels RC..SSER and WCC, CCv, CM).
// `leaf` is the level's own checker, which decides a history without them: checker_for
// (registry.cpp) routes the histories with ambiguous reads here, and this layer calls only down,
// into the leaf checkers and the strong levels' solver.
LevelResult check_with_choices(const History& h, Level level, LevelChecker leaf, const CheckBudget& budget);

// PC, SI, SER or SSER decided by the solver alone (strong.h, decide_choices), without the first
// guesses, refutations and schedule searches: the one step that decides every history the
// others do not, so the tests hold it to the reference on its own. NotApplicable when it does
// not apply (a transaction of unknown status); Unknown when a pass it found does not verify
// (a bug).
LevelResult check_with_choices_by_solver(const History& h, Level level, LevelChecker leaf, const CheckBudget& budget);

// How many reads-from choices the causal models enumerate at most.
constexpr double kMaxCausalChoices = 4096;

}  // namespace isoscope
