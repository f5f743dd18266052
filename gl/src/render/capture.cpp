#include "vatkit/gl/capture.h"

#include <cstdio>
#include <limits>

#include "vatkit/gl/gl.h"
#include "vatkit/gl/program.h"

namespace vatkit::gl {
namespace {

// Scalar kind and count of a transform feedback varying's type; false for doubles and others.
bool describe_type(GLenum type, CaptureScalar& scalar, int& components) {
  switch (type) {
    case GL_FLOAT:
      scalar = CaptureScalar::F32;
      components = 1;
      return true;
    case GL_FLOAT_VEC2:
      scalar = CaptureScalar::F32;
      components = 2;
      return true;
    case GL_FLOAT_VEC3:
      scalar = CaptureScalar::F32;
      components = 3;
      return true;
    case GL_FLOAT_VEC4:
      scalar = CaptureScalar::F32;
      components = 4;
      return true;
    case GL_FLOAT_MAT2:
      scalar = CaptureScalar::F32;
      components = 4;
      return true;
    case GL_FLOAT_MAT3:
      scalar = CaptureScalar::F32;
      components = 9;
      return true;
    case GL_FLOAT_MAT4:
      scalar = CaptureScalar::F32;
      components = 16;
      return true;
    case GL_FLOAT_MAT2x3:
    case GL_FLOAT_MAT3x2:
      scalar = CaptureScalar::F32;
      components = 6;
      return true;
    case GL_FLOAT_MAT2x4:
    case GL_FLOAT_MAT4x2:
      scalar = CaptureScalar::F32;
      components = 8;
      return true;
    case GL_FLOAT_MAT3x4:
    case GL_FLOAT_MAT4x3:
      scalar = CaptureScalar::F32;
      components = 12;
      return true;
    case GL_INT:
      scalar = CaptureScalar::I32;
      components = 1;
      return true;
    case GL_INT_VEC2:
      scalar = CaptureScalar::I32;
      components = 2;
      return true;
    case GL_INT_VEC3:
      scalar = CaptureScalar::I32;
      components = 3;
      return true;
    case GL_INT_VEC4:
      scalar = CaptureScalar::I32;
      components = 4;
      return true;
    case GL_UNSIGNED_INT:
      scalar = CaptureScalar::U32;
      components = 1;
      return true;
    case GL_UNSIGNED_INT_VEC2:
      scalar = CaptureScalar::U32;
      components = 2;
      return true;
    case GL_UNSIGNED_INT_VEC3:
      scalar = CaptureScalar::U32;
      components = 3;
      return true;
    case GL_UNSIGNED_INT_VEC4:
      scalar = CaptureScalar::U32;
      components = 4;
      return true;
    default: return false;
  }
}

}  // namespace

Result<VertexCapture> VertexCapture::create(const CaptureDesc& desc) {
  if (desc.outputs.empty()) return make_error(ErrorCode::Argument, desc.name, "no outputs to capture");
  ProgramDesc program_desc;
  program_desc.name = desc.name;
  program_desc.shaders = {{ShaderStage::Vertex, desc.vertex_source, desc.name + ".vert"}};
  program_desc.defines = desc.defines;
  program_desc.draw_parameters = desc.draw_parameters;
  program_desc.feedback_varyings = desc.outputs;
  Result<Program> program = build_program(program_desc);
  if (!program) return program.error();

  VertexCapture capture;
  capture.name_ = desc.name;
  capture.program_ = std::move(*program);
  GLint count = 0;
  glGetProgramiv(capture.program_.id(), GL_TRANSFORM_FEEDBACK_VARYINGS, &count);
  if (count != static_cast<GLint>(desc.outputs.size())) {
    return make_error(ErrorCode::Argument, desc.name,
                      "the linked program captures " + std::to_string(count) + " outputs, " +
                          std::to_string(desc.outputs.size()) + " asked");
  }
  for (GLuint i = 0; i < static_cast<GLuint>(count); ++i) {
    char name[256] = {};
    GLsizei length = 0, size = 0;
    GLenum type = 0;
    glGetTransformFeedbackVarying(capture.program_.id(), i, sizeof(name), &length, &size, &type, name);
    CaptureField field;
    field.name = std::string(name, static_cast<size_t>(length));
    int components = 0;
    if (!describe_type(type, field.scalar, components)) {
      char type_text[16];
      std::snprintf(type_text, sizeof(type_text), "0x%04x", type);
      return make_error(ErrorCode::Argument, desc.name,
                        "output '" + field.name + "' has a type (" + type_text +
                            ") that capture does not read (doubles, say): use float, "
                            "int or uint vectors");
    }
    field.components = components * size;  // arrays: size elements
    field.offset_bytes = capture.record_bytes_;
    capture.record_bytes_ += size_t(field.components) * 4;
    capture.fields_.push_back(std::move(field));
  }
  capture.empty_vertex_array_ = create_vertex_array();
  capture.feedback_ = create_transform_feedback();
  capture.buffer_ = create_buffer();
  capture.written_ = create_query(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
  // Draws need a complete draw framebuffer even with the rasterizer off, and a surfaceless
  // context's framebuffer 0 is incomplete: use one without attachments (GL 4.3).
  capture.framebuffer_ = create_framebuffer();
  glNamedFramebufferParameteri(capture.framebuffer_.id(), GL_FRAMEBUFFER_DEFAULT_WIDTH, 1);
  glNamedFramebufferParameteri(capture.framebuffer_.id(), GL_FRAMEBUFFER_DEFAULT_HEIGHT, 1);
  return capture;
}

Result<void> VertexCapture::run(uint32_t vertex_count, uint32_t instance_count, std::span<std::byte> out,
                                uint32_t vertex_array) {
  const uint64_t records = uint64_t(vertex_count) * instance_count;
  const uint64_t bytes = records * record_bytes_;
  if (bytes > uint64_t(std::numeric_limits<GLsizeiptr>::max()) ||
      vertex_count > uint32_t(std::numeric_limits<GLsizei>::max()) ||
      instance_count > uint32_t(std::numeric_limits<GLsizei>::max())) {
    return make_error(ErrorCode::Limit, name_, "too many records to capture at once (" + std::to_string(records) + ")");
  }
  if (out.size() != bytes) {
    return make_error(ErrorCode::Limit, name_,
                      std::to_string(vertex_count) + " x " + std::to_string(instance_count) + " records need " +
                          std::to_string(bytes) + " bytes, got " + std::to_string(out.size()));
  }
  if (records == 0) return {};
  if (buffer_bytes_ < bytes) {
    glNamedBufferData(buffer_.id(), static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_READ);
    buffer_bytes_ = bytes;
  }
  glTransformFeedbackBufferRange(feedback_.id(), 0, buffer_.id(), 0, static_cast<GLsizeiptr>(bytes));

  GLint old_program = 0, old_vertex_array = 0, old_feedback = 0, old_framebuffer = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &old_framebuffer);
  glGetIntegerv(GL_CURRENT_PROGRAM, &old_program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &old_vertex_array);
  glGetIntegerv(GL_TRANSFORM_FEEDBACK_BINDING, &old_feedback);
  const GLboolean old_discard = glIsEnabled(GL_RASTERIZER_DISCARD);

  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer_.id());
  glUseProgram(program_.id());
  glBindVertexArray(vertex_array ? vertex_array : empty_vertex_array_.id());
  glEnable(GL_RASTERIZER_DISCARD);
  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, feedback_.id());
  glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, written_.id());
  glBeginTransformFeedback(GL_POINTS);
  glDrawArraysInstanced(GL_POINTS, 0, static_cast<GLsizei>(vertex_count), static_cast<GLsizei>(instance_count));
  glEndTransformFeedback();
  glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);

  glBindTransformFeedback(GL_TRANSFORM_FEEDBACK, static_cast<GLuint>(old_feedback));
  if (!old_discard) glDisable(GL_RASTERIZER_DISCARD);
  glBindVertexArray(static_cast<GLuint>(old_vertex_array));
  glUseProgram(static_cast<GLuint>(old_program));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<GLuint>(old_framebuffer));

  GLuint64 written = 0;
  glGetQueryObjectui64v(written_.id(), GL_QUERY_RESULT, &written);
  if (written != records) {
    return make_error(
        ErrorCode::Gl, name_,
        "transform feedback wrote " + std::to_string(written) + " of " + std::to_string(records) + " records");
  }
  glGetNamedBufferSubData(buffer_.id(), 0, static_cast<GLsizeiptr>(bytes), out.data());
  return {};
}

Result<std::vector<float>> VertexCapture::run_floats(uint32_t vertex_count, uint32_t instance_count,
                                                     uint32_t vertex_array) {
  for (const CaptureField& field : fields_) {
    if (field.scalar != CaptureScalar::F32)
      return make_error(ErrorCode::Argument, name_, "run_floats: output '" + field.name + "' is not float");
  }
  std::vector<float> values(size_t(vertex_count) * instance_count * (record_bytes_ / 4));
  Result<void> done = run(vertex_count, instance_count, std::as_writable_bytes(std::span<float>(values)), vertex_array);
  if (!done) return done.error();
  return values;
}

}  // namespace vatkit::gl
