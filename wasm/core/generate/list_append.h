// List-append workloads (Elle's): `isoscope generate --list-append`.
#pragma once
#include "generate/random_history.h"

namespace isoscope {

// A list-append history with the shape of p: p is generated in Serial mode (with timestamps,
// which record its serial order), then replayed in that order with every write turned into an
// append and every read into a read of the whole list as that serial execution sees it (the
// committed appends, then the transaction's own). The result satisfies every level. Timestamps
// are kept only when p.timestamps is set. Each of the p.keys keys takes at most
// kMaxAppendsPerKey appends, then a fresh key takes its place (p.keys are in use at a time).
constexpr size_t kMaxAppendsPerKey = 32;
Expected<History> generate_list_append_history(GenParams p);

}  // namespace isoscope
