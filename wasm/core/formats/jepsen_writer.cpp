// Object histories back to Jepsen EDN (formats/jepsen.cpp reads them), so that what is written
// reads back to the same operations, pairs and verdicts (tests/wasm/roundtrip.test.mjs):
//   - one invocation and one completion per operation; each process's records in its own order
//     (the reader pairs an invocation with the next completion of its process), the processes'
//     records merged in time order, a completion before an invocation at equal times;
//   - an :info completion (or an invocation never completed, written with one) stays where its
//     process goes on: just before that process's next invocation, else at the end. Its :time
//     is the history's end (the reader never uses it but as that end: an :info operation may
//     take effect at any time after its invocation);
//   - the operations of processes that are not clients (:nemesis), which the reader counted
//     and left out, as that many :nemesis records at the end: a history of those only reads
//     back as the same empty object history.
#include <algorithm>
#include <queue>
#include <string>
#include <vector>

#include "formats/writers.h"
#include "model/history.h"
#include "util/json.h"

namespace isoscope {

void JepsenEdnSink::record(const ObjectRecord& r) {
  record_opening();
  static constexpr const char* kTypes[] = {":invoke", ":ok", ":fail", ":info"};
  const bool kv = r.key_field;
  const char* f = "";
  switch (r.fn) {
    case ObjFn::Read: f = kv ? ":get" : ":read"; break;
    case ObjFn::Write: f = kv ? ":put" : ":write"; break;
    case ObjFn::Cas: f = ":cas"; break;
    case ObjFn::Append: f = ":append"; break;
    case ObjFn::Acquire: f = ":acquire"; break;
    case ObjFn::Release: f = ":release"; break;
    case ObjFn::Txn: f = ":txn"; break;
  }
  line_ = "{:type ";
  line_ += kTypes[r.type];
  line_ += ", :f ";
  line_ += f;
  line_ += ", :process " + std::to_string(r.process);
  if (kv && !r.key.empty()) {
    line_ += ", :key ";
    line_ += r.key;
  }
  if (!r.value.empty()) {
    line_ += ", :value ";
    if (!kv && !r.key.empty()) {
      line_ += '[';
      line_ += r.key;
      line_ += ' ';
      line_ += r.value;
      line_ += ']';
    } else {
      line_ += r.value;
    }
  }
  if (r.timed) line_ += ", :time " + std::to_string(r.time);
  if (!r.index.empty()) {
    line_ += ", :index ";
    line_ += r.index;
  }
  line_ += "}\n";
  out_.put(line_);
}

void JepsenEdnSink::comment(std::string_view text) {
  out_.put("; ");
  out_.put(text);
  out_.put('\n');
}

void JepsenEdnSink::record_opening() {
  if (open_) return;
  out_.put("[\n");
  open_ = true;
}

void JepsenEdnSink::nemesis_record() {
  record_opening();
  out_.put("{:type :info, :f :nemesis, :process :nemesis}\n");
}

void JepsenEdnSink::finish() {
  record_opening();
  out_.put("]\n");
}

std::string write_jepsen_edn(const History& h) {
  const Registers& regs = h.registers;
  const uint32_t n = static_cast<uint32_t>(regs.ops.size());
  // The history's end: where the reader ended an indeterminate operation's shown interval
  // (its last record's time), else the last time an operation shows.
  int64_t last = 0;
  bool end_known = false;
  for (const RegOp& o : regs.ops)
    if (o.indeterminate() && h.txns[o.txn].has_time()) {
      last = end_known ? std::max(last, h.times[o.txn].end.whole) : h.times[o.txn].end.whole;
      end_known = true;
    }
  if (!end_known)
    // (the status, not ret == kNever, says an operation has no return: a completion may be
    // recorded at the int64 maximum)
    for (const RegOp& o : regs.ops) last = std::max(last, o.indeterminate() ? o.call : o.ret);
  // Each process's operations in invocation order (regs.ops is in invocation order).
  std::vector<uint32_t> by_process(n);
  for (uint32_t i = 0; i < n; ++i) by_process[i] = i;
  std::stable_sort(by_process.begin(), by_process.end(),
                   [&](uint32_t x, uint32_t y) { return regs.ops[x].process < regs.ops[y].process; });
  struct Queue {
    uint32_t begin, end;  // into by_process
    uint32_t next = 0;    // records taken: 2 per operation
  };
  std::vector<Queue> queues;
  for (uint32_t i = 0; i < n; ++i)
    if (i == 0 || regs.ops[by_process[i]].process != regs.ops[by_process[i - 1]].process)
      queues.push_back({i, i});
  for (size_t q = 0; q < queues.size(); ++q) queues[q].end = q + 1 < queues.size() ? queues[q + 1].begin : n;
  // A queue's next record: its op, whether it is the completion, and where it goes in time.
  struct Head {
    int64_t t;
    bool invocation;
    uint32_t queue;
  };
  auto head = [&](uint32_t q) -> Head {
    const Queue& Q = queues[q];
    const RegOp& o = regs.ops[by_process[Q.begin + Q.next / 2]];
    if (Q.next % 2 == 0) return {o.call, true, q};
    if (!o.indeterminate()) return {o.ret, false, q};
    const uint32_t after = Q.begin + Q.next / 2 + 1;  // the process's next operation
    return {after < Q.end ? std::max(o.call, regs.ops[by_process[after]].call) : RegOp::kNever, false, q};
  };
  auto later = [](const Head& a, const Head& b) {
    if (a.t != b.t) return a.t > b.t;
    if (a.invocation != b.invocation) return a.invocation;  // completions first at equal times
    return a.queue > b.queue;
  };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
  for (uint32_t q = 0; q < queues.size(); ++q)
    if (queues[q].begin < queues[q].end) heads.push(head(q));
  struct Rec {
    bool done;
    uint32_t op;
  };
  std::vector<Rec> recs;
  recs.reserve(static_cast<size_t>(n) * 2);
  while (!heads.empty()) {
    const Head top = heads.top();
    heads.pop();
    Queue& Q = queues[top.queue];
    recs.push_back({!top.invocation, by_process[Q.begin + Q.next / 2]});
    if (++Q.next < 2 * (Q.end - Q.begin)) heads.push(head(top.queue));
  }
  auto val = [&](uint32_t v) -> std::string {
    if (v == RegOp::kUnobserved || (h.initial && v == *h.initial)) return "nil";
    if (h.values.kind(v) == Interner::Kind::Str) return json_quote(h.values.as_str(v));
    return h.values.display(v);
  };
  auto key = [&](uint32_t k) -> std::string {
    return h.keys.kind(k) == Interner::Kind::Str ? json_quote(h.keys.as_str(k)) : h.keys.display(k);
  };
  const bool kv = regs.model == ObjectModel::KeyValue;
  TextOut out;
  out.text().reserve(static_cast<size_t>(n) * 140 + 8);
  JepsenEdnSink edn(out);
  std::string key_text, v;
  for (const Rec& r : recs) {
    const RegOp& o = regs.ops[r.op];
    ObjectRecord rec;
    rec.type = !r.done ? ObjectRecord::Invoke : o.ok() ? ObjectRecord::Ok : o.failed() ? ObjectRecord::Fail : ObjectRecord::Info;
    rec.fn = o.fn;
    rec.process = o.process;
    key_text.clear();
    if (kv || (regs.keyed && o.fn != ObjFn::Txn)) key_text = key(o.key);
    rec.key = key_text;
    rec.key_field = kv;
    v.clear();
    switch (o.fn) {
      case ObjFn::Read: v = r.done && o.ok() ? val(o.a) : "nil"; break;
      case ObjFn::Write:
      case ObjFn::Append: v = val(o.a); break;
      case ObjFn::Cas: v = "[" + val(o.a) + " " + val(o.b) + "]"; break;
      case ObjFn::Txn:
        v = "[";
        for (uint32_t m = o.micro_begin; m < o.micro_end; ++m) {
          const ObjMicro& mo = regs.micro[m];
          v += (m > o.micro_begin ? " [" : "[") + std::string(mo.write ? ":write " : ":read ") + key(mo.key) + " " +
               (mo.write || (r.done && o.ok()) ? val(mo.value) : "nil") + "]";
        }
        v += "]";
        break;
      default: break;
    }
    rec.value = v;
    rec.timed = regs.timed;
    rec.time = !r.done ? o.call : o.indeterminate() ? last : o.ret;
    if (h.txns[o.txn].label != kNone) rec.index = h.labels[h.txns[o.txn].label];
    edn.record(rec);
  }
  // What the reader left out as no client's (its count: History::dropped).
  size_t nemesis = 0;
  for (const History::Dropped& d : h.dropped)
    if (d.reason == History::kNotClients) nemesis += d.count;
  for (size_t i = 0; i < nemesis; ++i) edn.nemesis_record();
  edn.finish();
  return std::move(out.text());
}

}  // namespace isoscope
