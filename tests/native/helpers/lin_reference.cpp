#include "lin_reference.h"

#include <vector>

namespace isoscope {

Verdict lin_reference_check(const History& h) {
  std::vector<uint32_t> txn;
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].committed) txn.push_back(t);
  const size_t n = txn.size();
  if (n > 11) return Verdict::Unknown;
  const size_t nk = h.keys.size();
  constexpr uint32_t kAbsent = kReadsInitial;

  // before[a][b]: a must precede b (real time).
  std::vector<std::vector<char>> before(n, std::vector<char>(n, 0));
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      const Txn &x = h.txns[txn[a]], &y = h.txns[txn[b]];
      before[a][b] = x.has_time() && y.has_time() && h.times[txn[a]].end < h.times[txn[b]].start;
    }

  // Executes transaction c on state; false if a read or insert fails.
  auto execute = [&](size_t c, std::vector<uint32_t>& state) {
    const Txn& x = h.txns[txn[c]];
    if (x.size() == 1 && h.ops[x.op_begin].is_write() && state[h.ops[x.op_begin].key] != kAbsent)
      return false;  // insert-if-not-exists on an existing key
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      const Op& op = h.ops[o];
      if (op.is_write()) {
        state[op.key] = o;
      } else {
        const uint32_t w = h.read_from[o];
        if (w == kThinAir || w == kNone || w != state[op.key]) return false;
      }
    }
    return true;
  };

  // Depth-first over orders; states[d] is the register state before depth d.
  std::vector<std::vector<uint32_t>> states(n + 1, std::vector<uint32_t>(nk, kAbsent));
  std::vector<char> placed(n, 0);
  std::vector<size_t> order(n, 0), choice(n + 1, 0);
  size_t depth = 0;
  while (true) {
    if (depth == n) return Verdict::Pass;
    size_t c = choice[depth];
    for (; c < n; ++c) {
      if (placed[c]) continue;
      bool ready = true;
      for (size_t a = 0; a < n && ready; ++a)
        if (before[a][c] && !placed[a]) ready = false;
      if (!ready) continue;
      states[depth + 1] = states[depth];
      if (execute(c, states[depth + 1])) break;
    }
    if (c < n) {
      choice[depth] = c;
      order[depth] = c;
      placed[c] = 1;
      ++depth;
      choice[depth] = 0;
      continue;
    }
    if (depth == 0) return Verdict::Fail;
    --depth;
    placed[order[depth]] = 0;
    choice[depth] = order[depth] + 1;
  }
}

}  // namespace isoscope
