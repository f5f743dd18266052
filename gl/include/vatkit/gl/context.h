// vatkit/gl/context.h: an OpenGL core context, headless (EGL) or in a window (GLFW).
//
// What it does: creates an OpenGL 4.6/4.5/4.3 core-profile context (the newest the driver gives),
// makes it current on the calling thread, loads GL (libepoxy), checks that the context can run
// vatkit (GL 4.5 or GL_ARB_direct_state_access), and reports the driver's strings and limits.
// Headless and windowed contexts share everything after creation. In debug mode a synchronous
// KHR_debug callback records every GL_DEBUG_TYPE_ERROR message so that check() and take_errors()
// fail on it; other messages (NVIDIA's performance warnings, Mesa's shader notes) are only logged.
//
// What it does NOT do: share objects between contexts, manage threads (a context is current on
// one thread at a time; call make_current() after switching), or create a default framebuffer
// for headless contexts (render into a RenderTarget; framebuffer 0 is incomplete there).
//
// Headless creation (EGL): the Mesa surfaceless platform first (EGL_MESA_platform_surfaceless,
// which NVIDIA also supports), then the device platform (EGL_EXT_platform_device), trying
// hardware devices before software ones (EGL_MESA_device_software). Needs libEGL (glvnd) and a
// driver: Mesa's libgl1-mesa-dri, or NVIDIA's EGL vendor library.
//
// Every GL object (gl/objects.h) must be destroyed while its context is current and before the
// context itself. Errors are values: creation returns an Error naming what was tried and why
// each attempt failed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vatkit/result.h"

struct GLFWwindow;

namespace vatkit::gl {

// One KHR_debug message (or a glGetError code turned into one). The enums are the GL values
// (GL_DEBUG_SOURCE_*, GL_DEBUG_TYPE_*, GL_DEBUG_SEVERITY_*).
struct DebugMessage {
  uint32_t source = 0;
  uint32_t type = 0;
  uint32_t id = 0;  // for glGetError codes: the code (GL_INVALID_ENUM, ...)
  uint32_t severity = 0;
  std::string text;

  bool is_error() const;
  // "error (api, high, id 1280): glEnable(invalid capability)".
  std::string describe() const;
};

// Where debug messages other than errors go. The default (an empty function) writes the
// high- and medium-severity ones and performance warnings to stderr and drops notifications.
using DebugLog = std::function<void(const DebugMessage&)>;

enum class HeadlessPlatform {
  Automatic,    // surfaceless, then device
  Surfaceless,  // EGL_PLATFORM_SURFACELESS_MESA only
  Device,       // EGL_PLATFORM_DEVICE_EXT only (hardware devices first)
};

struct HeadlessDesc {
  bool debug = false;  // debug context + KHR_debug callback (see check())
  HeadlessPlatform platform = HeadlessPlatform::Automatic;
  int device_index = -1;  // device platform: use this EGL device only (-1: choose)
  DebugLog log;
};

struct WindowDesc {
  int width = 1280;  // client area, screen coordinates
  int height = 720;
  std::string title = "vatkit";
  bool visible = true;  // false: a hidden window, e.g. for tests on a virtual display
  bool vsync = true;
  bool debug = false;
  DebugLog log;
};

// Implementation limits worth knowing when sizing VATs and crowds. Values from glGet*.
struct ContextLimits {
  int max_texture_size = 0;
  int max_3d_texture_size = 0;
  int max_array_texture_layers = 0;
  int64_t max_texture_buffer_texels = 0;
  int max_renderbuffer_size = 0;
  int max_samples = 0;
  int max_viewport_width = 0;
  int max_viewport_height = 0;
  int max_vertex_texture_units = 0;
  int max_combined_texture_units = 0;
  int max_vertex_shader_storage_blocks = 0;  // 0 means no SSBOs in vertex shaders
  int64_t max_shader_storage_block_bytes = 0;
  int max_uniform_block_bytes = 0;
  int max_transform_feedback_interleaved_components = 0;
  int max_compute_work_group_invocations = 0;
  int timer_query_bits = 0;  // GL_QUERY_COUNTER_BITS of GL_TIME_ELAPSED; 0: no timer queries
};

struct ContextInfo {
  std::string vendor;        // GL_VENDOR
  std::string renderer;      // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string version;       // GL_VERSION
  std::string glsl_version;  // GL_SHADING_LANGUAGE_VERSION
  int major = 0;             // the context's GL version
  int minor = 0;
  std::string platform;   // how it was made: "EGL 1.5 (Mesa Project) surfaceless", "GLFW 3.3.8 window"
  bool software = false;  // a CPU rasterizer (llvmpipe, softpipe, swrast)
  bool debug = false;     // debug mode on (KHR_debug callback installed)
  ContextLimits limits;
  std::vector<std::string> extensions;  // sorted

  bool has_extension(std::string_view name) const;
  // Several lines: strings, version, platform and the limits above, for logs and reports.
  std::string describe() const;
};

class Context {
 public:
  // A headless context through EGL, current on the calling thread.
  static Result<Context> create_headless(const HeadlessDesc& options = {});
  // A window with a context, current on the calling thread. Errors when vatkit was built without
  // GLFW or no display can be opened. Call from the main thread (GLFW's rule).
  static Result<Context> create_window(const WindowDesc& options = {});
  // Whether this build of vatkit::gl has the GLFW window path.
  static bool window_support();

  Context(Context&&) noexcept;
  Context& operator=(Context&&) noexcept;
  ~Context();  // releases the context (and the window)

  // Makes this context current on the calling thread.
  Result<void> make_current();

  const ContextInfo& info() const;

  // take_errors() and check() read the thread's current context: call them with this one current.
  // Errors since the last call: every recorded GL_DEBUG_TYPE_ERROR message (debug mode), or,
  // when the driver sent none, each glGetError code as a message. Drains glGetError either way.
  std::vector<DebugMessage> take_errors();
  // take_errors(), as a value: an Error "WHAT: GL error: ...; ..." when there were any.
  Result<void> check(std::string_view what);
  // Non-error debug messages seen so far (logged, never failing).
  uint64_t logged_message_count() const;

  // Window contexts only (null / no-ops when headless).
  GLFWwindow* window() const;
  void swap_buffers();
  void poll_events();
  bool should_close() const;
  void framebuffer_size(int& width, int& height) const;  // pixels; 0 x 0 when headless

  struct Impl;

 private:
  explicit Context(std::unique_ptr<Impl> impl);
  void release();
  std::unique_ptr<Impl> impl_;
};

}  // namespace vatkit::gl
