// vatkit/playback.h: what every instance of a crowd shows at a given time, defined once.
//
// An Instance says which clip band an instance plays, when it started, and how (speed, loop
// mode, repetitions, end mode), optionally a second band (a steady two-clip blend, or the
// outgoing band of a cross-fade). compile() turns it into a Playback: two fully resolved Tracks
// and a weight ramp, which is exactly what the GPU reads (instance_table.h packs it into six
// RGBA32F texels). resolve(playback, time) -> PlaybackSample is the one definition of playback: a pure
// function of float32 values, written so that every line has a GLSL twin (no division, no
// transcendental, no accumulated state). The GPU decode transcribes it; the CPU mirror
// (mirror.h) is resolve + decode.h.
//
// What it does NOT do: it does not advance a clock (the caller owns one shared clock, in
// seconds; a paused instance stops its own clock at Playback::hold, below), and a PlaybackSample
// holds at most two bands (a fade into a two-clip blend is refused; instance_table.h says what to
// do instead).
//
// Semantics (docs/playback.md works every case with numbers):
//  - A band of `rows` rows at `fps` lasts D = (rows - 1) / fps seconds: both ends are rows (vat.h:
//    rows = round(duration * fps) + 1). Phase p in [0, 1] is the row position x = p * (rows - 1):
//    row = first_row + floor(x), row_next = min(row + 1, last row), mix = x - floor(x). A Repeat
//    loop therefore never interpolates across its seam: at the end of a cycle the band is on its
//    last row and the next cycle starts on its first (the same pose, for a looping clip).
//  - Elapsed cycles u = max(time - start_time, 0) * cycle_rate, cycle_rate = speed / D; cycle k =
//    floor(u) is the k-th play of the band (the k-th traversal for PingPong: odd ones run
//    backwards). Before start_time an instance holds phase 0. Speed 0 holds phase 0 for ever.
//  - Negative speed plays the band backwards: the sample at speed -s is the sample at speed s with
//    every phase mirrored, phase -> 1 - phase (end poses included). So a backwards band starts on
//    its last row (before start_time it holds it), a backwards Repeat runs last -> first and wraps
//    back to the last row, a backwards Once ends on the first row, a backwards PingPong's first
//    traversal runs last -> first; Clamp holds where the last cycle ended (the first row; for
//    PingPong with an even count, the last), Rewind holds where the play began (the last row).
//    finished, end_time, wraps and repetitions are those of speed s, unchanged. The sign lives in
//    Track::cycle_rate; the elapsed cycles use its magnitude.
//  - Pause: Playback::hold stops the instance's clock. While set, every band and the weight ramp
//    read clock = min(time, hold), so from `hold` on the instance shows exactly (bit for bit) the
//    sample it showed at `hold`. resumed() and turned_back() (below) are the other two writes.
//  - Repetitions: -1 plays for ever; n >= 1 plays n cycles, then the instance is finished and
//    holds its end pose: Clamp holds where the last cycle ended (the last row; for PingPong with
//    an even count, the first row), Rewind holds the first row. Once plays one cycle whatever the
//    repetitions say. A one-row band (D = 0) with a finite count finishes at start_time.
//  - finished flips exactly at Track::end_time, the smallest float32 time at which the float32
//    arithmetic above reaches u >= n; ends_at() returns that very number.
//  - Policy tiers: a field the instance names wins; otherwise the clip's default (ClipBand::
//    defaults, from the bake); otherwise the library's (Repeat, Clamp, speed 1, and repetitions
//    endless for Repeat, 1 for Once and PingPong, as three-vat). A count belongs to the loop mode it was
//    configured under: an instance that changes the clip's loop mode and names no count gets the
//    new mode's default count, not the clip's.
//  - Cross-fade: the outgoing band keeps playing (its own start, speed and policy) while its
//    weight falls from `fade_weight` (1 for a fresh fade) to 0 over fade_duration wall-clock
//    seconds, linearly or along smoothstep. No cap on the duration.
//  - Steady blend (Babylon Lite's setInstancesBlend): band B at weight w. Phase sync: B's phase is
//    A's phase (a walk and a run stay in step). Time sync: B shares A's start and speed and runs
//    through its own band at its own rate. Either way B plays under the instance's policy.
//  - `wraps` (three-vat interpolated across the seam and flagged it; nothing here ever does): true
//    while a Repeat band is in its second or later cycle and not finished, i.e. it has wrapped
//    from its last row back to its first at least once. Always false for Once and PingPong (a
//    ping-pong bounces) and for a finished band.
//
// Units: times in seconds on the caller's clock (float32, like the GPU's); rows are absolute frame
// rows of the Vat (clip bands included).
//
// Cost and threads: every function is O(1) (clip_band by name: O(clips)), allocates nothing but
// error messages, keeps no state, and is safe to call from any number of threads.
#pragma once

#include <cfloat>
#include <cstdint>
#include <optional>
#include <string>

#include "vatkit/result.h"
#include "vatkit/vat.h"

namespace vatkit {

// "Never" in a time field (an endless loop's end, speed 0): the largest float, which survives an
// RGBA32F texel and compares greater than every finite clock.
inline constexpr float kNever = FLT_MAX;
// Limits that keep every integer exact in float32 (the GPU sees floats): rows and repetitions up to
// 2^24; elapsed cycles are clamped there too (a rebased clock never gets near: instance_table.h).
inline constexpr uint32_t kMaxPlaybackRows = 1u << 24;
inline constexpr int32_t kMaxRepetitions = 1 << 24;
inline constexpr float kMaxCycles = 16777216.0f;  // 2^24

// Policy fields, each optional: the instance tier (Instance::policy) and the clip tier
// (ClipBand::defaults) of three-vat's defaults. Speed must be finite (negative plays backwards);
// repetitions -1 or 1..kMaxRepetitions.
struct PolicyOverrides {
  std::optional<LoopMode> loop_mode;
  std::optional<int32_t> repetitions;
  std::optional<EndMode> end_mode;
  std::optional<float> speed;
};

// A clip band (three-vat's clip: startFrame, frames, fps) and its playback defaults, which a clip
// table assembled by hand may leave empty.
struct ClipBand {
  uint32_t first_row = 0;  // absolute frame row of the band's first row
  uint32_t rows = 1;       // rows in the band, >= 1; the band is [first_row, first_row + rows)
  float fps = 0.0f;        // rows per second, (rows - 1) / duration; > 0 unless rows == 1
  PolicyOverrides defaults;
};

// The band of `vat.clips[clip]`, with every default the bake recorded. Precondition: clip <
// vat.clips.size() (a clip index from the Vat itself); pick by name with the overload below.
ClipBand clip_band(const Vat& vat, uint32_t clip);

// The band of the clip `selector` names: "#N" or a clip name (find_clip in vat.h). A name that is
// not there is an error naming vat.source and listing the clips, e.g.
//     "hero.vat.glb: no clip named \"walk\" (clips: HumanArmature|Walking, HumanArmature|Idle)".
Result<ClipBand> clip_band(const Vat& vat, const std::string& selector);

// The library's default repetition count for a loop mode, three-vat 2.1's: endless for Repeat, a
// single play for Once and PingPong (one traversal; three.js's LoopPingPong bounces for ever by
// default: name repetitions -1 for that).
int32_t default_repetitions(LoopMode mode);

// The policy after the three tiers (instance, clip, library). Does not validate.
ClipDefaults resolve_policy(const PolicyOverrides& instance, const PolicyOverrides& clip);

enum class FadeCurve : uint8_t { Linear = 0, Smooth = 1 };  // Smooth: c = p^2 (3 - 2p)
enum class BlendSync : uint8_t { Phase = 0, Time = 1 };
// What the second band of a PlaybackSample is: nothing (it repeats the primary), the outgoing band of a
// cross-fade, or band B of a two-clip blend.
enum class MixKind : uint8_t { Single = 0, Fade = 1, Blend = 2 };

// The outgoing band of a hand-made fade: one band playing under its own policy.
struct Outgoing {
  ClipBand clip;
  float start_time = 0.0f;
  PolicyOverrides policy;
};

// A steady two-clip blend: band `clip` at weight `weight`, B's phase following A's (Phase) or B
// sharing A's clock (Time). With Instance::fade_duration > 0 and `weight_from` set, the weight
// ramps from weight_from to weight over the fade (starting at fade_start).
struct Blend {
  ClipBand clip;
  float weight = 0.0f;  // [0, 1], of B
  BlendSync sync = BlendSync::Phase;
  std::optional<float> weight_from;  // [0, 1]
};

// Per-instance playback state (three-vat's VATInstance, plus blends and real fades). Only clip and
// start_time are needed; every policy field defaults through the tiers.
struct Instance {
  ClipBand clip;
  // Clock time at which the animation began; desync is a start time in the past.
  float start_time = 0.0f;
  PolicyOverrides policy;
  std::optional<Blend> blend;

  // Transition. set_instance (instance_table.h) fills the outgoing band from what the instance
  // showed at the moment of the write; set `from` only for a hand-made fade outside a table.
  float fade_duration = 0.0f;  // wall-clock seconds, >= 0; speed does not stretch it
  FadeCurve fade_curve = FadeCurve::Linear;
  std::optional<Outgoing> from;     // ignored when fade_duration == 0
  std::optional<float> fade_start;  // clock time the fade (or weight ramp) begins; default start_time
  float fade_weight = 1.0f;         // weight of `from` at fade_start, (0, 1]
};

// One band playing, fully resolved: what two texels of the packed row hold (instance_table.h).
struct Track {
  uint32_t first_row = 0;
  uint32_t rows = 1;
  LoopMode loop_mode = LoopMode::Repeat;
  float end_phase = 1.0f;  // phase held once finished: 0 or 1
  float start_time = 0.0f;
  float cycle_rate = 0.0f;                     // cycles per second, speed * fps / (rows - 1) rounded once; 0 = holds,
                                               // < 0 plays backwards (the phase mirrored)
  float end_time = kNever;                     // clock time `finished` becomes true; kNever for never
  int32_t repetitions = kInfiniteRepetitions;  // cycles before finishing (1 for Once), -1 endless

  friend bool operator==(const Track&, const Track&) = default;
};

// What the GPU reads for one instance: the primary track (the instance's own clip), the second
// track (outgoing band or blend B; a copy of the primary for Single) and the second band's weight
// w(t) = w_from (1 - c) + w_to c, c = curve(clamp((t - ramp_start) * ramp_rate, 0, 1)).
struct Playback {
  Track primary;
  Track second;
  float weight_from = 0.0f;
  float weight_to = 0.0f;
  float ramp_start = 0.0f;
  float ramp_rate = 0.0f;  // 1 / duration; 0 = the weight stays weight_from
  MixKind kind = MixKind::Single;
  FadeCurve curve = FadeCurve::Linear;
  // Paused: the instance's clock stops at this time (both bands and the weight ramp read
  // min(time, *hold)); nothing = playing.
  std::optional<float> hold;

  friend bool operator==(const Playback&, const Playback&) = default;
};

// One band at one time (three-vat's VATFrame fields).
struct BandSample {
  uint32_t row = 0;       // absolute frame row to sample
  uint32_t row_next = 0;  // the row it blends toward, in the same band (never across the seam)
  float mix = 0.0f;       // [0, 1): weight of row_next
  float phase = 0.0f;     // [0, 1]: how far through the band; row/row_next/mix derive from it
  bool wraps = false;     // a Repeat band past its first cycle, not finished (see above)
  bool finished = false;  // the repetitions ran out; the band holds its end pose

  friend bool operator==(const BandSample&, const BandSample&) = default;
};

// What an instance shows: the primary band a, the second band b at weight `weight`. Maps onto
// decode.h's PoseBlend (mirror.h: pose_blend). Once a fade's outgoing band has reached weight 0 it
// is gone: kind reads Single and b repeats a (three-vat's fadeRow == row when not fading), so a
// reader that ignores the weight never points at a row nobody samples. A Blend keeps reporting B,
// whatever its weight.
struct PlaybackSample {
  BandSample a;
  BandSample b;
  float weight = 0.0f;  // of b, [0, 1]
  MixKind kind = MixKind::Single;

  friend bool operator==(const PlaybackSample&, const PlaybackSample&) = default;
};

// Checks an instance and resolves its tiers. Errors (one line): a band with no rows, fps not
// finite and > 0 for a band of more than one row, a band past row 2^24, a non-finite time, a
// non-finite speed, repetitions
// 0 or < -1 or > 2^24, a weight outside [0, 1], a negative fade duration, `from` together with a
// blend (a PlaybackSample holds two bands).
Result<Playback> compile(const Instance& instance);

// The one definition (see the header comment). `time` must be finite.
PlaybackSample resolve(const Playback& playback, float time);
// One band and the weight at the instance's clock (min(time, hold) for a paused Playback).
BandSample resolve_track(const Track& track, float clock);
float second_weight(const Playback& playback, float clock);  // w(t) above
// The instance's clock at `time`: min(time, *hold) while paused, else time.
float instance_clock(const Playback& playback, float time);

// The three playback controls, as pure functions of a Playback (instance_table.h's pause, resume
// and turn_back write them into a table). `now` is a finite clock time.
//  - paused(p, now): p with its clock stopped at now (hold = now); already paused: p unchanged.
//    From now on resolve shows resolve(p, now), bit for bit.
//  - resumed(p, now): a paused p playing again from the pose it holds: every start time (both
//    bands' and the weight ramp's) moves later by now - hold and hold is cleared, so the instance
//    continues at its speed from the held pose, and a fade or weight ramp continues from the
//    held weight. Each new start is the float32 nearest that shift that reproduces the held sample
//    at `now` bit for bit; float32 finds one whenever now - hold is a multiple of the clock's
//    step at the start times, e.g. all within one power of two; otherwise the resumed pose differs
//    from the held one by at most (ulp(now) + ulp(start)) x |cycle_rate| cycles. A band that had
//    finished by hold stays as it is. Not paused (or now <= hold): the pause is simply cleared.
//  - turned_back(p, now): every band that is moving at the instance's clock c = min(now, hold)
//    (started, not finished, cycle_rate != 0) is replaced by the same band at the opposite speed,
//    showing the same phase at c (to the float32 search above), that retraces its play: a finite
//    play of u of its n cycles done plays back the u cycles to where it began and finishes there,
//    holding that pose whatever its end mode (its repetitions become the cycles it retraces,
//    rounded up, and up to an odd count for PingPong); an endless play runs backwards for ever.
//    The turned band is a new play: its `wraps` starts over (false until it wraps). Exactly on a
//    Repeat's seam (phase 0 of a later cycle) it shows the last row, the same pose for a looping
//    clip. A finished, not yet started or holding band is left as it is (no motion to turn). The
//    weight ramp, the pause and the mix kind are kept. Turning back twice resumes the original
//    direction from where the instance is (a finite play then ends where it would have).
Playback paused(const Playback& playback, float now);
Playback resumed(const Playback& playback, float now);
Playback turned_back(const Playback& playback, float now);

// resolve(compile(instance).value(), time); asserts that the instance compiles.
PlaybackSample resolve(const Instance& instance, float time);

// The exact clock time the primary band finishes (when resolve first reports a.finished), or
// nothing for an endless loop, a speed of 0, or a pause that holds the band before its end. An
// instance that does not compile has no end.
std::optional<float> ends_at(const Instance& instance);
std::optional<float> ends_at(const Playback& playback);
// When the second band's weight reaches its final value (weight_to) for good: the end of a fade
// or of a blend-weight ramp; nothing when the weight does not ramp (or is paused before its end).
std::optional<float> ramp_ends_at(const Playback& playback);

// A Track for a band playing from `start_time` under a resolved policy (validated by compile;
// here it asserts). Exposed for tests and for tools that build Playbacks by hand.
Track make_track(uint32_t first_row, uint32_t rows, float fps, float start_time, const ClipDefaults& policy);

const char* to_string(FadeCurve);
const char* to_string(BlendSync);
const char* to_string(MixKind);

}  // namespace vatkit
