// VertexCapture returns exactly what a vertex shader computed, record by record, for many
// vertices and instances: the shaders here compute small integers and dyadic fractions, which a
// float holds exactly, so the expectations are computed on the CPU and compared bit for bit.
#include <gtest/gtest.h>

#include <cstring>

#include "gl_test_support.h"
#include "vatkit/gl/capture.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/objects.h"

namespace vatkit {
namespace {

using GlCaptureTest = test::GlTest;

constexpr const char* kIdsShader = R"(
uniform float u_scale;
out vec4 v_value;
flat out ivec2 v_ids;
void main() {
  float v = float(gl_VertexID), i = float(gl_InstanceID);
  v_value = vec4(v, i, v * 3.0 + i * 7.0, v * 0.25 - i) * u_scale;
  v_ids = ivec2(gl_VertexID, -gl_InstanceID);
  gl_Position = vec4(v * 0.5, i * 0.125, 1.0, 2.0);
}
)";

Result<gl::VertexCapture> ids_capture() {
  gl::CaptureDesc desc;
  desc.name = "ids";
  desc.vertex_source = kIdsShader;
  desc.outputs = {"v_value", "v_ids", "gl_Position"};
  return gl::VertexCapture::create(desc);
}

struct Record {
  float value[4];
  int32_t ids[2];
  float position[4];
};
static_assert(sizeof(Record) == 40);

void expect_ids_records(const std::vector<Record>& records, uint32_t vertices, uint32_t instances, float scale) {
  ASSERT_EQ(records.size(), size_t(vertices) * instances);
  size_t mismatches = 0;
  for (uint32_t i = 0; i < instances; ++i) {
    for (uint32_t v = 0; v < vertices; ++v) {
      const Record& r = records[size_t(i) * vertices + v];
      const float fv = float(v), fi = float(i);
      const Record want = {{fv * scale, fi * scale, (fv * 3.0f + fi * 7.0f) * scale, (fv * 0.25f - fi) * scale},
                           {int32_t(v), -int32_t(i)},
                           {fv * 0.5f, fi * 0.125f, 1.0f, 2.0f}};
      if (std::memcmp(&r, &want, sizeof(Record)) != 0 && ++mismatches <= 5) {
        ADD_FAILURE() << "record of vertex " << v << " instance " << i << ": got value (" << r.value[0] << ", "
                      << r.value[1] << ", " << r.value[2] << ", " << r.value[3] << ") ids (" << r.ids[0] << ", "
                      << r.ids[1] << ")";
      }
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST_F(GlCaptureTest, TrivialShaderOverManyVerticesAndInstances) {
  Result<gl::VertexCapture> capture = ids_capture();
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  ASSERT_EQ(capture->fields().size(), 3u);
  EXPECT_EQ(capture->fields()[0].name, "v_value");
  EXPECT_EQ(capture->fields()[0].components, 4);
  EXPECT_EQ(capture->fields()[1].scalar, gl::CaptureScalar::I32);
  EXPECT_EQ(capture->fields()[1].offset_bytes, 16u);
  EXPECT_EQ(capture->fields()[2].name, "gl_Position");
  EXPECT_EQ(capture->fields()[2].offset_bytes, 24u);
  ASSERT_EQ(capture->record_bytes(), sizeof(Record));

  glProgramUniform1f(capture->program().id(), glGetUniformLocation(capture->program().id(), "u_scale"), 1.0f);
  const uint32_t vertices = 1000, instances = 97;
  std::vector<Record> records(size_t(vertices) * instances);
  const Result<void> ran = capture->run(vertices, instances, std::as_writable_bytes(std::span(records)));
  ASSERT_TRUE(ran.ok()) << ran.error().message;
  expect_ids_records(records, vertices, instances, 1.0f);

  // Again, smaller and with another uniform value: the buffer is reused, no stale records.
  glProgramUniform1f(capture->program().id(), glGetUniformLocation(capture->program().id(), "u_scale"), -2.0f);
  records.assign(size_t(33) * 5, Record{});
  ASSERT_TRUE(capture->run(33, 5, std::as_writable_bytes(std::span(records))).ok());
  expect_ids_records(records, 33, 5, -2.0f);
}

TEST_F(GlCaptureTest, RunFloatsAndPerVertexPerInstanceAttributes) {
  // Attributes: a per-vertex float and a per-instance float (divisor 1).
  constexpr const char* kShader = R"(
layout(location = 0) in float a_vertex;
layout(location = 1) in float a_instance;
out float v_sum;
void main() { v_sum = a_vertex * 2.0 + a_instance; gl_Position = vec4(0.0); }
)";
  gl::CaptureDesc desc;
  desc.name = "attributes";
  desc.vertex_source = kShader;
  desc.outputs = {"v_sum"};
  Result<gl::VertexCapture> capture = gl::VertexCapture::create(desc);
  ASSERT_TRUE(capture.ok()) << capture.error().message;

  const uint32_t vertices = 300, instances = 40;
  std::vector<float> per_vertex(vertices), per_instance(instances);
  for (uint32_t v = 0; v < vertices; ++v) per_vertex[v] = float(v) * 0.5f;
  for (uint32_t i = 0; i < instances; ++i) per_instance[i] = float(i) * 1000.0f;
  gl::Buffer vertex_buffer = gl::create_buffer(per_vertex.size() * 4, per_vertex.data());
  gl::Buffer instance_buffer = gl::create_buffer(per_instance.size() * 4, per_instance.data());
  gl::VertexArray vertex_array = gl::create_vertex_array();
  const GLuint va = vertex_array.id();
  glVertexArrayVertexBuffer(va, 0, vertex_buffer.id(), 0, 4);
  glVertexArrayVertexBuffer(va, 1, instance_buffer.id(), 0, 4);
  glVertexArrayBindingDivisor(va, 1, 1);
  for (GLuint a = 0; a < 2; ++a) {
    glEnableVertexArrayAttrib(va, a);
    glVertexArrayAttribFormat(va, a, 1, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(va, a, a);
  }
  Result<std::vector<float>> sums = capture->run_floats(vertices, instances, va);
  ASSERT_TRUE(sums.ok()) << sums.error().message;
  ASSERT_EQ(sums->size(), size_t(vertices) * instances);
  for (uint32_t i = 0; i < instances; ++i)
    for (uint32_t v = 0; v < vertices; ++v)
      ASSERT_EQ((*sums)[size_t(i) * vertices + v], float(v) + float(i) * 1000.0f) << v << " " << i;
}

TEST_F(GlCaptureTest, ErrorsAreValues) {
  gl::CaptureDesc desc;
  desc.name = "missing";
  desc.vertex_source = "out vec3 v_here;\nvoid main() { v_here = vec3(1.0); gl_Position = vec4(0.0); }\n";
  desc.outputs = {"v_not_here"};
  Result<gl::VertexCapture> missing = gl::VertexCapture::create(desc);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("missing: link failed"), std::string::npos) << missing.error().message;

  desc.outputs.clear();
  EXPECT_FALSE(gl::VertexCapture::create(desc).ok());

  Result<gl::VertexCapture> capture = ids_capture();
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  std::vector<std::byte> wrong(capture->record_bytes() * 10 - 4);
  const Result<void> ran = capture->run(5, 2, wrong);
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.error().message.find("ids: 5 x 2 records need 400 bytes"), std::string::npos) << ran.error().message;
  EXPECT_FALSE(capture->run_floats(5, 2).ok());  // v_ids is an int output
  EXPECT_TRUE(capture->run(0, 7, {}).ok());      // nothing to do
}

// The capture restores the state it touched.
TEST_F(GlCaptureTest, LeavesStateAsFound) {
  Result<gl::VertexCapture> capture = ids_capture();
  ASSERT_TRUE(capture.ok()) << capture.error().message;
  gl::VertexArray mine = gl::create_vertex_array();
  glBindVertexArray(mine.id());
  std::vector<Record> records(4);
  ASSERT_TRUE(capture->run(2, 2, std::as_writable_bytes(std::span(records))).ok());
  GLint program = -1, vertex_array = -1;
  glGetIntegerv(GL_CURRENT_PROGRAM, &program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array);
  EXPECT_EQ(program, 0);
  EXPECT_EQ(GLuint(vertex_array), mine.id());
  EXPECT_FALSE(glIsEnabled(GL_RASTERIZER_DISCARD));
  glBindVertexArray(0);
}

}  // namespace
}  // namespace vatkit
