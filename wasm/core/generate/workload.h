// Workloads as transaction programs: what a client does in one transaction (read key 3, write
// key 3, append to key 7, ...), planned from the workload's parameters and a seeded Rng. One
// definition serves the simulator, which executes a program against its simulated store
// (db_sim.cpp, mt_history.cpp), and `isoscope run`, which executes it against a database
// connection (native/runner/). The values a program writes are chosen by whoever executes it
// (fresh unique values), the values it reads by the store.
//
// Workloads:
//   Registers    read/write registers with the shapes of Cobra's and PolySI's benchmarks:
//                read-only, write-only, read-modify-write (r(x) w(x) pairs) or mixed (each
//                operation a read with probability read_ratio), in the fractions of `mix`
//   ListAppend   Elle's list-append: the register shapes with every write an append and every
//                read a read of the whole list
//   MiniTxn      MTC's mini-transactions (at most four operations, every write preceded by a read
//                of its key): r(x) | r(x) r(y) | r(x) w(x) | r(x) r(y) w(x) | r(x) r(y) w(x) w(y)
//                | r(x) w(x) r(y) w(y)
//   Lightweight  lightweight transactions (MTC Sec. IV-E, for LIN): a read, or a compare-and-set
//                of one key (read it; if it holds the value the session last saw, write a fresh
//                value)
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "generate/random_history.h"

namespace isoscope {

enum class WorkloadKind : uint8_t { Registers, ListAppend, MiniTxn, Lightweight };

struct WorkloadMix {
  double read_only = 0, write_only = 0, read_modify_write = 0;  // the rest: mixed
};
// "cobra": a third each of read-only, write-only and read-modify-write transactions (Cobra's
// BlindW-RW / RW shapes); "polysi": every transaction mixed (PolySI's general workload, reads
// with probability read_ratio); "random" likewise; "RO,WO,RMW": explicit fractions summing to
// at most 1. Returns false for anything else.
bool parse_workload_mix(std::string_view text, WorkloadMix& out);

enum class StepKind : uint8_t { Read, Write, Append, ReadList, CompareAndSet };
struct ProgramStep {
  StepKind kind;
  uint32_t key;
};
using TxnProgram = std::vector<ProgramStep>;

struct WorkloadParams {
  WorkloadKind kind = WorkloadKind::Registers;
  uint32_t min_ops = 8, max_ops = 8;  // Registers, ListAppend
  KeyParams key;
  double read_ratio = 0.5;  // Registers, ListAppend (mixed shape); Lightweight: reads
  WorkloadMix mix;
  double read_only_ratio = 0.2;  // MiniTxn: r(x) or r(x) r(y)
  double two_key_ratio = 0.5;    // MiniTxn: transactions over two keys (needs two keys)
};

const char* workload_name(WorkloadKind k);  // "registers", "list-append", "mini-transactions", ...

class WorkloadPlanner {
 public:
  explicit WorkloadPlanner(const WorkloadParams& p) : p_(p), keys_(p.key) {}
  // The next transaction's program (replaces out's contents).
  void plan(Rng& rng, TxnProgram& out) const;
  uint32_t num_keys() const { return keys_.size(); }
  const WorkloadParams& params() const { return p_; }

 private:
  void plan_registers(Rng& rng, TxnProgram& out, bool lists) const;
  void plan_mini(Rng& rng, TxnProgram& out) const;
  WorkloadParams p_;
  KeyPicker keys_;
};

}  // namespace isoscope
