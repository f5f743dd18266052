// vatkit/lod.h: levels of detail, made at bake time and stored in the .vat.glb (docs/lod.md).
//
// A level is a simplified index buffer over the SAME merged vertices as the full mesh: the
// simplifier only removes triangles and reuses original vertices (half-edge collapses), so every
// level reads the same VAT columns (texels) and a renderer switches levels by switching index
// ranges. Levels target 1/2, 1/4, 1/8... of the full mesh's triangles, each continuing from the
// previous one. The simplifier weighs every collapse in the rest pose AND in poses of every clip
// (a quadric per pose: a ring that a bending knee needs stays; meshoptimizer's simplifier sees the
// rest pose only, and its levels can be far worse in motion than at rest; docs/lod.md). Seams are kept until that
// stalls, then released (a faceted mesh: LodLevelReport::welded); past the simplifier's error cap
// (LodOptions::max_relative_error), meshoptimizer's sloppy simplifier makes the far levels (LodLevelReport::sloppy);
// the list stops when a level cannot remove a tenth of the previous one's triangles. docs/lod.md has the measured
// levels of the sample assets.
//
// What the recorded errors are. For two triangle meshes A and B posed with the same vertex
// positions, vatkit bounds the two-sided (Hausdorff) distance
//     H(A, B) = max( sup_{p in A} dist(p, B), sup_{q in B} dist(q, A) )
// from above, over the whole continuous surfaces, not just at sample points:
//  - every triangle of one surface is cut into pieces (longest-edge halving to about 2.5 times
//    the full mesh's mean edge; a triangle that the other surface also has exactly is skipped:
//    its distance is 0 in every pose);
//  - each piece gets candidate triangles of the other surface, found at rest in its own connected
//    part (seams welded) when that part has any: the three nearest to the whole piece and the
//    nearest to each corner; a piece whose bound at rest is well above its corners' distances (it
//    straddles a fold of the other surface) is split in four once, each child with candidates of
//    its own and its parent's;
//  - in a pose, a piece's bound is min over its candidates T of max over its three corners of
//    dist(corner, T). Because the distance to one triangle is a convex function, every point of
//    the piece is within that of T, hence within it of the other surface: a true upper bound;
//  - the pieces within 80% of the worst are split in four, twice, which tightens the bound where
//    it decides the maximum (a piece straddling two triangles of a curved surface).
// LodLevel::error is that bound at the rest pose (VatGeometry::positions); error_in_motion is
// the largest over the rest pose and the decoded poses (decode_vertices, the GPU's arithmetic)
// at up to LodOptions::poses_per_clip frame rows of every clip, evenly spaced, first and last
// included (every row of a shorter clip). A rest-pose simplification can be worse in an extreme
// pose (a collapsed vertex cutting the corner of a bent elbow): the renderer budgets with
// error_in_motion. Poses between rows are not measured. Both are made non-decreasing over the
// levels (a coarser level's budget is at least the finer one's).
//
// Switching: an instance whose bounding sphere (Vat::bounds, radius R = |max - min| / 2, times
// the instance's scale) projects to a diameter of D pixels sees level L's error as at most
// error_in_motion * D / (2 R) pixels. Level L is acceptable for a budget of N pixels when
//     D <= N * screen_size,   screen_size = 2 R / error_in_motion
// and a renderer draws the coarsest acceptable level (select_lod), else the full mesh. With a
// perspective camera of vertical field of view fovy over H pixels, an instance at distance d
// has D = 2 R * H / (2 d tan(fovy / 2)).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

struct LodOptions {
  uint32_t levels = 3;  // at most this many levels beyond the full mesh; 0 = none
  // The simplifier's error cap (its estimate, simplifier_error below), relative to the mesh's
  // extent (meshopt_simplifyScale): a level stops short of its triangle target rather than
  // exceed it.
  float max_relative_error = 0.05f;
  // Frame rows measured per clip (see above): at most poses_per_clip, and at most
  // max(3, max_poses / clips) so that a file of many clips stays quick to bake.
  uint32_t poses_per_clip = 8;
  uint32_t max_poses = 24;
  unsigned threads = 0;  // 0 = every hardware thread; the result does not depend on it
  // Measure in each pose only the pieces whose cheap upper bound could decide a level's errors
  // (docs/lod.md, "Cost"); false measures every piece in every pose. The errors are the same to
  // the bit either way (Lod.PrunedBoundsEqualTheExhaustiveOnes); false is for that test.
  bool prune_bound = true;
  // Reorder the full mesh's triangles for the vertex cache (below). bake() orders them itself,
  // on a pool worker while it makes the frame rows, and passes false.
  bool order_full_mesh = true;
  // The simplifier's poses (besides the rest pose): halfway between consecutive measured rows of
  // every clip, so that what is measured is not what was optimized.
  // Where the simplifier takes its poses: the positions of the VAT's vertices (merged order) in
  // clip `clip` at `time_s` on its glTF timeline. bake() passes the reference skinner, so that
  // every encoding and precision of one asset gets the same levels; when empty, the VAT's own
  // decode (decode_vertices). The budgets are always measured in the VAT's decoded poses.
  std::function<void(uint32_t clip, float time_s, std::span<glm::vec3> positions)> pose_source;
  // Called from the calling thread with the completed fraction in [0, 1], a few dozen times: after
  // each level is simplified, each of its two sides has its candidates, and each pose the calling
  // thread measures (the work is weighted by what each step took on the sample character). bake()
  // forwards it as its stage "levels".
  std::function<void(float fraction)> progress;
};

struct LodLevelReport {
  uint32_t target_triangles = 0;               // what the simplifier was asked for
  uint32_t triangles = 0;                      // what it made
  float simplifier_error = 0.0f;               // the simplifier's own estimate, in object units (the largest
                                               // over its collapses and poses of the RMS distance to the planes
                                               // a vertex accumulated; 0 for a sloppy level): a quadric-based
                                               // estimate, not a bound; LodLevel::error is the measured bound
  float error = 0.0f, error_in_motion = 0.0f;  // as stored (LodLevel)
  // Keeping every seam stalled short of the target (a faceted mesh, each corner a seam), so this
  // level was made with seams released: a corner with no copy of its collapse target along the
  // edge takes the target's vertex, in the same draw group, whose normal is nearest the
  // triangle's.
  bool welded = false;
  // The simplifier above stalled short of the target (it stays within max_relative_error), so
  // this level was made by meshopt_simplifySloppy from the stalled level: vertices clustered on a
  // grid, one original vertex kept per cell (the level still reads the same VAT columns).
  // Its error is large and measured like any other; it is drawn only for instances a few pixels
  // tall.
  bool sloppy = false;
};

struct LodReport {
  uint32_t full_triangles = 0;
  uint32_t poses = 0;  // decoded poses measured (the rest pose not counted)
  float scale = 0.0f;  // meshopt_simplifyScale of the rest positions
  // The pieces each level's error was bounded over (both directions, every level): triangles cut
  // about as long as the full mesh's mean triangle, at most 8 per full triangle per level and
  // direction (longer where long thin triangles would make more).
  uint64_t pieces = 0;
  std::vector<LodLevelReport> levels;
  double seconds = 0.0;
};

// Replaces vat.geometry.lods with new levels (none when options.levels is 0 or the mesh cannot be
// reduced) and, unless options.order_full_mesh is false, reorders the full mesh's triangles
// within each draw group for the vertex cache (meshopt_optimizeVertexCache, where the groups tile
// the index buffer, as the baker lays them out; vertices are never reordered: the VAT columns are
// indexed by them). Needs a valid Vat (validate_vat) whose planes decode. Errors name vat.source.
// Cost: the most expensive step of a default bake: simplification and the bound over every level,
// pose and piece, on the shared pool (options.threads); blocks; allocates the levels.
Result<LodReport> build_lods(Vat& vat, const LodOptions& options = {});

// The radius of the sphere around Vat::bounds: |bounds.max - bounds.min| / 2.
float lod_sphere_radius(const Vat& vat);

// The screen size of a level with this error: 2 * radius / error_in_motion (FLT_MAX when the
// error is 0).
float lod_screen_size(float radius, float error_in_motion);

// The level to draw for an instance whose bounding sphere projects to `diameter_px` pixels: the
// coarsest level L (1-based into geometry.lods) with diameter_px <= max_error_px * screen_size,
// or 0 (the full mesh) when none is. O(levels), no allocation, thread-safe (as lod_sphere_radius
// and lod_screen_size).
uint32_t select_lod(const Vat& vat, float diameter_px, float max_error_px = 1.0f);

}  // namespace vatkit
