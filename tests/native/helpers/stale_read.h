// A stale read under real time at epoch nanoseconds, shared by the times tests
// (model/times_test.cpp) and convert's (cli/commands_test.cpp).
#pragma once
#include <cstdint>
#include <string>

// T1 writes x = 1 in [B, B + 200]; T2 starts 100 ns after T1 ends, in [B + 300, B + 400], and
// reads the initial value: a stale read under real time (SSER fails; SER holds, T2 first).
// B = 1.7e18 is a multiple of 256, a double's spacing there: B + 200 and B + 300 both round to
// B + 256 as doubles.
constexpr int64_t kB = 1'700'000'000'000'000'000;
extern const std::string kT1Start, kT1End, kT2Start, kT2End;  // kB, kB + 200, kB + 300, kB + 400

// The history in isoscope JSON, Elle EDN and Elle (Jepsen) JSON.
std::string stale_isoscope_json();
std::string stale_elle_edn();
std::string stale_elle_json();
