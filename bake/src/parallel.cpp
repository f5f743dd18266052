// A small persistent pool: workers sleep on a condition variable; each parallel_for publishes a
// job (a range counter and a function), the caller and the workers take chunks until it is done.
#include "vatkit/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace vatkit {

struct AsyncTask::State {
  std::function<void()> fn;
  bool taken = false;        // by a worker or by wait(); under the pool's mutex
  bool done = false;         // under the pool's mutex
  std::exception_ptr error;  // what fn threw, rethrown by wait()
};

namespace {

class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }

  // [0, count) in `chunks` ranges of count / chunks items, rounded down or up.
  void run(size_t count, size_t chunks, unsigned threads, const std::function<void(size_t, size_t)>& fn) {
    std::unique_lock serial(serial_);  // one job at a time; nested calls run inline
    const unsigned helpers =
        static_cast<unsigned>(std::min<size_t>({size_t(threads) - 1, chunks - 1, workers_.size()}));
    {
      std::lock_guard lock(mutex_);
      next_.store(0);
      done_.store(0);
      fn_ = &fn;
      count_ = count;
      chunks_ = chunks;
      wanted_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock lock(mutex_);
    wanted_ = 0;  // workers that have not woken yet must not join a finished job
    finished_.wait(lock, [&] { return done_.load() == chunks_ && active_ == 0; });
    fn_ = nullptr;
  }

  bool busy_on_this_thread() const { return in_job_; }

  void post(std::shared_ptr<AsyncTask::State> task) {
    {
      std::lock_guard lock(mutex_);
      side_.push_back(std::move(task));
    }
    wake_.notify_all();
  }

  // Runs the task here unless a worker took it, then waits for it.
  void wait(const std::shared_ptr<AsyncTask::State>& task) {
    std::unique_lock lock(mutex_);
    if (!task->taken) {
      task->taken = true;
      std::erase(side_, task);
      lock.unlock();
      run_side(*task);
      return;
    }
    side_done_.wait(lock, [&] { return task->done; });
  }

 private:
  Pool() {
    const unsigned n = hardware_threads();
    for (unsigned i = 1; i < n; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }

  void work() {
    in_job_ = true;
    for (;;) {
      const size_t c = next_.fetch_add(1);
      if (c >= chunks_) break;
      (*fn_)(c * count_ / chunks_, (c + 1) * count_ / chunks_);
      done_.fetch_add(1);
    }
    in_job_ = false;
  }

  void run_side(AsyncTask::State& task) {
    const bool was_in_job = in_job_;
    in_job_ = true;  // a parallel_for inside runs inline
    try {
      task.fn();
    } catch (...) {
      task.error = std::current_exception();
    }
    in_job_ = was_in_job;
    {
      std::lock_guard lock(mutex_);
      task.done = true;
    }
    side_done_.notify_all();
  }

  void loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || (generation_ != seen && wanted_ > 0) || !side_.empty(); });
        if (stop_) return;
        // A side task first: someone will wait for it, while a job's caller works on the job
        // itself. (Joining first would leave a bake's vertex-cache ordering, posted just before
        // its frame rows, to run alone after them.)
        if (!side_.empty()) {
          std::shared_ptr<AsyncTask::State> task = std::move(side_.front());
          side_.pop_front();
          task->taken = true;
          lock.unlock();
          run_side(*task);
          continue;
        }
        seen = generation_;
        --wanted_;
        ++active_;
      }
      work();
      {
        std::lock_guard lock(mutex_);
        --active_;
      }
      finished_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex serial_;
  std::mutex mutex_;
  std::condition_variable wake_, finished_, side_done_;
  std::deque<std::shared_ptr<AsyncTask::State>> side_;  // posted, not taken
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t count_ = 0, chunks_ = 0;
  std::atomic<size_t> next_{0}, done_{0};
  unsigned wanted_ = 0, active_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
  static thread_local bool in_job_;
};

thread_local bool Pool::in_job_ = false;

}  // namespace

// Asked once: glibc reads /sys/devices/system/cpu/online for every call (a file read, which every
// AsyncTask and every parallel_for would pay).
unsigned hardware_threads() {
  static const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

unsigned thread_count(unsigned threads) { return threads == 0 ? hardware_threads() : std::min(threads, kMaxThreads); }

void parallel_for(size_t count, size_t grain, unsigned threads, const std::function<void(size_t, size_t)>& fn) {
  if (count == 0) return;
  threads = thread_count(threads);
  grain = std::max<size_t>(grain, 1);
  Pool& pool = Pool::instance();
  // About four ranges per thread balance uneven work without much scheduling overhead; none
  // shorter than `grain` (a range of 2 blocks after one of 10 costs a small rig bake the wake-up
  // of a worker for nothing).
  const size_t chunks = std::min(size_t(threads) * 4, count / grain);
  if (threads == 1 || chunks <= 1 || pool.busy_on_this_thread()) {
    fn(0, count);
    return;
  }
  pool.run(count, chunks, threads, fn);
}

AsyncTask::AsyncTask(std::function<void()> fn, unsigned threads) : state_(std::make_shared<State>()) {
  state_->fn = std::move(fn);
  threads = thread_count(threads);
  if (threads > 1 && hardware_threads() > 1) Pool::instance().post(state_);
}

AsyncTask& AsyncTask::operator=(AsyncTask&& other) noexcept {
  if (this != &other) {
    wait_dropping_error();
    state_ = std::move(other.state_);
  }
  return *this;
}

AsyncTask::~AsyncTask() { wait_dropping_error(); }

void AsyncTask::wait_dropping_error() noexcept {
  try {
    wait();
  } catch (...) {  // wait() first to see the error
  }
}

void AsyncTask::wait() {
  if (!state_) return;
  Pool::instance().wait(state_);
  const std::exception_ptr error = state_->error;
  state_.reset();
  if (error) std::rethrow_exception(error);
}

}  // namespace vatkit
