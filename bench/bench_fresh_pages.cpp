// What a buffer's first write costs on this machine: the page faults of fresh memory, which a bake
// pays on its planes and stages (vatkit's allocate_big asks for transparent huge pages from 2 MB).
// On virtual machines this varies by 10x between sittings and explains most of the difference
// between a bake in a fresh process and the warm medians of bench_bake (docs/benchmarks.md).
//
// Usage: bench_fresh_pages [--reps N]
// Prints, per buffer size, the median over N (default 9) of: first write of one byte per 4 kB
// page of a fresh anonymous mapping with 4 kB pages (MADV_NOHUGEPAGE), the same with transparent
// huge pages (a 2 MB-aligned mapping, MADV_HUGEPAGE), and a second write of the same pages (the
// memory cost alone), in microseconds per 4 kB.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double touch_us_per_page(char* p, size_t bytes, char value) {
  const auto t0 = Clock::now();
  for (size_t i = 0; i < bytes; i += 4096) p[i] = value;
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  return us / double(bytes / 4096);
}

struct Sample {
  double first, second;
};

// One fresh mapping of `bytes`, 2 MB-aligned, with or without huge pages.
Sample measure(size_t bytes, bool huge) {
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t span = bytes + kHuge;
  char* raw = static_cast<char*>(mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (raw == MAP_FAILED) {
    std::perror("mmap");
    std::exit(1);
  }
  char* p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kHuge - 1) / kHuge * kHuge);
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  Sample s;
  s.first = touch_us_per_page(p, bytes, 1);
  s.second = touch_us_per_page(p, bytes, 2);
  munmap(raw, span);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 9;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::printf("usage: bench_fresh_pages [--reps N]\n");
      return 2;
    }
  }
  std::printf("First write to fresh memory (median of %d), us per 4 kB page\n\n", reps);
  std::printf("| buffer | 4 kB pages, first write | huge pages, first write | second write |\n|---:|---:|---:|---:|\n");
  for (size_t kb : {256, 1024, 4096, 16384}) {
    std::vector<double> small, huge, again;
    for (int r = 0; r < reps; ++r) {
      const Sample a = measure(kb << 10, false), b = measure(kb << 10, true);
      small.push_back(a.first);
      huge.push_back(b.first);
      again.push_back(a.second);
    }
    std::printf("| %zu kB | %.2f | %.2f | %.3f |\n", kb, median(small), median(huge), median(again));
  }
  return 0;
}
