#include "model/history.h"

#include <algorithm>
#include <cstdio>

#include "util/huge_pages.h"
#include "util/json.h"
#include "util/printable.h"

namespace isoscope {

// ---- errors ---------------------------------------------------------------------------------

// Printable as a whole: the message quotes keys, ids and entry names from the input.
std::string InputError::to_string() const {
  std::string s = file.empty() ? std::string("input") : file;
  if (offset >= 0 || line >= 0) {
    s += ": ";
    if (line >= 0) {
      s += "line " + std::to_string(line);
      if (column >= 0) s += ", column " + std::to_string(column);
      if (offset >= 0) s += " (byte " + std::to_string(offset) + ")";
    } else {
      s += "byte " + std::to_string(offset);
    }
  }
  s += ": " + message;
  return printable(s);
}

void locate_line(std::string_view text, InputError& e) {
  if (e.offset < 0) return;
  size_t end = std::min(static_cast<size_t>(e.offset), text.size());
  int64_t line = 1;
  size_t line_start = 0;
  // CR, LF and CRLF each end one line (a CR right before an LF is part of that line end).
  for (size_t i = 0; i < end; ++i)
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++line;
      line_start = i + 1;
    }
  e.line = line;
  e.column = static_cast<int64_t>(end - line_start) + 1;
}

// ---- interner -------------------------------------------------------------------------------

// A string shown bare reads as nothing but itself: a word of letters, digits and _-.:/@# that
// starts with a letter or _ and is not a word the reports use for no value (nil, null) or a
// boolean. Anything else is quoted: "7", "-1", "nil", "null", "a b", "", "r(x".
static bool plain_word(std::string_view s) {
  if (s.empty() || s == "nil" || s == "null" || s == "true" || s == "false") return false;
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(s[0])) return false;
  for (char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '.' && c != ':' && c != '/' && c != '@' && c != '#')
      return false;
  return true;
}

// In double quotes, with '"' and '\\' escaped; every other byte stays for the output to make safe
// (printable() for a terminal, the JSON writer's escapes), as for every other text.
static std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::string Interner::display(uint32_t id) const {
  switch (kind(id)) {
    case Kind::Int: return std::to_string(as_int(id));
    case Kind::Null: return "null";
    case Kind::Str: {
      const std::string& s = as_str(id);
      if (const uint32_t n = long_number(id)) return shortened(s, std::string(noun_) + " " + std::to_string(n));
      return plain_word(s) ? s : quoted(s);
    }
  }
  return "?";
}

std::string Interner::json(uint32_t id) const {
  switch (kind(id)) {
    case Kind::Int: return std::to_string(as_int(id));
    case Kind::Null: return "null";
    case Kind::Str: return json_quote(as_str(id));
  }
  return "null";
}

size_t Interner::memory_bytes() const {
  size_t b = ints_.memory_bytes() + kinds_.capacity() + payload_.capacity() * sizeof(int64_t);
  for (const auto& s : strings_) b += sizeof(std::string) + s->capacity() + 48;
  return b;
}

// ---- history --------------------------------------------------------------------------------

std::string History::txn_name(uint32_t t) const {
  if (t == kInitialTxn) return "the initial transaction";
  const Txn& x = txns[t];
  const TxnOrigin o = shown(t);
  std::string s = "T" + std::to_string(o.txn) + " (session " + std::to_string(o.session) + " #" +
                  std::to_string(o.index);
  if (x.label != kNone) {
    s += ", id ";
    s += shortened(labels[x.label]);
  }
  return s + ")";
}

std::string History::op_text(uint32_t op) const {
  const Op& o = ops[op];
  std::string k = keys.display(o.key);
  if (o.in_predicate()) {
    std::string s = "select(" + predicates[predicate_reads[o.list].predicate].text + ")";
    if (o.value == kNoRow) return s + " saw no row at key " + k;
    return s + " returned (" + k + ", " + values.display(o.value) + ")";
  }
  switch (o.kind) {
    case OpKind::Read: return "r(" + k + ", " + values.display(o.value) + ")";
    case OpKind::Write: return "w(" + k + ", " + values.display(o.value) + ")";
    case OpKind::Append: return "append(" + k + ", " + values.display(o.value) + ")";
    case OpKind::ListRead: {
      std::string s = "r(" + k + ", [";
      const ListSpan& l = lists[o.list];
      for (uint32_t i = 0; i < l.size; ++i) {
        if (i) s += ' ';
        s += values.display(list_values[l.begin + i]);
      }
      return s + "])";
    }
  }
  return "?";
}

std::string History::predicate_read_text(uint32_t pr) const {
  const PredicateRead& p = predicate_reads[pr];
  std::string s = "select(" + predicates[p.predicate].text + ") = {";
  for (uint32_t o = p.op_begin; o < p.returned_end; ++o) {
    if (o > p.op_begin) s += ", ";
    s += "(" + keys.display(ops[o].key) + ", " + values.display(ops[o].value) + ")";
  }
  return s + "}";
}

// The operations as the input wrote them in [from, op): a predicate read's reads count once, and
// op's own predicate read (when op is one of its later reads) is not before it.
static uint32_t input_ops_before(const History& h, uint32_t from, uint32_t op) {
  if (h.predicate_reads.empty()) return op - from;
  auto first = [&](uint32_t o) { return !h.ops[o].in_predicate() || o == h.predicate_reads[h.ops[o].list].op_begin; };
  uint32_t n = 0;
  for (uint32_t o = from; o < op; ++o) n += first(o);
  return n - !first(op);
}

uint32_t History::input_position(uint32_t op) const { return input_ops_before(*this, txns[op_txn[op]].op_begin, op); }
uint32_t History::input_index(uint32_t op) const { return input_ops_before(*this, 0, op); }

size_t History::memory_bytes() const {
  return txns.capacity() * sizeof(Txn) + times.capacity() * sizeof(Interval) + session_begin.capacity() * 4 +
         ops.capacity() * sizeof(Op) + op_txn.capacity() * 4 + read_from.capacity() * 4 +
         lists.capacity() * sizeof(ListSpan) + list_values.capacity() * 4 + labels.memory_bytes() +
         keys.memory_bytes() + values.memory_bytes() + origin.capacity() * sizeof(TxnOrigin) +
         registers.ops.capacity() * sizeof(RegOp) + registers.micro.capacity() * sizeof(ObjMicro) +
         ambiguous.memory_bytes() + initial_rows.capacity() * 4 + predicate_reads.capacity() * sizeof(PredicateRead);
}

// ---- builder --------------------------------------------------------------------------------

HistoryBuilder::HistoryBuilder(OpLocator* locator) : locator_(locator) {
  h_.txns.emplace_back();  // the initial transaction
}

void HistoryBuilder::reserve(size_t txns, size_t ops) {
  reserve_huge(h_.txns, txns + 1);
  reserve_huge(h_.ops, ops);
  reserve_huge(h_.op_txn, ops);
}

void HistoryBuilder::begin_session() {
  if (in_txn_) end_txn();
  h_.session_begin.push_back(static_cast<uint32_t>(h_.txns.size()));
}

size_t HistoryBuilder::txns_in_current_session() const {
  return h_.session_begin.empty() ? 0 : h_.txns.size() - h_.session_begin.back();
}

void HistoryBuilder::begin_txn() {
  if (in_txn_) end_txn();
  if (h_.session_begin.empty()) begin_session();
  Txn t;
  t.session = static_cast<uint32_t>(h_.session_begin.size() - 1);
  t.index = static_cast<uint32_t>(txns_in_current_session());
  t.op_begin = t.op_end = static_cast<uint32_t>(h_.ops.size());
  h_.txns.push_back(t);
  in_txn_ = true;
}

void HistoryBuilder::push_op(Op op) {
  if (!in_txn_) begin_txn();
  if (locator_) [[unlikely]] note_place(h_.ops.size());
  note_op(op);
  h_.ops.push_back(op);
  h_.op_txn.push_back(static_cast<uint32_t>(h_.txns.size() - 1));
}

void HistoryBuilder::read(uint32_t key, uint32_t value) { push_op(Op{key, value, kNone, OpKind::Read}); }
void HistoryBuilder::write(uint32_t key, uint32_t value) { push_op(Op{key, value, kNone, OpKind::Write}); }
void HistoryBuilder::append(uint32_t key, uint32_t value) {
  h_.has_lists = true;
  push_op(Op{key, value, kNone, OpKind::Append});
}
void HistoryBuilder::list_read(uint32_t key, std::span<const uint32_t> vals) {
  h_.has_lists = true;
  uint32_t list = static_cast<uint32_t>(h_.lists.size());
  h_.lists.push_back({static_cast<uint32_t>(h_.list_values.size()), static_cast<uint32_t>(vals.size())});
  h_.list_values.insert(h_.list_values.end(), vals.begin(), vals.end());
  uint32_t last = vals.empty() ? kNone : vals.back();
  push_op(Op{key, last, list, OpKind::ListRead});
}
void HistoryBuilder::predicate_read(uint32_t predicate, std::span<const std::pair<uint32_t, uint32_t>> rows) {
  const uint32_t b = static_cast<uint32_t>(pending_rows_.size());
  pending_rows_.insert(pending_rows_.end(), rows.begin(), rows.end());
  pending_.push_back({b, static_cast<uint32_t>(pending_rows_.size())});
  // A placeholder (key kNone) that finish() expands; its list is the pending read, and the
  // predicate rides in value.
  push_op(Op{kNone, predicate, static_cast<uint32_t>(pending_.size() - 1), OpKind::Read});
}

void HistoryBuilder::predicate_read_of(uint32_t predicate, std::span<const Op> reads) {
  const uint32_t pr = static_cast<uint32_t>(h_.predicate_reads.size());
  PredicateRead p;
  p.predicate = predicate;
  p.op_begin = static_cast<uint32_t>(h_.ops.size());
  for (const Op& o : reads) push_op(Op{o.key, o.value, pr, OpKind::Read});
  p.op_end = static_cast<uint32_t>(h_.ops.size());
  p.returned_end = p.op_begin;
  while (p.returned_end < p.op_end && h_.ops[p.returned_end].value != kNoRow) ++p.returned_end;
  h_.predicate_reads.push_back(p);
}

void HistoryBuilder::expand_predicate_reads() {
  History& h = h_;
  const uint32_t nk = static_cast<uint32_t>(h.keys.size());
  const size_t total = h.ops.size() + pending_.size() * static_cast<size_t>(nk);
  std::vector<Op> ops;
  std::vector<uint32_t> op_txn;
  reserve_huge(ops, total);
  reserve_huge(op_txn, total);
  std::vector<PredicateRead> reads;
  std::vector<uint32_t> new_read(h.predicate_reads.size(), kNone);
  std::vector<uint32_t> stamp(nk, kNone);
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    Txn& x = h.txns[t];
    const uint32_t begin = static_cast<uint32_t>(ops.size());
    for (uint32_t i = x.op_begin; i < x.op_end; ++i) {
      const Op& o = h.ops[i];
      if (!o.in_predicate()) {
        ops.push_back(o);
        op_txn.push_back(t);
        continue;
      }
      if (o.key != kNone) {  // a read of a predicate read given whole (predicate_read_of)
        if (new_read[o.list] == kNone) {
          const PredicateRead& old = h.predicate_reads[o.list];
          new_read[o.list] = static_cast<uint32_t>(reads.size());
          const uint32_t at = static_cast<uint32_t>(ops.size());
          reads.push_back({old.predicate, at, at + (old.returned_end - old.op_begin), at + (old.op_end - old.op_begin)});
        }
        ops.push_back(Op{o.key, o.value, new_read[o.list], OpKind::Read});
        op_txn.push_back(t);
        continue;
      }
      const PendingRead& p = pending_[o.list];
      const uint32_t pr = static_cast<uint32_t>(reads.size());
      PredicateRead r;
      r.predicate = o.value;
      r.op_begin = static_cast<uint32_t>(ops.size());
      for (uint32_t k = p.begin; k < p.end; ++k) {
        ops.push_back(Op{pending_rows_[k].first, pending_rows_[k].second, pr, OpKind::Read});
        stamp[pending_rows_[k].first] = pr;
      }
      r.returned_end = static_cast<uint32_t>(ops.size());
      for (uint32_t k = 0; k < nk; ++k)
        if (stamp[k] != pr) ops.push_back(Op{k, kNoRow, pr, OpKind::Read});
      r.op_end = static_cast<uint32_t>(ops.size());
      op_txn.resize(ops.size(), t);
      reads.push_back(r);
    }
    x.op_begin = begin;
    x.op_end = static_cast<uint32_t>(ops.size());
  }
  h.ops = std::move(ops);
  h.op_txn = std::move(op_txn);
  h.predicate_reads = std::move(reads);
  pending_.clear();
  pending_rows_.clear();
}

void HistoryBuilder::resolve_predicate_misses() {
  History& h = h_;
  const uint32_t nk = static_cast<uint32_t>(h.keys.size());
  // Per key, its writes in op order.
  std::vector<uint32_t> begin(nk + 1, 0), writes;
  for (const Op& o : h.ops)
    if (o.is_write()) ++begin[o.key + 1];
  for (uint32_t k = 0; k < nk; ++k) begin[k + 1] += begin[k];
  writes.resize(begin[nk]);
  {
    std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
    for (uint32_t i = 0; i < h.ops.size(); ++i)
      if (h.ops[i].is_write()) writes[fill[h.ops[i].key]++] = i;
  }
  AmbiguousReads& A = h.ambiguous;
  if (A.group_begin.empty()) A.group_begin.push_back(0);
  FlatMap64 group_of(64);
  std::vector<uint32_t> cands;
  bool added = false;
  for (const PredicateRead& p : h.predicate_reads) {
    const Predicate& pred = h.predicates[p.predicate];
    for (uint32_t r = p.returned_end; r < p.op_end; ++r) {
      const uint32_t k = h.ops[r].key;
      const uint64_t gk = (static_cast<uint64_t>(p.predicate) << 32) | k;
      uint32_t g = group_of.find(gk);
      if (g == FlatMap64::kAbsent) {
        cands.clear();
        for (uint32_t i = begin[k]; i < begin[k + 1]; ++i)
          if (!predicate_matches(pred, h.keys, k, h.values, h.ops[writes[i]].value)) cands.push_back(writes[i]);
        if (const std::optional<uint32_t> init = h.initial_of(k); init && !predicate_matches(pred, h.keys, k, h.values, *init))
          cands.push_back(kReadsInitial);
        if (cands.size() < 2) {
          h.read_from[r] = cands.empty() ? kThinAir : cands[0];
          continue;
        }
        g = static_cast<uint32_t>(A.group_begin.size() - 1);
        group_of.insert(gk, g);
        A.cands.insert(A.cands.end(), cands.begin(), cands.end());
        A.group_begin.push_back(static_cast<uint32_t>(A.cands.size()));
      }
      h.read_from[r] = kAmbiguous;
      A.op.push_back(r);
      A.group.push_back(g);
      added = true;
    }
  }
  if (!added) return;
  // The ambiguous reads in ascending op order (the repeated values' ones came first).
  std::vector<uint32_t> order(A.op.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return A.op[a] < A.op[b]; });
  std::vector<uint32_t> op(order.size()), group(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) op[i] = A.op[order[i]], group[i] = A.group[order[i]];
  A.op = std::move(op);
  A.group = std::move(group);
}

void HistoryBuilder::set_status(TxnStatus s) {
  if (!in_txn_) begin_txn();
  h_.txns.back().status = s;
}
void HistoryBuilder::set_time(Time start, Time end) {
  if (!in_txn_) begin_txn();
  const size_t t = h_.txns.size() - 1;
  if (h_.times.size() <= t) h_.times.resize(std::max(t + 1, h_.times.size() * 3 / 2));  // amortised
  h_.times[t] = {start, end};
  h_.txns.back().timed = true;
  h_.has_timestamps = true;
}
void HistoryBuilder::set_label(std::string_view label) {
  if (!in_txn_) begin_txn();
  h_.txns.back().label = h_.labels.add(label);
}
void HistoryBuilder::end_txn() {
  if (!in_txn_) return;
  h_.txns.back().op_end = static_cast<uint32_t>(h_.ops.size());
  in_txn_ = false;
}

static std::string place(const History& h, uint32_t op) {
  uint32_t t = h.op_txn[op];
  std::string s = "session " + std::to_string(h.txns[t].session) + ", transaction " +
                  std::to_string(h.txns[t].index);
  if (h.txns[t].label != kNone) {
    s += " (id ";
    s += shortened(h.labels[h.txns[t].label]);
    s += ")";
  }
  return s + ", operation " + std::to_string(h.input_position(op));
}

// The slow path of finish() for histories that write some (key, value) more than once: every
// read of such a pair becomes ambiguous, its candidates every write of the pair (and the
// initial transaction when the value is the initial value). Only the repeated pairs are
// indexed here; the fast path's single-writer resolution stands for the others.
static void resolve_repeated(History& h) {
  const uint32_t n_ops = static_cast<uint32_t>(h.ops.size());
  struct W {
    uint64_t kv;
    uint32_t op;
  };
  std::vector<W> writes;
  for (uint32_t i = 0; i < n_ops; ++i)
    if (h.ops[i].is_write()) writes.push_back({(static_cast<uint64_t>(h.ops[i].key) << 32) | h.ops[i].value, i});
  std::sort(writes.begin(), writes.end(), [](const W& a, const W& b) { return a.kv != b.kv ? a.kv < b.kv : a.op < b.op; });
  // Groups of the pairs written more than once.
  FlatMap64 group_of(64);
  AmbiguousReads& A = h.ambiguous;
  A.group_begin.push_back(0);
  for (size_t i = 0; i < writes.size();) {
    size_t j = i;
    while (j < writes.size() && writes[j].kv == writes[i].kv) ++j;
    const uint32_t key = static_cast<uint32_t>(writes[i].kv >> 32), value = static_cast<uint32_t>(writes[i].kv);
    const bool initial = h.initial_of(key) == value;
    // (In a table the initial transaction writes the pair too: written once more, it repeats.)
    if (j - i > 1 || (h.table && initial)) {
      group_of.insert(writes[i].kv, static_cast<uint32_t>(A.group_begin.size() - 1));
      for (size_t k = i; k < j; ++k) A.cands.push_back(writes[k].op);
      if (initial) A.cands.push_back(kReadsInitial);
      A.group_begin.push_back(static_cast<uint32_t>(A.cands.size()));
      ++h.repeated_pairs;
    }
    i = j;
  }
  for (uint32_t i = 0; i < n_ops; ++i) {
    const Op& o = h.ops[i];
    if (o.kind != OpKind::Read || o.value == kNoRow) continue;  // list reads: appends are never repeated
    const uint32_t g = group_of.find((static_cast<uint64_t>(o.key) << 32) | o.value);
    if (g == FlatMap64::kAbsent) continue;
    h.read_from[i] = kAmbiguous;
    A.op.push_back(i);
    A.group.push_back(g);
  }
}

Expected<History> HistoryBuilder::finish(std::string format, std::string_view file) {
  if (in_txn_) end_txn();
  History& h = h_;
  h.format = std::move(format);
  h.session_begin.push_back(static_cast<uint32_t>(h.txns.size()));  // closes the last session
  if (h.has_timestamps) {
    h.times.resize(h.txns.size());
    h.times.shrink_to_fit();
  }
  if (!h.registers.empty()) {  // an object history: no unique writes, no read-from
    h.read_from.assign(h.ops.size(), kNone);
    for (uint32_t t = 1; t < h.txns.size(); ++t) h.txns[t].committed = h.txns[t].status == TxnStatus::Committed;
    return std::move(h_);
  }
  if (!pending_.empty() || !h.predicate_reads.empty()) {
    // Each predicate read reads every key: estimated before it is built (wasm32 memory).
    const size_t reads = pending_.size() * h.keys.size();
    if (reads > kMaxPredicateReads) {
      InputError e;
      e.file = file;
      e.message = "the history's " + std::to_string(pending_.size()) + " predicate reads over " +
                  std::to_string(h.keys.size()) + " keys read " + std::to_string(reads) +
                  " versions (a predicate read reads every key); at most " + std::to_string(kMaxPredicateReads) +
                  " are checked";
      return e;
    }
    expand_predicate_reads();
  }
  // Unique-writes index: (key, value) -> write op. Most histories write small integer values
  // (direct value ids), so the index is an array by value, with a hash map for the rest (other
  // values, and a value written to several keys).
  const size_t n_ops = h.ops.size();
  const uint32_t max_direct = max_direct_value_;
  const size_t n_writes = n_writes_;
  const bool by_value = static_cast<size_t>(max_direct) <= 8 * n_writes + 1024;
  struct Writer {
    uint32_t op = kNone, key = kNone;  // the key is kept here to avoid a cache miss on ops[op]
  };
  std::vector<Writer> writer_by_value;
  if (by_value) {
    reserve_huge(writer_by_value, static_cast<size_t>(max_direct) + 1);
    writer_by_value.resize(static_cast<size_t>(max_direct) + 1);
  }
  FlatMap64 writes(by_value ? 16 : n_writes + 16);
  auto kv_of = [](const Op& o) { return (static_cast<uint64_t>(o.key) << 32) | o.value; };
  // A repeated pair is noted (the reads of it are resolved by the slow path below); a repeated
  // append is an error: list orders are recovered from unique values.
  bool repeated = false;
  auto duplicate = [&](uint32_t prev, uint32_t i) -> bool {
    if (!repeated) {
      repeated = true;
      h.first_repeat = i;
      h.first_repeat_of = prev;
    }
    return h.ops[i].kind == OpKind::Append || h.ops[prev].kind == OpKind::Append;
  };
  constexpr uint32_t kAhead = 16;  // prefetch distance: the index is accessed at random
  for (uint32_t i = 0; i < n_ops; ++i) {
    if (by_value && i + kAhead < n_ops) {
      const uint32_t v = h.ops[i + kAhead].value;
      if (v <= max_direct) __builtin_prefetch(&writer_by_value[v], 1);
    }
    const Op& o = h.ops[i];
    if (!o.is_write()) continue;
    if (by_value && !(o.value & Interner::kInterned)) {
      Writer& slot = writer_by_value[o.value];
      if (slot.op == kNone) {
        slot = {i, o.key};
        continue;
      }
      if (slot.key == o.key) {
        if (duplicate(slot.op, i)) return *repeated_write_error(h, file);
        continue;
      }
      // Same value on another key: falls through to the hash map.
    }
    uint32_t prev = writes.insert(kv_of(o), i);
    if (prev != i && duplicate(prev, i)) return *repeated_write_error(h, file);
  }
  auto find_write = [&](const Op& o) -> uint32_t {
    if (by_value && !(o.value & Interner::kInterned) && o.value <= max_direct) {
      const Writer& w = writer_by_value[o.value];
      if (w.op == kNone) return kNone;
      if (w.key == o.key) return w.op;
    }
    if (writes.size() == 0) return kNone;
    uint32_t w = writes.find(kv_of(o));
    return w == FlatMap64::kAbsent ? kNone : w;
  };
  auto is_initial = [&](const Op& o) {
    const std::optional<uint32_t> init = h.initial_of(o.key);
    return init && *init == o.value;
  };
  // Resolve reads.
  reserve_huge(h.read_from, n_ops);
  h.read_from.resize(n_ops);
  for (uint32_t i = 0; i < n_ops; ++i) {
    if (by_value && i + kAhead < n_ops) {
      const uint32_t v = h.ops[i + kAhead].value;
      if (v <= max_direct) __builtin_prefetch(&writer_by_value[v]);
    }
    const Op& o = h.ops[i];
    if (!o.is_read()) {
      h.read_from[i] = kNone;
      continue;
    }
    if (o.kind == OpKind::ListRead && o.value == kNone) {  // empty list: the initial state
      h.read_from[i] = kReadsInitial;
      continue;
    }
    if (o.value == kNoRow && o.in_predicate()) {  // resolve_predicate_misses
      h.read_from[i] = kNone;
      continue;
    }
    uint32_t w = find_write(o);
    if (w != kNone)
      h.read_from[i] = w;
    else if (o.kind == OpKind::Read && is_initial(o))
      h.read_from[i] = kReadsInitial;
    else
      h.read_from[i] = kThinAir;
  }
  // In a table the initial state is the initial transaction's write: a transaction that writes a
  // key's initial value again makes the pair repeated.
  bool row_repeated = false;
  for (uint32_t k = 0; h.table && k < h.keys.size() && !row_repeated; ++k)
    if (const std::optional<uint32_t> init = h.initial_of(k))
      row_repeated = find_write(Op{k, *init, kNone, OpKind::Read}) != kNone;
  if (repeated || row_repeated) resolve_repeated(h);
  if (!h.predicate_reads.empty()) resolve_predicate_misses();
  compute_effective_status(h);
  return std::move(h_);
}

void keep_predicate_reads(History& h, const History& from) {
  h.initial_rows = from.initial_rows;
  h.table = from.table;
  h.faults = from.faults;
  h.predicates = from.predicates;
  h.predicate_reads.clear();
  if (from.predicate_reads.empty()) return;
  uint32_t last = kNone;  // the predicate read (in from) the previous kept read belongs to
  for (uint32_t i = 0; i < h.ops.size(); ++i) {
    Op& o = h.ops[i];
    if (!o.in_predicate()) {
      last = kNone;
      continue;
    }
    if (o.list != last || (i > 0 && h.op_txn[i] != h.op_txn[i - 1])) {
      last = o.list;
      h.predicate_reads.push_back({from.predicate_reads[o.list].predicate, i, i, i});
    }
    PredicateRead& p = h.predicate_reads.back();
    o.list = static_cast<uint32_t>(h.predicate_reads.size() - 1);
    p.op_end = i + 1;
    if (o.value != kNoRow) p.returned_end = i + 1;
  }
}

void compute_effective_status(History& h) {
  // Effective status: committed, or unknown and read (transitively) by a committed txn.
  std::vector<uint32_t> work;
  bool any_unknown = false;
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    Txn& x = h.txns[t];
    x.committed = x.status == TxnStatus::Committed;
    any_unknown |= x.status == TxnStatus::Unknown;
  }
  if (any_unknown)
    for (uint32_t t = 1; t < h.txns.size(); ++t)
      if (h.txns[t].committed) work.push_back(t);
  while (!work.empty()) {
    uint32_t t = work.back();
    work.pop_back();
    for (uint32_t i = h.txns[t].op_begin; i < h.txns[t].op_end; ++i) {
      uint32_t w = h.read_from[i];
      if (w >= kThinAir) continue;
      Txn& writer = h.txns[h.op_txn[w]];
      if (!writer.committed && writer.status == TxnStatus::Unknown) {
        writer.committed = true;
        work.push_back(h.op_txn[w]);
      }
    }
  }
}

std::optional<InputError> repeated_write_error(const History& h, std::string_view file) {
  if (h.first_repeat == kNone) return std::nullopt;
  const Op& o = h.ops[h.first_repeat];
  InputError e;
  e.file = file;
  e.message = "key " + h.keys.display(o.key) + " is written with value " + h.values.display(o.value) +
              " twice, at " + place(h, h.first_repeat_of) + " and at " + place(h, h.first_repeat) +
              (o.kind == OpKind::Append ? "; every appended (key, value) must be unique (a list's order is read from its values)"
                                        : "; every (key, value) must be written at most once (--unique-values)");
  // The locator counts operations as the input wrote them.
  e.duplicate_ops[0] = h.input_index(h.first_repeat_of);
  e.duplicate_ops[1] = h.input_index(h.first_repeat);
  return e;
}

uint32_t AmbiguousReads::index_of(uint32_t read_op) const {
  auto it = std::lower_bound(op.begin(), op.end(), read_op);
  return it != op.end() && *it == read_op ? static_cast<uint32_t>(it - op.begin()) : kNone;
}

}  // namespace isoscope
