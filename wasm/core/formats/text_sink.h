// Generation straight to text: a GenSink (model/gen_sink.h) that hands the generator's events to
// a format's streaming writer (writers.h), so no History is built and each format is written in
// one place for `generate` and `convert` alike.
#pragma once
#include <charconv>
#include <memory>
#include <string>
#include <string_view>

#include "formats/writers.h"
#include "model/gen_sink.h"

namespace isoscope {

class TextSink final : public GenSink {
 public:
  // labels: each transaction labelled generated_label(session, index)
  TextSink(std::unique_ptr<HistoryWriter> w, bool labels) : w_(std::move(w)), labels_(labels) { w_->begin("0"); }
  void begin_session() override { w_->begin_session(); }
  void begin_txn(uint32_t session, uint32_t index) override {
    w_->begin_txn(labels_ ? generated_label(session, index) : std::string());
  }
  void read(int64_t key, int64_t value) override { op(OpKind::Read, key, value); }
  void write(int64_t key, int64_t value) override { op(OpKind::Write, key, value); }
  void end_txn(TxnStatus status, bool timed, Time start, Time end) override {
    w_->end_txn(status, timed ? std::optional(Interval{start, end}) : std::nullopt);
  }
  // Closes the document; the writer's error, if the format could not express the history.
  const std::optional<InputError>& finish() {
    w_->finish();
    return w_->error();
  }

 private:
  void op(OpKind kind, int64_t key, int64_t value) {
    char k[24], v[24];
    const auto ke = std::to_chars(k, k + sizeof k, key).ptr, ve = std::to_chars(v, v + sizeof v, value).ptr;
    w_->op(kind, std::string_view(k, static_cast<size_t>(ke - k)), std::string_view(v, static_cast<size_t>(ve - v)));
  }
  std::unique_ptr<HistoryWriter> w_;
  bool labels_;
};

// nullptr for a format that has no writer.
inline std::unique_ptr<TextSink> make_text_sink(std::string_view format, TextOut& out, bool labels = false) {
  std::unique_ptr<HistoryWriter> w = make_writer(format, out);
  return w ? std::make_unique<TextSink>(std::move(w), labels) : nullptr;
}

}  // namespace isoscope
