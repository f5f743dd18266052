// Shared between the context front end (context.cpp, the only one that touches GL) and the two
// ways of making a context current (context_egl.cpp, context_glfw.cpp).
#pragma once

#include <memory>
#include <string>

#include "vatkit/gl/context.h"

namespace vatkit::gl {

// A context made current by EGL or GLFW; destroying it releases the context (and window).
struct Backend {
  virtual ~Backend();
  virtual bool make_current() = 0;
  virtual void release_current() = 0;  // leaves no context of this API current on the thread
  virtual bool is_current() const = 0;
  virtual GLFWwindow* window() const { return nullptr; }
  virtual void swap_buffers() {}
  virtual void poll_events() {}
  virtual bool should_close() const { return false; }
  virtual void framebuffer_size(int& width, int& height) const { width = height = 0; }
};

// The backend vatkit last made current on this thread (null: none).
Backend*& thread_current();
// Makes `backend` current on this thread, first releasing the one current before: with glvnd a
// thread has contexts of one API (EGL or GLX) current at a time, and GLX answers a mix with
// BadAccess, which Xlib's default handler turns into exit().
bool switch_current(Backend* backend);
// Releases the backend current on this thread, returning it (or null).
Backend* release_thread_current();

struct Context::Impl {
  std::unique_ptr<Backend> backend;
  ContextInfo info;
  DebugLog log;
  std::vector<DebugMessage> errors;
  uint64_t logged = 0;
  DebugMessage message;  // the debug callback's buffer, reused message after message
  bool in_log = false;   // the callback is inside the log (which may make GL calls)

  // The path shared by headless and windowed contexts, run once the backend's context is
  // current: loads GL, checks the version, reads strings and limits, installs the debug callback.
  static Result<Context> finish(std::unique_ptr<Backend> backend, std::string platform, bool debug, DebugLog log);
};

// Creates and makes current an EGL context without a surface. `platform` receives a description.
Result<std::unique_ptr<Backend>> create_egl_backend(const HeadlessDesc& options, std::string& platform);

#ifdef VATKIT_GL_HAVE_GLFW
Result<std::unique_ptr<Backend>> create_glfw_backend(const WindowDesc& options, std::string& platform);
#endif

// The GL context versions asked for, newest first (Mesa refuses 4.6; NVIDIA gives what is asked).
inline constexpr int kContextVersions[][2] = {{4, 6}, {4, 5}, {4, 3}};

}  // namespace vatkit::gl
