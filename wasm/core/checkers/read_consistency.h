// Read consistency (AWDIT Def. 2.3, Alg. 4): the axiom every isolation level requires. Every
// violating read is reported, not just the first. (Cycles of so ∪ wr are the weak checkers'.)
#pragma once
#include <optional>
#include <span>
#include <vector>

#include "checkers/result.h"

namespace isoscope {

// How a read of a committed transaction relates to the write it reads: the one classification
// of reads that every checker uses (the weak checkers' read sets, the anomaly reports).
enum class ReadClass : uint8_t {
  FromOther,    // another committed transaction's last write to the key: an external read
  FromInitial,  // the initial value, with no write of its own to the key before it
  FromOwnLast,  // its own last write to the key before the read: settled inside the transaction
  Ambiguous,    // several candidate writers (History::ambiguous), at least one consistent: the
                // checkers choose (checkers/choice/choice.h)
  // Violations of read consistency (for an ambiguous read: of every candidate):
  ThinAir, FutureRead, NotMyLastWrite, NotMyOwnWrite, AbortedRead, IntermediateRead,
};
constexpr bool is_consistent(ReadClass c) { return c <= ReadClass::Ambiguous; }

// The class of read r of committed transaction t if it read write w (a write op or
// kReadsInitial, or kThinAir); mine: t's last write to r's key before r, or kNone.
inline ReadClass classify_candidate(const History& h, const std::vector<char>& is_last, uint32_t t,
                                    uint32_t r, uint32_t w, uint32_t mine) {
  if (w == kReadsInitial) return mine != kNone ? ReadClass::NotMyOwnWrite : ReadClass::FromInitial;
  if (w >= kThinAir) return ReadClass::ThinAir;
  const uint32_t writer = h.op_txn[w];
  if (writer == t) return w > r ? ReadClass::FutureRead : w != mine ? ReadClass::NotMyLastWrite : ReadClass::FromOwnLast;
  // An unknown writer that a committed transaction reads becomes committed (docs/formats.md;
  // only a candidate of an ambiguous read can be unknown and not yet committed here).
  if (!h.txns[writer].committed && h.txns[writer].status != TxnStatus::Unknown) return ReadClass::AbortedRead;
  if (mine != kNone) return ReadClass::NotMyOwnWrite;
  return is_last[w] ? ReadClass::FromOther : ReadClass::IntermediateRead;
}

// An ambiguous read's class: Ambiguous when some candidate is consistent, else the class of
// its first candidate (every candidate is then a violation).
inline ReadClass classify_ambiguous(const History& h, const std::vector<char>& is_last, uint32_t t,
                                    uint32_t r, uint32_t mine) {
  const std::span<const uint32_t> cands = h.ambiguous.candidates(r);
  for (uint32_t w : cands)
    if (is_consistent(classify_candidate(h, is_last, t, r, w, mine))) return ReadClass::Ambiguous;
  return cands.empty() ? ReadClass::ThinAir : classify_candidate(h, is_last, t, r, cands[0], mine);
}

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
      if (w == kAmbiguous) {
        c = classify_ambiguous(h, is_last, t, r, mine);
      } else if (w == kThinAir || w == kNone) {
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
