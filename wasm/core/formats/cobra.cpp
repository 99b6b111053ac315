// Cobra client logs: a directory of *.log files, one per session (client), read in natural
// name order (T2.log before T10.log). Each file is a sequence of big-endian records:
//   'S' txn [ts]                      start of a transaction (9 bytes, 17 with a timestamp)
//   'W' writeId key value             a write (25 bytes)
//   'R' writerTxn writeId key value   a read of writerTxn's write writeId (33 bytes)
//   'C' txn [ts]                      commit (9 bytes, 17 with a timestamp)
// (the layout of Cobra's verifier and of PolySI's CobraHistoryLoader). Whether a file carries
// timestamps is decided per file: it is read without them first and with them when that fails.
// The write id is the value (Cobra guarantees its uniqueness); `value` is a hash and is not
// used. A read with writer 0xbebeebee or 0xdeadbeef reads the initial value.
// Logs with repeated values (VeriStrong's benchmarks) name no writer: a read's writer is
// 0xabddefee, "any transaction". Then neither the write id nor the writer is unique: a write is
// known by its (write id, value) pair, which becomes the value of every write and read of the
// history, and a read of a pair written more than once may read from any of those writes.
// A read naming a writer transaction that no log holds is a dangling read: it loads, and it
// reads a value nobody writes (a string that names the writer and the write id), so the
// checker reports it as a thin-air read. So does a read whose write id was written by a
// transaction other than the one it names.
// A transaction still open at the end of its log (the client stopped) has status Unknown.
#include <algorithm>
#include <string>
#include <vector>

#include "formats/formats.h"
#include "formats/reader_util.h"
#include "util/flat_map.h"

namespace isoscope {
namespace {

constexpr uint64_t kInitTxn = 0xbebeebee, kNullTxn = 0xdeadbeef;
constexpr uint64_t kGcTrue = 0x23332333, kGcFalse = 0x66666666;
constexpr uint64_t kAnyTxn = 0xabddefee;  // a read that names no writer (repeated values)

struct Record {
  char tag;
  uint64_t a = 0, b = 0, c = 0;  // S/C: txn, ts; W: writeId, key; R: writerTxn, writeId, key
  uint64_t value = 0;            // W, R: the value field
  uint64_t ts = 0;
  bool has_ts = false;
  uint32_t offset = 0;
};

// Parses one log with or without timestamps. limit: stop (successfully) at the first record
// that does not fit before it (detection reads a prefix only).
bool parse_log(const InputFile& f, bool with_ts, size_t limit, std::vector<Record>& out,
               InputError& err) {
  fmt::ByteReader r(f.bytes.substr(0, std::min(limit, f.bytes.size())));
  const bool prefix_only = limit < f.bytes.size();
  bool open = false;
  uint64_t open_txn = 0;
  size_t open_at = 0;
  auto fail = [&](size_t at, std::string msg) {
    err = fmt::binary_error(f, at, std::move(msg));
    return false;
  };
  while (r.remaining() > 0) {
    size_t at = r.pos;
    uint8_t tag;
    r.u8(tag);
    Record rec;
    rec.tag = static_cast<char>(tag);
    rec.offset = static_cast<uint32_t>(at);
    size_t need = tag == 'S' || tag == 'C' ? (with_ts ? 16 : 8) : tag == 'W' ? 24 : tag == 'R' ? 32 : 0;
    if (need == 0) {
      std::string found = fmt::found_at(reinterpret_cast<const char*>(r.data) + at,
                                        reinterpret_cast<const char*>(r.data) + r.size);
      return fail(at, "expected a record tag 'S', 'W', 'R' or 'C', found " + found);
    }
    if (!r.has(need)) {
      if (prefix_only) return true;
      static const char* const names[] = {"'S' txn", "'W' writeId key value",
                                          "'R' writerTxn writeId key value", "'C' txn"};
      const char* name = tag == 'S' ? names[0] : tag == 'W' ? names[1] : tag == 'R' ? names[2] : names[3];
      return fail(at, std::string("the file ends inside a record: expected ") + name +
                          (with_ts && (tag == 'S' || tag == 'C') ? " timestamp" : "") + " (" +
                          std::to_string(need) + " bytes after the tag), found " +
                          std::to_string(r.remaining()));
    }
    switch (tag) {
      case 'S':
        r.u64_be(rec.a);
        if (with_ts) {
          r.u64_be(rec.ts);
          rec.has_ts = true;
        }
        if (open)
          return fail(at, "expected 'C' committing transaction " + fmt::hex64(open_txn) +
                              " (started at byte " + std::to_string(open_at) +
                              ") before the next 'S'");
        open = true;
        open_txn = rec.a;
        open_at = at;
        break;
      case 'C':
        r.u64_be(rec.a);
        if (with_ts) {
          r.u64_be(rec.ts);
          rec.has_ts = true;
        }
        if (!open) return fail(at, "'C' commits transaction " + fmt::hex64(rec.a) + " but no transaction is open");
        if (rec.a != open_txn)
          return fail(at, "'C' commits transaction " + fmt::hex64(rec.a) + " but the open transaction is " +
                              fmt::hex64(open_txn) + " (started at byte " + std::to_string(open_at) + ")");
        open = false;
        break;
      case 'W': {
        r.u64_be(rec.a);
        r.u64_be(rec.b);
        r.u64_be(rec.value);
        if (!open) return fail(at, "a 'W' record outside a transaction: expected 'S' first");
        break;
      }
      case 'R': {
        r.u64_be(rec.a);
        r.u64_be(rec.b);
        r.u64_be(rec.c);
        r.u64_be(rec.value);
        if (!open) return fail(at, "an 'R' record outside a transaction: expected 'S' first");
        if ((rec.a == kInitTxn || rec.a == kNullTxn) && rec.b != kInitTxn && rec.b != kNullTxn &&
            rec.b != kGcTrue && rec.b != kGcFalse)
          return fail(at, "a read from the initial state (writer " + fmt::hex64(rec.a) +
                              ") must carry write id 0xbebeebee or 0xdeadbeef, found " +
                              fmt::hex64(rec.b));
        break;
      }
    }
    out.push_back(rec);
  }
  return true;
}

// Reads one log, deciding whether it carries timestamps: the first record 'S' is followed by
// the next tag at byte 9 without them and at byte 17 with them. The other layout is tried when
// the guessed one fails; when both fail, the guessed layout's error is reported.
bool parse_log_auto(const InputFile& f, size_t limit, std::vector<Record>& out, InputError& err) {
  auto tag_at = [&](size_t i) {
    if (i >= f.bytes.size()) return i == f.bytes.size();
    char c = f.bytes[i];
    return c == 'S' || c == 'W' || c == 'R' || c == 'C';
  };
  const bool guess_ts = !tag_at(9) && tag_at(17);
  size_t mark = out.size();
  InputError e1, e2;
  if (parse_log(f, guess_ts, limit, out, e1)) return true;
  out.resize(mark);
  if (parse_log(f, !guess_ts, limit, out, e2)) return true;
  out.resize(mark);
  err = e1;
  return false;
}

std::vector<const InputFile*> log_files(std::span<const InputFile> files) {
  std::vector<const InputFile*> logs;
  for (const InputFile& f : files)
    if (f.name_ends_with(".log") && !f.base_name().starts_with('.')) logs.push_back(&f);
  std::sort(logs.begin(), logs.end(), [](const InputFile* a, const InputFile* b) {
    return fmt::natural_less(a->base_name(), b->base_name());
  });
  return logs;
}

}  // namespace

bool detect_cobra(std::span<const InputFile> files) {
  std::vector<const InputFile*> logs = log_files(files);
  const InputFile* probe = nullptr;
  if (!logs.empty()) {
    for (const InputFile* f : logs)
      if (!f->bytes.empty()) {
        probe = f;
        break;
      }
    if (!probe) return true;  // only empty logs: still Cobra's layout; the reader explains
  } else if (files.size() == 1) {
    probe = &files[0];  // a single log from stdin
  } else {
    return false;
  }
  if (probe->bytes.empty() || probe->bytes[0] != 'S') return false;
  std::vector<Record> recs;
  InputError err;
  if (!parse_log_auto(*probe, 4096, recs, err)) return false;
  return recs.size() >= 2;  // 'S' and at least one more record
}

Expected<History> read_cobra(std::span<const InputFile> files, OpLocator* locator) {
  std::vector<const InputFile*> logs = log_files(files);
  if (logs.empty()) {
    if (files.size() == 1 && !files[0].name_ends_with(".log")) {
      logs.push_back(&files[0]);  // a single log under another name (stdin)
    } else {
      return fmt::input_error(files.empty() ? "" : files[0].name,
                              "expected Cobra client logs (*.log files), found none among the " +
                                  std::to_string(files.size()) + " input files");
    }
  }
  // Pass 1: parse every log; collect the transaction ids and the writes.
  std::vector<std::vector<Record>> recs(logs.size());
  struct TxnPlace {
    uint32_t file, offset;
  };
  FlatMap64 txn_index(1024);  // txn id -> index into txn_places
  std::vector<TxnPlace> txn_places;
  std::vector<uint64_t> txn_ids;
  struct WriteRec {
    uint64_t key, wid, txn;
    bool operator<(const WriteRec& o) const { return key != o.key ? key < o.key : wid < o.wid; }
  };
  std::vector<WriteRec> writes;
  size_t n_records = 0;
  bool any_writer = false;  // some read names writer 0xabddefee: values are (write id, value) pairs
  for (size_t i = 0; i < logs.size(); ++i) {
    InputError err;
    if (!parse_log_auto(*logs[i], logs[i]->bytes.size(), recs[i], err)) return err;
    n_records += recs[i].size();
    uint64_t cur = 0;
    for (const Record& r : recs[i]) {
      if (r.tag == 'S') {
        cur = r.a;
        uint32_t idx = txn_index.insert(r.a, static_cast<uint32_t>(txn_places.size()));
        if (idx != txn_places.size()) {
          const TxnPlace& p = txn_places[idx];
          return fmt::binary_error(*logs[i], r.offset,
                                   "transaction " + fmt::hex64(r.a) + " starts here and also in " +
                                       logs[p.file]->name + " at byte " + std::to_string(p.offset) +
                                       "; every transaction id must be unique");
        }
        txn_places.push_back({static_cast<uint32_t>(i), r.offset});
        txn_ids.push_back(r.a);
      } else if (r.tag == 'W') {
        writes.push_back({r.b, r.a, cur});
      } else if (r.tag == 'R' && r.a == kAnyTxn) {
        any_writer = true;
      }
    }
  }
  // A (key, write id) written twice: the builder reports it (unless pairs are the values).
  std::sort(writes.begin(), writes.end());

  // Pass 2: build.
  HistoryBuilder b(locator);
  Interner& keys = b.keys();
  Interner& values = b.values();
  const uint32_t init_value = values.intern_int(static_cast<int64_t>(kInitTxn));
  b.set_initial(init_value);
  b.reserve(txn_places.size(), n_records);
  auto pair_value = [&](uint64_t wid, uint64_t value) {
    return values.intern_str(fmt::hex64(wid) + "/" + std::to_string(static_cast<int64_t>(value)));
  };
  for (size_t i = 0; i < logs.size(); ++i) {
    if (recs[i].empty()) continue;  // an empty log: a client that recorded nothing
    b.begin_session();
    bool open = false;
    Time start;
    bool start_ts = false;
    // A timestamp is a u64; times are exact int64 (model/time.h): a larger one is refused.
    auto time_of = [&](const Record& r, Time& out) -> bool {
      if (r.ts > static_cast<uint64_t>(INT64_MAX)) return false;
      out = Time::integer(static_cast<int64_t>(r.ts));
      return true;
    };
    auto bad_time = [&](const Record& r) {
      return fmt::binary_error(*logs[i], r.offset + 9,
                               std::string("the timestamp of this '") + r.tag + "' record, " + std::to_string(r.ts) +
                                   ", does not fit in 64 signed bits (times are at most 9223372036854775807)");
    };
    for (const Record& r : recs[i]) {
      switch (r.tag) {
        case 'S':
          b.begin_txn();
          b.set_label(fmt::hex64(r.a));
          b.set_status(TxnStatus::Unknown);  // until its 'C'
          open = true;
          start_ts = r.has_ts;
          if (start_ts && !time_of(r, start)) return bad_time(r);
          break;
        case 'C':
          b.set_status(TxnStatus::Committed);
          if (start_ts && r.has_ts) {
            Time end;
            if (!time_of(r, end)) return bad_time(r);
            // One rule for every format (docs/formats.md, Times): no end before the start.
            if (std::string why = interval_problem(start, end); !why.empty())
              return fmt::binary_error(*logs[i], r.offset + 9,
                                       "expected the commit timestamp of transaction " + fmt::hex64(r.a) +
                                           " to be no earlier than its start's: " + why);
            b.set_time(start, end);
          }
          b.end_txn();
          open = false;
          break;
        case 'W':
          b.write(keys.intern_int(static_cast<int64_t>(r.b)),
                  any_writer ? pair_value(r.a, r.value) : values.intern_int(static_cast<int64_t>(r.a)));
          break;
        case 'R': {
          const uint64_t writer = r.a, wid = r.b, key = r.c;
          uint32_t v;
          if (writer == kInitTxn || writer == kNullTxn) {
            v = init_value;
          } else if (writer == kAnyTxn) {
            v = pair_value(wid, r.value);  // a pair nobody writes is a thin-air read
          } else if (txn_index.find(writer) == FlatMap64::kAbsent) {
            // Dangling: the writer is in no log. A value nobody writes: a thin-air read.
            v = values.intern_str("<write " + fmt::hex64(wid) + " of transaction " + fmt::hex64(writer) +
                                  ", which is in no log>");
          } else {
            auto [lo, hi] = std::equal_range(writes.begin(), writes.end(), WriteRec{key, wid, 0});
            if (lo != hi && std::none_of(lo, hi, [&](const WriteRec& w) { return w.txn == writer; }))
              v = values.intern_str("<write " + fmt::hex64(wid) + " of transaction " + fmt::hex64(writer) +
                                    ", which that transaction did not write>");
            else if (any_writer)
              v = pair_value(wid, r.value);
            else
              v = values.intern_int(static_cast<int64_t>(wid));  // unwritten: thin air as well
          }
          b.read(keys.intern_int(static_cast<int64_t>(key)), v);
          break;
        }
      }
    }
    if (open) b.end_txn();  // the log ends inside a transaction: status stays Unknown
  }
  if (b.num_ops() == 0 && txn_places.empty())
    return fmt::input_error(logs[0]->name, "the Cobra logs hold no transactions (every *.log file is empty)");
  return b.finish("cobra");
}

}  // namespace isoscope
