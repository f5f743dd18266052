// vatkit/sample_character.h: the built-in sample, a procedurally generated skinned character.
//
// A humanoid of capsule-like limbs on a 22-joint skeleton with three looping clips (idle, walk,
// run), a few thousand vertices and a base colour. Generated from code, so vatkit runs with no
// input file: every command that takes a file uses it when given none. Deterministic: the bytes
// are the same on every run and machine. The Khronos validator reports no errors on it.
#pragma once

#include <cstdint>
#include <vector>

#include "vatkit/asset.h"
#include "vatkit/result.h"

namespace vatkit {

// The sample as a .glb file. Builds it on each call (allocates); thread-safe.
std::vector<uint8_t> sample_character_glb();

// The sample imported (import_gltf_memory of sample_character_glb(), named "<sample>").
Result<Asset> load_sample_character();

}  // namespace vatkit
