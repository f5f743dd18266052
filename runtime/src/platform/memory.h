// memory.h (internal to vatkit): large output buffers.
#pragma once

#include <cstddef>

namespace vatkit::detail {

// Uninitialized memory for output, 64-byte aligned (from 1 MiB: 2 MiB aligned, rounded up to
// 2 MiB, transparent huge pages asked for where the system has them); release with free_big
// (never std::free: on Windows the block comes from _aligned_malloc). Throws std::bad_alloc when
// the memory is not there.
void* allocate_big(size_t bytes);
void free_big(void* p);

// A deleter for std::unique_ptr of allocate_big's memory.
struct FreeBig {
  void operator()(void* p) const { free_big(p); }
};

}  // namespace vatkit::detail
