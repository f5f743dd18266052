#include "platform/memory.h"

#include <algorithm>
#include <new>

#include "platform/platform.h"

namespace vatkit::detail {

void* allocate_big(size_t bytes) {
  // Output planes are written once, soon after allocation: on Linux, transparent huge pages cut
  // the page faults of a fresh multi-megabyte buffer 512-fold (they were most of a small bake).
  // From 1 MB (rounded up to a 2 MB page: at most twice the memory): on the 2-core VM, where a
  // fresh 4 kB page costs 9 us, RobotExpressive's rig bake in fresh memory (its 1.05 MB plane) went
  // from 5.0-6.6 to 2.2-3.0 ms and CesiumMan's q16 delta (a 1.6 MB plane) from 10.4 to 4.8-5.1 ms
  // on one thread; with the pages reused, no difference (docs/benchmarks.md, "Fresh memory").
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t align = bytes >= kHuge / 2 ? kHuge : 64;
  const size_t size = (std::max<size_t>(bytes, 1) + align - 1) / align * align;
  void* p = platform::allocate_aligned(align, size, align == kHuge);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void free_big(void* p) { platform::free_aligned(p); }

}  // namespace vatkit::detail
