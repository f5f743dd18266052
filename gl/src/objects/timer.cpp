#include "vatkit/gl/timer.h"

#include "vatkit/gl/gl.h"

namespace vatkit::gl {

const char* timer_method_name(TimerMethod method) {
  switch (method) {
    case TimerMethod::Automatic: return "automatic";
    case TimerMethod::GpuQuery: return "GL_TIME_ELAPSED query";
    case TimerMethod::WallClockFinish: return "glFinish + wall clock";
  }
  return "unknown";
}

Result<GpuTimer> GpuTimer::create(const Context& context, TimerMethod method) {
  const ContextInfo& info = context.info();
  const bool queries_work = info.limits.timer_query_bits > 0;
  if (method == TimerMethod::GpuQuery && !queries_work) {
    return make_error(ErrorCode::Gl, "GPU timer", "'" + info.renderer + "' has no GL_TIME_ELAPSED counter bits");
  }
  if (method == TimerMethod::Automatic) {
    method = queries_work && !info.software ? TimerMethod::GpuQuery : TimerMethod::WallClockFinish;
  }
  GpuTimer timer;
  timer.method_ = method;
  if (method == TimerMethod::GpuQuery) timer.query_ = create_query(GL_TIME_ELAPSED);
  return timer;
}

void GpuTimer::begin() {
  if (method_ == TimerMethod::GpuQuery) {
    glBeginQuery(GL_TIME_ELAPSED, query_.id());
  } else {
    glFinish();
    start_ = std::chrono::steady_clock::now();
  }
  state_ = 1;
}

void GpuTimer::end() {
  if (method_ == TimerMethod::GpuQuery) {
    glEndQuery(GL_TIME_ELAPSED);
  } else {
    glFinish();
    stop_ = std::chrono::steady_clock::now();
  }
  state_ = state_ == 1 ? 2 : 0;
}

Result<double> GpuTimer::elapsed_ms() {
  if (state_ != 2) return make_error(ErrorCode::Argument, "GPU timer", "elapsed_ms() without a begin()/end() pair");
  if (method_ == TimerMethod::GpuQuery) {
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query_.id(), GL_QUERY_RESULT, &ns);
    return double(ns) * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(stop_ - start_).count();
}

}  // namespace vatkit::gl
