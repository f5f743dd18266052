// What a thread's work costs right after it waited: the part of a frame's CPU time that belongs to
// the machine, not to the program. `vatkit bench` measures the submission of a crowd frame (a few
// dozen GL calls) after waiting for the GPU; on a hardware GPU those calls cost several times more
// after a long GPU frame than after a short one, at any crowd size (docs/benchmarks.md, "where a
// frame's CPU time goes"). This program asks the same question with no GL at all: a fixed piece of
// CPU work (dependent loads over a working set, 64 KiB and 1 MiB by default, and some
// arithmetic), timed after each kind of wait.
//
// Usage: bench_wake [--reps N] [--pause-ms MS] [--kib K,...] [--huge]
// Prints, for each wait before the work (none: back to back; sleep: nanosleep; spin: a loop on
// the clock; spin with pause: the same with the x86 PAUSE instruction, which a hypervisor may take
// as idling), the median and 90th percentile of the work's time in microseconds over N (default
// 60) repetitions, and the median's ratio to back to back.
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

// A random cyclic permutation of a working set of indices: each load depends on the one before, so
// the work's time is its loads' latency (the caches' and the TLB's state), plus a little arithmetic
// per step. The set lives in its own 2 MiB-aligned mapping, with transparent huge pages or without
// (--huge): where huge pages take the slowdown after a wait away, it is the TLB's, not the caches'.
struct Work {
  uint32_t* next = nullptr;
  size_t count = 0, span = 0;
  void* raw = nullptr;
  Work(size_t n, bool huge) : count(n) {
    constexpr size_t kHuge = size_t(2) << 20;
    span = (n * sizeof(uint32_t) + kHuge - 1) / kHuge * kHuge + kHuge;
    raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
      std::perror("mmap");
      std::exit(1);
    }
    next = reinterpret_cast<uint32_t*>((reinterpret_cast<uintptr_t>(raw) + kHuge - 1) / kHuge * kHuge);
    madvise(next, span - kHuge, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin() + 1, order.end(), std::mt19937(7));
    for (size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  }
  ~Work() { munmap(raw, span); }
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;
  uint32_t run(uint32_t steps) const {
    uint32_t i = 0, h = 2166136261u;
    for (uint32_t s = 0; s < steps; ++s) {
      i = next[i];
      h = (h ^ i) * 16777619u;
    }
    return h;
  }
};

enum class Wait { None, Sleep, Spin, SpinPause };
const char* wait_name(Wait w) {
  switch (w) {
    case Wait::None: return "none (back to back)";
    case Wait::Sleep: return "sleep";
    case Wait::Spin: return "spin";
    case Wait::SpinPause: return "spin with pause";
  }
  return "?";
}

void wait_for(Wait w, double ms) {
  if (w == Wait::None) return;
  if (w == Wait::Sleep) {
    timespec ts{time_t(ms / 1000.0), long(std::fmod(ms, 1000.0) * 1e6)};
    nanosleep(&ts, nullptr);
    return;
  }
  const auto end = Clock::now() + std::chrono::duration<double, std::milli>(ms);
  while (Clock::now() < end) {
#if defined(__x86_64__) || defined(__i386__)
    if (w == Wait::SpinPause) _mm_pause();
#endif
  }
}

// The process's anonymous memory in transparent huge pages (/proc/self/smaps_rollup), as a check
// that --huge got them.
std::string anon_huge_pages() {
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (!f) return "AnonHugePages unknown";
  char line[256];
  std::string out = "AnonHugePages unknown";
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "AnonHugePages:", 14) == 0) {
      out = line;
      while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    }
  }
  std::fclose(f);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 60;
  double pause_ms = 17.0;
  std::vector<size_t> kib = {64, 1024};
  bool huge = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--pause-ms" && i + 1 < argc) {
      pause_ms = std::max(0.0, std::atof(argv[++i]));
    } else if (a == "--huge") {
      huge = true;
    } else if (a == "--kib" && i + 1 < argc) {
      kib.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        const unsigned long v = std::strtoul(p, &end, 10);
        if (end == p || v == 0) break;
        kib.push_back(size_t(v));
        p = *end == ',' ? end + 1 : end;
      }
    } else {
      std::fprintf(stderr, "usage: bench_wake [--reps N] [--pause-ms MS] [--kib K,...] [--huge]\n");
      return 2;
    }
  }
  constexpr uint32_t kSteps = 20000;
  std::printf(
      "A fixed piece of CPU work (%u dependent loads over a working set) after each kind of wait of %.1f ms; "
      "median and 90th percentile of %d repetitions; %s\n\n",
      kSteps, pause_ms, reps, huge ? "transparent huge pages" : "4 KiB pages");
  std::printf(
      "| working set | wait before the work | median us | p90 us | median / back to back "
      "|\n|---:|---|---:|---:|---:|\n");
  volatile uint32_t sink = 0;
  for (size_t k : kib) {
    const Work work(k * 1024 / sizeof(uint32_t), huge);
    sink = sink + work.run(kSteps * 4);  // warm the working set
    if (huge) std::fprintf(stderr, "bench_wake: %zu KiB working set, %s\n", k, anon_huge_pages().c_str());
    double base = 0.0;
    for (Wait w : {Wait::None, Wait::Sleep, Wait::Spin, Wait::SpinPause}) {
      std::vector<double> us;
      for (int r = 0; r < reps; ++r) {
        wait_for(w, pause_ms);
        const auto t0 = Clock::now();
        sink = sink + work.run(kSteps);
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
      std::sort(us.begin(), us.end());
      const double median = us[us.size() / 2], p90 = us[std::min(us.size() - 1, us.size() * 9 / 10)];
      if (w == Wait::None) base = median;
      std::printf("| %zu KiB | %s | %.1f | %.1f | %.2f |\n", k, wait_name(w), median, p90, median / base);
    }
  }
  return sink == 0xffffffffu ? 1 : 0;
}
