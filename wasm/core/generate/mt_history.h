// Seeded generators of mini-transaction (MT) and lightweight-transaction (LWT) histories, after
// MTC's MT workload generator (Wei et al., Sec. V-A): parameters are the number of sessions,
// transactions, objects (keys) and the key-access distribution (uniform, zipfian, hotspot,
// exponential). Backs `isoscope generate --mt`, the MTC differential tests and benchmarks.
//
// Mini-transactions (every write preceded by a read of its key, at most four operations):
//   r(x)   r(x) r(y)   r(x) w(x)   r(x) r(y) w(x)   r(x) r(y) w(x) w(y)   r(x) w(x) r(y) w(y)
// with fresh unique values (a global counter; the initial value is 0). Sessions run
// concurrently against a simulated store: one event (begin, an operation, commit) of a random
// session at a time; a transaction's timestamps are its begin and commit events. The engine
// decides what reads return, hence which levels the history satisfies:
//   Serial            a transaction takes effect atomically at its commit event (reads see the
//                     latest committed state there): SSER and every weaker level hold.
//   SnapshotIsolation reads see the snapshot taken at begin; a commit that would overwrite a
//                     version committed since its snapshot aborts (first committer wins): the
//                     committed transactions satisfy SI; SER fails on write skews.
//   ReadCommitted     each read sees the latest committed version when it runs; writes are
//                     installed at commit without conflict checks: lost updates, fractured and
//                     non-repeatable reads... (read consistency still holds).
//   Stale             Serial, except that each read returns, with probability stale_ratio, an
//                     older committed version of its key: lost updates (divergence), causality
//                     and real-time violations.
// abort_ratio adds transactions the client aborts (their writes never take effect).
//
// Lightweight transactions: a sequential execution of reads (failed compare-and-sets) and
// read&writes (successful ones), with inserts-if-not-exists creating the keys when `inserts` is
// set; each operation's interval [start, end] contains its linearization point and sessions
// are sequential in real time, so the history is linearizable unless stale_ratio > 0 (a read
// or read&write then sees an older version: lost updates and real-time violations).
//
// Same parameters and seed: same history on every platform.
#pragma once
#include <cstdint>

#include "generate/random_history.h"
#include "model/history.h"

namespace isoscope {

enum class MtEngine : uint8_t { Serial, SnapshotIsolation, ReadCommitted, Stale };
struct MtGenParams {
  uint64_t seed = 1;
  uint32_t sessions = 4;
  uint32_t txns_per_session = 8;
  KeyParams key;
  double read_only_ratio = 0.2;  // r(x) or r(x) r(y)
  double two_key_ratio = 0.5;    // transactions over two keys (needs at least two keys)
  MtEngine engine = MtEngine::Serial;
  double stale_ratio = 0.2;  // Stale
  double abort_ratio = 0.0;
  bool timestamps = true;
  bool labels = false;  // "s<session>t<index>"
};

struct LwtGenParams {
  uint64_t seed = 1;
  uint32_t sessions = 4;
  uint32_t ops_per_session = 16;
  KeyParams key;
  double read_ratio = 0.2;  // reads (compare-and-sets that failed)
  bool inserts = true;      // keys start absent and an insert-if-not-exists creates each
  uint32_t latency = 3;     // how far (in steps) an interval may stretch around its point
  double stale_ratio = 0.0;  // anomalies: reads of older versions
  double abort_ratio = 0.0;  // aborted operations (no effect)
  bool labels = false;
};

void generate_mt_history(const MtGenParams& p, GenSink& sink);
Expected<History> generate_mt_history(const MtGenParams& p);

void generate_lwt_history(const LwtGenParams& p, GenSink& sink);
Expected<History> generate_lwt_history(const LwtGenParams& p);

}  // namespace isoscope
