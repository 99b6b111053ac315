// What the two Jepsen object-history readers share (jepsen.cpp: operation maps; jepsen_log.cpp:
// log lines): a record decoded into an Event, and the Collector that pairs invocations with
// completions per process and builds the History (see jepsen.cpp's header for the rules).
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>
#include "formats/edn.h"
#include "formats/formats.h"
#include "formats/nemesis_faults.h"
#include "formats/reader_util.h"

namespace isoscope::jepsen_events {

using edn::Node;
using edn::NT;

enum EventType : uint8_t { kInvoke, kOk, kFail, kInfo };

// What one record of the history says, decoded from EDN, JSON or a log line.
struct Event {
  int64_t process = 0;
  EventType type = kInvoke;
  ObjFn fn = ObjFn::Read;
  bool kv = false;                // Porcupine's kv vocabulary (get/put/append)
  uint32_t key = kNone;           // kNone: the single object
  uint32_t a = RegOp::kUnobserved, b = RegOp::kUnobserved;
  uint32_t micro_begin = 0, micro_end = 0;  // Txn: into Collector::micro_
  int64_t time = 0;
  bool has_time = false;
  int64_t index = 0;
  bool has_index = false;  // a flag, not a reserved value: every int64 is an :index
  uint32_t offset = 0;  // byte offset of the record (errors)
  uint32_t line = 0;    // its line (Collector::add)
};

// The lines of increasing offsets in one pass over the text, counted as locate_line counts them
// (LF, CRLF and CR-only line ends alike).
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  uint32_t line_of(size_t offset) {
    offset = std::min(offset, text_.size());
    if (offset < pos_) {  // not in file order (never for these readers): count from the start
      InputError e;
      e.offset = static_cast<int64_t>(offset);
      locate_line(text_, e);
      return static_cast<uint32_t>(e.line);
    }
    const char* const b = text_.data();
    line_ += static_cast<uint32_t>(std::count(b + pos_, b + offset, '\n'));
    for (const char* cr = b + pos_; (cr = static_cast<const char*>(std::memchr(cr, '\r', static_cast<size_t>(b + offset - cr))));
         ++cr)
      if (cr + 1 >= b + text_.size() || cr[1] != '\n') ++line_;
    pos_ = offset;
    return line_;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
};

// Pairs invocations with completions and builds the History with its Registers.
class Collector {
 public:
  Collector(const InputFile& f, OpLocator* locator) : f_(f), lines_(f.bytes), b_(locator) {
    null_ = b_.values().intern_null();
    // Operations are built per process in finish(): each from its invocation's record.
    b_.locate_with([this] { return static_cast<int64_t>(building_offset_); });
  }
  HistoryBuilder& builder() { return b_; }
  std::vector<ObjMicro>& micro() { return micro_; }
  uint32_t null_value() const { return null_; }
  void not_a_client() { ++dropped_not_client_; }
  // A nemesis record's :f and :time, for the faults (nemesis_faults.h).
  void nemesis(std::string_view f, bool has_time, const Time& time) { nemesis_.record(f, has_time, time); }
  void not_an_operation() { ++dropped_lines_; }

  bool add(Event e, InputError& err) {
    e.line = lines_.line_of(e.offset);
    ++position_;
    all_timed_ = all_timed_ && e.has_time;
    if (e.type == kInvoke) {
      auto it = pending_.find(e.process);
      if (it != pending_.end()) {
        err = fmt::text_error(f_, e.offset, "process " + std::to_string(e.process) +
                                                " invokes an operation while its previous one (line " +
                                                line_of(ops_[it->second].offset) + ") has not completed");
        return false;
      }
      pending_[e.process] = static_cast<uint32_t>(ops_.size());
      Pending p;
      p.inv = e;
      p.call_pos = position_;
      p.offset = e.offset;
      ops_.push_back(p);
      return true;
    }
    auto it = pending_.find(e.process);
    if (it == pending_.end()) {
      // A completion of nothing: no operation of this process is pending. Knossos refuses it
      // too; guessing an invocation "some time before" would make up a time.
      std::string what = "process " + std::to_string(e.process) + " completes an operation it has not invoked: expected its :invoke before this :" +
                         type_name(e.type);
      if (auto last = last_.find(e.process); last != last_.end())
        what += " (its previous operation, invoked at line " + std::to_string(ops_[last->second].inv.line) +
                ", completed at line " + std::to_string(ops_[last->second].done.line) + ")";
      err = fmt::text_error(f_, e.offset, what);
      return false;
    }
    const uint32_t i = it->second;
    pending_.erase(it);
    last_[e.process] = i;
    if (ops_[i].inv.fn != e.fn || ops_[i].inv.kv != e.kv) {
      err = fmt::text_error(f_, e.offset, std::string("this completion is a :") + obj_fn_name(e.fn) +
                                              " but process " + std::to_string(e.process) + " invoked a :" +
                                              obj_fn_name(ops_[i].inv.fn) + " (line " + line_of(ops_[i].offset) + ")");
      return false;
    }
    Pending& p = ops_[i];
    if (e.has_time && p.inv.has_time && e.time < p.inv.time) {
      err = fmt::text_error(f_, e.offset, "this completion's :time (" + std::to_string(e.time) +
                                              ") is before its invocation's (" + std::to_string(p.inv.time) + ", line " +
                                              line_of(p.offset) + ")");
      return false;
    }
    p.done = e;
    p.completed = true;
    p.ret_pos = position_;
    return true;
  }

  Expected<History> finish(const char* format) {
    // The model, from the functions used: one vocabulary per history.
    ObjectModel model = ObjectModel::None;
    for (const Pending& p : ops_) {
      const ObjFn fn = p.inv.fn;
      ObjectModel m = fn == ObjFn::Txn                                 ? ObjectModel::MultiRegister
                      : fn == ObjFn::Acquire || fn == ObjFn::Release ? ObjectModel::Mutex
                      : p.inv.kv                                       ? ObjectModel::KeyValue
                      : fn == ObjFn::Cas                               ? ObjectModel::CasRegister
                                                                       : ObjectModel::Register;
      if (model == ObjectModel::None || (model == ObjectModel::Register && m == ObjectModel::CasRegister)) {
        model = m;
      } else if (m != model && !(model == ObjectModel::CasRegister && m == ObjectModel::Register)) {
        return fmt::text_error(f_, p.offset, std::string("this ") + obj_fn_name(fn) + " belongs to a " +
                                                 object_model_name(m) + " history, but the operations before it are of a " +
                                                 object_model_name(model) + " history: expected one kind of object");
      }
    }
    if (model == ObjectModel::None) model = ObjectModel::Register;  // only nemesis records: passes
    // The one object of a history without keys (only named when some operation has no key).
    // Keys are all or nothing: an operation without one among keyed ones names no object.
    // An operation's key is its invocation's; a read's may come with its result instead.
    auto key_of = [](const Pending& p) {
      return p.inv.key == kNone && p.inv.fn == ObjFn::Read && p.completed ? p.done.key : p.inv.key;
    };
    auto keyed = [&](const Pending& p) { return key_of(p) != kNone; };
    const Pending* first_keyed = nullptr;
    for (const Pending& p : ops_)
      if (keyed(p)) {
        first_keyed = &p;
        break;
      }
    uint32_t single = kNone;
    for (const Pending& p : ops_)
      if (!keyed(p) && p.inv.fn != ObjFn::Txn) {
        if (first_keyed)
          return fmt::text_error(f_, p.offset, std::string("this :") + obj_fn_name(p.inv.fn) +
                                                   " names no key, but the history's operations name keys (the first at line " +
                                                   line_of(first_keyed->offset) + "): expected its value as a [key value] tuple" +
                                                   (first_keyed->inv.kv ? " or a :key" : ""));
        single = b_.keys().intern_str(model == ObjectModel::Mutex ? "mutex" : "register");
        break;
      }
    // Sessions: processes in ascending order; operations in invocation order.
    std::vector<uint32_t> order(ops_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return ops_[x].inv.process < ops_[y].inv.process; });
    std::vector<uint32_t> txn_of(ops_.size());
    Registers regs;
    regs.model = model;
    regs.timed = all_timed_ && !ops_.empty();
    regs.keyed = first_keyed != nullptr;
    regs.ops.resize(ops_.size());
    regs.micro = std::move(micro_);
    b_.reserve(ops_.size(), ops_.size() * 2);
    bool first = true;
    int64_t cur = 0;
    uint32_t next_txn = 1;
    const int64_t history_end = regs.timed ? last_time() : static_cast<int64_t>(position_);
    const uint32_t acquired = b_.values().intern_str("acquired"), released = b_.values().intern_str("released");
    for (uint32_t i : order) {
      const Pending& p = ops_[i];
      if (first || p.inv.process != cur) {
        b_.begin_session();
        cur = p.inv.process;
        first = false;
      }
      RegOp& r = regs.ops[i];
      r.txn = next_txn++;
      r.process = p.inv.process;
      r.fn = p.inv.fn;
      r.key = keyed(p) ? key_of(p) : single;
      r.status = !p.completed || p.done.type == kInfo ? 2 : p.done.type == kFail ? 1 : 0;
      r.a = p.inv.a;
      r.b = p.inv.b;
      r.micro_begin = p.inv.micro_begin;
      r.micro_end = p.inv.micro_end;
      if (r.ok() && r.fn == ObjFn::Read) r.a = p.done.a;  // the value read
      if (r.ok() && r.fn == ObjFn::Txn) {                 // the values its reads returned
        r.micro_begin = p.done.micro_begin;
        r.micro_end = p.done.micro_end;
      }
      if (regs.timed) {
        r.call = p.inv.time;
        r.ret = r.status == 2 ? RegOp::kNever : p.done.time;
      } else {
        r.call = static_cast<int64_t>(p.call_pos);
        r.ret = r.status == 2 ? RegOp::kNever : static_cast<int64_t>(p.ret_pos);
      }
      r.line = p.inv.line;
      r.completion_line = p.completed ? p.done.line : 0;
      // The History's transaction that shows it.
      building_offset_ = p.offset;
      b_.begin_txn();
      b_.set_status(r.status == 0 ? TxnStatus::Committed : r.status == 1 ? TxnStatus::Aborted : TxnStatus::Unknown);
      const Event& labelled = p.completed && p.done.has_index ? p.done : p.inv;
      if (labelled.has_index) b_.set_label(std::to_string(labelled.index));
      {
        // Shown times: an indeterminate operation is open-ended (to the history's end): it may
        // have taken effect at any time after its invocation.
        const int64_t end = r.status != 2 ? (regs.timed ? p.done.time : static_cast<int64_t>(p.ret_pos)) : history_end;
        b_.set_time(Time::integer(r.call), Time::integer(std::max(end, r.call)));
      }
      switch (r.fn) {
        case ObjFn::Read:
          if (r.a != RegOp::kUnobserved) b_.read(r.key, r.a);
          break;
        case ObjFn::Write: b_.write(r.key, r.a); break;
        case ObjFn::Cas:
          b_.read(r.key, r.a);
          b_.write(r.key, r.b);
          break;
        case ObjFn::Append: b_.append(r.key, r.a); break;
        case ObjFn::Acquire: b_.write(r.key, acquired); break;
        case ObjFn::Release: b_.write(r.key, released); break;
        case ObjFn::Txn:
          for (uint32_t m = r.micro_begin; m < r.micro_end; ++m) {
            const ObjMicro& o = regs.micro[m];
            if (o.write) b_.write(o.key, o.value);
            else if (o.value != RegOp::kUnobserved) b_.read(o.key, o.value);
          }
          break;
      }
      b_.end_txn();
    }
    // Registers are in invocation order (as ops_); their txn ids follow the sessions.
    b_.add_dropped(History::kNotClients, dropped_not_client_);
    b_.add_dropped("log lines that are not operations", dropped_lines_);
    b_.set_initial(null_);
    b_.set_registers(std::move(regs));
    Expected<History> h = b_.finish(format, f_.name);
    if (h.ok()) h->faults = nemesis_.finish();
    return h;
  }

  std::string line_of(uint32_t offset) const {
    InputError e;
    e.offset = offset;
    locate_line(f_.bytes, e);
    return std::to_string(e.line);
  }

 private:
  static const char* type_name(EventType t) { return t == kOk ? "ok" : t == kFail ? "fail" : t == kInfo ? "info" : "invoke"; }
  struct Pending {
    Event inv, done;
    bool completed = false;
    size_t call_pos = 0, ret_pos = 0;
    uint32_t offset = 0;
  };
  int64_t last_time() const {
    int64_t t = 0;
    for (const Pending& p : ops_) t = std::max(t, std::max(p.inv.time, p.completed ? p.done.time : 0));
    return t;
  }

  const InputFile& f_;
  LineCursor lines_;  // the line of each record, as they arrive in file order
  HistoryBuilder b_;
  uint32_t null_;
  std::vector<Pending> ops_;
  std::vector<ObjMicro> micro_;
  std::unordered_map<int64_t, uint32_t> pending_;
  std::unordered_map<int64_t, uint32_t> last_;  // process -> its last completed operation (errors)
  size_t position_ = 0;
  uint32_t building_offset_ = 0;  // the record of the operation finish() is building (locate_with)
  bool all_timed_ = true;
  size_t dropped_not_client_ = 0, dropped_lines_ = 0;
  NemesisFaults nemesis_;  // the nemesis's records, as faults
};

}  // namespace isoscope::jepsen_events

namespace isoscope {
using jepsen_events::Collector;
using jepsen_events::Event;
using jepsen_events::EventType;
using jepsen_events::kFail;
using jepsen_events::kInfo;
using jepsen_events::kInvoke;
using jepsen_events::kOk;
using jepsen_events::LineCursor;
}  // namespace isoscope
