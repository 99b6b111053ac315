// Candidate commit orders: a guess at a solution, checked by verify_order in O(reads log writers)
// before any polygraph is built. Histories that hold usually come with their own commit order:
//   timestamps  a transaction's writes take effect at its end (whole transactions, write halves)
//               and its reads at its start (read halves): the commit order of the databases
//               that the timestamps were recorded from (and of every simulator engine);
//   replay      without timestamps, the history executed again one transaction at a time
//               against a store (replay.h).
// A guess that does not verify costs little and decides nothing: the polygraph follows. One that
// verifies is a pass with its witness (the commit order) at no cost of saturation or search.
// Here: the timestamps' order, and the conversions of a whole-transaction order to the split
// problems (PC, SI) and the guess of sessions interleaved by their progress.
#include <algorithm>
#include <utility>

#include "checkers/strong/internal.h"

namespace isoscope::strong {

std::vector<uint32_t> timestamp_order(const Instance& in, const Problem& p) {
  if (in.n() < 2) return {};
  // Event times of the nodes: whole transactions and write halves at their end, read halves
  // at their start.
  std::vector<std::pair<Time, uint32_t>> ev;
  ev.reserve(p.n - 1);
  for (uint32_t v = 1; v < p.n; ++v) {
    const uint32_t t = p.txn[v];
    if (!in.timed[t]) return {};
    ev.push_back({p.part[v] == Part::Read ? in.times[t].start : in.times[t].end, v});
  }
  // Ties keep node order (session order, read half first).
  std::sort(ev.begin(), ev.end());
  std::vector<uint32_t> order;
  order.reserve(p.n);
  order.push_back(0);
  for (const auto& e : ev) order.push_back(e.second);
  return order;
}

bool respects_real_time(const Instance& in, const Problem& p, const std::vector<uint32_t>& order) {
  // Real time: T1.end < T2.start puts T1 first. Going backwards, the smallest end among the
  // transactions placed after a node must not be below its start.
  Time min_end = Time::above_all();
  for (size_t i = order.size(); i-- > 1;) {
    const uint32_t v = order[i];
    if (p.part[v] == Part::Read) continue;  // SSER has whole transactions only
    const uint32_t t = p.txn[v];
    if (!in.timed[t]) continue;  // no real-time edges
    if (min_end < in.times[t].start) return false;
    min_end = std::min(min_end, in.times[t].end);
  }
  return true;
}

std::vector<uint32_t> split_order(const std::vector<uint32_t>& whole) {
  std::vector<uint32_t> order;
  if (whole.empty()) return order;
  order.reserve(2 * whole.size() - 1);
  order.push_back(0);
  for (uint32_t v : whole)
    if (v != 0) order.push_back(2 * v - 1), order.push_back(2 * v);
  return order;
}

std::vector<uint32_t> snapshot_order(const Problem& ser, const std::vector<uint32_t>& whole) {
  if (whole.empty()) return {};
  const uint32_t n = ser.n;
  std::vector<uint32_t> pos(n, kNone);
  for (uint32_t i = 0; i < whole.size(); ++i) pos[whole[i]] = i;
  // The places of each key's writes, in order (CSR by key).
  std::vector<uint32_t> kbeg(ser.num_keys + 1, 0), kpos(ser.wkeys.size());
  for (uint32_t q = 0; q < ser.wkeys.size(); ++q) ++kbeg[ser.wkeys[q] + 1];
  for (uint32_t x = 0; x < ser.num_keys; ++x) kbeg[x + 1] += kbeg[x];
  {
    std::vector<uint32_t> at(kbeg.begin(), kbeg.end() - 1);
    for (uint32_t i = 0; i < whole.size(); ++i)
      for (uint32_t q = ser.wbeg[whole[i]]; q < ser.wbeg[whole[i] + 1]; ++q) kpos[at[ser.wkeys[q]]++] = i;
  }
  auto next_write = [&](uint32_t x, uint32_t after) {  // the first write of x placed after `after`
    const auto b = kpos.begin() + kbeg[x], e = kpos.begin() + kbeg[x + 1];
    const auto it = std::upper_bound(b, e, after);
    return it == e ? kNone : *it;
  };
  // Each transaction's snapshot: after the commit at place snap_of[t] (0: the initial one).
  const uint32_t m = static_cast<uint32_t>(whole.size());
  std::vector<uint32_t> sbeg(m + 1, 0), snap_of(n, 0);
  for (uint32_t i = 1; i < m; ++i) {
    const uint32_t t = whole[i];
    uint32_t hi = i;  // before its commit, and before the first overwrite of a value it read
    for (uint32_t r = ser.rbeg[t]; r < ser.rbeg[t + 1]; ++r)
      hi = std::min(hi, next_write(ser.reads[r].key, pos[ser.reads[r].writer]));
    snap_of[t] = hi - 1;  // the latest such place: it sees the most (verify_order judges)
    ++sbeg[hi];
  }
  for (uint32_t i = 0; i < m; ++i) sbeg[i + 1] += sbeg[i];
  std::vector<uint32_t> snaps(sbeg[m]);
  {
    std::vector<uint32_t> at(sbeg.begin(), sbeg.end() - 1);
    for (uint32_t i = 1; i < m; ++i) snaps[at[snap_of[whole[i]]]++] = whole[i];
  }
  std::vector<uint32_t> order;
  order.reserve(2 * whole.size() - 1);
  order.push_back(0);
  for (uint32_t i = 0; i < whole.size(); ++i) {
    if (i > 0) order.push_back(2 * whole[i]);
    for (uint32_t j = sbeg[i]; j < sbeg[i + 1]; ++j) order.push_back(2 * snaps[j] - 1);
  }
  return order;
}

std::vector<uint32_t> progress_order(const Problem& p) {
  std::vector<std::pair<double, uint32_t>> at;
  at.reserve(p.n);
  for (uint32_t v = 1; v < p.n; ++v) {
    const uint32_t c = p.chain[v], b = p.chain_begin[c], len = p.chain_begin[c + 1] - b;
    at.push_back({static_cast<double>(v - b) / len, v});
  }
  std::sort(at.begin(), at.end());
  std::vector<uint32_t> order = {0};
  for (const auto& a : at) order.push_back(a.second);
  return order;
}

}  // namespace isoscope::strong
