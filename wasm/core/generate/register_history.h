// Jepsen register and cas-register histories (records of an object history, which
// formats/writers.h's JepsenEdnSink writes as EDN, the `jepsen` format) with verdicts known by
// construction: each operation takes effect at a random instant inside its interval, so the
// history is linearizable; :info operations took effect there or never. Planted stale reads
// (a read of nil, the absent value, after a write of its key had completed) make it not.
#pragma once
#include <cstdint>

#include "model/gen_sink.h"

namespace isoscope {

struct RegisterGenParams {
  uint64_t seed = 1;
  uint32_t processes = 5;        // concurrent clients
  uint32_t ops_per_process = 10;
  uint32_t keys = 1;             // more than one: independent keys as [key value] tuples
  bool cas = true;               // cas-register (read, write, cas); else register (read, write)
  double info_ratio = 0.05;      // operations whose outcome is unknown (:info)
  double stale_ratio = 0;        // reads made stale where one can be (0: none, linearizable)
};

struct RegisterGenResult {
  uint64_t ops = 0;
  uint64_t stale_reads = 0;  // planted: the history is linearizable iff this is 0
};

// Streams the records, after a comment line that says whether the history is linearizable.
RegisterGenResult generate_register_history(const RegisterGenParams& p, ObjectSink& sink);

}  // namespace isoscope
