// Internal pieces shared by the baker (bake*.cpp) and the error measurement (measure.cpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vatkit/bake.h"
#include "vatkit/feet.h"
#include "vatkit/decode.h"
#include "platform/memory.h"
#include "simd/v4.h"

namespace vatkit::detail {

// A free list of per-thread workspaces (an evaluator and its buffers): a parallel range takes
// one, works, and gives it back. What a workspace computes never depends on which one it is, so
// the output does not depend on the thread count.
template <class T>
class WorkspacePool {
 public:
  explicit WorkspacePool(std::function<std::unique_ptr<T>()> make) : make_(std::move(make)) {}

  class Lease {
   public:
    Lease(WorkspacePool& pool, std::unique_ptr<T> item) : pool_(pool), item_(std::move(item)) {}
    ~Lease() { pool_.give_back(std::move(item_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    T& operator*() { return *item_; }
    T* operator->() { return item_.get(); }

   private:
    WorkspacePool& pool_;
    std::unique_ptr<T> item_;
  };

  Lease take() {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<T> item = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(item));
      }
    }
    return Lease(*this, make_());
  }

  // Every workspace made so far (call only while no range runs).
  template <class F>
  void for_each(F&& f) {
    std::lock_guard lock(mutex_);
    for (auto& item : free_) f(*item);
  }

 private:
  void give_back(std::unique_ptr<T> item) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(item));
  }

  std::function<std::unique_ptr<T>()> make_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> free_;
};

// measure.cpp: measure_error with the knobs the baker needs.
struct MeasureRequest {
  uint32_t between_samples = 3;
  bool on_rows = true;
  unsigned threads = 0;
  // > 0: a clip stops at the first sample whose error exceeds this many mm (the fps search only
  // needs to know that a rate fails); its ClipMeasure says `exceeded`.
  float abort_above_mm = 0.0f;
  bool positions_only = false;  // leave the normals out (the search's verdicts are positions')
  std::vector<uint32_t> clips;  // indices into Vat::clips; empty = every clip
  ProgressFn progress;
  std::string progress_stage = "measure";
};

struct ClipMeasure {
  ClipError error;
  bool exceeded = false;  // stopped early by abort_above_mm
  float max_mm() const { return std::max(error.on_rows_max_mm, error.between_rows_max_mm); }
};

// The reference skinner's positions of the VAT's vertices (merged order) in clip `clip` at
// `time_s` (LodOptions::pose_source); vertices no source primitive maps to keep their rest
// positions. Not thread-safe: one evaluator.
// The index buffer reordered for the vertex cache group by group (meshopt_optimizeVertexCache),
// where the groups tile it; empty otherwise (build_lods leaves such a buffer alone).
std::vector<uint32_t> vertex_cache_order(const std::vector<uint32_t>& indices, const std::vector<DrawGroup>& groups,
                                         size_t vertex_count);

// Squared distances from p[i] to the solid triangle (a[i], b[i], c[i]) for every i, eight or four
// pairs at a time (simd.h; the same bits either way): the levels of detail's bound (lod/lod.cpp).
// A degenerate triangle is its edges. All spans have the length of `out`.
void dist2_point_triangles(std::span<const glm::vec3> p, std::span<const glm::vec3> a, std::span<const glm::vec3> b,
                           std::span<const glm::vec3> c, std::span<float> out);
// The same for one pair, one region test at a time (the branchy form the lanes transcribe).
float dist2_point_triangle(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b, const glm::vec3& c);

Result<std::function<void(uint32_t clip, float time_s, std::span<glm::vec3> positions)>> reference_poser(
    const Asset& source, const Vat& vat);

Result<std::vector<ClipMeasure>> measure_clips(const Asset& source, const Vat& vat, const MeasureRequest& request);

// measure_subset.cpp: a few of a VAT's vertices (those of `geometry`'s sources) that stand for all of them in the
// frame-rate search's tries: for each joint the vertices it moves most that lie furthest along the axes and diagonals,
// its most blended vertex, each morph target's furthest vertex, and about `spread` vertices evenly over the rest (every
// vertex when `spread` is at least their number). measure_clips(subset.asset, subset_vat(vat, subset)) gives each kept
// vertex the error the whole measurement gives it, so its max is a lower bound of the whole's. Nullopt where the VAT's
// sources do not match the asset's primitives (measure_clips says why).
struct VertexSubset {
  Asset asset;                              // the source, each measured primitive cut to its kept vertices
  std::vector<std::vector<uint32_t>> kept;  // per Vat source range: the vertices kept, ascending
  uint32_t count = 0;                       // vertices kept
  uint32_t whole = 0;                       // vertices of the VAT's sources
};
std::optional<VertexSubset> choose_vertex_subset(const Asset& source, const VatGeometry& geometry, uint32_t spread);
// The VAT with only the subset's vertices (its per-vertex planes copied, one frame row each).
Vat subset_vat(const Vat& vat, const VertexSubset& subset);

// ---- the bake ----------------------------------------------------------------------------------

// One clip to bake: which animation, how many rows.
struct ClipPlan {
  int animation = 0;
  std::string name;
  float duration_s = 0.0f;
  uint32_t rows = 1;
  ClipDefaults defaults;
  bool defaults_given = false;    // BakeOptions::clip_defaults named the clip (or "*")
  std::vector<ClipEvent> events;  // VatClip::events: the source's, the options', the feet's, by time
};

// ---- events (events.cpp) -------------------------------------------------------------------------

// Gives each plan the source's events (unless options.source_events is false) and the options'
// events; errors name an unknown clip or a time outside the clip. Sorted by time (stable).
Result<void> plan_events(const Asset& asset, const BakeOptions& options, std::vector<ClipPlan>& plans);
// Adds the foot contacts (options.feet) to every plan, and a note naming the feet chosen; `size`
// is the asset's (MotionFacts::size).
Result<void> plan_foot_events(const Asset& asset, const BakeOptions& options, float size, std::vector<ClipPlan>& plans,
                              std::vector<std::string>& notes);

// The skin joints (every skin's, sorted, once each), a node's depth (0 for a root), a joint name's
// words ("mixamorig:LeftFoot" -> mixamorig, left, foot), and the joint of that name (an error
// naming `option` and listing the joints otherwise).
std::vector<uint32_t> skin_joints(const Asset& asset);
int joint_depth(const Asset& asset, uint32_t node);
std::vector<std::string> joint_words(const std::string& name);
Result<int> joint_named(const Asset& asset, const std::vector<uint32_t>& joints, const std::string& name,
                        const char* option);

// ---- root motion (root_motion.cpp) -------------------------------------------------------------

// What each clip's root motion comes from (BakeOptions::root_motion, resolved).
struct RootChoice {
  int animation = 0;
  RootMotionSource source = RootMotionSource::Joint;
  int node = -1;  // the joint (Joint)
};
struct RootMotionPlan {
  std::vector<RootChoice> clips;
  bool vertical = false;
  FootJoints feet;           // for the Feet clips
  float size = 0.0f;         // the asset's (MotionFacts::size)
  int correction_node = -1;  // the node without_root_motion adds (-1: none added)
};
// Resolves the options: the clips, the joint (named, or found: "auto"), joint or feet; one note
// per clip saying what was chosen and why. Errors: an unknown clip or joint, no feet for "feet".
Result<RootMotionPlan> plan_root_motion(const Asset& asset, const BakeOptions& options,
                                        std::vector<std::string>& notes);
// The asset with every Joint clip's root motion taken out: a new root node above every parentless
// node, animated in those clips by the inverse of the root's motion (keyed at kFootSampleRate,
// linear), so that every bake path (delta, rig, measure, seams, feet) poses it in place.
Asset without_root_motion(const Asset& asset, RootMotionPlan& plan);
// The asset as `vat` was baked from `source`: without the joint's motion of every clip that
// stores one (VatClip::root_motion, source Joint, its node; the height where the clips say so: one
// bake takes it out of every such clip or none); nothing when
// no clip does (or a clip names a node or animation `source` does not have).
std::optional<Asset> as_baked(const Asset& source, const Vat& vat);
// Stores each planned clip's track in `vat` (VatClip::root_motion), at the clip's row times.
void attach_root_motion(const Asset& in_place, const RootMotionPlan& plan, Vat& vat);

// ---- what the motion decides (motion.cpp) -------------------------------------------------------

// A clip loops by default when its seam (the largest distance of a vertex between the clip's
// first and last pose, less their mean displacement, in scene units) is at most this fraction of
// the asset's size (the largest extent of its rest pose). On the shared assets the cycles' seams
// are 0 to 5.9% of the size (a gallop) and the one-shot clips' 8.3% (a shark's death) to 80%:
// docs/encodings.md has the table.
inline constexpr float kLoopSeamFraction = 0.07f;
// The sizes note_size finds plausible for a character, in metres.
inline constexpr double kMaxPlausibleMetres = 20.0;
inline constexpr double kMinPlausibleMetres = 0.02;

struct MotionFacts {
  float size = 0.0f;         // largest extent of the rest pose's vertices, scene units
  std::vector<float> seams;  // per plan, scene units
};

// Poses the rest and each plan's first and last instants with the reference skinner.
MotionFacts measure_motion(const Asset& asset, const std::vector<ClipPlan>& plans, unsigned threads);
bool seam_closes(float seam, float size);
// Plans whose defaults were not given: Once (clamp) when the seam does not close, with a note
// saying so; Repeat (ClipDefaults{}) otherwise.
void decide_loops(std::vector<ClipPlan>& plans, const MotionFacts& facts, float metres_per_unit,
                  std::vector<std::string>& notes);
// A note when `size` (scene units) is implausible for a character at `metres_per_unit`: over
// 20 m or under 2 cm, naming the size and the --units that would make it plausible.
void note_size(float size, float metres_per_unit, std::vector<std::string>& notes);

// round(duration_s * fps) + 1 frame rows (1 for a clip without duration), saturating at
// kRowsSaturated, more than any texture holds, so that a sum over fewer than 2^24 clips cannot wrap.
inline constexpr uint64_t kRowsSaturated = uint64_t(1) << 40;
uint64_t rows_at_fps(float duration_s, double fps);

// The time of row k of a band of `rows` rows over [0, duration]: k * duration / (rows - 1).
inline float row_time(const ClipPlan& c, uint32_t k) {
  return c.rows > 1 ? float(double(k) * double(c.duration_s) / double(c.rows - 1)) : 0.0f;
}

// What every bake of one asset shares, built once: the merged rest geometry, the rig's slots and
// bind geometry (when the rig is possible at all), the delta's socket slots.
struct BakeSetup {
  const Asset* asset = nullptr;
  const BakeOptions* options = nullptr;
  unsigned threads = 1;
  std::string name;  // asset.source, for messages

  VatGeometry rest;                   // positions, normals, tangents, texcoords0, colors0, indices, groups, sources
  std::vector<glm::mat4> rest_world;  // every node's world matrix at the rest pose
  bool tangents = false;              // a Tangent plane is baked

  // Delta: one slot per distinct skin joint (world(joint), identity inverse bind).
  std::vector<VatSlot> joint_slots;

  // Rig (made by prepare_rig, only when a rig is baked or a delta error suggests one; valid when
  // rig_error is empty).
  bool rig_prepared = false;
  std::string rig_error;  // why the rig cannot be built at all (bind-time problems)
  std::vector<VatSlot> rig_slots;
  std::vector<bool> slot_is_joint;  // false: a rigid part's node
  std::string folded_from;          // the clip and time the folded morph weights come from
  VatGeometry rig_geometry;         // rest + bind_* + slots/weights
  struct SlotBox {
    glm::vec3 center{0.0f}, extent{0.0f};  // bind-space box of the slot's vertices
    float morph_shift = 0.0f;              // largest |bind (folded) - rest morph| of those vertices
    bool used = false;
  };
  std::vector<SlotBox> slot_boxes;
  struct MorphWatch {
    uint32_t node = 0, mesh = 0;
    std::vector<float> folded;       // the weights folded into the bind geometry
    std::vector<float> target_size;  // per target: largest |delta| it moves a vertex (file units)
  };
  std::vector<MorphWatch> morphs;             // morphed instances' nodes (one entry per node)
  std::vector<glm::mat4> rest_slot_matrices;  // rig slots at the rest pose (for max_delta)
  std::vector<std::string> notes;
};

// Frame rows per plane and the texture shape (vat.h, "Texel addressing").
struct PlaneShape {
  uint32_t width = 0, rows_per_frame = 1;
};
PlaneShape plane_shape(uint32_t texels_per_frame, uint32_t max_texture_size);

// Allocates the planes of a Vat for `frame_rows` rows and points vat.planes at them.
struct PlaneSpec {
  PlaneSemantic semantic;
  TexelFormat format;
  uint32_t texels_per_frame;
};
void allocate_planes(Vat& vat, const std::vector<PlaneSpec>& specs, uint32_t max_texture_size);
inline uint8_t* plane_bytes(Vat& vat, size_t i) { return const_cast<uint8_t*>(vat.planes[i].data.data()); }

// Slot transforms of one or more clips' frame rows, as the Slots plane lays them out: per row,
// per slot, the rotation (x, y, z, w) then translation xyz and scale w, 8 floats. For an RGBA32F
// plane the stage is a view of the plane's own rows (the bake writes in place); otherwise it owns
// f32 memory that write_slot_rows encodes into the plane. Either way write_slot_rows applies the
// hemisphere rule along each slot's rows and computes the clip's Q16 ranges.
struct SlotStage {
  uint32_t slots = 0;
  size_t stride = 0;      // floats from one row to the next
  float* data = nullptr;  // row 0, slot 0's rotation
  bool in_plane = false;  // a view of an RGBA32F plane's rows

  SlotStage() = default;
  SlotStage(const SlotStage&) = delete;
  SlotStage& operator=(const SlotStage&) = delete;
  ~SlotStage() { free_big(owned_); }

  float* row(size_t r) { return data + r * stride; }
  glm::quat& q(size_t r, uint32_t slot) { return *reinterpret_cast<glm::quat*>(row(r) + 8 * size_t(slot)); }
  glm::vec4& ts(size_t r, uint32_t slot) { return *reinterpret_cast<glm::vec4*>(row(r) + 8 * size_t(slot) + 4); }

  // Owned rows, uninitialized (the bakes write every element before it is read), from
  // allocate_big (fresh pages cost a fault each, a large share of a small rig bake).
  void own(uint32_t slot_count, uint32_t row_count) {
    slots = slot_count;
    stride = 8 * size_t(slots);
    in_plane = false;
    const size_t n = stride * row_count;
    if (n > capacity_) {
      free_big(owned_);
      owned_ = static_cast<float*>(allocate_big(n * sizeof(float)));
      capacity_ = n;
    }
    data = owned_;
  }
  // The rows of an RGBA32F Slots plane from first_row on.
  void view(Vat& vat, size_t plane_index, uint32_t first_row) {
    const Plane& p = vat.planes[plane_index];
    slots = p.texels_per_frame / 2;
    stride = 4 * size_t(p.rows_per_frame) * p.width;
    in_plane = true;
    data = reinterpret_cast<float*>(plane_bytes(vat, plane_index)) + first_row * stride;
  }

 private:
  float* owned_ = nullptr;
  size_t capacity_ = 0;
};
Result<void> write_slot_rows(SlotStage& stage, uint32_t stage_row, Vat& vat, size_t plane_index, VatClip& clip,
                             const std::string& name);

// Progress over the whole bake (rows baked), reported from the calling thread.
struct Progress {
  const ProgressFn* fn = nullptr;
  std::string stage;
  size_t total = 1, done = 0;
  double frame_seconds = 0.0;  // time in the frame-row loops (bake_delta, bake_rig add to it)
  void advance(size_t n) {
    done += n;
    if (fn && *fn) (*fn)(stage, float(std::min(done, total)) / float(std::max<size_t>(total, 1)));
  }
};

Result<BakeSetup> prepare_bake(const Asset& asset, const BakeOptions& options);
// Builds the rig part of a setup (slots, bind geometry, folded morphs) once; sets rig_error when
// the asset cannot be a rig whatever the clips do. A delta bake does not need it (the bind geometry
// and slot boxes are a noticeable share of a rig bake).
void prepare_rig(BakeSetup& setup, const std::vector<ClipPlan>& clips);

// `take_geometry`: the setup's geometry is not needed after this bake (it is the last), so the VAT
// takes its arrays instead of a copy (a copy into fresh memory pays a page fault per page, a large
// share of a one-shot bake). Search bakes copy.
Result<Vat> bake_delta(BakeSetup& setup, const std::vector<ClipPlan>& clips, Progress& progress, bool take_geometry);
// measure_subset.cpp: the delta bake's setup for only the subset's vertices (`subset` and `whole`
// must outlive it): at f32 and f16, where each vertex's texels depend on that vertex alone, its
// bake holds the texels the whole bake gives those vertices, measured against subset.asset.
BakeSetup subset_setup(const BakeSetup& whole, const VertexSubset& subset);
Result<Vat> bake_rig(BakeSetup& setup, const std::vector<ClipPlan>& clips, Progress& progress, bool take_geometry);

// Every array of `from` moved out, except the index buffer and draw groups, copied: what the
// full mesh's vertex-cache ordering (bake.cpp) may still be reading.
VatGeometry take_vertices(VatGeometry& from);

// A VAT with everything but its planes and the clips' bounds and maxDelta: the encoding, the
// precision, the geometry and slots given, the asset's materials and images, and the clip table
// (first rows, rows, fps and playback defaults of `clips`, in order).
Vat start_vat(const BakeSetup& setup, Encoding encoding, VatGeometry geometry, std::vector<VatSlot> slots,
              const std::vector<ClipPlan>& clips);

// The VAT's bounds (the union of its clips'), and the time since `frames_start` added to the
// progress's frame seconds: the end of both encodings' bakes.
void finish_vat(Vat& vat, Progress& progress, std::chrono::steady_clock::time_point frames_start);

// Texture limits: an error saying what would fit when `clips` do not (for a delta bake, with the
// rig's size when the asset can be a rig: prepares the rig to know).
Result<void> check_fits(BakeSetup& setup, Encoding encoding, const std::vector<ClipPlan>& clips);

}  // namespace vatkit::detail
