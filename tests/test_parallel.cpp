// vatkit/parallel.h: parallel_for covers every index once whatever the thread count; an
// AsyncTask runs exactly once, alongside a parallel_for (a worker takes it before it joins one)
// or on the thread that waits for it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "vatkit/parallel.h"

namespace vatkit {
namespace {

TEST(ParallelFor, EveryIndexOnceWhateverTheThreadCount) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u}) {
    for (size_t count : {size_t(1), size_t(7), size_t(64), size_t(1001)}) {
      std::vector<std::atomic<int>> hits(count);
      parallel_for(count, 3, threads, [&](size_t begin, size_t end) {
        ASSERT_LT(begin, end);
        for (size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (size_t i = 0; i < count; ++i) ASSERT_EQ(hits[i].load(), 1) << "threads " << threads << " count " << count;
    }
  }
}

// A thread count past kMaxThreads counts as kMaxThreads: the work is cut into as few ranges as
// with kMaxThreads (about four per thread), not into a range per item.
TEST(ParallelFor, ThreadCountsAreCapped) {
  EXPECT_EQ(thread_count(0), hardware_threads());
  EXPECT_EQ(thread_count(3), 3u);
  EXPECT_EQ(thread_count(kMaxThreads), kMaxThreads);
  EXPECT_EQ(thread_count(kMaxThreads + 1), kMaxThreads);
  EXPECT_EQ(thread_count(0x80000000u), kMaxThreads);
  const size_t count = 100000;
  std::atomic<size_t> ranges{0}, items{0};
  parallel_for(count, 1, 0xFFFFFFFFu, [&](size_t begin, size_t end) {
    ranges.fetch_add(1);
    items.fetch_add(end - begin);
  });
  EXPECT_EQ(items.load(), count);
  EXPECT_LE(ranges.load(), 4 * size_t(kMaxThreads));
}

// The header's promise: no range shorter than the grain (one range of everything when the
// count is under two grains), so a caller's grain bounds what a worker's wake-up buys.
TEST(ParallelFor, NoRangeShorterThanTheGrain) {
  for (unsigned threads : {2u, 3u, 8u}) {
    for (size_t grain : {size_t(1), size_t(3), size_t(10)}) {
      for (size_t count = 1; count <= 100; ++count) {
        std::atomic<size_t> ranges{0}, covered{0}, shortest{count};
        parallel_for(count, grain, threads, [&](size_t begin, size_t end) {
          ranges.fetch_add(1);
          covered.fetch_add(end - begin);
          size_t s = shortest.load();
          while (end - begin < s && !shortest.compare_exchange_weak(s, end - begin)) {
          }
        });
        ASSERT_EQ(covered.load(), count);
        if (count < 2 * grain) {
          ASSERT_EQ(ranges.load(), 1u) << "count " << count << " grain " << grain;
        } else {
          ASSERT_GE(shortest.load(), grain) << "count " << count << " grain " << grain << " threads " << threads;
        }
      }
    }
  }
}

TEST(AsyncTask, RunsOnceWithAnyThreadCountAndWaitIsIdempotent) {
  for (unsigned threads : {0u, 1u, 2u}) {
    std::atomic<int> runs{0};
    AsyncTask task([&] { runs.fetch_add(1); }, threads);
    task.wait();
    EXPECT_EQ(runs.load(), 1) << "threads " << threads;
    task.wait();
    EXPECT_EQ(runs.load(), 1);
  }
}

TEST(AsyncTask, WaitRethrowsWhatTheTaskThrew) {
  for (unsigned threads : {1u, 2u}) {
    AsyncTask task([] { throw std::runtime_error("out of luck"); }, threads);
    EXPECT_THROW(task.wait(), std::runtime_error) << "threads " << threads;
    EXPECT_NO_THROW(task.wait());  // once
  }
  {
    AsyncTask dropped([] { throw std::runtime_error("dropped"); }, 2);
  }  // no terminate
}

TEST(AsyncTask, DestructorWaits) {
  std::atomic<int> runs{0};
  {
    AsyncTask task(
        [&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          runs.fetch_add(1);
        },
        0);
  }
  EXPECT_EQ(runs.load(), 1);
}

TEST(AsyncTask, RunsAlongsideParallelForsAndNestedLoopsRunInline) {
  // Many tasks in flight while the caller runs parallel_fors; each task itself runs a
  // parallel_for (inline on its thread). Every task runs once, every index is covered once.
  std::atomic<int> runs{0};
  std::vector<std::atomic<long>> sums(32);
  std::vector<AsyncTask> tasks;
  for (size_t t = 0; t < sums.size(); ++t) {
    tasks.emplace_back(
        [&, t] {
          parallel_for(100, 1, 0, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i) sums[t].fetch_add(long(i));
          });
          runs.fetch_add(1);
        },
        0);
  }
  std::vector<std::atomic<int>> hits(5000);
  for (int round = 0; round < 20; ++round) {
    parallel_for(hits.size(), 16, 0, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
  }
  for (AsyncTask& t : tasks) t.wait();
  EXPECT_EQ(runs.load(), int(sums.size()));
  for (const auto& s : sums) EXPECT_EQ(s.load(), 99 * 100 / 2);
  for (const auto& h : hits) ASSERT_EQ(h.load(), 20);
}

TEST(AsyncTask, AWorkerTakesItBeforeJoiningAParallelForPostedAfterIt) {
  // The bake posts its vertex-cache ordering, then makes its frame rows in a parallel_for: the
  // ordering must start while the rows are being made, not after them.
  if (hardware_threads() < 2) GTEST_SKIP() << "one hardware thread: an AsyncTask runs in wait()";
  using Clock = std::chrono::steady_clock;
  std::atomic<int64_t> started{0};
  const Clock::time_point t0 = Clock::now();
  auto since = [&] { return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count(); };
  AsyncTask task([&] { started.store(since()); }, 0);
  // 16 chunks of 10 ms: the caller alone would take 160 ms, and a worker that joins first would
  // leave the task until every chunk is taken.
  parallel_for(16, 1, 0, [&](size_t begin, size_t end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10) * (end - begin));
  });
  const int64_t loop_done = since();
  task.wait();
  ASSERT_GT(started.load(), 0);
  EXPECT_LT(started.load(), loop_done / 2)
      << "the task started at " << started.load() << " us, the loop ended at " << loop_done << " us";
}

}  // namespace
}  // namespace vatkit
