#include "formats/writers.h"

#include <charconv>
#include <vector>

#include "util/json.h"

namespace isoscope {

namespace {

// The canonical JSON (docs/formats.md), one transaction a line.
class IsoscopeJsonWriter final : public HistoryWriter {
 public:
  explicit IsoscopeJsonWriter(TextOut& out) : out_(out) {}
  void begin(std::optional<std::string_view> initial) override {
    out_.put("{\"format\": \"isoscope/1\", \"initial\": ");
    out_.put(initial ? *initial : "null");
  }
  void rows(std::string_view rows) override {
    out_.put(", \"rows\": ");
    out_.put(rows);
  }
  void begin_session() override {
    if (!sessions_) out_.put(", \"sessions\": [");
    out_.put(sessions_++ ? "],\n  [" : "\n  [");
    txns_in_session_ = 0;
  }
  void begin_txn(std::string_view label) override {
    out_.put(txns_in_session_++ ? ",\n   {" : "\n   {");
    if (!label.empty()) {
      out_.put("\"id\": ");
      out_.put(json_quote(label));
      out_.put(", ");
    }
    out_.put("\"ops\": [");
    ops_in_txn_ = 0;
  }
  void op(OpKind kind, std::string_view key, std::string_view value) override {
    out_.put(ops_in_txn_++ ? ", [\"" : "[\"");
    out_.put(op_kind_name(kind));
    out_.put("\", ");
    out_.put(key);
    out_.put(", ");
    out_.put(value);
    out_.put(']');
  }
  void select(std::string_view predicate, std::string_view rows) override {
    out_.put(ops_in_txn_++ ? ", [\"select\", " : "[\"select\", ");
    out_.put(predicate);
    out_.put(", ");
    out_.put(rows);
    out_.put(']');
  }
  void end_txn(TxnStatus status, std::optional<Interval> times) override {
    out_.put(']');
    if (status == TxnStatus::Aborted) out_.put(", \"status\": \"aborted\"");
    if (status == TxnStatus::Unknown) out_.put(", \"status\": \"unknown\"");
    if (times) {
      // What the reader refuses is never written (a History from a reader never holds it).
      if (std::string why = interval_problem(times->start, times->end); !why.empty() && !error_)
        error_ = input_error(why);
      out_.put(", \"start\": ");
      out_.put(times->start.text());  // exact, also beyond 2^53
      out_.put(", \"end\": ");
      out_.put(times->end.text());
    }
    out_.put('}');
  }
  // "origin": {"transactions": 100002, "txns": [[number, session, position], ...]}, one entry
  // per transaction in the order of "sessions" (docs/formats.md).
  void origin(const History& h) override {
    if (!h.has_origin()) return;
    origin_ = ",\n \"origin\": {\"transactions\": " + std::to_string(h.origin_txns) + ", \"txns\": [";
    for (size_t t = 1; t < h.txns.size(); ++t) {
      const TxnOrigin& o = h.origin[t];
      origin_ += (t > 1 ? ", [" : "[") + std::to_string(o.txn) + ", " + std::to_string(o.session) + ", " +
                 std::to_string(o.index) + "]";
    }
    origin_ += "]}";
  }
  void faults(const History& h) override {
    if (h.faults.empty()) return;
    faults_ = ",\n \"faults\": [";
    for (size_t i = 0; i < h.faults.size(); ++i) {
      const FaultSpan& f = h.faults[i];
      faults_ += (i ? ",\n  {\"kind\": " : "\n  {\"kind\": ") + json_quote(f.kind);
      if (!f.node.empty()) faults_ += ", \"node\": " + json_quote(f.node);
      faults_ += ", \"start\": " + f.start.text() + ", \"end\": " + f.end.text();
      if (!f.note.empty()) faults_ += ", \"note\": " + json_quote(f.note);
      faults_ += "}";
    }
    faults_ += "\n ]";
  }
  void finish() override {
    out_.put(sessions_ ? "]\n]" : ", \"sessions\": [\n]");
    out_.put(faults_);
    out_.put(origin_);
    out_.put("}\n");
  }

 private:
  TextOut& out_;
  std::string origin_, faults_;
  size_t sessions_ = 0, txns_in_session_ = 0, ops_in_txn_ = 0;
};

// Plume: `r(key,value,session,txn)` per operation, txn -1 for an aborted transaction's
// operations. Plume has integers only, no lists, no unknown outcomes and no timestamps (dropped).
class PlumeWriter final : public HistoryWriter {
 public:
  explicit PlumeWriter(TextOut& out) : out_(out) {}
  void begin(std::optional<std::string_view>) override {}
  void begin_session() override { ++session_; }
  void begin_txn(std::string_view) override {
    ++txn_;
    pending_.clear();
  }
  void op(OpKind kind, std::string_view key, std::string_view value) override {
    int64_t k = 0, v = 0;
    if (kind == OpKind::Append || kind == OpKind::ListRead) return fail("plume has no list operations (append / list reads)");
    if (!integer(key, k) || !integer(value, v))
      return fail("plume keys and values are integers; " + std::string(op_kind_name(kind)) + "(" + std::string(key) +
                  ", " + std::string(value) + ") is not");
    pending_.push_back({kind == OpKind::Write ? 'w' : 'r', k, v});
  }
  void end_txn(TxnStatus status, std::optional<Interval>) override {
    if (status == TxnStatus::Unknown) return fail("plume cannot express a transaction of unknown outcome (T" + std::to_string(txn_) + ")");
    const std::string txn = status == TxnStatus::Aborted ? "-1" : std::to_string(txn_);
    const std::string session = std::to_string(session_ - 1);
    for (const Pending& p : pending_) {
      char buf[96];
      const int n = std::snprintf(buf, sizeof buf, "%c(%lld,%lld,%s,%s)\n", p.kind, static_cast<long long>(p.key),
                                  static_cast<long long>(p.value), session.c_str(), txn.c_str());
      out_.put(std::string_view(buf, static_cast<size_t>(n)));
    }
  }
  void finish() override {}

 private:
  struct Pending {
    char kind;
    int64_t key, value;
  };
  static bool integer(std::string_view s, int64_t& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
  }
  void fail(std::string message) {
    if (!error_) error_ = input_error(std::move(message));
  }
  TextOut& out_;
  uint32_t session_ = 0;
  uint64_t txn_ = 0;
  std::vector<Pending> pending_;
};

}  // namespace

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::Write: return "w";
    case OpKind::Append: return "append";
    default: return "r";
  }
}

std::string op_value_json(const History& h, uint32_t op) {
  const Op& o = h.ops[op];
  if (o.kind != OpKind::ListRead) return h.values.json(o.value);
  std::string s = "[";
  const ListSpan& l = h.lists[o.list];
  for (uint32_t j = 0; j < l.size; ++j) s += (j ? ", " : "") + h.values.json(h.list_values[l.begin + j]);
  return s + "]";
}

std::unique_ptr<HistoryWriter> make_writer(std::string_view format, TextOut& out) {
  if (format == "isoscope") return std::make_unique<IsoscopeJsonWriter>(out);
  if (format == "plume") return std::make_unique<PlumeWriter>(out);
  return nullptr;
}

void write_history(const History& h, HistoryWriter& w) {
  std::optional<std::string> initial;
  if (h.initial) initial = h.values.json(*h.initial);
  w.begin(initial ? std::optional<std::string_view>(*initial) : std::nullopt);
  auto row = [&](uint32_t key, uint32_t value) {
    std::string r = "[";
    r += h.keys.json(key);
    r += ", ";
    r += h.values.json(value);
    return r += "]";
  };
  if (h.table) {
    std::string rows;
    for (uint32_t k = 0; k < h.initial_rows.size(); ++k)
      if (h.initial_rows[k] != kNone) rows += (rows.empty() ? "[" : ", ") + row(k, h.initial_rows[k]);
    w.rows(rows.empty() ? "[]" : rows + "]");
  }
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    w.begin_session();
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      const Txn& x = h.txns[t];
      w.begin_txn(x.label != kNone ? h.labels[x.label] : std::string_view());
      for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
        if (!h.ops[i].in_predicate()) {
          w.op(h.ops[i].kind, h.keys.json(h.ops[i].key), op_value_json(h, i));
          continue;
        }
        const PredicateRead& p = h.predicate_reads[h.ops[i].list];
        std::string rows = "[";
        for (uint32_t o = p.op_begin; o < p.returned_end; ++o) rows += (o > p.op_begin ? ", " : "") + row(h.ops[o].key, h.ops[o].value);
        w.select(json_quote(h.predicates[p.predicate].text), rows + "]");
        i = p.op_end - 1;
      }
      w.end_txn(x.status, x.has_time() ? std::optional(h.times[t]) : std::nullopt);
    }
  }
  w.origin(h);
  w.faults(h);
  w.finish();
}

std::optional<InputError> plume_cannot_express(const History& h) {
  auto fail = [](std::string msg) { return input_error(std::move(msg)); };
  auto is_int = [](const Interner& in, uint32_t id) { return in.kind(id) == Interner::Kind::Int; };
  if (h.has_lists) return fail("plume has no list operations (append / list reads)");
  if (h.has_rows()) return fail("plume has no initial rows or predicate reads");
  for (size_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].status == TxnStatus::Unknown)
      return fail("plume cannot express a transaction of unknown outcome (" + h.txn_name(static_cast<uint32_t>(t)) + ")");
  const bool initial_is_zero = h.initial && is_int(h.values, *h.initial) && h.values.as_int(*h.initial) == 0;
  for (uint32_t op = 0; op < h.ops.size(); ++op) {
    const Op& o = h.ops[op];
    if (!is_int(h.keys, o.key) || !is_int(h.values, o.value))
      return fail("plume keys and values are integers; " + h.op_text(op) + " is not");
    if (h.read_from[op] == kReadsInitial && !initial_is_zero)
      return fail("plume's initial value is 0, but " + h.op_text(op) + " reads another initial value");
  }
  return std::nullopt;
}

std::string write_isoscope_json(const History& h) {
  TextOut out;
  out.text().reserve(h.ops.size() * 16 + h.txns.size() * 32 + 64);
  write_history(h, *make_writer("isoscope", out));
  return std::move(out.text());
}

Expected<std::string> write_plume(const History& h) {
  if (std::optional<InputError> e = plume_cannot_express(h)) return std::move(*e);
  TextOut out;
  out.text().reserve(h.ops.size() * 20);
  write_history(h, *make_writer("plume", out));
  return std::move(out.text());
}

}  // namespace isoscope
