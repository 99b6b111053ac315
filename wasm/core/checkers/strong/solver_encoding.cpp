// The polygraph solver's encoding (solver.h): a variable per pair of write nodes that open
// constraints order, and for repeated values a variable per candidate writer of an ambiguous
// read (and one for "another, not yet here"); each literal's edges, with the guards of the
// choice constraints' edges; the reads' clauses, and the choices read back from a solution.
#include <algorithm>

#include "checkers/strong/solver.h"
#include "util/flat_map.h"

namespace isoscope::strong {

void Solver::build() {
  FlatMap64 pair_var;
  std::vector<uint32_t> va, vb;
  struct Tagged {
    Lit lit;
    uint32_t from, to;
    uint32_t guard;  // a candidate index while building, then its literal; kNone: none
  };
  std::vector<Tagged> tagged;
  auto var_for = [&](uint32_t a, uint32_t b) -> Lit {
    const bool swapped = a > b;
    if (swapped) std::swap(a, b);
    const uint32_t v = pair_var.insert((uint64_t(a) << 32) | b, static_cast<uint32_t>(va.size()));
    if (v == va.size()) {
      va.push_back(a);
      vb.push_back(b);
    }
    return 2 * v + (swapped ? 1 : 0);  // the literal "first argument before the second"
  };
  for (const Constraint& c : sat_.open) {
    if (c.y & kConflictFlag) {
      const uint32_t w1 = c.x, w2 = c.y & ~kConflictFlag;
      const Lit l = var_for(w1, w2);
      tagged.push_back({l, w1, w2 - 1, kNone});
      tagged.push_back({negate(l), w2, w1 - 1, kNone});
    } else {
      const uint32_t t1 = p_.reads[c.x].writer, t3 = sat_.reader[c.x], t2 = c.y;
      const Lit l = var_for(t1, t2);
      tagged.push_back({l, t3, t2, kNone});
      tagged.push_back({negate(l), t2, t1, kNone});
    }
  }
  if (hyper_) {
    cand_read_.assign(hyper_->cands.size(), kNone);
    for (uint32_t r = 0; r < hyper_->reads.size(); ++r)
      for (uint32_t ci = hyper_->reads[r].cbeg; ci < hyper_->reads[r].cend; ++ci) cand_read_[ci] = r;
    for (const Constraint& c : hyper_->open) {
      const uint32_t w = hyper_->cands[c.x], t2 = c.y;
      tagged.push_back({var_for(w, t2), hyper_->reads[cand_read_[c.x]].reader, t2, c.x});
    }
  }
  num_pairs_ = static_cast<uint32_t>(va.size());
  if (hyper_) {
    // The candidates' variables, then the "another" variables.
    cand_var_.assign(hyper_->cands.size(), kNone);
    other_var_.assign(hyper_->reads.size(), kNone);
    for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
      const Hyper::Read& rd = hyper_->reads[r];
      for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci) {
        cand_var_[ci] = static_cast<uint32_t>(va.size());
        va.push_back(hyper_->cands[ci]);
        vb.push_back(rd.reader);
      }
    }
    cand_var_count_ = static_cast<uint32_t>(va.size()) - num_pairs_;
    var_read_.resize(cand_var_count_);
    for (uint32_t ci = 0; ci < cand_var_.size(); ++ci)
      if (cand_var_[ci] != kNone) var_read_[cand_var_[ci] - num_pairs_] = cand_read_[ci];
    for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
      const Hyper::Read& rd = hyper_->reads[r];
      if (rd.cbeg + rd.expanded == rd.cend) continue;
      other_var_[r] = static_cast<uint32_t>(va.size());
      va.push_back(rd.reader);
      vb.push_back(rd.reader);
    }
    for (Tagged& t : tagged)
      if (t.guard != kNone) t.guard = 2 * cand_var_[t.guard];
  }
  num_vars_ = static_cast<uint32_t>(va.size());
  for (uint32_t v = 0; v < num_pairs_; ++v) {
    tagged.push_back({2 * v, va[v], vb[v], kNone});
    tagged.push_back({2 * v + 1, vb[v], va[v], kNone});
  }
  for (uint32_t v = num_pairs_; v < num_vars_; ++v)
    if (va[v] != vb[v]) tagged.push_back({2 * v, va[v], vb[v], kNone});  // WR: candidate -> reader
  std::sort(tagged.begin(), tagged.end(), [](const Tagged& x, const Tagged& y) {
    return x.lit != y.lit     ? x.lit < y.lit
           : x.from != y.from ? x.from < y.from
           : x.to != y.to     ? x.to < y.to
                              : x.guard < y.guard;
  });
  tagged.erase(std::unique(tagged.begin(), tagged.end(),
                           [](const Tagged& x, const Tagged& y) {
                             return x.lit == y.lit && x.from == y.from && x.to == y.to &&
                                    x.guard == y.guard;
                           }),
               tagged.end());
  edge_begin_.assign(2 * num_vars_ + 1, 0);
  edges_.reserve(tagged.size());
  edge_lit_.reserve(tagged.size());
  for (const Tagged& t : tagged) {
    ++edge_begin_[t.lit + 1];
    edges_.push_back({t.from, t.to});
    edge_lit_.push_back(t.lit);
    if (t.guard != kNone) {
      if (edge_guard_.empty()) edge_guard_.assign(edges_.size() - 1, kNone);
      edge_guard_.push_back(t.guard);
    } else if (!edge_guard_.empty()) {
      edge_guard_.push_back(kNone);
    }
  }
  for (uint32_t l = 0; l < 2 * num_vars_; ++l) edge_begin_[l + 1] += edge_begin_[l];
  if (!edge_guard_.empty()) {
    // The guarded edges of each candidate literal (added when the second literal is).
    guarded_begin_.assign(2 * num_vars_ + 1, 0);
    for (uint32_t g : edge_guard_)
      if (g != kNone) ++guarded_begin_[g + 1];
    for (uint32_t l = 0; l < 2 * num_vars_; ++l) guarded_begin_[l + 1] += guarded_begin_[l];
    guarded_.resize(guarded_begin_.back());
    std::vector<uint32_t> at(guarded_begin_.begin(), guarded_begin_.end() - 1);
    for (uint32_t e = 0; e < edge_guard_.size(); ++e)
      if (edge_guard_[e] != kNone) guarded_[at[edge_guard_[e]]++] = e;
  }
  va_ = std::move(va);
  vb_ = std::move(vb);

  value_.assign(num_vars_, -1);
  pos_.assign(num_vars_, 0);
  prefer_.assign(num_vars_, -1);
  if (hyper_) {
    for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
      const Hyper::Read& rd = hyper_->reads[r];
      for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci)
        prefer_[cand_var_[ci]] = rd.chosen == ci;
      if (other_var_[r] != kNone) prefer_[other_var_[r]] = 0;
    }
  }
  level_.assign(num_vars_, 0);
  reason_.assign(num_vars_, kNone);
  seen_.assign(num_vars_, 0);
  watches_.assign(2 * num_vars_, {});
  std::vector<uint32_t> first(num_vars_);
  for (uint32_t v = 0; v < num_vars_; ++v) first[v] = std::min(graph_.ord(va_[v]), graph_.ord(vb_[v]));
  var_order_.init(std::move(first));
}

bool Solver::add_read_clauses() {
  if (!hyper_) return true;
  for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
    const Hyper::Read& rd = hyper_->reads[r];
    learnt_.clear();
    for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci) learnt_.push_back(2 * cand_var_[ci]);
    if (other_var_[r] != kNone) learnt_.push_back(2 * other_var_[r]);
    if (learnt_.empty()) return false;
    if (learnt_.size() == 1) {
      if (value_[var_of(learnt_[0])] < 0) assign(learnt_[0], kNone);
    } else {
      add_learnt();
    }
  }
  return true;
}

void Solver::read_choices() {
  for (Hyper::Read& rd : hyper_->reads) {
    if (rd.chosen != kNone && value_[cand_var_[rd.chosen]] == 1) continue;
    rd.chosen = kNone;
    for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded && rd.chosen == kNone; ++ci)
      if (value_[cand_var_[ci]] == 1) rd.chosen = ci;
  }
}

}  // namespace isoscope::strong
