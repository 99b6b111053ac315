// The one event stream of a generated history: the generators (generate/) write it; it becomes
// a History (generate/random_history.h, HistorySink) or text in any format with a writer
// (formats/text_sink.h, TextSink), with no History in memory.
#pragma once
#include <cstdint>
#include <string>

#include "model/history.h"

namespace isoscope {

// Sessions one after the other, transactions in session order.
struct GenSink {
  virtual ~GenSink() = default;
  virtual void begin_session() = 0;
  virtual void begin_txn(uint32_t session, uint32_t index) = 0;
  virtual void read(int64_t key, int64_t value) = 0;
  virtual void write(int64_t key, int64_t value) = 0;
  virtual void end_txn(TxnStatus status, bool timed, Time start, Time end) = 0;
};

// The label of a generated transaction, when a sink is asked for labels: "s<session>t<index>".
inline std::string generated_label(uint32_t session, uint32_t index) {
  return "s" + std::to_string(session) + "t" + std::to_string(index);
}

}  // namespace isoscope
