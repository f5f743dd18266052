// Headless contexts through EGL: the surfaceless platform, then the device platform, no surface
// (EGL_KHR_surfaceless_context); the caller renders into its own framebuffer objects.
#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "context/context_internal.h"

namespace vatkit::gl {
namespace {

const char* egl_error_name(EGLint code) {
  switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
  }
}

std::string egl_error() { return egl_error_name(eglGetError()); }

bool has_word(const char* list, const char* word) {
  if (!list) return false;
  const std::string_view all(list), w(word);
  for (size_t pos = all.find(w); pos != std::string_view::npos; pos = all.find(w, pos + 1)) {
    const bool starts = pos == 0 || all[pos - 1] == ' ';
    const bool ends = pos + w.size() == all.size() || all[pos + w.size()] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// eglInitialize is not reference counted (without EGL_KHR_display_reference) and eglTerminate
// would pull the display from under every other context on it, so count users per display.
std::mutex g_display_mutex;
std::map<EGLDisplay, int> g_display_users;

void acquire_display(EGLDisplay display) {
  std::lock_guard<std::mutex> lock(g_display_mutex);
  ++g_display_users[display];
}

void release_display(EGLDisplay display) {
  std::lock_guard<std::mutex> lock(g_display_mutex);
  auto it = g_display_users.find(display);
  if (it == g_display_users.end() || --it->second > 0) return;
  g_display_users.erase(it);
  eglTerminate(display);
}

// Terminates a display initialised for an attempt that failed, unless another context uses it.
void drop_display(EGLDisplay display) {
  std::lock_guard<std::mutex> lock(g_display_mutex);
  if (g_display_users.count(display) == 0) eglTerminate(display);
}

class EglBackend final : public Backend {
 public:
  EglBackend(EGLDisplay display, EGLContext context) : display_(display), context_(context) {
    acquire_display(display_);
  }
  ~EglBackend() override {
    if (eglGetCurrentContext() == context_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    release_display(display_);
  }
  // The bound API is per thread, and eglMakeCurrent(EGL_NO_CONTEXT) releases that API's context.
  bool make_current() override {
    eglBindAPI(EGL_OPENGL_API);
    return eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) == EGL_TRUE;
  }
  void release_current() override {
    eglBindAPI(EGL_OPENGL_API);
    if (eglGetCurrentContext() != EGL_NO_CONTEXT)
      eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
  bool is_current() const override { return eglGetCurrentContext() == context_; }

 private:
  EGLDisplay display_;
  EGLContext context_;
};

struct Candidate {
  std::string name;  // "surfaceless", "device 1 (/dev/dri/renderD128)"
  EGLDisplay display = EGL_NO_DISPLAY;
};

// Initialises the display, creates a core context (4.6, 4.5, 4.3) and makes it current.
// On failure returns null and says why in `why`.
std::unique_ptr<Backend> try_display(const Candidate& candidate, bool debug, std::string& platform, std::string& why) {
  EGLDisplay display = candidate.display;
  EGLint egl_major = 0, egl_minor = 0;
  if (eglInitialize(display, &egl_major, &egl_minor) != EGL_TRUE) {
    why = "eglInitialize failed (" + egl_error() + ")";
    return nullptr;
  }
  auto fail = [&](std::string reason) -> std::unique_ptr<Backend> {
    why = std::move(reason);
    drop_display(display);
    return nullptr;
  };
  const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
  if (!has_word(extensions, "EGL_KHR_surfaceless_context")) return fail("no EGL_KHR_surfaceless_context");
  if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) return fail("eglBindAPI(EGL_OPENGL_API) failed (" + egl_error() + ")");

  // Any config that renders desktop GL; surfaces are never made (EGL_SURFACE_TYPE 0 matches all).
  const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint config_count = 0;
  if (eglChooseConfig(display, config_attributes, &config, 1, &config_count) != EGL_TRUE || config_count < 1) {
    if (!has_word(extensions, "EGL_KHR_no_config_context")) return fail("no EGL config renders desktop OpenGL");
    config = EGL_NO_CONFIG_KHR;
  }

  const bool egl15 = egl_major > 1 || (egl_major == 1 && egl_minor >= 5);
  if (!egl15 && !has_word(extensions, "EGL_KHR_create_context"))
    return fail("EGL " + std::to_string(egl_major) + "." + std::to_string(egl_minor) +
                " without EGL_KHR_create_context cannot make a core context");
  EGLContext context = EGL_NO_CONTEXT;
  std::string refusals;
  for (const auto& v : kContextVersions) {
    std::vector<EGLint> attributes = {EGL_CONTEXT_MAJOR_VERSION,       v[0],
                                      EGL_CONTEXT_MINOR_VERSION,       v[1],
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT};
    if (debug) {
      if (egl15) {
        attributes.insert(attributes.end(), {EGL_CONTEXT_OPENGL_DEBUG, EGL_TRUE});
      } else {
        attributes.insert(attributes.end(), {EGL_CONTEXT_FLAGS_KHR, EGL_CONTEXT_OPENGL_DEBUG_BIT_KHR});
      }
    }
    attributes.push_back(EGL_NONE);
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes.data());
    if (context != EGL_NO_CONTEXT) break;
    refusals +=
        (refusals.empty() ? "" : ", ") + std::to_string(v[0]) + "." + std::to_string(v[1]) + " (" + egl_error() + ")";
  }
  if (context == EGL_NO_CONTEXT) return fail("no core context: refused " + refusals);
  if (eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context) != EGL_TRUE) {
    const std::string error = egl_error();
    eglDestroyContext(display, context);
    return fail("eglMakeCurrent without a surface failed (" + error + ")");
  }

  const char* vendor = eglQueryString(display, EGL_VENDOR);
  platform = "EGL " + std::to_string(egl_major) + "." + std::to_string(egl_minor) + " (" +
             (vendor ? vendor : "unknown vendor") + ") " + candidate.name;
  return std::make_unique<EglBackend>(display, context);
}

// The EGL devices (EGL_EXT_platform_device) as candidates, hardware first, then software, each in
// enumeration order; only `options.device_index` when it is set. Why there is none goes to `note`.
std::vector<Candidate> device_candidates(const HeadlessDesc& options, const char* client,
                                         PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display,
                                         const std::function<void(const std::string&, const std::string&)>& note) {
  auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  auto query_device_string =
      reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
  EGLint count = 0;
  if (!has_word(client, "EGL_EXT_platform_device") || !query_devices || !query_device_string) {
    note("device", "EGL_EXT_platform_device / EGL_EXT_device_enumeration not offered");
    return {};
  }
  if (query_devices(0, nullptr, &count) != EGL_TRUE || count <= 0) {
    note("device", "no EGL devices");
    return {};
  }
  std::vector<EGLDeviceEXT> devices(static_cast<size_t>(count));
  query_devices(count, devices.data(), &count);
  devices.resize(static_cast<size_t>(count));
  std::vector<Candidate> hardware, software;
  for (int i = 0; i < count; ++i) {
    if (options.device_index >= 0 && i != options.device_index) continue;
    const char* device_extensions = query_device_string(devices[i], EGL_EXTENSIONS);
    const bool is_software = has_word(device_extensions, "EGL_MESA_device_software");
    std::string name = "device " + std::to_string(i);
    if (has_word(device_extensions, "EGL_EXT_device_drm")) {
      if (const char* file = query_device_string(devices[i], EGL_DRM_DEVICE_FILE_EXT))
        name += std::string(" (") + file + ")";
    }
    if (is_software) name += " (software)";
    (is_software ? software : hardware)
        .push_back({name, get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr)});
  }
  if (hardware.empty() && software.empty())
    note("device", "no device " + std::to_string(options.device_index) + " among " + std::to_string(count));
  hardware.insert(hardware.end(), software.begin(), software.end());
  return hardware;
}

}  // namespace

Result<std::unique_ptr<Backend>> create_egl_backend(const HeadlessDesc& options, std::string& platform) {
  // Client extensions (EGL_EXT_client_extensions): null when the library has none.
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  std::string tried;
  auto note = [&](const std::string& name, const std::string& why) {
    tried += (tried.empty() ? "" : "; ") + name + ": " + why;
  };
  // A context on the candidate's display, or null with a note of why not.
  auto attempt = [&](const Candidate& c) -> std::unique_ptr<Backend> {
    std::string why;
    if (c.display == EGL_NO_DISPLAY) {
      note(c.name, "no display (" + egl_error() + ")");
    } else if (auto backend = try_display(c, options.debug, platform, why)) {
      return backend;
    } else {
      note(c.name, why);
    }
    return nullptr;
  };

  if (!get_platform_display || !has_word(client, "EGL_EXT_platform_base")) {
    return make_error(ErrorCode::Gl, "EGL",
                      "no EGL_EXT_platform_base: cannot open a headless display (is libEGL "
                      "from glvnd installed, with a driver such as libegl-mesa0?)");
  }

  const bool want_surfaceless = options.platform != HeadlessPlatform::Device;
  const bool want_device = options.platform != HeadlessPlatform::Surfaceless;

  if (want_surfaceless) {
    if (!has_word(client, "EGL_MESA_platform_surfaceless")) {
      note("surfaceless", "EGL_MESA_platform_surfaceless not offered");
    } else {
      const Candidate c{"surfaceless",
                        get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr)};
      if (auto backend = attempt(c)) return backend;
    }
  }

  if (want_device) {
    for (const Candidate& c : device_candidates(options, client, get_platform_display, note)) {
      if (auto backend = attempt(c)) return backend;
    }
  }
  return make_error(ErrorCode::Gl, "EGL", "no headless OpenGL core context: " + tried);
}

}  // namespace vatkit::gl
