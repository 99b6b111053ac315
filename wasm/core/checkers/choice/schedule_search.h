// What the two schedule searches over the keys' values share (serial_schedule.cpp,
// concurrent_schedule.cpp): each session's committed transactions, and restarts with jittered
// priorities.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "model/history.h"

namespace isoscope::schedule_search {

// Per session, its committed transactions in order; false when one has an unknown status (the
// searches do not apply). total: how many; timed: every one has its start and end.
inline bool committed_sessions(const History& h, std::vector<std::vector<uint32_t>>& seq, size_t& total,
                               bool& timed) {
  const uint32_t k = static_cast<uint32_t>(h.num_sessions());
  seq.assign(k, {});
  total = 0;
  timed = h.has_timestamps;
  for (uint32_t s = 0; s < k; ++s)
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (h.txns[t].status == TxnStatus::Unknown) return false;
      if (h.txns[t].status != TxnStatus::Committed) continue;
      seq[s].push_back(t);
      timed = timed && h.txns[t].has_time();
      ++total;
    }
  return true;
}

// How far a restart jitters the priorities: a typical duration (the median one) when the
// transactions have times, else a typical session's step through its transactions.
inline double jitter_scale(const History& h, const std::vector<std::vector<uint32_t>>& seq, size_t total,
                           bool timed) {
  double scale = total ? 2.0 * seq.size() / static_cast<double>(total) : 0;
  if (timed) {
    std::vector<double> d;
    for (const std::vector<uint32_t>& ts : seq)
      for (uint32_t t : ts) d.push_back(h.times[t].end.approx() - h.times[t].start.approx());
    if (!d.empty()) std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end()), scale = d[d.size() / 2];
  }
  return scale;
}

// Whether order holds every committed transaction of h once and nothing else, each session's in
// its order (the aborted ones between are no part of it); false too when h has a transaction
// of unknown status or list operations, which the one-pass checks of an order do not judge.
inline bool committed_in_session_order(const History& h, const std::vector<uint32_t>& order) {
  if (h.has_lists) return false;
  size_t committed = 0;
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    if (h.txns[t].status == TxnStatus::Unknown) return false;
    committed += h.txns[t].status == TxnStatus::Committed;
  }
  if (order.size() != committed) return false;
  std::vector<uint32_t> next(h.num_sessions(), 0);  // per session, the index its next one has
  for (const uint32_t t : order) {
    if (t == kInitialTxn || t >= h.txns.size() || h.txns[t].status != TxnStatus::Committed) return false;
    const Txn& x = h.txns[t];
    for (uint32_t& i = next[x.session]; i < x.index; ++i)
      if (h.txns[h.session_begin[x.session] + i].status == TxnStatus::Committed) return false;
    if (next[x.session] != x.index) return false;  // placed twice
    ++next[x.session];
  }
  return true;
}

// Luby's sequence of restart lengths: 1 1 2 1 1 2 4 ...
inline size_t luby(size_t i) {
  size_t size = 1, seq = 0;
  while (size < i + 1) ++seq, size = 2 * size + 1;
  while (size - 1 != i) {
    size = (size - 1) / 2;
    --seq;
    if (i >= size) i -= size;
  }
  return size_t(1) << seq;
}

// A new jitter of each transaction's priority, uniform in [0, scale) (rng: the search's own
// linear congruential state).
inline void rejitter(std::vector<double>& noise, double scale, uint64_t& rng) {
  for (size_t t = 1; t < noise.size(); ++t) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    noise[t] = scale * static_cast<double>(rng >> 11) / 9007199254740992.0;
  }
}

}  // namespace isoscope::schedule_search
