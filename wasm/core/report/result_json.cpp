#include "report/result_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "formats/formats.h"
#include "model/anomaly_kinds.h"
#include "model/shapes.h"
#include "util/flat_map.h"
#include "util/json.h"
#include "util/printable.h"

namespace isoscope {

namespace {

// A key or value in the result: its JSON, or for a long name (model/interner.h) a reference to
// the "names" table, {"name": "key 1", "shown": "kkkk…[key 1, 1048576 bytes]", "bytes": N},
// so a long name is written whole once, not once per operation, edge or anomaly.
std::string ref_json(const Interner& in, uint32_t id) {
  const uint32_t n = in.long_number(id);
  if (n == 0) return in.json(id);
  JsonWriter j;
  j.begin_object().member("name", std::string(in.noun()) + " " + std::to_string(n)).member("shown", in.display(id))
      .member("bytes", in.as_str(id).size()).end_object();
  return std::move(j.str());
}

std::string op_value_ref_json(const History& h, uint32_t op) {
  const Op& o = h.ops[op];
  if (o.kind != OpKind::ListRead) return ref_json(h.values, o.value);
  std::string s = "[";
  const ListSpan& l = h.lists[o.list];
  for (uint32_t i = 0; i < l.size; ++i) s += (i ? ", " : "") + ref_json(h.values, h.list_values[l.begin + i]);
  return s + "]";
}

// op: the object operation transaction t shows (object histories), for its lines in the file.
void write_txn_ref(JsonWriter& j, const History& h, uint32_t t, const RegOp* op = nullptr) {
  j.begin_object().member("txn", t);
  if (t == kInitialTxn) {
    j.key("session").null().key("index").null().member("id", "init");
  } else {
    const Txn& x = h.txns[t];
    j.member("session", x.session).member("index", x.index);
    if (x.label != kNone) j.member("id", shortened(h.labels[x.label]));  // whole in "names"
    if (op && op->line) j.member("line", op->line);
    if (op && op->completion_line) j.member("completion_line", op->completion_line);
  }
  j.end_object();
}

// As the input wrote it: a predicate read is one operation ("select").
uint32_t op_position(const History& h, uint32_t op) { return h.input_position(op); }

void write_anomaly(JsonWriter& j, const History& h, const Anomaly& a) {
  // Edges name their ends by position in "transactions"; an end missing there is added.
  // (Indexed: a witness that could not be shrunk names thousands of transactions and edges.)
  std::vector<uint32_t> txns = a.txns;
  FlatMap64 at(txns.size() + a.edges.size() + 16);
  for (size_t i = 0; i < txns.size(); ++i) at.insert(txns[i], static_cast<uint32_t>(i));
  auto index_of = [&](uint32_t t) {
    const uint32_t i = at.insert(t, static_cast<uint32_t>(txns.size()));
    if (i == txns.size()) txns.push_back(t);
    return static_cast<size_t>(i);
  };
  JsonWriter edges;
  edges.begin_array();
  for (const AnomalyEdge& e : a.edges) {
    edges.begin_object().member("from", index_of(e.from_txn)).member("to", index_of(e.to_txn)).member("type", edge_type_name(e.type));
    if (e.key != kNone) edges.key("key").raw(ref_json(h.keys, e.key));
    if (e.from_op != kNone) edges.member("from_op", op_position(h, e.from_op));
    if (e.to_op != kNone) edges.member("to_op", op_position(h, e.to_op));
    if (!e.why.empty()) edges.member("why", e.why);
    edges.end_object();
  }
  edges.end_array();
  // An object history's operations carry the lines of their records (RegOp::line).
  std::vector<const RegOp*> op_of;
  if (!h.registers.empty()) {
    op_of.assign(h.txns.size(), nullptr);
    for (const RegOp& o : h.registers.ops)
      if (o.txn < op_of.size()) op_of[o.txn] = &o;
  }
  j.begin_object().member("kind", kind_name(a.kind)).key("transactions").begin_array();
  for (uint32_t t : txns) write_txn_ref(j, h, t, t < op_of.size() ? op_of[t] : nullptr);
  j.end_array().key("ops").begin_array();
  for (uint32_t op : a.ops)
    j.begin_object().member("txn", h.op_txn[op]).member("position", op_position(h, op)).member("text", h.op_text(op)).end_object();
  j.end_array().key("edges").raw(edges.str()).member("explanation", a.explanation).end_object();
}

// Transactions by status, in one pass: committed, aborted, unknown.
std::array<size_t, 3> count_statuses(const History& h) {
  std::array<size_t, 3> n{};
  for (size_t t = 1; t < h.txns.size(); ++t) {
    const TxnStatus st = h.txns[t].status;
    ++n[st == TxnStatus::Committed ? 0 : st == TxnStatus::Aborted ? 1 : 2];
  }
  return n;
}

std::string dropped_json(const History& h) {
  JsonWriter j;
  j.begin_array();
  for (const History::Dropped& d : h.dropped) j.begin_object().member("reason", d.reason).member("count", d.count).end_object();
  j.end_array();
  return std::move(j.str());
}

double round_ms(double ms) { return std::round(ms * 1000) / 1000; }

void write_input(JsonWriter& j, const History& h, double parse_ms) {
  const std::array<size_t, 3> statuses = count_statuses(h);
  j.begin_object()
      .member("format", h.format)
      .member("sessions", h.num_sessions())
      .member("transactions", h.num_txns())
      .member("operations", h.num_ops())
      .member("keys", h.keys.size())
      .member("committed", statuses[0])
      .member("aborted", statuses[1])
      .member("unknown", statuses[2])
      .key("initial").raw(h.registers.initial != RegOp::kUnobserved ? h.values.json(h.registers.initial)  // --initial
                          : h.initial ? h.values.json(*h.initial) : std::string("null"))
      .member("timestamps", h.has_timestamps)
      .member("dropped_events", h.dropped_events)
      .key("dropped").raw(dropped_json(h))
      .member("lists", h.has_lists)
      .member("repeated_pairs", h.repeated_pairs)
      .member("ambiguous_reads", h.ambiguous.size())
      .member("mini_transactions", is_mini_transaction_history(h))
      .member("parse_ms", round_ms(parse_ms))
      .member("memory_bytes", h.memory_bytes());
  if (h.has_origin()) {
    // a counterexample: its transactions' number, session and position in the original history
    j.key("origin").begin_object().member("transactions", h.origin_txns).key("txns").begin_array();
    for (size_t t = 1; t < h.origin.size(); ++t)
      j.begin_array().integer(h.origin[t].txn).integer(h.origin[t].session).integer(h.origin[t].index).end_array();
    j.end_array().end_object();
  }
  j.end_object();
}

void write_level_result(JsonWriter& j, const History& h, const LevelResult& r) {
  j.begin_object().member("verdict", verdict_name(r.verdict)).member("ms", round_ms(r.ms));
  if (!r.reason.empty()) j.member("reason", r.reason);
  if (r.implied_by) j.member("implied_by", level_name(*r.implied_by));
  // The commit order witnessing a pass; very long ones are left out to keep the JSON small.
  constexpr size_t kMaxCommitOrder = 100000;
  if (r.verdict == Verdict::Pass && !r.commit_order.empty() && r.commit_order.size() <= kMaxCommitOrder) {
    j.key("commit_order").begin_array();
    for (uint32_t t : r.commit_order) j.integer(t);
    j.end_array();
  }
  // LIN of an object history: the longest linearizable prefix of the first failing object.
  if (r.verdict == Verdict::Fail && !r.lin_prefix.empty() && r.lin_prefix.size() <= kMaxCommitOrder) {
    j.key("lin_prefix").begin_array();
    for (uint32_t t : r.lin_prefix) j.integer(t);
    j.end_array();
  }
  if (r.verdict == Verdict::Fail) {
    j.member("anomalies_total", std::max(r.anomalies_total, r.anomalies.size())).key("anomalies").begin_array();
    for (const Anomaly& a : r.anomalies) write_anomaly(j, h, a);
    j.end_array();
    // Every kind found, most specific first, with its count and smallest example.
    j.key("kinds").begin_array();
    for (const KindCount& k : r.kinds) {
      j.begin_object().member("kind", kind_name(k.kind)).member("count", k.count).member("lower_bound", k.lower_bound);
      if (k.example != kNone) j.member("example", k.example);
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
}

}  // namespace

std::string input_json(const History& h, double parse_ms) {
  JsonWriter j;
  write_input(j, h, parse_ms);
  return std::move(j.str());
}

std::string level_result_json(const History& h, const LevelResult& r) {
  JsonWriter j;
  j.str().reserve(2048);
  write_level_result(j, h, r);
  return std::move(j.str());
}

std::string names_json(const History& h) {
  JsonWriter j;
  j.begin_object().key("keys").begin_array();
  for (uint32_t id : h.keys.long_names()) j.string(h.keys.as_str(id));
  j.end_array().key("values").begin_array();
  for (uint32_t id : h.values.long_names()) j.string(h.values.as_str(id));
  j.end_array().key("ids").begin_array();
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].label != kNone && h.labels[h.txns[t].label].size() > kLongText)
      j.begin_object().member("txn", t).member("id", h.labels[h.txns[t].label]).end_object();
  j.end_array().end_object();
  return std::move(j.str());
}

bool has_long_names(const History& h) {
  if (!h.keys.long_names().empty() || !h.values.long_names().empty()) return true;
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].label != kNone && h.labels[h.txns[t].label].size() > kLongText) return true;
  return false;
}

std::string report_json(const History& h, const CheckReport& report, double parse_ms, int64_t peak_rss_bytes) {
  JsonWriter j;
  j.str().reserve(4096);  // most reports: no reallocation as it grows
  j.begin_object().key("input");
  write_input(j, h, parse_ms);
  if (has_long_names(h)) j.newline().key("names").raw(names_json(h));
  j.key("levels").begin_object();
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i]) continue;
    write_level_result(j.newline().key(level_name(static_cast<Level>(i))), h, report.results[i]);
  }
  j.end_object();
  if (peak_rss_bytes >= 0) j.member("peak_rss_bytes", peak_rss_bytes);
  j.end_object();
  return std::move(j.str()) + "\n";
}

std::string error_json(const InputError& e) {
  JsonWriter j;
  j.begin_object().member("file", e.file);
  if (e.line >= 0) j.member("line", e.line);
  if (e.column >= 0) j.member("column", e.column);
  if (e.offset >= 0) j.member("offset", e.offset);
  if (e.format_unrecognised) j.member("format_unrecognised", true);
  if (!e.readable_as.empty()) j.member("readable_as", e.readable_as);
  j.member("message", e.message).member("text", e.to_string()).end_object();
  return std::move(j.str());
}

std::string transactions_json(const History& h, uint32_t begin, uint32_t end) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(h.txns.size()));
  JsonWriter j;
  j.begin_array();
  for (uint32_t t = begin; t < end; ++t) {
    const Txn& x = h.txns[t];
    j.newline().begin_object().member("txn", t);
    if (t == kInitialTxn) {
      j.key("session").null().key("index").null().member("id", "init").member("status", "committed")
          .member("committed", true).key("ops").begin_array().end_array().end_object();
      continue;
    }
    j.member("session", x.session).member("index", x.index);
    if (x.label != kNone) j.member("id", shortened(h.labels[x.label]));  // whole in names_json
    j.member("status", txn_status_name(x.status))
        .member("committed", x.committed);
    // Exact decimals: JSON numbers beyond 2^53 stay exact in the text (a reader in JS rounds them).
    if (x.has_time()) j.key("start").raw(h.times[t].start.text()).key("end").raw(h.times[t].end.text());
    // A predicate read is one operation, as the input wrote it: ["select", predicate, [[key,
    // value], ...]] (its reads of every key are the checkers').
    auto first = [&](uint32_t i) { return !h.ops[i].in_predicate() || i == h.predicate_reads[h.ops[i].list].op_begin; };
    j.key("ops").begin_array();
    for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
      if (!first(i)) continue;
      if (h.ops[i].in_predicate()) {
        const PredicateRead& p = h.predicate_reads[h.ops[i].list];
        j.begin_array().string("select").string(h.predicates[p.predicate].text).begin_array();
        for (uint32_t o = p.op_begin; o < p.returned_end; ++o)
          j.begin_array().raw(ref_json(h.keys, h.ops[o].key)).raw(ref_json(h.values, h.ops[o].value)).end_array();
        j.end_array().end_array();
        continue;
      }
      j.begin_array().string(op_kind_name(h.ops[i].kind)).raw(ref_json(h.keys, h.ops[i].key)).raw(op_value_ref_json(h, i)).end_array();
    }
    // per operation: the transaction a read reads from (0: the initial one; -1: no writer,
    // a thin-air read; an array: its candidates, a value written more than once), null for a
    // write and for a select (which reads every key)
    j.end_array().key("read_from").begin_array();
    for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
      if (!first(i)) continue;
      const uint32_t w = h.ops[i].is_read() ? h.read_from[i] : kNone;
      if (!h.ops[i].is_read() || !h.registers.empty() || h.ops[i].in_predicate()) j.null();  // object histories resolve no reads-from
      else if (w == kAmbiguous) {
        j.begin_array();
        for (uint32_t c : h.ambiguous.candidates(i)) j.integer(h.candidate_txn(c));
        j.end_array();
      } else if (w == kReadsInitial) j.integer(0);
      else if (w < kThinAir) j.integer(h.op_txn[w]);
      else j.integer(-1);
    }
    j.end_array().end_object();
  }
  j.end_array();
  return std::move(j.str());
}

std::string report_text(const CheckReport& report) {
  std::string s;
  std::vector<AnomalyKind> printed;  // kinds shown by weaker levels
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i]) continue;
    const LevelResult& r = report.results[i];
    char head[64];
    std::snprintf(head, sizeof head, "%-5s %-8s %9.3f ms", level_name(static_cast<Level>(i)),
                  verdict_name(r.verdict), r.ms);
    s += head;
    if (!r.reason.empty()) s += "  (" + r.reason + ")";
    s += "\n";
    if (r.verdict != Verdict::Fail) continue;
    // Each kind found, with its count and smallest example; an implied failure shows only the
    // kinds its weaker level did not find (a lost update under SI when RR already fails).
    for (const KindCount& k : r.kinds) {
      if (r.implied_by && std::find(printed.begin(), printed.end(), k.kind) != printed.end()) continue;
      s += std::string("      ") + kind_name(k.kind) + " (" + (k.lower_bound ? "at least " : "") + std::to_string(k.count) + " found)";
      s += k.example != kNone ? ": " + r.anomalies[k.example].explanation + "\n" : "\n";
      printed.push_back(k.kind);
    }
    if (r.kinds.empty() && !r.implied_by)  // a checker that names no kinds: its anomalies as they are
      for (const Anomaly& a : r.anomalies) s += std::string("      ") + kind_name(a.kind) + ": " + a.explanation + "\n";
  }
  return s;
}

std::string timeline_json(const History& h) {
  JsonWriter j;
  j.begin_object().member("first", 1).key("start").begin_array();
  for (size_t t = 1; t < h.txns.size(); ++t) h.txns[t].has_time() ? j.raw(h.times[t].start.text()) : j.null();
  j.end_array().key("end").begin_array();
  for (size_t t = 1; t < h.txns.size(); ++t) h.txns[t].has_time() ? j.raw(h.times[t].end.text()) : j.null();
  j.end_array().key("session").begin_array();
  for (size_t t = 1; t < h.txns.size(); ++t) j.integer(h.txns[t].session);
  std::string status;
  status.reserve(h.txns.size());
  for (size_t t = 1; t < h.txns.size(); ++t)
    status += h.txns[t].status == TxnStatus::Committed ? 'c' : h.txns[t].status == TxnStatus::Aborted ? 'a' : 'u';
  j.end_array().member("status", status);
  // The faults recorded with the history: bands behind the lanes.
  if (!h.faults.empty()) {
    j.key("faults").begin_array();
    for (const FaultSpan& f : h.faults)
      j.begin_object().member("kind", f.kind).member("node", f.node).key("start").raw(f.start.text()).key("end").raw(f.end.text()).end_object();
    j.end_array();
  }
  // An object history: each operation's object (an index into "keys"), and each session's
  // process, so the Timeline shows one key's operations on lanes named by process.
  if (!h.registers.empty()) {
    std::vector<uint32_t> key(h.txns.size(), 0);
    std::vector<int64_t> process(h.num_sessions(), 0);
    for (const RegOp& o : h.registers.ops) {
      key[o.txn] = o.key;
      process[h.txns[o.txn].session] = o.process;
    }
    // A multi-register is one object over all its keys.
    const bool one_object = h.registers.model == ObjectModel::MultiRegister;
    j.key("object_keys").begin_array();
    if (one_object) j.string("the multi-register");
    else
      for (uint32_t k = 0; k < h.keys.size(); ++k) j.string(h.keys.display(k));
    j.end_array().key("object_key").begin_array();
    for (size_t t = 1; t < h.txns.size(); ++t) j.integer(one_object ? 0 : key[t]);
    j.end_array().key("lane_names").begin_array();
    for (int64_t p : process) j.string("process " + std::to_string(p));
    j.end_array();
  }
  j.end_object();
  return std::move(j.str());
}

std::string readers_json(const History& h, uint32_t t) {
  JsonWriter j;
  j.begin_array();
  if (t == kInitialTxn || t >= h.txns.size()) return std::move(j.end_array().str());
  const Txn& x = h.txns[t];
  std::vector<std::vector<uint32_t>> readers(x.op_end - x.op_begin);
  for (uint32_t r = 0; r < h.ops.size(); ++r) {
    const uint32_t w = h.read_from[r];
    if (!h.ops[r].is_read() || w < x.op_begin || w >= x.op_end || h.op_txn[r] == t) continue;
    std::vector<uint32_t>& who = readers[w - x.op_begin];
    if (who.empty() || who.back() != h.op_txn[r]) who.push_back(h.op_txn[r]);  // a reader's reads are consecutive
  }
  for (uint32_t p = 0; p < readers.size(); ++p) {
    if (!h.ops[x.op_begin + p].is_write()) continue;
    j.begin_object().member("position", p).key("readers").begin_array();
    for (uint32_t reader : readers[p]) j.integer(reader);
    j.end_array().end_object();
  }
  return std::move(j.end_array().str());
}

std::string find_json(const History& h, std::string_view query, size_t limit) {
  JsonWriter j;
  j.begin_array();
  size_t found = 0;
  for (uint32_t t = 1; t < h.txns.size() && found < limit; ++t)
    if (h.txns[t].label != kNone && h.labels[h.txns[t].label] == query) {
      j.begin_object().member("txn", t).member("match", "label").end_object();
      ++found;
    }
  // the key as the page prints it (x, 7, "7"), as its JSON, or a long key as it is
  uint32_t key = kNone;
  for (uint32_t k = 0; k < h.keys.size() && key == kNone; ++k)
    if (h.keys.display(k) == query || h.keys.json(k) == query ||
        (h.keys.long_number(k) != 0 && h.keys.as_str(k) == query))  // a long key, as written
      key = k;
  if (key != kNone)
    for (uint32_t t = 1; t < h.txns.size() && found < limit; ++t)
      for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o)
        if (h.ops[o].key == key) {
          j.begin_object().member("txn", t).member("match", "key").end_object();
          ++found;
          break;
        }
  return std::move(j.end_array().str());
}

std::string anomaly_kinds_json() {
  JsonWriter j;
  j.begin_array();
  for (const AnomalyKindInfo& i : anomaly_kinds())
    j.newline().begin_object().member("name", i.name).member("family", family_name(i.family))
        .member("weakest", level_name(i.weakest)).member("title", i.title).member("description", i.description)
        .end_object();
  j.end_array();
  return std::move(j.str());
}

static const char* level_group(Level l) {
  return is_transactional(l) ? "transactional" : is_causal_model(l) ? "causal" : "linearizability";
}

std::string level_vocabulary_json() {
  JsonWriter j;
  j.begin_array();
  for (int i = 0; i < kNumLevels; ++i) {
    const Level l = static_cast<Level>(i);
    j.newline().begin_object().member("name", level_name(l)).member("title", level_title(l))
        .member("summary", level_summary(l)).member("group", level_group(l)).key("implies").begin_array();
    for (int k = kNumLevels - 1; k >= 0; --k)
      if (is_weaker(static_cast<Level>(k), l)) j.string(level_name(static_cast<Level>(k)));
    j.end_array().end_object();
  }
  j.end_array();
  return std::move(j.str());
}

std::string levels_json(const History& h) {
  JsonWriter j;
  const std::vector<Level> order = check_order(h);
  j.begin_array();
  for (int i = 0; i < kNumLevels; ++i) {
    std::string reason;
    const bool applies = level_applies(h, static_cast<Level>(i), reason);
    const size_t rank = std::find(order.begin(), order.end(), static_cast<Level>(i)) - order.begin();
    j.begin_object().member("level", level_name(static_cast<Level>(i))).member("applies", applies).member("order", rank);
    if (!applies) j.member("reason", reason);
    j.end_object();
  }
  j.end_array();
  return std::move(j.str());
}

std::string sessions_json(const History& h) {
  JsonWriter j;
  j.begin_array();
  for (size_t i = 0; i < h.num_sessions(); ++i)
    j.begin_object().member("first", h.session_begin[i]).member("count", h.session_begin[i + 1] - h.session_begin[i]).end_object();
  j.end_array();
  return std::move(j.str());
}

std::string formats_json() {
  JsonWriter j;
  j.begin_array();
  for (const FormatInfo& f : all_formats()) j.newline().begin_object().member("name", f.name).member("title", f.title).end_object();
  j.end_array();
  return std::move(j.str());
}

}  // namespace isoscope
