// vatkit/decode.h: reading poses back out of a Vat on the CPU, with exactly the arithmetic the
// GPU decode uses (the GLSL chunk is a transcription of these functions).
//
// What is decoded is a PoseBlend: one or two clip bands, each sampled between two of its rows,
// then mixed. Issue-3 callers use one band (clip_rows_at); playback (resolve, transitions,
// blends) produces two.
//
// Per band: lerp between row and row_next by `mix` (positions, normals, tangents, translations,
// scales); quaternions nlerp, with row_next's quaternion negated when its dot with row's is
// negative (the hemisphere flip: a looping clip blends its last row into its first, and those
// need not share a hemisphere).
// Between bands: the same rule with weight_b (band b's quaternion flipped onto band a's side).
// Normals and tangents are normalized once, at the end; quaternions are normalized at the end.
#pragma once

#include <cstdint>
#include <span>

#include "vatkit/vat.h"

namespace vatkit {

// One clip band sampled between two absolute frame rows.
struct RowBlend {
  uint32_t clip = 0;      // index into Vat::clips (its band holds both rows)
  uint32_t row = 0;       // absolute frame row
  uint32_t row_next = 0;  // absolute frame row blended toward
  float mix = 0.0f;       // [0, 1)
};

struct PoseBlend {
  RowBlend a;
  RowBlend b;             // read only when weight_b > 0
  float weight_b = 0.0f;  // [0, 1]
};

// The rows of `clip` at `time_s` on the glTF timeline, clamped to [0, duration_s]: the position
// time * fps between rows (no looping: that is playback's job).
RowBlend clip_rows_at(const Vat& vat, uint32_t clip, float time_s);

// A one-band PoseBlend.
inline PoseBlend single(RowBlend rows) { return PoseBlend{rows, rows, 0.0f}; }

// A slot's similarity transform: p' = rotation * (scale * p) + translation.
struct SlotTransform {
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 translation{0.0f};
  float scale = 1.0f;
  glm::mat4 matrix() const;
};

// Object-space positions (and normals, tangents when the spans are non-empty) of vertices
// [first_vertex, first_vertex + positions.size()) under `pose`. Works for both encodings (the
// rig encoding skins the bind-space geometry with the decoded slots). Spans are caller-owned;
// nothing is allocated.
void decode_vertices(const Vat& vat, const PoseBlend& pose, uint32_t first_vertex,
                     std::span<glm::vec3> positions, std::span<glm::vec3> normals = {},
                     std::span<glm::vec4> tangents = {});

// The transform of `slot` under `pose` (Vat::slots; requires a Slots plane).
SlotTransform decode_slot(const Vat& vat, const PoseBlend& pose, uint32_t slot);

// The stored value of one row, dequantized, with no interpolation: for tests and GPU parity.
glm::vec4 read_texel(const Vat& vat, PlaneSemantic plane, uint32_t row, uint32_t texel);
SlotTransform read_slot(const Vat& vat, uint32_t row, uint32_t slot);

}  // namespace vatkit
