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

#include "checkers/result.h"
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
  void end_txn(TxnStatus status, bool timed, double start, double end) override {
    out_.end_txn(status, timed, start, end);
  }
  void finish();

 private:
  struct POp {
    bool write;
    int64_t key, value;
  };
  struct PTxn {
    uint32_t role_session;  // which of the pattern's sessions
    std::vector<POp> ops;
    TxnStatus status = TxnStatus::Committed;
    int rt_slot = -1;  // real-time position after the rest of the history (-1: untimed)
  };
  void flush_session(uint32_t s);

  GenSink& out_;
  const InjectableAnomaly& what_;
  std::vector<PTxn> pattern_;
  std::vector<uint32_t> session_of_role_;
  uint32_t current_ = 0, next_index_ = 0;
  bool started_ = false;
  double time_base_;
};

// Generates p into sink, planting `inject` when it is not null.
void generate_with_anomaly(const GenParams& p, const InjectableAnomaly* inject, GenSink& sink);

}  // namespace isoscope
