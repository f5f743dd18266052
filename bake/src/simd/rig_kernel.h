// The rig bake's frame loop, a block of frame rows at a time: each SIMD lane is one row (simd.h: 16
// lanes where the CPU has AVX-512, 8 where it has AVX2, else 4; 1, the scalar twin, when forced). Sampling (LINEAR,
// STEP, CUBICSPLINE; the spec's slerp), local and world matrices of the nodes the slots need, slot matrices, their
// decomposition into rotation, translation and uniform scale, the similarity check, and the conservative bounds, all
// lane-parallel. Lanes never mix and every width runs the same operations, so a row's bytes do
// not depend on which lane, block or width computed it (or on the thread count).
#pragma once

#include <cstdint>
#include <vector>

#include "encode/bake_internal.h"

namespace vatkit::detail {

struct RigRowResult {
  glm::vec3 bmin{0.0f}, bmax{0.0f};
  bool any_box = false;
  float max_delta = 0.0f;
  float scale_violation = 0.0f;  // largest (non-uniformity or shear) over the tolerance; 0: none
  uint32_t scale_slot = 0;
};

class RigKernel {
 public:
  explicit RigKernel(const BakeSetup& setup);
  ~RigKernel();
  RigKernel(const RigKernel&) = delete;
  RigKernel& operator=(const RigKernel&) = delete;

  // Adds a clip the blocks can sample; returns its index for run_block. Channels that share a
  // times array (most exporters key all of a clip's channels at the same times) share one key
  // location per block.
  uint32_t add_clip(const Animation& anim, const ClipPlan& plan);

  struct Scratch;
  Scratch* make_scratch() const;
  static void free_scratch(Scratch*);

  // Frame rows of a block with `rows_left` rows of its clip from its first: the lane count of the
  // widest code the CPU runs, or of a narrower one (8, 4) where that still covers the rows left,
  // so a clip's last block does not compute lanes it throws away (Fox's three clips: 164 lanes
  // for 162 rows instead of 192). Every width gives the same bits.
  unsigned block_rows(uint32_t rows_left) const;

  // Rows [k0, k0 + rows) of clip `clip`, rows = block_rows(rows left) (lanes past its last row repeat
  // it and are not written): stage.q(stage_row + k, s), stage.ts(stage_row + k, s) and results[k].
  // Blocks of any clips may run concurrently on different scratches.
  void run_block(uint32_t clip, uint32_t k0, unsigned rows, Scratch& scratch, SlotStage& stage, uint32_t stage_row,
                 RigRowResult* results, float tolerance) const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace vatkit::detail
