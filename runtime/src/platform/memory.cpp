#include "platform/memory.h"

#include <algorithm>
#include <new>

#include "platform/platform.h"

namespace vatkit::detail {

void* allocate_big(size_t bytes) {
  // Output planes are written once, soon after allocation: on Linux, transparent huge pages cut
  // the page faults of a fresh multi-megabyte buffer 512-fold (they are most of a small bake in a
  // new process). From 1 MB (rounded up to a 2 MB page: at most twice the memory); with the pages
  // reused it makes no difference (docs/benchmarks-log.md, "Fresh memory on this VM").
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t align = bytes >= kHuge / 2 ? kHuge : 64;
  const size_t size = (std::max<size_t>(bytes, 1) + align - 1) / align * align;
  void* p = platform::allocate_aligned(align, size, align == kHuge);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void free_big(void* p) { platform::free_aligned(p); }

}  // namespace vatkit::detail
