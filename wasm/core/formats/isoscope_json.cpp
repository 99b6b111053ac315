// The canonical format ("isoscope/1"), read with simdjson On-Demand (error codes only: the wasm
// build has no exceptions), and its writer.
#include <cstring>

#include "formats/formats.h"
#include "formats/json_input.h"
#include "formats/reader_util.h"
#include "util/json.h"
#include "simdjson.h"

namespace isoscope {

namespace od = simdjson::ondemand;

namespace {

class JsonHistoryReader {
 public:
  JsonHistoryReader(const InputFile& file, OpLocator* locator) : file_(file), builder_(locator) {}

  Expected<History> read() {
    // simdjson needs SIMDJSON_PADDING readable bytes past the end.
    JsonInput json(file_);
    base_ = json.data();
    builder_.reserve(file_.bytes.size() / 80, file_.bytes.size() / 18);  // typical density
    od::parser parser;
    od::document doc;
    if (auto err = parser.iterate(json.view()).get(doc)) return fail_at(0, err, "a JSON document");
    builder_.locate_with([this, &doc] {
      const char* loc = nullptr;
      return !doc.current_location().get(loc) && loc ? static_cast<int64_t>(loc - base_) : int64_t{-1};
    });
    od::object root;
    if (auto err = doc.get_object().get(root))
      return fail_doc(doc, err, "a JSON object {\"sessions\": [...]} at the top level");
    bool saw_sessions = false;
    // "initial" is optional and defaults to null (docs/formats.md): a read of null with no
    // writer reads the initial state.
    builder_.set_initial(builder_.values().intern_null());
    MemberSet members;
    for (auto field_result : root) {
      std::string_view name;
      if (auto err = field_result.unescaped_key(false).get(name)) return fail_doc(doc, err, "a member name");
      if (name == "sessions" || name == "initial" || name == "format" || name == "rows")
        if (!member_once(doc, members, name)) return error_;
      od::value v;
      if (auto err = field_result.value().get(v)) return fail_doc(doc, err, "a member value");
      if (name == "sessions") {
        saw_sessions = true;
        if (!read_sessions(doc, v)) return error_;
      } else if (name == "initial") {
        uint32_t id;
        if (!read_scalar(doc, v, builder_.values(), id, "the initial value (integer, string or null)"))
          return error_;
        builder_.set_initial(id);
      } else if (name == "format") {
        std::string_view f;
        if (auto err = v.get_string().get(f)) return fail_doc(doc, err, "\"format\": \"isoscope/1\"");
        if (f.substr(0, 9) != "isoscope/")
          return fail_doc(doc, simdjson::INCORRECT_TYPE,
                          "\"format\" to be \"isoscope/1\", found \"" + std::string(f) + "\"");
      } else if (name == "origin") {
        if (!read_origin(doc, v)) return error_;
      } else if (name == "rows") {
        builder_.set_table();
        if (!read_rows(doc, v, /*initial=*/true)) return error_;
      } else if (name == "faults") {
        if (!read_faults(doc, v)) return error_;
      }  // other members are ignored (On-Demand skips what is not read)
    }
    if (!doc.at_end()) return fail_doc(doc, simdjson::TRAILING_CONTENT, "the end of the document");
    if (!saw_sessions) return fail_at(0, simdjson::SUCCESS, "a \"sessions\" member holding an array of sessions");
    Expected<History> h = builder_.finish("isoscope", file_.name);
    if (h.ok() && saw_origin_) {
      if (origin_.size() != h->num_txns())
        return fail_at(0, simdjson::SUCCESS, "\"origin\" to list one entry per transaction (" + std::to_string(h->num_txns()) +
                                                 "), found " + std::to_string(origin_.size()));
      h->origin.reserve(origin_.size() + 1);
      h->origin.push_back({});
      h->origin.insert(h->origin.end(), origin_.begin(), origin_.end());
      h->origin_txns = origin_txns_;
    }
    if (h.ok()) h->faults = std::move(faults_);
    return h;
  }

 private:
  // "origin": {"transactions": N, "txns": [[number, session, position], ...]}: a counterexample's
  // transactions' identities in the history it was cut from (History::origin).
  bool read_origin(od::document& doc, od::value& v) {
    const char* what = "\"origin\": {\"transactions\": n, \"txns\": [[number, session, position], ...]}";
    od::object obj;
    if (auto err = v.get_object().get(obj)) return fail_doc(doc, err, what), false;
    for (auto field_result : obj) {
      std::string_view name;
      if (auto err = field_result.unescaped_key(false).get(name)) return fail_doc(doc, err, what), false;
      od::value f;
      if (auto err = field_result.value().get(f)) return fail_doc(doc, err, what), false;
      if (name == "transactions") {
        uint64_t n;
        if (auto err = f.get_uint64().get(n)) return fail_doc(doc, err, what), false;
        origin_txns_ = n;
      } else if (name == "txns") {
        od::array txns;
        if (auto err = f.get_array().get(txns)) return fail_doc(doc, err, what), false;
        for (auto entry_result : txns) {
          od::array entry;
          if (auto err = entry_result.get_array().get(entry)) return fail_doc(doc, err, what), false;
          uint64_t parts[3];
          size_t k = 0;
          for (auto part : entry) {
            uint64_t x;
            if (k == 3) return fail_doc(doc, simdjson::INCORRECT_TYPE, what), false;
            if (auto err = part.get_uint64().get(x)) return fail_doc(doc, err, what), false;
            if (x > 0xfffffffeu) return fail_doc(doc, simdjson::NUMBER_OUT_OF_RANGE, what), false;
            parts[k++] = x;
          }
          if (k != 3) return fail_doc(doc, simdjson::INCORRECT_TYPE, what), false;
          origin_.push_back({static_cast<uint32_t>(parts[0]), static_cast<uint32_t>(parts[1]), static_cast<uint32_t>(parts[2])});
        }
      }
    }
    saw_origin_ = true;
    return true;
  }

  // "faults": [{"kind": "crash", "node": "n1", "start": 10, "end": 25, "note": "..."}, ...]: what
  // a nemesis did while the history was recorded, on the transactions' clock; "node" and "note"
  // are optional, and start <= end.
  bool read_faults(od::document& doc, od::value& v) {
    const char* what = "\"faults\": [{\"kind\": \"crash\", \"node\": \"n1\", \"start\": 10, \"end\": 25}, ...]";
    od::array faults;
    if (auto err = v.get_array().get(faults)) return fail_doc(doc, err, what), false;
    for (auto fault_result : faults) {
      od::object obj;
      if (auto err = fault_result.get_object().get(obj)) return fail_doc(doc, err, std::string("a fault object in ") + what), false;
      FaultSpan f;
      bool has[3] = {};  // kind, start, end
      const char* at[2] = {nullptr, nullptr};
      for (auto field_result : obj) {
        std::string_view name;
        if (auto err = field_result.unescaped_key(false).get(name)) return fail_doc(doc, err, what), false;
        od::value fv;
        if (auto err = field_result.value().get(fv)) return fail_doc(doc, err, what), false;
        if (name == "kind" || name == "node" || name == "note") {
          std::string_view text;
          if (auto err = fv.get_string().get(text))
            return fail_doc(doc, err, "a string for the fault's \"" + std::string(name) + "\""), false;
          (name == "kind" ? f.kind : name == "node" ? f.node : f.note) = text;
          if (name == "kind") has[0] = true;
        } else if (name == "start" || name == "end") {
          const bool end = name == "end";
          if (!read_time(doc, fv, name, end ? f.end : f.start, at[end])) return false;
          has[1 + end] = true;
        }
      }
      if (!has[0] || f.kind.empty()) return fail_doc(doc, simdjson::INCORRECT_TYPE, "a fault with a \"kind\" (\"pause\", \"crash\", ...)"), false;
      if (!has[1] || !has[2]) return fail_doc(doc, simdjson::INCORRECT_TYPE, "a fault with a \"start\" and an \"end\""), false;
      if (f.end < f.start)
        return fail_at(at[1] - base_, simdjson::SUCCESS, "the fault's \"end\" to be no earlier than its \"start\""), false;
      faults_.push_back(std::move(f));
    }
    return true;
  }

  // Rows, [[key, value], ...]: the table at the start ("rows"), or what a predicate read returned
  // (into rows_). A key at most once; a row's value is not null (null is absence).
  bool read_rows(od::document& doc, od::value& v, bool initial) {
    const char* what = initial ? "\"rows\": [[key, value], ...], the table's rows at the start"
                               : "the rows the select returned: [[key, value], ...]";
    od::array rows;
    if (auto err = v.get_array().get(rows)) return fail_doc(doc, err, what), false;
    rows_.clear();
    for (auto row_result : rows) {
      od::array row;
      if (auto err = row_result.get_array().get(row)) return fail_doc(doc, err, std::string("a row [key, value] in ") + what), false;
      uint32_t parts[2];
      size_t n = 0;
      for (auto part_result : row) {
        od::value part;
        if (auto err = part_result.get(part)) return fail_doc(doc, err, "a row [key, value]"), false;
        if (n == 2) return fail_doc(doc, simdjson::INCORRECT_TYPE, "']' after a row's value: a row is [key, value]"), false;
        if (n == 0 ? !read_key(doc, part, parts[0])
                   : !read_scalar(doc, part, builder_.values(), parts[1], "a row's value (integer or string)", /*allow_null=*/false))
          return false;
        ++n;
      }
      if (n != 2) return fail_doc(doc, simdjson::INCORRECT_TYPE, "a row [key, value] of two elements"), false;
      for (const auto& [k, _] : rows_)
        if (k == parts[0])
          return fail_doc(doc, simdjson::INCORRECT_TYPE,
                          "each key once in " + std::string(what) + ", found key " + builder_.keys().display(k) + " twice"),
                 false;
      rows_.push_back({parts[0], parts[1]});
    }
    if (initial)
      for (const auto& [k, value] : rows_) builder_.set_initial_row(k, value);
    return true;
  }

  // ["select", "predicate", [[key, value], ...]]: the name is read; parts is at the predicate.
  template <class It>
  bool read_select(od::document& doc, It& it, It& end) {
    if (it == end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "a predicate after \"select\" (docs/formats.md)"), false;
    od::value pv;
    std::string_view text;
    if (auto err = (*it).get(pv)) return fail_doc(doc, err, "a predicate"), false;
    if (auto err = pv.get_string().get(text)) return fail_doc(doc, err, "a predicate: a string such as \"value % 3 = 0\""), false;
    ParsedPredicate p = parse_predicate(text);
    if (!p.error.empty()) return fail_doc(doc, simdjson::SUCCESS, p.error.substr(9)), false;  // "expected " is added back
    const uint32_t pred = builder_.add_predicate(std::move(p.predicate));
    ++it;
    if (it == end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "the rows the select returned after its predicate"), false;
    od::value rv;
    if (auto err = (*it).get(rv)) return fail_doc(doc, err, "the rows the select returned"), false;
    if (!read_rows(doc, rv, /*initial=*/false)) return false;
    const Predicate& pr = builder_.predicates()[pred];
    for (const auto& [k, value] : rows_)
      if (!predicate_matches(pr, builder_.keys(), k, builder_.values(), value))
        return fail_doc(doc, simdjson::INCORRECT_TYPE,
                        "rows that match the predicate \"" + pr.text + "\"; the row (" + builder_.keys().display(k) + ", " +
                            builder_.values().display(value) + ") does not"),
               false;
    builder_.predicate_read(pred, rows_);
    ++it;
    if (it != end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "']' after the rows: a select has three elements"), false;
    return true;
  }

  bool read_sessions(od::document& doc, od::value& v) {
    od::array sessions;
    if (auto err = v.get_array().get(sessions)) return fail_doc(doc, err, "an array of sessions"), false;
    for (auto session_result : sessions) {
      od::value session;
      if (auto err = session_result.get(session)) return fail_doc(doc, err, "a session"), false;
      od::array txns;
      if (auto err = session.get_array().get(txns))
        return fail_doc(doc, err, "a session: an array of transactions"), false;
      builder_.begin_session();
      for (auto txn_result : txns) {
        od::value txn;
        if (auto err = txn_result.get(txn)) return fail_doc(doc, err, "a transaction"), false;
        if (!read_txn(doc, txn)) return false;
      }
    }
    return true;
  }

  bool read_txn(od::document& doc, od::value& txn) {
    od::json_type type;
    if (auto err = txn.type().get(type)) return fail_doc(doc, err, "a transaction"), false;
    builder_.begin_txn();
    if (type == od::json_type::array) {  // shorthand: a bare array of ops, committed
      od::array ops;
      if (auto err = txn.get_array().get(ops)) return fail_doc(doc, err, "an array of operations"), false;
      if (!read_ops(doc, ops)) return false;
      builder_.end_txn();
      return true;
    }
    od::object obj;
    if (auto err = txn.get_object().get(obj))
      return fail_doc(doc, err, "a transaction: an object {\"ops\": [...]} or an array of operations"), false;
    Time times[2];  // start, end
    const char* time_at[2] = {nullptr, nullptr};
    bool saw_ops = false;
    MemberSet members;
    for (auto field_result : obj) {
      std::string_view name;
      if (auto err = field_result.unescaped_key(false).get(name)) return fail_doc(doc, err, "a member name"), false;
      if (name == "ops" || name == "status" || name == "start" || name == "end" || name == "id")
        if (!member_once(doc, members, name)) return false;
      od::value v;
      if (auto err = field_result.value().get(v)) return fail_doc(doc, err, "a member value"), false;
      if (name == "ops") {
        saw_ops = true;
        od::array ops;
        if (auto err = v.get_array().get(ops)) return fail_doc(doc, err, "\"ops\": an array of operations"), false;
        if (!read_ops(doc, ops)) return false;
      } else if (name == "status") {
        std::string_view s;
        if (auto err = v.get_string().get(s))
          return fail_doc(doc, err, "\"status\": \"committed\", \"aborted\" or \"unknown\""), false;
        if (s == "committed") builder_.set_status(TxnStatus::Committed);
        else if (s == "aborted") builder_.set_status(TxnStatus::Aborted);
        else if (s == "unknown") builder_.set_status(TxnStatus::Unknown);
        else
          return fail_doc(doc, simdjson::INCORRECT_TYPE,
                          "\"status\" to be \"committed\", \"aborted\" or \"unknown\", found \"" +
                              std::string(s) + "\""), false;
      } else if (name == "start" || name == "end") {
        if (!read_time(doc, v, name, times[name == "end"], time_at[name == "end"])) return false;
      } else if (name == "id") {
        od::json_type idt;
        if (auto err = v.type().get(idt)) return fail_doc(doc, err, "\"id\": a string or a number"), false;
        if (idt == od::json_type::string) {
          std::string_view s;
          if (auto err = v.get_string().get(s)) return fail_doc(doc, err, "a string id"), false;
          builder_.set_label(s);
        } else if (idt == od::json_type::number) {
          std::string_view raw = v.raw_json_token();
          while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) raw.remove_suffix(1);
          builder_.set_label(raw);
        } else {
          return fail_doc(doc, simdjson::INCORRECT_TYPE, "\"id\": a string or a number"), false;
        }
      }  // other members are ignored
    }
    if (!saw_ops) return fail_doc(doc, simdjson::SUCCESS, "an \"ops\" member in the transaction object"), false;
    if (!time_at[0] != !time_at[1])
      return fail_doc(doc, simdjson::SUCCESS, "both \"start\" and \"end\" (a transaction has only one of them)"), false;
    if (time_at[0]) {
      if (std::string why = interval_problem(times[0], times[1]); !why.empty())
        return fail_at(time_at[0] - base_, simdjson::SUCCESS, "\"start\" <= \"end\": " + why), false;
      builder_.set_time(times[0], times[1]);
    }
    builder_.end_txn();
    return true;
  }

  bool read_ops(od::document& doc, od::array& ops) {
    for (auto op_result : ops) {
      od::value op;
      if (auto err = op_result.get(op)) return fail_doc(doc, err, "an operation"), false;
      od::array parts;
      if (auto err = op.get_array().get(parts))
        return fail_doc(doc, err, "an operation [\"r\"|\"w\"|\"append\", key, value]"), false;
      auto it = parts.begin();
      auto end = parts.end();
      if (it == end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "an operation name, found an empty array"), false;
      od::value kv;
      if (auto err = (*it).get(kv)) return fail_doc(doc, err, "an operation name"), false;
      // Compare the raw (still quoted) token: no unescaping on the hot path.
      od::raw_json_string raw;
      if (auto err = kv.get_raw_json_string().get(raw))
        return fail_doc(doc, err, "an operation name: \"r\", \"w\" or \"append\""), false;
      const char* k_ptr = raw.raw();
      OpKind k;
      bool row_delete = false;
      if (k_ptr[0] == 'r' && k_ptr[1] == '"') k = OpKind::Read;
      else if (k_ptr[0] == 'w' && k_ptr[1] == '"') k = OpKind::Write;
      else if (std::memcmp(k_ptr, "append\"", 7) == 0) k = OpKind::Append;
      // Rows (docs/formats.md): an insert or update writes the row's value, a delete writes
      // absence (null), a select is a predicate read.
      else if (std::memcmp(k_ptr, "insert\"", 7) == 0 || std::memcmp(k_ptr, "update\"", 7) == 0) k = OpKind::Write, builder_.set_table();
      else if (std::memcmp(k_ptr, "delete\"", 7) == 0) k = OpKind::Write, row_delete = true, builder_.set_table();
      else if (std::memcmp(k_ptr, "select\"", 7) == 0) {
        builder_.set_table();
        ++it;
        if (!read_select(doc, it, end)) return false;
        continue;
      } else {
        std::string_view shown(k_ptr, std::strcspn(k_ptr, "\"\n"));
        return fail_doc(doc, simdjson::INCORRECT_TYPE,
                        "an operation name \"r\", \"w\", \"append\", \"select\", \"insert\", \"update\" or \"delete\", found \"" +
                            std::string(shown.substr(0, 40)) + "\""), false;
      }
      ++it;
      if (it == end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "a key after the operation name"), false;
      od::value keyv;
      if (auto err = (*it).get(keyv)) return fail_doc(doc, err, "a key"), false;
      uint32_t key;
      if (!read_key(doc, keyv, key)) return false;
      ++it;
      if (row_delete) {
        builder_.write(key, builder_.values().intern_null());
        if (it != end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "']' after the key: a delete is [\"delete\", key]"), false;
        continue;
      }
      if (it == end) return fail_doc(doc, simdjson::INCORRECT_TYPE, "a value after the key"), false;
      od::value valv;
      if (auto err = (*it).get(valv)) return fail_doc(doc, err, "a value"), false;
      const std::string_view value_token = valv.raw_json_token();  // a peek: no type dispatch
      if (!value_token.empty() && value_token[0] == '[') {
        if (k != OpKind::Read)
          return fail_doc(doc, simdjson::INCORRECT_TYPE, "a single value (lists are only read, with \"r\")"), false;
        od::array list;
        if (auto err = valv.get_array().get(list)) return fail_doc(doc, err, "a list of values"), false;
        list_.clear();
        for (auto elem_result : list) {
          od::value elem;
          if (auto err = elem_result.get(elem)) return fail_doc(doc, err, "a list element"), false;
          uint32_t id;
          if (!read_scalar(doc, elem, builder_.values(), id, "a list element (integer, string or null)")) return false;
          list_.push_back(id);
        }
        builder_.list_read(key, list_);
      } else {
        uint32_t value;
        if (!read_scalar(doc, valv, builder_.values(), value, "a value (integer, string or null)")) return false;
        if (k == OpKind::Read) builder_.read(key, value);
        else if (k == OpKind::Write) builder_.write(key, value);
        else builder_.append(key, value);
      }
      ++it;
      if (it != end)
        return fail_doc(doc, simdjson::INCORRECT_TYPE, "']' after the value: an operation has exactly three elements"), false;
    }
    return true;
  }

  // "start" / "end": a JSON number, read exactly from its text (model/time.h), never through a
  // double (epoch nanoseconds exceed 2^53).
  bool read_time(od::document& doc, od::value& v, std::string_view name, Time& out, const char*& at) {
    const std::string what = "a number for \"" + std::string(name) + "\"";
    od::json_type type;
    if (auto err = v.type().get(type)) return fail_doc(doc, err, what), false;
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() && fmt::is_space(raw.back())) raw.remove_suffix(1);
    at = raw.data();
    if (type != od::json_type::number) return fail_at(at - base_, simdjson::INCORRECT_TYPE, what), false;
    if (TimeParse p = parse_time(raw, out); p != TimeParse::Ok)
      return fail_at(at - base_, simdjson::SUCCESS,
                     what + ", found " + std::string(raw.substr(0, 40)) + (raw.size() > 40 ? "..." : "") +
                         ", which " + time_parse_problem(p)),
             false;
    // parse_time reads EDN's forms too ("+1", "1N"): JSON's grammar is simdjson's to check.
    double ignored;
    if (auto err = v.get_double().get(ignored)) return fail_at(at - base_, err, what), false;
    return true;
  }

  bool read_key(od::document& doc, od::value& v, uint32_t& out) {
    return read_scalar(doc, v, builder_.keys(), out, "a key (string or integer)", /*allow_null=*/false);
  }

  bool read_scalar(od::document& doc, od::value& v, Interner& in, uint32_t& out, const char* what,
                   bool allow_null = true) {
    // The common case, a plain integer, straight from the token's bytes: simdjson's number
    // parser also handles floats and big numbers, which cost it a type dispatch per value.
    // Anything else ("12.5", "1e3", a string, null, an overflow) takes the careful path.
    {
      const std::string_view raw = v.raw_json_token();
      const char* p = raw.data();
      const char* e = p + raw.size();
      const char* digits = p + (p < e && *p == '-');
      const bool leading_zero = e - digits > 1 && digits[0] == '0';  // "01" is not JSON
      int64_t i;
      if (!leading_zero && fmt::parse_i64(p, e, i) && (p == e || fmt::is_space(*p))) {
        out = in.intern_int(i);
        return true;
      }
    }
    int64_t i;
    simdjson::error_code err = v.get_int64().get(i);
    if (!err) {
      out = in.intern_int(i);
      return true;
    }
    od::json_type t;
    if (auto terr = v.type().get(t)) return fail_doc(doc, terr, what), false;
    switch (t) {
      case od::json_type::number:
        // a fraction, or an integer outside -9223372036854775808 .. 9223372036854775807
        return fail_doc(doc, err, std::string(what) + ", found a number that is not an integer of 64 bits"), false;
      case od::json_type::string: {
        std::string_view s;
        if (auto serr = v.get_string().get(s)) return fail_doc(doc, serr, what), false;
        out = in.intern_str(s);
        return true;
      }
      case od::json_type::null:
        if (!allow_null) break;
        if (auto nerr = v.is_null().error()) return fail_doc(doc, nerr, what), false;
        out = in.intern_null();
        return true;
      default: break;
    }
    return fail_doc(doc, simdjson::INCORRECT_TYPE, what), false;
  }

  // False (error_ set) when name was met before in this object.
  bool member_once(od::document& doc, MemberSet& members, std::string_view name) {
    const char* loc = nullptr;
    const int64_t here = !doc.current_location().get(loc) && loc ? loc - base_ : 0;
    const int64_t first = members.earlier(name, here);
    if (first < 0) return true;
    fail_at(here, simdjson::SUCCESS, "");
    error_.message = MemberSet::message(file_.bytes, name, first);
    return false;
  }

  InputError fail_doc(od::document& doc, simdjson::error_code err, const std::string& expected) {
    const char* loc = nullptr;
    int64_t offset = -1;
    if (!doc.current_location().get(loc) && loc) offset = loc - base_;
    else offset = static_cast<int64_t>(file_.bytes.size());
    return fail_at(offset, err, expected);
  }

  InputError fail_at(int64_t offset, simdjson::error_code err, const std::string& expected) {
    error_.file = file_.name;
    // A document that stops early is reported where it stops.
    if (err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || err == simdjson::EMPTY ||
        err == simdjson::UNCLOSED_STRING)
      offset = static_cast<int64_t>(file_.bytes.size());
    error_.offset = std::min<int64_t>(offset, static_cast<int64_t>(file_.bytes.size()));
    error_.message = "expected " + expected;
    if (is_json_text_error(err))
      if (std::optional<JsonProblem> p = find_json_problem(file_.bytes)) {  // a place and words
        error_.offset = static_cast<int64_t>(p->offset);
        error_.message = p->message;
        locate_line(file_.bytes, error_);
        return error_;
      }
    if (err != simdjson::SUCCESS) {
      std::string detail = simdjson::error_message(err);
      if (err == simdjson::INCORRECT_TYPE || err == simdjson::TAPE_ERROR ||
          err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || err == simdjson::EMPTY)
        detail = err == simdjson::EMPTY ? "the input is empty"
                 : err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT ? "the document ends inside an array or object"
                 : err == simdjson::TAPE_ERROR ? "the JSON is malformed here"
                                               : "";
      if (!detail.empty()) error_.message += " (" + detail + ")";
    }
    locate_line(file_.bytes, error_);
    return error_;
  }

  const InputFile& file_;
  const char* base_ = nullptr;
  HistoryBuilder builder_;
  InputError error_;
  std::vector<uint32_t> list_;
  std::vector<std::pair<uint32_t, uint32_t>> rows_;
  std::vector<TxnOrigin> origin_;
  size_t origin_txns_ = 0;
  bool saw_origin_ = false;
  std::vector<FaultSpan> faults_;  // "faults"
};

}  // namespace

bool detect_isoscope_json(std::span<const InputFile> files) {
  if (files.size() != 1) return false;
  std::string_view b = files[0].bytes;
  size_t i = fmt::bom_length(b);  // a UTF-8 byte-order mark, as the reader accepts
  while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) ++i;
  if (i >= b.size() || b[i] != '{') return false;
  std::string_view head = b.substr(i, 4096);
  return head.find("\"isoscope/") != std::string_view::npos ||
         head.find("\"sessions\"") != std::string_view::npos;
}

Expected<History> read_isoscope_json(std::span<const InputFile> files, OpLocator* locator) {
  if (files.size() != 1) {
    InputError e;
    e.message = "the isoscope format is one JSON file, got " + std::to_string(files.size()) + " files";
    return e;
  }
  return JsonHistoryReader(files[0], locator).read();
}

}  // namespace isoscope
