// vatkit::gl contexts, debug mode, GL objects and program building, on whatever driver EGL finds
// (Mesa llvmpipe in CI). Expectations come from the GL spec: core-profile minimums, the error a
// call must raise, names that exist until deleted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "gl_test_support.h"
#include "vatkit/gl/context.h"
#include "vatkit/gl/decode_glsl.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/objects.h"
#include "vatkit/gl/program.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/timer.h"

namespace vatkit {
namespace {

using GlContextTest = test::GlTest;
using GlDebugTest = test::GlTest;
using GlObjectsTest = test::GlTest;
using GlProgramTest = test::GlTest;
using GlTimerTest = test::GlTest;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(GlContextTest, HeadlessIsCoreWithVatkitsMinimums) {
  const gl::ContextInfo& info = ctx->info();
  EXPECT_GE(info.major * 10 + info.minor, 43);
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_FALSE(info.vendor.empty());
  EXPECT_TRUE(contains(info.platform, "EGL")) << info.platform;
  EXPECT_TRUE(info.debug);
  GLint profile = 0;
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  EXPECT_TRUE(profile & GL_CONTEXT_CORE_PROFILE_BIT);
  // GL 4.5 core minimums (spec table 23.5x): anything smaller means the query went wrong.
  EXPECT_GE(info.limits.max_texture_size, 16384);
  EXPECT_GE(info.limits.max_array_texture_layers, 2048);
  EXPECT_GE(info.limits.max_texture_buffer_texels, 65536);
  EXPECT_GE(info.limits.max_samples, 4);
  EXPECT_GE(info.limits.max_vertex_texture_units, 16);
  EXPECT_GE(info.limits.max_shader_storage_block_bytes, int64_t(1) << 27);
  EXPECT_GE(info.limits.max_transform_feedback_interleaved_components, 64);
  EXPECT_GE(info.limits.max_compute_work_group_invocations, 1024);
  EXPECT_TRUE(info.has_extension("GL_KHR_debug") || info.major * 10 + info.minor >= 43);
  EXPECT_FALSE(info.has_extension("GL_VATKIT_no_such_extension"));
  if (contains(info.renderer, "llvmpipe")) {
    EXPECT_TRUE(info.software);
  }
  RecordProperty("renderer", info.renderer);
  RecordProperty("version", info.version);
  RecordProperty("platform", info.platform);
}

// Both EGL platforms, explicitly, and a context without debug mode, where glGetError alone
// reports the error. Leaves the shared context current again.
TEST_F(GlContextTest, EachPlatformAndNonDebugContexts) {
  for (gl::HeadlessPlatform platform : {gl::HeadlessPlatform::Surfaceless, gl::HeadlessPlatform::Device}) {
    gl::HeadlessDesc options;
    options.platform = platform;
    Result<gl::Context> other = gl::Context::create_headless(options);
    ASSERT_TRUE(other.ok()) << other.error().message;
    EXPECT_FALSE(other->info().debug);
    EXPECT_TRUE(contains(other->info().platform, platform == gl::HeadlessPlatform::Device ? "device" : "surfaceless"))
        << other->info().platform;
    std::printf("[gl] platform %s: %s\n", other->info().platform.c_str(), other->info().renderer.c_str());

    // Contexts move: the moved-to one stays usable.
    gl::Context moved = std::move(*other);
    ASSERT_TRUE(moved.make_current().ok());
    glEnable(0xDEAD);  // not a capability: GL_INVALID_ENUM
    const std::vector<gl::DebugMessage> errors = moved.take_errors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].id, uint32_t(GL_INVALID_ENUM));
    EXPECT_TRUE(contains(errors[0].text, "GL_INVALID_ENUM")) << errors[0].text;
    EXPECT_TRUE(moved.check("clean").ok());
  }
  ASSERT_TRUE(ctx->make_current().ok());
}

TEST_F(GlContextTest, UnknownDeviceIndexIsAnErrorNamingWhatWasTried) {
  gl::HeadlessDesc options;
  options.platform = gl::HeadlessPlatform::Device;
  options.device_index = 4096;
  Result<gl::Context> none = gl::Context::create_headless(options);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(contains(none.error().message, "EGL: no headless OpenGL core context")) << none.error().message;
  EXPECT_TRUE(contains(none.error().message, "device")) << none.error().message;
  ASSERT_TRUE(ctx->make_current().ok());
}

// The window path: needs GLFW in the build and a display. Without one it skips, except where
// VATKIT_REQUIRE_WINDOW is set: the suite runs it again under xvfb-run with that set
// (tests/CMakeLists.txt, gl_window_under_xvfb), so CI exercises it.
TEST_F(GlContextTest, HiddenWindowRunsTheSamePath) {
  const bool required = std::getenv("VATKIT_REQUIRE_WINDOW") != nullptr;
  if (!gl::Context::window_support()) {
    if (required) FAIL() << "VATKIT_REQUIRE_WINDOW: built without GLFW";
    GTEST_SKIP() << "built without GLFW";
  }
  if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
    if (required) FAIL() << "VATKIT_REQUIRE_WINDOW: no display";
    GTEST_SKIP() << "no display";
  }
  gl::WindowDesc options;
  options.width = 96;
  options.height = 64;
  options.visible = false;
  options.debug = true;
  Result<gl::Context> window = gl::Context::create_window(options);
  ASSERT_TRUE(window.ok()) << window.error().message;
  EXPECT_NE(window->window(), nullptr);
  EXPECT_TRUE(window->info().debug);
  EXPECT_TRUE(contains(window->info().platform, "GLFW")) << window->info().platform;
  std::printf("[gl] window: %s, %s\n", window->info().platform.c_str(), window->info().renderer.c_str());
  int width = 0, height = 0;
  window->framebuffer_size(width, height);
  EXPECT_GT(width, 0);
  EXPECT_GT(height, 0);
  {
    Result<gl::RenderTarget> target = gl::RenderTarget::create({8, 8});
    ASSERT_TRUE(target.ok()) << target.error().message;
    target->clear(0.0f, 1.0f, 0.0f, 1.0f);
    const gl::Image image = target->read_rgba8();
    EXPECT_EQ(image.at(3, 3)[1], 255);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glEnable(0xDEAD);
    EXPECT_EQ(window->take_errors().size(), 1u);
  }
  window->swap_buffers();
  window->poll_events();
  EXPECT_TRUE(window->check("window").ok());
  ASSERT_TRUE(ctx->make_current().ok());
}

TEST_F(GlDebugTest, DeliberateErrorIsRecordedAndFails) {
  glBindBuffer(GL_ARRAY_BUFFER, 0x7fffffff);  // never generated: GL_INVALID_OPERATION in core
  std::vector<gl::DebugMessage> errors = ctx->take_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].is_error());
  EXPECT_EQ(errors[0].type, uint32_t(GL_DEBUG_TYPE_ERROR));
  EXPECT_FALSE(errors[0].text.empty());
  EXPECT_TRUE(contains(errors[0].describe(), "error (api")) << errors[0].describe();
  // take_errors drained both the recorded message and glGetError.
  EXPECT_TRUE(ctx->take_errors().empty());
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));

  glEnable(0xDEAD);
  const Result<void> failed = ctx->check("deliberate");
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(contains(failed.error().message, "deliberate: GL error: ")) << failed.error().message;
  EXPECT_TRUE(ctx->check("after").ok());
}

TEST_F(GlDebugTest, OnlyErrorTypeFailsOtherMessagesAreLogged) {
  const uint64_t logged_before = ctx->logged_message_count();
  glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_PERFORMANCE, 7, GL_DEBUG_SEVERITY_MEDIUM, -1,
                       "vatkit test: a performance warning");
  glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_OTHER, 8, GL_DEBUG_SEVERITY_NOTIFICATION, -1,
                       "vatkit test: a notification");
  EXPECT_TRUE(ctx->take_errors().empty());
  EXPECT_EQ(ctx->logged_message_count(), logged_before + 2);
  ASSERT_EQ(test::gl_logged_messages().size(), 2u);
  EXPECT_EQ(test::gl_logged_messages()[0].type, uint32_t(GL_DEBUG_TYPE_PERFORMANCE));
  EXPECT_EQ(test::gl_logged_messages()[0].text, "vatkit test: a performance warning");

  glDebugMessageInsert(GL_DEBUG_SOURCE_APPLICATION, GL_DEBUG_TYPE_ERROR, 9, GL_DEBUG_SEVERITY_HIGH, -1,
                       "vatkit test: an error");
  const std::vector<gl::DebugMessage> errors = ctx->take_errors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].id, 9u);
  EXPECT_EQ(errors[0].text, "vatkit test: an error");
}

TEST_F(GlObjectsTest, MoveTransfersAndDestructionDeletes) {
  gl::Buffer a = gl::create_buffer(256, nullptr, GL_DYNAMIC_STORAGE_BIT);
  const uint32_t name = a.id();
  ASSERT_NE(name, 0u);
  EXPECT_TRUE(glIsBuffer(name));
  gl::Buffer b = std::move(a);
  EXPECT_EQ(a.id(), 0u);  // NOLINT: checking the moved-from state is the point
  EXPECT_FALSE(static_cast<bool>(a));
  EXPECT_EQ(b.id(), name);
  GLint64 size = 0;
  glGetNamedBufferParameteri64v(b.id(), GL_BUFFER_SIZE, &size);
  EXPECT_EQ(size, 256);
  gl::Buffer c;
  c = std::move(b);
  EXPECT_EQ(c.id(), name);
  EXPECT_TRUE(glIsBuffer(name));
  c.reset();
  EXPECT_FALSE(glIsBuffer(name));

  uint32_t texture_name = 0, framebuffer_name = 0, vertex_array_name = 0, query_name = 0;
  {
    gl::Texture texture = gl::create_texture_2d(GL_RGBA8, 4, 4);
    gl::Framebuffer framebuffer = gl::create_framebuffer();
    gl::VertexArray vertex_array = gl::create_vertex_array();
    gl::Query query = gl::create_query(GL_SAMPLES_PASSED);
    texture_name = texture.id();
    framebuffer_name = framebuffer.id();
    vertex_array_name = vertex_array.id();
    query_name = query.id();
    EXPECT_TRUE(glIsTexture(texture_name));
    EXPECT_TRUE(glIsFramebuffer(framebuffer_name));
    EXPECT_TRUE(glIsVertexArray(vertex_array_name));
    EXPECT_TRUE(glIsQuery(query_name));
  }
  EXPECT_FALSE(glIsTexture(texture_name));
  EXPECT_FALSE(glIsFramebuffer(framebuffer_name));
  EXPECT_FALSE(glIsVertexArray(vertex_array_name));
  EXPECT_FALSE(glIsQuery(query_name));

  gl::Texture released = gl::create_texture(GL_TEXTURE_2D);
  const uint32_t raw = released.release();
  EXPECT_EQ(released.id(), 0u);
  EXPECT_TRUE(glIsTexture(raw));
  gl::Texture adopted(raw);
  adopted.reset();
  EXPECT_FALSE(glIsTexture(raw));
}

TEST_F(GlProgramTest, BuildsAndLinks) {
  gl::ProgramDesc desc;
  desc.name = "triangle";
  desc.shaders = {{gl::ShaderStage::Vertex, test::kTriangleVertex, ""},
                  {gl::ShaderStage::Fragment, test::kFlatFragment, ""}};
  Result<gl::Program> program = gl::build_program(desc);
  ASSERT_TRUE(program.ok()) << program.error().message;
  EXPECT_GE(gl::uniform_location(*program, "u_color"), 0);
  EXPECT_EQ(gl::uniform_location(*program, "u_missing"), -1);
}

TEST_F(GlProgramTest, CompileErrorNamesTheShaderAndQuotesTheLine) {
  gl::ProgramDesc desc;
  desc.name = "broken";
  desc.shaders = {{gl::ShaderStage::Vertex, test::kTriangleVertex, ""},
                  {gl::ShaderStage::Fragment,
                   "out vec4 frag_color;\n"
                   "void main() {\n"
                   "  frag_color = undeclared_thing * 2.0;\n"
                   "}\n",
                   ""}};
  Result<gl::Program> program = gl::build_program(desc);
  ASSERT_FALSE(program.ok());
  const std::string& message = program.error().message;
  EXPECT_TRUE(contains(message, "broken.frag (fragment shader): compile failed: ")) << message;
  EXPECT_TRUE(contains(message, "undeclared_thing")) << message;
  EXPECT_TRUE(contains(message, "[line 3: frag_color = undeclared_thing * 2.0;]")) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "errors are one line";

  // A source with its own #version keeps its numbering too (its line 4 here).
  desc.shaders[1] = {gl::ShaderStage::Fragment,
                     "\n#version 450 core\n"
                     "out vec4 frag_color;\n"
                     "void main() { frag_color = vec4(1.0) + not_here; }\n",
                     "custom.glsl"};
  program = gl::build_program(desc);
  ASSERT_FALSE(program.ok());
  EXPECT_TRUE(contains(program.error().message, "custom.glsl (fragment shader): compile failed"))
      << program.error().message;
  EXPECT_TRUE(contains(program.error().message, "[line 4: void main() { frag_color = vec4(1.0) + not_here; }]"))
      << program.error().message;
}

TEST_F(GlProgramTest, LinkErrorNamesTheProgram) {
  gl::ProgramDesc desc;
  desc.name = "mismatch";
  // The fragment shader reads an input no vertex shader writes.
  desc.shaders = {{gl::ShaderStage::Vertex, test::kTriangleVertex, ""},
                  {gl::ShaderStage::Fragment,
                   "in vec3 v_never_written;\nout vec4 c;\nvoid main() { c = vec4(v_never_written, 1.0); }\n", ""}};
  Result<gl::Program> program = gl::build_program(desc);
  ASSERT_FALSE(program.ok());
  EXPECT_TRUE(contains(program.error().message, "mismatch: link failed: ")) << program.error().message;
  EXPECT_TRUE(contains(program.error().message, "v_never_written")) << program.error().message;
}

TEST_F(GlProgramTest, PreambleVersionExtensionDefinesAndLine) {
  gl::ProgramDesc desc;
  desc.name = "draw_parameters";
  desc.draw_parameters = true;
  desc.defines = {"VATKIT_ANSWER 42"};
  desc.shaders = {{gl::ShaderStage::Vertex,
                   "flat out int v_sum;\n"
                   "void main() {\n"
                   "  v_sum = gl_BaseInstanceARB + gl_DrawIDARB + VATKIT_ANSWER;\n"
                   "  gl_Position = vec4(0.0);\n"
                   "}\n",
                   ""}};
  EXPECT_EQ(gl::preprocess(desc, desc.shaders[0])
                .rfind("#version 450 core\n#extension GL_ARB_shader_draw_parameters : require\n"
                       "#define VATKIT_ANSWER 42\n#line 1\nflat out int v_sum;\n",
                       0),
            0u);
  Result<gl::Program> program = gl::build_program(desc);
  ASSERT_TRUE(program.ok()) << program.error().message;
}

// docs/rendering.md shows how to call the decode chunk from a vertex shader of one's own: that
// block, with the chunk pasted where it says so, must compile (it once declared a vertex input
// `flat`, which GLSL refuses).
TEST_F(GlProgramTest, TheRenderingGuidesExampleCompiles) {
  std::ifstream in(std::string(VATKIT_SOURCE_DIR) + "/docs/rendering.md");
  ASSERT_TRUE(in) << "docs/rendering.md";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t step = doc.find("**5. Call it**");
  ASSERT_NE(step, std::string::npos);
  const size_t begin = doc.find("```glsl\n", step);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = doc.find("```", begin + 8);
  ASSERT_NE(end, std::string::npos);
  std::string source = doc.substr(begin + 8, end - begin - 8);
  const std::string placeholder = "// ... the text of vat_decode.glsl ...";
  const size_t at = source.find(placeholder);
  ASSERT_NE(at, std::string::npos) << source;
  source.replace(at, placeholder.size(), std::string(gl::decode_glsl()));
  gl::ProgramDesc desc;
  desc.name = "rendering_md_example";
  desc.shaders = {
      {gl::ShaderStage::Vertex, source, "rendering.md example"},
      {gl::ShaderStage::Fragment, "in vec3 v_normal;\nout vec4 c;\nvoid main() { c = vec4(v_normal, 1.0); }\n", ""}};
  Result<gl::Program> program = gl::build_program(desc);
  EXPECT_TRUE(program.ok()) << program.error().message;
}

TEST_F(GlTimerTest, ReportsItsMethod) {
  Result<gl::GpuTimer> timer = gl::GpuTimer::create(*ctx);
  ASSERT_TRUE(timer.ok()) << timer.error().message;
  EXPECT_NE(timer->method(), gl::TimerMethod::Automatic);
  if (ctx->info().software) {
    EXPECT_EQ(timer->method(), gl::TimerMethod::WallClockFinish);
  }
  EXPECT_FALSE(timer->elapsed_ms().ok());  // nothing measured yet
  timer->begin();
  Result<gl::RenderTarget> target = gl::RenderTarget::create({32, 32});
  ASSERT_TRUE(target.ok());
  target->clear(0.5f, 0.5f, 0.5f, 1.0f);
  timer->end();
  Result<double> ms = timer->elapsed_ms();
  ASSERT_TRUE(ms.ok());
  EXPECT_GE(*ms, 0.0);
  std::printf("[gl] timer: %s, %.3f ms\n", gl::timer_method_name(timer->method()), *ms);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

}  // namespace
}  // namespace vatkit
