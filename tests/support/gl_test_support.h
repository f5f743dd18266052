// Shared by the GL tests (tests/test_gl_*.cpp): one headless debug context for the whole test
// binary (EGL start-up costs 90-320 ms on llvmpipe), a fixture that makes it current and fails
// any test that leaves a GL error behind, and the triangle the render tests draw.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "test_support.h"
#include "vatkit/gl/context.h"
#include "vatkit/gl/gl.h"

namespace vatkit::test {

// Every non-error debug message the shared context logged (the fixture clears it per test).
inline std::vector<gl::DebugMessage>& gl_logged_messages() {
  static std::vector<gl::DebugMessage> messages;
  return messages;
}

// The shared context, created on first use (CI has no GPU: this is Mesa llvmpipe there). Null
// when creation failed; gl_context_error() says why.
inline std::string& gl_context_error() {
  static std::string error;
  return error;
}

// Deliberately never destroyed: tearing EGL down from a static destructor races the drivers'
// own exit handlers, and the process is ending anyway.
inline gl::Context* gl_context() {
  static gl::Context* context = []() -> gl::Context* {
    gl::HeadlessDesc options;
    options.debug = true;
    options.log = [](const gl::DebugMessage& message) {
      // The log is the tests', not the library's: a driver that talks every frame (NVIDIA) must
      // not count against the renderer's "no allocation per frame".
      UncountedAllocations uncounted;
      gl_logged_messages().push_back(message);
      std::fprintf(stderr, "[gl log] %s\n", message.describe().c_str());
    };
    Result<gl::Context> created = gl::Context::create_headless(options);
    if (!created) {
      gl_context_error() = created.error().message;
      return nullptr;
    }
    std::printf("[gl] %s\n", created->info().describe().c_str());
    return new gl::Context(std::move(*created));
  }();
  return context;
}

// Fixture: the shared context is current at the start of each test, and no GL error may be
// pending at its end.
class GlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx = gl_context();
    ASSERT_NE(ctx, nullptr) << "no headless GL context: " << gl_context_error();
    ASSERT_TRUE(ctx->make_current().ok());
    ASSERT_TRUE(ctx->take_errors().empty()) << "a GL error was pending before the test";
    gl_logged_messages().clear();
  }
  void TearDown() override {
    if (!ctx) return;
    ASSERT_TRUE(ctx->make_current().ok());
    const Result<void> clean = ctx->check("end of test");
    EXPECT_TRUE(clean.ok()) << clean.error().message;
  }

  gl::Context* ctx = nullptr;
};

// Attribute-less triangle: corners (-0.5,-0.5), (0.5,-0.5), (0,0.5) in clip space, z = u_depth,
// filled with u_color.
inline constexpr const char* kTriangleVertex = R"(
uniform float u_depth;
void main() {
  const vec2 corners[3] = vec2[3](vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(0.0, 0.5));
  gl_Position = vec4(corners[gl_VertexID], u_depth, 1.0);
}
)";

inline constexpr const char* kFlatFragment = R"(
uniform vec4 u_color;
out vec4 frag_color;
void main() { frag_color = u_color; }
)";

}  // namespace vatkit::test
