// vatkit/decode.h: reading poses back out of a Vat on the CPU, with exactly the arithmetic the
// GPU decode uses (the GLSL chunk is a transcription of these functions; docs/encodings.md shows
// it).
//
// What is decoded is a PoseBlend: one or two clip bands, each sampled between two of its rows,
// then mixed. A caller sampling one clip uses one band (clip_rows_at, single); playback (resolve,
// transitions, blends) produces two.
//
// The arithmetic, in order (lerp(a, b, m) means a + (b - a) * m, per component):
//  1. Fetch: texel i of frame row r is at x = i % width, y = r * rows_per_frame + i / width;
//     dequantize it (vat.h, Precision) with the ranges of the clip whose band holds the row.
//  2. Per band: lerp(row, row_next, mix) for position deltas, normals, tangents, translations
//     and scales; quaternions likewise after negating row_next's when dot(q_row, q_next) < 0
//     (the hemisphere flip: a looping clip blends its last row into its first, and those need
//     not share a hemisphere).
//  3. Between bands: the same rule with weight_b (band b's quaternion flipped onto band a's).
//  4. Delta: position = rest + delta. Rig: each slot's quaternion is normalized and the slot
//     becomes the affine matrix [R(q) s | t]; a vertex blends its slots' matrices with its
//     weights, M = sum w_k M_k; position = M p_bind; normal = sign(det A) cof(A) n_bind, where A
//     is M's 3x3 part and cof(A) has the columns a1 x a2, a2 x a0, a0 x a1 (the reference
//     skinner's inverse transpose, up to scale); tangent = (A t_bind.xyz, t_bind.w).
//  5. Normals and tangent directions are normalized once, at the end.
//
// Nothing here allocates per call (the rig decode keeps per-thread tables of slot matrices that
// grow to the largest rig the thread has decoded); spans are caller-owned. Misuse (a clip, row,
// slot or vertex out of range, spans running past the vertex count) asserts. Cost: O(vertices
// asked) for decode_vertices (plus O(slots) per call for a rig), O(1) per slot or texel. Threads:
// every function is safe to call concurrently on one const Vat (the scratch is per thread); none
// uses a thread pool.
#pragma once

#include <cstdint>
#include <span>
#include <string>

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

// The rows of `clip` at `time_s` on the glTF timeline, clamped to [0, duration_s] (no looping:
// that is playback's job): x = time * fps, row = first_row + min(floor(x), rows - 1),
// row_next = min(row + 1, last row), mix = x - floor(x) (0 on the last row).
RowBlend clip_rows_at(const Vat& vat, uint32_t clip, float time_s);

// A one-band PoseBlend.
inline PoseBlend single(RowBlend rows) { return PoseBlend{rows, rows, 0.0f}; }

// A slot's similarity transform: p' = rotation * (scale * p) + translation.
struct SlotTransform {
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 translation{0.0f};
  float scale = 1.0f;
  glm::mat4 matrix() const;  // rotation normalized first
};

// Object-space positions (and normals, tangents when the spans are non-empty) of vertices
// [first_vertex, first_vertex + positions.size()) under `pose`. Works for both encodings (the
// rig encoding skins the bind-space geometry with the decoded slots). Normals of a Delta VAT
// baked without normals are the rest normals (what a renderer without the plane draws), and
// (0, 0, 0) where the VAT has no rest (delta) or bind (rig) normals; tangents of a VAT without
// tangents are (0, 0, 0, 0). `positions` may be empty when only
// normals or tangents are wanted (then the count comes from the first non-empty span).
void decode_vertices(const Vat& vat, const PoseBlend& pose, uint32_t first_vertex, std::span<glm::vec3> positions,
                     std::span<glm::vec3> normals = {}, std::span<glm::vec4> tangents = {});

// The transform stored for `slot` under `pose` (Vat::slots; requires a Slots plane). The
// quaternion is normalized.
SlotTransform decode_slot(const Vat& vat, const PoseBlend& pose, uint32_t slot);

// The world (object-space) matrix of the slot's node under `pose`: decode_slot(...).matrix() *
// inverse(slots[slot].inverse_bind). This is the socket query: the transform of a joint in
// either encoding (a Delta VAT's slots hold world(joint) directly).
glm::mat4 decode_joint_world(const Vat& vat, const PoseBlend& pose, uint32_t slot);

// The first slot whose node is `node`, or -1 (Vat::slots; a joint of two skins with different
// inverse bind matrices has two slots, with the same world matrix).
int find_slot(const Vat& vat, int32_t node);

// The first slot whose joint is named `name` (sockets are asked for by name; `vatkit info` lists
// the slots). Not found: Argument, naming vat.source and listing the slots' names.
Result<int> find_slot(const Vat& vat, const std::string& name);

// The stored value of one frame row, dequantized, with no interpolation: for tests and GPU
// parity. Position: (delta, 0); Normal: (normal, 0) wherever it is stored (a Q16 delta keeps it
// in the Position plane); Tangent: (xyz, w). Rows are absolute; a plane the Vat lacks asserts.
glm::vec4 read_texel(const Vat& vat, PlaneSemantic plane, uint32_t row, uint32_t texel);
SlotTransform read_slot(const Vat& vat, uint32_t row, uint32_t slot);

// The clip whose band holds absolute frame row `row` (asserts that one does).
uint32_t clip_of_row(const Vat& vat, uint32_t row);

}  // namespace vatkit
