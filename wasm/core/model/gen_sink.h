// The one event stream of a generated history: the generators (generate/) write it; it becomes
// a History (generate/random_history.h, HistorySink) or text in any format with a writer
// (formats/text_sink.h, TextSink), with no History in memory. Object histories (Jepsen's
// records: an invocation and a completion per operation) have a stream of their own,
// ObjectSink, which formats/writers.h's Jepsen EDN writer takes, as write_jepsen_edn does.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/history.h"
#include "model/registers.h"

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

// One record of an object history, its key and values as EDN text (5, nil, "abc", [1 2]).
struct ObjectRecord {
  enum Type : uint8_t { Invoke, Ok, Fail, Info } type = Invoke;
  ObjFn fn = ObjFn::Read;
  int64_t process = 0;
  std::string_view key;      // "": the single object
  bool key_field = false;    // the key as its own :key (Porcupine's kv); else a [key value] tuple
  std::string_view value;    // "": no :value
  bool timed = false;
  int64_t time = 0;
  std::string_view index;    // "": no :index
};
struct ObjectSink {
  virtual ~ObjectSink() = default;
  virtual void comment(std::string_view text) = 0;  // a line for people before the records
  virtual void record(const ObjectRecord& r) = 0;
  virtual void finish() = 0;
};

// The label of a generated transaction, when a sink is asked for labels: "s<session>t<index>".
inline std::string generated_label(uint32_t session, uint32_t index) {
  std::string label(1, 's');  // (built up: GCC 12 warns, wrongly, of "s" + std::string)
  label += std::to_string(session);
  label += 't';
  label += std::to_string(index);
  return label;
}

}  // namespace isoscope
