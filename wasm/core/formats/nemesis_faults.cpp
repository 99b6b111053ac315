#include "formats/nemesis_faults.h"

#include <algorithm>

namespace isoscope {

namespace {

// What a nemesis :f opens: the fault's kind and the :f that closes it ("" when it opens none).
struct Opening {
  std::string kind, closer;
};
Opening opening_of(std::string_view f) {
  if (f.starts_with("start-")) return {std::string(f.substr(6)), "stop-" + std::string(f.substr(6))};
  if (f == "kill") return {"crash", "start"};
  if (f == "pause") return {"pause", "resume"};
  if (f == "start") return {"nemesis", "stop"};
  return {};
}

}  // namespace

void NemesisFaults::record(std::string_view f, bool has_time, const Time& time) {
  if (!has_time) return;
  if (!any_time_ || last_ < time) last_ = time;
  any_time_ = true;
  // A record of a function that closes an open fault (the latest one first): the fault ends
  // here, or later if more records of it follow (the completion after the invocation).
  for (size_t i = open_.size(); i-- > 0;) {
    Open& o = open_[i];
    if (o.closer != f || o.extensions == 0) continue;
    if (o.extensions > 0) --o.extensions;
    // Jepsen's :start both closes a crash and opens its default nemesis's fault: it closes.
    o.closing = true;
    o.end = time;
    return;
  }
  // A record that repeats an opening (the completion of the invocation that opened it) while
  // the fault is open and not closing yet: nothing new.
  const Opening op = opening_of(f);
  for (Open& o : open_)
    if (!o.closing && ((op.kind.empty() && o.kind == f) || (!op.kind.empty() && o.kind == op.kind))) return;
  // Faults whose closing records are over (another function came): done.
  for (size_t i = 0; i < open_.size();) {
    if (open_[i].closing) {
      done_.push_back({open_[i].kind, "", open_[i].start, open_[i].end, ""});
      open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  if (op.kind.empty()) {
    // A fault of its own name, at this time (its completion, if it comes next, extends it).
    open_.push_back({std::string(f), std::string(f), time, time, true, 1});
    return;
  }
  open_.push_back({op.kind, op.closer, time, time, false, -1});
}

std::vector<FaultSpan> NemesisFaults::finish() {
  for (Open& o : open_) done_.push_back({o.kind, "", o.start, o.closing ? o.end : last_, o.closing ? "" : "not stopped before the history ends"});
  open_.clear();
  std::stable_sort(done_.begin(), done_.end(), [](const FaultSpan& a, const FaultSpan& b) { return a.start < b.start; });
  return std::move(done_);
}

}  // namespace isoscope
