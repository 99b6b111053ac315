#include "generate/random_history.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace isoscope {

// ---- PRNG -----------------------------------------------------------------------------------

Rng::Rng(uint64_t seed) {
  uint64_t z = seed;
  for (uint64_t& s : s_) {
    z += 0x9e3779b97f4a7c15ULL;
    uint64_t x = z;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    s = x ^ (x >> 31);
  }
}

uint64_t Rng::next() {
  auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

namespace {

struct GOp {
  bool write;
  uint32_t key;
  int64_t value;
};
struct GTxn {
  uint32_t session, index;
  uint32_t op_begin, op_end;
  TxnStatus status;
  Time start, end;
};

}  // namespace

void generate_history(const GenParams& p, GenSink& sink) {
  Rng rng(p.seed);
  KeyPicker keys(p.key_params());
  const uint32_t nk = std::max<uint32_t>(p.keys, 1);
  const uint32_t ns = p.sessions;
  const uint32_t min_ops = std::min(p.min_ops, p.max_ops);
  std::vector<GTxn> txns;   // in execution order
  std::vector<GOp> ops;
  txns.reserve(static_cast<size_t>(ns) * p.txns_per_session);
  ops.reserve(static_cast<size_t>(ns) * p.txns_per_session * (min_ops + p.max_ops) / 2 + 1);

  // Committed versions of each key, oldest first (value 0 is the initial state).
  std::vector<std::vector<int64_t>> versions(nk, std::vector<int64_t>{0});
  // Causal mode: per key, committed writes (session, index-in-session, value) in commit order;
  // per session, its view: how many transactions of each session it sees (a prefix each).
  struct CWrite {
    uint32_t session, index;
    int64_t value;
  };
  std::vector<std::vector<CWrite>> cwrites;
  std::vector<std::vector<uint32_t>> view;
  if (p.mode == GenMode::Causal) {
    cwrites.resize(nk);
    view.assign(ns, std::vector<uint32_t>(ns, 0));
  }
  std::vector<uint32_t> done(ns, 0);  // transactions executed per session
  std::vector<uint32_t> live;         // sessions with transactions left
  for (uint32_t s = 0; s < ns; ++s)
    if (p.txns_per_session) live.push_back(s);
  std::vector<uint32_t> wild_ops;  // Random mode: reads whose value is drawn at the end
  int64_t next_value = 1, next_thin_air = -1;
  // The transaction's own writes: own[key] valid while own_stamp[key] == txn number.
  std::vector<uint32_t> own_stamp(nk, UINT32_MAX);
  std::vector<int64_t> own(nk, 0);
  std::vector<uint32_t> touched;
  uint32_t step = 0;
  while (!live.empty()) {
    const uint32_t li = rng.below(static_cast<uint32_t>(live.size()));
    const uint32_t s = live[li];
    GTxn t;
    t.session = s;
    t.index = done[s]++;
    if (done[s] == p.txns_per_session) {
      live[li] = live.back();
      live.pop_back();
    }
    t.status = TxnStatus::Committed;
    if (rng.chance(p.abort_ratio))
      t.status = TxnStatus::Aborted;
    else if (rng.chance(p.unknown_ratio))
      t.status = TxnStatus::Unknown;
    if (p.mode == GenMode::Causal && ns > 1 && rng.chance(p.sync_ratio)) {
      const uint32_t other = rng.below(ns);
      for (uint32_t j = 0; j < ns; ++j) view[s][j] = std::max(view[s][j], view[other][j]);
    }
    const uint32_t id = static_cast<uint32_t>(txns.size());
    const uint32_t nops = min_ops + rng.below(p.max_ops - min_ops + 1);
    t.op_begin = static_cast<uint32_t>(ops.size());
    touched.clear();
    for (uint32_t i = 0; i < nops; ++i) {
      const uint32_t k = keys.pick(rng);
      if (rng.chance(p.read_ratio)) {
        int64_t v;
        if (own_stamp[k] == id) {
          v = own[k];
        } else if (p.mode == GenMode::Causal) {
          v = 0;
          const std::vector<CWrite>& ws = cwrites[k];
          auto visible = [&](const CWrite& w) {
            return w.session == s || w.index < view[s][w.session];
          };
          if (rng.chance(p.causal_stale_ratio)) {  // any visible version, or the initial value
            uint32_t nvis = 0;
            for (const CWrite& w : ws) nvis += visible(w);
            uint32_t pick = rng.below(nvis + 1);
            for (const CWrite& w : ws)
              if (visible(w) && pick-- == 0) {
                v = w.value;
                break;
              }
          } else {
            for (size_t j = ws.size(); j-- > 0;)
              if (visible(ws[j])) {
                v = ws[j].value;
                break;
              }
          }
        } else {
          v = versions[k].back();
        }
        if (p.mode == GenMode::Random) {
          const double u = rng.uniform();
          if (u < p.thin_air_ratio) {
            v = next_thin_air--;
          } else if (u < p.thin_air_ratio + p.wild_ratio) {  // any write, drawn at the end
            wild_ops.push_back(static_cast<uint32_t>(ops.size()));
          } else if (u < p.thin_air_ratio + p.wild_ratio + p.stale_ratio && own_stamp[k] != id) {
            const std::vector<int64_t>& vs = versions[k];  // an older committed version
            v = vs[rng.below(static_cast<uint32_t>(vs.size()))];
          }
        }
        ops.push_back({false, k, v});
      } else {
        const int64_t v = p.value_range ? static_cast<int64_t>(rng.below(p.value_range)) : next_value++;
        if (own_stamp[k] != id) touched.push_back(k);
        own_stamp[k] = id;
        own[k] = v;
        ops.push_back({true, k, v});
      }
    }
    t.op_end = static_cast<uint32_t>(ops.size());
    if (t.status != TxnStatus::Aborted) {
      for (uint32_t k : touched) {
        versions[k].push_back(own[k]);
        if (p.mode == GenMode::Causal) cwrites[k].push_back({s, t.index, own[k]});
      }
    }
    if (p.mode == GenMode::Causal) view[s][s] = done[s];
    t.start = Time::integer(step);
    t.end = {static_cast<int64_t>(step) + (p.overlap ? rng.below(p.overlap + 1) : 0), Time::kFracUnit / 2};  // + 0.5
    ++step;
    txns.push_back(t);
  }
  if (!wild_ops.empty()) {
    // Every write of each key, anywhere (aborted, intermediate, later, own).
    std::vector<std::vector<int64_t>> all(nk);
    for (const GOp& o : ops)
      if (o.write) all[o.key].push_back(o.value);
    for (uint32_t i : wild_ops) {
      const std::vector<int64_t>& ws = all[ops[i].key];
      const uint32_t j = rng.below(static_cast<uint32_t>(ws.size()) + 1);
      ops[i].value = j == ws.size() ? 0 : ws[j];
    }
  }

  // Emit session by session.
  std::vector<uint32_t> count(ns + 1, 0);
  for (const GTxn& t : txns) ++count[t.session + 1];
  for (uint32_t s = 0; s < ns; ++s) count[s + 1] += count[s];
  std::vector<uint32_t> by_session(txns.size());
  for (uint32_t i = 0; i < txns.size(); ++i) by_session[count[txns[i].session]++] = i;
  uint32_t pos = 0;
  for (uint32_t s = 0; s < ns; ++s) {
    sink.begin_session();
    for (uint32_t j = 0; j < p.txns_per_session; ++j) {
      const GTxn& t = txns[by_session[pos++]];
      sink.begin_txn(t.session, t.index);
      for (uint32_t o = t.op_begin; o < t.op_end; ++o) {
        if (ops[o].write)
          sink.write(ops[o].key, ops[o].value);
        else
          sink.read(ops[o].key, ops[o].value);
      }
      sink.end_txn(t.status, p.timestamps, t.start, t.end);
    }
  }
}

bool parse_key_dist(std::string_view text, KeyDist& out) {
  if (text == "uniform") out = KeyDist::Uniform;
  else if (text == "zipf") out = KeyDist::Zipf;
  else if (text == "hotspot") out = KeyDist::Hotspot;
  else return false;
  return true;
}

HistorySink::HistorySink(bool labels) : labels_(labels) { b_.set_initial(b_.values().intern_int(0)); }
void HistorySink::begin_session() { b_.begin_session(); }
void HistorySink::begin_txn(uint32_t session, uint32_t index) {
  b_.begin_txn();
  if (labels_) b_.set_label(generated_label(session, index));
}
void HistorySink::read(int64_t key, int64_t value) { b_.read(b_.keys().intern_int(key), b_.values().intern_int(value)); }
void HistorySink::write(int64_t key, int64_t value) { b_.write(b_.keys().intern_int(key), b_.values().intern_int(value)); }
void HistorySink::end_txn(TxnStatus status, bool timed, Time start, Time end) {
  if (status != TxnStatus::Committed) b_.set_status(status);
  if (timed) b_.set_time(start, end);
  b_.end_txn();
}

Expected<History> generate_history(const GenParams& p) {
  const size_t n = static_cast<size_t>(p.sessions) * p.txns_per_session;
  return collect_history(p, n, n * (std::min(p.min_ops, p.max_ops) + p.max_ops) / 2,
                         [](const GenParams& q, GenSink& s) { generate_history(q, s); });
}

}  // namespace isoscope
