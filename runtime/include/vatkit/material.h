// vatkit/material.h: a mesh's look as glTF describes it and as both an imported asset and a
// .vat.glb carry it: the encoded images (PNG or JPEG bytes, never decoded here) and the materials
// that use them (base colour factor and texture, alpha mode, double-sidedness).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace vatkit {

struct Image {
  std::string name;
  std::string mime_type;       // "image/png" or "image/jpeg"
  std::vector<uint8_t> bytes;  // encoded, exactly as in the file
};

enum class AlphaMode : uint8_t { Opaque, Mask, Blend };

struct Material {
  std::string name;
  glm::vec4 base_color_factor{1.0f};
  int32_t base_color_image = -1;     // index into the owner's images (Asset::images, Vat::images), -1 = none
  uint32_t base_color_texcoord = 0;  // which TEXCOORD_n the texture reads
  AlphaMode alpha_mode = AlphaMode::Opaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

}  // namespace vatkit
