// vatkit/parallel.h: the one way vatkit spreads work over threads.
//
// parallel_for splits [0, count) into contiguous ranges of at least `grain` items and calls
// fn(begin, end) for each, on a persistent pool of worker threads (the caller works too). Ranges
// are independent, so a caller that writes only its range produces the same bytes whatever the
// thread count. threads = 0 means every hardware thread; 1 runs inline; more than kMaxThreads
// counts as kMaxThreads (work batches are sized from the thread count, so an unbounded count
// would make unbounded batches). parallel_for blocks until every range has run. Threads: callable
// from any thread; concurrent callers take turns on the pool (one job at a time), and a
// parallel_for called from inside a range runs inline.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace vatkit {

unsigned hardware_threads();

constexpr unsigned kMaxThreads = 256;

// The thread count a request means: hardware_threads() for 0, else min(threads, kMaxThreads).
unsigned thread_count(unsigned threads);

void parallel_for(size_t count, size_t grain, unsigned threads,
                  const std::function<void(size_t begin, size_t end)>& fn);

// One piece of work started on the pool while the caller goes on: the next free worker takes
// it, before it would join a parallel_for (whose caller works on it anyway); wait() returns once
// it has run, and runs it on the calling thread if
// no worker had started it yet (so it always finishes, with any thread count). For independent
// work that would otherwise run alone after a long parallel loop (the bake orders the full mesh
// for the vertex cache while it makes the frame rows). `fn` must not call back into anything
// that waits for the caller; a parallel_for inside it runs inline. threads = 1 runs it inline in
// wait(). What fn throws, wait() rethrows; the destructor (and move assignment) waits and drops
// it.
class AsyncTask {
 public:
  AsyncTask() = default;
  AsyncTask(std::function<void()> fn, unsigned threads);
  AsyncTask(AsyncTask&&) noexcept = default;
  AsyncTask& operator=(AsyncTask&&) noexcept;
  ~AsyncTask();
  void wait();

  struct State;

 private:
  void wait_dropping_error() noexcept;
  std::shared_ptr<State> state_;
};

}  // namespace vatkit
