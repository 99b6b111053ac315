// Jepsen's nemesis records as faults (docs/formats.md, "Faults"): the readers of Jepsen and Elle
// histories leave the nemesis's records out of the transactions (they are no client's), and
// give them to this, which pairs them into the spans the page draws behind its timeline.
//   :start-X ... :stop-X        a fault X (start-partition, start-pause, start-kill, ...)
//   :kill ... :start            a crash (Jepsen's db nemesis kills, then starts the server)
//   :pause ... :resume          a pause
//   :start ... :stop            a fault of Jepsen's default nemesis (partition-random-halves)
//   any other :f                a fault of that name, at its record's time
// A fault spans from the first record that opens it (the nemesis's invocation) to the last
// record of the function that closes it (its completion); one left open ends at the history's
// last nemesis time. Records without :time place nothing.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model/history.h"

namespace isoscope {

class NemesisFaults {
 public:
  // One nemesis record: its :f (without ':'), its :time (has_time false: none).
  void record(std::string_view f, bool has_time, const Time& time);
  // The faults, in the order they began.
  std::vector<FaultSpan> finish();

 private:
  struct Open {
    std::string kind, closer;  // the fault, and the :f that closes it
    Time start, end;
    bool closing = false;      // a record of `closer` was seen: more of them extend the end
    int extensions = -1;       // how many more records of `closer` may extend it (-1: any)
  };
  std::vector<Open> open_;
  std::vector<FaultSpan> done_;
  Time last_;
  bool any_time_ = false;
};

}  // namespace isoscope
