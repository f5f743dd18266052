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
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vatkit/gl/objects.h"
#include "vatkit/result.h"

namespace vatkit::gl {

enum class ShaderStage { vertex, tess_control, tess_evaluation, geometry, fragment, compute };

// "vertex", "fragment", ...
const char* stage_name(ShaderStage stage);

struct ShaderSource {
  ShaderStage stage = ShaderStage::vertex;
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

}  // namespace vatkit::gl
