// The instance table: packing, set_instance's transition rule, dirty rows, events, clock rebase.
#include "vatkit/instance_table.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "playback/playback_internal.h"

namespace vatkit {

namespace {

glm::vec4 band_texel(const Track& t) {
  return {float(t.first_row), float(t.rows), float(uint8_t(t.loop_mode)), t.end_phase};
}
glm::vec4 timing_texel(const Track& t) { return {t.start_time, t.cycle_rate, t.end_time, float(t.repetitions)}; }
Track track_of(const glm::vec4& band, const glm::vec4& timing) {
  Track t;
  t.first_row = uint32_t(band.x);
  t.rows = uint32_t(band.y);
  t.loop_mode = LoopMode(uint8_t(band.z));
  t.end_phase = band.w;
  t.start_time = timing.x;
  t.cycle_rate = timing.y;
  t.end_time = timing.z;
  t.repetitions = int32_t(timing.w);
  return t;
}

// Events order: earliest first; ties by index, then End before FadeEnd (std heap is a max-heap).
template <class E>
bool later(const E& a, const E& b) {
  if (a.time != b.time) return a.time > b.time;
  if (a.index != b.index) return a.index > b.index;
  return uint8_t(a.kind) > uint8_t(b.kind);
}

std::string where(uint32_t index) { return "instance " + std::to_string(index); }

Result<void> check_rows(const Track& t, uint32_t frame_rows, const char* which) {
  if (frame_rows == 0 || uint64_t(t.first_row) + t.rows <= frame_rows) return {};
  return Error{ErrorCode::Argument, std::string(which) + " rows [" + std::to_string(t.first_row) + ", " +
                                        std::to_string(uint64_t(t.first_row) + t.rows) + ") run past the VAT's " +
                                        std::to_string(frame_rows) + " frame rows"};
}

Playback fade(const Track& incoming, const Track& outgoing, float from_weight, float now, const Instance& in) {
  Playback p;
  p.primary = incoming;
  p.second = outgoing;
  p.kind = MixKind::Fade;
  p.weight_from = from_weight;
  p.weight_to = 0.0f;
  p.ramp_start = now;
  p.ramp_rate = static_cast<float>(1.0 / double(in.fade_duration));
  p.curve = in.fade_curve;
  return p;
}

// Whether `written` (a track as its caller writes it, on the current clock) plays the same
// motion as `held` (a track in the table): equal, or `held` is `written` folded by rebase_clock,
// its start advanced by m >= 1 whole cycles (an even m for PingPong) and its repetitions shrunk
// by m. A caller re-issuing the instance it wrote before a rebase (start time minus the shift,
// docs/playback.md) cannot know the folded start; the two starts agree to rounding: within
// 1e-3 cycles plus the written start's own float32 step.
bool same_motion(const Track& written, const Track& held) {
  if (written == held) return true;
  if (written.first_row != held.first_row || written.rows != held.rows || written.loop_mode != held.loop_mode ||
      written.end_phase != held.end_phase || written.cycle_rate != held.cycle_rate || held.cycle_rate == 0.0f) {
    return false;
  }
  const double rate = std::fabs(double(held.cycle_rate));
  const double cycles = (double(held.start_time) - double(written.start_time)) * rate;
  const double m = std::round(cycles);
  const double step = double(std::nextafter(std::fabs(written.start_time), kNever) - std::fabs(written.start_time));
  if (!(m >= 1.0) || std::fabs(cycles - m) > std::min(1e-3 + 2.0 * step * rate, 0.25)) return false;
  if (written.loop_mode == LoopMode::PingPong && std::fmod(m, 2.0) != 0.0) return false;
  if (written.repetitions == kInfiniteRepetitions || held.repetitions == kInfiniteRepetitions) {
    return written.repetitions == held.repetitions;
  }
  return double(written.repetitions) - m == double(held.repetitions);
}

}  // namespace

PackedInstance pack(const Playback& p) {
  PackedInstance r;
  r.texels[0] = band_texel(p.primary);
  r.texels[1] = timing_texel(p.primary);
  r.texels[2] = band_texel(p.second);
  r.texels[3] = timing_texel(p.second);
  r.texels[4] = {p.weight_from, p.weight_to, p.ramp_start, p.ramp_rate};
  r.texels[5] = {float(uint8_t(p.kind)), float(uint8_t(p.curve)), p.hold.value_or(0.0f), p.hold ? 1.0f : 0.0f};
  return r;
}

Playback unpack(const PackedInstance& r) {
  Playback p;
  p.primary = track_of(r.texels[0], r.texels[1]);
  p.second = track_of(r.texels[2], r.texels[3]);
  p.weight_from = r.texels[4].x;
  p.weight_to = r.texels[4].y;
  p.ramp_start = r.texels[4].z;
  p.ramp_rate = r.texels[4].w;
  p.kind = MixKind(uint8_t(r.texels[5].x));
  p.curve = FadeCurve(uint8_t(r.texels[5].y));
  if (r.texels[5].w == 1.0f) p.hold = r.texels[5].z;
  return p;
}

InstanceTable::InstanceTable(uint32_t count, uint32_t frame_rows) : frame_rows_(frame_rows) { resize(count); }

void InstanceTable::resize(uint32_t count) {
  const uint32_t old = size();
  rows_.resize(count, pack(Playback{}));
  written_.resize(count, 0);
  generation_.resize(count, 0);
  dirty_flag_.resize(count, 0);
  if (count < old) {
    std::erase_if(dirty_, [&](uint32_t i) { return i >= count; });
    std::erase_if(heap_, [&](const HeapEntry& e) { return e.index >= count; });
    std::make_heap(heap_.begin(), heap_.end(), later<HeapEntry>);
  }
}

void InstanceTable::store(uint32_t index, const Playback& p) {
  rows_[index] = pack(p);
  written_[index] = 1;
  if (!dirty_flag_[index]) {
    dirty_flag_[index] = 1;
    dirty_.push_back(index);
  }
  ++generation_[index];
  push_events(index, p);
  if (heap_.size() > 64 && heap_.size() > 4 * size_t(size())) drop_stale_events();
}

void InstanceTable::push_events(uint32_t index, const Playback& p) {
  auto push = [&](float time, EventKind kind) {
    heap_.push_back({time, index, generation_[index], kind});
    std::push_heap(heap_.begin(), heap_.end(), later<HeapEntry>);
  };
  if (std::optional<float> end = ends_at(p)) push(*end, EventKind::End);
  if (std::optional<float> ramp = ramp_ends_at(p)) {
    if (*ramp != kNever) push(*ramp, EventKind::FadeEnd);
  }
}

void InstanceTable::drop_stale_events() {
  std::erase_if(heap_, [&](const HeapEntry& e) { return e.generation != generation_[e.index]; });
  std::make_heap(heap_.begin(), heap_.end(), later<HeapEntry>);
}

void write_playback(InstanceTable& table, uint32_t index, const Playback& playback) {
  assert(index < table.size());
  assert(unpack(pack(playback)) == playback);
  table.store(index, playback);
}

namespace {

// The fade from what `old` shows at `now` into `next` (set_instance with a fade_duration): the
// band or blend on screen keeps playing from where it is while `next` fades in over it.
Result<Playback> transition(const Playback& old, const Playback& next, const Instance& in, float now) {
  const PlaybackSample shown = resolve(old, now);
  const bool two = shown.kind != MixKind::Single && shown.weight > 0.0f;
  const float w = two ? shown.weight : 0.0f;
  const Track& x = old.primary;
  const Track& y = old.second;
  // The band that dominates the screen; the tie goes to the primary (the incoming one of a fade).
  const Track& dominant = two && w > 0.5f ? y : x;

  Playback out;
  if (next.kind != MixKind::Blend) {
    const Track& n = next.primary;
    if (two && n == x) {
      out = fade(n, y, w, now, in);  // retarget: Y keeps fading from where it is
    } else if (two && n == y) {
      out = fade(n, x, 1.0f - w, now, in);  // turn back: X fades out from where it is
    } else if (n == dominant) {
      out = next;  // nothing to fade from (drops Y's weight, if any)
    } else {
      out = fade(n, dominant, 1.0f, now, in);  // fade in over the dominant band
    }
  } else {
    const Track& a = next.primary;
    const Track& b = next.second;
    float from = 0.0f;
    if (two && x == a && y == b) {
      from = w;
    } else if (two && x == b && y == a) {
      from = 1.0f - w;
    } else if (dominant == a) {
      from = 0.0f;
    } else if (dominant == b) {
      from = 1.0f;
    } else {
      return Error{ErrorCode::Argument,
                   "a fade into a blend needs the blend's band A or B on screen (a PlaybackSample holds two "
                   "bands): fade to A first, then write the blend with weight_from 0 on FadeEnd"};
    }
    out = next;
    out.weight_from = from;
    out.ramp_start = now;
    out.ramp_rate = static_cast<float>(1.0 / double(in.fade_duration));
    out.curve = in.fade_curve;
  }
  return out;
}

}  // namespace

Result<void> set_instance(InstanceTable& table, uint32_t index, const Instance& in, float now) {
  assert(index < table.size());
  auto fail = [&](const std::string& what, ErrorCode code = ErrorCode::Argument) {
    return Error{code, where(index) + ": " + what};
  };
  if (!std::isfinite(now) || std::fabs(now) > kMaxTimeMagnitude) {
    return fail("`now` must be finite and within +-1e18 s");
  }
  if (in.from) {
    return fail(
        "`from` is filled by set_instance from what is on screen; leave it empty "
        "(write_playback takes a hand-made fade)");
  }
  Result<Playback> compiled = compile(in);
  if (!compiled) return fail(compiled.error().message, compiled.error().code);
  Playback next = *compiled;
  if (auto r = check_rows(next.primary, table.frame_rows(), "clip"); !r) return fail(r.error().message, r.error().code);
  if (auto r = check_rows(next.second, table.frame_rows(), "blend.clip"); !r)
    return fail(r.error().message, r.error().code);

  if (!table.written(index)) {
    table.store(index, next);
    return {};
  }
  // A paused instance resumes at `now` (the outgoing band of a fade plays on from its held pose).
  const Playback old = resumed(playback(table, index), now);
  // A band the table holds is re-issued as the table holds it (rebase_clock may have folded it):
  // the comparisons below then see it as the same band.
  for (Track* t : {&next.primary, &next.second}) {
    if (same_motion(*t, old.primary)) {
      *t = old.primary;
    } else if (old.kind != MixKind::Single && same_motion(*t, old.second)) {
      *t = old.second;
    }
  }
  if (next.kind == MixKind::Single) next.second = next.primary;  // a Single's second is its primary
  if (in.fade_duration == 0.0f) {
    table.store(index, next);
    return {};
  }
  Result<Playback> out = transition(old, next, in, now);
  if (!out) return fail(out.error().message, out.error().code);
  table.store(index, *out);
  return {};
}

namespace {

Result<void> control(InstanceTable& table, uint32_t index, float now, Playback (*write)(const Playback&, float)) {
  assert(index < table.size());
  if (!std::isfinite(now) || std::fabs(now) > kMaxTimeMagnitude) {
    return Error{ErrorCode::Argument, where(index) + ": `now` must be finite and within +-1e18 s"};
  }
  if (!table.written(index)) return Error{ErrorCode::Argument, where(index) + ": not written yet (set_instance first)"};
  write_playback(table, index, write(playback(table, index), now));
  return {};
}

}  // namespace

Result<void> pause(InstanceTable& table, uint32_t index, float now) { return control(table, index, now, paused); }
Result<void> resume(InstanceTable& table, uint32_t index, float now) { return control(table, index, now, resumed); }
Result<void> turn_back(InstanceTable& table, uint32_t index, float now) {
  return control(table, index, now, turned_back);
}

Result<InstanceTable> make_instance_table(std::span<const Instance> instances, uint32_t frame_rows) {
  InstanceTable table(uint32_t(instances.size()), frame_rows);
  for (size_t i = 0; i < instances.size(); ++i) {
    if (instances[i].from) {
      Result<Playback> p = compile(instances[i]);
      if (!p) return Error{p.error().code, where(uint32_t(i)) + ": " + p.error().message};
      write_playback(table, uint32_t(i), *p);
      continue;
    }
    if (auto r = set_instance(table, uint32_t(i), instances[i], 0.0f); !r) return r.error();
  }
  return table;
}

Playback playback(const InstanceTable& table, uint32_t index) { return unpack(table.row(index)); }

PlaybackSample resolve(const InstanceTable& table, uint32_t index, float time) {
  return resolve(table.row(index), time);
}

std::optional<float> ends_at(const InstanceTable& table, uint32_t index) { return ends_at(playback(table, index)); }

void take_dirty(InstanceTable& table, std::vector<RowRange>& out, uint32_t merge_gap) {
  std::vector<uint32_t>& d = table.dirty_;
  std::sort(d.begin(), d.end());
  const size_t first_new = out.size();  // never merge into what the caller already held
  for (uint32_t i : d) {
    table.dirty_flag_[i] = 0;
    if (out.size() > first_new) {
      RowRange& last = out.back();
      const uint64_t end = uint64_t(last.first) + last.count;
      if (i >= last.first && uint64_t(i) <= end + merge_gap) {
        last.count = i + 1 - last.first;
        continue;
      }
    }
    out.push_back({i, 1});
  }
  d.clear();
}

size_t dirty_count(const InstanceTable& table) { return table.dirty_.size(); }

std::optional<PlaybackEvent> next_event(InstanceTable& table) {
  auto& heap = table.heap_;
  while (!heap.empty()) {
    const auto& top = heap.front();
    if (top.generation == table.generation_[top.index]) return PlaybackEvent{top.time, top.index, top.kind};
    std::pop_heap(heap.begin(), heap.end(), later<InstanceTable::HeapEntry>);
    heap.pop_back();
  }
  return std::nullopt;
}

size_t pop_events(InstanceTable& table, float until, std::vector<PlaybackEvent>& out) {
  size_t n = 0;
  auto& heap = table.heap_;
  while (std::optional<PlaybackEvent> e = next_event(table)) {
    if (!(e->time <= until)) break;
    out.push_back(*e);
    ++n;
    std::pop_heap(heap.begin(), heap.end(), later<InstanceTable::HeapEntry>);
    heap.pop_back();
  }
  return n;
}

// ---- clock rebase -------------------------------------------------------------------------------

namespace {

// t - shift when float32 computes it exactly.
bool shift_exact(float t, float shift, float& out) {
  if (t == kNever) {
    out = kNever;
    return true;
  }
  out = t - shift;
  return double(out) == double(t) - double(shift);
}

// t - shift rounded toward minus infinity (an end that has passed stays passed).
float shift_down(float t, float shift) {
  if (t == kNever) return kNever;
  const double exact = double(t) - double(shift);
  float f = static_cast<float>(exact);
  if (double(f) > exact) f = std::nextafter(f, -kNever);
  return f;
}

enum class Moved { Exact, Folded, Rounded };

Moved rebase_track(Track& t, float now, float shift) {
  if (t.end_time <= now) {  // finished for good: the end pose does not depend on time
    t.start_time = shift_down(t.start_time, shift);
    t.end_time = shift_down(t.end_time, shift);
    return Moved::Exact;
  }
  const bool moving = t.cycle_rate != 0.0f;
  const double rate = std::fabs(double(t.cycle_rate));  // a backwards band folds the same cycles
  const bool endless = t.end_time == kNever;
  // A track playing for long has a large time - start_time, and so a coarse phase, whatever the
  // clock: it is folded (its start advanced by whole cycles) rather than shifted.
  const bool old = moving && double(now) - double(t.start_time) >= kRebaseFoldAfterSeconds;
  float start = 0.0f;
  const bool exact = !old && shift_exact(t.start_time, shift, start);
  double m = 0.0;  // whole cycles to advance the start by
  if (!exact) {
    if (moving && now > t.start_time) {
      const double k = std::floor((double(now) - double(t.start_time)) * rate);
      if (t.loop_mode == LoopMode::Repeat) m = std::max(k - 1.0, 0.0);   // keep one wrap: `wraps`
      if (t.loop_mode == LoopMode::PingPong) m = k - std::fmod(k, 2.0);  // keep the direction
      if (t.repetitions != kInfiniteRepetitions) m = std::min(m, double(t.repetitions - 1));
    }
    const double advance = moving ? m / rate : 0.0;
    start = static_cast<float>(double(t.start_time) + advance - double(shift));
    if (t.repetitions != kInfiniteRepetitions) t.repetitions -= int32_t(m);
  }
  t.start_time = start;
  // The end is recomputed on the new clock even when it shifted exactly: the new clock resolves
  // finer, and `finished` must flip exactly where the new float32 arithmetic reaches u >= n (at
  // every time the old clock could express, the two agree).
  t.end_time = endless ? kNever : playback_detail::end_time_of(t, /*moving=*/true);
  return exact ? Moved::Exact : m > 0.0 ? Moved::Folded : Moved::Rounded;
}

}  // namespace

RebaseReport rebase_clock(InstanceTable& table, float now) {
  assert(std::isfinite(now));
  RebaseReport report;
  const float shift = now >= 1.0f ? std::floor(now) : 0.0f;
  report.shift = shift;
  if (shift == 0.0f) return report;
  auto count = [&](Moved m) {
    if (m == Moved::Exact) ++report.exact;
    if (m == Moved::Folded) ++report.folded;
    if (m == Moved::Rounded) ++report.rounded;
  };

  for (uint32_t i = 0; i < table.size(); ++i) {
    Playback p = playback(table, i);
    const Playback before = p;
    const bool single = p.kind == MixKind::Single;
    const float clock = instance_clock(p, now);  // a paused row is rebased at its held clock
    count(rebase_track(p.primary, clock, shift));
    if (single) {
      p.second = p.primary;
    } else {
      count(rebase_track(p.second, clock, shift));
    }
    // The weight ramp: over (or constant) -> a constant; a finished fade -> Single.
    const bool constant = p.ramp_rate == 0.0f || (clock - p.ramp_start) * p.ramp_rate >= 1.0f;
    if (constant) {
      const float w = second_weight(p, clock);
      p.weight_from = p.weight_to = w;
      p.ramp_start = 0.0f;
      p.ramp_rate = 0.0f;
      if (p.kind == MixKind::Fade && w == 0.0f) {
        p.kind = MixKind::Single;
        p.second = p.primary;
        p.curve = FadeCurve::Linear;
      }
    } else {
      float start = 0.0f;
      if (!shift_exact(p.ramp_start, shift, start)) start = static_cast<float>(double(p.ramp_start) - shift);
      p.ramp_start = start;
    }
    // A paused row: the hold on the new clock that shows the held sample (hold - shift when exact).
    if (p.hold) p.hold = playback_detail::hold_showing(p, resolve(before, *before.hold), double(*before.hold) - shift);
    table.rows_[i] = pack(p);
    if (!table.dirty_flag_[i]) {
      table.dirty_flag_[i] = 1;
      table.dirty_.push_back(i);
    }
  }

  // Pending events move with their rows (recomputed where a row was folded or rounded).
  table.drop_stale_events();
  for (InstanceTable::HeapEntry& e : table.heap_) {
    const Playback p = playback(table, e.index);
    std::optional<float> t = e.kind == EventKind::End ? ends_at(p) : ramp_ends_at(p);
    e.time = t && *t != kNever ? *t : shift_down(e.time, shift);
  }
  std::make_heap(table.heap_.begin(), table.heap_.end(), later<InstanceTable::HeapEntry>);
  return report;
}

float clock_resolution(float clock) {
  const float a = std::fabs(clock);
  return std::nextafter(a, kNever) - a;
}

}  // namespace vatkit
