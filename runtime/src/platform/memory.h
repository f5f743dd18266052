// memory.h (internal to vatkit): large output buffers.
#pragma once

#include <cstddef>

namespace vatkit::detail {

// Uninitialized memory for output, 64-byte aligned (from 1 MiB: 2 MiB aligned, rounded up to
// 2 MiB, transparent huge pages asked for where the system has them); release with std::free.
// Throws std::bad_alloc when the memory is not there.
void* allocate_big(size_t bytes);

}  // namespace vatkit::detail
