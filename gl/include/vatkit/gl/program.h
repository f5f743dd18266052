// vatkit/gl/program.h: shader programs from GLSL source, with errors that say where.
//
// GLSL version: sources without a #version line get "#version 450 core" (GL 4.5, which both Mesa
// llvmpipe and NVIDIA take). With draw_parameters set, the preamble also enables
// GL_ARB_shader_draw_parameters, for gl_DrawIDARB and gl_BaseInstanceARB (llvmpipe lacks the
// GLSL 4.60 spellings; remember that gl_InstanceID excludes the base instance). Defines go in
// the preamble too. A "#line" directive after the preamble keeps the driver's line numbers equal
// to the lines of the source as written, with or without its own #version line.
//
// Errors are values, one line: the program, the shader and its stage, then each line of the
// driver's log, each followed by the source line it points at, e.g.
//   "crowd.vert (vertex shader): compile failed: 0:12(14): error: `pos' undeclared
//    [line 12: gl_Position = pos;]"
// Link errors quote the program's log the same way. A build that succeeds leaves no GL error.
// Cost: build_program compiles and links in the driver (blocks); preprocess only builds a string
// and needs no context.
// Threads: every call needs the GL context that made the objects current on the calling thread;
// objects are not synchronized (one thread at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "vatkit/gl/objects.h"
#include "vatkit/result.h"

namespace vatkit::gl {

enum class ShaderStage { Vertex, TessControl, TessEvaluation, Geometry, Fragment, Compute };

// "vertex", "fragment", ...
const char* stage_name(ShaderStage stage);

struct ShaderSource {
  ShaderStage stage = ShaderStage::Vertex;
  std::string source;
  std::string name;  // shown in errors; empty: the program's name + ".vert", ".frag", ...
};

struct ProgramDesc {
  std::string name = "program";  // shown in errors
  std::vector<ShaderSource> shaders;
  std::vector<std::string> defines;  // "NAME" or "NAME VALUE", one #define each
  bool draw_parameters = false;      // #extension GL_ARB_shader_draw_parameters : require
  // Outputs captured by transform feedback, interleaved in this order into buffer binding 0
  // (glTransformFeedbackVaryings before linking). Empty: none.
  std::vector<std::string> feedback_varyings;
};

inline constexpr std::string_view kGlslVersion = "#version 450 core";

// The text compiled for `shader`: preamble, "#line", then the source (see above).
std::string preprocess(const ProgramDesc& program, const ShaderSource& shader);

// Compiles every shader and links them. Needs a current context.
Result<Program> build_program(const ProgramDesc& desc);

// glGetUniformLocation; -1 when the program has no such active uniform.
int uniform_location(const Program& program, const char* name);

// The values one program's uniforms were last given through this cache. set() calls
// glProgramUniform* only when the value's bytes differ from the last set, so a render that
// changes nothing issues no uniform calls: each is a driver call, expensive on a CPU just woken
// from waiting for the GPU (docs/benchmarks.md, "CPU time per frame"). It assumes
// that nothing else sets those uniforms and that the program is not relinked; keep one cache per
// program, next to it (a deleted program's name may be reused by a new one). Location -1 (no such
// active uniform) is ignored, as GL does. A location keeps the type and length it was first set
// with. After the first render set() allocates nothing.
class UniformCache {
 public:
  void set(uint32_t program, int location, float v);
  void set(uint32_t program, int location, int32_t v);
  void set(uint32_t program, int location, uint32_t v);
  void set(uint32_t program, int location, const glm::vec3& v);
  void set(uint32_t program, int location, const glm::vec4& v);
  void set(uint32_t program, int location, const glm::mat4& v);
  void set(uint32_t program, int location, std::span<const float> v);      // float[]
  void set(uint32_t program, int location, std::span<const glm::vec4> v);  // vec4[]

 private:
  // Whether `bytes` differ from the location's last value (true the first time); stores them.
  bool changed(int location, const void* bytes, size_t size);
  struct Entry {
    int location;
    uint32_t offset, size;  // into values_
  };
  std::vector<Entry> entries_;
  std::vector<uint8_t> values_;
};

}  // namespace vatkit::gl
