// Plants a named anomaly into a generated history (`isoscope generate --target inject=NAME`).
//
// The anomaly is a small pattern of transactions on fresh keys (no other transaction touches
// them) appended at the end of randomly chosen sessions, so the rest of the history cannot
// hide or excuse it: the history fails exactly the levels that forbid the pattern, provided the
// rest of it satisfies them (generate it in Serial mode).
#pragma once
#include <span>
#include <string_view>
#include <vector>

#include "model/levels.h"
#include "generate/random_history.h"

namespace isoscope {

struct InjectableAnomaly {
  const char* name;
  Level weakest_failing;  // the weakest level that forbids it (every stronger one does too)
  uint32_t sessions;      // how many sessions the pattern needs
  bool needs_timestamps;  // real-time anomalies only show up with timestamps
};
std::span<const InjectableAnomaly> injectable_anomalies();
const InjectableAnomaly* find_injectable(std::string_view name);

// The pattern of an anomaly: transactions of the pattern's roles (distinct sessions) over keys
// key_base and key_base + 1 with values from value_base, in the order each role runs them.
// rt_slot >= 0: the transaction must run in that real-time slot (slots do not overlap);
// -1: untimed, or free to overlap the other roles' transactions.
struct PatternOp {
  bool write;
  int64_t key, value;
};
struct PatternTxn {
  uint32_t role;
  std::vector<PatternOp> ops;
  TxnStatus status = TxnStatus::Committed;
  int rt_slot = -1;
};
std::vector<PatternTxn> anomaly_pattern(const InjectableAnomaly& what, int64_t key_base,
                                        int64_t value_base);

// Distinct sessions for a pattern's roles, chosen by seed.
std::vector<uint32_t> pick_role_sessions(uint32_t sessions, uint32_t roles, uint64_t seed);

// A sink that forwards everything to `out` and appends the pattern's transactions to its
// sessions. Call finish() after the generator returns.
class InjectingSink final : public GenSink {
 public:
  // The pattern uses keys p.keys, p.keys + 1 (the generator's are 0..keys-1), values from
  // 2^40 up (above any generated value), and real time after every generated transaction.
  InjectingSink(GenSink& out, const InjectableAnomaly& what, const GenParams& p);
  void begin_session() override;
  void begin_txn(uint32_t session, uint32_t index) override;
  void read(int64_t key, int64_t value) override { out_.read(key, value); }
  void write(int64_t key, int64_t value) override { out_.write(key, value); }
  void end_txn(TxnStatus status, bool timed, Time start, Time end) override {
    out_.end_txn(status, timed, start, end);
  }
  void finish();

 private:
  void flush_session(uint32_t s);

  GenSink& out_;
  const InjectableAnomaly& what_;
  std::vector<PatternTxn> pattern_;
  std::vector<uint32_t> session_of_role_;
  uint32_t current_ = 0, next_index_ = 0;
  bool started_ = false;
  int64_t time_base_;
};

// Generates p into sink, planting `inject` when it is not null.
void generate_with_anomaly(const GenParams& p, const InjectableAnomaly* inject, GenSink& sink);

}  // namespace isoscope
