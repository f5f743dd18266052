// The decode chunk's text and the defines a Vat needs.
#include "vatkit/gl/decode_glsl.h"

#include <cassert>

#include "objects/shaders.h"

namespace vatkit::gl {

namespace detail {

std::string_view shader_text(std::string_view name) {
  for (size_t i = 0; i < kEmbeddedShaderCount; ++i) {
    if (kEmbeddedShaders[i].name == name) return kEmbeddedShaders[i].text;
  }
  assert(false && "no such embedded shader");
  return {};
}

}  // namespace detail

std::string_view decode_glsl() { return detail::shader_text("vat_decode.glsl"); }

std::vector<std::string> decode_defines(const Vat& vat) {
  std::vector<std::string> d;
  d.push_back(vat.encoding == Encoding::Rig ? "VAT_RIG" : "VAT_DELTA");
  switch (vat.precision) {
    case Precision::F32: d.push_back("VAT_F32"); break;
    case Precision::F16: d.push_back("VAT_F16"); break;
    case Precision::Q16: d.push_back("VAT_Q16"); break;
  }
  if (vat.encoding == Encoding::Delta) {
    if (vat.plane(PlaneSemantic::Normal) != nullptr) d.push_back("VAT_NORMAL_PLANE");
    if (vat.plane(PlaneSemantic::Tangent) != nullptr) d.push_back("VAT_TANGENT_PLANE");
  } else if (!vat.geometry.slots1.empty()) {
    d.push_back("VAT_EIGHT_INFLUENCES");
  }
  return d;
}

std::string decode_prelude(const Vat& vat) {
  std::string text;
  for (const std::string& d : decode_defines(vat)) text += "#define " + d + "\n";
  text += decode_glsl();
  return text;
}

}  // namespace vatkit::gl
