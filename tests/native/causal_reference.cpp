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
  if (search == CausalSearch::Minimal) {
    if (n > 9) return Verdict::Unknown;
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

}  // namespace isoscope
