// The choice layer: nogoods learned from failing choices, the next choice, and the words of a
// failure that rests on choices (chooser.h).
#include "checkers/choice/chooser.h"

#include "checkers/counterexample.h"
#include "checkers/explain.h"

namespace isoscope::choice {

// The sub-history of the transactions in_s (committed under the current choice): their
// operations, less the reads of writers outside it (a projection: fewer constraints).
History Chooser::project(const std::vector<char>& in_s) {
  History s;
  s.txns.push_back(work_.txns[0]);
  std::unordered_map<uint32_t, uint32_t> op_map;
  std::vector<uint32_t> orig;
  for (size_t c = 0; c < work_.num_sessions(); ++c) {
    bool any = false;
    for (uint32_t t = work_.session_begin[c]; t < work_.session_begin[c + 1]; ++t) {
      if (!in_s[t] || !work_.txns[t].committed) continue;
      if (!any) s.session_begin.push_back(static_cast<uint32_t>(s.txns.size()));
      any = true;
      Txn x = work_.txns[t];
      x.session = static_cast<uint32_t>(s.session_begin.size() - 1);
      x.index = static_cast<uint32_t>(s.txns.size() - s.session_begin.back());
      x.op_begin = static_cast<uint32_t>(s.ops.size());
      x.label = kNone;
      x.status = TxnStatus::Committed;
      x.committed = true;
      const uint32_t nt = static_cast<uint32_t>(s.txns.size());
      for (uint32_t o = work_.txns[t].op_begin; o < work_.txns[t].op_end; ++o) {
        if (work_.ops[o].is_read()) {
          const uint32_t u = work_.writer_txn(o);
          if (u == kThinAir || (u != kInitialTxn && u != t && !in_s[u])) continue;
        }
        op_map[o] = static_cast<uint32_t>(s.ops.size());
        orig.push_back(o);
        s.ops.push_back(work_.ops[o]);
        s.op_txn.push_back(nt);
      }
      x.op_end = static_cast<uint32_t>(s.ops.size());
      s.txns.push_back(x);
      if (!work_.times.empty()) {
        s.times.resize(s.txns.size());
        s.times.back() = work_.times[t];
      }
    }
  }
  s.session_begin.push_back(static_cast<uint32_t>(s.txns.size()));
  s.read_from.resize(s.ops.size(), kNone);
  for (uint32_t i = 0; i < s.ops.size(); ++i) {
    if (!s.ops[i].is_read()) continue;
    const uint32_t w = work_.read_from[orig[i]];
    s.read_from[i] = w == kReadsInitial ? kReadsInitial : op_map.at(w);
  }
  s.initial = work_.initial;
  keep_predicate_reads(s, work_);
  s.has_timestamps = work_.has_timestamps;
  s.format = work_.format;
  return s;
}

void Chooser::whole_choice(std::vector<std::pair<uint32_t, uint32_t>>& lits) const {
  lits.clear();
  for (uint32_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].valid > 1) lits.push_back({i, cur_[i]});
}

bool Chooser::learn_from(const Anomaly& a, std::vector<std::pair<uint32_t, uint32_t>>& lits) {
  if (is_causal_model(level_)) return false;
  std::vector<char> in_s(h_.txns.size(), 0);
  in_s[kInitialTxn] = 1;
  for (uint32_t t : a.txns) in_s[t] = 1;
  for (const AnomalyEdge& e : a.edges) in_s[e.from_txn] = in_s[e.to_txn] = 1;
  // Does the projection fail on its own? The interners are lent to it for the check.
  History s = project(in_s);
  s.keys = std::move(work_.keys);
  s.values = std::move(work_.values);
  CheckBudget b = budget_;
  const Verdict v = decide(s, b).verdict;
  work_.keys = std::move(s.keys);
  work_.values = std::move(s.values);
  if (v != Verdict::Fail) return false;
  lits.clear();
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].valid < 2) continue;
    const uint32_t u = h_.candidate_txn(cur_[i]);
    // Inside S; or an unknown writer, whose reader makes it (and what it reads) committed.
    if ((in_s[vars_[i].txn] && in_s[u]) || (u != kInitialTxn && h_.txns[u].status == TxnStatus::Unknown))
      lits.push_back({i, cur_[i]});
  }
  return true;
}

// The next choice that satisfies every nogood: a backtracking search over the vars they
// mention (domains in order of preference, the current value first); false when none is left
// (or the budget ran out: budget_.expired() tells).
bool Chooser::next_choice() {
  std::vector<uint32_t> order;
  std::unordered_map<uint32_t, uint32_t> pos_of;
  std::unordered_map<uint64_t, std::vector<uint32_t>> occ;
  for (uint32_t n = 0; n < nogoods_.size(); ++n)
    for (auto [v, w] : nogoods_[n]) {
      if (pos_of.emplace(v, static_cast<uint32_t>(order.size())).second) order.push_back(v);
      occ[(static_cast<uint64_t>(v) << 32) | w].push_back(n);
    }
  std::vector<std::vector<uint32_t>> dom(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    auto it = domains_.find(order[k]);
    if (it == domains_.end()) it = domains_.emplace(order[k], domain(vars_[order[k]])).first;
    dom[k] = it->second;
    auto c = std::find(dom[k].begin(), dom[k].end(), cur_[order[k]]);
    if (c != dom[k].end()) std::rotate(dom[k].begin(), c, c + 1);
  }
  std::vector<uint32_t> cnt(nogoods_.size(), 0), at(order.size(), 0);
  auto lits_of = [&](size_t k, uint32_t w) -> const std::vector<uint32_t>* {
    auto it = occ.find((static_cast<uint64_t>(order[k]) << 32) | w);
    return it == occ.end() ? nullptr : &it->second;
  };
  // Assign dom[k][at[k]]; false (undone) when it completes a nogood.
  auto assign = [&](size_t k) {
    const std::vector<uint32_t>* ns = lits_of(k, dom[k][at[k]]);
    if (!ns) return true;
    bool ok = true;
    for (uint32_t n : *ns) ok &= ++cnt[n] < nogoods_[n].size();
    if (!ok)
      for (uint32_t n : *ns) --cnt[n];
    return ok;
  };
  auto unassign = [&](size_t k) {
    if (const std::vector<uint32_t>* ns = lits_of(k, dom[k][at[k]]))
      for (uint32_t n : *ns) --cnt[n];
  };
  size_t k = 0, steps = 0;
  while (k < order.size()) {
    if ((++steps & 1023) == 0 && budget_.expired()) return false;
    bool placed = false;
    for (; at[k] < dom[k].size(); ++at[k])
      if (assign(k)) {
        placed = true;
        break;
      }
    if (placed) {
      ++k;
      if (k < order.size()) at[k] = 0;
      continue;
    }
    if (k == 0) return false;  // every choice is refuted
    --k;
    unassign(k);
    ++at[k];
  }
  for (size_t j = 0; j < order.size(); ++j) cur_[order[j]] = dom[j][at[j]];
  return true;
}

// Names the ambiguous reads a failure rests on: those of its nogood and those the anomaly
// shows, each with its candidates, and the choice shown.
Anomaly Chooser::annotate(Anomaly a, const std::vector<std::pair<uint32_t, uint32_t>>& lits) const {
  std::vector<uint32_t> reads;  // ambiguous read ops
  for (auto [v, w] : lits) reads.push_back(vars_[v].op);
  auto note = [&](uint32_t op) {
    if (op != kNone && op < h_.ops.size() && h_.read_from[op] == kAmbiguous &&
        std::find(reads.begin(), reads.end(), op) == reads.end())
      reads.push_back(op);
  };
  for (uint32_t op : a.ops) note(op);
  for (const AnomalyEdge& e : a.edges) note(e.to_op), note(e.from_op);
  if (reads.empty()) return a;
  std::string s, chosen;
  for (size_t i = 0; i < reads.size() && i < 4; ++i) {
    const uint32_t op = reads[i];
    if (i) s += "; ", chosen += ", ";
    s += h_.op_text(op) + " of " + short_name(h_, h_.op_txn[op]) + " may read from " + candidates_text(h_, op);
    auto v = std::find_if(vars_.begin(), vars_.end(), [&](const Var& x) { return x.op == op; });
    const uint32_t w = v != vars_.end() ? best_cur_[v - vars_.begin()] : work_.read_from[op];
    chosen += h_.op_text(op) + " from " + short_name(h_, h_.candidate_txn(w));
  }
  if (reads.size() > 4) s += "; and " + std::to_string(reads.size() - 4) + " more such reads";
  a.explanation = "Values written more than once: " + s + ". With any choice " +
                  (reads.size() == 1 ? "of its" : "of their") + " writers, " + level_name(level_) +
                  " fails; shown with " + chosen + ": " + a.explanation;
  return a;
}

}  // namespace isoscope::choice
