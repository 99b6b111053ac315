#include "generate/text_sinks.h"

#include <cinttypes>
#include <string>

#include "util/json.h"

namespace isoscope {

namespace {

class IsoscopeJsonSink final : public TextSink {
 public:
  explicit IsoscopeJsonSink(std::FILE* out) : out_(out) {
    std::fputs("{\"format\": \"isoscope/1\", \"initial\": 0, \"sessions\": [", out_);
  }
  void begin_session() override {
    std::fputs(sessions_++ ? "],\n  [" : "\n  [", out_);
    txns_in_session_ = 0;
  }
  void begin_txn(uint32_t, uint32_t) override {
    std::fputs(txns_in_session_++ ? ",\n   {\"ops\": [" : "\n   {\"ops\": [", out_);
    ops_in_txn_ = 0;
  }
  void read(int64_t key, int64_t value) override { op('r', key, value); }
  void write(int64_t key, int64_t value) override { op('w', key, value); }
  void end_txn(TxnStatus status, bool timed, double start, double end) override {
    std::fputs("]", out_);
    if (status == TxnStatus::Aborted) std::fputs(", \"status\": \"aborted\"", out_);
    if (status == TxnStatus::Unknown) std::fputs(", \"status\": \"unknown\"", out_);
    if (timed)
      std::fprintf(out_, ", \"start\": %s, \"end\": %s", json_number(start).c_str(), json_number(end).c_str());
    std::fputs("}", out_);
  }
  void finish() override { std::fputs(sessions_ ? "]\n]}\n" : "\n]}\n", out_); }

 private:
  void op(char kind, int64_t key, int64_t value) {
    std::fprintf(out_, "%s[\"%c\", %" PRId64 ", %" PRId64 "]", ops_in_txn_++ ? ", " : "", kind, key, value);
  }
  std::FILE* out_;
  size_t sessions_ = 0, txns_in_session_ = 0, ops_in_txn_ = 0;
};

// Plume: r(key,value,session,txn) per operation; txn -1 marks an aborted transaction's ops.
// Plume has no unknown status or timestamps: unknown transactions are written as committed
// when the generator made their writes take effect (it does), and times are dropped.
class PlumeSink final : public TextSink {
 public:
  explicit PlumeSink(std::FILE* out) : out_(out) {}
  void begin_session() override { ++session_; }
  void begin_txn(uint32_t, uint32_t) override {
    ++txn_;
    pending_.clear();
  }
  void read(int64_t key, int64_t value) override { pending_.push_back({'r', key, value}); }
  void write(int64_t key, int64_t value) override { pending_.push_back({'w', key, value}); }
  void end_txn(TxnStatus status, bool, double, double) override {
    const long long id = status == TxnStatus::Aborted ? -1 : static_cast<long long>(txn_);
    for (const P& p : pending_)
      std::fprintf(out_, "%c(%" PRId64 ",%" PRId64 ",%u,%lld)\n", p.kind, p.key, p.value, session_ - 1, id);
  }
  void finish() override {}

 private:
  struct P {
    char kind;
    int64_t key, value;
  };
  std::FILE* out_;
  uint32_t session_ = 0;
  uint64_t txn_ = 0;
  std::vector<P> pending_;
};

}  // namespace

std::unique_ptr<TextSink> make_text_sink(std::string_view format, std::FILE* out) {
  if (format == "isoscope") return std::make_unique<IsoscopeJsonSink>(out);
  if (format == "plume") return std::make_unique<PlumeSink>(out);
  return nullptr;
}

}  // namespace isoscope
