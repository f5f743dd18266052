// vatkit/export_three_vat.h: a Vat written as three-vat's own file, a binary glTF carrying the
// THREEVAT_vat extension at format version 3, which three-vat's loadVAT reads back into the VAT
// its bakeVAT would have returned. docs/three-vat.md describes that format and every choice made
// here; the short of it:
//  - both encodings: the vertex encoding as half-float position deltas (rounded to nearest from
//    the stored values, whatever vatkit's precision) and octahedral RG8 normals; the rig as float32
//    slots (exact with respect to vatkit's own decode) with a hierarchy row;
//  - frame rows keep vatkit's times, each band laid out for the clip's default loop mode
//    (ThreeVatBand): a repeating band leaves out its end row (three-vat's wraps into its first
//    row), a once or ping-pong band keeps every row at the rate that puts them at vatkit's times;
//  - refused, with one line naming vat.source and the reason: levels of detail, more than four
//    influences per vertex, a texture past 16384 texels on a side, a delta past half float's 65504.
// Cost: O(frame rows x vertices) (every written row is decoded once for its bounds); allocates
// the file. Threads: reads the Vat only; any number of calls may run at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

// The texture ceiling three-vat lays its textures out for (its MAX_TEXTURE_SIZE default).
inline constexpr uint32_t kThreeVatMaxTextureSize = 16384;

struct ThreeVatOptions {
  // The source's node hierarchy (Asset::nodes[i].parent, -1 for a root), indexed like
  // VatSlot::node, for the rig texture's hierarchy row. Empty when unknown (a .vat.glb does not
  // record it): every slot is then written as the top of its own chain.
  std::vector<int32_t> node_parents;
};

// How a clip's band is laid out (docs/three-vat.md, "Frame rows"). three-vat plays a repeating or
// once band wrapping (its last frame blends into its first; frame k at k * frames / fps / frames)
// and a ping-pong band, or a finished one, without wrapping (frames - 1 intervals).
enum class ThreeVatBand : uint8_t {
  // Repeat: the end row is left out, frames = rows - 1 at (rows - 1) / D, so every row keeps its
  // time; over each loop's last interval three-vat blends into the first row (ThreeVatClipReport::
  // loop_seam), and a finite count ends held on the row before the end (end_step).
  Repeat,
  // Once (or repeat once): every row, at (rows - 1) / D: exact over [0, D] and once finished,
  // while for one row's time after D three-vat blends the end row toward the first.
  Once,
  // Ping-pong: every row, at rows / D: exact.
  PingPong,
};

struct ThreeVatClipReport {
  std::string name;
  ThreeVatBand band = ThreeVatBand::Repeat;
  uint32_t rows = 0;    // vatkit's rows of the band
  uint32_t frames = 0;  // written frames: rows - 1 for ThreeVatBand::Repeat
  float fps = 0.0f;     // as written
  // The largest distance of a vertex (file units, as vatkit decodes the rows) between the band's
  // first and end rows, and between its last two rows.
  float loop_seam = 0.0f;
  float end_step = 0.0f;
};

struct ThreeVatReport {
  Encoding encoding = Encoding::Delta;
  uint32_t vertex_count = 0;
  uint32_t slot_count = 0;    // rig
  uint32_t total_frames = 0;  // frame rows written
  uint32_t rows_per_frame = 1;
  uint32_t width = 0, height = 0;  // of the position layer (delta) or the rig texture
  bool normals = false;            // delta: whether a normal layer was written
  // The largest change the conversion made: a position delta component (file units; 0 where
  // vatkit's texels were already half floats or the rig is copied), and the angle between a
  // stored normal and its octahedral byte pair, in degrees (delta).
  float position_rounding = 0.0f;
  float normal_degrees = 0.0f;
  bool hierarchy = false;  // rig: whether the slots' parents came from ThreeVatOptions::node_parents
  std::vector<ThreeVatClipReport> clips;
  std::vector<std::string> notes;  // what vatkit holds that the file does not, one line each
};

// The file's bytes (deterministic). Errors (one line, naming vat.source): the refusals above.
Result<std::vector<uint8_t>> write_three_vat(const Vat& vat, const ThreeVatOptions& options = {},
                                             ThreeVatReport* report = nullptr);

}  // namespace vatkit
