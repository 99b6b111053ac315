// What the concurrent generators share (mt_history.cpp, db_sim.cpp): the key-access
// distributions and the per-session buffers that are emitted session by session once the
// interleaved execution is over.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "generate/mt_history.h"

namespace isoscope::sim {

class KeyPicker {
 public:
  explicit KeyPicker(const MtKeyParams& p) : p_(p), n_(std::max<uint32_t>(p.keys, 1)) {
    if (p.dist == MtKeyDist::Zipf || p.dist == MtKeyDist::Exponential) {
      cdf_.resize(n_);
      double sum = 0;
      for (uint32_t i = 0; i < n_; ++i)
        cdf_[i] = (sum += p.dist == MtKeyDist::Zipf ? 1.0 / std::pow(i + 1.0, p.zipf_s)
                                                    : std::exp(-p.exp_rate * i));
      for (double& c : cdf_) c /= sum;
    }
    hot_ = std::min<uint32_t>(n_, std::max<uint32_t>(1, static_cast<uint32_t>(p.hot_keys * n_)));
  }
  uint32_t size() const { return n_; }
  uint32_t pick(Rng& rng) const {
    switch (p_.dist) {
      case MtKeyDist::Uniform: return rng.below(n_);
      case MtKeyDist::Zipf:
      case MtKeyDist::Exponential: {
        const double u = rng.uniform();
        const auto k = static_cast<uint32_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
        return std::min(k, n_ - 1);
      }
      case MtKeyDist::Hotspot:
        if (hot_ == n_ || rng.chance(p_.hot_prob)) return rng.below(hot_);
        return hot_ + rng.below(n_ - hot_);
    }
    return 0;
  }
  // A key different from x (n_ >= 2).
  uint32_t pick_other(Rng& rng, uint32_t x) const {
    for (int tries = 0; tries < 8; ++tries) {
      const uint32_t y = pick(rng);
      if (y != x) return y;
    }
    const uint32_t y = rng.below(n_ - 1);
    return y >= x ? y + 1 : y;
  }

 private:
  MtKeyParams p_;
  uint32_t n_, hot_ = 1;
  std::vector<double> cdf_;
};

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
