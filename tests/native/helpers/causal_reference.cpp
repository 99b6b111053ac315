#include "causal_reference.h"

#include <set>
#include <utility>
#include <vector>

namespace isoscope {

namespace {

constexpr int kInit = -1, kThin = -2;

struct Ev {
  uint32_t proc, key;
  bool write;
  int src;  // reads: the event it reads from, kInit or kThin
};

using Mask = uint32_t;
inline Mask bit(int i) { return Mask(1) << i; }

struct Problem {
  std::vector<Ev> ev;
  std::vector<Mask> po;  // po[i]: events po-before i
  uint32_t keys = 0;
  int n() const { return static_cast<int>(ev.size()); }
};

bool build(const History& h, Problem& P) {
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].size() != 1) return false;
  if (h.num_txns() == 0) return false;
  std::vector<int> ev_of(h.ops.size(), -1);
  for (uint32_t o = 0; o < h.ops.size(); ++o) {
    const Txn& x = h.txns[h.op_txn[o]];
    if (!x.committed) continue;
    ev_of[o] = P.n();
    P.ev.push_back({x.session, h.ops[o].key, h.ops[o].is_write(), kInit});
  }
  P.keys = static_cast<uint32_t>(h.keys.size());
  if (P.ev.size() > 16) return true;  // too large for the searches (the caller says Unknown)
  for (uint32_t o = 0; o < h.ops.size(); ++o) {
    if (ev_of[o] < 0 || !h.ops[o].is_read()) continue;
    Ev& e = P.ev[ev_of[o]];
    const uint32_t v = h.ops[o].value;
    int src = kThin;
    bool written = false;
    for (uint32_t w = 0; w < h.ops.size(); ++w)
      if (h.ops[w].is_write() && h.ops[w].key == h.ops[o].key && h.ops[w].value == v) {
        written = true;
        src = ev_of[w] >= 0 ? ev_of[w] : kThin;
      }
    if (!written) src = (v == kNone || (h.initial && *h.initial == v)) ? kInit : kThin;
    e.src = src;
  }
  P.po.assign(P.ev.size(), 0);
  for (int i = 0; i < P.n(); ++i)
    for (int j = 0; j < i; ++j)
      if (P.ev[j].proc == P.ev[i].proc) P.po[i] |= bit(j);
  return true;
}

// Whether some linearization of the events in U that respects pred (pred[i]: events that must
// come before i) explains every read in `checked`: a read of x returns the last write of x
// placed before it (none for the initial value). Depth-first over (placed set, last write of
// each key), memoised.
bool explainable(const Problem& P, const std::vector<Mask>& pred, Mask U, Mask checked) {
  const int n = P.n();
  using State = std::pair<Mask, std::vector<int>>;
  std::set<State> seen;
  std::vector<State> stack;
  stack.push_back({0, std::vector<int>(P.keys, kInit)});
  seen.insert(stack.back());
  while (!stack.empty()) {
    State s = std::move(stack.back());
    stack.pop_back();
    if (s.first == U) return true;
    for (int i = 0; i < n; ++i) {
      if (!(U & bit(i)) || (s.first & bit(i)) || (pred[i] & U & ~s.first)) continue;
      const Ev& e = P.ev[i];
      State t = s;
      t.first |= bit(i);
      if (e.write) {
        t.second[e.key] = i;
      } else if (checked & bit(i)) {
        if (e.src == kThin || s.second[e.key] != e.src) continue;
      }
      if (seen.insert(t).second) stack.push_back(std::move(t));
    }
  }
  return false;
}

bool cc_holds(const Problem& P, const std::vector<Mask>& pred) {
  for (int o = 0; o < P.n(); ++o)
    if (!P.ev[o].write && !explainable(P, pred, pred[o] | bit(o), bit(o))) return false;
  return true;
}

bool cm_holds(const Problem& P, const std::vector<Mask>& pred) {
  for (int o = 0; o < P.n(); ++o) {
    Mask reads = 0;
    for (int i = 0; i < P.n(); ++i)
      if (!P.ev[i].write && ((P.po[o] | bit(o)) & bit(i))) reads |= bit(i);
    if (!explainable(P, pred, pred[o] | bit(o), reads)) return false;
  }
  return true;
}

// Some total order arb ⊇ co such that every read o is explained by CausalPast(o) in arb order:
// the arb-last write of x in CausalPast(o) is the one o reads (none for the initial value).
// Depth-first over the linear extensions of co; a read is checked when placed (its causal
// past is placed by then).
bool ccv_holds(const Problem& P, const std::vector<Mask>& pred) {
  const int n = P.n();
  const Mask all = n == 32 ? ~Mask(0) : bit(n) - 1;
  std::vector<int> pos(n, -1), order;
  std::vector<int> next_choice{0};  // per depth: the next candidate to try
  Mask placed = 0;
  while (!next_choice.empty()) {
    if (placed == all) return true;
    int& c = next_choice.back();
    bool advanced = false;
    while (c < n) {
      const int i = c++;
      if ((placed & bit(i)) || (pred[i] & ~placed)) continue;
      const Ev& e = P.ev[i];
      if (!e.write) {
        if (e.src == kThin) continue;
        int last = kInit, last_pos = -1;
        for (int w = 0; w < n; ++w)
          if ((pred[i] & bit(w)) && P.ev[w].write && P.ev[w].key == e.key && pos[w] > last_pos) {
            last = w;
            last_pos = pos[w];
          }
        if (last != e.src) continue;
      }
      pos[i] = static_cast<int>(order.size());
      order.push_back(i);
      placed |= bit(i);
      next_choice.push_back(0);
      advanced = true;
      break;
    }
    if (advanced) continue;
    next_choice.pop_back();
    if (!order.empty()) {
      const int i = order.back();
      order.pop_back();
      pos[i] = -1;
      placed &= ~bit(i);
    }
  }
  return false;
}

bool level_holds(const Problem& P, const std::vector<Mask>& pred, Level l) {
  switch (l) {
    case Level::WCC: return cc_holds(P, pred);
    case Level::CCv: return ccv_holds(P, pred);
    default: return cm_holds(P, pred);
  }
}

}  // namespace

Verdict causal_reference_check(const History& h, Level l, CausalSearch search) {
  if (l != Level::WCC && l != Level::CCv && l != Level::CM) return Verdict::Unknown;
  Problem P;
  if (!build(h, P)) return Verdict::NotApplicable;
  const int n = P.n();
  if (n > 16) return Verdict::Unknown;
  if (search == CausalSearch::Minimal) {
    if (n > (l == Level::CCv ? 10 : 12)) return Verdict::Unknown;
    // co = (po ∪ wr)+ (pred form), by iterating to a fixpoint.
    std::vector<Mask> pred(n);
    for (int i = 0; i < n; ++i) {
      pred[i] = P.po[i];
      if (!P.ev[i].write && P.ev[i].src >= 0) pred[i] |= bit(P.ev[i].src);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (int i = 0; i < n; ++i) {
        Mask m = pred[i];
        for (int j = 0; j < n; ++j)
          if (pred[i] & bit(j)) m |= pred[j];
        if (m != pred[i]) {
          pred[i] = m;
          changed = true;
        }
      }
    }
    for (int i = 0; i < n; ++i)
      if (pred[i] & bit(i)) return Verdict::Fail;  // not a strict partial order
    return level_holds(P, pred, l) ? Verdict::Pass : Verdict::Fail;
  }
  if (n > 5) return Verdict::Unknown;
  // Every strict partial order ⊇ po: each unordered pair is unrelated, i<j or j<i.
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) pairs.push_back({i, j});
  std::vector<int> digit(pairs.size(), 0);
  while (true) {
    std::vector<Mask> pred(n, 0);
    bool ok = true;
    for (size_t p = 0; p < pairs.size() && ok; ++p) {
      const auto [i, j] = pairs[p];
      const bool po_ij = P.po[j] & bit(i);
      if (po_ij && digit[p] != 1) ok = false;
      if (digit[p] == 1) pred[j] |= bit(i);
      if (digit[p] == 2) pred[i] |= bit(j);
    }
    if (ok)  // transitive?
      for (int i = 0; i < n && ok; ++i)
        for (int j = 0; j < n && ok; ++j)
          if ((pred[i] & bit(j)) && (pred[j] & ~pred[i])) ok = false;
    if (ok && level_holds(P, pred, l)) return Verdict::Pass;
    size_t p = 0;
    while (p < digit.size() && digit[p] == 2) digit[p++] = 0;
    if (p == digit.size()) break;
    ++digit[p];
  }
  return Verdict::Fail;
}

namespace {

// A square bit matrix.
struct Bits {
  int n = 0, words = 0;
  std::vector<uint64_t> w;
  explicit Bits(int size) : n(size), words((size + 63) / 64), w(static_cast<size_t>(size) * words, 0) {}
  bool get(int i, int j) const { return (w[static_cast<size_t>(i) * words + j / 64] >> (j % 64)) & 1; }
  void set(int i, int j) { w[static_cast<size_t>(i) * words + j / 64] |= uint64_t(1) << (j % 64); }
  uint64_t* row(int i) { return w.data() + static_cast<size_t>(i) * words; }
  // Adds (a, b) to a transitive relation and closes it again.
  void add_transitive(int a, int b) {
    if (get(a, b)) return;
    std::vector<uint64_t> add(row(b), row(b) + words);
    add[b / 64] |= uint64_t(1) << (b % 64);
    for (int i = 0; i < n; ++i)
      if (i == a || get(i, a))
        for (int k = 0; k < words; ++k) row(i)[k] |= add[k];
  }
  void close() {  // Warshall
    for (int m = 0; m < n; ++m)
      for (int i = 0; i < n; ++i)
        if (get(i, m))
          for (int k = 0; k < words; ++k) row(i)[k] |= row(m)[k];
  }
  bool cyclic() const {
    for (int i = 0; i < n; ++i)
      if (get(i, i)) return true;
    return false;
  }
};

}  // namespace

Verdict causal_patterns_reference(const History& h, Level l, bool all_ops) {
  if (l != Level::WCC && l != Level::CCv && l != Level::CM) return Verdict::Unknown;
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].size() != 1) return Verdict::NotApplicable;
  if (h.num_txns() == 0) return Verdict::NotApplicable;
  // Events and read-from, as in build() (without its 32-event masks).
  std::vector<Ev> ev;
  std::vector<int> ev_of(h.ops.size(), -1);
  for (uint32_t o = 0; o < h.ops.size(); ++o) {
    const Txn& x = h.txns[h.op_txn[o]];
    if (!x.committed) continue;
    ev_of[o] = static_cast<int>(ev.size());
    ev.push_back({x.session, h.ops[o].key, h.ops[o].is_write(), kInit});
  }
  const int n = static_cast<int>(ev.size());
  if (n > 400 || (all_ops && l == Level::CM && n > 80)) return Verdict::Unknown;
  for (uint32_t o = 0; o < h.ops.size(); ++o) {
    if (ev_of[o] < 0 || !h.ops[o].is_read()) continue;
    const uint32_t v = h.ops[o].value;
    int src = kThin;
    bool written = false;
    for (uint32_t w = 0; w < h.ops.size(); ++w)
      if (h.ops[w].is_write() && h.ops[w].key == h.ops[o].key && h.ops[w].value == v) {
        written = true;
        src = ev_of[w];
        if (src < 0) src = kThin;
      }
    if (!written) src = (v == kNone || (h.initial && *h.initial == v)) ? kInit : kThin;
    ev[ev_of[o]].src = src;
  }
  auto po = [&](int a, int b) { return a < b && ev[a].proc == ev[b].proc; };
  // WCC: CyclicCO, ThinAirRead, WriteCOInitRead, WriteCORead.
  Bits co(n);
  for (int b = 0; b < n; ++b) {
    for (int a = 0; a < b; ++a)
      if (po(a, b)) co.set(a, b);
    if (!ev[b].write && ev[b].src >= 0) co.set(ev[b].src, b);
  }
  co.close();
  if (co.cyclic()) return Verdict::Fail;
  for (int r = 0; r < n; ++r) {
    if (ev[r].write) continue;
    if (ev[r].src == kThin) return Verdict::Fail;
    for (int w = 0; w < n; ++w) {
      if (!ev[w].write || ev[w].key != ev[r].key) continue;
      if (ev[r].src == kInit && co.get(w, r)) return Verdict::Fail;
      const int w1 = ev[r].src;
      if (w1 >= 0 && w != w1 && co.get(w1, w) && co.get(w, r)) return Verdict::Fail;
    }
  }
  if (l == Level::WCC) return Verdict::Pass;
  if (l == Level::CCv) {
    // cf(w1, w2): w1 != w2 write x, w1 co r, r reads x from w2. CyclicCF: cf ∪ co cyclic.
    Bits rel = co;
    for (int r = 0; r < n; ++r) {
      if (ev[r].write || ev[r].src < 0) continue;
      for (int w1 = 0; w1 < n; ++w1)
        if (ev[w1].write && ev[w1].key == ev[r].key && w1 != ev[r].src && co.get(w1, r)) rel.set(w1, ev[r].src);
    }
    rel.close();
    return rel.cyclic() ? Verdict::Fail : Verdict::Pass;
  }
  // CM: hb_o per Def. 4 for each o (CM_1) or each process's last operation (CM_2).
  for (int o = 0; o < n; ++o) {
    bool last = true;
    for (int b = o + 1; b < n; ++b) last = last && !po(o, b);
    if (!all_ops && !last) continue;
    Bits hb(n);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (co.get(a, b) && co.get(a, o) && (b == o || co.get(b, o))) hb.set(a, b);
    for (bool changed = true; changed;) {
      changed = false;
      for (int r = 0; r < n; ++r) {
        if (ev[r].write || ev[r].src < 0 || !(r == o || po(r, o))) continue;
        const int w2 = ev[r].src;
        for (int w1 = 0; w1 < n; ++w1)
          if (w1 != w2 && ev[w1].write && ev[w1].key == ev[r].key && hb.get(w1, r) && !hb.get(w1, w2)) {
            hb.add_transitive(w1, w2);
            changed = true;
          }
      }
    }
    if (hb.cyclic()) return Verdict::Fail;  // CyclicHB
    for (int r = 0; r < n; ++r) {
      if (ev[r].write || ev[r].src != kInit || !(r == o || po(r, o))) continue;
      for (int w = 0; w < n; ++w)
        if (ev[w].write && ev[w].key == ev[r].key && hb.get(w, r)) return Verdict::Fail;  // WriteHBInitRead
    }
  }
  return Verdict::Pass;
}

}  // namespace isoscope
