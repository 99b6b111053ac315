// Seeded random histories: for differential tests, benchmarks and `isoscope generate`.
//
// Transactions are executed one at a time in a random interleaving of the sessions against a
// key-value store (integer keys 0..keys-1, initial value 0, every write a fresh value, so
// writes are unique, unless value_range is set). The mode decides what a read returns:
//   Serial  the current value (or the transaction's own last write): the committed
//           transactions form a serial execution, so the history satisfies every level (and,
//           with timestamps, SSER: real time follows the execution order).
//   Causal  the latest value in the session's causally closed view (its own transactions plus
//           the views it merged from other sessions, merged with probability sync_ratio at the
//           start of each transaction): satisfies CC, usually not PC/SI/SER. With
//           causal_stale_ratio > 0 a read returns, with that probability, any version in the view
//           (or the initial value) instead: every read stays in the causal past (so ∪ wr is
//           acyclic) while RC, RA and CC can fail.
//   Random  Serial, except that each read returns, with probability stale_ratio, an older
//           committed version of the key, with probability wild_ratio, any write of the key
//           anywhere in the history (future, aborted, intermediate, own) or the initial value,
//           and with probability thin_air_ratio a value nobody wrote: anomalies at every level.
// The same parameters and seed give the same history on every platform (own PRNG).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/gen_sink.h"
#include "model/history.h"

namespace isoscope {

enum class GenMode : uint8_t { Serial, Causal, Random };
// How a generator picks the key of an operation (every generator: random histories, the
// database simulator, mini-transactions, the runner's workloads).
enum class KeyDist : uint8_t { Uniform, Zipf, Hotspot, Exponential };
struct KeyParams {
  uint32_t keys = 8;
  KeyDist dist = KeyDist::Uniform;
  double zipf_s = 1.0;     // Zipf: P(key i) ~ 1 / (i + 1)^s
  double hot_keys = 0.1;   // Hotspot: fraction of the keys that are hot (at least one)
  double hot_prob = 0.9;   // Hotspot: probability of a hot key
  double exp_rate = 0.1;   // Exponential: P(key i) ~ exp(-rate * i)
};
// The command line's --dist: "uniform", "zipf" or "hotspot" (exponential is not offered there).
bool parse_key_dist(std::string_view text, KeyDist& out);

struct GenParams {
  uint64_t seed = 1;
  uint32_t sessions = 4;
  uint32_t txns_per_session = 8;
  uint32_t min_ops = 1, max_ops = 4;  // operations per transaction, uniform in [min, max]
  uint32_t keys = 8;
  double read_ratio = 0.5;  // probability that an operation is a read
  KeyDist key_dist = KeyDist::Uniform;
  double zipf_s = 1.0;     // Zipf: P(key i) ~ 1 / (i + 1)^s
  double hot_keys = 0.1;   // Hotspot: fraction of the keys that are hot (at least one)
  double hot_prob = 0.9;   // Hotspot: probability that an operation picks a hot key
  double abort_ratio = 0;    // transactions that abort (their writes never take effect)
  double unknown_ratio = 0;  // transactions recorded as unknown (their writes take effect)
  GenMode mode = GenMode::Serial;
  double stale_ratio = 0.2;     // Random
  double wild_ratio = 0.1;      // Random
  double thin_air_ratio = 0.0;  // Random
  double sync_ratio = 0.3;      // Causal
  double causal_stale_ratio = 0;  // Causal (0: the history satisfies CC)
  bool timestamps = false;  // start/end follow the execution order (intervals may overlap)
  uint32_t overlap = 0;     // max extra length of a transaction's interval, in execution steps
  bool labels = false;      // label transactions "s<session>t<index>"
  // 0: every write a fresh value (unique writes). N > 0: writes draw values from 0..N-1, so a
  // (key, value) is written many times and reads become ambiguous (History::ambiguous); the
  // mode's verdicts still hold, since what was really read is one of the candidates.
  uint32_t value_range = 0;
  KeyParams key_params() const { return {keys, key_dist, zipf_s, hot_keys, hot_prob}; }
};

// A sink that builds a History (initial value 0; labels "s<session>t<index>" on request).
class HistorySink final : public GenSink {
 public:
  explicit HistorySink(bool labels);
  void begin_session() override;
  void begin_txn(uint32_t session, uint32_t index) override;
  void read(int64_t key, int64_t value) override;
  void write(int64_t key, int64_t value) override;
  void end_txn(TxnStatus status, bool timed, Time start, Time end) override;
  HistoryBuilder& builder() { return b_; }

 private:
  HistoryBuilder b_;
  bool labels_;
};

// Runs a generator into a History (format "generated"), its arrays sized for txns and ops.
template <class Params, class Generate>
Expected<History> collect_history(const Params& p, size_t txns, size_t ops, Generate generate) {
  HistorySink sink(p.labels);
  sink.builder().reserve(txns, ops);
  generate(p, sink);
  return sink.builder().finish("generated");
}

// Generates into a sink (text writers can stream from here).
void generate_history(const GenParams& p, GenSink& sink);
// Generates into a History (format name "generated").
Expected<History> generate_history(const GenParams& p);

// The PRNG the generator uses (splitmix64 seeding xoshiro256**): deterministic everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  uint32_t below(uint32_t n) { return n ? static_cast<uint32_t>((next() >> 32) * n >> 32) : 0; }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return p > 0 && uniform() < p; }

 private:
  uint64_t s_[4];
};

// Picks keys by a KeyParams distribution.
class KeyPicker {
 public:
  explicit KeyPicker(const KeyParams& p) : p_(p), n_(std::max<uint32_t>(p.keys, 1)) {
    if (p.dist == KeyDist::Zipf || p.dist == KeyDist::Exponential) {
      cdf_.resize(n_);
      double sum = 0;
      for (uint32_t i = 0; i < n_; ++i)
        cdf_[i] = (sum += p.dist == KeyDist::Zipf ? 1.0 / std::pow(i + 1.0, p.zipf_s)
                                                  : std::exp(-p.exp_rate * i));
      for (double& c : cdf_) c /= sum;
    }
    hot_ = std::min<uint32_t>(n_, std::max<uint32_t>(1, static_cast<uint32_t>(p.hot_keys * n_)));
  }
  uint32_t size() const { return n_; }
  uint32_t pick(Rng& rng) const {
    switch (p_.dist) {
      case KeyDist::Uniform: return rng.below(n_);
      case KeyDist::Zipf:
      case KeyDist::Exponential: {
        const double u = rng.uniform();
        const auto k = static_cast<uint32_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
        return std::min(k, n_ - 1);
      }
      case KeyDist::Hotspot:
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
  KeyParams p_;
  uint32_t n_, hot_ = 1;
  std::vector<double> cdf_;
};

}  // namespace isoscope
