// Large allocations, checked before they are made. Without exceptions (the wasm build), a failed
// allocation aborts the whole module; probing with malloc first lets the caller return an error
// and leaves the module usable for the next call. Natively the probe is cheap too.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace isoscope {

// Whether `bytes` more can be allocated now (malloc, then free), with a margin: the allocation
// that follows asks for a little more (a string's terminator, allocator rounding) and must not
// be the one that finds the heap exhausted.
inline bool can_allocate(size_t bytes) {
  const size_t margin = bytes / 16 + (size_t{1} << 20);
  if (bytes > SIZE_MAX - margin) return false;
  void* p = std::malloc(bytes + margin);
  // The pointer escapes into an empty asm: otherwise clang may elide the malloc/free pair and
  // assume that the allocation succeeded, which would make this probe always answer true.
  asm volatile("" : : "r"(p) : "memory");
  if (!p) return false;
  std::free(p);
  return true;
}

// The next capacity for a buffer that holds `have` bytes and needs `need`: doubling while small,
// then by a quarter (a doubling near the top would ask for far more than the input needs), and
// never past `max`.
inline size_t grow_capacity(size_t have, size_t need, size_t max) {
  const size_t step = have < (size_t{256} << 20) ? std::max(have, size_t{1} << 16) : have / 4;
  return std::min(max, std::max(need, have + step));
}

}  // namespace isoscope
