#include "reference.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace isoscope {

namespace {

// Writer transaction of a read op (kInitialTxn for the initial value), or kNone for thin air.
uint32_t writer_of(const History& h, uint32_t r) {
  const uint32_t w = h.read_from[r];
  if (w == kReadsInitial) return kInitialTxn;
  if (w == kThinAir || w == kNone) return kNone;
  return h.op_txn[w];
}

// Reads-from choices. A (key, value) written more than once may be read from any of its writes
// (and from the initial transaction when the value is the initial value): the reference finds
// these itself, from the operations, and tries every combination.
struct Choices {
  std::vector<uint32_t> read;                // the ambiguous reads
  std::vector<std::vector<uint32_t>> cands;  // their candidates (write ops, kReadsInitial)
  double combinations = 1;
};

Choices find_choices(const History& h) {
  Choices c;
  for (uint32_t r = 0; r < h.ops.size(); ++r) {
    if (h.ops[r].kind != OpKind::Read) continue;
    const uint32_t key = h.ops[r].key;
    const std::optional<uint32_t> init = h.initial_of(key);
    std::vector<uint32_t> ws;
    if (h.ops[r].in_predicate() && h.ops[r].value == kNoRow) {
      // A predicate read's key it did not return: any version of the key that does not match.
      const Predicate& p = h.predicates[h.predicate_reads[h.ops[r].list].predicate];
      for (uint32_t w = 0; w < h.ops.size(); ++w)
        if (h.ops[w].is_write() && h.ops[w].key == key && !predicate_matches(p, h.keys, key, h.values, h.ops[w].value))
          ws.push_back(w);
      if (init && !predicate_matches(p, h.keys, key, h.values, *init)) ws.push_back(kReadsInitial);
      if (ws.empty()) continue;  // thin air
      c.combinations *= static_cast<double>(ws.size());
      c.read.push_back(r);
      c.cands.push_back(std::move(ws));
      continue;
    }
    for (uint32_t w = 0; w < h.ops.size(); ++w)
      if (h.ops[w].is_write() && h.ops[w].key == key && h.ops[w].value == h.ops[r].value) ws.push_back(w);
    // (An initial row is the initial transaction's write: written again, its pair repeats.)
    const bool row = h.table && init == h.ops[r].value;
    if (ws.size() < 2 && !(row && ws.size() == 1)) continue;
    if (init && *init == h.ops[r].value) ws.push_back(kReadsInitial);
    c.combinations *= static_cast<double>(ws.size());
    c.read.push_back(r);
    c.cands.push_back(std::move(ws));
  }
  return c;
}

// h with read r reading cands[r][pick[r]], and the effective status that follows: committed,
// or unknown and read by a committed transaction (transitively).
History with_choice(const History& h, const Choices& c, const std::vector<uint32_t>& pick) {
  History x;
  x.txns = h.txns;
  x.session_begin = h.session_begin;
  x.ops = h.ops;
  x.op_txn = h.op_txn;
  x.read_from = h.read_from;
  x.initial = h.initial;
  x.initial_rows = h.initial_rows;
  x.table = h.table;
  x.predicates = h.predicates;
  x.predicate_reads = h.predicate_reads;
  x.has_timestamps = h.has_timestamps;
  x.times = h.times;
  x.keys = h.keys;
  for (uint32_t r = 0; r < x.ops.size(); ++r)  // a miss no version explains (the others are choices)
    if (x.ops[r].in_predicate() && x.ops[r].value == kNoRow) x.read_from[r] = kThinAir;
  for (size_t i = 0; i < c.read.size(); ++i) x.read_from[c.read[i]] = c.cands[i][pick[i]];
  for (uint32_t t = 1; t < x.txns.size(); ++t) x.txns[t].committed = x.txns[t].status == TxnStatus::Committed;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t r = 0; r < x.ops.size(); ++r) {
      const uint32_t w = x.read_from[r];
      if (!x.ops[r].is_read() || !x.txns[x.op_txn[r]].committed || w == kReadsInitial || w == kThinAir || w == kNone)
        continue;
      Txn& wt = x.txns[x.op_txn[w]];
      if (!wt.committed && wt.status == TxnStatus::Unknown) wt.committed = changed = true;
    }
  }
  return x;
}

// Calls f on every choice until it returns true; whether one did. Unknown when too many.
template <class F>
std::optional<bool> any_choice(const History& h, F&& f) {
  const Choices c = find_choices(h);
  if (c.read.empty() && h.predicate_reads.empty()) return f(h);
  if (c.combinations > 20000) return std::nullopt;
  std::vector<uint32_t> pick(c.read.size(), 0);
  while (true) {
    if (f(with_choice(h, c, pick))) return true;
    size_t i = 0;
    while (i < pick.size() && ++pick[i] == c.cands[i].size()) pick[i++] = 0;
    if (i == pick.size()) return false;
  }
}

bool read_consistent_resolved(const History& h);
Verdict check_resolved(const History& h, Level l);

}  // namespace

bool reference_read_consistent(const History& h) {
  return any_choice(h, [](const History& x) { return read_consistent_resolved(x); }).value_or(false);
}

Verdict reference_check(const History& h, Level l) {
  switch (l) {
    case Level::RC: case Level::RR: case Level::RA: case Level::CC:
    case Level::PC: case Level::SI: case Level::SER: case Level::SSER: break;
    default: return Verdict::Unknown;
  }
  if (l == Level::SSER && !h.has_timestamps) return Verdict::NotApplicable;
  bool unknown = false;
  const std::optional<bool> pass = any_choice(h, [&](const History& x) {
    const Verdict v = check_resolved(x, l);
    unknown |= v == Verdict::Unknown;
    return v == Verdict::Pass;
  });
  if (!pass) return Verdict::Unknown;
  return *pass ? Verdict::Pass : unknown ? Verdict::Unknown : Verdict::Fail;
}

namespace {

bool read_consistent_resolved(const History& h) {
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const Txn& tx = h.txns[t];
    if (!tx.committed) continue;
    for (uint32_t r = tx.op_begin; r < tx.op_end; ++r) {
      if (!h.ops[r].is_read()) continue;
      const uint32_t key = h.ops[r].key;
      const uint32_t w = h.read_from[r];
      // (a) no thin-air reads
      if (w == kThinAir || w == kNone) return false;
      const uint32_t writer = writer_of(h, r);
      // (b) no aborted reads
      if (writer != kInitialTxn && !h.txns[writer].committed) return false;
      // (c) no future reads: not r -po-> w
      if (writer == t && w > r) return false;
      // (d) observe own writes: a read from another transaction has no own write to the key
      //     before it
      if (writer != t)
        for (uint32_t o = tx.op_begin; o < r; ++o)
          if (h.ops[o].is_write() && h.ops[o].key == key) return false;
      // (e) observe latest write: every w' after w in w's transaction writing the key comes
      //     after r (the initial transaction writes each key once)
      if (writer != kInitialTxn) {
        const Txn& wt = h.txns[writer];
        for (uint32_t o = w + 1; o < wt.op_end; ++o)
          if (h.ops[o].is_write() && h.ops[o].key == key && !(writer == t && r < o)) return false;
      }
    }
  }
  return true;
}

Verdict check_resolved(const History& h, Level l) {
  if (!read_consistent_resolved(h)) return Verdict::Fail;

  // Committed transactions: node 0 is the initial transaction.
  std::vector<uint32_t> txn = {kInitialTxn};
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].committed) txn.push_back(t);
  const size_t n = txn.size();
  if (n > 13) return Verdict::Unknown;
  std::vector<uint32_t> node(h.txns.size(), kNone);
  for (size_t i = 0; i < n; ++i) node[txn[i]] = static_cast<uint32_t>(i);

  // External reads (a read of another transaction's write): (reader node, op, key, writer node).
  struct Read {
    uint32_t t3, op, key, t1;
  };
  std::vector<Read> reads;
  for (size_t i = 1; i < n; ++i) {
    const Txn& tx = h.txns[txn[i]];
    for (uint32_t r = tx.op_begin; r < tx.op_end; ++r) {
      if (!h.ops[r].is_read()) continue;
      const uint32_t w = writer_of(h, r);
      if (w == txn[i]) continue;  // own write
      reads.push_back({static_cast<uint32_t>(i), r, h.ops[r].key, node[w]});
    }
  }
  const size_t nk = h.keys.size();
  auto writes = [&](uint32_t a, uint32_t key) {
    if (a == 0) return true;  // the initial transaction writes every key
    const Txn& tx = h.txns[txn[a]];
    for (uint32_t o = tx.op_begin; o < tx.op_end; ++o)
      if (h.ops[o].is_write() && h.ops[o].key == key) return true;
    return false;
  };
  std::vector<std::vector<char>> wk(n, std::vector<char>(nk, 0));
  for (size_t a = 0; a < n; ++a)
    for (uint32_t k = 0; k < nk; ++k) wk[a][k] = writes(static_cast<uint32_t>(a), k);

  // so, wr, so ∪ wr, (so ∪ wr)+, real time.
  std::vector<std::vector<char>> so(n, std::vector<char>(n, 0)), wr = so, sowr = so, hb = so,
                                                                 rt = so;
  for (size_t b = 1; b < n; ++b) so[0][b] = 1;
  for (size_t a = 1; a < n; ++a)
    for (size_t b = 1; b < n; ++b) {
      const Txn &x = h.txns[txn[a]], &y = h.txns[txn[b]];
      so[a][b] = x.session == y.session && x.index < y.index;
      rt[a][b] = x.has_time() && y.has_time() && h.times[txn[a]].end < h.times[txn[b]].start;
    }
  for (const Read& r : reads) wr[r.t1][r.t3] = 1;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) hb[a][b] = sowr[a][b] = so[a][b] || wr[a][b];
  for (size_t m = 0; m < n; ++m)
    for (size_t a = 0; a < n; ++a)
      if (hb[a][m])
        for (size_t b = 0; b < n; ++b)
          if (hb[m][b]) hb[a][b] = 1;

  // RR's extra condition does not depend on co: reads of a key before the transaction's first
  // write to it all come from one writer.
  if (l == Level::RR) {
    for (size_t i = 1; i < n; ++i) {
      const Txn& tx = h.txns[txn[i]];
      std::vector<uint32_t> seen(nk, kNone);
      std::vector<char> written(nk, 0);
      for (uint32_t o = tx.op_begin; o < tx.op_end; ++o) {
        const Op& op = h.ops[o];
        if (op.is_write()) written[op.key] = 1;
        if (!op.is_read() || written[op.key]) continue;
        if (op.in_predicate() && op.value == kNoRow) continue;  // a phantom: allowed at RR
        const uint32_t w = writer_of(h, o);
        if (seen[op.key] == kNone) seen[op.key] = w;
        if (seen[op.key] != w) return Verdict::Fail;
      }
    }
  }

  // The reads of one predicate read happen at one point: neither is before the other in po.
  auto same_point = [&](uint32_t a, uint32_t b) {
    return h.ops[a].in_predicate() && h.ops[b].in_predicate() && h.ops[a].list == h.ops[b].list;
  };
  // Whether a total order satisfies the level's axiom(s); pos[a] is a's place in co.
  std::vector<uint32_t> pos(n, 0);
  auto satisfies_axiom = [&]() {
    auto co = [&](uint32_t a, uint32_t b) { return pos[a] < pos[b]; };
    auto co_star = [&](uint32_t a, uint32_t b) { return a == b || pos[a] < pos[b]; };
    for (const Read& alpha : reads) {
      const uint32_t t1 = alpha.t1, t3 = alpha.t3, x = alpha.key;
      for (uint32_t t2 = 0; t2 < n; ++t2) {
        if (t2 == t1 || !wk[t2][x]) continue;
        bool phi = false, phi2 = false;
        switch (l) {
          case Level::RC:
          case Level::RR:
            for (const Read& beta : reads)
              if (beta.t3 == t3 && beta.op < alpha.op && beta.t1 == t2 && !same_point(beta.op, alpha.op)) phi = true;
            break;
          case Level::RA: phi = sowr[t2][t3]; break;
          case Level::CC: phi = hb[t2][t3]; break;
          case Level::PC:
          case Level::SI:
            for (uint32_t t4 = 0; t4 < n; ++t4)
              if (co_star(t2, t4) && sowr[t4][t3]) phi = true;
            if (l == Level::SI)
              for (uint32_t t4 = 0; t4 < n; ++t4) {
                if (!co_star(t2, t4) || !co(t4, t3)) continue;
                for (uint32_t y = 0; y < nk; ++y)
                  if (wk[t4][y] && wk[t3][y]) phi2 = true;
              }
            break;
          case Level::SER:
          case Level::SSER: phi = co(t2, t3); break;
          default: break;
        }
        if ((phi || phi2) && !co(t2, t1)) return false;
      }
    }
    return true;
  };

  // co must extend so ∪ wr (and real time for SSER).
  std::vector<std::vector<char>> before(n, std::vector<char>(n, 0));
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) before[a][b] = sowr[a][b] || (l == Level::SSER && rt[a][b]);

  // Every total order of the committed transactions that extends `before` (the initial
  // transaction comes first because it precedes everything in so): a depth-first enumeration
  // of linear extensions, extending the prefix with any transaction all of whose
  // predecessors are placed. Explicit stack: choice[d] is the candidate tried at depth d.
  std::vector<char> placed(n, 0);
  std::vector<uint32_t> order(n, 0), choice(n, 0);
  auto ready = [&](uint32_t c) {
    if (placed[c]) return false;
    for (uint32_t a = 0; a < n; ++a)
      if (before[a][c] && !placed[a]) return false;
    return true;
  };
  size_t depth = 0;
  choice[0] = 0;
  while (true) {
    if (depth == n) {
      for (size_t i = 0; i < n; ++i) pos[order[i]] = static_cast<uint32_t>(i);
      if (satisfies_axiom()) return Verdict::Pass;
      // backtrack
      --depth;
      placed[order[depth]] = 0;
      ++choice[depth];
      continue;
    }
    uint32_t c = choice[depth];
    while (c < n && !ready(c)) ++c;
    if (c < n) {
      choice[depth] = c;
      order[depth] = c;
      placed[c] = 1;
      ++depth;
      if (depth < n) choice[depth] = 0;
      continue;
    }
    if (depth == 0) break;  // every extension tried
    --depth;
    placed[order[depth]] = 0;
    ++choice[depth];
  }
  return Verdict::Fail;
}

}  // namespace

}  // namespace isoscope
