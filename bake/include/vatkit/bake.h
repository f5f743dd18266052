// vatkit/bake.h: turning an imported Asset into a Vat, and measuring a Vat against the reference.
//
// The baker poses the scene with the reference skinner (scene.h) at every frame row of every
// chosen clip and stores the result in the chosen encoding and precision (vat.h). It reports, per
// clip, the error of the decoded VAT against the reference, in millimetres (file units taken as
// metres, the glTF convention), on the rows and between them.
//
// Encodings: Delta always works. Rig works when every slot's transform is a similarity (rotation,
// translation, uniform scale) and no morph target changes during a clip; otherwise the rig bake
// is refused with an error naming the joint or mesh, the clip, the frame and the magnitude. Auto
// bakes the rig when it represents the asset within the error budget, Delta otherwise, and says
// why in BakeReport::encoding_reason.
//
// Threads: work is split over frames and vertices on the shared pool (parallel.h, BakeOptions::
// threads); the output bytes do not depend on the thread count. bake() and measure_error() may be
// called from several threads (their pool jobs take turns); progress is called on the caller's
// thread. Cost: blocks until done; O(clips' rows x (vertices or slots)), plus the levels of detail;
// allocates the planes and the merged geometry.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vatkit/asset.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

enum class EncodingChoice : uint8_t { Auto, Delta, Rig };

// Called from the calling thread with a stage name and its completed fraction in [0, 1].
using ProgressFn = std::function<void(std::string_view stage, float fraction)>;

// The ranges bake() accepts (anything outside is refused with an error naming the option and the
// range). A clip of duration D at a rate f gets round(D * f) + 1 frame rows, and the rows of
// every clip are stacked in one texture, so a VAT holds at most max_texture_size frame rows
// (fewer when a frame takes several texture rows): a clip that needs more than kMaxTextureSize
// fails at once, naming the clip, its duration and its rows; more than max_texture_size, saying
// what fits.
inline constexpr float kMinBakeFps = 1e-6f;  // fps and max_search_fps: [1e-6, 1e6]
inline constexpr float kMaxBakeFps = 1e6f;
inline constexpr uint32_t kMaxTextureSize = 65536;  // max_texture_size: [1, 65536]
inline constexpr uint32_t kMaxBakeLods = 16;        // lods: [0, 16]

// Foot-contact events (docs/events.md, "Feet"): for each clip, "foot_l_down" / "foot_r_down" where
// a foot joint comes to rest on its lowest height and "foot_l_up" / "foot_r_up" where it leaves.
struct FootOptions {
  bool enabled = false;
  // The foot joints' node names; empty: found by name (foot, then ankle, then toe, with a left
  // and right marker), else the lowest leaf joint on each side of the rest pose.
  std::string left, right;
};

// Root motion of a clip (VatClip::root_motion, docs/root-motion.md): `clip` is a clip name,
// "#index" or "all"; `root` says where the motion comes from:
//  - a joint's name: that joint's horizontal translation and turn about +y (its height too with
//    BakeOptions::root_motion_vertical) relative to the clip's first instant, taken out of every
//    baked row (the pose stays in place) and stored per row;
//  - "feet": for a clip baked in place, the motion that keeps the planted foot still (feet.h's
//    contacts; the rows are not changed);
//  - "auto": the root joint (a joint named hips or pelvis, else the shallowest skin joint); where
//    it travels under 10% of the asset's size over the clip (an in-place clip), the feet instead.
// The bake's notes say what was chosen and why.
struct RootMotionOption {
  std::string clip;
  std::string root = "auto";
};

struct BakeOptions {
  EncodingChoice encoding = EncodingChoice::Auto;
  Precision precision = Precision::F32;
  float fps = 30.0f;          // nominal frame rate (ignored when max_error_mm > 0); a clip
                              // with a duration that gets one row holds its first pose, and
                              // the report's notes say so
  float max_error_mm = 0.0f;  // > 0: for each clip, a row count n whose interpolated decode
                              // stays within this budget against the reference, on the rows
                              // and between them (VerifyOptions{} sampling), where n - 1 rows
                              // and every multiple of the key rate below n do not (the lowest
                              // where the error falls with the rate; docs/encodings.md); rates up to
                              // max_search_fps are tried, and a clip that cannot meet the
                              // budget there fails the bake with its best error
  float max_search_fps = 480.0f;
  float auto_budget_mm = 1.0f;  // Auto picks Rig when its error on the rows (what the rig cannot
                                // represent, not what the frame rate loses) is within this budget;
                                // with max_error_mm set, when the rig meets that budget
  // Rig: how far a slot's matrix may be from a similarity (rotation, translation, uniform scale)
  // before the rig is refused: relative spread of the column lengths, and |cos| between columns.
  float rig_tolerance = 1e-3f;
  std::vector<std::string> clips;  // clip names or "#index"; empty = every clip
  bool normals = true;             // Delta F32/F16: bake the Normal plane (a Q16 delta always
                                   // carries normals: they cost no bytes there)
  bool tangents = true;            // bake tangents where the source has them
  uint32_t max_texture_size = 16384;
  unsigned threads = 0;  // 0 = every hardware thread
  // Playback defaults per clip name; the name "*" gives every clip not named otherwise. A clip
  // not named gets its defaults from its motion (loops_from_motion) or ClipDefaults{}.
  std::vector<std::pair<std::string, ClipDefaults>> clip_defaults;
  // glTF has no loop flag. true: a clip whose last pose is not within 7% of the asset's size of
  // its first (VatClip::seam, BakeReport::size) plays once and clamps (a death stays down), every other
  // clip repeats; each such decision is a note in the report. false: every clip repeats.
  bool loops_from_motion = true;
  // The length of one of the source's units in metres (glTF says 1; an asset modelled in
  // centimetres is 0.01). Every millimetre figure (errors, budgets, seams, the levels of detail's
  // error) is millimetres of this length, and the file keeps it (Vat::metres_per_unit). A size
  // implausible for a character in these units (over 20 m or under 2 cm) is a note.
  float metres_per_unit = 1.0f;
  // Animations that are pieces of one (find_clip_pieces in asset.h): true bakes each group as one
  // clip (named and selected as its first piece); false bakes them apart, with a note saying so.
  bool merge_clip_pieces = false;
  // Levels of detail beyond the full mesh (vatkit/lod.h): at most this many simplified index
  // buffers over the same vertices, targeting 1/2, 1/4, 1/8... of the triangles, each with its
  // error at rest and in motion. 0 = none. The full mesh's triangles are reordered for the
  // vertex cache whatever this is.
  uint32_t lods = 3;
  bool measure = true;  // measure the result against the reference for the report
                        // (Auto and max_error_mm measure what they need regardless)
  ProgressFn progress;  // stages "search" (max_error_mm), "bake", "measure", "levels"
  // Named events per clip (VatClip::events, docs/events.md): (clip name or "#index", as `clips`,
  // the event); an unknown clip or a time outside [0, duration] fails the bake. They join the
  // events the source carries (Animation::events, unless source_events is false) and the foot
  // contacts (feet), sorted by time.
  std::vector<std::pair<std::string, ClipEvent>> events;
  bool source_events = true;
  FootOptions feet;
  // Root motion per clip (RootMotionOption); a clip named twice takes the last.
  std::vector<RootMotionOption> root_motion;
  bool root_motion_vertical = false;  // a joint's height is taken out of the rows too
};

// Error of one clip of a Vat against the reference skinner: the numbers (vat.h's ClipAccuracy,
// what a bake stores in VatClip::accuracy) with the clip they are of.
struct ClipError : ClipAccuracy {
  std::string clip;
  uint32_t rows = 0;
  float fps = 0.0f;
};

struct BakeReport {
  Encoding encoding = Encoding::Delta;
  std::string encoding_reason;     // why Auto chose what it chose (or "requested")
  std::vector<ClipError> clips;    // per baked clip (empty when BakeOptions::measure is false)
  std::vector<std::string> notes;  // things worth knowing, e.g. morph weights folded into a rig,
                                   // a clip made to play once because its seam does not close
  float size = 0.0f;               // the asset's size: largest extent of its rest pose (file units;
                                   // times BakeOptions::metres_per_unit for metres)
  double seconds = 0.0;            // wall time of the bake, measurement included
  double measure_seconds = 0.0;    // of which measuring against the reference (report, Auto, search)
  double lod_seconds = 0.0;        // of which the levels of detail (build_lods; most of a default
                                   // bake of a small character: docs/lod.md, "Cost")
  double frame_seconds = 0.0;      // of which the final encoding's frame rows (posing, encoding,
                                   // the planes): what grows with clips and rates, unlike the merged
                                   // geometry and slots, which grow with vertices
};

// Errors (one line, naming asset.source): no animation; an unknown clip; an option outside its
// range (kMinBakeFps...); a clip with more rows than max_texture_size; a Rig request the rig cannot express (the joint
// or mesh, the clip, the frame and the magnitude); planes over max_texture_size (with what would fit); F16 values over
// 65504; a max_error_mm no rate up to max_search_fps meets.
Result<Vat> bake(const Asset& asset, const BakeOptions& options, BakeReport* report = nullptr);

struct VerifyOptions {
  uint32_t between_samples = 3;  // sample times between two consecutive rows
  unsigned threads = 0;
  ProgressFn progress;
};

// Decodes `vat` at its row times and between them (a clip of one row with a duration: between
// that row and the clip's end, and at the end, where it still shows its first pose) and compares with the reference
// skinner posing `source` (the asset it was baked from: clips are matched by source animation, vertices by
// Vat::geometry.sources). Fails when the two do not match (different meshes or clips).
Result<std::vector<ClipError>> measure_error(const Asset& source, const Vat& vat, const VerifyOptions& options = {});

}  // namespace vatkit
