// Playback: the tiers, the validation, and resolve, the function every GPU decode transcribes.
//
// resolve_track and second_weight use only float32 subtraction, multiplication, floor, min, max
// and comparisons, in the order the GLSL writes them: subtraction and multiplication are
// correctly rounded on every GPU we target and none of these expressions can be contracted into a
// fused multiply-add, so the rows, the mix and the phase a shader computes are the CPU's bits.
// (The weight's lerp can be fused; it is written endpoint-exact so that 0 and 1 stay exact.)
#include "vatkit/playback.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <cstring>
#include <string>

#include "util/number_text.h"
#include "playback/playback_internal.h"

namespace vatkit {

namespace {

std::string band_text(const ClipBand& b) {
  return "rows [" + std::to_string(b.first_row) + ", " + std::to_string(uint64_t(b.first_row) + b.rows) + ")";
}

std::string num(double v) { return detail::number_text(v); }

Result<void> check_band(const ClipBand& b, const std::string& what) {
  if (b.rows == 0) return make_error(ErrorCode::Argument, "", what + ": a band needs at least one row");
  if (uint64_t(b.first_row) + b.rows > kMaxPlaybackRows) {
    return make_error(ErrorCode::Argument, "", what + ": " + band_text(b) + " runs past row 2^24 (float32 rows)");
  }
  if (b.rows > 1 && !(std::isfinite(b.fps) && b.fps > 0.0f)) {
    return make_error(
        ErrorCode::Argument, "",
        what + ": fps " + num(b.fps) + " must be finite and > 0 for a band of " + std::to_string(b.rows) + " rows");
  }
  return {};
}

Result<void> check_policy(const PolicyOverrides& p, const std::string& what) {
  if (p.speed && !std::isfinite(*p.speed)) return make_error(ErrorCode::Argument, "", what + ".speed is not finite");
  if (p.repetitions) {
    const int32_t n = *p.repetitions;
    if (n != kInfiniteRepetitions && (n < 1 || n > kMaxRepetitions)) {
      return make_error(ErrorCode::Argument, "",
                        what + ".repetitions " + std::to_string(n) + " must be -1 (endless) or 1..2^24");
    }
  }
  if (p.loop_mode && uint8_t(*p.loop_mode) > 2)
    return make_error(ErrorCode::Argument, "", what + ".loop_mode is not a LoopMode");
  if (p.end_mode && uint8_t(*p.end_mode) > 1)
    return make_error(ErrorCode::Argument, "", what + ".end_mode is not an EndMode");
  return {};
}

Result<void> check_time(float t, const std::string& what) {
  if (!std::isfinite(t) || std::fabs(t) > kMaxTimeMagnitude) {
    return make_error(ErrorCode::Argument, "", what + " " + num(t) + " must be finite and within +-1e18 s");
  }
  return {};
}

Result<void> check_weight(float w, const std::string& what) {
  if (!(w >= 0.0f && w <= 1.0f)) return make_error(ErrorCode::Argument, "", what + " " + num(w) + " is outside [0, 1]");
  return {};
}

// Cycle rate in cycles per second, rounded once from the exact product; 0 when the band holds,
// negative for a negative speed (the band plays backwards).
Result<float> rate_of(uint32_t rows, float fps, float speed, const std::string& what) {
  if (rows <= 1 || speed == 0.0f) return 0.0f;
  const double r = double(speed) * double(fps) / double(rows - 1);
  const auto rf = static_cast<float>(r);
  if (!std::isfinite(rf)) {
    return make_error(ErrorCode::Argument, "",
                      what + ": speed " + num(speed) + " x fps " + num(fps) + " is too fast for float32");
  }
  // A subnormal rate (a cycle longer than 1e30 years) would resolve differently on GPUs that
  // flush subnormals to zero, breaking the bit-for-bit port (docs/playback.md, "Porting").
  if (std::fabs(rf) < std::numeric_limits<float>::min()) {
    return make_error(ErrorCode::Argument, "",
                      what + ": speed " + num(speed) + " x fps " + num(fps) +
                          " is too slow for float32 (use speed 0 to hold the first row)");
  }
  return rf;
}

Track track_with(uint32_t first_row, uint32_t rows, float start_time, float rate, const ClipDefaults& policy) {
  Track t;
  t.first_row = first_row;
  t.rows = rows;
  t.loop_mode = policy.loop_mode;
  t.start_time = start_time;
  t.cycle_rate = rate;
  t.repetitions = policy.loop_mode == LoopMode::Once ? 1 : policy.repetitions;
  const int32_t n = t.repetitions;
  const float forward_end = (policy.end_mode == EndMode::Rewind ||
                             (policy.loop_mode == LoopMode::PingPong && n != kInfiniteRepetitions && n % 2 == 0))
                                ? 0.0f
                                : 1.0f;
  t.end_phase = policy.speed < 0.0f ? 1.0f - forward_end : forward_end;  // backwards: the mirror
  t.end_time = playback_detail::end_time_of(t, policy.speed != 0.0f);
  return t;
}

}  // namespace

namespace playback_detail {

uint32_t order_key(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

float from_order_key(uint32_t key) {
  const uint32_t bits = (key & 0x80000000u) ? (key & 0x7FFFFFFFu) : ~key;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float cycles_at(const Track& t, float time) {
  float e = time - t.start_time;
  e = std::max(e, 0.0f);
  const float u = e * std::fabs(t.cycle_rate);
  return std::min(u, kMaxCycles);
}

float end_time_of(const Track& t, bool moving) {
  if (t.repetitions == kInfiniteRepetitions || !moving) return kNever;
  if (t.cycle_rate == 0.0f) {
    // A one-row band has no duration: every repetition is over at once. (A phase-synced one-row
    // band B moves at A's rate and ends with A, below.)
    return t.rows <= 1 ? t.start_time : kNever;
  }
  const auto n = float(t.repetitions);
  return smallest_time(t.start_time, [&](float time) { return cycles_at(t, time) >= n; });
}

}  // namespace playback_detail

Result<ClipBand> clip_band(const Vat& vat, const std::string& selector) {
  Result<int> clip = find_clip(vat, selector);
  if (!clip) return clip.error();
  return clip_band(vat, static_cast<uint32_t>(*clip));
}

ClipBand clip_band(const Vat& vat, uint32_t clip) {
  assert(clip < vat.clips.size());
  const VatClip& c = vat.clips[clip];
  ClipBand b;
  b.first_row = c.first_row;
  b.rows = c.rows;
  b.fps = c.fps;
  b.defaults.loop_mode = c.defaults.loop_mode;
  b.defaults.repetitions = c.defaults.repetitions;
  b.defaults.end_mode = c.defaults.end_mode;
  b.defaults.speed = c.defaults.speed;
  return b;
}

// three-vat 2.1's library tier: endless for Repeat, a single play for anything else.
int32_t default_repetitions(LoopMode mode) { return mode == LoopMode::Repeat ? kInfiniteRepetitions : 1; }

ClipDefaults resolve_policy(const PolicyOverrides& instance, const PolicyOverrides& clip) {
  ClipDefaults p;
  const LoopMode clip_mode = clip.loop_mode.value_or(LoopMode::Repeat);
  p.loop_mode = instance.loop_mode.value_or(clip_mode);
  if (instance.repetitions) {
    p.repetitions = *instance.repetitions;
  } else if (clip.repetitions && p.loop_mode == clip_mode) {
    p.repetitions = *clip.repetitions;  // the count belongs to the mode it was configured under
  } else {
    p.repetitions = default_repetitions(p.loop_mode);
  }
  p.end_mode = instance.end_mode.value_or(clip.end_mode.value_or(EndMode::Clamp));
  p.speed = instance.speed.value_or(clip.speed.value_or(1.0f));
  return p;
}

Track make_track(uint32_t first_row, uint32_t rows, float fps, float start_time, const ClipDefaults& policy) {
  Result<float> rate = rate_of(rows, fps, policy.speed, "track");
  assert(rate.ok());
  return track_with(first_row, rows, start_time, rate.ok() ? *rate : 0.0f, policy);
}

Result<Playback> compile(const Instance& in) {
  if (auto r = check_band(in.clip, "clip"); !r) return r.error();
  if (auto r = check_policy(in.clip.defaults, "clip"); !r) return r.error();
  if (auto r = check_policy(in.policy, "instance"); !r) return r.error();
  if (auto r = check_time(in.start_time, "start_time"); !r) return r.error();
  if (!std::isfinite(in.fade_duration) || in.fade_duration < 0.0f) {
    return make_error(ErrorCode::Argument, "", "fade_duration " + num(in.fade_duration) + " must be finite and >= 0");
  }
  if (in.fade_start) {
    if (auto r = check_time(*in.fade_start, "fade_start"); !r) return r.error();
  }
  if (uint8_t(in.fade_curve) > 1) return make_error(ErrorCode::Argument, "", "fade_curve is not a FadeCurve");

  const ClipDefaults policy = resolve_policy(in.policy, in.clip.defaults);
  Result<float> rate = rate_of(in.clip.rows, in.clip.fps, policy.speed, "clip");
  if (!rate) return rate.error();

  Playback pb;
  pb.primary = track_with(in.clip.first_row, in.clip.rows, in.start_time, *rate, policy);
  pb.second = pb.primary;
  pb.curve = in.fade_curve;
  const bool fading = in.fade_duration > 0.0f;
  const float ramp_start = in.fade_start.value_or(in.start_time);
  const auto ramp_rate = fading ? static_cast<float>(1.0 / double(in.fade_duration)) : 0.0f;
  if (fading && !std::isfinite(ramp_rate)) {
    return make_error(ErrorCode::Argument, "", "fade_duration " + num(in.fade_duration) + " is too short for float32");
  }

  if (in.blend) {
    const Blend& bl = *in.blend;
    if (in.from && fading) {
      return make_error(ErrorCode::Argument, "",
                        "a fade `from` another band into a blend needs three bands; a PlaybackSample "
                        "holds two");
    }
    if (auto r = check_band(bl.clip, "blend.clip"); !r) return r.error();
    if (auto r = check_weight(bl.weight, "blend.weight"); !r) return r.error();
    if (uint8_t(bl.sync) > 1) return make_error(ErrorCode::Argument, "", "blend.sync is not a BlendSync");
    if (bl.sync == BlendSync::Phase) {
      pb.second = pb.primary;
      pb.second.first_row = bl.clip.first_row;
      pb.second.rows = bl.clip.rows;
    } else {
      Result<float> rate_b = rate_of(bl.clip.rows, bl.clip.fps, policy.speed, "blend.clip");
      if (!rate_b) return rate_b.error();
      pb.second = track_with(bl.clip.first_row, bl.clip.rows, in.start_time, *rate_b, policy);
    }
    pb.kind = MixKind::Blend;
    pb.weight_to = bl.weight;
    pb.weight_from = bl.weight;
    if (fading && bl.weight_from) {
      if (auto r = check_weight(*bl.weight_from, "blend.weight_from"); !r) return r.error();
      pb.weight_from = *bl.weight_from;
      pb.ramp_start = ramp_start;
      pb.ramp_rate = ramp_rate;
    }
    return pb;
  }

  if (in.from && fading) {
    const Outgoing& o = *in.from;
    if (auto r = check_band(o.clip, "from.clip"); !r) return r.error();
    if (auto r = check_policy(o.clip.defaults, "from.clip"); !r) return r.error();
    if (auto r = check_policy(o.policy, "from"); !r) return r.error();
    if (auto r = check_time(o.start_time, "from.start_time"); !r) return r.error();
    if (!(in.fade_weight > 0.0f && in.fade_weight <= 1.0f)) {
      return make_error(ErrorCode::Argument, "", "fade_weight " + num(in.fade_weight) + " is outside (0, 1]");
    }
    const ClipDefaults op = resolve_policy(o.policy, o.clip.defaults);
    Result<float> rate_o = rate_of(o.clip.rows, o.clip.fps, op.speed, "from.clip");
    if (!rate_o) return rate_o.error();
    pb.second = track_with(o.clip.first_row, o.clip.rows, o.start_time, *rate_o, op);
    pb.kind = MixKind::Fade;
    pb.weight_from = in.fade_weight;
    pb.weight_to = 0.0f;
    pb.ramp_start = ramp_start;
    pb.ramp_rate = ramp_rate;
  }
  return pb;
}

BandSample resolve_track(const Track& t, float time) {
  assert(std::isfinite(time));
  const float u = playback_detail::cycles_at(t, time);  // elapsed cycles
  const bool finished = time >= t.end_time;
  const float k = std::floor(u);                      // which cycle
  const float p = u - k;                              // exact: [0, 1)
  const float odd = k - 2.0f * std::floor(k * 0.5f);  // exact: k < 2^25
  // A PingPong's odd traversal runs backwards; a negative rate mirrors every phase.
  const bool backwards = (t.loop_mode == LoopMode::PingPong && odd == 1.0f) != (t.cycle_rate < 0.0f);
  float phase = backwards ? 1.0f - p : p;
  if (finished) phase = t.end_phase;
  const auto last = static_cast<float>(t.rows - 1);
  const float x = phase * last;  // <= last: phase <= 1 and rounding is monotone
  const float xf = std::floor(x);
  BandSample f;
  f.row = t.first_row + static_cast<uint32_t>(xf);
  f.row_next = t.first_row + static_cast<uint32_t>(std::min(xf + 1.0f, last));
  f.mix = x - xf;
  f.phase = phase;
  f.wraps = t.loop_mode == LoopMode::Repeat && !finished && k >= 1.0f;
  f.finished = finished;
  return f;
}

float second_weight(const Playback& pb, float time) {
  float progress = (time - pb.ramp_start) * pb.ramp_rate;
  progress = std::min(std::max(progress, 0.0f), 1.0f);
  const float c = pb.curve == FadeCurve::Smooth ? progress * progress * (3.0f - 2.0f * progress) : progress;
  return pb.weight_from * (1.0f - c) + pb.weight_to * c;  // endpoint-exact lerp
}

float instance_clock(const Playback& pb, float time) { return pb.hold ? std::min(time, *pb.hold) : time; }

PlaybackSample resolve(const Playback& pb, float time) {
  const float clock = instance_clock(pb, time);
  PlaybackSample f;
  f.a = resolve_track(pb.primary, clock);
  f.weight = second_weight(pb, clock);
  f.kind = pb.kind;
  if (pb.kind == MixKind::Fade && f.weight == 0.0f) f.kind = MixKind::Single;
  f.b = f.kind == MixKind::Single ? f.a : resolve_track(pb.second, clock);
  if (f.kind == MixKind::Single) f.weight = 0.0f;
  return f;
}

PlaybackSample resolve(const Instance& instance, float time) {
  Result<Playback> pb = compile(instance);
  assert(pb.ok());
  return pb.ok() ? resolve(*pb, time) : PlaybackSample{};
}

std::optional<float> ends_at(const Playback& pb) {
  if (pb.primary.end_time == kNever) return std::nullopt;
  if (pb.hold && pb.primary.end_time > *pb.hold) return std::nullopt;  // paused before its end
  return pb.primary.end_time;
}

std::optional<float> ends_at(const Instance& instance) {
  Result<Playback> pb = compile(instance);
  if (!pb) return std::nullopt;
  return ends_at(*pb);
}

std::optional<float> ramp_ends_at(const Playback& pb) {
  if (pb.ramp_rate == 0.0f || pb.kind == MixKind::Single) return std::nullopt;
  const float end = playback_detail::smallest_time(
      pb.ramp_start, [&](float time) { return (time - pb.ramp_start) * pb.ramp_rate >= 1.0f; });
  if (pb.hold && end > *pb.hold) return std::nullopt;  // paused before its end
  return end;
}

const char* to_string(FadeCurve c) {
  switch (c) {
    case FadeCurve::Linear: return "linear";
    case FadeCurve::Smooth: return "smooth";
  }
  return "?";
}

const char* to_string(BlendSync s) {
  switch (s) {
    case BlendSync::Phase: return "phase";
    case BlendSync::Time: return "time";
  }
  return "?";
}

const char* to_string(MixKind k) {
  switch (k) {
    case MixKind::Single: return "single";
    case MixKind::Fade: return "fade";
    case MixKind::Blend: return "blend";
  }
  return "?";
}

}  // namespace vatkit
