// Non-transactional histories of single-object operations (Jepsen's register, cas-register and
// independent-key workloads, Knossos's histories, Porcupine's etcd and kv logs): what LIN checks
// them against, beside the History that shows them.
//
// Each client operation is one transaction of the History, in its process's session, with the
// invocation and completion times as start and end (display, explanations, the Timeline). The
// operation itself, as the object model sees it, is a RegOp here: History::registers. Writes of
// one value are not unique in these histories (a register is written 0..4 over and over), so the
// transactional levels do not apply to them (checkers/check.cpp says n/a); LIN does.
//
// Semantics (docs/formats.md, LIN): every object starts absent (nil), or with the value the user
// gives (check --initial, Registers::initial); a read of nil reads the absent value; :fail never took effect and constrains nothing; :info may take effect at any
// point after its invocation, or never.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

namespace isoscope {

// The object model of a history: which operations exist and what state they act on.
enum class ObjectModel : uint8_t {
  None,           // a transactional history (History::registers is empty)
  Register,       // read, write
  CasRegister,    // read, write, compare-and-set
  KeyValue,       // Porcupine's kv: get, put, append of strings (absent reads as "")
  MultiRegister,  // Knossos: transactions of reads and writes over several registers
  Mutex,          // acquire, release
};
const char* object_model_name(ObjectModel m);  // "register", "cas-register", ...

enum class ObjFn : uint8_t { Read, Write, Cas, Append, Acquire, Release, Txn };
const char* obj_fn_name(ObjFn f);  // "read", "write", "cas", ...

// One micro-operation of a multi-register transaction.
struct ObjMicro {
  uint32_t key;    // KeyId
  uint32_t value;  // ValueId; a read's kUnobserved when its result is unknown
  bool write;
};

struct RegOp {
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();  // ret of :info
  static constexpr uint32_t kUnobserved = 0xFFFFFFFFu;                   // a read with no result

  uint32_t txn = 0;            // the History transaction that shows it
  int64_t process = 0;         // the client's process number, as the history names it
  uint32_t key = 0;            // KeyId of its object (the partition); 0 when there is one object
  ObjFn fn = ObjFn::Read;
  uint8_t status = 0;          // 0 :ok, 1 :fail, 2 :info (TxnStatus order)
  uint32_t a = kUnobserved;    // read: the value returned; write/append: the value; cas: from
  uint32_t b = kUnobserved;    // cas: to
  uint32_t micro_begin = 0, micro_end = 0;  // Txn: into Registers::micro
  // Real time: the invocation and the completion (kNever when it never completed or is :info:
  // status tells those apart from a completion the history records at the int64 maximum).
  // Integer ticks: Jepsen's nanoseconds, or the position in the file when it records no times.
  int64_t call = 0, ret = kNever;
  // Where a person finds it: the lines of its invocation and of its completion in the file
  // (1-based; 0 where there is none: an operation never completed), for counterexamples.
  uint32_t line = 0, completion_line = 0;

  bool ok() const { return status == 0; }
  bool failed() const { return status == 1; }
  bool indeterminate() const { return status == 2; }
};

struct Registers {
  ObjectModel model = ObjectModel::None;
  std::vector<RegOp> ops;  // in invocation order
  std::vector<ObjMicro> micro;
  // Whether call/ret are times the history recorded (else positions in the file).
  bool timed = false;
  // Whether the history named keys (independent keys, kv's :key); else one register.
  bool keyed = false;
  // The ValueId every object starts with (check --initial: Knossos's multi-register example
  // starts at x = 0, y = 0); kUnobserved: absent (nil; "" for a key-value store).
  uint32_t initial = RegOp::kUnobserved;
  bool empty() const { return model == ObjectModel::None; }
};

}  // namespace isoscope
