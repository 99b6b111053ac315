// The output formats, each written in one place and streamed: `convert` and the wasm API write a
// loaded History through them (write_history), and `generate` writes through them as it
// generates, with no History in memory (formats/text_sink.h adapts its events).
#pragma once
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/errors.h"
#include "model/gen_sink.h"
#include "model/history.h"
#include "util/text_out.h"

namespace isoscope {

// One format's writer. Keys and values arrive as JSON literals (5, "abc", null); a list read's
// value as a JSON array of them. Transactions are numbered 1, 2, ... in the order they begin
// (the History numbering).
class HistoryWriter {
 public:
  virtual ~HistoryWriter() = default;
  virtual void begin(std::optional<std::string_view> initial_json) = 0;
  virtual void begin_session() = 0;
  virtual void begin_txn(std::string_view label) = 0;  // "" when the transaction has none
  virtual void op(OpKind kind, std::string_view key_json, std::string_view value_json) = 0;
  // Rows (docs/formats.md): the initial rows, [[key, value], ...] in JSON (after begin, before
  // the first session), and a predicate read: its predicate and the rows it returned. A format
  // without rows says so (error()).
  virtual void rows(std::string_view) { cannot("initial rows"); }
  virtual void select(std::string_view, std::string_view) { cannot("predicate reads"); }
  virtual void end_txn(TxnStatus status, std::optional<Interval> times) = 0;
  // A counterexample's transactions' identities in its original history (History::origin),
  // before finish(); formats that cannot hold them ignore them.
  virtual void origin(const History&) {}
  // The faults recorded with the history (History::faults), before finish(); formats that cannot
  // hold them ignore them.
  virtual void faults(const History&) {}
  virtual void finish() = 0;
  // Set when the format cannot express what it was given (then the output is incomplete).
  const std::optional<InputError>& error() const { return error_; }

 protected:
  void cannot(std::string_view what) {
    if (!error_) error_ = input_error("this format cannot hold " + std::string(what) + " (isoscope JSON can)");
  }
  std::optional<InputError> error_;
};

// "isoscope" (the canonical JSON) or "plume"; nullptr for any other name.
std::unique_ptr<HistoryWriter> make_writer(std::string_view format, TextOut& out);

// "r", "w" or "append": an operation's name in the canonical JSON.
const char* op_kind_name(OpKind k);
// An operation's value as JSON: a literal, or for a list read the array of its elements.
std::string op_value_json(const History& h, uint32_t op);

// Walks a loaded history through a writer.
void write_history(const History& h, HistoryWriter& w);

// What plume cannot express in h (list operations, unknown outcomes, non-integer keys or values,
// reads of an initial value other than 0), checked before anything is written.
std::optional<InputError> plume_cannot_express(const History& h);

// Conveniences over the above: the whole text in memory.
std::string write_isoscope_json(const History& h);
Expected<std::string> write_plume(const History& h);
// Jepsen EDN, a record a line, in a vector: the one place EDN records are written, for
// write_jepsen_edn and for `generate --register` (model/gen_sink.h's ObjectSink).
class JepsenEdnSink final : public ObjectSink {
 public:
  explicit JepsenEdnSink(TextOut& out) : out_(out) {}
  void comment(std::string_view text) override;  // before the first record
  void record(const ObjectRecord& r) override;
  // A record of the nemesis (a process that is not a client), as the reader counts and drops.
  void nemesis_record();
  void finish() override;

 private:
  void record_opening();
  TextOut& out_;
  std::string line_;
  bool open_ = false;
};

// An object history (h.registers non-empty) as Jepsen EDN, which the `jepsen` reader reads back
// to the same operations (formats/jepsen_writer.cpp): its lossless form (isoscope JSON has no
// objects).
std::string write_jepsen_edn(const History& h);

}  // namespace isoscope
