// The offscreen render target: clear colour, a triangle whose covered pixels are known from its
// corners, depth testing, multisample resolve, readback orientation, and a rendered frame that
// survives a PNG round trip. Colours are exact in 8 bits: 0.2, 0.4, 0.6, 0.8 times 255 are whole
// numbers (51, 102, 153, 204).
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "gl_test_support.h"
#include "test_support.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/image.h"
#include "vatkit/gl/objects.h"
#include "vatkit/gl/program.h"
#include "vatkit/gl/render_target.h"

namespace vatkit {
namespace {

using Rgba = std::array<uint8_t, 4>;

Rgba pixel(const gl::Image& image, int x, int y) {
  const uint8_t* p = image.at(x, y);
  return {p[0], p[1], p[2], p[3]};
}

class GlRenderTest : public test::GlTest {
 protected:
  void SetUp() override {
    test::GlTest::SetUp();
    gl::ProgramDesc desc;
    desc.name = "triangle";
    desc.shaders = {{gl::ShaderStage::Vertex, test::kTriangleVertex, ""},
                    {gl::ShaderStage::Fragment, test::kFlatFragment, ""}};
    Result<gl::Program> built = gl::build_program(desc);
    ASSERT_TRUE(built.ok()) << built.error().message;
    program_ = std::move(*built);
    vertex_array_ = gl::create_vertex_array();
  }
  void TearDown() override {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glUseProgram(0);
    glBindVertexArray(0);
    glDisable(GL_DEPTH_TEST);
    program_.reset();
    vertex_array_.reset();
    test::GlTest::TearDown();
  }

  // Draws the test triangle (a core profile needs a vertex array even without attributes).
  void draw_triangle(float r, float g, float b, float depth = 0.0f) {
    glProgramUniform4f(program_.id(), gl::uniform_location(program_, "u_color"), r, g, b, 1.0f);
    glProgramUniform1f(program_.id(), gl::uniform_location(program_, "u_depth"), depth);
    glUseProgram(program_.id());
    glBindVertexArray(vertex_array_.id());
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }

  gl::Program program_;
  gl::VertexArray vertex_array_;
};

const Rgba kClear = {51, 102, 153, 255};  // (0.2, 0.4, 0.6, 1)
const Rgba kYellow = {255, 204, 0, 255};  // (1, 0.8, 0, 1)

// In a 64x64 target the triangle covers GL rows 16..47 (bottom up), x from 16 + (y-16)/2 to
// 48 - (y-16)/2. Image rows run top down: image row r is GL row 63 - r.
TEST_F(GlRenderTest, ClearThenTriangleInsideAndOutside) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({64, 64});
  ASSERT_TRUE(target.ok()) << target.error().message;
  target->clear(0.2f, 0.4f, 0.6f, 1.0f);
  const gl::Image cleared = target->read_rgba8();
  ASSERT_EQ(cleared.width, 64);
  ASSERT_EQ(cleared.height, 64);
  for (int y = 0; y < 64; y += 7)
    for (int x = 0; x < 64; x += 5) ASSERT_EQ(pixel(cleared, x, y), kClear) << x << "," << y;

  draw_triangle(1.0f, 0.8f, 0.0f);
  const gl::Image image = target->read_rgba8();
  EXPECT_EQ(pixel(image, 32, 32), kYellow);  // centre
  EXPECT_EQ(pixel(image, 20, 44), kYellow);  // GL (20, 19): near the wide bottom edge
  EXPECT_EQ(pixel(image, 20, 20), kClear);   // GL (20, 43): beside the narrow top
  EXPECT_EQ(pixel(image, 32, 10), kClear);   // above the apex
  EXPECT_EQ(pixel(image, 32, 52), kClear);   // below the base
  EXPECT_EQ(pixel(image, 0, 0), kClear);
  EXPECT_EQ(pixel(image, 63, 63), kClear);
  // Every pixel is one of the two colours, and the covered count is the triangle's area
  // (32 x 32 / 2 = 512) up to the edge rule's rounding.
  int covered = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const Rgba p = pixel(image, x, y);
      ASSERT_TRUE(p == kClear || p == kYellow) << x << "," << y;
      covered += p == kYellow;
    }
  }
  EXPECT_NEAR(covered, 512, 40);
}

TEST_F(GlRenderTest, DepthTestKeepsTheNearerTriangle) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({32, 32});
  ASSERT_TRUE(target.ok()) << target.error().message;
  target->clear(0.2f, 0.4f, 0.6f, 1.0f);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  draw_triangle(1.0f, 0.0f, 0.0f, -0.5f);  // nearer, drawn first
  draw_triangle(0.0f, 0.0f, 1.0f, 0.5f);   // farther: hidden
  EXPECT_EQ(pixel(target->read_rgba8(), 16, 16), (Rgba{255, 0, 0, 255}));
  target->clear(0.2f, 0.4f, 0.6f, 1.0f);  // depth back to 1: the far one shows again
  draw_triangle(0.0f, 0.0f, 1.0f, 0.5f);
  EXPECT_EQ(pixel(target->read_rgba8(), 16, 16), (Rgba{0, 0, 255, 255}));
}

TEST_F(GlRenderTest, MultisampledTargetResolvesEdges) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({64, 64, 4});
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->samples(), 4);
  target->clear(0.2f, 0.4f, 0.6f, 1.0f);
  draw_triangle(1.0f, 0.8f, 0.0f);
  const gl::Image image = target->read_rgba8();
  EXPECT_EQ(pixel(image, 32, 32), kYellow);
  EXPECT_EQ(pixel(image, 32, 10), kClear);
  EXPECT_EQ(pixel(image, 2, 2), kClear);
  // The slanted edges cross pixels partly: with 4 samples some pixels are a blend.
  int blended = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const Rgba p = pixel(image, x, y);
      blended += p != kClear && p != kYellow;
    }
  }
  EXPECT_GT(blended, 20);
}

TEST_F(GlRenderTest, ReadbackIntoCallerMemoryAndErrors) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({16, 8, 1, false});
  ASSERT_TRUE(target.ok()) << target.error().message;
  target->clear(1.0f, 0.0f, 0.0f, 1.0f);
  std::vector<uint8_t> rgba(16 * 8 * 4);
  ASSERT_TRUE(target->read_rgba8(rgba).ok());
  EXPECT_EQ(rgba[0], 255);
  EXPECT_EQ(rgba[rgba.size() - 4], 255);
  std::vector<uint8_t> wrong(16 * 8 * 4 - 1);
  const Result<void> short_span = target->read_rgba8(wrong);
  ASSERT_FALSE(short_span.ok());
  EXPECT_NE(short_span.error().message.find("render target 16x8"), std::string::npos) << short_span.error().message;

  EXPECT_FALSE(gl::RenderTarget::create({0, 8}).ok());
  EXPECT_FALSE(gl::RenderTarget::create({8, 1 << 20}).ok());
  const Result<gl::RenderTarget> too_many = gl::RenderTarget::create({8, 8, 1024});
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("samples must be"), std::string::npos);
}

// The rendered frame written as PNG (level 1, as benchmarks would) and read back by libpng.
TEST_F(GlRenderTest, RenderedFrameSurvivesPng) {
  Result<gl::RenderTarget> target = gl::RenderTarget::create({64, 48});
  ASSERT_TRUE(target.ok()) << target.error().message;
  target->clear(0.2f, 0.4f, 0.6f, 1.0f);
  draw_triangle(1.0f, 0.8f, 0.0f);
  const gl::Image frame = target->read_rgba8();
  const auto path = test::scratch_dir("gl_render") / "triangle.png";
  const Result<void> written = gl::write_png(path, frame.view(), {1});
  ASSERT_TRUE(written.ok()) << written.error().message;
  const Result<gl::Image> read = gl::read_png(path);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->width, 64);
  EXPECT_EQ(read->height, 48);
  EXPECT_EQ(read->channels, 4);
  EXPECT_EQ(read->pixels, frame.pixels);
}

}  // namespace
}  // namespace vatkit
