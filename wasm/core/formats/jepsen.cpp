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
#include "formats/jepsen_events.h"
#include "formats/reader_util.h"

namespace isoscope {

namespace {

using edn::Node;
using edn::NT;

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
  MapReader(const InputFile& f, OpLocator* locator)
      : f_(f), c_(f, locator), json_(edn::looks_like_json(f.bytes.substr(fmt::bom_length(f.bytes)))) {}
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
      if (f && time && time->type == NT::Int && (f->type == NT::Keyword || f->type == NT::Str || f->type == NT::Symbol))
        c_.nemesis(f->text, true, Time::integer(time->i));
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
    return edn::intern_scalar(n, in, out) || fail(n, std::string("expected ") + what + " (an integer, a string or a keyword)");
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

Expected<History> read_jepsen(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "jepsen");
  MapReader reader(*fp, locator);
  if (std::optional<InputError> err = edn::for_each_form(
          *fp, [&](const std::vector<Node>& nodes, uint32_t root, InputError& e) { return reader.form(nodes, root, e); }))
    return std::move(*err);
  if (reader.forms == 0)
    return fmt::text_error(*fp, fp->bytes.size(), "expected at least one operation map {:type .., :f .., :process ..}; found none");
  return reader.collector().finish("jepsen");
}

}  // namespace isoscope
