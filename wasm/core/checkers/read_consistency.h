// Read consistency (AWDIT Def. 2.3, Alg. 4): the axiom every isolation level requires. Every
// violating read is reported, not just the first. (Cycles of so ∪ wr are the weak checkers'.)
#pragma once
#include <optional>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// How a read of a committed transaction relates to the write it reads: the one classification
// of reads that every checker uses (the weak checkers' read sets, the anomaly reports).
enum class ReadClass : uint8_t {
  FromOther,    // another committed transaction's last write to the key: an external read
  FromInitial,  // the initial value, with no write of its own to the key before it
  FromOwnLast,  // its own last write to the key before the read: settled inside the transaction
  // Violations of read consistency:
  ThinAir, FutureRead, NotMyLastWrite, NotMyOwnWrite, AbortedRead, IntermediateRead,
};
constexpr bool is_consistent(ReadClass c) { return c <= ReadClass::FromOwnLast; }

// Marks every write that is its transaction's last write to its key.
std::vector<char> last_writes_in_txn(const History& h);

// Calls visit(t, r, cls, mine) for every read op r of every committed transaction t, in op
// order; mine is t's last write to r's key before r, or kNone. is_last: last_writes_in_txn(h).
// A template: the weak checkers run it on every read of 10^7-operation histories.
template <class Visit>
void classify_reads(const History& h, const std::vector<char>& is_last, Visit&& visit) {
  // Own-write tracking while scanning a transaction: own_last[key] is valid iff stamp[key] == t.
  std::vector<uint32_t> stamp(h.keys.size(), kNone), own_last(h.keys.size(), kNone);
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  for (uint32_t t = 1; t < n; ++t) {
    const Txn& x = h.txns[t];
    if (!x.committed) continue;  // aborted transactions' reads are not part of the history
    for (uint32_t r = x.op_begin; r < x.op_end; ++r) {
      const Op& o = h.ops[r];
      if (o.is_write()) {
        stamp[o.key] = t;
        own_last[o.key] = r;
        continue;
      }
      if (!o.is_read()) continue;
      const uint32_t mine = stamp[o.key] == t ? own_last[o.key] : kNone;
      const uint32_t w = h.read_from[r];
      ReadClass c;
      if (w == kThinAir || w == kNone) {
        c = ReadClass::ThinAir;
      } else if (w == kReadsInitial) {
        c = mine != kNone ? ReadClass::NotMyOwnWrite : ReadClass::FromInitial;
      } else if (const uint32_t writer = h.op_txn[w]; writer == t) {
        c = w > r ? ReadClass::FutureRead : w != mine ? ReadClass::NotMyLastWrite : ReadClass::FromOwnLast;
      } else if (!h.txns[writer].committed) {
        c = ReadClass::AbortedRead;
      } else if (mine != kNone) {
        c = ReadClass::NotMyOwnWrite;
      } else {
        c = is_last[w] ? ReadClass::FromOther : ReadClass::IntermediateRead;
      }
      visit(t, r, c, mine);
    }
  }
}

// Every read of a committed transaction that breaks read consistency: ThinAirRead,
// AbortedRead, FutureRead, NotMyOwnWrite, NotMyLastWrite, IntermediateRead; and, for list
// histories, list reads of a key that disagree on its append order (IncompatibleOrder).
std::vector<Anomaly> check_read_consistency(const History& h);

}  // namespace isoscope
