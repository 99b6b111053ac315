// Lost writes (docs/formats.md, "Faults"): a committed write that a crash lost. In a history
// recorded with faults, a committed transaction W wrote a key and was acknowledged (it ended)
// before a crash began; a committed transaction R began after that crash and read the key from a
// transaction that had ended before W began (or from the initial state), or read the key's list
// without W's element. Every order that respects real time puts the older writer before W and W
// before R, so R's read misses W's write: strict serializability (and linearizability) forbid
// it, whatever else the history holds. The crash between W's acknowledgement and R's start is
// what makes it a lost write rather than a stale read.
#pragma once
#include <cstddef>
#include <vector>

#include "checkers/result.h"
#include "model/history.h"

namespace isoscope {

// The lost writes of h, one per lost write (the first read that missed it); at most `max` are
// built, `total` counts them all. None when h records no crash.
std::vector<Anomaly> lost_writes(const History& h, size_t max, size_t& total);

}  // namespace isoscope
