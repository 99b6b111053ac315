// Jepsen's, Knossos's and Porcupine's non-transactional object histories (model/registers.h):
//
//   jepsen      EDN or JSON operation maps, like Elle's but with object functions:
//                 {:type :invoke, :f :read,  :value nil,   :process 0, :time 10, :index 0}
//                 {:type :ok,     :f :cas,   :value [1 2], :process 0, ...}
//               independent keys as [key value] tuples (jepsen.independent):
//                 {:f :read, :value [3 nil]}  {:f :write, :value [3 4]}  {:f :cas, :value [3 [1 2]]}
//               Porcupine's kv logs: {:f :get|:put|:append, :key "k", :value "v"};
//               Knossos's multi-register: {:f :txn, :value [[:read :x nil] [:write :y 1]]};
//               Knossos's mutex: {:f :acquire} / {:f :release}.
//   jepsen-log  Jepsen's log lines, as Porcupine's etcd test logs keep them:
//                 INFO  jepsen.util - 3	:invoke	:cas	[1 4]
//
// An invocation pairs with the next completion of its process. :ok took effect; :fail did not
// (it constrains nothing); :info, and an invocation never completed, may have taken effect at
// any point after the invocation, or never; a completion with no invocation pending is an
// input error (as a second invocation is). A read's value is its :ok completion's. The
// :nemesis (JSON "nemesis") is no client: its records are counted in dropped_events; any other
// :process that is no integer is an input error. Times are :time when every operation records
// one (Jepsen's nanoseconds), else positions in the file. Each operation keeps the lines of its
// records (RegOp::line), so a counterexample names where it is.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/edn.h"
#include "formats/formats.h"
#include "formats/reader_util.h"

namespace isoscope {
namespace {

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
  explicit Collector(const InputFile& f) : f_(f), lines_(f.bytes) {
    null_ = b_.values().intern_null();
    // Operations are built per process in finish(): each from its invocation's record.
    b_.locate_with([this] { return static_cast<int64_t>(building_offset_); });
  }
  HistoryBuilder& builder() { return b_; }
  std::vector<ObjMicro>& micro() { return micro_; }
  uint32_t null_value() const { return null_; }
  void not_a_client() { ++dropped_not_client_; }
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
    return b_.finish(format, f_.name);
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
};

// ---- EDN and JSON maps ----------------------------------------------------------------------

bool is_name(const Node* n, std::string_view name) {
  return n && (n->type == NT::Keyword || n->type == NT::Str || n->type == NT::Symbol) && n->text == name;
}

// The object function a :f names, or false.
bool object_fn(const Node* f, ObjFn& fn, bool& kv) {
  kv = false;
  if (is_name(f, "read")) fn = ObjFn::Read;
  else if (is_name(f, "write")) fn = ObjFn::Write;
  else if (is_name(f, "cas")) fn = ObjFn::Cas;
  else if (is_name(f, "get")) fn = ObjFn::Read, kv = true;
  else if (is_name(f, "put")) fn = ObjFn::Write, kv = true;
  else if (is_name(f, "append")) fn = ObjFn::Append, kv = true;
  else if (is_name(f, "acquire")) fn = ObjFn::Acquire;
  else if (is_name(f, "release")) fn = ObjFn::Release;
  else if (is_name(f, "txn")) fn = ObjFn::Txn;
  else return false;
  return true;
}

class MapReader {
 public:
  explicit MapReader(const InputFile& f)
      : f_(f), c_(f), json_(edn::looks_like_json(f.bytes.substr(fmt::bom_length(f.bytes)))) {}
  Collector& collector() { return c_; }

  size_t forms = 0;
  bool form(const std::vector<Node>& nodes, uint32_t root, InputError& err) {
    ++forms;
    nodes_ = &nodes;
    err_ = &err;
    const Node& m = nodes[root];
    if (m.type != NT::Map) return fail(m, "expected an operation map {:type .., :f .., :value .., :process ..}");
    dup_second_ = nullptr;
    const Node* type = field(m, "type");
    const Node* process = field(m, "process");
    const Node* f = field(m, "f");
    const Node* value = field(m, "value");
    const Node* time = field(m, "time");
    const Node* index = field(m, "index");
    const Node* key = field(m, "key");
    if (duplicate_key()) return false;
    if (!type) return fail(m, "the operation lacks :type");
    if (!process) return fail(m, "the operation lacks :process (a client's number): without it an invocation cannot be paired with its completion");
    if (process->type != NT::Int) {
      // The nemesis is no client: counted. Anything else names neither a client nor the
      // nemesis (history-format.md): an error, never taken for the nemesis and dropped.
      if (!edn::is_nemesis(*process, json_)) return fail(*process, edn::process_problem(*process, json_));
      c_.not_a_client();
      return true;
    }
    Event e;
    e.process = process->i;
    e.offset = m.offset;
    if (is_name(type, "invoke")) e.type = kInvoke;
    else if (is_name(type, "ok")) e.type = kOk;
    else if (is_name(type, "fail")) e.type = kFail;
    else if (is_name(type, "info")) e.type = kInfo;
    else return fail(*type, "expected :type to be :invoke, :ok, :fail or :info");
    if (!f) return fail(m, "the operation lacks :f");
    if (!object_fn(f, e.fn, e.kv))
      return fail(*f, "expected :f to be :read, :write, :cas (a register), :get, :put, :append (a key-value store), "
                      ":acquire, :release (a mutex) or :txn (a multi-register)");
    if (const Node* t = time) {
      if (t->type != NT::Int) return fail(*t, "expected :time to be an integer (nanoseconds)");
      e.time = t->i;
      e.has_time = true;
    }
    if (const Node* ix = index) {  // Knossos's number of the record: the label reports show
      if (ix->type != NT::Int) return fail(*ix, "expected :index to be an integer, found " + edn::describe(*ix));
      e.index = ix->i;
      e.has_index = true;
    }
    if (const Node* k = key) {  // Porcupine's kv: the key beside the value
      if (!scalar(*k, c_.builder().keys(), e.key, "a key")) return false;
    }
    const bool observed = e.type == kOk;
    const Node* v = value;
    switch (e.fn) {
      case ObjFn::Acquire:
      case ObjFn::Release: return c_.add(e, err);
      case ObjFn::Txn: {
        if (!v) return fail(m, "the operation lacks :value");
        if (v->type != NT::Vector && v->type != NT::List)
          return fail(*v, "expected :value to be a vector of micro-ops such as [:read :x nil] or [:write :x 1]");
        e.micro_begin = static_cast<uint32_t>(c_.micro().size());
        for (uint32_t ch = v->first; ch != kNone; ch = nodes[ch].next) {
          const Node& mo = nodes[ch];
          if ((mo.type != NT::Vector && mo.type != NT::List) || mo.count != 3)
            return fail(mo, "expected a micro-op [:read k v] or [:write k v]");
          const Node& fn = nodes[mo.first];
          const Node& kn = nodes[fn.next];
          const Node& vn = nodes[kn.next];
          ObjMicro o{};
          if (!scalar(kn, c_.builder().keys(), o.key, "a key")) return false;
          if (is_name(&fn, "write") || is_name(&fn, "w")) {
            o.write = true;
            if (!value_of(vn, o.value, false)) return false;
          } else if (is_name(&fn, "read") || is_name(&fn, "r")) {
            if (!observed) o.value = RegOp::kUnobserved;
            else if (!value_of(vn, o.value, true)) return false;
          } else {
            return fail(fn, "expected the micro-op function :read or :write");
          }
          c_.micro().push_back(o);
        }
        e.micro_end = static_cast<uint32_t>(c_.micro().size());
        return c_.add(e, err);
      }
      default: break;
    }
    // A value with a key in front: [k v] (jepsen.independent), unless :key gave it.
    if (!v) return fail(m, "the operation lacks :value");
    const bool tuple = e.key == kNone && (v->type == NT::Vector || v->type == NT::List) && v->count == 2 &&
                       (e.fn != ObjFn::Cas || nodes[nodes[v->first].next].type == NT::Vector ||
                        nodes[nodes[v->first].next].type == NT::List);
    if (tuple) {
      if (!scalar(nodes[v->first], c_.builder().keys(), e.key, "a key")) return false;
      v = &nodes[nodes[v->first].next];
    }
    switch (e.fn) {
      case ObjFn::Read:
        if (observed && !value_of(*v, e.a, true)) return false;
        break;
      case ObjFn::Write:
      case ObjFn::Append:
        if (e.type == kInvoke || e.type == kOk) {
          if (v->type == NT::Nil && e.type == kOk) break;  // the invocation said it
          if (!value_of(*v, e.a, false)) return false;
        }
        break;
      case ObjFn::Cas:
        if (e.type == kInvoke || e.type == kOk) {
          if (v->type == NT::Nil && e.type == kOk) break;
          if ((v->type != NT::Vector && v->type != NT::List) || v->count != 2)
            return fail(*v, "expected a compare-and-set's value to be [from to]");
          if (!value_of(nodes[v->first], e.a, true) || !value_of(nodes[nodes[v->first].next], e.b, false)) return false;
        }
        break;
      default: break;
    }
    return c_.add(e, err);
  }

 private:
  bool fail(const Node& n, std::string what) {
    *err_ = fmt::text_error(f_, n.offset, std::move(what));
    return false;
  }
  // The value of a key of map. A key the reader uses may appear only once (as in the elle
  // reader: neither the first nor the last silently wins); a second one fails the form.
  const Node* field(const Node& map, std::string_view name) {
    const std::vector<Node>& nodes = *nodes_;
    const Node* found = nullptr;
    for (uint32_t c = map.first; c != kNone;) {
      const Node& k = nodes[c];
      const uint32_t v = k.next;
      if ((k.type == NT::Keyword || k.type == NT::Str || k.type == NT::Symbol) && k.text == name) {
        if (!found) found = &nodes[v];
        else if (!dup_second_) dup_first_ = found, dup_second_ = &k, dup_name_ = name;
      }
      c = nodes[v].next;
    }
    return found;
  }
  bool duplicate_key() {
    if (!dup_second_) return false;
    // dup_first_ is the first value; its key precedes it.
    fail(*dup_second_, "the key " + std::string(dup_name_) + " appears twice in this map (first at line " +
                           c_.line_of(dup_first_->offset) + "): expected each key once");
    return true;
  }
  const Node* dup_first_ = nullptr;
  const Node* dup_second_ = nullptr;
  std::string_view dup_name_;
  bool scalar(const Node& n, Interner& in, uint32_t& out, const char* what) {
    switch (n.type) {
      case NT::Int: out = in.intern_int(n.i); return true;
      case NT::Keyword:
      case NT::Symbol: out = in.intern_str(n.text); return true;
      case NT::Str: out = n.escaped ? in.intern_str(edn::unescape_string(n.text)) : in.intern_str(n.text); return true;
      default: return fail(n, std::string("expected ") + what + " (an integer, a string or a keyword)");
    }
  }
  // A register's value: a scalar, or nil (the absent value) where nil_ok.
  bool value_of(const Node& n, uint32_t& out, bool nil_ok) {
    if (n.type == NT::Nil) {
      if (!nil_ok) return fail(n, "expected the value to write, found nil");
      out = c_.null_value();
      return true;
    }
    return scalar(n, c_.builder().values(), out, "a value");
  }

  const InputFile& f_;
  Collector c_;
  const bool json_;  // the JSON form: the nemesis is "nemesis"
  const std::vector<Node>* nodes_ = nullptr;
  InputError* err_ = nullptr;
};

// Finds the next `:f <name>` (EDN) or `"f": "<name>"` (JSON) in s from `from`; returns the
// name, or empty at the end.
std::string_view next_f(std::string_view s, bool json, size_t& from) {
  const std::string_view mark = json ? "\"f\"" : ":f";
  while (true) {
    const size_t at = s.find(mark, from);
    if (at == std::string_view::npos) return {};
    size_t i = at + mark.size();
    from = i;
    if (!json && i < s.size() && !(fmt::is_space(s[i]) || s[i] == ',')) continue;  // :foo, not :f
    while (i < s.size() && (fmt::is_space(s[i]) || s[i] == ',' || (json && s[i] == ':'))) ++i;
    if (i >= s.size()) return {};
    if (s[i] != (json ? '"' : ':')) continue;
    const size_t b = ++i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '_')) ++i;
    return s.substr(b, i - b);
  }
}

}  // namespace

// Object histories are told from Elle's transactional ones by their :f: an object function
// (:read, :write, :cas, :get, :put, :append, :acquire, :release), or :txn with Knossos's
// [:read k v] / [:write k v] micro-ops, among the first 64 KB (nemesis records may come first).
bool detect_jepsen(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  size_t i = 0;
  while (i < s.size() && (fmt::is_space(s[i]) || s[i] == ',')) ++i;
  if (i >= s.size() || (s[i] != '{' && s[i] != '[' && s[i] != '(' && s[i] != '#' && s[i] != ';')) return false;
  const std::string_view head = s.substr(0, 65536);
  if (head.find("type") == std::string_view::npos) return false;
  size_t from = 0;
  bool object = false;
  const bool json = edn::looks_like_json(s);
  for (std::string_view fn = next_f(head, json, from); !fn.empty(); fn = next_f(head, json, from)) {
    if (fn == "read" || fn == "write" || fn == "cas" || fn == "get" || fn == "put" || fn == "append" ||
        fn == "acquire" || fn == "release")
      object = true;
    else if (fn == "txn")
      return head.find("[:read ") != std::string_view::npos || head.find("[:write ") != std::string_view::npos ||
             head.find("[\"read\"") != std::string_view::npos || head.find("[\"write\"") != std::string_view::npos;
  }
  if (object) return true;
  // Only nemesis records (no client operation at all): a history that passes, read here rather
  // than as a transactional one, unless transactions' micro-op vectors show up.
  return head.find("nemesis") != std::string_view::npos && head.find("[[") == std::string_view::npos &&
         head.find("[ [") == std::string_view::npos;
}

Expected<History> read_jepsen(std::span<const InputFile> files) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "jepsen");
  MapReader reader(*fp);
  if (std::optional<InputError> err = edn::for_each_form(
          *fp, [&](const std::vector<Node>& nodes, uint32_t root, InputError& e) { return reader.form(nodes, root, e); }))
    return std::move(*err);
  if (reader.forms == 0)
    return fmt::text_error(*fp, fp->bytes.size(), "expected at least one operation map {:type .., :f .., :process ..}; found none");
  return reader.collector().finish("jepsen");
}

// ---- Jepsen log lines -----------------------------------------------------------------------

namespace {
constexpr std::string_view kLogMark = "jepsen.util - ";

// The operation of one log line after "jepsen.util - ": process, type, f and value separated
// by white space. Returns false (err set) when it is malformed; nemesis: the line is the
// nemesis's (no client operation; e is not filled).
bool log_event(const InputFile& f, Collector& c, std::string_view line, size_t at, Event& e, bool& nemesis, InputError& err) {
  size_t i = 0;
  auto field = [&]() {
    while (i < line.size() && fmt::is_blank(line[i])) ++i;
    const size_t b = i;
    if (i < line.size() && line[i] == '[') {
      while (i < line.size() && line[i] != ']') ++i;
      if (i < line.size()) ++i;
    } else {
      while (i < line.size() && !fmt::is_blank(line[i])) ++i;
    }
    return line.substr(b, i - b);
  };
  auto bad = [&](std::string what) {
    err = fmt::text_error(f, at, std::move(what));
    return false;
  };
  const std::string_view proc = field(), type = field(), fn = field(), value = field();
  nemesis = false;
  const char* p = proc.data();
  if (!fmt::parse_i64(p, proc.data() + proc.size(), e.process) || p != proc.data() + proc.size()) {
    if (proc == ":nemesis") return nemesis = true;
    return bad("expected a process number (a client's) or :nemesis after 'jepsen.util - ', found '" +
               std::string(proc.substr(0, 40)) + (proc.size() > 40 ? "...'" : "'"));
  }
  if (type == ":invoke") e.type = kInvoke;
  else if (type == ":ok") e.type = kOk;
  else if (type == ":fail") e.type = kFail;
  else if (type == ":info") e.type = kInfo;
  else return bad("expected :invoke, :ok, :fail or :info after the process");
  if (fn == ":read") e.fn = ObjFn::Read;
  else if (fn == ":write") e.fn = ObjFn::Write;
  else if (fn == ":cas") e.fn = ObjFn::Cas;
  else return bad("expected :read, :write or :cas after the type");
  e.offset = static_cast<uint32_t>(at);
  Interner& vals = c.builder().values();
  auto scalar = [&](std::string_view t, uint32_t& out) {
    if (t == "nil") {
      out = c.null_value();
      return true;
    }
    const char* q = t.data();
    int64_t v;
    if (fmt::parse_i64(q, t.data() + t.size(), v) && q == t.data() + t.size()) {
      out = vals.intern_int(v);
      return true;
    }
    return false;
  };
  const bool args = e.type == kInvoke || e.type == kOk;  // :fail/:info values are errors (:timed-out)
  if (e.fn == ObjFn::Read) {
    if (e.type == kOk && !scalar(value, e.a)) return bad("expected the value read (an integer or nil)");
  } else if (e.fn == ObjFn::Write) {
    if (args && (!scalar(value, e.a) || e.a == c.null_value())) return bad("expected the value written (an integer)");
  } else if (args || (e.type == kFail && !value.empty() && value[0] == '[')) {
    std::string_view v = value;
    if (v.size() < 2 || v.front() != '[' || v.back() != ']') return bad("expected a compare-and-set's [from to]");
    v = v.substr(1, v.size() - 2);
    size_t j = 0;
    while (j < v.size() && !fmt::is_blank(v[j])) ++j;
    std::string_view from = v.substr(0, j), to = v.substr(j);
    while (!to.empty() && fmt::is_blank(to.front())) to.remove_prefix(1);
    if (!scalar(from, e.a) || !scalar(to, e.b)) return bad("expected a compare-and-set's [from to] of integers");
  }
  return true;
}
}  // namespace

bool detect_jepsen_log(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes), 4096);
  const size_t at = s.find(kLogMark);
  if (at == std::string_view::npos) return false;
  size_t i = at + kLogMark.size();
  if (s.substr(i).starts_with(":nemesis")) i += 8;  // a log may begin with the nemesis's lines
  else {
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && fmt::is_digit(s[i])) ++i;
  }
  while (i < s.size() && fmt::is_blank(s[i])) ++i;
  return s.substr(i).starts_with(":invoke") || s.substr(i).starts_with(":ok") || s.substr(i).starts_with(":fail") ||
         s.substr(i).starts_with(":info");
}

Expected<History> read_jepsen_log(std::span<const InputFile> files) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "jepsen-log");
  const InputFile& f = *fp;
  Collector c(f);
  std::string_view s = f.bytes;
  size_t pos = fmt::bom_length(s);
  bool any = false;
  const char* const end = s.data() + s.size();
  while (pos < s.size()) {
    // LF, CRLF and CR-only line ends alike.
    const char* eol = fmt::find_newline(s.data() + pos, end);
    std::string_view line = s.substr(pos, static_cast<size_t>(eol - (s.data() + pos)));
    const size_t mark = line.find(kLogMark);
    if (mark == std::string_view::npos) {
      bool blank = true;
      for (char ch : line) blank = blank && fmt::is_blank(ch);
      if (!blank) c.not_an_operation();
    } else {
      Event e;
      bool nemesis = false;  // a flag: every int64 is a process a log may name
      InputError err;
      const size_t at = pos + mark + kLogMark.size();
      if (!log_event(f, c, line.substr(mark + kLogMark.size()), at, e, nemesis, err)) return err;
      if (nemesis) c.not_a_client();
      else if (!c.add(e, err)) return err;
      any = true;
    }
    if (eol == end) break;
    pos = static_cast<size_t>(fmt::past_newline(eol, end) - s.data());
  }
  if (!any) return fmt::text_error(f, 0, "expected Jepsen log lines such as 'INFO jepsen.util - 0 :invoke :read nil'; found none");
  return c.finish("jepsen-log");
}

}  // namespace isoscope
