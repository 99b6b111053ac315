// The choice layer's refutations: proofs that every choice fails (chooser.h).
#include "checkers/choice/chooser.h"

#include "checkers/counterexample.h"
#include "checkers/explain.h"
#include "model/anomaly_kinds.h"

namespace isoscope::choice {

// Why it is sound. Let T (committed) read key x before writing it, then write x, and let it
// read x from W. Under SER, W is the last writer of x before T in the commit order, and T
// writes x: no writer of x comes between W and T, so T comes right after W in x's version
// order. Under SI, W is the last writer of x that T's snapshot sees; a writer W' of x after W
// and before T would be unseen by T, so concurrent with it, and both write x: forbidden (first
// committer wins). SSER implies SER. So in every choice and commit order satisfying the level,
// these readers of x read from pairwise distinct writers (each version has one next version),
// none from itself, each from one of its read's candidates (those that read consistency and
// session order leave: reading any other fails every level). When no such assignment exists
// (a maximum bipartite matching leaves a reader out), every choice fails; the witness is the
// set S of readers an alternating search from that reader reaches, whose candidates are |S| - 1
// writers, all of them taken by S (Hall's theorem). PC allows lost updates, so not PC.
bool Chooser::updates_outnumber_versions(LevelResult& out) {
  // (Proved for reads of one value and one initial value.)
  if ((level_ != Level::SI && level_ != Level::SER && level_ != Level::SSER) || h_.has_rows()) return false;
  // The readers per key (their read op), each with its writer transactions adj[begin, end).
  std::vector<std::vector<uint32_t>> readers_of(h_.keys.size());
  std::vector<uint32_t> read_op, adj_begin, adj;
  std::vector<uint32_t> read_stamp(h_.keys.size(), kNone), write_stamp(h_.keys.size(), kNone);
  std::vector<uint32_t> pending, seen(h_.txns.size(), kNone);
  for (uint32_t t = 1; t < h_.txns.size(); ++t) {
    if (h_.txns[t].status != TxnStatus::Committed) continue;
    pending.clear();
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      const uint32_t k = h_.ops[o].key;
      if (h_.ops[o].is_write()) {
        write_stamp[k] = t;
      } else if (h_.ops[o].is_read() && write_stamp[k] != t && read_stamp[k] != t) {
        read_stamp[k] = t;
        pending.push_back(o);
      }
    }
    for (uint32_t o : pending) {
      const uint32_t k = h_.ops[o].key;
      if (write_stamp[k] != t) continue;  // T reads x but does not write it
      const uint32_t begin = static_cast<uint32_t>(adj.size());
      auto add = [&](uint32_t u) {
        if (u != t && u != kThinAir && seen[u] != o) seen[u] = o, adj.push_back(u);
      };
      if (h_.read_from[o] == kAmbiguous) {
        auto it = var_of_op_.find(o);
        if (it == var_of_op_.end()) continue;
        std::vector<uint32_t> d = choosable(vars_[it->second]);
        if (level_ == Level::SSER) prune_by_real_time(vars_[it->second], d);  // (sound there)
        for (uint32_t w : d) add(h_.candidate_txn(w));
      } else {
        add(h_.writer_txn(o));
      }
      if (adj.size() == begin) continue;  // (read consistency fails it already)
      readers_of[k].push_back(static_cast<uint32_t>(read_op.size()));
      read_op.push_back(o);
      adj_begin.push_back(begin);
    }
  }
  adj_begin.push_back(static_cast<uint32_t>(adj.size()));
  std::vector<uint32_t> owner(h_.txns.size(), kNone), visit(h_.txns.size(), 0), touched;
  uint32_t stamp = 0;
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // (reader, next adj index)
  std::vector<uint32_t> reached;                      // the readers the last search reached
  size_t steps = 0;
  // An augmenting path from reader r0 (iterative: the stack may be as deep as the readers).
  auto augment = [&](uint32_t r0) {
    ++stamp;
    reached.assign(1, r0);
    stack.assign(1, {r0, adj_begin[r0]});
    while (!stack.empty()) {
      auto& [r, i] = stack.back();
      if (i == adj_begin[r + 1]) {
        stack.pop_back();
        continue;
      }
      const uint32_t w = adj[i++];
      if (visit[w] == stamp) continue;
      visit[w] = stamp;
      if (owner[w] != kNone) {
        reached.push_back(owner[w]);
        stack.push_back({owner[w], adj_begin[owner[w]]});
        continue;
      }
      for (const auto& [fr, fi] : stack) {  // each reader on the path takes the writer it went by
        const uint32_t fw = adj[fi - 1];
        if (owner[fw] == kNone) touched.push_back(fw);
        owner[fw] = fr;
      }
      return true;
    }
    return false;
  };
  for (uint32_t k = 0; k < readers_of.size(); ++k) {
    for (uint32_t w : touched) owner[w] = kNone;
    touched.clear();
    for (uint32_t r : readers_of[k]) {
      if ((++steps & 255) == 0 && budget_.expired()) return false;
      if (augment(r)) continue;
      // A Hall violator: the readers reached, and the writers visited (all owned by them).
      std::vector<uint32_t> S(reached.begin(), reached.end()), N;
      ++stamp;
      for (uint32_t r2 : S)
        for (uint32_t q = adj_begin[r2]; q < adj_begin[r2 + 1]; ++q)
          if (visit[adj[q]] != stamp) visit[adj[q]] = stamp, N.push_back(adj[q]);
      std::sort(S.begin(), S.end(), [&](uint32_t a, uint32_t b) { return read_op[a] < read_op[b]; });
      std::sort(N.begin(), N.end());
      Anomaly a;
      a.kind = AnomalyKind::LostUpdate;
      std::vector<uint32_t> readers;
      for (uint32_t r2 : S) {
        readers.push_back(h_.op_txn[read_op[r2]]);
        a.ops.push_back(read_op[r2]);
      }
      a.txns = readers;
      a.txns.insert(a.txns.end(), N.begin(), N.end());
      const std::string key = h_.keys.display(h_.ops[read_op[S[0]]].key);
      std::string reads;  // the reads' texts, each once
      size_t kinds = 0;
      for (uint32_t r2 : S) {
        const std::string t = h_.op_text(read_op[r2]);
        if (reads.find(t) != std::string::npos) continue;
        if (++kinds > 3) {
          reads += ", ...";
          break;
        }
        reads += (kinds > 1 ? ", " : "") + t;
      }
      a.explanation = "Values written more than once: " + txns_text(h_, readers, "and", "", 4) + " each read " + key +
                      " (" + reads + ") and then write " + key + ", and each may read it only from " + txns_text(h_, N, "and", "", 4) + " (" +
                      std::to_string(N.size()) + " writer" + (N.size() == 1 ? "" : "s") + " for " +
                      std::to_string(S.size()) + " transactions). A transaction that reads " + key +
                      " and overwrites it must come right after the version it read (under " +
                      level_name(level_) + " a write in between would be lost to it), so no two of them can read the same version: " +
                      "with any choice of writers, one of these updates is lost";
      out = failure_of(std::move(a));
      return true;
    }
  }
  return false;
}

std::vector<uint32_t> Chooser::writer_txns(uint32_t t, uint32_t o) {
  std::vector<uint32_t> ws;
  if (h_.read_from[o] == kAmbiguous) {
    auto it = var_of_op_.find(o);
    if (it != var_of_op_.end())
      for (uint32_t w : choosable(vars_[it->second])) ws.push_back(h_.candidate_txn(w));
  } else if (const uint32_t u = h_.writer_txn(o); u != kThinAir) {
    ws.push_back(u);
  }
  ws.erase(std::remove(ws.begin(), ws.end(), t), ws.end());
  std::sort(ws.begin(), ws.end());
  ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
  return ws;
}

// Why it is sound. Let committed T read key x twice, r1 then r2, before T's first write of x,
// from writers W1 and W2 (candidates of r1 and r2; reading any other fails every level). When
// the two reads have no candidate in common, W1 != W2 in every choice. RR requires such reads
// to read from one writer. RA and the levels above it (CC, PC, SI, SER, SSER) require, for a
// read of x from W and another writer W' of x that precedes T by session order or reads-from,
// that W' commits before W: W2 precedes T by reads-from and writes x, so W2 before W1; and W1
// before W2 likewise: a contradiction. RC allows it (a non-repeatable read), and the causal
// models are left to their enumeration.
bool Chooser::reads_cannot_repeat(LevelResult& out) {
  // (Proved for reads of one value and one initial value; a predicate read's miss of a key is
  // no read of it at RR.)
  if (!is_transactional(level_) || level_ == Level::RC || h_.has_rows()) return false;
  std::vector<uint32_t> write_stamp(h_.keys.size(), kNone);
  std::vector<uint32_t> reads;  // this transaction's reads before its write of their key
  for (uint32_t t = 1; t < h_.txns.size(); ++t) {
    if (h_.txns[t].status != TxnStatus::Committed) continue;
    if ((t & 1023) == 0 && budget_.expired()) return false;
    reads.clear();
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      const uint32_t k = h_.ops[o].key;
      if (h_.ops[o].is_write()) write_stamp[k] = t;
      else if (h_.ops[o].is_read() && write_stamp[k] != t) reads.push_back(o);
    }
    for (size_t i = 0; i < reads.size(); ++i)
      for (size_t j = i + 1; j < reads.size(); ++j) {
        const uint32_t r1 = reads[i], r2 = reads[j];
        if (h_.ops[r1].key != h_.ops[r2].key) continue;
        if (h_.read_from[r1] != kAmbiguous && h_.read_from[r2] != kAmbiguous) continue;  // (the checker's)
        const std::vector<uint32_t> a = writer_txns(t, r1), b = writer_txns(t, r2);
        if (a.empty() || b.empty()) continue;
        std::vector<uint32_t> both;
        std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
        if (!both.empty()) continue;
        Anomaly an;
        an.kind = AnomalyKind::NonRepeatableRead;
        an.txns = {t};
        an.ops = {r1, r2};
        const std::string key = h_.keys.display(h_.ops[r1].key);
        an.explanation = "Values written more than once: " + short_name(h_, t) + " reads " + key +
                         " twice before writing it, " + h_.op_text(r1) + " (which may read from " +
                         txns_text(h_, a, "or", "any of ", 4) + ") and then " + h_.op_text(r2) + " (from " + txns_text(h_, b, "or", "any of ", 4) +
                         "). No transaction is a candidate of both, so with any choice of writers the two reads " +
                         "see different versions of " + key +
                         (level_ == Level::RR ? std::string(": a non-repeatable read, which RR forbids")
                                              : ", which " + std::string(level_name(level_)) +
                                                    " forbids (each writer would have to commit before the other)");
        out = failure_of(std::move(an));
        return true;
      }
  }
  return false;
}

bool Chooser::fixed_reads_fail(LevelResult& out) {
  std::vector<char> keep(h_.txns.size(), 1), drop(h_.ops.size(), 0);
  bool any = false;
  for (const Var& v : vars_)
    if (v.valid > 1) drop[v.op] = any = 1;
  Anomaly a;
  if (!any || !projection_fails(keep, drop, a, &fixed_order_)) return false;
  out = failure_of(std::move(a));
  return true;
}

bool Chooser::projection_fails(const std::vector<char>& keep, const std::vector<char>& drop, Anomaly& a,
                               std::vector<uint32_t>* pass_order) {
  // The kept transactions and operations, in the order project_history numbers them.
  std::vector<uint32_t> txn_of(1, kInitialTxn), op_of;
  for (size_t s = 0; s < h_.num_sessions(); ++s)
    for (uint32_t t = h_.session_begin[s]; t < h_.session_begin[s + 1]; ++t) {
      if (!keep[t] || t == kInitialTxn) continue;
      txn_of.push_back(t);
      for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
        if (h_.ops[o].is_read()) {
          const uint32_t w = h_.writer_txn(o);
          if (drop[o] || !(w == kInitialTxn || w == kThinAir || keep[w])) continue;
        }
        op_of.push_back(o);
      }
    }
  const History sub = project_history(h_, keep, &drop, AmbiguousProjection::AsIs);
  if (sub.ops.size() != op_of.size() || sub.txns.size() != txn_of.size()) return false;
  std::string reason;
  if (!level_applies(sub, level_, reason)) return false;
  LevelResult r = decide(sub, budget_);
  auto txn = [&](uint32_t t) { return t < txn_of.size() ? txn_of[t] : t; };
  if (r.verdict == Verdict::Pass && pass_order) {
    pass_order->clear();
    for (uint32_t t : r.commit_order) pass_order->push_back(txn(t));
  }
  if (r.verdict != Verdict::Fail || r.anomalies.empty()) return false;
  a = std::move(r.anomalies[0]);
  auto op = [&](uint32_t o) { return o < op_of.size() ? op_of[o] : o; };
  for (uint32_t& t : a.txns) t = txn(t);
  for (uint32_t& o : a.ops) o = op(o);
  for (AnomalyEdge& e : a.edges) {
    e.from_txn = txn(e.from_txn);
    e.to_txn = txn(e.to_txn);
    e.from_op = op(e.from_op);
    e.to_op = op(e.to_op);
  }
  return true;
}

}  // namespace isoscope::choice
