// gltf_materials.h (internal to vatkit::bake): a Vat's materials and images as core glTF, shared
// by the files the baker writes (the .vat.glb, vat_write.cpp; three-vat's file,
// export/three_vat.cpp).
#pragma once

#include <vector>

#include "file/glb_writer.h"
#include "vatkit/material.h"

namespace vatkit {

// Appends `materials` (glTF "materials", in order, so material i keeps index i) and `images`
// (each an embedded image in a buffer view of its own, borrowed: the images must outlive the
// writer's output, and a texture per image, texture i showing image i) to `w`. A material's base
// colour image is its texture's index. No sampler is written (glTF's defaults).
void write_gltf_materials(const std::vector<Material>& materials, const std::vector<Image>& images, glb::Writer& w);

}  // namespace vatkit
