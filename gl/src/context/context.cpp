// The common half of context creation, the debug callback and error checks.
#include <epoxy/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>

#include "context/context_internal.h"

namespace vatkit::gl {
namespace {

const char* source_name(uint32_t source) {
  switch (source) {
    case GL_DEBUG_SOURCE_API: return "api";
    case GL_DEBUG_SOURCE_WINDOW_SYSTEM: return "window system";
    case GL_DEBUG_SOURCE_SHADER_COMPILER: return "shader compiler";
    case GL_DEBUG_SOURCE_THIRD_PARTY: return "third party";
    case GL_DEBUG_SOURCE_APPLICATION: return "application";
    default: return "other";
  }
}

const char* type_name(uint32_t type) {
  switch (type) {
    case GL_DEBUG_TYPE_ERROR: return "error";
    case GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR: return "deprecated";
    case GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR: return "undefined behaviour";
    case GL_DEBUG_TYPE_PORTABILITY: return "portability";
    case GL_DEBUG_TYPE_PERFORMANCE: return "performance";
    case GL_DEBUG_TYPE_MARKER: return "marker";
    case GL_DEBUG_TYPE_PUSH_GROUP: return "push group";
    case GL_DEBUG_TYPE_POP_GROUP: return "pop group";
    default: return "other";
  }
}

const char* severity_name(uint32_t severity) {
  switch (severity) {
    case GL_DEBUG_SEVERITY_HIGH: return "high";
    case GL_DEBUG_SEVERITY_MEDIUM: return "medium";
    case GL_DEBUG_SEVERITY_LOW: return "low";
    case GL_DEBUG_SEVERITY_NOTIFICATION: return "notification";
    default: return "unknown";
  }
}

const char* error_code_name(GLenum code) {
  switch (code) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_STACK_OVERFLOW: return "GL_STACK_OVERFLOW";
    case GL_STACK_UNDERFLOW: return "GL_STACK_UNDERFLOW";
    default: return "unknown GL error";
  }
}

void default_log(const DebugMessage& message) {
  const bool wanted = message.type == GL_DEBUG_TYPE_PERFORMANCE || message.severity == GL_DEBUG_SEVERITY_HIGH ||
                      message.severity == GL_DEBUG_SEVERITY_MEDIUM;
  if (wanted) std::fprintf(stderr, "vatkit gl: %s\n", message.describe().c_str());
}

// Synchronous output (GL_DEBUG_OUTPUT_SYNCHRONOUS) calls this on the thread that made the
// offending GL call, inside that call, so no locking is needed.
void GLAPIENTRY debug_callback(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                               const GLchar* text, const void* user) {
  auto* impl = static_cast<Context::Impl*>(const_cast<void*>(user));
  // The message is built in a buffer the context reuses: drivers that talk every frame (NVIDIA's
  // buffer notifications in a debug context) cost no allocation once it has grown to their size.
  DebugMessage reentered;  // a log that makes GL calls may get here again while it reads impl->message
  DebugMessage& message = impl->in_log ? reentered : impl->message;
  message.source = source;
  message.type = type;
  message.id = id;
  message.severity = severity;
  if (length >= 0) {
    message.text.assign(text, static_cast<size_t>(length));
  } else {
    message.text.assign(text);
  }
  while (!message.text.empty() && (message.text.back() == '\n' || message.text.back() == ' ')) message.text.pop_back();
  // Mesa also sends each GLSL compile error as a debug error. build_program reports those as
  // values (with the quoted source), and glGetError stays clean: they are not GL errors.
  if (message.is_error() && message.source != GL_DEBUG_SOURCE_SHADER_COMPILER) {
    // A runaway loop of errors should not eat memory; the first ones tell the story.
    if (impl->errors.size() < 256) impl->errors.push_back(message);
    return;
  }
  ++impl->logged;
  const bool outer = !impl->in_log;
  impl->in_log = true;
  if (impl->log) {
    impl->log(message);
  } else {
    default_log(message);
  }
  if (outer) impl->in_log = false;
}

bool is_software_renderer(const std::string& renderer) {
  for (const char* name : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer", "SwiftShader"})
    if (renderer.find(name) != std::string::npos) return true;
  return false;
}

std::string gl_string(GLenum name) {
  const GLubyte* s = glGetString(name);
  return s ? reinterpret_cast<const char*>(s) : "";
}

int get_int(GLenum name) {
  GLint v = 0;
  glGetIntegerv(name, &v);
  return v;
}

int64_t get_int64(GLenum name) {
  GLint64 v = 0;
  glGetInteger64v(name, &v);
  return v;
}

ContextLimits read_limits() {
  ContextLimits l;
  l.max_texture_size = get_int(GL_MAX_TEXTURE_SIZE);
  l.max_3d_texture_size = get_int(GL_MAX_3D_TEXTURE_SIZE);
  l.max_array_texture_layers = get_int(GL_MAX_ARRAY_TEXTURE_LAYERS);
  l.max_texture_buffer_texels = get_int64(GL_MAX_TEXTURE_BUFFER_SIZE);
  l.max_renderbuffer_size = get_int(GL_MAX_RENDERBUFFER_SIZE);
  l.max_samples = get_int(GL_MAX_SAMPLES);
  GLint viewport[2] = {0, 0};
  glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
  l.max_viewport_width = viewport[0];
  l.max_viewport_height = viewport[1];
  l.max_vertex_texture_units = get_int(GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS);
  l.max_combined_texture_units = get_int(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS);
  l.max_vertex_shader_storage_blocks = get_int(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS);
  l.max_shader_storage_block_bytes = get_int64(GL_MAX_SHADER_STORAGE_BLOCK_SIZE);
  l.max_uniform_block_bytes = get_int(GL_MAX_UNIFORM_BLOCK_SIZE);
  l.max_transform_feedback_interleaved_components = get_int(GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS);
  l.max_compute_work_group_invocations = get_int(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
  GLint bits = 0;
  glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits);
  l.timer_query_bits = bits;
  return l;
}

}  // namespace

Backend::~Backend() {
  if (thread_current() == this) thread_current() = nullptr;
}

Backend*& thread_current() {
  thread_local Backend* current = nullptr;
  return current;
}

bool switch_current(Backend* backend) {
  Backend*& current = thread_current();
  if (current && current != backend) current->release_current();
  current = nullptr;
  if (!backend->make_current()) return false;
  current = backend;
  return true;
}

Backend* release_thread_current() {
  Backend* previous = std::exchange(thread_current(), nullptr);
  if (previous) previous->release_current();
  return previous;
}

bool DebugMessage::is_error() const { return type == GL_DEBUG_TYPE_ERROR; }

std::string DebugMessage::describe() const {
  std::ostringstream out;
  out << type_name(type) << " (" << source_name(source) << ", " << severity_name(severity) << ", id " << id
      << "): " << text;
  return out.str();
}

bool ContextInfo::has_extension(std::string_view name) const {
  return std::binary_search(extensions.begin(), extensions.end(), name);
}

std::string ContextInfo::describe() const {
  std::ostringstream out;
  const ContextLimits& l = limits;
  out << "renderer: " << renderer << "\n"
      << "vendor: " << vendor << "\n"
      << "version: " << version << " (context " << major << "." << minor << " core" << (software ? ", software" : "")
      << (debug ? ", debug" : "") << ")\n"
      << "glsl: " << glsl_version << "\n"
      << "platform: " << platform << "\n"
      << "max texture size: " << l.max_texture_size << ", 3D: " << l.max_3d_texture_size
      << ", array layers: " << l.max_array_texture_layers << "\n"
      << "max texture buffer texels: " << l.max_texture_buffer_texels << "\n"
      << "max renderbuffer size: " << l.max_renderbuffer_size << ", samples: " << l.max_samples
      << ", viewport: " << l.max_viewport_width << "x" << l.max_viewport_height << "\n"
      << "texture units: vertex " << l.max_vertex_texture_units << ", combined " << l.max_combined_texture_units << "\n"
      << "SSBO: vertex blocks " << l.max_vertex_shader_storage_blocks << ", block size "
      << l.max_shader_storage_block_bytes << " bytes\n"
      << "uniform block size: " << l.max_uniform_block_bytes << " bytes\n"
      << "transform feedback interleaved components: " << l.max_transform_feedback_interleaved_components << "\n"
      << "compute work group invocations: " << l.max_compute_work_group_invocations << "\n"
      << "timer query bits: " << l.timer_query_bits << "\n"
      << "extensions: " << extensions.size();
  return out.str();
}

Result<Context> Context::Impl::finish(std::unique_ptr<Backend> backend, std::string platform, bool debug,
                                      DebugLog log) {
  auto impl = std::make_unique<Impl>();
  impl->backend = std::move(backend);
  impl->log = std::move(log);
  ContextInfo& info = impl->info;
  info.platform = std::move(platform);

  // epoxy resolves entry points lazily against whatever context is current (EGL or GLX).
  const int version = epoxy_gl_version();
  info.major = version / 10;
  info.minor = version % 10;
  if (epoxy_is_desktop_gl() == 0 || version < 43) {
    return make_error(
        ErrorCode::Gl, "OpenGL",
        "needs a desktop OpenGL 4.3+ core context, got '" + gl_string(GL_VERSION) + "' (" + info.platform + ")");
  }
  info.vendor = gl_string(GL_VENDOR);
  info.renderer = gl_string(GL_RENDERER);
  info.version = gl_string(GL_VERSION);
  info.glsl_version = gl_string(GL_SHADING_LANGUAGE_VERSION);
  info.software = is_software_renderer(info.renderer);
  const int extension_count = get_int(GL_NUM_EXTENSIONS);
  info.extensions.reserve(static_cast<size_t>(extension_count));
  for (int i = 0; i < extension_count; ++i) {
    const GLubyte* name = glGetStringi(GL_EXTENSIONS, static_cast<GLuint>(i));
    if (name) info.extensions.emplace_back(reinterpret_cast<const char*>(name));
  }
  std::sort(info.extensions.begin(), info.extensions.end());
  if (version < 45 && !info.has_extension("GL_ARB_direct_state_access")) {
    return make_error(
        ErrorCode::Gl, "OpenGL",
        "'" + info.renderer + "' (" + info.version + ") has neither GL 4.5 nor GL_ARB_direct_state_access");
  }
  info.limits = read_limits();

  if (debug) {
    // KHR_debug is core since 4.3. The callback's user pointer is the heap-allocated Impl, which
    // stays put when the Context is moved.
    glEnable(GL_DEBUG_OUTPUT);
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(debug_callback, impl.get());
    glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, nullptr, GL_TRUE);
    info.debug = true;
  }
  while (glGetError() != GL_NO_ERROR) {
  }  // nothing before this point is the caller's doing
  impl->errors.clear();
  return Context(std::move(impl));
}

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::Context(Context&&) noexcept = default;

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    release();
    impl_ = std::move(other.impl_);
  }
  return *this;
}

Context::~Context() { release(); }

void Context::release() {
  if (!impl_) return;
  // The callback must not outlive the Impl it points to. Only when current: making it current
  // here would unbind whatever context the caller has current.
  if (impl_->info.debug && impl_->backend->is_current()) glDebugMessageCallback(nullptr, nullptr);
  impl_->backend.reset();
  impl_.reset();
}

namespace {

// Creation makes the new context current. The one current before is released first (see
// switch_current) and made current again if creation fails.
template <class Create>
Result<Context> create_with(Create&& create, bool debug, const DebugLog& log) {
  Backend* previous = release_thread_current();
  std::string platform;
  Result<std::unique_ptr<Backend>> backend = create(platform);
  if (!backend) {
    if (previous) switch_current(previous);
    return backend.error();
  }
  thread_current() = backend->get();
  return Context::Impl::finish(std::move(*backend), std::move(platform), debug, log);
}

}  // namespace

Result<Context> Context::create_headless(const HeadlessDesc& options) {
  return create_with([&](std::string& platform) { return create_egl_backend(options, platform); }, options.debug,
                     options.log);
}

#ifdef VATKIT_GL_HAVE_GLFW
bool Context::window_support() { return true; }

Result<Context> Context::create_window(const WindowDesc& options) {
  return create_with([&](std::string& platform) { return create_glfw_backend(options, platform); }, options.debug,
                     options.log);
}
#else
bool Context::window_support() { return false; }

Result<Context> Context::create_window(const WindowDesc&) {
  return make_error(ErrorCode::Unsupported, "GLFW", "this vatkit was built without GLFW: no window support");
}
#endif

Result<void> Context::make_current() {
  if (!switch_current(impl_->backend.get())) {
    return make_error(ErrorCode::Gl, "OpenGL", "cannot make the context current (" + impl_->info.platform + ")");
  }
  return {};
}

const ContextInfo& Context::info() const { return impl_->info; }

std::vector<DebugMessage> Context::take_errors() {
  std::vector<DebugMessage> errors = std::move(impl_->errors);
  impl_->errors.clear();
  std::vector<GLenum> codes;
  for (GLenum code = glGetError(); code != GL_NO_ERROR && codes.size() < 64; code = glGetError()) codes.push_back(code);
  // With debug output on, each error code already came with a message; add codes only when the
  // driver said nothing (debug mode off).
  if (errors.empty()) {
    for (GLenum code : codes) {
      errors.push_back(DebugMessage{GL_DEBUG_SOURCE_API, GL_DEBUG_TYPE_ERROR, code, GL_DEBUG_SEVERITY_HIGH,
                                    std::string("glGetError: ") + error_code_name(code)});
    }
  }
  return errors;
}

Result<void> Context::check(std::string_view what) {
  const std::vector<DebugMessage> errors = take_errors();
  if (errors.empty()) return {};
  std::string text = "GL error: ";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i) text += "; ";
    text += errors[i].text;
  }
  return make_error(ErrorCode::Gl, std::string(what), text);
}

uint64_t Context::logged_message_count() const { return impl_->logged; }

GLFWwindow* Context::window() const { return impl_->backend->window(); }
void Context::swap_buffers() { impl_->backend->swap_buffers(); }
void Context::poll_events() { impl_->backend->poll_events(); }
bool Context::should_close() const { return impl_->backend->should_close(); }
void Context::framebuffer_size(int& width, int& height) const { impl_->backend->framebuffer_size(width, height); }

}  // namespace vatkit::gl
