// The OOPSLA'19 dbcop binary history (`history.bincode`, bincode 1.x, little-endian):
//   params    five u64: id, n_node, n_variable, n_transaction, n_event
//   info, start, end        three strings: u64 length + UTF-8 bytes
//   data      u64 #sessions, each: u64 #transactions, each:
//               u64 #events, each {u8 write, u64 variable, u64 value, u8 success}, u8 success
// Value 0 is the initial value. A transaction with success = 0 is aborted (kept, status
// Aborted). An event with success = 0 did not take effect: it is left out of the operations and
// counted in History::dropped_events.
// Input: one file, or a directory's files of which exactly one is named history.bincode.
#include <string>

#include "formats/formats.h"
#include "formats/reader_util.h"

namespace isoscope {
namespace {

constexpr uint64_t kMaxString = uint64_t{1} << 20;

// Picks the history file, or explains why there is none.
const InputFile* pick_file(std::span<const InputFile> files, InputError& err) {
  if (files.size() == 1) return &files[0];
  const InputFile* found = nullptr;
  size_t count = 0;
  for (const InputFile& f : files)
    if (f.base_name() == "history.bincode") {
      found = found ? found : &f;
      ++count;
    }
  if (count == 1) return found;
  err.file = files.empty() ? "" : files[0].name;
  err.message = count == 0 ? "expected a file named history.bincode among the " +
                                 std::to_string(files.size()) + " input files"
                           : "found " + std::to_string(count) +
                                 " files named history.bincode; pass one history directory";
  return nullptr;
}

// Whether the first bytes look like a dbcop history header: five small parameters and three
// short printable strings, then a plausible session count.
bool header_plausible(std::string_view bytes) {
  fmt::ByteReader r(bytes);
  uint64_t params[5];
  for (uint64_t& p : params)
    if (!r.u64_le(p)) return false;
  if (params[1] == 0 || params[1] > (1u << 20) || params[2] > (uint64_t{1} << 40) ||
      params[3] > (uint64_t{1} << 32) || params[4] > (uint64_t{1} << 32))
    return false;
  for (int i = 0; i < 3; ++i) {
    uint64_t len;
    if (!r.u64_le(len) || len > 4096 || !r.has(len)) return false;
    for (uint64_t k = 0; k < len; ++k) {
      unsigned char c = r.data[r.pos + k];
      if (c < 0x20 && c != '\t') return false;
    }
    r.pos += len;
  }
  uint64_t sessions;
  if (!r.u64_le(sessions)) return false;
  return sessions <= r.remaining() / 8 + 1;
}

}  // namespace

bool detect_dbcop_bincode(std::span<const InputFile> files) {
  for (const InputFile& f : files)
    if (f.base_name() == "history.bincode") return true;
  if (files.size() != 1) return false;
  return header_plausible(files[0].bytes);
}

Expected<History> read_dbcop_bincode(std::span<const InputFile> files, OpLocator* locator) {
  InputError pick_err;
  const InputFile* fp = pick_file(files, pick_err);
  if (!fp) return pick_err;
  const InputFile& f = *fp;
  fmt::ByteReader r(f.bytes);
  auto fail = [&](size_t at, std::string msg) { return fmt::binary_error(f, at, std::move(msg)); };
  auto truncated = [&](const std::string& what) {
    return fail(r.pos, "the file ends early: expected " + what + " (" +
                           std::to_string(r.remaining()) + " bytes left)");
  };
  if (f.bytes.empty()) return fail(0, "the file is empty: expected a dbcop history");

  static const char* const param_names[5] = {"id", "n_node", "n_variable", "n_transaction",
                                             "n_event"};
  uint64_t params[5];
  for (int i = 0; i < 5; ++i)
    if (!r.u64_le(params[i]))
      return truncated(std::string("the parameter ") + param_names[i] + " (u64)");
  static const char* const str_names[3] = {"info", "start", "end"};
  for (int i = 0; i < 3; ++i) {
    size_t at = r.pos;
    uint64_t len;
    if (!r.u64_le(len)) return truncated(std::string("the length of the ") + str_names[i] + " string");
    if (len > kMaxString || !r.has(len))
      return fail(at, std::string("the ") + str_names[i] + " string claims " + std::to_string(len) +
                          " bytes but " + std::to_string(r.remaining()) +
                          " remain: not a dbcop history.bincode, or a corrupt one");
    r.pos += len;
  }

  HistoryBuilder b(locator);
  b.locate_with([&r] { return static_cast<int64_t>(r.pos); });
  b.set_initial(b.values().intern_int(0));
  Interner& keys = b.keys();
  Interner& values = b.values();
  size_t at = r.pos;
  uint64_t n_sessions;
  if (!r.u64_le(n_sessions)) return truncated("the number of sessions (u64)");
  if (n_sessions > r.remaining() / 8)
    return fail(at, "the file claims " + std::to_string(n_sessions) + " sessions but only " +
                        std::to_string(r.remaining()) + " bytes remain");
  b.reserve(params[3] * n_sessions < (uint64_t{1} << 24) ? params[3] * n_sessions : 0,
            r.remaining() / 18);
  size_t dropped = 0;
  for (uint64_t s = 0; s < n_sessions; ++s) {
    b.begin_session();
    at = r.pos;
    uint64_t n_txns;
    if (!r.u64_le(n_txns))
      return truncated("the number of transactions of session " + std::to_string(s));
    if (n_txns > r.remaining() / 9)
      return fail(at, "session " + std::to_string(s) + " claims " + std::to_string(n_txns) +
                          " transactions but only " + std::to_string(r.remaining()) +
                          " bytes remain");
    for (uint64_t t = 0; t < n_txns; ++t) {
      auto where = [&] { return "session " + std::to_string(s) + ", transaction " + std::to_string(t); };
      b.begin_txn();
      at = r.pos;
      uint64_t n_events;
      if (!r.u64_le(n_events)) return truncated("the number of events of " + where());
      if (n_events > (r.remaining() - (r.remaining() > 0 ? 1 : 0)) / 18)
        return fail(at, where() + " claims " + std::to_string(n_events) + " events but only " +
                            std::to_string(r.remaining()) + " bytes remain");
      for (uint64_t e = 0; e < n_events; ++e) {
        uint8_t write, success;
        uint64_t variable, value;
        at = r.pos;
        if (!r.u8(write) || !r.u64_le(variable) || !r.u64_le(value)) {
          r.pos = at;
          return truncated("event " + std::to_string(e) + " of " + where());
        }
        if (write > 1)
          return fail(at, "event " + std::to_string(e) + " of " + where() +
                              ": expected 0 or 1 for the write flag, found " + std::to_string(write));
        size_t sat = r.pos;
        if (!r.u8(success)) return truncated("the success flag of event " + std::to_string(e) + " of " + where());
        if (success > 1)
          return fail(sat, "event " + std::to_string(e) + " of " + where() +
                               ": expected 0 or 1 for the success flag, found " +
                               std::to_string(success));
        if (!success) {
          ++dropped;
          continue;
        }
        uint32_t k = keys.intern_int(static_cast<int64_t>(variable));
        uint32_t v = values.intern_int(static_cast<int64_t>(value));
        if (write)
          b.write(k, v);
        else
          b.read(k, v);
      }
      uint8_t success;
      at = r.pos;
      if (!r.u8(success)) return truncated("the success flag of " + where());
      if (success > 1)
        return fail(at, where() + ": expected 0 or 1 for the transaction's success flag, found " +
                            std::to_string(success));
      if (!success) b.set_status(TxnStatus::Aborted);
      b.end_txn();
    }
  }
  if (r.remaining() != 0)
    return fail(r.pos, "expected the end of the file after the last session, found " +
                           std::to_string(r.remaining()) + " more bytes");
  b.add_dropped("events that did not take effect (success = 0)", dropped);
  return b.finish("dbcop-bincode", f.name);
}

}  // namespace isoscope
