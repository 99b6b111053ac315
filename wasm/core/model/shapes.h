// Properties of a history's shape that several layers ask about (the checkers choose a route by
// them, the report states them).
#pragma once
#include "model/history.h"

namespace isoscope {

// Every recorded transaction (whatever its status) is a mini-transaction of MTC (at most four
// reads and writes, every write preceded by a read of its key; no list operations), and there
// is at least one. Such histories take the linear mini-transaction route for SI, SER and SSER.
bool is_mini_transaction_history(const History& h);

}  // namespace isoscope
