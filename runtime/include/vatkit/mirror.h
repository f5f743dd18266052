// vatkit/mirror.h: the CPU mirror, what the GPU draws for one instance, asked on the CPU.
//
// For instance i at clock time t: its PlaybackSample (instance_table.h: resolve(table, i, t)), the posed
// position and normal of any vertex, and the world transform of any joint (sockets: a sword in a
// hand, a hat on a head), in both encodings, placed by the instance's world matrix. It is
// resolve followed by decode.h, with the same arithmetic the GPU uses; nothing here allocates.
// Cost: O(1) per joint, O(vertices asked) per mirror_vertices (as decode_vertices). Threads: safe
// to call concurrently with const arguments (as decode.h); the table overloads read the table, so
// no write to it may run meanwhile.
//
// World placement: p_world = W p, n_world = normalize(cof(W3) n) (cof = the cofactor matrix of
// W's 3x3 part, sign-corrected for mirroring: the inverse transpose up to scale), joint_world =
// W joint_object.
#pragma once

#include <cstdint>
#include <span>

#include <glm/mat4x4.hpp>

#include "vatkit/decode.h"
#include "vatkit/instance_table.h"
#include "vatkit/playback.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

// Checks that a band lies inside one clip of `vat` (a band straddling two clips would decode rows
// with the wrong clip's ranges). Errors name the rows and the clips.
Result<void> check_band(const Vat& vat, uint32_t first_row, uint32_t rows);
// check_band for every band the instance plays (clip, blend.clip, from.clip).
Result<void> check_instance(const Vat& vat, const Instance& instance);

// The PlaybackSample as decode.h's PoseBlend: a = band a, b = band b, weight_b = weight. Asserts that each
// band lies inside one clip (check_band).
RowBlend row_blend(const Vat& vat, const BandSample& band);
PoseBlend pose_blend(const Vat& vat, const PlaybackSample& sample);

// The mirror_* functions check what decode.h would assert on and return ErrorCode::Argument
// instead: `vat` must hold its animation data (its planes, and for vertices its geometry; the
// metadata() copy a gl::VatGpu keeps holds neither: pass the loaded Vat), each band of `sample`
// must lie inside one clip, and the vertices or the slot must exist.

// World-space positions (and normals when the span is non-empty) of vertices [first_vertex,
// first_vertex + count) under `sample`, placed by `world`. Spans as in decode_vertices.
Result<void> mirror_vertices(const Vat& vat, const PlaybackSample& sample, const glm::mat4& world,
                             uint32_t first_vertex, std::span<glm::vec3> positions, std::span<glm::vec3> normals = {});

// The world matrix of slot `slot`'s joint (decode_joint_world) placed by `world`.
Result<glm::mat4> mirror_joint(const Vat& vat, const PlaybackSample& sample, const glm::mat4& world, uint32_t slot);

// The same for instance `index` of a table at clock time `time`.
inline Result<void> mirror_vertices(const Vat& vat, const InstanceTable& table, uint32_t index, float time,
                                    const glm::mat4& world, uint32_t first_vertex, std::span<glm::vec3> positions,
                                    std::span<glm::vec3> normals = {}) {
  return mirror_vertices(vat, resolve(table, index, time), world, first_vertex, positions, normals);
}
inline Result<glm::mat4> mirror_joint(const Vat& vat, const InstanceTable& table, uint32_t index, float time,
                                      const glm::mat4& world, uint32_t slot) {
  return mirror_joint(vat, resolve(table, index, time), world, slot);
}

}  // namespace vatkit
