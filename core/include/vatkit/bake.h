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
// Threads: work is split over frames and vertices; the output bytes do not depend on the thread
// count.
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

struct BakeOptions {
  EncodingChoice encoding = EncodingChoice::Auto;
  Precision precision = Precision::F32;
  float fps = 30.0f;            // nominal frame rate (ignored when max_error_mm > 0)
  float max_error_mm = 0.0f;    // > 0: for each clip, the lowest rate whose interpolated decode
                                // stays within this budget, between rows and on them
  float auto_budget_mm = 1.0f;  // Auto picks Rig when its max error is within this budget (or
                                // within max_error_mm when that is set)
  std::vector<std::string> clips;  // clip names or "#index"; empty = every clip
  bool normals = true;             // Delta: bake the Normal plane
  bool tangents = true;            // bake tangents where the source has them
  uint32_t max_texture_size = 16384;
  unsigned threads = 0;            // 0 = every hardware thread
  // Playback defaults per clip name (clips not named get ClipDefaults{}).
  std::vector<std::pair<std::string, ClipDefaults>> clip_defaults;
  ProgressFn progress;
};

// Error of one clip of a Vat against the reference skinner.
struct ClipError {
  std::string clip;
  uint32_t rows = 0;
  float fps = 0.0f;
  float on_rows_max_mm = 0.0f, on_rows_p99_mm = 0.0f;          // at the row times
  float between_rows_max_mm = 0.0f, between_rows_p99_mm = 0.0f;  // at times between rows
  float normal_max_deg = 0.0f;                                   // worst normal direction error
};

struct BakeReport {
  Encoding encoding = Encoding::Delta;
  std::string encoding_reason;  // why Auto chose what it chose (or "requested")
  std::vector<ClipError> clips;
  double seconds = 0.0;         // wall time of the bake, measurement included
};

Result<Vat> bake(const Asset& asset, const BakeOptions& options, BakeReport* report = nullptr);

struct VerifyOptions {
  uint32_t between_samples = 3;  // sample times between two consecutive rows
  unsigned threads = 0;
  ProgressFn progress;
};

// Decodes `vat` at its row times and between them and compares with the reference skinner posing
// `source` (the asset it was baked from: clips are matched by source animation, vertices by
// Vat::geometry.sources). Fails when the two do not match (different meshes or clips).
Result<std::vector<ClipError>> measure_error(const Asset& source, const Vat& vat,
                                             const VerifyOptions& options = {});

}  // namespace vatkit
