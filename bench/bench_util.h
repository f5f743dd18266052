// What the benchmark programs share: how a rate is printed and the process's CPU time.
#pragma once

#include <cstdio>
#include <ctime>
#include <string>

namespace vatkit::bench {

// A rate with an SI prefix: "1.23 G", "45.6 M", "7.8 k", or a plain integer below a thousand.
inline std::string si(double v) {
  char buf[32];
  if (v >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.2f G", v / 1e9);
  } else if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.1f M", v / 1e6);
  } else if (v >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.1f k", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  }
  return buf;
}

// The process's CPU time in seconds, every thread summed: on a shared machine the robust number
// for one thread, since time spent preempted does not count.
inline double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

}  // namespace vatkit::bench
