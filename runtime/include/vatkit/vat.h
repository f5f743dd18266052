// vatkit/vat.h: a baked Vertex Animation Texture, the CPU payload between the baker, the
// .vat.glb file and the GPU.
//
// A Vat holds:
//  - the clip table: each clip is a band of consecutive frame rows, with its playback defaults
//    (loop mode, repetitions, end mode, speed), diagnostics and bounds;
//  - the rest geometry: one merged vertex ordering for every drawn primitive of the scene, with
//    draw groups per material;
//  - the planes: 2D textures whose frame row r holds the pose at the r-th baked frame.
//
// Two encodings (docs/encodings.md):
//  - Delta: per vertex per frame, the object-space position minus the rest position (plane
//    Position), the normal (plane Normal, unless baked without normals) and the tangent (plane
//    Tangent, when the source has tangents). Source-agnostic: skins, morph targets and node
//    animation all bake.
//  - Rig: per slot per frame, a similarity transform (rotation quaternion, translation, uniform
//    scale) in plane Slots; the shader skins the rest geometry's bind-space positions with the
//    slot joints and weights. A slot is a (joint node, inverse bind matrix) pair shared by every
//    mesh skinned to it, or a rigid node-animated part (weight 1 on one slot). Slots plane texel
//    2s = quaternion (x, y, z, w), texel 2s + 1 = (translation, scale); the slot's matrix is
//    world(node) * inverse_bind. Consecutive rows of a slot within a clip are on one hemisphere.
//  - Delta bakes also carry a Slots plane (same layout) with one slot per skin joint, holding
//    world(joint) (identity inverse_bind), for sockets; it is absent when the scene has no skin.
//
// Frame rows: a clip of duration D (0 to its last key, the way three.js plays a glTF clip) baked
// at nominal rate f has rows = round(D * f) + 1 rows; row k of the band is the pose at time
// k * D / (rows - 1), so `fps` below is the exact rate (rows - 1) / D. A clip with D = 0 has one
// row. Decode interpolates between two rows: lerp for positions, normals, translations and
// scales; nlerp with the hemisphere flip for quaternions.
//
// Texel addressing (the same on CPU and GPU): a plane stores `texels_per_frame` texels per frame
// row (vertices for Position/Normal/Tangent, 2 * slots for Slots). A frame wider than the device
// limit wraps onto several texture rows: texel i of frame row r is at
//     x = i % width,  y = r * rows_per_frame + i / width.
// width is ceil(texels_per_frame / rows_per_frame) (the rows of a frame are balanced).
//
// Texel contents at F32 and F16: Position (dx, dy, dz, 0), Normal (nx, ny, nz, 0), Tangent
// (tx, ty, tz, w); at Q16 see Precision::Q16.
//
// Threads: a Vat is plain data; any number of threads may read one Vat (and the functions below
// take it const) while none modifies it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "vatkit/material.h"
#include "vatkit/result.h"

namespace vatkit {

enum class Encoding : uint8_t { Delta, Rig };

// Texel precisions. Reconstruction formulas and worst-case errors are in docs/encodings.md and
// are asserted by tests/test_bake_precision.cpp. "Per-clip range" means the VatClip fields below:
// a clip's rows are quantized against its own ranges, so a small clip keeps its precision.
enum class Precision : uint8_t {
  // RGBA32F texels holding the values. Error: float rounding of the stored value (relative
  // 2^-24); a Delta position is rest + delta, so on a row it is within 1 ulp of the reference.
  F32,
  // RGBA16F texels, each value rounded to nearest half. Error per component: relative 2^-11 of
  // the value (|v| >= 2^-14), absolute 2^-25 below; a bake whose values exceed 65504 is refused.
  F16,
  // RGBA16 unsigned-normalized texels, q in 0..65535, u = q / 65535:
  //  - Delta Position plane: xyz = delta, v = min + (max - min) * u against the clip's
  //    delta_range, error <= (max - min) / 131070 per axis (+ float rounding);
  //    w = the normal, octahedral with 8 bits per axis (hi byte: x, lo byte: y; docs/encodings.md),
  //    error <= 0.7 degrees. There is no Normal plane: the normal costs no bytes, so a Q16 delta
  //    always carries it (8 bytes per vertex-frame for position and normal).
  //  - Delta Tangent plane: xyzw each 2u - 1, error <= 1/65535 per component (w is +-1).
  //  - Slots (both encodings): texel 0 = quaternion xyzw, each 2u - 1 (error <= 1/65535 per
  //    component); texel 1 = translation against the clip's translation_range, and the scale
  //    against [scale_min, scale_max] (errors (max - min) / 131070).
  Q16,
};

// How an instance repeats its clip (three-vat's LoopMode, same numbers).
enum class LoopMode : uint8_t { Repeat = 0, Once = 1, PingPong = 2 };
// What an instance does once its repetitions run out (three-vat's EndMode, same numbers).
enum class EndMode : uint8_t { Clamp = 0, Rewind = 1 };
inline constexpr int32_t kInfiniteRepetitions = -1;

// The playback policy every instance of a clip inherits unless it overrides a field.
struct ClipDefaults {
  LoopMode loop_mode = LoopMode::Repeat;
  int32_t repetitions = kInfiniteRepetitions;  // -1 = endless
  EndMode end_mode = EndMode::Clamp;
  float speed = 1.0f;  // >= 0
};

struct Bounds {
  glm::vec3 min{0.0f};
  glm::vec3 max{0.0f};
};

// A clip's error against the reference skinner, as the bake measured it (BakeOptions::measure,
// bake.h; VerifyOptions{} sampling), in millimetres (file units taken as metres). The .vat.glb
// stores it (format version 2, docs/format.md) so that `vatkit info` prints what the bake did.
struct ClipAccuracy {
  float on_rows_max_mm = 0.0f, on_rows_p99_mm = 0.0f;            // at the row times
  float between_rows_max_mm = 0.0f, between_rows_p99_mm = 0.0f;  // at times between rows
  float normal_max_deg = 0.0f;                                   // worst normal direction error
};

// A named moment of a clip (a footstep, a hit frame): `time_s` seconds into the clip, in [0,
// duration_s]; the clip's phase there is time_s / duration_s (0 for a clip of duration 0). Events
// are stored in the .vat.glb (format version 4) and found between two clock times by events.h.
struct ClipEvent {
  std::string name;  // non-empty, at most kMaxEventNameBytes bytes
  float time_s = 0.0f;

  friend bool operator==(const ClipEvent&, const ClipEvent&) = default;
};
// Limits on what a file may carry (checked when loading and writing).
inline constexpr size_t kMaxEventNameBytes = 256;
inline constexpr size_t kMaxClipEvents = 65536;  // per clip

// A clip's root motion (format version 5, docs/root-motion.md): where the character's root goes
// over the clip, taken out of the baked rows (source Joint) or found from the planted feet of a
// clip baked in place (source Feet: the rows are unchanged). `track` holds one (x, y, z, yaw)
// per row of the clip: the model-space rigid motion A_r (a translation, then a turn of `yaw`
// radians about +y) that carries the in-place row r to where the source animation had it, relative
// to row 0 (so row 0 is (0, 0, 0, 0)). The original pose of row r is A_r applied to the baked row.
// y is 0 unless `vertical` (the root's height was taken out too). Between rows x, y, z and yaw are
// linear, as the decode is. runtime: root_motion.h.
enum class RootMotionSource : uint8_t { Joint = 0, Feet = 1 };
struct RootMotion {
  RootMotionSource source = RootMotionSource::Joint;
  std::string joint;  // the joint's name (Joint: the root; Feet: "" )
  int32_t node = -1;  // its node index in the source asset, -1 for Feet
  bool vertical = false;
  std::vector<float> track;  // 4 per row: x, y, z, yaw

  friend bool operator==(const RootMotion&, const RootMotion&) = default;
};
// A root motion's values at most (4 per row of a band of kMaxPlaybackRows rows; checked before
// the values are read).
inline constexpr size_t kMaxRootMotionValues = size_t(4) << 24;
// A root motion's translations and turns are at most this large (file units, radians): a
// fuzzed file cannot carry values whose products overflow.
inline constexpr float kMaxRootMotionValue = 1e9f;

struct VatClip {
  std::string name;               // the source animation's name ("" when the file named none)
  int32_t source_animation = -1;  // its index in the source asset's animations
  uint32_t first_row = 0;         // first frame row of the band
  uint32_t rows = 1;              // rows in the band: round(duration_s * nominal fps) + 1
  float fps = 0.0f;               // exact row rate (rows - 1) / duration_s; 0 for a one-row clip
  float duration_s = 0.0f;        // 0 to the last key time of the source clip
  ClipDefaults defaults;
  // Largest distance of any vertex from its rest position over the clip's rows (file units);
  // near 0 means the clip baked as a frozen pose. Delta: exact. Rig: an upper bound (the rig bake
  // skins no vertex: it bounds each slot's vertices by a box and moves the box).
  float max_delta = 0.0f;
  // Object-space bounds of every posed vertex over the clip's rows. Delta: exact. Rig:
  // conservative (the union of each slot's moved box; contains every skinned vertex).
  Bounds bounds;

  // Q16 ranges: what 0 and 65535 mean for this clip's rows (unused at other precisions).
  Bounds delta_range;                        // Delta: per-axis range of position deltas
  Bounds translation_range;                  // Slots plane (either encoding): per-axis range of translations
  float scale_min = 1.0f, scale_max = 1.0f;  // Slots plane: range of scales

  // The bake's measurement of this clip; absent where it measured nothing (BakeOptions::measure
  // false with an encoding requested) and in files of format version 1.
  std::optional<ClipAccuracy> accuracy;
  // How far the clip's last pose is from its first: the largest distance of a vertex between the
  // two, less their mean displacement (file units), as the bake measured it on the source to pick
  // the clip's loop default (BakeOptions::loops_from_motion); absent in files before version 3.
  std::optional<float> seam;
  // Named events in time order (non-decreasing time_s; equal times keep their order), from the
  // bake's options, the source's animation extras or the foot contacts (BakeOptions); empty in
  // files before version 4.
  std::vector<ClipEvent> events;
  // Root motion (BakeOptions::root_motion); absent in files before version 5 and where the bake
  // was not asked for it.
  std::optional<RootMotion> root_motion;
};

enum class PlaneSemantic : uint8_t { Position, Normal, Tangent, Slots };
enum class TexelFormat : uint8_t { RGBA32F, RGBA16F, RGBA16Unorm };
inline constexpr uint32_t texel_bytes(TexelFormat f) { return f == TexelFormat::RGBA32F ? 16u : 8u; }

struct Plane {
  PlaneSemantic semantic = PlaneSemantic::Position;
  TexelFormat format = TexelFormat::RGBA32F;
  uint32_t texels_per_frame = 0;  // vertices, or 2 * slots
  uint32_t width = 0;             // texels per texture row, <= the bake's max texture size
  uint32_t rows_per_frame = 1;    // ceil(texels_per_frame / width)
  uint32_t height = 0;            // rows_per_frame * Vat::frame_rows
  std::span<const uint8_t> data;  // width * height * texel_bytes(format) bytes, 16-byte aligned

  size_t byte_size() const { return size_t(width) * height * texel_bytes(format); }
};

// The most slots a .vat.glb holds (slot indices are 16-bit in the rig's influence planes).
inline constexpr size_t kMaxVatSlots = 65536;

// A slot of the rig encoding (also carried by delta bakes for joint sockets).
struct VatSlot {
  std::string name;              // the joint or node name
  int32_t node = -1;             // node index in the source asset
  glm::mat4 inverse_bind{1.0f};  // identity for a rigid part; world(node) = slot * inverse(this)
};

// A draw group: one material's triangles in the merged index buffer.
struct DrawGroup {
  uint32_t first_index = 0;
  uint32_t index_count = 0;
  int32_t material = -1;  // index into Vat::materials, -1 = default material
};

// Where each source primitive instance went in the merged vertex ordering (for pose output and
// for comparing a VAT with its source, vertex by vertex).
struct SourceRange {
  uint32_t node = 0, mesh = 0, primitive = 0;  // as in the source asset's MeshInstance
  uint32_t first_vertex = 0;                   // in the merged ordering
  uint32_t vertex_count = 0;                   // all vertices of the instance
  uint32_t source_vertex_count = 0;            // the file's vertices (first of the range)
};

// A level of detail (vatkit/lod.h, docs/lod.md): a simplified triangle list over the SAME merged
// vertices as the full mesh (the simplifier only drops triangles and reuses original vertices),
// so every level reads the same VAT columns. Errors are in object units (the file's units) and
// bound the two-sided distance between this level's surface and the full surface (lod.h says
// exactly what is measured).
struct LodLevel {
  std::vector<uint32_t> indices;  // triangle list over the merged ordering
  // One per VatGeometry::groups entry, in the same order and with the same materials; a group
  // may be empty at a coarse level.
  std::vector<DrawGroup> groups;
  float error = 0.0f;            // at the rest pose (VatGeometry::positions)
  float error_in_motion = 0.0f;  // worst over the rest pose and the measured poses of every clip
  // The largest projected diameter, in pixels, of the VAT's bounding sphere (Vat::bounds) at
  // which error_in_motion projects to at most one pixel: 2 * radius / error_in_motion (lod.h).
  float screen_size = 0.0f;
};

struct VatGeometry {
  // The rest pose in object (scene root) space: what any glTF viewer shows, and the reference
  // the Delta encoding's deltas are taken from.
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec4> tangents;    // empty when no source primitive has tangents
  std::vector<glm::vec2> texcoords0;  // empty when no source primitive has them
  std::vector<glm::vec4> colors0;     // empty when no source primitive has them

  // Rig only: bind-space geometry and slot influences (4 or 8 per vertex, weights normalized).
  std::vector<glm::vec3> bind_positions;
  std::vector<glm::vec3> bind_normals;
  std::vector<glm::vec4> bind_tangents;
  std::vector<glm::u16vec4> slots0, slots1;
  std::vector<glm::vec4> slot_weights0, slot_weights1;

  std::vector<uint32_t> indices;  // triangle list over the merged ordering
  std::vector<DrawGroup> groups;  // one per material, in material order
  std::vector<SourceRange> sources;
  // Coarser levels of detail, finest first (level 0, the full mesh, is indices/groups above);
  // empty when the bake made none (BakeOptions::lods = 0) or the mesh could not be reduced.
  std::vector<LodLevel> lods;

  uint32_t vertex_count() const { return static_cast<uint32_t>(positions.size()); }
};

struct Vat {
  Encoding encoding = Encoding::Delta;
  Precision precision = Precision::F32;
  uint32_t frame_rows = 0;  // rows over all clips
  std::vector<VatClip> clips;
  Bounds bounds;  // union of the clips' bounds
  // The length of one file unit in metres: 1 by glTF's convention; 0.01 for an asset modelled in
  // centimetres and baked with BakeOptions::metres_per_unit (`vatkit bake --units cm`). Errors,
  // budgets and tolerances in millimetres are millimetres of this length (mm_per_unit).
  float metres_per_unit = 1.0f;

  VatGeometry geometry;
  std::vector<VatSlot> slots;  // Rig: the slots; Delta: the joint tracks baked for sockets
  std::vector<Plane> planes;
  std::vector<Material> materials;
  std::vector<Image> images;

  std::string source;  // what it was baked or loaded from, for messages

  // Keeps the planes' bytes alive: the baker's own buffers or a loaded .vat.glb's bytes. Copying
  // a Vat shares it.
  std::shared_ptr<const void> storage;

  const Plane* plane(PlaneSemantic semantic) const {
    for (const Plane& p : planes)
      if (p.semantic == semantic) return &p;
    return nullptr;
  }
};

// Picks a clip of a Vat: "#N" is Vat::clips[N] (0-based), anything else a clip name. Errors name
// vat.source and list the clips, as find_clip(Asset) does. O(clips); allocates only the error.
Result<int> find_clip(const Vat& vat, const std::string& selector);

// The clip's name, or "#N" (its index in Vat::clips) when the source named none.
std::string clip_label(const Vat& vat, int clip);

// Lower-case names, as reports and the CLI print them. Those of the encoding, the precision, a
// plane's semantic and its texel format are also the names the .vat.glb file stores
// (docs/format.md); the file spells a loop mode in camelCase ("pingPong"). Static strings.
// Millimetres per file unit: a distance in file units times this is millimetres.
inline double mm_per_unit(const Vat& vat) { return 1000.0 * double(vat.metres_per_unit); }

const char* to_string(Encoding);
const char* to_string(Precision);
const char* to_string(PlaneSemantic);
const char* to_string(TexelFormat);
const char* to_string(LoopMode);
const char* to_string(EndMode);

}  // namespace vatkit
