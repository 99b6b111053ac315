#include "report/result_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "formats/formats.h"
#include "model/anomaly_kinds.h"
#include "model/shapes.h"
#include "util/json.h"

namespace isoscope {

namespace {

std::string txn_ref_json(const History& h, uint32_t t) {
  if (t == kInitialTxn) return "{\"txn\": 0, \"session\": null, \"index\": null, \"id\": \"init\"}";
  const Txn& x = h.txns[t];
  std::string s = "{\"txn\": " + std::to_string(t) + ", \"session\": " + std::to_string(x.session) +
                  ", \"index\": " + std::to_string(x.index);
  if (x.label != kNone) s += ", \"id\": " + json_quote(h.labels[x.label]);
  return s + "}";
}

std::string op_position_json(const History& h, uint32_t op) {
  return std::to_string(op - h.txns[h.op_txn[op]].op_begin);
}

std::string anomaly_json(const History& h, const Anomaly& a) {
  std::vector<uint32_t> txns = a.txns;
  auto index_of = [&](uint32_t t) {
    auto it = std::find(txns.begin(), txns.end(), t);
    if (it != txns.end()) return static_cast<size_t>(it - txns.begin());
    txns.push_back(t);
    return txns.size() - 1;
  };
  std::string edges;
  for (const AnomalyEdge& e : a.edges) {
    if (!edges.empty()) edges += ", ";
    edges += "{\"from\": " + std::to_string(index_of(e.from_txn)) +
             ", \"to\": " + std::to_string(index_of(e.to_txn)) + ", \"type\": \"" +
             edge_type_name(e.type) + "\"";
    if (e.key != kNone) edges += ", \"key\": " + h.keys.json(e.key);
    if (e.from_op != kNone) edges += ", \"from_op\": " + op_position_json(h, e.from_op);
    if (e.to_op != kNone) edges += ", \"to_op\": " + op_position_json(h, e.to_op);
    if (!e.why.empty()) edges += ", \"why\": " + json_quote(e.why);
    edges += "}";
  }
  std::string s = "{\"kind\": " + json_quote(a.kind) + ", \"transactions\": [";
  for (size_t i = 0; i < txns.size(); ++i) s += (i ? ", " : "") + txn_ref_json(h, txns[i]);
  s += "], \"ops\": [";
  for (size_t i = 0; i < a.ops.size(); ++i) {
    uint32_t op = a.ops[i];
    s += (i ? ", " : "");
    s += "{\"txn\": " + std::to_string(h.op_txn[op]) + ", \"position\": " + op_position_json(h, op) +
         ", \"text\": " + json_quote(h.op_text(op)) + "}";
  }
  s += "], \"edges\": [" + edges + "], \"explanation\": " + json_quote(a.explanation) + "}";
  return s;
}

size_t count_status(const History& h, TxnStatus st) {
  size_t n = 0;
  for (size_t t = 1; t < h.txns.size(); ++t) n += h.txns[t].status == st;
  return n;
}

std::string ms_json(double ms) { return json_number(std::round(ms * 1000) / 1000); }

}  // namespace

std::string input_json(const History& h, double parse_ms) {
  return "{\"format\": " + json_quote(h.format) + ", \"sessions\": " +
         std::to_string(h.num_sessions()) + ", \"transactions\": " + std::to_string(h.num_txns()) +
         ", \"operations\": " + std::to_string(h.num_ops()) + ", \"keys\": " +
         std::to_string(h.keys.size()) + ", \"committed\": " +
         std::to_string(count_status(h, TxnStatus::Committed)) + ", \"aborted\": " +
         std::to_string(count_status(h, TxnStatus::Aborted)) + ", \"unknown\": " +
         std::to_string(count_status(h, TxnStatus::Unknown)) + ", \"initial\": " +
         (h.initial ? h.values.json(*h.initial) : std::string("null")) +
         ", \"timestamps\": " + (h.has_timestamps ? "true" : "false") +
         ", \"dropped_events\": " + std::to_string(h.dropped_events) +
         ", \"lists\": " + (h.has_lists ? "true" : "false") +
         ", \"mini_transactions\": " + (is_mini_transaction_history(h) ? "true" : "false") +
         ", \"parse_ms\": " + ms_json(parse_ms) +
         ", \"memory_bytes\": " + std::to_string(h.memory_bytes()) + "}";
}

std::string level_result_json(const History& h, const LevelResult& r) {
  std::string s = std::string("{\"verdict\": \"") + verdict_name(r.verdict) + "\", \"ms\": " + ms_json(r.ms);
  if (!r.reason.empty()) s += ", \"reason\": " + json_quote(r.reason);
  // The commit order witnessing a pass; very long ones are left out to keep the JSON small.
  constexpr size_t kMaxCommitOrder = 100000;
  if (r.verdict == Verdict::Pass && !r.commit_order.empty() && r.commit_order.size() <= kMaxCommitOrder) {
    s += ", \"commit_order\": [";
    for (size_t i = 0; i < r.commit_order.size(); ++i) s += (i ? "," : "") + std::to_string(r.commit_order[i]);
    s += "]";
  }
  if (r.verdict == Verdict::Fail) {
    s += ", \"anomalies_total\": " + std::to_string(std::max(r.anomalies_total, r.anomalies.size()));
    s += ", \"anomalies\": [";
    for (size_t i = 0; i < r.anomalies.size(); ++i) s += (i ? ", " : "") + anomaly_json(h, r.anomalies[i]);
    s += "]";
  }
  return s + "}";
}

std::string report_json(const History& h, const CheckReport& report, double parse_ms, int64_t peak_rss_bytes) {
  std::string s = "{\"input\": " + input_json(h, parse_ms) + ", \"levels\": {";
  bool first = true;
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i]) continue;
    s += first ? "\n  " : ",\n  ";
    first = false;
    s += std::string("\"") + level_name(static_cast<Level>(i)) + "\": " +
         level_result_json(h, report.results[i]);
  }
  s += "}";
  if (peak_rss_bytes >= 0) s += ", \"peak_rss_bytes\": " + std::to_string(peak_rss_bytes);
  return s + "}\n";
}

std::string error_json(const InputError& e) {
  std::string s = "{\"file\": " + json_quote(e.file);
  if (e.line >= 0) s += ", \"line\": " + std::to_string(e.line);
  if (e.column >= 0) s += ", \"column\": " + std::to_string(e.column);
  if (e.offset >= 0) s += ", \"offset\": " + std::to_string(e.offset);
  if (e.format_unrecognised) s += ", \"format_unrecognised\": true";
  if (!e.readable_as.empty()) s += ", \"readable_as\": " + json_quote(e.readable_as);
  return s + ", \"message\": " + json_quote(e.message) + ", \"text\": " + json_quote(e.to_string()) + "}";
}

std::string transactions_json(const History& h, uint32_t begin, uint32_t end) {
  end = std::min<uint32_t>(end, static_cast<uint32_t>(h.txns.size()));
  std::string s = "[";
  for (uint32_t t = begin; t < end; ++t) {
    const Txn& x = h.txns[t];
    if (t != begin) s += ",\n";
    s += "{\"txn\": " + std::to_string(t);
    if (t == kInitialTxn) {
      s += ", \"session\": null, \"index\": null, \"id\": \"init\", \"status\": \"committed\", \"committed\": true, \"ops\": []}";
      continue;
    }
    s += ", \"session\": " + std::to_string(x.session) + ", \"index\": " + std::to_string(x.index);
    if (x.label != kNone) s += ", \"id\": " + json_quote(h.labels[x.label]);
    s += std::string(", \"status\": \"") +
         (x.status == TxnStatus::Committed ? "committed" : x.status == TxnStatus::Aborted ? "aborted" : "unknown") +
         "\", \"committed\": " + (x.committed ? "true" : "false");
    if (x.has_time()) s += ", \"start\": " + json_number(x.start) + ", \"end\": " + json_number(x.end);
    s += ", \"ops\": [";
    for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
      const Op& o = h.ops[i];
      if (i != x.op_begin) s += ", ";
      s += o.kind == OpKind::Write ? "[\"w\", " : o.kind == OpKind::Append ? "[\"append\", " : "[\"r\", ";
      s += h.keys.json(o.key) + ", ";
      if (o.kind == OpKind::ListRead) {
        const ListSpan& l = h.lists[o.list];
        s += "[";
        for (uint32_t j = 0; j < l.size; ++j) s += (j ? ", " : "") + h.values.json(h.list_values[l.begin + j]);
        s += "]";
      } else {
        s += h.values.json(o.value);
      }
      s += "]";
    }
    s += "]}";
  }
  return s + "]";
}

std::string report_text(const CheckReport& report) {
  std::string s;
  for (int i = 0; i < kNumLevels; ++i) {
    if (!report.requested[i]) continue;
    const LevelResult& r = report.results[i];
    char head[64];
    std::snprintf(head, sizeof head, "%-5s %-8s %9.3f ms", level_name(static_cast<Level>(i)),
                  verdict_name(r.verdict), r.ms);
    s += head;
    if (!r.reason.empty()) s += "  (" + r.reason + ")";
    s += "\n";
    if (r.verdict == Verdict::Fail && !r.implied_by) {
      for (const Anomaly& a : r.anomalies) s += "      " + a.kind + ": " + a.explanation + "\n";
      if (r.anomalies_total > r.anomalies.size())
        s += "      ... and " + std::to_string(r.anomalies_total - r.anomalies.size()) + " more\n";
    }
  }
  return s;
}

std::string anomaly_kinds_json() {
  std::string out = "[";
  for (const AnomalyKindInfo& i : anomaly_kinds()) {
    out += out.size() > 1 ? ",\n " : "";
    out += "{\"name\": " + json_quote(i.name) + ", \"family\": " + json_quote(family_name(i.family)) +
           ", \"weakest\": " + json_quote(level_name(i.weakest)) + ", \"title\": " + json_quote(i.title) +
           ", \"description\": " + json_quote(i.description) + "}";
  }
  return out + "]";
}

std::string levels_json(const History& h) {
  std::string s = "[";
  for (int i = 0; i < kNumLevels; ++i) {
    std::string reason;
    const bool applies = level_applies(h, static_cast<Level>(i), reason);
    s += (i ? ", " : "") + std::string("{\"level\": \"") + level_name(static_cast<Level>(i)) +
         "\", \"applies\": " + (applies ? "true" : "false");
    if (!applies) s += ", \"reason\": " + json_quote(reason);
    s += "}";
  }
  return s + "]";
}

std::string sessions_json(const History& h) {
  std::string s = "[";
  for (size_t i = 0; i < h.num_sessions(); ++i)
    s += (i ? ", " : "") + std::string("{\"first\": ") + std::to_string(h.session_begin[i]) +
         ", \"count\": " + std::to_string(h.session_begin[i + 1] - h.session_begin[i]) + "}";
  return s + "]";
}

std::string formats_json() {
  std::string s = "[";
  for (const FormatInfo& f : all_formats())
    s += (s.size() > 1 ? ",\n " : "") + std::string("{\"name\": ") + json_quote(f.name) +
         ", \"title\": " + json_quote(f.title) + "}";
  return s + "]";
}

}  // namespace isoscope
