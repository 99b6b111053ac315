// Read Committed (AWDIT Alg. 1, O(n^1.5)).
//
// Axiom: t1 != t2, t1 -wr_x-> r_x, t2 writes x, t2 -wr-> r -po-> r_x (r, r_x reads of one
// transaction t3)  =>  t2 -co-> t1.
// For each t3 only the po-first read r of each writer t2 matters (later reads of t2 see a
// subset of the keys read below), and only the po-earliest writer t1 != t2 of each key x read
// below r: later writers of x are ordered after t1 by the same rule applied to t1's first
// read. So each t3 is scanned backwards, keeping per key the two po-earliest distinct writers
// read below the current read, and each writer's first read intersects its written keys with
// the keys read below, iterating the smaller of the two sets.
#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"

namespace isoscope {
namespace weak {

bool saturate_rc(const History& h, const Reads& R, CoGraph& g, const CheckBudget& budget) {
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const size_t nk = h.keys.size();
  WriteIndex windex(h);
  std::vector<uint32_t> first_stamp(n, kNone), first_op(n, kNone);
  // Per key, valid while kstamp[key] == t3: the po-earliest writer read below (top) and the
  // po-earliest writer different from it (second), with the reads that read them.
  std::vector<uint32_t> kstamp(nk, kNone), top_t(nk), top_op(nk), sec_t(nk), sec_op(nk);
  std::vector<uint32_t> kdone(nk, kNone);  // dedupes a writer's repeated keys
  uint32_t kdone_epoch = 0;
  std::vector<uint32_t> read_keys;
  uint64_t read_sig = 0;  // signatures of read_keys
  uint32_t t3 = 1;
  // Key y read (from t2, by op r) below what the scan looks at next.
  auto note_read = [&](uint32_t y, uint32_t t2, uint32_t r) {
    if (kstamp[y] != t3) {
      kstamp[y] = t3;
      top_t[y] = t2;
      top_op[y] = r;
      sec_t[y] = sec_op[y] = kNone;
      read_keys.push_back(y);
      read_sig |= weak::key_bit(y);
    } else if (top_t[y] != t2) {
      sec_t[y] = top_t[y];
      sec_op[y] = top_op[y];
      top_t[y] = t2;
      top_op[y] = r;
    } else {
      top_op[y] = r;
    }
  };
  struct Pending {
    uint32_t key, writer, op;
  };
  std::vector<Pending> pending;  // a predicate read's reads, noted once it is passed
  for (; t3 < n; ++t3) {
    if ((t3 & kBudgetPollMask) == 0 && budget.expired()) return false;
    const uint32_t b = R.begin[t3], e = R.begin[t3 + 1];
    if (e - b < 2) continue;  // the axiom needs a read below another
    for (uint32_t i = b; i < e; ++i) {
      const uint32_t t2 = R.writer[i];
      if (first_stamp[t2] != t3) {
        first_stamp[t2] = t3;
        first_op[t2] = R.op[i];
      }
    }
    read_keys.clear();
    read_sig = 0;
    uint32_t group = kNone;
    pending.clear();
    for (uint32_t i = e; i-- > b;) {
      const uint32_t r = R.op[i], y = h.ops[r].key, t2 = R.writer[i];
      // A predicate read's reads happen at one point: none is below another, so the keys they
      // read join the keys read below once the whole predicate read is passed.
      const uint32_t pr = h.ops[r].in_predicate() ? h.ops[r].list : kNone;
      if (pr != group) {
        for (const Pending& p : pending) note_read(p.key, p.writer, p.op);
        pending.clear();
        group = pr;
      }
      // The initial transaction precedes everything in co anyway: nothing to add for it.
      if (t2 != kInitialTxn && first_op[t2] == r && (R.write_sig[t2] & read_sig)) {
        ++kdone_epoch;
        auto consider = [&](uint32_t x) {
          if (kdone[x] == kdone_epoch) return;
          kdone[x] = kdone_epoch;
          uint32_t t1 = top_t[x], rx = top_op[x];
          if (t1 == t2) {
            t1 = sec_t[x];
            rx = sec_op[x];
          }
          if (t1 != kNone) g.add_co(t2, t1, r, rx);
        };
        if (scan_writer(h, t2, read_keys.size())) {
          const Txn& w = h.txns[t2];
          for (uint32_t o = w.op_begin; o < w.op_end; ++o)
            if (h.ops[o].is_write() && kstamp[h.ops[o].key] == t3) consider(h.ops[o].key);
        } else {
          for (uint32_t x : read_keys)
            if (windex.writes(t2, x)) consider(x);
        }
      }
      if (pr == kNone) note_read(y, t2, r);
      else pending.push_back({y, t2, r});
    }
  }
  return true;
}

LevelResult decide_rc(const History& h, const Reads& reads, LevelResult res, const CheckBudget& budget) {
  CoGraph g(h, reads);
  if (!saturate_rc(h, reads, g, budget)) return CheckBudget::ran_out();
  report_cycles(h, g.build(), g.co, Axiom::RC, res);
  set_verdict(res);
  return res;
}

}  // namespace weak

LevelResult check_rc(const History& h, const CheckBudget& budget) {
  if (!h.ambiguous.empty()) return unresolved_reads();  // checker_for routes them
  const weak::Reads reads = weak::collect_reads(h);
  return weak::decide_rc(h, reads, weak::begin_result(h), budget);
}

}  // namespace isoscope
