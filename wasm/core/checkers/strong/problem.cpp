// Instances (the committed transactions) and the SER problems of each level, including the
// PC -> SER and SI -> SER reductions of Biswas & Enea (Sec. 4.2, 4.3).
#include <algorithm>
#include <cmath>
#include <utility>

#include "checkers/strong/internal.h"
#include "checkers/weak/common.h"
#include "graph/digraph.h"
#include "util/flat_map.h"

namespace isoscope::strong {

Instance make_instance(const History& h) {
  Instance in;
  in.h = &h;
  in.num_keys = static_cast<uint32_t>(h.keys.size());
  const weak::Reads R = weak::collect_reads(h);
  std::vector<uint32_t> map(h.txns.size(), kNone);
  map[kInitialTxn] = 0;
  in.orig.push_back(kInitialTxn);
  in.session.push_back(kNone);
  in.sess_begin.push_back(1);
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    bool any = false;
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (!h.txns[t].committed) continue;
      map[t] = static_cast<uint32_t>(in.orig.size());
      in.orig.push_back(t);
      in.session.push_back(static_cast<uint32_t>(in.sess_begin.size()) - 1);
      any = true;
    }
    if (any) in.sess_begin.push_back(static_cast<uint32_t>(in.orig.size()));
  }
  const uint32_t n = in.n();
  in.rbeg.assign(n + 1, 0);
  in.wbeg.assign(n + 1, 0);
  in.times.assign(n, {});
  in.timed.assign(n, 0);
  std::vector<uint32_t> stamp(in.num_keys, kNone);
  for (uint32_t t = 1; t < n; ++t) {
    const uint32_t o = in.orig[t];
    const Txn& x = h.txns[o];
    if (x.has_time()) {
      in.times[t] = h.times[o];
      in.timed[t] = 1;
    }
    in.rbeg[t] = static_cast<uint32_t>(in.reads.size());
    for (uint32_t i = R.begin[o]; i < R.begin[o + 1]; ++i) {
      const uint32_t w = map[R.writer[i]];
      if (w == kNone) continue;  // cannot happen once read consistency holds
      const uint32_t key = h.ops[R.op[i]].key;
      bool dup = false;
      for (uint32_t j = in.rbeg[t]; j < in.reads.size() && !dup; ++j)
        dup = in.reads[j].key == key && in.reads[j].writer == w;
      if (!dup) in.reads.push_back({key, w, R.op[i]});
    }
    in.wbeg[t] = static_cast<uint32_t>(in.wkeys.size());
    for (uint32_t op = x.op_begin; op < x.op_end; ++op) {
      const Op& p = h.ops[op];
      if (!p.is_write() || stamp[p.key] == t) continue;
      stamp[p.key] = t;
      in.wkeys.push_back(p.key);
    }
  }
  in.rbeg[n] = static_cast<uint32_t>(in.reads.size());
  in.wbeg[n] = static_cast<uint32_t>(in.wkeys.size());
  in.rbeg[0] = 0;
  in.wbeg[0] = 0;
  return in;
}

Instance sub_instance(const Instance& in, const std::vector<char>& keep) {
  Instance out;
  out.h = in.h;
  out.num_keys = in.num_keys;
  std::vector<uint32_t> map(in.n(), kNone);
  map[0] = 0;
  out.orig.push_back(in.orig[0]);
  out.session.push_back(kNone);
  out.sess_begin.push_back(1);
  for (uint32_t s = 0; s < in.num_sessions(); ++s) {
    bool any = false;
    for (uint32_t t = in.sess_begin[s]; t < in.sess_begin[s + 1]; ++t) {
      if (!keep[t]) continue;
      map[t] = out.n();
      out.orig.push_back(in.orig[t]);
      out.session.push_back(out.num_sessions());
      any = true;
    }
    if (any) out.sess_begin.push_back(out.n());
  }
  const uint32_t n = out.n();
  out.rbeg.assign(n + 1, 0);
  out.wbeg.assign(n + 1, 0);
  out.times.assign(n, {});
  out.timed.assign(n, 0);
  for (uint32_t t = 1; t < in.n(); ++t) {
    const uint32_t u = map[t];
    if (u == kNone) continue;
    out.times[u] = in.times[t];
    out.timed[u] = in.timed[t];
    out.rbeg[u] = static_cast<uint32_t>(out.reads.size());
    for (uint32_t i = in.rbeg[t]; i < in.rbeg[t + 1]; ++i) {
      Instance::Read r = in.reads[i];
      if (map[r.writer] == kNone) continue;
      r.writer = map[r.writer];
      out.reads.push_back(r);
    }
    out.wbeg[u] = static_cast<uint32_t>(out.wkeys.size());
    for (uint32_t i = in.wbeg[t]; i < in.wbeg[t + 1]; ++i) out.wkeys.push_back(in.wkeys[i]);
  }
  out.rbeg[n] = static_cast<uint32_t>(out.reads.size());
  out.wbeg[n] = static_cast<uint32_t>(out.wkeys.size());
  return out;
}

ReadsByWriter::ReadsByWriter(const Problem& p) : beg(static_cast<size_t>(p.n) + 1, 0), reads(p.reads.size()) {
  for (const Problem::Read& r : p.reads) ++beg[r.writer + 1];
  for (uint32_t v = 0; v < p.n; ++v) beg[v + 1] += beg[v];
  std::vector<uint32_t> at(beg.begin(), beg.end() - 1);
  for (uint32_t i = 0; i < p.reads.size(); ++i) reads[at[p.reads[i].writer]++] = i;
}

void compute_outs(Problem& p) {
  // The reads' keys grouped by writer, each writer's ascending: a radix sort (by key, then
  // stably by writer; a comparison sort of every read took 2-4% of a check), then counted.
  const uint32_t nr = static_cast<uint32_t>(p.reads.size());
  std::vector<uint32_t> kbeg(p.num_keys + 1, 0), by_key(nr);
  for (const Problem::Read& r : p.reads) ++kbeg[r.key + 1];
  for (uint32_t x = 0; x < p.num_keys; ++x) kbeg[x + 1] += kbeg[x];
  for (uint32_t i = 0; i < nr; ++i) by_key[kbeg[p.reads[i].key]++] = i;
  std::vector<uint32_t> beg(p.n + 1, 0), keys(nr);
  for (const Problem::Read& r : p.reads) ++beg[r.writer + 1];
  for (uint32_t v = 0; v < p.n; ++v) beg[v + 1] += beg[v];
  {
    std::vector<uint32_t> at(beg.begin(), beg.end() - 1);
    for (uint32_t i : by_key) keys[at[p.reads[i].writer]++] = p.reads[i].key;
  }
  p.obeg.assign(p.n + 1, 0);
  p.outs.clear();
  for (uint32_t v = 0; v < p.n; ++v) {
    p.obeg[v] = static_cast<uint32_t>(p.outs.size());
    for (uint32_t i = beg[v]; i < beg[v + 1];) {
      uint32_t j = i;
      while (j < beg[v + 1] && keys[j] == keys[i]) ++j;
      p.outs.push_back({keys[i], j - i});
      i = j;
    }
  }
  p.obeg[p.n] = static_cast<uint32_t>(p.outs.size());
}

// Real-time predecessors (SSER): for each node v and each session c, an edge from the last
// transaction q of c (in session order) that ends before v starts. Every earlier transaction of
// c precedes q in session order, hence v in any commit order: one edge per (v, c) suffices, and
// none when v's session predecessor already has one from q or later.
void add_real_time(const Instance& in, Problem& p) {
  const uint32_t k = p.k;
  struct E {
    Time end;
    uint32_t node;
  };
  std::vector<std::vector<E>> by_end(k);
  std::vector<std::vector<uint32_t>> best(k);  // prefix max of node over by_end
  for (uint32_t c = 0; c < k; ++c) {
    for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v)
      if (in.timed[v]) by_end[c].push_back({in.times[v].end, v});
    std::sort(by_end[c].begin(), by_end[c].end(), [](const E& a, const E& b) { return a.end < b.end; });
    uint32_t m = 0;
    for (const E& e : by_end[c]) {
      m = std::max(m, e.node);
      best[c].push_back(m);
    }
  }
  std::vector<uint32_t> last(k, 0);
  for (uint32_t s = 0; s < k; ++s) {
    std::fill(last.begin(), last.end(), 0);
    for (uint32_t v = p.chain_begin[s]; v < p.chain_begin[s + 1]; ++v) {
      if (!in.timed[v]) continue;
      const Time st = in.times[v].start;
      for (uint32_t c = 0; c < k; ++c) {
        const std::vector<E>& es = by_end[c];
        size_t lo = std::lower_bound(es.begin(), es.end(), st,
                                     [](const E& e, const Time& x) { return e.end < x; }) -
                    es.begin();
        if (lo == 0) continue;
        const uint32_t q = best[c][lo - 1];
        if (q <= last[c]) continue;
        last[c] = q;
        if (c == s && q < v) continue;  // session order already has it
        p.fixed.push_back({q, v, EdgeType::RT});
      }
    }
  }
}

namespace {

// List-append histories: a list read shows the order of its key's appends, which is the
// order their transactions commit in at every level here (a list is its appends in commit
// order). Each key's longest list read among in's transactions (the others are its prefixes
// once read consistency holds) gives the version order that register histories leave to the
// polygraph, as known edges (Elle's dependency graph):
//   WW  the writers of consecutive elements; the last shown before each append no read shows
//       (those come after every shown one);
//   RW  a list read before the writer of the element after its last (before the appends no
//       read shows, when it saw the last shown one and they are few).
// Elements whose writer is not in the instance are skipped: the order of the others is kept (a
// projection of the history's order, so a violation found with it is one of the history).
void add_list_orders(const Instance& in, Problem& p, bool split) {
  const History& h = *in.h;
  const uint32_t n = in.n();
  FlatMap64 writer(in.wkeys.size() * 2 + 16);  // (key, appended value) -> instance txn
  std::vector<uint32_t> longest(p.num_keys, kNone), reader(p.num_keys, kNone);  // list read op
  for (uint32_t t = 1; t < n; ++t) {
    const Txn& x = h.txns[in.orig[t]];
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      const Op& op = h.ops[o];
      if (op.kind == OpKind::Append) {
        writer.insert((uint64_t(op.key) << 32) | op.value, t);
      } else if (op.kind == OpKind::ListRead &&
                 (longest[op.key] == kNone ||
                  h.lists[op.list].size > h.lists[h.ops[longest[op.key]].list].size)) {
        longest[op.key] = o;
        reader[op.key] = t;
      }
    }
  }
  auto write_node = [&](uint32_t t) { return split ? 2 * t : t; };
  // Per key, its writers in list order (CSR), and each writer's place in it (by in.wkeys).
  std::vector<uint32_t> obeg(p.num_keys + 1, 0), ordered, placed(in.wkeys.size(), kNone);
  auto write_of = [&](uint32_t key, uint32_t t) {  // t's write of key (an index into in.wkeys)
    for (uint32_t q = in.wbeg[t]; q < in.wbeg[t + 1]; ++q)
      if (in.wkeys[q] == key) return q;
    return kNone;
  };
  for (uint32_t key = 0; key < p.num_keys; ++key) {
    obeg[key] = static_cast<uint32_t>(ordered.size());
    if (longest[key] == kNone) continue;
    const ListSpan& l = h.lists[h.ops[longest[key]].list];
    const uint32_t read_node = split ? 2 * reader[key] - 1 : reader[key];
    for (uint32_t i = 0; i < l.size; ++i) {
      const uint32_t w = writer.find((uint64_t(key) << 32) | h.list_values[l.begin + i]);
      if (w == FlatMap64::kAbsent || (ordered.size() > obeg[key] && ordered.back() == w)) continue;
      if (ordered.size() > obeg[key])
        p.fixed.push_back({write_node(ordered.back()), write_node(w), EdgeType::WW, key, read_node, longest[key]});
      placed[write_of(key, w)] = static_cast<uint32_t>(ordered.size());  // w appends to key
      ordered.push_back(w);
    }
  }
  obeg[p.num_keys] = static_cast<uint32_t>(ordered.size());
  // The appenders no read shows, per key, after the last shown writer.
  std::vector<uint32_t> unseen_beg(p.num_keys + 1, 0), unseen;
  {
    std::vector<std::pair<uint32_t, uint32_t>> u;  // (key, txn)
    for (uint32_t t = 1; t < n; ++t)
      for (uint32_t q = in.wbeg[t]; q < in.wbeg[t + 1]; ++q) {
        const uint32_t key = in.wkeys[q];
        if (obeg[key] != obeg[key + 1] && placed[q] == kNone)
          u.push_back({key, t});
      }
    std::sort(u.begin(), u.end());
    for (const auto& [key, t] : u) {
      ++unseen_beg[key + 1];
      unseen.push_back(t);
      p.fixed.push_back({write_node(ordered[obeg[key + 1] - 1]), write_node(t), EdgeType::WW, key,
                         split ? 2 * reader[key] - 1 : reader[key], longest[key]});
    }
    for (uint32_t key = 0; key < p.num_keys; ++key) unseen_beg[key + 1] += unseen_beg[key];
  }
  size_t to_unseen = 0;  // RW edges to unseen appenders: at most linear in the reads
  for (uint32_t v = 1; v < p.n; ++v)
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      const Problem::Read& r = p.reads[i];
      if (h.ops[r.op].kind != OpKind::ListRead || obeg[r.key] == obeg[r.key + 1]) continue;
      uint32_t next = obeg[r.key];  // the index of the writer after the one read
      if (r.writer != 0) {
        const uint32_t q = write_of(r.key, p.txn[r.writer]);
        if (q == kNone || placed[q] == kNone) continue;
        const uint32_t at = placed[q];
        next = at + 1;
      }
      if (next < obeg[r.key + 1]) {
        if (ordered[next] != p.txn[v])
          p.fixed.push_back({v, write_node(ordered[next]), EdgeType::RW, r.key, r.writer, r.op});
        continue;
      }
      for (uint32_t j = unseen_beg[r.key]; j < unseen_beg[r.key + 1] && to_unseen <= p.reads.size(); ++j, ++to_unseen)
        if (unseen[j] != p.txn[v]) p.fixed.push_back({v, write_node(unseen[j]), EdgeType::RW, r.key, r.writer, r.op});
    }
}

}  // namespace

Problem make_problem(const Instance& in, Level level, bool real_time) {
  Problem p;
  p.level = level;
  p.num_keys = in.num_keys;
  p.k = in.num_sessions();
  const bool split = level == Level::PC || level == Level::SI;
  p.si = level == Level::SI;
  const uint32_t n = in.n();
  p.n = split ? 2 * n - 1 : n;
  p.chain_begin.resize(p.k + 1);
  for (uint32_t c = 0; c <= p.k; ++c) p.chain_begin[c] = split ? 2 * in.sess_begin[c] - 1 : in.sess_begin[c];
  p.chain.assign(p.n, kNone);
  p.txn.assign(p.n, 0);
  p.part.assign(p.n, Part::Whole);
  for (uint32_t c = 0; c < p.k; ++c)
    for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v) p.chain[v] = c;
  auto write_node = [&](uint32_t t) { return t == 0 ? 0 : split ? 2 * t : t; };
  p.rbeg.assign(p.n + 1, 0);
  p.wbeg.assign(p.n + 1, 0);
  for (uint32_t t = 1; t < n; ++t) {
    const uint32_t r = split ? 2 * t - 1 : t, w = write_node(t);
    p.txn[r] = t;
    p.txn[w] = t;
    if (split) {
      p.part[r] = Part::Read;
      p.part[w] = Part::Write;
    }
    // Nodes are numbered in order, so the CSR arrays fill in node order.
    p.rbeg[r] = static_cast<uint32_t>(p.reads.size());
    for (uint32_t i = in.rbeg[t]; i < in.rbeg[t + 1]; ++i)
      p.reads.push_back({in.reads[i].key, write_node(in.reads[i].writer), in.reads[i].op});
    if (split) {
      p.wbeg[r] = static_cast<uint32_t>(p.wkeys.size());
      p.rbeg[w] = static_cast<uint32_t>(p.reads.size());
    }
    p.wbeg[w] = static_cast<uint32_t>(p.wkeys.size());
    for (uint32_t i = in.wbeg[t]; i < in.wbeg[t + 1]; ++i) p.wkeys.push_back(in.wkeys[i]);
  }
  p.rbeg[p.n] = static_cast<uint32_t>(p.reads.size());
  p.wbeg[p.n] = static_cast<uint32_t>(p.wkeys.size());
  compute_outs(p);
  if (in.h->has_lists) add_list_orders(in, p, split);
  if (level == Level::SSER && real_time) add_real_time(in, p);
  return p;
}

std::vector<uint32_t> known_order(const Problem& p) {
  // Kahn's algorithm over the chains, the reads and p.fixed.
  DigraphBuilder known(p.n);
  for (uint32_t v = 1; v < p.n; ++v) {
    known.add(p.chain_pred(v), v);
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) known.add(p.reads[i].writer, v);
  }
  for (const Problem::Edge& e : p.fixed) known.add(e.from, e.to);
  std::vector<uint32_t> order = topological_order(known.build());  // empty: a cycle of known edges
  if (!order.empty() && order[0] != 0) return {};
  return order;
}

Problem sub_problem(const Problem& p, const std::vector<char>& keep_chain,
                    std::vector<uint32_t>& node_map) {
  Problem q;
  q.level = p.level;
  q.num_keys = p.num_keys;
  q.si = p.si;
  node_map.assign(p.n, kNone);
  node_map[0] = 0;
  q.chain_begin.push_back(1);
  q.chain.push_back(kNone);
  q.txn.push_back(0);
  q.part.push_back(Part::Whole);
  for (uint32_t c = 0; c < p.k; ++c) {
    if (!keep_chain[c]) continue;
    for (uint32_t v = p.chain_begin[c]; v < p.chain_begin[c + 1]; ++v) {
      node_map[v] = static_cast<uint32_t>(q.txn.size());
      q.chain.push_back(q.k);
      q.txn.push_back(p.txn[v]);
      q.part.push_back(p.part[v]);
    }
    ++q.k;
    q.chain_begin.push_back(static_cast<uint32_t>(q.txn.size()));
  }
  q.n = static_cast<uint32_t>(q.txn.size());
  q.rbeg.assign(q.n + 1, 0);
  q.wbeg.assign(q.n + 1, 0);
  for (uint32_t v = 1; v < p.n; ++v) {
    const uint32_t u = node_map[v];
    if (u == kNone) continue;
    q.rbeg[u] = static_cast<uint32_t>(q.reads.size());
    for (uint32_t i = p.rbeg[v]; i < p.rbeg[v + 1]; ++i) {
      Problem::Read r = p.reads[i];
      if (node_map[r.writer] == kNone) continue;
      r.writer = node_map[r.writer];
      q.reads.push_back(r);
    }
    q.wbeg[u] = static_cast<uint32_t>(q.wkeys.size());
    for (uint32_t i = p.wbeg[v]; i < p.wbeg[v + 1]; ++i) q.wkeys.push_back(p.wkeys[i]);
  }
  q.rbeg[q.n] = static_cast<uint32_t>(q.reads.size());
  q.wbeg[q.n] = static_cast<uint32_t>(q.wkeys.size());
  for (const Problem::Edge& e : p.fixed)
    if (node_map[e.from] != kNone && node_map[e.to] != kNone) {
      Problem::Edge f = e;
      f.from = node_map[e.from];
      f.to = node_map[e.to];
      q.fixed.push_back(f);
    }
  compute_outs(q);
  return q;
}

}  // namespace isoscope::strong
