// Jepsen / Elle histories: a sequence (or one vector) of operation maps
//   {:type :invoke, :f :txn, :value [[:append :x 1] [:r :y nil]], :process 0, :time 10, :index 0}
//   {:type :ok,     :f :txn, :value [[:append :x 1] [:r :y [1 2]]], :process 0, :time 25, :index 1}
// in EDN (history.edn, also with #jepsen.history.Op{...} tags) or in elle-cli's JSON form
// ({"type": "ok", "f": "txn", "value": [["append", "x", 1], ["r", "y", [1, 2]]], ...}, one
// object a line or one array). Micro-ops: [:append k v], [:r k [v1 .. vn]] (list-append),
// [:w k v], [:r k v] (rw-register).
// Elle's closed-predicate histories are tables (docs/formats.md, "Rows that come and go"): an
// {:f :init, :value {k v ...}} operation gives the rows at the start (trusted, as Elle trusts
// it; not a transaction), [:insert k v] and [:w k v] write a row, [:delete k] writes absence,
// [:r k nil] found no row, and [:rp pred {k v ...}] is a predicate read that returned those
// rows, pred one of :true, [:= v] and [:mod m r] (Elle's modulo, whose result has the divisor's
// sign: "value % m = r" for values that are not negative).
//   :ok = committed, :fail = aborted, :info = unknown; an invocation with no completion is
//   unknown as well. The session is the :process; an op without :process is a session of its
//   own, and an op without :f is a transaction, as in Elle. Ops of the :nemesis (in JSON
//   "nemesis") are not transactions: they are counted in dropped_events; a :process that is
//   neither an integer nor the nemesis is an input error. The invocation's and the completion's
//   :time become the transaction's start and end. The label is the completion's :index.
//   A read whose result is nil: in a committed transaction it reads the initial state (an empty
//   list in a list-append history); in an aborted or unknown one the result was never observed,
//   so the read is left out.
// One reader serves both syntaxes: in JSON mode ':' is a separator and "null" is nil.
// The list prefix-compatibility check lives in checkers/list_order.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/edn.h"
#include "formats/formats.h"
#include "formats/nemesis_faults.h"
#include "formats/reader_util.h"
#include "model/predicates.h"
#include "util/json.h"

namespace isoscope {
namespace {

using edn::NT;
using edn::Node;


enum class MK : uint8_t { Read, NilRead, Write, Append, ListRead, Delete, Select };
struct MicroOp {
  MK kind;
  uint32_t key, value;  // Select: value is the predicate
  uint32_t list_begin = 0, list_size = 0;  // ListRead: in list_values_; Select: in rows_
};
struct PendingTxn {
  int64_t process = 0;
  // No :process: a session of its own. A flag, not a reserved process id, so no :process value
  // can ever merge with it.
  bool anonymous = false;
  TxnStatus status = TxnStatus::Unknown;
  bool completed = false;
  Time start, end;  // where has_start / has_end
  bool has_start = false, has_end = false;
  int64_t index = 0;
  bool has_index = false;  // a flag: every int64 is an :index a history may hold
  uint32_t op_begin = 0, op_end = 0;
  uint32_t unobserved = 0;  // nil reads left out of [op_begin, op_end): results never observed
  uint32_t line_offset = 0;
};

class Converter {
 public:
  Converter(const InputFile& f, OpLocator* locator) : b(locator), f_(f), json_(edn::looks_like_json(f.bytes.substr(fmt::bom_length(f.bytes)))) {
    b.locate_with([this] { return static_cast<int64_t>(txn_offset_); });  // a transaction's form
    null_ = b.values().intern_null();
    b.set_initial(null_);
  }
  HistoryBuilder b;
  uint32_t txn_offset_ = 0;  // where the transaction being built was completed

  bool fail(const Node& n, std::string what) {
    *err_ = fmt::text_error(f_, n.offset, std::move(what));
    return false;
  }

  // The value of a key of map. A key the reader uses may appear only once (the one rule of
  // every JSON and EDN reader: neither the first nor the last silently wins); a second one is
  // kept in dup_ for the caller to report.
  const Node* field(const Node& map, std::string_view name) {
    const Node* found = nullptr;
    for (uint32_t c = map.first; c != kNone;) {
      const Node& k = nodes()[c];
      uint32_t v = k.next;
      if ((k.type == NT::Keyword || k.type == NT::Str || k.type == NT::Symbol) && k.text == name) {
        if (!found) found = &nodes()[v];
        else if (!dup_second_) dup_first_ = found, dup_second_ = &k, dup_name_ = name;
      }
      c = nodes()[v].next;
    }
    return found;
  }
  bool duplicate_key() {
    if (!dup_second_) return false;
    // dup_first_ is the first value; its key precedes it.
    fail(*dup_second_, "the key " + std::string(dup_name_) + " appears twice in this map (first at line " +
                           line_of(dup_first_->offset) + "): expected each key once");
    return true;  // reported
  }
  const Node* dup_first_ = nullptr;
  const Node* dup_second_ = nullptr;
  std::string_view dup_name_;
  static bool is_name(const Node* n, std::string_view name) {
    return n && (n->type == NT::Keyword || n->type == NT::Str || n->type == NT::Symbol) && n->text == name;
  }

  bool scalar(const Node& n, Interner& in, uint32_t& out, const char* what) {
    return edn::intern_scalar(n, in, out) || fail(n, std::string("expected ") + what + " (an integer, a string or a keyword)");
  }

  // Converts an op's :value into micro-ops appended to ops_. status: of the op carrying them.
  bool micro_ops(const Node& value, bool observed) {
    if (value.type == NT::Nil) return true;
    if (value.type != NT::Vector && value.type != NT::List)
      return fail(value, "expected :value to be a vector of micro-ops such as [:append k v] or [:r k v]");
    for (uint32_t c = value.first; c != kNone; c = nodes()[c].next) {
      const Node& m = nodes()[c];
      if ((m.type != NT::Vector && m.type != NT::List) || m.count < 2 || m.count > 3)
        return fail(m, "expected a micro-op [f k v] with f one of :append, :r, :w, :insert, :rp, or [:delete k]");
      const Node& fn = nodes()[m.first];
      const Node& kn = nodes()[fn.next];
      if (is_name(&fn, "delete")) {
        if (m.count != 2) return fail(m, "expected [:delete k]: a delete names its key only");
        MicroOp op{MK::Delete, 0, null_};
        if (!scalar(kn, b.keys(), op.key, "a key")) return false;
        table_ = true;
        ops_.push_back(op);
        continue;
      }
      if (m.count != 3) return fail(m, "expected a micro-op [f k v] of three elements");
      const Node& vn = nodes()[kn.next];
      if (is_name(&fn, "rp")) {
        table_ = true;
        if (vn.type == NT::Nil) {
          if (!observed) {  // an unobserved result: not a read
            ++unobserved_;
            continue;
          }
          return fail(vn, "expected the rows the predicate read returned (a map {k v ...}), found nil");
        }
        MicroOp op{MK::Select, 0, 0};
        if (!predicate(kn, op.value) || !predicate_rows(vn, op)) return false;
        ops_.push_back(op);
        continue;
      }
      MicroOp op{};
      if (!scalar(kn, b.keys(), op.key, "a key")) return false;
      if (is_name(&fn, "insert")) table_ = true;
      if (is_name(&fn, "append") || is_name(&fn, "w") || is_name(&fn, "insert")) {
        op.kind = is_name(&fn, "append") ? MK::Append : MK::Write;
        if (op.kind == MK::Append) has_lists_ = true;
        if (vn.type == NT::Nil) return fail(vn, "expected the value to write, found nil");
        if (!scalar(vn, b.values(), op.value, "a value")) return false;
      } else if (is_name(&fn, "r")) {
        if (vn.type == NT::Nil) {
          if (!observed) {  // an unobserved result: not a read
            ++unobserved_;
            continue;
          }
          op.kind = MK::NilRead;
          op.value = null_;
        } else if (vn.type == NT::Vector || vn.type == NT::List) {
          has_lists_ = true;
          op.kind = MK::ListRead;
          op.list_begin = static_cast<uint32_t>(list_values_.size());
          for (uint32_t e = vn.first; e != kNone; e = nodes()[e].next) {
            uint32_t v;
            if (!scalar(nodes()[e], b.values(), v, "a list element")) return false;
            list_values_.push_back(v);
          }
          op.list_size = static_cast<uint32_t>(list_values_.size() - op.list_begin);
        } else {
          op.kind = MK::Read;
          if (!scalar(vn, b.values(), op.value, "a value")) return false;
        }
      } else {
        return fail(fn, "expected the micro-op function :append, :r, :w, :insert, :delete or :rp");
      }
      if (op.kind == MK::Write || op.kind == MK::Read) note_value(vn);
      ops_.push_back(op);
    }
    return true;
  }

  // Elle's predicates: :true, [:= v], [:mod m r], as the predicate language writes them.
  bool predicate(const Node& n, uint32_t& out) {
    std::string text;
    if (is_name(&n, "true")) {
      text = "true";
    } else if ((n.type == NT::Vector || n.type == NT::List) && n.count >= 2) {
      const Node& f = nodes()[n.first];
      const Node& a = nodes()[f.next];
      if (is_name(&f, "=") && n.count == 2) {
        if (a.type == NT::Int) {
          text = "value = " + std::to_string(a.i);
        } else if (a.type == NT::Str || a.type == NT::Keyword || a.type == NT::Symbol) {
          const std::string s = a.type == NT::Str && a.escaped ? edn::unescape_string(a.text) : std::string(a.text);
          const char q = s.find('\'') == std::string::npos ? '\'' : '"';
          if (s.find(q) != std::string::npos)
            return fail(a, "expected a value to compare with that holds at most one kind of quote");
          text = "value = " + std::string(1, q) + s + q;
        } else {
          return fail(a, "expected the value of [:= v] to be an integer, a string or a keyword, found " + edn::describe(a));
        }
      } else if (is_name(&f, "mod") && n.count == 3) {
        const Node& r = nodes()[a.next];
        if (a.type != NT::Int || r.type != NT::Int || a.i <= 0 || r.i < 0 || r.i >= a.i)
          return fail(n, "expected [:mod m r] with integers m > 0 and 0 <= r < m");
        text = "value % " + std::to_string(a.i) + " = " + std::to_string(r.i);
        if (r.i != 0 && signed_mod_ == kNone) signed_mod_ = n.offset;
      } else {
        return fail(n, "expected a predicate :true, [:= v] or [:mod m r]");
      }
    } else {
      return fail(n, "expected a predicate :true, [:= v] or [:mod m r], found " + edn::describe(n));
    }
    ParsedPredicate p = parse_predicate(text);
    if (!p.error.empty()) return fail(n, p.error.substr(9));
    out = b.add_predicate(std::move(p.predicate));
    return true;
  }
  // The rows of a predicate read, {k v ...}: each key once, each row matching the predicate.
  bool predicate_rows(const Node& map, MicroOp& op) {
    if (map.type != NT::Map) return fail(map, "expected the rows the predicate read returned: a map {k v ...}, found " + edn::describe(map));
    op.list_begin = static_cast<uint32_t>(rows_.size());
    const Predicate& p = b.predicates()[op.value];
    const bool ok = each_row(map, [&](const Node& kn, const Node& vn, uint32_t k, uint32_t v) {
      for (uint32_t r = op.list_begin; r < rows_.size(); ++r)
        if (rows_[r].first == k) return fail(kn, "expected each key once in the rows a predicate read returned, found " + b.keys().display(k) + " twice");
      if (!predicate_matches(p, b.keys(), k, b.values(), v))
        return fail(vn, "expected rows that match the predicate " + p.text + "; the row (" + b.keys().display(k) + ", " + b.values().display(v) + ") does not");
      rows_.push_back({k, v});
      return true;
    });
    op.list_size = static_cast<uint32_t>(rows_.size() - op.list_begin);
    return ok;
  }
  // Calls row(key node, value node, key, value) for each entry of a map {k v ...} (keys and
  // values interned); false as soon as one fails.
  template <class Row>
  bool each_row(const Node& map, Row&& row) {
    for (uint32_t c = map.first; c != kNone;) {
      const Node& kn = nodes()[c];
      const Node& vn = nodes()[kn.next];
      c = vn.next;
      uint32_t k, v;
      if (!scalar(kn, b.keys(), k, "a key") || !scalar(vn, b.values(), v, "a row's value")) return false;
      note_value(vn);
      if (!row(kn, vn, k, v)) return false;
    }
    return true;
  }
  // Elle's modulo and the predicate language's agree on values that are not negative.
  void note_value(const Node& v) {
    if (v.type == NT::Int && v.i < 0 && negative_ == kNone) negative_ = v.offset;
  }
  // {:f :init, :value {k v ...}}: the rows at the start.
  bool init(const Node& m, const Node* type, const Node* value) {
    table_ = true;
    if (is_name(type, "invoke")) return true;  // its completion says what the rows are
    if (!is_name(type, "ok")) return fail(*type, "expected the :init operation to complete :ok: its rows are the state every transaction starts from");
    if (!value || value->type != NT::Map) return fail(value ? *value : m, "expected the rows at the start: a map {k v ...} as the :init operation's :value");
    if (saw_init_) return fail(m, "expected one :init operation (the rows at the start), found a second");
    saw_init_ = true;
    return each_row(*value, [&](const Node& kn, const Node&, uint32_t k, uint32_t v) {
      if (!init_keys_.insert(k).second)
        return fail(kn, "expected each key once in the :init operation's rows, found " + b.keys().display(k) + " twice");
      b.set_initial_row(k, v);
      return true;
    });
  }

  // A nemesis record, for the faults (nemesis_faults.h): its :f and :time when both are there and
  // well formed (it is no transaction: nothing else of it is read).
  void nemesis_record(const Node* f, const Node* time) {
    Time t;
    if (f && time && (f->type == NT::Keyword || f->type == NT::Str || f->type == NT::Symbol) &&
        (time->type == NT::Int || time->type == NT::Float) && parse_time(time->text, t) == TimeParse::Ok)
      nemesis_.record(f->text, true, t);
  }

  // :time, exactly as written (model/time.h): never through a double.
  bool time_of(const Node* n, Time& out, bool& has) {
    if (!n) return true;
    if (n->type != NT::Int && n->type != NT::Float) return fail(*n, "expected :time to be a number");
    if (TimeParse p = parse_time(n->text, out); p != TimeParse::Ok)
      return fail(*n, "expected :time to be a finite number within 64 bits, found " + std::string(n->text.substr(0, 40)) +
                          (n->text.size() > 40 ? "..." : "") + ", which " + time_parse_problem(p));
    has = true;
    return true;
  }

  // Handles one top-level form (an op map).
  bool op(const std::vector<Node>& form, uint32_t root, InputError& err) {
    nodes_ = &form;
    err_ = &err;
    const Node& m = nodes()[root];
    if (m.type != NT::Map) return fail(m, "expected an operation map {:type .., :f .., :value .., :process ..}");
    const Node* type = field(m, "type");
    const Node* process = field(m, "process");
    const Node* f = field(m, "f");
    const Node* value = field(m, "value");
    if (duplicate_key()) return false;
    if (!type) return fail(m, "the operation lacks :type");
    if (process && process->type != NT::Int) {
      // The nemesis: not a client transaction; counted, never silently dropped. Any other
      // :process names neither (history-format.md): an error, never taken for the nemesis.
      if (!edn::is_nemesis(*process, json_)) return fail(*process, edn::process_problem(*process, json_));
      ++dropped_not_client_;
      nemesis_record(f, field(m, "time"));
      return true;
    }
    // Like Elle, an operation without :f is a transaction (its :value lists the micro-ops).
    if (f && is_name(f, "init")) return init(m, type, value);
    if (f && !is_name(f, "txn"))
      return fail(*f, "expected :f :txn, or :init in a closed-predicate history (only transactional histories are supported)");
    // Without :process, an operation is a session of its own (no session order to follow, no
    // invocation to pair with).
    const bool anonymous = !process;
    const int64_t proc = anonymous ? 0 : process->i;
    Time time;
    bool has_time = false;
    if (!time_of(field(m, "time"), time, has_time)) return false;
    const Node* index = field(m, "index");
    if (duplicate_key()) return false;
    // :index is Jepsen's number of the record (the label reports show): an integer, any one.
    if (index && index->type != NT::Int) return fail(*index, "expected :index to be an integer, found " + edn::describe(*index));
    const bool invoke = is_name(type, "invoke");
    TxnStatus status;
    if (invoke)
      status = TxnStatus::Unknown;
    else if (is_name(type, "ok"))
      status = TxnStatus::Committed;
    else if (is_name(type, "fail"))
      status = TxnStatus::Aborted;
    else if (is_name(type, "info"))
      status = TxnStatus::Unknown;
    else
      return fail(*type, "expected :type to be :invoke, :ok, :fail or :info");

    auto pending = anonymous ? pending_.end() : pending_.find(proc);
    if (invoke) {
      if (pending != pending_.end())
        return fail(m, "process " + std::to_string(proc) +
                           " invokes a transaction while its previous invocation (line " +
                           line_of(txns_[pending->second].line_offset) + ") has not completed");
      PendingTxn t;
      t.process = proc;
      t.anonymous = anonymous;
      t.start = time;
      t.has_start = has_time;
      t.line_offset = m.offset;
      if (index) t.index = index->i, t.has_index = true;
      t.op_begin = static_cast<uint32_t>(ops_.size());
      unobserved_ = 0;
      if (!value || !micro_ops(*value, false)) return value ? false : fail(m, "the operation lacks :value");
      t.op_end = static_cast<uint32_t>(ops_.size());
      t.unobserved = unobserved_;
      if (!anonymous) pending_[proc] = static_cast<uint32_t>(txns_.size());
      txns_.push_back(t);
      return true;
    }
    // A completion: pairs with the process's pending invocation, if any.
    uint32_t ti;
    if (pending != pending_.end()) {
      ti = pending->second;
      pending_.erase(pending);
    } else {
      ti = static_cast<uint32_t>(txns_.size());
      PendingTxn t;
      t.process = proc;
      t.anonymous = anonymous;
      t.line_offset = m.offset;
      txns_.push_back(t);
    }
    PendingTxn& t = txns_[ti];
    t.completed = true;
    t.status = status;
    t.end = time;
    t.has_end = has_time;
    // One rule for every format (docs/formats.md, Times): a transaction cannot end before it
    // starts.
    if (t.has_start && t.has_end)
      if (std::string why = interval_problem(t.start, t.end); !why.empty())
        return fail(*field(m, "time"), "expected the completion's :time to be no earlier than the invocation's (line " +
                                           line_of(t.line_offset) + "): " + why);
    if (index) t.index = index->i, t.has_index = true;
    if (value && value->type != NT::Nil) {  // the completion's value replaces the invocation's
      uint32_t b0 = static_cast<uint32_t>(ops_.size());
      unobserved_ = 0;
      if (!micro_ops(*value, status == TxnStatus::Committed)) return false;
      txns_[ti].op_begin = b0;
      txns_[ti].op_end = static_cast<uint32_t>(ops_.size());
      txns_[ti].unobserved = unobserved_;
    } else if (!value && !invoke) {
      return fail(m, "the operation lacks :value");
    }
    return true;
  }

  Expected<History> finish() {
    if (txns_.empty())
      return fmt::text_error(f_, f_.bytes.size(), "expected at least one :f :txn operation of a client process; found none");
    // Sessions: processes in ascending order, then each operation without :process in file
    // order; transactions in invocation order.
    std::vector<uint32_t> order(txns_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) {
      const PendingTxn &x = txns_[a], &y = txns_[c];
      return x.anonymous != y.anonymous ? y.anonymous : !x.anonymous && x.process < y.process;
    });
    if (table_ && has_lists_) return fmt::text_error(f_, 0, "expected a history of rows (:init, :insert, :delete, :rp) or of lists (:append), found both");
    if (signed_mod_ != kNone && negative_ != kNone)
      return fmt::text_error(f_, negative_,
                             "expected values that are not negative where a predicate [:mod m r] has r > 0 (line " + line_of(signed_mod_) +
                                 "): Elle's modulo of a negative value has the divisor's sign, which no predicate isoscope reads says");
    if (table_) b.set_table();
    b.reserve(txns_.size(), ops_.size());
    const PendingTxn* prev = nullptr;
    for (uint32_t ti : order) {
      const PendingTxn& t = txns_[ti];
      txn_offset_ = t.line_offset;
      if (!prev || t.anonymous || prev->anonymous || t.process != prev->process) b.begin_session();
      prev = &t;
      b.begin_txn();
      b.set_status(t.status);
      if (t.has_index) b.set_label(std::to_string(t.index));
      if (t.has_start && t.has_end) b.set_time(t.start, t.end);
      for (uint32_t i = t.op_begin; i < t.op_end; ++i) {
        const MicroOp& o = ops_[i];
        switch (o.kind) {
          case MK::Read: b.read(o.key, o.value); break;
          case MK::NilRead:
            if (has_lists_)
              b.list_read(o.key, {});
            else
              b.read(o.key, o.value);
            break;
          case MK::Write:
          case MK::Delete: b.write(o.key, o.value); break;
          case MK::Select:
            b.predicate_read(o.value, std::span<const std::pair<uint32_t, uint32_t>>(rows_.data() + o.list_begin, o.list_size));
            break;
          case MK::Append: b.append(o.key, o.value); break;
          case MK::ListRead:
            b.list_read(o.key, std::span<const uint32_t>(list_values_.data() + o.list_begin, o.list_size));
            break;
        }
      }
      b.end_txn();
    }
    b.add_dropped(History::kNotClients, dropped_not_client_);
    size_t unobserved = 0;
    for (const PendingTxn& t : txns_) unobserved += t.unobserved;
    b.add_dropped("reads whose result was never observed (nil in a transaction that failed or may not have run)", unobserved);
    Expected<History> h = b.finish("elle", f_.name);
    if (h.ok()) h->faults = nemesis_.finish();
    return h;
  }

 private:
  std::string line_of(uint32_t offset) {
    InputError e;
    e.offset = offset;
    locate_line(f_.bytes, e);
    return std::to_string(e.line);
  }

  const std::vector<Node>& nodes() const { return *nodes_; }

  const InputFile& f_;
  const bool json_;  // the JSON form: the nemesis is "nemesis"
  const std::vector<Node>* nodes_ = nullptr;  // the form op() is converting
  InputError* err_ = nullptr;
  uint32_t null_;
  bool has_lists_ = false;
  std::vector<MicroOp> ops_;
  std::vector<uint32_t> list_values_;
  std::vector<std::pair<uint32_t, uint32_t>> rows_;  // the rows predicate reads returned
  bool table_ = false;       // a closed-predicate history: rows that come and go
  bool saw_init_ = false;
  std::unordered_set<uint32_t> init_keys_;  // the keys of the :init operation's rows
  uint32_t signed_mod_ = kNone;  // where a [:mod m r] with r > 0 is
  uint32_t negative_ = kNone;    // where a negative integer value is
  std::vector<PendingTxn> txns_;
  std::unordered_map<int64_t, uint32_t> pending_;  // process -> its invoked, uncompleted txn
  size_t dropped_not_client_ = 0;  // operations of non-client processes (:nemesis)
  NemesisFaults nemesis_;           // their records, as faults
  uint32_t unobserved_ = 0;  // nil reads micro_ops left out of the ops it just read
};


}  // namespace

bool detect_elle(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  std::string_view head = s.substr(0, 4096);
  // :process and :f are optional (Elle reads histories without them); :type and :value are not.
  if (edn::looks_like_json(s))
    return head.find("\"type\"") != std::string_view::npos && head.find("\"value\"") != std::string_view::npos;
  size_t i = 0;
  while (i < s.size()) {  // white space, commas and ; comment lines
    if (fmt::is_space(s[i]) || s[i] == ',') {
      ++i;
    } else if (s[i] == ';') {
      while (i < s.size() && !fmt::is_newline(s[i])) ++i;
    } else {
      break;
    }
  }
  if (i >= s.size() || (s[i] != '{' && s[i] != '[' && s[i] != '(' && s[i] != '#')) return false;
  head = s.substr(i, 4096);
  return head.find(":type") != std::string_view::npos && head.find(":value") != std::string_view::npos;
}


Expected<History> read_elle(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "elle");
  const InputFile& f = *fp;
  Converter conv(f, locator);
  if (std::optional<InputError> err = edn::for_each_form(
          f, [&](const std::vector<Node>& nodes, uint32_t root, InputError& e) { return conv.op(nodes, root, e); }))
    return std::move(*err);
  return conv.finish();
}

}  // namespace isoscope
