// The current rnbguy/dbcop JSON history: a list of sessions, each a list of transactions
//   {"events": [{"Write": {"variable": 0, "version": 1}},
//               {"Read":  {"variable": 0, "version": null}}],
//    "committed": true}
// bare, or wrapped in {"params": .., "data": [...]} (other members are ignored). A read of
// version null reads the initial state, the initial value is null. Variables are integers or
// strings; versions are integers. "committed": false marks an aborted transaction (a missing
// "committed" means committed).
// Parsed with simdjson On-Demand, error codes only; errors name the JSON path and the byte.
#include <string>

#include "formats/formats.h"
#include "formats/json_input.h"
#include "formats/reader_util.h"
#include "simdjson.h"

namespace isoscope {
namespace {

namespace od = simdjson::ondemand;

struct JsonReader {
  const InputFile& f;
  JsonInput json;
  od::parser parser;
  od::document doc;
  HistoryBuilder b;
  uint32_t null_value = 0;
  bool doc_ok = false;  // current_location() is only defined once iterate() succeeded
  std::string path;  // "session 1, transaction 3, event 0"

  JsonReader(const InputFile& file, OpLocator* locator) : f(file), json(file), b(locator) {}

  size_t location() {
    const char* p = nullptr;
    if (!doc_ok) return 0;
    if (doc.current_location().get(p) != simdjson::SUCCESS || !p) return f.bytes.size();
    return static_cast<size_t>(p - json.data());
  }
  InputError error(const std::string& what, simdjson::error_code code = simdjson::SUCCESS) {
    if (is_json_text_error(code))
      if (std::optional<JsonProblem> p = find_json_problem(f.bytes)) return fmt::text_error(f, p->offset, p->message);
    std::string msg = path.empty() ? what : path + ": " + what;
    if (code != simdjson::SUCCESS) msg += std::string(" (") + simdjson::error_message(code) + ")";
    return fmt::text_error(f, location(), msg);
  }

  // False (err set) when name was met before in this object.
  bool member_once(MemberSet& members, std::string_view name, InputError& err) {
    const int64_t here = static_cast<int64_t>(location());
    const int64_t first = members.earlier(name, here);
    if (first < 0) return true;
    err = fmt::text_error(f, static_cast<size_t>(here), MemberSet::message(f.bytes, name, first));
    return false;
  }

  // A variable: integer or string.
  bool key_of(od::value v, uint32_t& out, InputError& err) {
    od::json_type t;
    if (auto e = v.type().get(t)) {
      err = error("expected the variable", e);
      return false;
    }
    if (t == od::json_type::number) {
      int64_t i;
      if (auto e = v.get_int64().get(i)) {
        err = error("expected an integer variable", e);
        return false;
      }
      out = b.keys().intern_int(i);
      return true;
    }
    if (t == od::json_type::string) {
      std::string_view s;
      if (auto e = v.get_string().get(s)) {
        err = error("expected a string variable", e);
        return false;
      }
      out = b.keys().intern_str(s);
      return true;
    }
    err = error("expected the variable to be an integer or a string");
    return false;
  }

  // A version: integer, or null (the initial state; reads only).
  bool version_of(od::value v, bool write, uint32_t& out, InputError& err) {
    od::json_type t;
    if (auto e = v.type().get(t)) {
      err = error("expected the version", e);
      return false;
    }
    if (t == od::json_type::null) {
      if (write) {
        err = error("a write needs an integer version, found null");
        return false;
      }
      out = null_value;
      return true;
    }
    int64_t i;
    if (t != od::json_type::number || v.get_int64().get(i) != simdjson::SUCCESS) {
      err = error(std::string("expected an integer version") + (write ? "" : " or null"));
      return false;
    }
    out = b.values().intern_int(i);
    return true;
  }

  bool event(od::value v, InputError& err) {
    od::object obj;
    if (auto e = v.get_object().get(obj)) {
      err = error("expected an event {\"Write\": {...}} or {\"Read\": {...}}", e);
      return false;
    }
    int seen = 0;
    MemberSet events_seen;
    for (auto field : obj) {
      std::string_view name;
      if (auto e = field.unescaped_key().get(name)) {
        err = error("expected an event name", e);
        return false;
      }
      bool write;
      if (!member_once(events_seen, name, err)) return false;
      if (name == "Write" || name == "write")
        write = true;
      else if (name == "Read" || name == "read")
        write = false;
      else {
        err = error("expected \"Write\" or \"Read\", found \"" + std::string(name) + "\"");
        return false;
      }
      if (++seen > 1) {
        err = error("an event holds exactly one \"Write\" or \"Read\"");
        return false;
      }
      od::object body;
      if (auto e = field.value().get_object().get(body)) {
        err = error("expected {\"variable\": .., \"version\": ..}", e);
        return false;
      }
      bool has_var = false, has_ver = false;
      uint32_t key = 0, value = 0;
      MemberSet body_seen;
      for (auto member : body) {
        std::string_view m;
        if (auto e = member.unescaped_key().get(m)) {
          err = error("expected \"variable\" or \"version\"", e);
          return false;
        }
        if ((m == "variable" || m == "version") && !member_once(body_seen, m, err)) return false;
        od::value mv;
        if (auto e = member.value().get(mv)) {
          err = error("expected a value", e);
          return false;
        }
        if (m == "variable") {
          if (!key_of(mv, key, err)) return false;
          has_var = true;
        } else if (m == "version") {
          if (!version_of(mv, write, value, err)) return false;
          has_ver = true;
        }
      }
      if (!has_var || !has_ver) {
        err = error(std::string("the event lacks \"") + (has_var ? "version" : "variable") + "\"");
        return false;
      }
      if (write)
        b.write(key, value);
      else
        b.read(key, value);
    }
    if (seen == 0) {
      err = error("expected an event {\"Write\": {...}} or {\"Read\": {...}}, found {}");
      return false;
    }
    return true;
  }

  bool transaction(od::value v, size_t s, size_t t, InputError& err) {
    path = "session " + std::to_string(s) + ", transaction " + std::to_string(t);
    od::object obj;
    if (auto e = v.get_object().get(obj)) {
      err = error("expected a transaction {\"events\": [...], \"committed\": true}", e);
      return false;
    }
    b.begin_txn();
    bool has_events = false;
    MemberSet members;
    for (auto field : obj) {
      std::string_view name;
      if (auto e = field.unescaped_key().get(name)) {
        err = error("expected a member name", e);
        return false;
      }
      if ((name == "events" || name == "committed") && !member_once(members, name, err)) return false;
      if (name == "events") {
        od::array events;
        if (auto e = field.value().get_array().get(events)) {
          err = error("expected \"events\" to be an array", e);
          return false;
        }
        size_t i = 0;
        std::string base = path;
        for (auto ev : events) {
          path = base + ", event " + std::to_string(i++);
          od::value evv;
          if (auto e = ev.get(evv)) {
            err = error("expected an event", e);
            return false;
          }
          if (!event(evv, err)) return false;
        }
        path = base;
        has_events = true;
      } else if (name == "committed") {
        bool c;
        if (auto e = field.value().get_bool().get(c)) {
          err = error("expected \"committed\" to be true or false", e);
          return false;
        }
        if (!c) b.set_status(TxnStatus::Aborted);
      }
    }
    if (!has_events) {
      err = error("the transaction lacks \"events\"");
      return false;
    }
    b.end_txn();
    return true;
  }

  bool sessions(od::array arr, InputError& err) {
    size_t s = 0;
    for (auto sv : arr) {
      path = "session " + std::to_string(s);
      od::array txns;
      if (auto e = sv.get_array().get(txns)) {
        err = error("expected a session: an array of transactions", e);
        return false;
      }
      b.begin_session();
      size_t t = 0;
      for (auto tv : txns) {
        od::value v;
        if (auto e = tv.get(v)) {
          path = "session " + std::to_string(s) + ", transaction " + std::to_string(t);
          err = error("expected a transaction", e);
          return false;
        }
        if (!transaction(v, s, t, err)) return false;
        ++t;
      }
      ++s;
    }
    path.clear();
    return true;
  }

  Expected<History> run() {
    null_value = b.values().intern_null();
    b.set_initial(null_value);
    if (auto e = parser.iterate(json.view()).get(doc)) return error("not valid JSON", e);
    doc_ok = true;
    b.locate_with([this] { return static_cast<int64_t>(location()); });
    od::json_type t;
    if (auto e = doc.type().get(t)) return error("expected a JSON array or object", e);
    InputError err;
    bool found = false;
    if (t == od::json_type::array) {
      od::array arr;
      if (auto e = doc.get_array().get(arr)) return error("expected an array of sessions", e);
      if (!sessions(arr, err)) return err;
      found = true;
    } else if (t == od::json_type::object) {
      od::object obj;
      if (auto e = doc.get_object().get(obj)) return error("expected an object", e);
      MemberSet members;
      for (auto field : obj) {
        std::string_view name;
        if (auto e = field.unescaped_key().get(name)) return error("expected a member name", e);
        if (name == "data" && !member_once(members, name, err)) return err;
        if (name == "data") {
          od::array arr;
          if (auto e = field.value().get_array().get(arr))
            return error("expected \"data\" to be an array of sessions", e);
          if (!sessions(arr, err)) return err;
          found = true;
        }
      }
      if (!found) return error("expected a \"data\" member holding the sessions");
    } else {
      return error("expected a JSON array of sessions or an object with \"data\"");
    }
    if (!doc.at_end()) return error("expected the end of the JSON document");
    return b.finish("dbcop-json", f.name);
  }
};

}  // namespace

bool detect_dbcop_json(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  size_t i = 0;
  while (i < s.size() && fmt::is_space(s[i])) ++i;
  if (i >= s.size() || (s[i] != '[' && s[i] != '{')) return false;
  std::string_view head = s.substr(i, 4096);
  return head.find("\"events\"") != std::string_view::npos &&
         (head.find("\"Write\"") != std::string_view::npos ||
          head.find("\"Read\"") != std::string_view::npos);
}

Expected<History> read_dbcop_json(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return fmt::not_one_file(files, "dbcop-json");
  JsonReader r(*f, locator);
  return r.run();
}

}  // namespace isoscope
