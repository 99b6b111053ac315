// A 64-bit mixing function for hashing search states and fingerprints.
#pragma once
#include <cstdint>

namespace isoscope {

// splitmix64's finaliser: every input bit affects every output bit.
inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace isoscope
