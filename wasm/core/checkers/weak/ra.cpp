// Read Atomic (AWDIT Alg. 2, O(n^1.5)).
//
// Axiom: t1 != t2, t1 -wr_x-> t3, t2 writes x, t2 -(so ∪ wr)-> t3  =>  t2 -co-> t1.
// RA implies repeatable reads, which is checked (and reported) first; a key a transaction reads
// from two writers is already a NonRepeatableRead and adds no further orderings.
//   so case: per session, lastWrite[x] is the session's latest committed writer of x so far;
//            earlier writers reach t1 through it by session order.
//   wr case: for each writer t2 that t3 reads from, the keys t2 writes that t3 also reads
//            (iterating the smaller of the two sets).
#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"

namespace isoscope {

LevelResult check_ra(const History& h, const CheckBudget& budget) {
  if (!h.ambiguous.empty()) return unresolved_reads();  // checker_for routes them
  weak::Reads R = weak::collect_reads(h);
  LevelResult res = weak::begin_result(h);
  std::vector<char> multi;
  weak::report_non_repeatable(h, R, res, &multi);
  weak::CoGraph g(h, R);

  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const size_t nk = h.keys.size();
  weak::WriteIndex windex(h);
  // Session's last writer of each key (valid while lw_stamp[key] == session + 1).
  std::vector<uint32_t> lw_stamp(nk, 0), lw_txn(nk, kNone);
  // Keys t3 reads (valid while rk_stamp[key] == t3): the read (index into R) of the key.
  std::vector<uint32_t> rk_stamp(nk, kNone), rk_read(nk, kNone);
  std::vector<uint32_t> read_keys;
  std::vector<uint32_t> seen_writer(n, kNone);
  std::vector<uint32_t> kdone(nk, kNone);
  uint32_t kdone_epoch = 0;
  for (uint32_t s = 0; s < h.num_sessions(); ++s) {
    const uint32_t sstamp = s + 1;
    for (uint32_t t3 = h.session_begin[s]; t3 < h.session_begin[s + 1]; ++t3) {
      if ((t3 & weak::kBudgetPollMask) == 0 && budget.expired()) return CheckBudget::ran_out();
      const Txn& x3 = h.txns[t3];
      if (!x3.committed) continue;
      const uint32_t b = R.begin[t3], e = R.begin[t3 + 1];
      read_keys.clear();
      uint64_t read_sig = 0;
      for (uint32_t i = b; i < e; ++i) {
        const uint32_t k = h.ops[R.op[i]].key;
        if (rk_stamp[k] == t3 || multi[i]) continue;
        rk_stamp[k] = t3;
        rk_read[k] = i;
        read_keys.push_back(k);
        read_sig |= weak::key_bit(k);
      }
      // so case.
      for (uint32_t k : read_keys) {
        if (lw_stamp[k] != sstamp) continue;
        const uint32_t i = rk_read[k], t1 = R.writer[i], t2 = lw_txn[k];
        if (t2 != t1) g.add_co(t2, t1, kNone, R.op[i]);
      }
      // wr case.
      if (!read_keys.empty()) {
        for (uint32_t i = b; i < e; ++i) {
          const uint32_t t2 = R.writer[i];
          if (t2 == kInitialTxn || seen_writer[t2] == t3) continue;
          seen_writer[t2] = t3;
          if (!(R.write_sig[t2] & read_sig)) continue;  // writes none of the keys t3 reads
          const uint32_t r = R.op[i];
          ++kdone_epoch;
          auto consider = [&](uint32_t k) {
            if (kdone[k] == kdone_epoch) return;
            kdone[k] = kdone_epoch;
            const uint32_t j = rk_read[k], t1 = R.writer[j];
            if (t1 != t2) g.add_co(t2, t1, r, R.op[j]);
          };
          if (weak::scan_writer(h, t2, read_keys.size())) {
            const Txn& w = h.txns[t2];
            for (uint32_t o = w.op_begin; o < w.op_end; ++o)
              if (h.ops[o].is_write() && rk_stamp[h.ops[o].key] == t3) consider(h.ops[o].key);
          } else {
            for (uint32_t k : read_keys)
              if (windex.writes(t2, k)) consider(k);
          }
        }
      }
      for (uint32_t o = x3.op_begin; o < x3.op_end; ++o)
        if (h.ops[o].is_write()) {
          lw_stamp[h.ops[o].key] = sstamp;
          lw_txn[h.ops[o].key] = t3;
        }
    }
  }
  weak::report_cycles(h, g.build(), g.co, weak::Axiom::RA, res);
  weak::set_verdict(res);
  return res;
}

}  // namespace isoscope
