#include "model/shapes.h"

namespace isoscope {

bool is_mini_transaction_history(const History& h) {
  if (h.num_txns() == 0 || h.has_lists) return false;
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const Txn& x = h.txns[t];
    if (x.size() == 0 || x.size() > 4) return false;
    uint32_t reads = 0, writes = 0;
    for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
      const Op& o = h.ops[i];
      if (o.kind == OpKind::Read) {
        ++reads;
      } else if (o.kind == OpKind::Write) {
        ++writes;
        bool read_before = false;
        for (uint32_t j = x.op_begin; j < i && !read_before; ++j)
          read_before = h.ops[j].kind == OpKind::Read && h.ops[j].key == o.key;
        if (!read_before) return false;
      } else {
        return false;
      }
    }
    if (reads < 1 || reads > 2 || writes > 2) return false;
  }
  return true;
}

}  // namespace isoscope
