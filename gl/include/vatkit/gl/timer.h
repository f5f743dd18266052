// vatkit/gl/timer.h: how long GPU work took, measured the way the driver allows.
//
// Two methods:
//  - GpuQuery: a GL_TIME_ELAPSED query around the work; measures GPU execution only, costs
//    nothing on the CPU until the result is read. Used on hardware drivers (NVIDIA).
//  - WallClockFinish: glFinish, steady clock, the work, glFinish, steady clock. Used on
//    software rasterizers: llvmpipe accepts GL_TIME_ELAPSED queries but they read ~0 there,
//    since the work runs when the CPU flushes rather than on a timeline the query sees. Includes
//    the CPU cost of issuing the work and stalls the pipeline at both ends.
// Automatic picks GpuQuery unless the renderer is software (ContextInfo::software) or the
// driver has no timer bits (ContextLimits::timer_query_bits == 0). method() says which one runs;
// report it next to any number measured with it.
//
// One begin()/end() pair at a time (time-elapsed queries do not nest); elapsed_ms() waits for
// the result. Timings are for benchmarks that print them, never for assertions in tests.
// Threads: every call needs the GL context that made the objects current on the calling thread;
// objects are not synchronized (one thread at a time).
#pragma once

#include <chrono>

#include "vatkit/gl/context.h"
#include "vatkit/gl/objects.h"
#include "vatkit/result.h"

namespace vatkit::gl {

enum class TimerMethod { Automatic, GpuQuery, WallClockFinish };

// "GL_TIME_ELAPSED query", "glFinish + wall clock", "automatic".
const char* timer_method_name(TimerMethod method);

class GpuTimer {
 public:
  // Errors: GpuQuery asked for on a driver without timer bits.
  static Result<GpuTimer> create(const Context& context, TimerMethod method = TimerMethod::Automatic);

  GpuTimer() = default;
  GpuTimer(GpuTimer&&) noexcept = default;
  GpuTimer& operator=(GpuTimer&&) noexcept = default;

  TimerMethod method() const { return method_; }  // never Automatic
  void begin();
  void end();
  // Milliseconds between begin() and end(); waits for the GPU. Errors: no begin()/end() pair.
  Result<double> elapsed_ms();

 private:
  TimerMethod method_ = TimerMethod::WallClockFinish;
  Query query_;
  std::chrono::steady_clock::time_point start_, stop_;
  int state_ = 0;  // 0 idle, 1 begun, 2 ended
};

}  // namespace vatkit::gl
