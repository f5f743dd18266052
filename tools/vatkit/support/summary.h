// vatkit/summary.h: what an Asset contains, for people (text) and programs (JSON), and how tools
// pick a clip by name or index.
//
// summarize() counts what import kept: scenes and nodes; meshes (each counted once, however many
// nodes draw it) with their primitives, vertices (the file's vertices, as other glTF tools count
// them), triangles and morph targets; the drawn primitive instances of the default scene; skins
// and their joints; clips with duration, channels, interpolation modes and animated paths;
// materials and images; the importer's warnings. `vatkit info` prints it.
// It does not read the file again or validate anything: the Asset is already valid.
//
// The same for a baked Vat (a bake's result, or a loaded .vat.glb): encoding and precision, the
// clip table with each clip's error against the reference when it was measured, the planes with
// their dimensions and bytes, and the bake's time and encoding choice when summarized with its
// BakeReport. `vatkit bake`, `vatkit verify` and `vatkit info FILE.vat.glb` print it.
#pragma once

#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "vatkit/asset.h"
#include "vatkit/bake.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

struct ClipSummary {
  uint32_t index = 0;
  std::string name;         // "" when the file named none
  float start_s = 0.0f;     // earliest key
  float duration_s = 0.0f;  // latest key (the clip plays from 0 to there)
  uint32_t channels = 0;
  uint32_t samplers = 0;
  uint32_t max_keys = 0;  // keys of the longest sampler
  // Sampler counts per interpolation mode.
  uint32_t step = 0, linear = 0, cubic_spline = 0;
  // Channel counts per animated path.
  uint32_t translation = 0, rotation = 0, scale = 0, weights = 0;
};

struct MeshSummary {
  std::string name;
  uint32_t primitives = 0;
  uint32_t vertices = 0;  // sum of source_vertex_count (the file's vertices)
  uint32_t triangles = 0;
  uint32_t morph_targets = 0;  // targets of the mesh (its primitives share the count)
  bool skinned = false;        // drawn by at least one node with a skin
};

// A joint of the skeleton: a node some skin lists (sockets and `--root` options name them).
struct JointSummary {
  uint32_t node = 0;    // node index in the file
  std::string name;     // "" when the file named none
  int32_t parent = -1;  // node index of the nearest ancestor that is also a joint; -1 = a root joint
};

struct SkinSummary {
  std::string name;
  uint32_t joints = 0;
};

struct MaterialSummary {
  std::string name;
  glm::vec4 base_color_factor{1.0f};
  int32_t base_color_image = -1;  // index into the asset's images, -1 = none
};

struct ImageSummary {
  std::string name;
  std::string mime_type;
  uint64_t bytes = 0;  // encoded size
};

struct AssetSummary {
  std::string source;
  uint32_t scenes = 0;
  int32_t default_scene = -1;
  uint32_t roots = 0;  // roots of the default scene
  uint32_t nodes = 0;
  // Totals over meshes (each mesh counted once).
  uint32_t primitives = 0, vertices = 0, triangles = 0, morph_targets = 0;
  // The default scene as drawn: MeshInstances, and their vertices (flat-normal copies included).
  uint32_t instances = 0, instance_vertices = 0;
  uint32_t joints = 0;          // distinct joint nodes over all skins
  uint32_t max_influences = 0;  // 0 (no skinning), 4 or 8
  std::vector<MeshSummary> meshes;
  std::vector<SkinSummary> skins;
  std::vector<JointSummary> joint_list;  // the distinct joints over all skins, by node index
  std::vector<ClipSummary> clips;
  std::vector<MaterialSummary> materials;
  std::vector<ImageSummary> images;
  std::vector<std::string> warnings;
};

AssetSummary summarize(const Asset& asset);

// A readable multi-line report (ends with a newline), for example
//     Fox.glb
//       scenes      1 (default #0, 1 root), 26 nodes
//       meshes      1: 1 primitive, 1728 vertices, 576 triangles, no morph targets
//       ...
std::string summary_text(const AssetSummary& summary);

// Both forms are safe to print: the text quotes names, URIs and warnings through printable()
// (vatkit/printable.h), and the JSON is ASCII (other characters as \uXXXX escapes).

// The same as one JSON object (ends with a newline): the AssetSummary's fields under the same
// names, durations in seconds written so that they read back as the same floats.
std::string summary_json(const AssetSummary& summary);

// ---- A Vat ----------------------------------------------------------------------------------

struct VatClipSummary {
  uint32_t index = 0;  // in Vat::clips
  std::string name;    // "" when the source named none
  int32_t source_animation = -1;
  uint32_t first_row = 0, rows = 0;
  float fps = 0.0f;  // exact row rate, 0 for a one-row clip
  float duration_s = 0.0f;
  ClipDefaults defaults;
  float max_delta = 0.0f;                 // file units
  float seam = -1.0f;                     // VatClip::seam (file units: what decided a loop); < 0 unknown
  std::vector<ClipEvent> events;          // VatClip::events
  std::optional<RootMotion> root_motion;  // VatClip::root_motion
  Bounds bounds;
  bool measured = false;  // `error` holds a measurement (a bake's report, measure_error,
                          // or the bake's as the file keeps it: VatClip::accuracy)
  ClipError error;        // millimetres (of Vat::metres_per_unit)
};

// A slot (vat.h's VatSlot): a joint whose transform the file carries, asked for by name for sockets.
struct VatSlotSummary {
  uint32_t index = 0;  // in Vat::slots
  std::string name;
  int32_t node = -1;  // node index in the source asset
};

struct VatPlaneSummary {
  PlaneSemantic semantic = PlaneSemantic::Position;
  TexelFormat format = TexelFormat::RGBA32F;
  uint32_t texels_per_frame = 0, width = 0, height = 0, rows_per_frame = 1;
  uint64_t bytes = 0;  // width * height * texel bytes
};

// A level of detail (vat.h, LodLevel; vatkit/lod.h).
struct VatLodSummary {
  uint32_t triangles = 0;
  float error = 0.0f, error_in_motion = 0.0f;  // file units
  float screen_size = 0.0f;                    // pixels (bounding-sphere diameter, 1-pixel error)
};

struct VatSummary {
  std::string source;  // Vat::source
  Encoding encoding = Encoding::Delta;
  Precision precision = Precision::F32;
  uint32_t vertices = 0, triangles = 0, draw_groups = 0;
  uint32_t source_primitives = 0;  // Vat::geometry.sources
  uint32_t slots = 0;
  uint32_t influences = 0;       // rig: 4 or 8 slot influences per vertex; delta: 0
  uint32_t frame_rows = 0;       // over all clips
  Bounds bounds;                 // union of the clips' bounds
  float metres_per_unit = 1.0f;  // Vat::metres_per_unit: every mm figure is mm of this unit
  std::vector<VatClipSummary> clips;
  std::vector<VatSlotSummary> slot_list;
  std::vector<VatPlaneSummary> planes;
  std::vector<VatLodSummary> lods;  // coarser levels, finest first (level 0 is `triangles`)
  uint64_t plane_bytes = 0;         // sum over the planes
  uint64_t file_bytes = 0;          // the .vat.glb's size; 0 = unknown (summarize leaves it 0)
  uint32_t materials = 0, images = 0;
  // From a BakeReport (summarize(vat, report)); empty / false / 0 otherwise.
  bool baked = false;
  std::string encoding_reason;  // "requested", or why Auto chose
  std::vector<std::string> notes;
  float size = 0.0f;  // BakeReport::size (file units); 0 unknown
  double bake_seconds = 0.0, measure_seconds = 0.0, lod_seconds = 0.0;
};

// What `vat` holds; clip errors from `errors` (measure_error's result, one per Vat clip in
// order), else what the bake measured (VatClip::accuracy, which a .vat.glb of format version 2
// keeps), else not measured.
VatSummary summarize(const Vat& vat, std::span<const ClipError> errors = {});
// The same with what the bake reported: errors, the encoding's reason, notes and times.
VatSummary summarize(const Vat& vat, const BakeReport& report);

// A readable report (ends with a newline): a header, then one table row per clip (rows, fps,
// duration, playback defaults, max delta, and max / 99th-percentile error in mm on the rows and
// between them when measured), one per plane (format, dimensions, bytes), one per level of
// detail (triangles, error at rest and in motion, screen size), totals, bake time.
std::string summary_text(const VatSummary& summary);

// The slots, one table row each (index, joint name, source node), after a "joints" heading;
// `vatkit info` prints it under summary_text, since sockets are asked for by joint name.
std::string slots_text(const VatSummary& summary);

// The same as one JSON object (ends with a newline): the VatSummary's fields under the same
// names; enums as the file writes them ("delta", "q16", "rgba16unorm", "position", "repeat");
// floats written so that they read back as the same floats; a clip's "error" is null when not
// measured.
std::string summary_json(const VatSummary& summary);

}  // namespace vatkit
