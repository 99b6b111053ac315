#include "generate/register_history.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace isoscope {

namespace {
enum Fn : uint8_t { kRead, kWrite, kCas };
constexpr int64_t kNil = -1;

struct GenOp {
  int64_t process;
  int64_t call, point, ret;
  uint32_t key;
  Fn fn;
  int64_t a = kNil, b = kNil;  // read: result; write: value; cas: from, to
  uint8_t status = 0;          // 0 ok, 1 fail, 2 info
  bool effect = true;          // took effect at point (an :info operation may not have)
};
}  // namespace

RegisterGenResult generate_register_history(const RegisterGenParams& p, ObjectSink& sink) {
  std::mt19937_64 rng(p.seed);
  auto uniform = [&](uint64_t n) { return n ? rng() % n : 0; };
  auto chance = [&](double r) { return static_cast<double>(rng() >> 11) * 0x1.0p-53 < r; };
  std::vector<GenOp> ops;
  ops.reserve(size_t{p.processes} * p.ops_per_process);
  // Each client runs its operations one after another; one whose outcome is unknown (:info)
  // retires its process, and a fresh process takes the client's place, as in Jepsen.
  for (uint32_t c = 0; c < p.processes; ++c) {
    int64_t process = c, t = static_cast<int64_t>(uniform(1000000));
    for (uint32_t k = 0; k < p.ops_per_process; ++k) {
      GenOp o;
      o.process = process;
      o.call = t;
      const int64_t d = 100000 + static_cast<int64_t>(uniform(2000000));  // 0.1 .. 2.1 ms
      o.ret = t + d;
      o.point = t + static_cast<int64_t>(uniform(static_cast<uint64_t>(d)));
      t = o.ret + 1 + static_cast<int64_t>(uniform(500000));
      o.key = static_cast<uint32_t>(uniform(p.keys));
      const uint64_t r = uniform(10);
      o.fn = r < 5 ? kRead : (!p.cas || r < 8) ? kWrite : kCas;
      if (o.fn == kWrite) o.a = static_cast<int64_t>(uniform(5));
      if (o.fn == kCas) {
        o.a = static_cast<int64_t>(uniform(5));
        o.b = static_cast<int64_t>(uniform(5));
      }
      if (chance(p.info_ratio)) {
        o.status = 2;
        o.effect = chance(0.5);
        process += p.processes;
      }
      ops.push_back(o);
    }
  }
  // The object, run in the order of the instants the operations take effect.
  std::vector<uint32_t> order(ops.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return ops[x].point < ops[y].point; });
  std::vector<int64_t> value(p.keys, kNil);
  // Per key, the earliest return of a write that took effect and completed (:ok): a read
  // invoked after it that returns nil cannot be linearized (nothing writes nil).
  std::vector<int64_t> first_ok_write_ret(p.keys, INT64_MAX);
  RegisterGenResult res;
  res.ops = ops.size();
  for (uint32_t i : order) {
    GenOp& o = ops[i];
    int64_t& v = value[o.key];
    switch (o.fn) {
      case kRead:
        if (o.status == 2) break;  // an :info read returns nothing
        o.a = v;
        if (p.stale_ratio > 0 && v != kNil && first_ok_write_ret[o.key] < o.call && chance(p.stale_ratio)) {
          o.a = kNil;
          ++res.stale_reads;
        }
        break;
      case kWrite:
        if (!o.effect) break;
        v = o.a;
        if (o.status == 0) first_ok_write_ret[o.key] = std::min(first_ok_write_ret[o.key], o.ret);
        break;
      case kCas:
        if (!o.effect) break;
        if (v == o.a) {
          v = o.b;
          if (o.status == 0) first_ok_write_ret[o.key] = std::min(first_ok_write_ret[o.key], o.ret);
        } else if (o.status == 0) {
          o.status = 1;  // the compare failed: the database said so
        }
        break;
    }
  }
  // Records in time order: invocations, then completions (:info ones too, at their return).
  struct Rec {
    int64_t t;
    uint32_t op;
    bool done;
  };
  std::vector<Rec> recs;
  recs.reserve(ops.size() * 2);
  for (uint32_t i = 0; i < ops.size(); ++i) {
    recs.push_back({ops[i].call, i, false});
    recs.push_back({ops[i].ret, i, true});
  }
  std::sort(recs.begin(), recs.end(), [](const Rec& x, const Rec& y) { return x.t != y.t ? x.t < y.t : x.done < y.done; });
  sink.comment(res.stale_reads ? "isoscope generate --register: NOT linearizable (" + std::to_string(res.stale_reads) +
                                     " stale reads of nil planted)"
                               : std::string("isoscope generate --register: linearizable by construction"));
  auto val = [](int64_t x) { return x == kNil ? std::string("nil") : std::to_string(x); };
  std::string key, value_text, index;
  uint64_t next_index = 0;
  for (const Rec& r : recs) {
    const GenOp& o = ops[r.op];
    ObjectRecord rec;
    rec.type = !r.done ? ObjectRecord::Invoke : o.status == 0 ? ObjectRecord::Ok : o.status == 1 ? ObjectRecord::Fail : ObjectRecord::Info;
    rec.fn = o.fn == kRead ? ObjFn::Read : o.fn == kWrite ? ObjFn::Write : ObjFn::Cas;
    rec.process = o.process;
    key = p.keys > 1 ? std::to_string(o.key) : std::string();
    rec.key = key;
    switch (o.fn) {
      case kRead: value_text = r.done && o.status == 0 ? val(o.a) : "nil"; break;
      case kWrite: value_text = val(o.a); break;
      case kCas:  // built up: GCC 12 warns, wrongly, of "[" + std::string
        value_text = '[';
        value_text += val(o.a);
        value_text += ' ';
        value_text += val(o.b);
        value_text += ']';
        break;
    }
    rec.value = value_text;
    rec.timed = true;
    rec.time = r.t;
    index = std::to_string(next_index++);
    rec.index = index;
    sink.record(rec);
  }
  sink.finish();
  return res;
}

}  // namespace isoscope
