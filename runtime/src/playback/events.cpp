// The clip events a Playback crosses (events.h): each band walks its crossing positions in order,
// the two walks are merged by clock time.
#include "vatkit/events.h"

#include <algorithm>
#include <cmath>

#include "playback/playback_internal.h"

namespace vatkit {

namespace {

// The crossing positions of one band in (lo, hi], in increasing order. A cycle k whose phase runs
// forward (0 -> 1) has event j at position j, c = k + phi; one whose phase runs back (a PingPong's
// odd traversal, or any cycle of a band with a negative rate, the two cancelling) has event
// E - 1 - j at position j, c = k + 1 - phi. An odd PingPong traversal skips the turning points
// (phi 0 and 1: the even ones have them). A negative rate is thus the forward walk with every phase
// mirrored, as resolve_track mirrors it.
class Walk {
 public:
  Walk(const Track& track, BandEvents band, float t0, float t1)
      : track_(track), band_(band), mirrored_(track.cycle_rate < 0.0f) {
    const size_t count = band.events.size();
    if (count == 0 || track.cycle_rate == 0.0f || !(t0 < t1) || t1 < track.start_time) return;
    lo_ = t0 < track.start_time ? -1.0 : double(playback_detail::cycles_at(track, t0));
    hi_ = double(playback_detail::cycles_at(track, t1));
    if (track.repetitions != kInfiniteRepetitions) hi_ = std::min(hi_, double(track.repetitions));
    if (!(lo_ < hi_) && lo_ >= 0.0) return;
    k_ = lo_ < 0.0 ? 0.0 : std::floor(lo_);
    j_ = first_after(lo_);
    live_ = true;
    settle();
  }

  bool live() const { return live_; }
  double position() const { return c_; }
  uint32_t event() const { return uint32_t(index(j_)); }
  uint32_t cycle() const {  // the traversal; a PingPong's turning point at c = n is traversal n - 1's
    return uint32_t(track_.repetitions != kInfiniteRepetitions && k_ >= double(track_.repetitions) ? k_ - 1.0 : k_);
  }
  void advance() {
    ++j_;
    settle();
  }

 private:
  const Track& track_;
  BandEvents band_;
  double lo_ = 0.0, hi_ = -1.0;
  double k_ = 0.0;  // the cycle
  size_t j_ = 0;    // the position in it
  double c_ = 0.0;
  bool live_ = false;
  bool mirrored_;  // a negative rate: every phase mirrored

  // An odd PingPong traversal (the one that does not fire the turning points).
  bool backward() const { return track_.loop_mode == LoopMode::PingPong && std::fmod(k_, 2.0) == 1.0; }
  bool runs_back() const { return backward() != mirrored_; }  // the phase falls in cycle k_
  size_t index(size_t j) const { return runs_back() ? band_.events.size() - 1 - j : j; }
  double phase(size_t j) const { return event_phase(band_.events[index(j)], band_.duration_s); }
  double at(size_t j) const { return runs_back() ? k_ + 1.0 - phase(j) : k_ + phase(j); }
  bool skipped(size_t j) const {
    if (!backward()) return false;
    const double p = phase(j);
    return p == 0.0 || p == 1.0;
  }
  // The first position of cycle k_ past `lo` (positions are non-decreasing in j).
  size_t first_after(double lo) const {
    size_t a = 0, b = band_.events.size();
    while (a < b) {
      const size_t m = a + (b - a) / 2;
      if (at(m) > lo) {
        b = m;
      } else {
        a = m + 1;
      }
    }
    return a;
  }
  // Cycle n of a band of n repetitions never plays: its only position that fires is a PingPong's
  // turning point at c = n, the end of odd traversal n - 1 (counted here in the even one).
  bool past_last_cycle() const {
    if (track_.repetitions == kInfiniteRepetitions || k_ < double(track_.repetitions)) return false;
    return !(track_.loop_mode == LoopMode::PingPong && c_ == k_);
  }
  // Moves to the next position that is not skipped, across cycles; ends the walk past hi.
  void settle() {
    while (live_) {
      if (j_ >= band_.events.size()) {
        k_ += 1.0;
        j_ = 0;
        if (k_ > hi_) live_ = false;
        continue;
      }
      if (skipped(j_)) {
        ++j_;
        continue;
      }
      c_ = at(j_);
      if (c_ > hi_ || past_last_cycle()) live_ = false;
      return;
    }
  }
};

// A band's weight at `time` (the primary's 1 - w, the second's w).
float band_weight(const Playback& pb, uint8_t band, float time) {
  const float w = second_weight(pb, time);
  return band == 0 ? 1.0f - w : w;
}

}  // namespace

double events_crossed_bound(const Playback& pb, const BandEvents& primary, const BandEvents& second, float t0,
                            float t1) {
  t1 = instance_clock(pb, t1);
  auto bound = [&](const Track& t, const BandEvents& band) {
    if (band.events.empty() || t.cycle_rate == 0.0f || !(t0 < t1)) return 0.0;
    const double lo = std::floor(double(playback_detail::cycles_at(t, t0)));
    const double hi = std::floor(double(playback_detail::cycles_at(t, t1)));
    return (hi - lo + 2.0) * double(band.events.size());  // + the cycle at each end
  };
  return bound(pb.primary, primary) + (pb.kind == MixKind::Single ? 0.0 : bound(pb.second, second));
}

double event_phase(const ClipEvent& event, float duration_s) {
  if (!(duration_s > 0.0f)) return 0.0;
  return std::min(double(event.time_s) / double(duration_s), 1.0);
}

float crossing_time(const Track& t, double c) {
  if (c <= 0.0) return t.start_time;
  return playback_detail::smallest_time(t.start_time,
                                        [&](float time) { return double(playback_detail::cycles_at(t, time)) >= c; });
}

void events_crossed(const Playback& pb, const BandEvents& primary, const BandEvents& second, float t0, float t1,
                    std::vector<FiredEvent>& out) {
  t1 = instance_clock(pb, t1);  // paused: nothing moves after the hold
  Walk walks[2] = {Walk(pb.primary, primary, t0, t1),
                   Walk(pb.second, pb.kind == MixKind::Single ? BandEvents{} : second, t0, t1)};
  const Track* tracks[2] = {&pb.primary, &pb.second};
  const BandEvents* bands[2] = {&primary, &second};
  float next[2] = {0.0f, 0.0f};
  for (int b = 0; b < 2; ++b)
    if (walks[b].live()) next[b] = crossing_time(*tracks[b], walks[b].position());
  while (walks[0].live() || walks[1].live()) {
    const uint8_t b = (!walks[1].live() || (walks[0].live() && next[0] <= next[1])) ? 0 : 1;
    const float weight = band_weight(pb, b, next[b]);
    if (weight > 0.0f) {
      out.push_back(FiredEvent{next[b], bands[b]->clip, walks[b].event(), walks[b].cycle(), b, weight});
    }
    walks[b].advance();
    if (walks[b].live()) next[b] = crossing_time(*tracks[b], walks[b].position());
  }
}

void events_crossed(const Vat& vat, const Playback& pb, float t0, float t1, std::vector<FiredEvent>& out) {
  auto band_of = [&](const Track& t) {
    for (uint32_t i = 0; i < vat.clips.size(); ++i) {
      const VatClip& c = vat.clips[i];
      if (c.first_row == t.first_row && c.rows == t.rows) return BandEvents{c.events, c.duration_s, i};
    }
    return BandEvents{};
  };
  const BandEvents primary = band_of(pb.primary);
  const BandEvents second = pb.kind == MixKind::Single ? BandEvents{} : band_of(pb.second);
  events_crossed(pb, primary, second, t0, t1, out);
}

}  // namespace vatkit
