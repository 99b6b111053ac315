// A serial schedule of a history with repeated values, found by search over the values the keys
// hold (checkers/choice/schedules.cpp uses it for SER and SSER).
//
// With repeated values a read may read from any write of its (key, value), so a serial order
// needs no reads-from at all: it is an interleaving of the sessions in which every read sees the
// value its key holds at that point (its own transaction's last write before it, if any).
// The search builds one transaction at a time, depth first, among the sessions whose next
// transaction can run on the current values: a read-only one at once (running it later helps
// nothing), else in the order of the database's run (read-only transactions at their start,
// the others at their end, when they committed; without times, by progress through their
// session), and on a dead end it undoes its last step with an alternative. It never moves a
// key off a value that a transaction still to run reads and that none still to run writes.
// A state (how far each session got, and the values the keys hold) found dead is remembered by
// its hash and never entered again: its future depends on nothing else. Restarts with jittered
// priorities keep a bad early step from holding the search. A hash collision can only prune a
// live state, so the search may miss a schedule, never invent one; its choice is verified by
// the level's own checker (choice/schedules.cpp), and a failure to find one decides nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

struct SerialSchedule {
  bool found = false;
  bool exhausted = false;        // not found, and every state was tried (none exists, but for
                                 // a hash collision: a hint, not a proof)
  std::vector<uint32_t> order;   // committed transactions, in the schedule's order
  std::vector<uint32_t> choice;  // per ambiguous read (History::ambiguous index): its writer, or kNone
  size_t deepest = 0;             // the most transactions placed at once
  size_t steps = 0;              // transactions placed (undone ones counted again)
};

// Searches a serial schedule of h's committed transactions, respecting real time (T1 ends before
// T2 starts: T1 first) when real_time is set; gives up after max_steps placements or when the
// budget expires. Not applicable (found = false at once) to list histories and to histories
// with a transaction of unknown status.
// backjump: on a dead end, jump back to the latest step that moved a key off a value a waiting
// session's next transaction reads (finds some schedules far sooner, others later).
// stall_steps: past that many placements, a search that never placed half the transactions
// gives up (stuck far from the end: a short search that costs little when it fails).
SerialSchedule find_serial_schedule(const History& h, bool real_time, const CheckBudget& budget,
                                    size_t max_steps, bool backjump = false, size_t stall_steps = SIZE_MAX);

// Whether order (every committed transaction of h once, none other) is a serial schedule of h
// as its reads-from stands (h resolved: no ambiguous read left to choose): sessions in order,
// every read of a committed transaction reading the last write of its key before it (its own
// transaction's, else that of the last transaction before it in the order that writes the key;
// the initial value when none). Then h is serializable, and CC and read consistency, which SER
// implies, hold too: SER's checker would only find such an order again. Linear; false (which
// decides nothing) on any doubt: a transaction of unknown status, list operations. Real time
// is not checked.
bool serial_order_holds(const History& h, const std::vector<uint32_t>& order);

}  // namespace isoscope
