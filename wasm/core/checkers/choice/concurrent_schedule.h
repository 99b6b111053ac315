// A concurrent schedule of a history with repeated values, found by search over the values the
// keys hold: the run of a snapshot-isolation or read-committed engine that could have served
// it (checkers/choice/schedules.cpp uses it for RC..SI; serial_schedule.h is its serial counterpart).
//
// Transactions commit one at a time, atomically (a commit sets each key the transaction wrote to
// its last write); sessions run one transaction at a time, each starting after the previous one
// commits. Reads see values, so no reads-from is needed: a read may read from any write of its
// (key, value).
//   - Snapshot isolation: a transaction reads every key (before writing it) at its snapshot, a
//     moment after its session's previous commit, and may commit when it has a snapshot whose
//     values it read and no transaction writing a key it writes has committed since. A snapshot
//     is only known to exist, not chosen: the latest one counts (it leaves the fewest conflicts),
//     so a writer's commit sends the transactions it conflicts with back to wait for one.
//   - Read committed: each read (before its transaction writes the key) sees the value current
//     at some moment between its transaction's start and commit, moments in program order.
// Either way a transaction's own writes are read after it makes them.
// What happens without a choice is done at once: a read (or a snapshot) is taken as soon as the
// values allow it (taking it later helps nothing: later reads may still go later), a read-only
// transaction commits as soon as it may. The search then chooses the next commit, depth first,
// in the order of the database's run (by end time; without times, by progress through the
// session), and undoes its last choice on a dead end. It never moves a key off a value that a
// read still to be taken needs and that no transaction still to commit writes. A state (each
// session's place, which reads or snapshot it holds, the keys' values) found dead is remembered
// by its hash. On a dead end it jumps back past the commits that are not why: to just before
// the latest commit that took a value a transaction left waiting needs (moved a key it is still
// to read off that value, or cost it its snapshot). Restarts with jittered priorities keep a
// bad early choice from holding the search. A hash collision or a jump can only skip a live
// state, so the search may miss a schedule, never invent one; the choice it gives is verified by the level's own checker (choice/schedules.cpp), and a
// failure to find one decides nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

enum class ScheduleModel : uint8_t { SnapshotIsolation, ReadCommitted };

struct ConcurrentSchedule {
  bool found = false;
  bool exhausted = false;         // not found, and every state was tried (a hint, not a proof)
  bool stopped = false;           // not found: the budget ran out (another budget may find one)
  std::vector<uint32_t> commits;  // committed transactions, in commit order
  std::vector<uint32_t> choice;   // per ambiguous read (History::ambiguous index): its writer, or kNone
  size_t steps = 0;               // commits chosen (undone ones counted again)
};

// Searches a schedule of h's committed transactions under the model; gives up after max_steps
// chosen commits or when the budget expires, or past stall_steps if it never committed half
// the transactions (stuck far from the end). Not applicable (found = false at once) to list
// histories and to histories with a transaction of unknown status.
ConcurrentSchedule find_concurrent_schedule(const History& h, ScheduleModel model, const CheckBudget& budget,
                                            size_t max_steps, size_t stall_steps = SIZE_MAX);

// Whether commits (every committed transaction of h once, none other) is the commit order of a
// run of h (resolved: no ambiguous read left to choose) in which every transaction reads from a
// snapshot: some moment after its session's previous commit and before its own, at which each
// key it reads before writing it holds the version it reads (the last write of that key by the
// transaction that wrote it); its reads after its own write of a key read that write. With
// no_conflict, no transaction writing a key it writes commits between its snapshot and its
// commit. Then h satisfies SI (no_conflict) or PC, and CC and read consistency, which they
// imply: their checker would only find such a run again. A binary search per operation; false
// (which decides nothing) on any doubt: a transaction of unknown status, list operations.
bool snapshot_order_holds(const History& h, const std::vector<uint32_t>& commits, bool no_conflict);

}  // namespace isoscope
