// The GLSL files of gl/shaders/, embedded at build time (gl/cmake/embed_shaders.cmake).
#pragma once

#include <cstddef>
#include <string_view>

namespace vatkit::gl::detail {

struct EmbeddedShader {
  std::string_view name;  // file name, e.g. "vat_decode.glsl"
  std::string_view text;
};

extern const EmbeddedShader kEmbeddedShaders[];
extern const size_t kEmbeddedShaderCount;

// The text of gl/shaders/`name`; asserts that it exists.
std::string_view shader_text(std::string_view name);

}  // namespace vatkit::gl::detail
