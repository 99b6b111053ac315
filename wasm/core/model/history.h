// The history model every format reads into and every checker reads from.
//
// Layout (all flat arrays, ids are dense indexes):
//   txns[0]            the distinguished initial transaction (writes the initial value of every
//                      key, precedes every other transaction in session order; it has no ops)
//   txns[1..]          the recorded transactions, session after session, each in session order;
//                      session s holds txns [session_begin[s], session_begin[s+1])
//   ops                every operation, transaction after transaction, in program order;
//                      transaction t holds ops [txns[t].op_begin, txns[t].op_end)
//   keys / values      interned: an op stores a KeyId and a ValueId
//   read_from[op]      for a read, the write op it reads (resolved once by the writes index),
//                      kReadsInitial, kThinAir, or kAmbiguous; kNone for writes
//   ambiguous          the reads of a (key, value) written more than once (kAmbiguous in
//                      read_from) and their candidate writers; empty for unique-value histories
//
// Semantics are those of docs/formats.md: a read reads from the write of its (key, value), or
// from any of them when the pair is written more than once (the checkers decide whether SOME
// choice satisfies a level); reads of the initial value come from txns[0]; unknown
// transactions count as committed exactly when a committed transaction reads one of their
// writes (transitively; for ambiguous reads, under the choice being checked).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/errors.h"
#include "model/interner.h"
#include "model/predicates.h"
#include "model/registers.h"
#include "model/time.h"

namespace isoscope {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr uint32_t kInitialTxn = 0;
constexpr uint32_t kReadsInitial = 0xFFFFFFFEu;  // read_from: the initial transaction's write
constexpr uint32_t kAmbiguous = 0xFFFFFFFDu;     // read_from: several candidates (History::ambiguous)
constexpr uint32_t kThinAir = 0xFFFFFFFCu;       // read_from: nobody wrote this value

enum class OpKind : uint8_t {
  Read,      // ["r", k, v]
  Write,     // ["w", k, v]
  Append,    // ["append", k, v]: treated as a unique write of v to k
  ListRead,  // ["r", k, [v1..vn]]: reads the writer of vn (the initial state when empty)
};
enum class TxnStatus : uint8_t { Committed, Aborted, Unknown };
// "committed", "aborted", "unknown": the status as the isoscope format writes it.
inline const char* txn_status_name(TxnStatus s) {
  return s == TxnStatus::Committed ? "committed" : s == TxnStatus::Aborted ? "aborted" : "unknown";
}

struct Op {
  uint32_t key;
  uint32_t value;  // ListRead: the last element, or kNone for the empty list; a predicate
                   // read's key it did not return: kNoRow
  uint32_t list;   // ListRead: index into History::lists; a Read of a predicate read: index into
                   // History::predicate_reads; otherwise kNone
  OpKind kind;
  bool is_read() const { return kind == OpKind::Read || kind == OpKind::ListRead; }
  bool is_write() const { return kind == OpKind::Write || kind == OpKind::Append; }
  // One of a predicate read's reads (History::predicate_reads), which happen at one point.
  bool in_predicate() const { return kind == OpKind::Read && list != kNone; }
};

// The value of a predicate read's read of a key it did not return: some version of the key
// that does not match the predicate (absence included), a choice like a repeated value's.
constexpr uint32_t kNoRow = kNone;
// At most this many reads of keys by predicate reads (predicate reads x keys): 16 bytes each
// with their resolution.
constexpr size_t kMaxPredicateReads = size_t{1} << 26;

// A predicate read (docs/formats.md, "Rows that come and go"): it reads a version of every key
// of the history at one point of its transaction (Adya's version set). Its reads are ops
// [op_begin, op_end): first the rows it returned, [op_begin, returned_end), each a Read of the
// row's value; then one Read of value kNoRow per other key, whose candidates are the versions
// of the key that do not match (History::ambiguous, or read_from when there is one).
struct PredicateRead {
  uint32_t predicate = 0;  // History::predicates
  uint32_t op_begin = 0, returned_end = 0, op_end = 0;
};

struct Txn {
  uint32_t session = kNone;  // kNone for the initial transaction
  uint32_t index = 0;        // 0-based position in its session
  uint32_t op_begin = 0, op_end = 0;
  uint32_t label = kNone;  // index into History::labels (the original transaction id)
  TxnStatus status = TxnStatus::Committed;  // as recorded
  bool committed = true;                    // effective (see header comment)
  bool timed = false;                       // real time recorded: History::times[t]
  bool has_time() const { return timed; }
  uint32_t size() const { return op_end - op_begin; }
};

struct ListSpan {
  uint32_t begin, size;  // into History::list_values
};

// Transaction labels (the ids the input gave transactions) in one character pool: a label is a
// string_view, so a million labels cost their characters and 8 bytes each, not a std::string
// each.
class LabelPool {
 public:
  uint32_t add(std::string_view s) {
    chars_.append(s);
    end_.push_back(chars_.size());
    return static_cast<uint32_t>(end_.size() - 1);
  }
  std::string_view operator[](uint32_t i) const {
    const size_t b = i ? end_[i - 1] : 0;
    return std::string_view(chars_).substr(b, end_[i] - b);
  }
  size_t size() const { return end_.size(); }
  void reserve(size_t labels, size_t chars) {
    end_.reserve(labels);
    chars_.reserve(chars);
  }
  size_t memory_bytes() const { return chars_.capacity() + end_.capacity() * sizeof(size_t); }

 private:
  std::string chars_;
  std::vector<size_t> end_;  // label i is chars_[end_[i-1], end_[i])
};

// The reads whose (key, value) is written more than once, with their candidate writers. Reads
// of one (key, value) share one candidate group, so a value written w times and read r times
// costs O(w + r), not O(w * r).
struct AmbiguousReads {
  std::vector<uint32_t> op;           // the ambiguous read ops, ascending
  std::vector<uint32_t> group;        // op[i]'s candidate group
  std::vector<uint32_t> group_begin;  // group g: cands[group_begin[g], group_begin[g + 1])
  std::vector<uint32_t> cands;        // write ops (ascending), then kReadsInitial if it is one
  size_t size() const { return op.size(); }
  bool empty() const { return op.empty(); }
  // The index of read_op in op, or kNone.
  uint32_t index_of(uint32_t read_op) const;
  std::span<const uint32_t> candidates_at(uint32_t i) const {
    const uint32_t g = group[i];
    return {cands.data() + group_begin[g], group_begin[g + 1] - group_begin[g]};
  }
  std::span<const uint32_t> candidates(uint32_t read_op) const {
    const uint32_t i = index_of(read_op);
    return i == kNone ? std::span<const uint32_t>{} : candidates_at(i);
  }
  size_t memory_bytes() const {
    return (op.capacity() + group.capacity() + group_begin.capacity() + cands.capacity()) * 4;
  }
};

// Where a transaction of a counterexample came from: its number, session and position in the
// history the counterexample was cut from, so that whoever opens a shared counterexample can
// find its transactions in their own history.
// A fault injected while the history was recorded (docs/formats.md, "Faults"): a server's
// processes paused or crashed (and started again), on the transactions' clock.
struct FaultSpan {
  std::string kind;  // "pause", "crash", ... (as the input names it)
  std::string node;  // which server, as the input names it ("" when it does not say)
  Time start, end;
  std::string note;  // what did not go as planned, when the input says
};

struct TxnOrigin {
  uint32_t txn = 0, session = 0, index = 0;
};

struct History {
  std::vector<Txn> txns;
  std::vector<uint32_t> session_begin;  // size = sessions + 1
  std::vector<Op> ops;
  std::vector<uint32_t> op_txn;     // owning transaction of each op
  std::vector<uint32_t> read_from;  // see header comment
  AmbiguousReads ambiguous;         // see header comment
  // (key, value) pairs written more than once, and the first such second write met with the
  // write it repeats (for --unique-values' error; kNone when every pair is written once).
  size_t repeated_pairs = 0;
  uint32_t first_repeat = kNone, first_repeat_of = kNone;
  // Real time per transaction, exact (model/time.h): times[t] where txns[t].has_time(); empty
  // when no transaction carries times (most histories: no cost).
  std::vector<Interval> times;
  std::vector<ListSpan> lists;
  std::vector<uint32_t> list_values;
  LabelPool labels;
  Interner keys;
  Interner values{/*direct_small_ints=*/true, "value"};
  // ValueId every key holds before any write; nullopt: no implicit initial value (every read
  // must name an explicit write, as in the awdit-test format).
  std::optional<uint32_t> initial;
  // Rows that come and go (docs/formats.md): the initial rows, per key the value it holds before
  // any write (kNone: `initial`; empty when the history names no rows); the predicates and the
  // predicate reads. Null is absence.
  std::vector<uint32_t> initial_rows;
  PredicateTable predicates;
  std::vector<PredicateRead> predicate_reads;
  // The value key holds before any write, or nullopt.
  std::optional<uint32_t> initial_of(uint32_t key) const {
    if (key < initial_rows.size() && initial_rows[key] != kNone) return initial_rows[key];
    return initial;
  }
  // A table (docs/formats.md, "Rows that come and go": the input names rows, or selects,
  // inserts, updates or deletes): null is absence, and the initial state is the initial
  // transaction's write, so a transaction that writes a key's initial value again (a row deleted
  // and inserted with its old value, absence written by a delete) makes the reads of that pair
  // a choice. What the choice layer's searches over values (one initial value, reads of one
  // value) do not model.
  bool table = false;
  bool has_rows() const { return table; }
  std::vector<FaultSpan> faults;  // in the order they began
  std::string format;  // the format it was read from

  size_t num_sessions() const { return session_begin.size() - 1; }
  size_t num_txns() const { return txns.size() - 1; }  // without the initial transaction
  size_t num_ops() const { return ops.size(); }
  bool has_timestamps = false;  // some transaction carries start/end
  bool has_lists = false;       // some append or list read
  // What the importer read but left out of ops, counted by reason (dbcop-bincode events with
  // success = 0, Elle operations of the :nemesis, reads never observed): reported, so nothing
  // is dropped silently. dropped_events is their total.
  struct Dropped {
    std::string reason;
    size_t count;
  };
  // The reason of the operations of processes that are no clients (:nemesis): the readers
  // that leave them out and the Jepsen writer, which writes them back, name them by it.
  static constexpr std::string_view kNotClients = "operations of processes that are not clients (:nemesis)";
  std::vector<Dropped> dropped;
  size_t dropped_events = 0;
  // A non-transactional object history (model/registers.h): its operations as the object
  // model sees them. Empty (model None) for a transactional history.
  Registers registers;
  // For a counterexample: per transaction (origin[0] for the initial one) its identity in the
  // original history, which had origin_txns transactions. Empty: the history is its own origin.
  std::vector<TxnOrigin> origin;
  size_t origin_txns = 0;
  bool has_origin() const { return !origin.empty(); }
  // What reports call transaction t: its number, session and position in the original history.
  TxnOrigin shown(uint32_t t) const {
    if (has_origin()) return origin[t];
    return {t, txns[t].session, txns[t].index};
  }

  // Writer transaction of a read op: a txn id, kInitialTxn, or kThinAir (also for an ambiguous
  // read, which has no single writer: see ambiguous).
  uint32_t writer_txn(uint32_t read_op) const {
    uint32_t w = read_from[read_op];
    if (w == kReadsInitial) return kInitialTxn;
    if (w >= kThinAir) return kThinAir;
    return op_txn[w];
  }
  // Transaction of a candidate (a write op or kReadsInitial).
  uint32_t candidate_txn(uint32_t cand) const { return cand == kReadsInitial ? kInitialTxn : op_txn[cand]; }
  // "T3 (session 1, #2, id t7)" style name used in explanations.
  std::string txn_name(uint32_t t) const;
  // The last write of transaction t to key (an op id), or kNone (also for the initial
  // transaction, whose writes are implicit).
  uint32_t last_write_of(uint32_t t, uint32_t key) const {
    if (t == kInitialTxn || key == kNone) return kNone;
    for (uint32_t i = txns[t].op_end; i-- > txns[t].op_begin;)
      if (ops[i].is_write() && ops[i].key == key) return i;
    return kNone;
  }
  // "r(x, 1) from T2 (session 0 #1)" / "r(x, 0) (the initial value)".
  std::string read_text(uint32_t read_op, uint32_t writer_txn) const {
    return op_text(read_op) + (writer_txn == kInitialTxn ? std::string(" (the initial value)")
                                                         : " from " + txn_name(writer_txn));
  }
  std::string op_text(uint32_t op) const;  // "r(x, 1)", "w(x, 1)", "append(x, 3)", "r(x, [1 2])"
  // A predicate read's op as one: "select(value % 3 = 0) = {(1, 30), (3, 30)}".
  std::string predicate_read_text(uint32_t predicate_read) const;
  // The operation's position in its transaction as the input wrote it (a predicate read's reads
  // are one operation there), and its index among all operations so counted.
  uint32_t input_position(uint32_t op) const;
  uint32_t input_index(uint32_t op) const;
  size_t memory_bytes() const;
};

// Finding where two operations come from in a file (the places of a duplicate write): a reader
// given a locator (formats/formats.h, a second read of the input made only on that error)
// passes it to its HistoryBuilder, which asks the reader where op[0] and op[1] are. Normal
// reads have none and never ask.
struct OpLocator {
  uint32_t op[2];
  int64_t offset[2] = {-1, -1};
};

// --unique-values: the error of a history that writes some (key, value) more than once, naming
// both places, or nullopt.
std::optional<InputError> repeated_write_error(const History& h, std::string_view file = {});

// After ops were copied from `from` into h, some left out (a projection that keeps the op order):
// renumbers the predicate reads the kept ones belong to (their `list`), with their ranges, and
// copies the predicates, the initial rows and the faults.
void keep_predicate_reads(History& h, const History& from);

// Recomputes the effective status of every transaction from read_from (committed, or unknown
// and read transitively by a committed transaction). Ambiguous reads count for no writer.
void compute_effective_status(History& h);

// Builds a History transaction by transaction. Every importer drives one of these, so the
// semantics (initial transaction, unique writes, unknown status) live in one place.
class HistoryBuilder {
 public:
  explicit HistoryBuilder(OpLocator* locator = nullptr);

  Interner& keys() { return h_.keys; }
  Interner& values() { return h_.values; }
  void set_initial(std::optional<uint32_t> value_id) { h_.initial = value_id; }
  // Key holds value before any write (a row of the initial table; null: absent).
  void set_initial_row(uint32_t key, uint32_t value) {
    if (h_.initial_rows.size() <= key) h_.initial_rows.resize(key + 1, kNone);
    h_.initial_rows[key] = value;
  }
  uint32_t add_predicate(Predicate p) { return h_.predicates.add(std::move(p)); }
  void set_table() { h_.table = true; }
  const PredicateTable& predicates() const { return h_.predicates; }
  // A predicate read that returned `rows` ((key, value) pairs, each key once): finish() expands
  // it into a read of every key of the history.
  void predicate_read(uint32_t predicate, std::span<const std::pair<uint32_t, uint32_t>> rows);
  // A predicate read given as its reads already (a projection of a history: the keys it kept),
  // returned rows first: values, then kNoRow.
  void predicate_read_of(uint32_t predicate, std::span<const Op> reads);
  void reserve(size_t txns, size_t ops);
  void reserve_labels(size_t labels, size_t chars) { h_.labels.reserve(labels, chars); }

  void begin_session();
  void begin_txn();  // in the current session (one is opened if none is)
  void read(uint32_t key, uint32_t value);
  void write(uint32_t key, uint32_t value);
  void append(uint32_t key, uint32_t value);
  void list_read(uint32_t key, std::span<const uint32_t> values);
  void set_status(TxnStatus s);
  // The transaction's real-time interval. Readers check start <= end (interval_problem) first,
  // with the location; the builder stores what it is given.
  void set_time(Time start, Time end);
  void set_label(std::string_view label);
  void end_txn();
  // How the reader says where the operation being added comes from (a byte offset in its
  // file); called once before the first operation, used only when the builder has a locator.
  void locate_with(std::function<int64_t()> where) {
    if (locator_) where_ = std::move(where);
  }
  // Makes this a non-transactional object history (model/registers.h): finish() then keeps
  // every op as shown and resolves no reads (writes of a value repeat; LIN reads `registers`).
  void set_registers(Registers r) { h_.registers = std::move(r); }

  // Appends plain reads and writes (OpKind Read or Write, list = kNone) to the current
  // transaction in one call: the bulk path of the text importers (plume). Same effect as
  // read()/write() one at a time.
  void add_ops(std::span<const Op> ops) {
    if (!in_txn_) begin_txn();
    if (locator_)
      for (size_t i = 0; i < ops.size(); ++i) note_place(h_.ops.size() + i);
    for (const Op& o : ops) note_op(o);
    h_.ops.insert(h_.ops.end(), ops.begin(), ops.end());
    h_.op_txn.resize(h_.op_txn.size() + ops.size(), static_cast<uint32_t>(h_.txns.size() - 1));
  }
  // Counts events the importer read but left out, with the reason (History::dropped).
  void add_dropped(std::string_view reason, size_t n) {
    if (n == 0) return;
    h_.dropped_events += n;
    for (History::Dropped& d : h_.dropped)
      if (d.reason == reason) {
        d.count += n;
        return;
      }
    h_.dropped.push_back({std::string(reason), n});
  }

  size_t txns_in_current_session() const;
  size_t num_ops() const { return h_.ops.size(); }

  // Resolves reads through the writes index and the effective status of unknown transactions.
  // A (key, value) written more than once makes its reads ambiguous (History::ambiguous),
  // except for appends: a list's order is recovered from its values, so an append repeated is
  // an InputError naming both places (and `file`, the input the history was read from).
  Expected<History> finish(std::string format, std::string_view file = {});

 private:
  void push_op(Op op);
  // What finish() sizes the unique-writes index by, gathered as ops arrive (saves a pass).
  void note_op(const Op& o) {
    if (!o.is_write()) return;
    ++n_writes_;
    if (!(o.value & Interner::kInterned) && o.value > max_direct_value_) max_direct_value_ = o.value;
  }

  void note_place(size_t op) {
    for (int k = 0; k < 2; ++k)
      if (locator_->op[k] == op && where_) locator_->offset[k] = where_();
  }

  // Replaces each predicate read given by predicate_read() (one placeholder op) with its reads.
  void expand_predicate_reads();
  // Resolves the reads of keys a predicate read did not return: their candidates are the
  // versions that do not match.
  void resolve_predicate_misses();

  History h_;
  // Per predicate read given by predicate_read(): its rows, in pending_rows_.
  struct PendingRead {
    uint32_t begin, end;
  };
  std::vector<PendingRead> pending_;
  std::vector<std::pair<uint32_t, uint32_t>> pending_rows_;
  OpLocator* locator_ = nullptr;
  std::function<int64_t()> where_;
  bool in_txn_ = false;
  size_t n_writes_ = 0;
  uint32_t max_direct_value_ = 0;  // the largest value id written that is a direct integer
};

}  // namespace isoscope
