// Asks the kernel to back a large, not yet touched buffer with 2 MB pages. A 100 MB history
// otherwise costs ~25,000 page faults per array on first touch, which on Linux VMs is a third
// of import time; with transparent huge pages in "madvise" mode only an madvise() enables them.
// A hint only: no effect on contents, and a no-op elsewhere (WebAssembly, macOS).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#endif

namespace isoscope {

inline void prefer_huge_pages(const void* data, size_t bytes) {
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < 2 * kHuge) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

// reserve() followed by the hint, for vectors about to be filled.
template <class T>
void reserve_huge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  prefer_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace isoscope
