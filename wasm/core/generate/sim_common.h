// What the concurrent generators share (mt_history.cpp, db_sim.cpp): the per-session buffers
// that are emitted session by session once the interleaved execution is over (the key-access
// distributions, KeyPicker, are every generator's: random_history.h).
#pragma once
#include <vector>

#include "generate/random_history.h"
#include "model/history.h"

namespace isoscope::sim {

struct GOp {
  bool write;
  uint32_t key;
  int64_t value;
};
struct GTxn {
  uint32_t op_begin = 0, op_end = 0;
  TxnStatus status = TxnStatus::Committed;
  Time start, end;
};
// Transactions and ops of one session, in session order.
struct GSession {
  std::vector<GTxn> txns;
  std::vector<GOp> ops;
};

inline void emit(const std::vector<GSession>& sessions, bool timed, GenSink& sink) {
  for (uint32_t s = 0; s < sessions.size(); ++s) {
    sink.begin_session();
    const GSession& gs = sessions[s];
    for (uint32_t i = 0; i < gs.txns.size(); ++i) {
      const GTxn& t = gs.txns[i];
      sink.begin_txn(s, i);
      for (uint32_t o = t.op_begin; o < t.op_end; ++o) {
        const GOp& op = gs.ops[o];
        if (op.write)
          sink.write(op.key, op.value);
        else
          sink.read(op.key, op.value);
      }
      sink.end_txn(t.status, timed, t.start, t.end);
    }
  }
}

}  // namespace isoscope::sim
