// vatkit/playback_json.h: the JSON-lines form of playback queries and Frames, as `vatkit frame`
// reads and writes them and as the conformance vectors (tests/conformance/) store them. Field names
// are three-vat's; docs/playback.md lists every field.
//
// A query line:
//   {"instance": INSTANCE, "time": T, "set": [{"now": N, "instance": INSTANCE}, ...],
//    "expect": FRAME}
// "set" (optional) replays set_instance calls after the first instance was written (so
// transition bookkeeping can be queried), and the playback controls: an entry
// {"now": N, "control": "pause"|"resume"|"turnBack"} calls pause, resume or turn_back
// (instance_table.h) instead; "expect" (optional) is what --check compares against.
// INSTANCE:
//   {"clip": {"startFrame": R, "frames": N, "fps": F, "loopMode", "repetitions", "endMode",
//             "speed"}, "startTime": T, "speed": S, "loopMode": "repeat"|"once"|"pingpong",
//    "repetitions": -1|n, "endMode": "clamp"|"rewind",
//    "blend": {"clip": CLIP, "weight": W, "sync": "phase"|"time", "weightFrom": W0},
//    "fadeDuration": D, "fadeCurve": "linear"|"smooth", "fadeStart": T0, "fadeWeight": W1,
//    "from": {"clip": CLIP, "startTime": T, "speed", "loopMode", "repetitions", "endMode"}}
// Only clip (startFrame, frames, fps) and startTime are required. Numbers are read as doubles and
// rounded once to float32 (what a GPU uniform or texel holds). Unknown fields are errors.
// A FRAME (one line, in this order):
//   {"row", "rowNext", "mix", "wraps", "finished", "phase",            primary band
//    "rowB", "rowNextB", "mixB", "wrapsB", "finishedB", "phaseB",       second band
//    "weight", "kind": "single"|"fade"|"blend", "endsAt": T|null,
//    "events": [{"name", "time", "band": "a"|"b", "weight"}]}    only when the query has "since"
// A CLIP may carry "events": [{"name": N, "time": S}] (seconds into the band, in time order, within
// (frames - 1) / fps); a query with "since": T0 reports the events its bands cross in (T0, time]
// (vatkit/events.h), in order, each with the clock time it fired; with "set", each write at N splits
// the span: the playback before it reports (.., N], the one after it (N, ..].
// Floats are written as the shortest decimal that reads back as the same float32.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vatkit/events.h"
#include "vatkit/playback.h"
#include "vatkit/result.h"

namespace vatkit {

enum class FrameControl : uint8_t { None = 0, Pause, Resume, TurnBack };

struct FrameWrite {
  float now = 0.0f;
  Instance instance;                          // set_instance's, when control is None
  FrameControl control = FrameControl::None;  // "control"
};

// A clip object's "events" ([{"name", "time"}], seconds into the band, in time order), kept by
// the band they belong to (a clip of the query is found by its startFrame and frames).
struct FrameClipEvents {
  uint32_t first_row = 0, rows = 1;
  float duration_s = 0.0f;  // (frames - 1) / fps
  std::vector<ClipEvent> events;
};

struct FrameQuery {
  Instance instance;
  float time = 0.0f;
  std::vector<FrameWrite> writes;     // "set"
  std::optional<std::string> expect;  // "expect", as compact JSON text
  std::optional<float> since;         // "since": report the events crossed in (since, time]
  std::vector<FrameClipEvents> clip_events;
};

// The most events one query line reports (a longer list is an error, before the work).
inline constexpr size_t kMaxFrameEvents = 100000;

// An event crossed (vatkit/events.h), by name.
struct FrameEvent {
  std::string name;
  float time = 0.0f;  // the clock time it fired
  uint8_t band = 0;   // 0: a, 1: b
  float weight = 1.0f;
};

// Errors name the field ("instance.clip.fps: expected a number, got \"30\"").
Result<FrameQuery> parse_frame_query(std::string_view line);

// The answer: with no writes, resolve(compile(instance), time); with writes, a one-row
// InstanceTable written with the instance (a cut; a hand-made `from` fade is written as is), then
// set_instance(w.instance, w.now) (or the control) for each write, then resolve at `time`.
struct FrameAnswer {
  PlaybackSample frame;
  std::optional<float> ends_at;
  std::optional<std::vector<FrameEvent>> events;  // with "since": events_crossed(since, time), split at writes
};
Result<FrameAnswer> run_frame_query(const FrameQuery& query);

std::string frame_json(const FrameAnswer& answer);  // one line, no newline

// An INSTANCE object (the form parse_frame_query reads back to the same Instance, bit for bit):
// the fields that differ from their defaults, floats as float_text. One line, no newline.
std::string instance_json(const Instance& instance);

// Compares an answer with an expected FRAME object: every field, floats as float32 bit patterns.
// The error names the first field that differs: "rowNext: expected 4, got 5".
Result<void> check_frame_json(std::string_view expected, const FrameAnswer& answer);

// The shortest decimal that reads back as exactly `value`, whether a reader parses it straight to
// float or (as JSON readers do) to a double narrowed to float: where the shortest float text would
// round differently through a double, the float's exact value as a double. JSON-compatible for a
// finite `value`.
std::string float_text(float value);

}  // namespace vatkit
