// vatkit/gl/capture.h: read back what a vertex shader computes, for GPU-CPU parity tests.
//
// VertexCapture runs a vertex shader over vertex_count vertices x instance_count instances
// (one instanced GL_POINTS draw with the rasterizer off, gl_VertexID 0..N-1, gl_InstanceID
// 0..M-1, base instance 0) and returns the named outputs of every invocation: record
// r = instance * vertex_count + vertex, fields interleaved in the order given, 4-byte scalars
// (float, int, uint; vectors and matrices as consecutive scalars), no padding.
//
// Why transform feedback and not a storage-buffer write from the vertex shader:
//  - it captures the shader's ordinary outputs, so the shader that renders (the VAT decode) is
//    the one captured, unchanged; an SSBO write would need a modified copy;
//  - the order of captured records is defined by the spec (instance by instance, vertex by
//    vertex), and a primitives-written query proves that every record arrived; vertex shader
//    side effects may run more than once per vertex or be skipped, and vertex-stage SSBOs are
//    optional in GL 4.5 (GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS may be 0);
//  - it works the same on Mesa llvmpipe and NVIDIA (and in GLES 3.0).
// Limits: GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS scalars per record (64 on llvmpipe,
// 128 on NVIDIA), no doubles.
//
// The program is built once by create(); set uniforms with glProgramUniform*, bind textures and
// buffers, then run() as often as needed: the capture buffer grows and is reused. run() changes
// no GL state that it does not restore (program, vertex array, draw framebuffer, rasterizer
// discard, transform feedback binding). It draws into its own attachment-less framebuffer: a
// draw needs a complete framebuffer even with the rasterizer off, and a headless context's
// framebuffer 0 is incomplete. Cost: run() draws once and waits for the GPU (the readback blocks);
// the capture buffer reallocates only when a run needs more than any before.
// Threads: every call needs the GL context that made the objects current on the calling thread;
// objects are not synchronized (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vatkit/gl/objects.h"
#include "vatkit/result.h"

namespace vatkit::gl {

enum class CaptureScalar : uint8_t { F32, I32, U32 };

struct CaptureField {
  std::string name;
  CaptureScalar scalar = CaptureScalar::F32;
  int components = 1;  // scalars per record: 3 for vec3, 16 for mat4, 8 for vec4[2]
  size_t offset_bytes = 0;
};

struct CaptureDesc {
  std::string name = "capture";      // shown in errors
  std::string vertex_source;         // a vertex shader; gets the preamble of program.h
  std::vector<std::string> outputs;  // outputs to capture, e.g. {"v_position", "gl_Position"}
  std::vector<std::string> defines;
  bool draw_parameters = false;
};

class VertexCapture {
 public:
  // Builds the program (errors: GLSL compile or link errors, an output the shader lacks,
  // a double output). Needs a current context.
  static Result<VertexCapture> create(const CaptureDesc& desc);

  VertexCapture() = default;
  VertexCapture(VertexCapture&&) noexcept = default;
  VertexCapture& operator=(VertexCapture&&) noexcept = default;

  const Program& program() const { return program_; }
  std::span<const CaptureField> fields() const { return fields_; }
  size_t record_bytes() const { return record_bytes_; }

  // Runs the shader and copies the records into `out`, which must hold exactly
  // vertex_count * instance_count * record_bytes() bytes. `vertex_array` 0 uses an empty
  // vertex array (attribute-less: the shader reads gl_VertexID / gl_InstanceID); pass your own
  // to feed attributes. Errors: wrong span size, fewer records written than asked.
  Result<void> run(uint32_t vertex_count, uint32_t instance_count, std::span<std::byte> out, uint32_t vertex_array = 0);
  // run() into a new vector of floats; every field must be F32.
  Result<std::vector<float>> run_floats(uint32_t vertex_count, uint32_t instance_count, uint32_t vertex_array = 0);

 private:
  std::string name_;
  Program program_;
  std::vector<CaptureField> fields_;
  size_t record_bytes_ = 0;
  VertexArray empty_vertex_array_;
  TransformFeedback feedback_;
  Buffer buffer_;
  size_t buffer_bytes_ = 0;
  Query written_;
  Framebuffer framebuffer_;  // attachment-less, 1x1
};

}  // namespace vatkit::gl
