// vatkit/parallel.h: the one way vatkit spreads work over threads.
//
// parallel_for splits [0, count) into contiguous ranges of at least `grain` items and calls
// fn(begin, end) for each, on a persistent pool of worker threads (the caller works too). Ranges
// are independent, so a caller that writes only its range produces the same bytes whatever the
// thread count. threads = 0 means every hardware thread; 1 runs inline.
#pragma once

#include <cstddef>
#include <functional>

namespace vatkit {

unsigned hardware_threads();

void parallel_for(size_t count, size_t grain, unsigned threads,
                  const std::function<void(size_t begin, size_t end)>& fn);

}  // namespace vatkit
