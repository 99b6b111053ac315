// The Plume text format (also written by PolySI, IsoVista and AWDIT): one operation a line,
//   r(key,value,session,txn)   w(key,value,session,txn)
// Transaction ids are global; the lines of one transaction may be interleaved with other
// sessions' lines (they are grouped here, keeping program order). txn -1 marks an aborted
// operation: each maximal run of -1 lines of one session becomes one aborted transaction.
// Value 0 is the initial value unless a transaction writes 0 explicitly (IsoVista writes an
// explicit initial transaction): with unique writes, set_initial(0) covers both.
//
// Sessions are ordered by session id, transactions of a session by first appearance.
// The scanner is hand-written: one pass over the bytes, no allocation per operation.
#include <algorithm>
#include <bit>
#include <charconv>
#include <string>
#include <vector>

#include "formats/formats.h"
#include "formats/reader_util.h"
#include "util/flat_map.h"
#include "util/huge_pages.h"

namespace isoscope {
namespace {

using fmt::is_blank;

enum class LineStatus { Ok, Empty, Error };

struct PlumeLine {
  bool write;
  int64_t key, value, session, txn;
};

// Parses one line starting at p (p at the line start). On Ok/Empty, p is past the line's
// newline. On Error, err_at points at the offending byte and what names the expectation.
inline LineStatus scan_line(const char*& p, const char* end, PlumeLine& out, const char*& err_at,
                            const char*& what) {
  const char* q = p;
  while (q < end && is_blank(*q)) ++q;
  if (q >= end) {
    p = q;
    return LineStatus::Empty;
  }
  if (fmt::is_newline(*q)) {
    p = fmt::past_newline(q, end);
    return LineStatus::Empty;
  }
  char c = *q;
  if (c == 'r' || c == 'R')
    out.write = false;
  else if (c == 'w' || c == 'W')
    out.write = true;
  else {
    err_at = q;
    what = "expected an operation 'r(key,value,session,txn)' or 'w(key,value,session,txn)'";
    return LineStatus::Error;
  }
  ++q;
  if (q >= end || *q != '(') {
    err_at = q;
    what = "expected '(' after the operation letter";
    return LineStatus::Error;
  }
  ++q;
  int64_t* fields[4] = {&out.key, &out.value, &out.session, &out.txn};
  static const char* const names[4] = {"expected an integer key", "expected an integer value",
                                       "expected an integer session id",
                                       "expected an integer transaction id"};
  static const char* const seps[4] = {"expected ',' after the key", "expected ',' after the value",
                                      "expected ',' after the session id",
                                      "expected ')' after the transaction id"};
  for (int i = 0; i < 4; ++i) {
    while (q < end && *q == ' ') ++q;
    if (!fmt::parse_i64(q, end, *fields[i])) {
      err_at = q;
      what = names[i];
      return LineStatus::Error;
    }
    while (q < end && *q == ' ') ++q;
    char want = i == 3 ? ')' : ',';
    if (q >= end || *q != want) {
      err_at = q;
      what = seps[i];
      return LineStatus::Error;
    }
    ++q;
  }
  while (q < end && is_blank(*q)) ++q;
  if (q < end) {
    if (!fmt::is_newline(*q)) {
      err_at = q;
      what = "expected the end of the line after ')'";
      return LineStatus::Error;
    }
    q = fmt::past_newline(q, end);
  }
  p = q;
  return LineStatus::Ok;
}

// Maps transaction ids to dense indexes: ids in [0, direct_limit) (the usual 0..n) through an
// array, which keeps lookups cache-friendly; any other id through a hash map.
class IdMap {
 public:
  explicit IdMap(size_t direct_limit) : limit_(direct_limit), map_(1024) {}
  // Inserts id -> v when absent; returns the index now stored for id.
  uint32_t insert(int64_t id, uint32_t v) {
    if (id >= 0 && static_cast<uint64_t>(id) < limit_) {
      size_t i = static_cast<size_t>(id);
      if (i >= direct_.size()) direct_.resize(std::min<size_t>(std::max<size_t>(i + 1, direct_.size() * 2), limit_), kNone);
      uint32_t& slot = direct_[i];
      if (slot == kNone) slot = v;
      return slot;
    }
    return map_.insert(static_cast<uint64_t>(id), v);
  }

 private:
  size_t limit_;
  std::vector<uint32_t> direct_;
  FlatMap64 map_;
};

// The common case, "r(12,345,6,789)\n": no spaces, no signs, numbers of at most 8 digits, a
// line within 64 bytes, with at least kFastZone bytes left in the file. The separators come from
// one vector classification of the line; the four numbers convert independently. Returns false,
// consuming nothing, for anything else; scalar_line and then scan_line take over.
constexpr size_t kFastZone = 128;
ISOSCOPE_HOT bool vector_line(const char*& p, PlumeLine& out) {
  const char c = p[0];
  uint64_t m = fmt::nondigit_mask64(p) & ~uint64_t{3};  // bits 0, 1: the letter and '('
  const unsigned s1 = static_cast<unsigned>(std::countr_zero(m));
  m &= m - 1;
  const unsigned s2 = static_cast<unsigned>(std::countr_zero(m));
  m &= m - 1;
  const unsigned s3 = static_cast<unsigned>(std::countr_zero(m));
  m &= m - 1;
  const unsigned s4 = static_cast<unsigned>(std::countr_zero(m | (uint64_t{1} << 62)));
  // Field lengths; "- 1 > 7" rejects 0 and more than 8 at once (unsigned wrap-around).
  const unsigned n1 = s1 - 2, n2 = s2 - s1 - 1, n3 = s3 - s2 - 1, n4 = s4 - s3 - 1;
  const char nl = p[s4 + 1];  // LF, CR or CRLF (the byte after is readable: the fast zone)
  if ((c != 'r' && c != 'w') | (p[1] != '(') | (n1 - 1 > 7) | (n2 - 1 > 7) | (n3 - 1 > 7) |
      (n4 - 1 > 7) | (p[s1] != ',') | (p[s2] != ',') | (p[s3] != ',') | (p[s4] != ')') |
      ((nl != '\n') & (nl != '\r')))
    return false;
  out.write = c == 'w';
  out.key = static_cast<int64_t>(fmt::digits_value(fmt::load_u64(p + 2), n1));
  out.value = static_cast<int64_t>(fmt::digits_value(fmt::load_u64(p + s1 + 1), n2));
  out.session = static_cast<int64_t>(fmt::digits_value(fmt::load_u64(p + s2 + 1), n3));
  out.txn = static_cast<int64_t>(fmt::digits_value(fmt::load_u64(p + s3 + 1), n4));
  p += s4 + 2 + (nl == '\r' && p[s4 + 2] == '\n');
  return true;
}

// The next most common lines (negative numbers such as txn -1, numbers of 9..18 digits),
// still without bounds checks: a line it accepts is under 90 bytes.
inline bool scalar_line(const char*& p, PlumeLine& out) {
  const char* q = p;
  if (*q == 'r')
    out.write = false;
  else if (*q == 'w')
    out.write = true;
  else
    return false;
  if (q[1] != '(') return false;
  q += 2;
  int64_t* fields[4] = {&out.key, &out.value, &out.session, &out.txn};
  for (int i = 0; i < 4; ++i) {
    const bool neg = *q == '-';
    q += neg;
    const char* d = q;
    uint64_t v = 0;
    while (static_cast<unsigned>(*q - '0') <= 9 && q - d < 19) {
      v = v * 10 + static_cast<uint64_t>(*q - '0');
      ++q;
    }
    if (q == d || q - d > 18) return false;
    *fields[i] = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    if (*q != (i == 3 ? ')' : ',')) return false;
    ++q;
  }
  if (!fmt::is_newline(*q)) return false;
  p = q + 1 + (*q == '\r' && q[1] == '\n');  // within the fast zone: q[1] is readable
  return true;
}

struct TxnInfo {
  int64_t id;
  uint32_t session;  // dense session index (first appearance)
  uint32_t count = 0;
  uint32_t line;  // first line, for the "reused across sessions" error
  bool aborted;
  uint32_t first = 0, last = 0;  // first and last record
};

// Raw integer key -> KeyId, through an array for small non-negative keys (the usual case) so
// the hot loop makes no call; other keys go to the interner.
class KeyCache {
 public:
  explicit KeyCache(Interner& keys) : keys_(keys) {}
  uint32_t get(int64_t k) {
    if (k >= 0 && k < kLimit) {
      size_t i = static_cast<size_t>(k);
      if (i < ids_.size() && ids_[i] != kNone) return ids_[i];
      if (i >= ids_.size()) ids_.resize(std::min<size_t>(std::max<size_t>(i + 1, ids_.size() * 2), kLimit), kNone);
      return ids_[i] = keys_.intern_int(k);
    }
    return keys_.intern_int(k);
  }

 private:
  static constexpr int64_t kLimit = int64_t{1} << 22;
  Interner& keys_;
  std::vector<uint32_t> ids_;
};
// One operation as scanned, before transactions are grouped: the key id with the write flag in
// its top bit, and the value id.
struct Rec {
  static constexpr uint32_t kWriteBit = 0x80000000u;
  uint32_t key_kind;
  uint32_t value;
};

struct SessInfo {
  int64_t id;
  uint32_t abort_run = kNone;  // the aborted transaction the current run of -1 lines feeds
};


}  // namespace

bool detect_plume(std::span<const InputFile> files) {
  const InputFile* f = fmt::single_text_file(files);
  if (!f) return false;
  std::string_view s = f->bytes.substr(fmt::bom_length(f->bytes));
  const char* p = s.data();
  const char* end = p + s.size();
  if (s.size() > 4096) {  // look at the whole lines within the first 4 KB
    end = p + 4096;
    end = fmt::last_whole_line_end(p, end);
  }
  int ok = 0;
  while (p < end && ok < 4) {  // the first few lines must all be operations
    PlumeLine l;
    const char* err_at;
    const char* what;
    LineStatus st = scan_line(p, end, l, err_at, what);
    if (st == LineStatus::Error) return false;
    if (st == LineStatus::Ok) ++ok;
  }
  return ok > 0;
}

// Plume memory goes by line (one operation each), not by byte: at most one transaction and
// one distinct key per line, each with its record, transaction entry, History entries,
// interner and write-index slots, in vectors that grow by doubling. Measured peaks (native,
// reading only): 10^7 lines of distinct keys, one operation per transaction, 347 MB: 1.91 GB
// (5.5 times the input, where a factor of 3 was assumed); 10^6 such lines: 213 MB; 10^6 lines
// over 1000 keys: 139 MB. The estimate (input + 200 bytes a line) is 1.1 to 1.6 times these.
uint64_t plume_memory_estimate(std::span<const InputFile> files) {
  constexpr uint64_t kBytesPerLine = 200;
  uint64_t need = 0;
  for (const InputFile& f : files) {
    const uint64_t lines = static_cast<uint64_t>(std::count(f.bytes.begin(), f.bytes.end(), '\n')) + 1;
    need += f.bytes.size() + lines * kBytesPerLine;
  }
  return need;
}

Expected<History> read_plume(std::span<const InputFile> files, OpLocator* locator) {
  const InputFile* fp = fmt::single_text_file(files);
  if (!fp) return fmt::not_one_file(files, "plume");
  const InputFile& f = *fp;
  std::string_view s = f.bytes;
  size_t bom = fmt::bom_length(s);
  const char* begin = s.data();
  const char* p = begin + bom;
  const char* end = begin + s.size();

  HistoryBuilder b(locator);
  b.set_initial(b.values().intern_int(0));
  KeyCache keys(b.keys());
  Interner& values = b.values();

  // The operations in file order, 8 bytes each, and (only once some transaction's lines turn
  // out to be interleaved with another's) each one's transaction.
  std::vector<Rec> recs;
  std::vector<uint32_t> rec_txn;
  bool interleaved = false;
  reserve_huge(recs, s.size() / 20 + 16);  // grows when lines are shorter than 20 bytes
  std::vector<TxnInfo> txns;
  std::vector<SessInfo> sessions;
  IdMap txn_map(s.size() / 4 + 1024);  // the array costs at most the input's size
  FlatMap64 sess_map(64);
  int64_t last_txn_id = 0, last_sess_id = 0;
  uint32_t last_txn = kNone, last_sess = kNone;
  uint32_t line = 0;

  while (p < end) {
    ++line;
    PlumeLine l;
    const char* err_at = nullptr;
    const char* what = nullptr;
    const char* line_start = p;
    LineStatus st = static_cast<size_t>(end - p) >= kFastZone && (vector_line(p, l) || scalar_line(p, l))
                        ? LineStatus::Ok
                        : scan_line(p, end, l, err_at, what);
    if (st == LineStatus::Empty) continue;
    if (st == LineStatus::Error)
      return fmt::text_error(f, static_cast<size_t>(err_at - begin),
                             std::string(what) + ", found " + fmt::found_at(err_at, end));
    // Session.
    uint32_t si;
    if (last_sess != kNone && l.session == last_sess_id) {
      si = last_sess;
    } else {
      si = sess_map.insert(static_cast<uint64_t>(l.session), static_cast<uint32_t>(sessions.size()));
      if (si == sessions.size()) sessions.push_back({l.session});
      last_sess = si;
      last_sess_id = l.session;
    }
    // Transaction.
    const uint32_t here = static_cast<uint32_t>(recs.size());
    uint32_t ti;
    if (l.txn == -1) {
      ti = sessions[si].abort_run;
      if (ti == kNone) {
        ti = static_cast<uint32_t>(txns.size());
        txns.push_back({-1, si, 0, line, true, here, here});
        sessions[si].abort_run = ti;
      }
    } else {
      sessions[si].abort_run = kNone;
      if (last_txn != kNone && l.txn == last_txn_id) {
        ti = last_txn;
      } else {
        ti = txn_map.insert(l.txn, static_cast<uint32_t>(txns.size()));
        if (ti == txns.size()) txns.push_back({l.txn, si, 0, line, false, here, here});
        last_txn = ti;
        last_txn_id = l.txn;
      }
      if (txns[ti].session != si) {
        while (line_start < end && is_blank(*line_start)) ++line_start;
        return fmt::text_error(
            f, static_cast<size_t>(line_start - begin),
            "transaction " + std::to_string(l.txn) + " appears in session " +
                std::to_string(l.session) + " here but in session " +
                std::to_string(sessions[txns[ti].session].id) + " at line " +
                std::to_string(txns[ti].line) +
                "; transaction ids are global, so a transaction belongs to one session");
      }
    }
    if (here >= 0xFFFFFFF0u)
      return fmt::text_error(f, static_cast<size_t>(p - begin), "too many operations");
    TxnInfo& tx = txns[ti];
    if (tx.count && tx.last + 1 != here && !interleaved) {
      // The first transaction whose lines are not consecutive: from here on every record
      // names its transaction. Until now each transaction's records were one run.
      interleaved = true;
      rec_txn.resize(here);
      for (uint32_t t = 0; t < txns.size(); ++t)
        for (uint32_t i = txns[t].first; i < txns[t].first + txns[t].count; ++i) rec_txn[i] = t;
    }
    if (interleaved) rec_txn.push_back(ti);
    ++tx.count;
    tx.last = here;
    const uint32_t key = keys.get(l.key);
    if (key >= Rec::kWriteBit)
      return fmt::text_error(f, static_cast<size_t>(p - begin), "too many distinct keys");
    recs.push_back({key | (l.write ? Rec::kWriteBit : 0), values.intern_int(l.value)});
  }

  if (recs.empty())
    return fmt::text_error(f, s.size(),
                           "expected at least one operation 'r(key,value,session,txn)'; the file "
                           "holds none");

  // Order: sessions by id, transactions of a session by first appearance.
  std::vector<uint32_t> sess_order(sessions.size());
  for (uint32_t i = 0; i < sess_order.size(); ++i) sess_order[i] = i;
  std::sort(sess_order.begin(), sess_order.end(),
            [&](uint32_t a, uint32_t c) { return sessions[a].id < sessions[c].id; });
  std::vector<uint32_t> sess_rank(sessions.size());
  for (uint32_t r = 0; r < sess_order.size(); ++r) sess_rank[sess_order[r]] = r;
  // Bucket transactions by session rank (stable: keeps first-appearance order).
  std::vector<uint32_t> sess_txn_begin(sessions.size() + 1, 0);
  for (const TxnInfo& t : txns) ++sess_txn_begin[sess_rank[t.session] + 1];
  for (size_t i = 0; i < sessions.size(); ++i) sess_txn_begin[i + 1] += sess_txn_begin[i];
  // The transactions in final order, with what emitting them needs (read sequentially below).
  struct Ordered {
    int64_t id;
    uint32_t first, count;  // first: into recs (one run) or, when interleaved, into grouped
    bool aborted;
  };
  std::vector<Ordered> order(txns.size());
  std::vector<uint32_t> rank_of(interleaved ? txns.size() : 0);
  {
    std::vector<uint32_t> cur(sess_txn_begin.begin(), sess_txn_begin.end() - 1);
    for (uint32_t t = 0; t < txns.size(); ++t) {
      const TxnInfo& x = txns[t];
      const uint32_t r = cur[sess_rank[x.session]]++;
      order[r] = {x.id, x.first, x.count, x.aborted};
      if (interleaved) rank_of[t] = r;
    }
  }
  txns.clear();
  txns.shrink_to_fit();
  std::vector<Rec> grouped;
  if (interleaved) {
    // Scatter the records so each transaction's are consecutive, in program order.
    std::vector<uint32_t> cur(rank_of.size());
    uint32_t acc = 0;
    for (Ordered& o : order) {
      o.first = acc;
      acc += o.count;
    }
    for (uint32_t t = 0; t < rank_of.size(); ++t) cur[t] = order[rank_of[t]].first;
    grouped.resize(recs.size());
    for (size_t i = 0; i < recs.size(); ++i) grouped[cur[rec_txn[i]]++] = recs[i];
    std::vector<Rec>().swap(recs);
    std::vector<uint32_t>().swap(rec_txn);
  }
  const Rec* all = interleaved ? grouped.data() : recs.data();
  const size_t n_ops = interleaved ? grouped.size() : recs.size();

  b.reserve(order.size(), n_ops);
  b.reserve_labels(order.size(), order.size() * 8);
  std::vector<Op> ops;  // one transaction's, expanded
  char label[24];
  for (size_t r = 0; r < sessions.size(); ++r) {
    b.begin_session();
    for (uint32_t i = sess_txn_begin[r]; i < sess_txn_begin[r + 1]; ++i) {
      const Ordered& t = order[i];
      // Transactions are emitted session by session, so their records are scattered over the
      // file: fetch a few transactions ahead.
      if (i + 8 < order.size()) __builtin_prefetch(all + order[i + 8].first);
      b.begin_txn();
      if (t.aborted) {
        b.set_status(TxnStatus::Aborted);
      } else {
        const auto [end_of_label, ec] = std::to_chars(label, label + sizeof label, t.id);
        b.set_label(std::string_view(label, static_cast<size_t>(end_of_label - label)));
      }
      ops.clear();
      for (const Rec* x = all + t.first; x != all + t.first + t.count; ++x)
        ops.push_back({x->key_kind & ~Rec::kWriteBit, x->value, kNone,
                       x->key_kind & Rec::kWriteBit ? OpKind::Write : OpKind::Read});
      b.add_ops(ops);
      b.end_txn();
    }
  }
  std::vector<Rec>().swap(recs);
  std::vector<Rec>().swap(grouped);
  return b.finish("plume", f.name);
}

}  // namespace isoscope
