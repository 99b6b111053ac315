#include "checkers/read_consistency.h"

#include <algorithm>

#include "model/anomaly_kinds.h"
#include "checkers/explain.h"
#include "checkers/list_order.h"

namespace isoscope {

namespace {

Anomaly read_anomaly(const History& h, AnomalyKind kind, uint32_t read_op, std::string explanation) {
  Anomaly a;
  a.kind = kind;
  uint32_t reader = h.op_txn[read_op];
  uint32_t w = h.read_from[read_op];
  a.ops.push_back(read_op);
  if (w < kThinAir) {
    uint32_t writer = h.op_txn[w];
    if (writer != reader) a.txns.push_back(writer);
    a.ops.push_back(w);
    a.txns.push_back(reader);
    if (writer != reader) a.edges.push_back(reads_from_edge(h, writer, read_op));
  } else if (w == kReadsInitial) {
    a.txns.push_back(kInitialTxn);
    a.txns.push_back(reader);
    AnomalyEdge e{kInitialTxn, reader, EdgeType::WR, h.ops[read_op].key, kNone, read_op, {}};
    e.why = h.txn_name(reader) + " reads the initial value of " + h.keys.display(h.ops[read_op].key);
    a.edges.push_back(std::move(e));
  } else {
    a.txns.push_back(reader);
  }
  a.explanation = std::move(explanation);
  return a;
}

// A read whose every candidate writer breaks read consistency: one anomaly naming each.
Anomaly ambiguous_read_anomaly(const History& h, ReadClass c, uint32_t t, uint32_t r, uint32_t mine,
                               const std::vector<char>& is_last) {
  static constexpr AnomalyKind kinds[] = {AnomalyKind::ThinAirRead, AnomalyKind::FutureRead,
                                          AnomalyKind::NotMyLastWrite, AnomalyKind::NotMyOwnWrite,
                                          AnomalyKind::AbortedRead, AnomalyKind::IntermediateRead};
  Anomaly a;
  a.kind = kinds[static_cast<int>(c) - static_cast<int>(ReadClass::ThinAir)];
  a.ops.push_back(r);
  std::string why;
  for (uint32_t w : h.ambiguous.candidates(r)) {
    const uint32_t writer = h.candidate_txn(w);
    if (writer != t && std::find(a.txns.begin(), a.txns.end(), writer) == a.txns.end()) a.txns.push_back(writer);
    if (w != kReadsInitial) a.ops.push_back(w);
    const char* what = "";
    switch (classify_candidate(h, is_last, t, r, w, mine)) {
      case ReadClass::FutureRead: what = "a future read (the write comes later in the transaction)"; break;
      case ReadClass::NotMyLastWrite: what = "not its last write before the read"; break;
      case ReadClass::NotMyOwnWrite: what = "not its own earlier write"; break;
      case ReadClass::AbortedRead: what = "an aborted read"; break;
      case ReadClass::IntermediateRead: what = "an intermediate read (overwritten in the same transaction)"; break;
      default: what = "a violation"; break;
    }
    if (!why.empty()) why += "; ";
    why += "from " + (writer == kInitialTxn ? std::string("the initial transaction") : short_name(h, writer)) + " it is " + what;
  }
  a.txns.push_back(t);
  a.explanation = h.txn_name(t) + " reads " + h.op_text(r) + ", which " + candidates_text(h, r) +
                  " all write: whichever it reads from breaks read consistency (" + why + ")";
  (void)mine;
  return a;
}

}  // namespace

std::vector<char> last_writes_in_txn(const History& h) {
  std::vector<char> last(h.ops.size(), 0);
  std::vector<uint32_t> stamp(h.keys.size(), kNone);
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const Txn& x = h.txns[t];
    for (uint32_t i = x.op_end; i-- > x.op_begin;) {
      const Op& o = h.ops[i];
      if (!o.is_write() || stamp[o.key] == t) continue;
      stamp[o.key] = t;
      last[i] = 1;
    }
  }
  return last;
}

std::vector<Anomaly> check_read_consistency(const History& h) {
  std::vector<Anomaly> out;
  const std::vector<char> is_last = last_writes_in_txn(h);
  classify_reads(h, is_last, [&](uint32_t t, uint32_t r, ReadClass c, uint32_t mine) {
    if (is_consistent(c)) return;
    const uint32_t w = h.read_from[r];
    if (w == kAmbiguous) {
      out.push_back(ambiguous_read_anomaly(h, c, t, r, mine, is_last));
      return;
    }
    const uint32_t writer = w < kThinAir ? h.op_txn[w] : kNone;
    switch (c) {
      case ReadClass::ThinAir: {
        const Op& o = h.ops[r];
        const std::optional<uint32_t> init = h.initial_of(o.key);
        if (o.in_predicate() && o.value == kNoRow) {  // a predicate read missed a row
          out.push_back(read_anomaly(
              h, AnomalyKind::ThinAirRead, r,
              h.txn_name(t) + "'s " + h.op_text(r) + ", but every version of key " + h.keys.display(o.key) +
                  " (every value written to it" + (init ? std::string(" and its initial one") : std::string()) +
                  ") matches the predicate: the read missed a row that always existed"));
          break;
        }
        out.push_back(read_anomaly(
            h, AnomalyKind::ThinAirRead, r,
            h.txn_name(t) + " reads " + h.op_text(r) + ", a value no transaction wrote" +
                (init ? " and not the initial value " + h.values.display(*init)
                      : std::string(" (this history has no implicit initial value)")) +
                ": it came out of thin air"));
        break;
      }
      case ReadClass::FutureRead:
        out.push_back(read_anomaly(h, AnomalyKind::FutureRead, r,
                                   h.txn_name(t) + " reads " + h.op_text(r) + " from its own " +
                                       h.op_text(w) + ", which comes later in the transaction"));
        break;
      case ReadClass::NotMyLastWrite:
        out.push_back(read_anomaly(h, AnomalyKind::NotMyLastWrite, r,
                                   h.txn_name(t) + " reads " + h.op_text(r) + " from its own earlier " +
                                       h.op_text(w) + ", but its last write before the read is " +
                                       h.op_text(mine)));
        break;
      case ReadClass::NotMyOwnWrite:
        out.push_back(read_anomaly(h, AnomalyKind::NotMyOwnWrite, r,
                                   h.txn_name(t) + " writes " + h.op_text(mine) + " and later reads " +
                                       h.op_text(r) +
                                       (writer == kNone ? std::string(", the initial value,")
                                                        : " from " + h.txn_name(writer)) +
                                       " instead of its own write"));
        break;
      case ReadClass::AbortedRead:
        out.push_back(read_anomaly(
            h, AnomalyKind::AbortedRead, r,
            h.txn_name(t) + " reads " + h.op_text(r) + " written by " + h.txn_name(writer) + ", which " +
                (h.txns[writer].status == TxnStatus::Aborted ? "aborted" : "never committed") +
                ": a dirty read of data that never existed"));
        break;
      case ReadClass::IntermediateRead:
        out.push_back(read_anomaly(h, AnomalyKind::IntermediateRead, r,
                                   h.txn_name(t) + " reads " + h.op_text(r) + " from " + h.txn_name(writer) +
                                       ", which overwrites that value later in the same "
                                       "transaction: an intermediate state was visible"));
        break;
      default: break;
    }
  });
  // List reads must also agree on one append order per key (Elle's incompatible order).
  if (h.has_lists)
    for (Anomaly& a : check_list_prefixes(h)) out.push_back(std::move(a));
  return out;
}

}  // namespace isoscope
