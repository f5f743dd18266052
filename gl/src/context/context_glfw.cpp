// Window contexts through GLFW. After creation everything goes through the same path as the
// headless contexts (Context::Impl::finish).
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <mutex>
#include <string>

#include "context/context_internal.h"

namespace vatkit::gl {
namespace {

// GLFW is process-global: initialise it with the first window, terminate it with the last.
std::mutex g_glfw_mutex;
int g_glfw_users = 0;
std::string g_glfw_last_error;  // guarded by g_glfw_mutex while creating

void on_glfw_error(int code, const char* description) {
  g_glfw_last_error = description ? description : ("GLFW error " + std::to_string(code));
}

class GlfwBackend final : public Backend {
 public:
  explicit GlfwBackend(GLFWwindow* window) : window_(window) {}
  ~GlfwBackend() override {
    glfwDestroyWindow(window_);
    std::lock_guard<std::mutex> lock(g_glfw_mutex);
    if (--g_glfw_users == 0) glfwTerminate();
  }
  bool make_current() override {
    glfwMakeContextCurrent(window_);
    return glfwGetCurrentContext() == window_;
  }
  void release_current() override { glfwMakeContextCurrent(nullptr); }
  bool is_current() const override { return glfwGetCurrentContext() == window_; }
  GLFWwindow* window() const override { return window_; }
  void swap_buffers() override { glfwSwapBuffers(window_); }
  void poll_events() override { glfwPollEvents(); }
  bool should_close() const override { return glfwWindowShouldClose(window_) != 0; }
  void framebuffer_size(int& width, int& height) const override { glfwGetFramebufferSize(window_, &width, &height); }

 private:
  GLFWwindow* window_;
};

}  // namespace

Result<std::unique_ptr<Backend>> create_glfw_backend(const WindowDesc& options, std::string& platform) {
  std::lock_guard<std::mutex> lock(g_glfw_mutex);
  glfwSetErrorCallback(on_glfw_error);
  g_glfw_last_error.clear();
  if (g_glfw_users == 0 && glfwInit() != GLFW_TRUE) {
    return make_error(
        ErrorCode::Gl, "GLFW",
        "cannot initialise (" + (g_glfw_last_error.empty() ? std::string("no display?") : g_glfw_last_error) + ")");
  }
  ++g_glfw_users;

  GLFWwindow* window = nullptr;
  std::string refusals;
  for (const auto& v : kContextVersions) {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, v[0]);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, v[1]);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, options.debug ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_DEPTH_BITS, 24);
    g_glfw_last_error.clear();
    window = glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (window) break;
    refusals +=
        (refusals.empty() ? "" : "; ") + std::to_string(v[0]) + "." + std::to_string(v[1]) + ": " + g_glfw_last_error;
  }
  if (!window) {
    if (--g_glfw_users == 0) glfwTerminate();
    return make_error(ErrorCode::Gl, "GLFW", "no window with an OpenGL core context: " + refusals);
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(options.vsync ? 1 : 0);
  int major = 0, minor = 0, revision = 0;
  glfwGetVersion(&major, &minor, &revision);
  platform = "GLFW " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision) +
             " window" + (options.visible ? "" : " (hidden)");
  return std::unique_ptr<Backend>(std::make_unique<GlfwBackend>(window));
}

}  // namespace vatkit::gl
