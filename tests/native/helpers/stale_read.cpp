// The stale read under real time of stale_read.h, in the formats that carry times.
#include "stale_read.h"

const std::string kT1Start = std::to_string(kB), kT1End = std::to_string(kB + 200),
                  kT2Start = std::to_string(kB + 300), kT2End = std::to_string(kB + 400);

std::string stale_isoscope_json() {
  return R"({"initial": 0, "sessions": [
    [{"ops": [["w", "x", 1]], "start": )" + kT1Start + R"(, "end": )" + kT1End + R"(}],
    [{"ops": [["r", "x", 0]], "start": )" + kT2Start + R"(, "end": )" + kT2End + R"(}]]})";
}

std::string stale_elle_edn() {
  return "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time " + kT1Start + "}\n" +
         "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time " + kT1End + "}\n" +
         "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time " + kT2Start + "}\n" +
         "{:type :ok, :f :txn, :value [[:r :x nil]], :process 1, :time " + kT2End + "}\n";
}

std::string stale_elle_json() {
  return R"([{"type": "invoke", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": )" + kT1Start + "},\n" +
         R"( {"type": "ok", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": )" + kT1End + "},\n" +
         R"( {"type": "invoke", "f": "txn", "value": [["r", "x", null]], "process": 1, "time": )" + kT2Start + "},\n" +
         R"( {"type": "ok", "f": "txn", "value": [["r", "x", null]], "process": 1, "time": )" + kT2End + "}]\n";
}
