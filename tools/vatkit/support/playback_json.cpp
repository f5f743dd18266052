// JSON lines for playback queries (vatkit frame, conformance vectors). nlohmann_json stays in here.
#include "playback_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include <nlohmann/json.hpp>

#include "util/json_depth.h"
#include "vatkit/instance_table.h"
#include "util/printable.h"
#include "util/from_chars.h"

namespace vatkit {

namespace {

using json = nlohmann::json;

struct Fail {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw Fail{path + ": " + what}; }

// A value or a key for a message: short, and ASCII (non-ASCII as JSON's \u escapes; a key through
// printable()), so that no line can carry terminal controls or bidirectional overrides.
std::string shown(const json& j) {
  std::string s = j.dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}
std::string shown_key(const std::string& key) {
  std::string s = printable(key.size() > 40 ? key.substr(0, 37) + "..." : key);
  return "\"" + s + "\"";
}

void only_fields(const json& j, const std::string& path, std::initializer_list<const char*> allowed) {
  if (!j.is_object()) fail(path, "expected an object, got " + shown(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* a : allowed) known = known || it.key() == a;
    if (!known) fail(path, "unknown field " + shown_key(it.key()));
  }
}

float number(const json& j, const std::string& path) {
  if (!j.is_number()) fail(path, "expected a number, got " + shown(j));
  const double d = j.get<double>();
  const auto f = static_cast<float>(d);
  if (!std::isfinite(d) || !std::isfinite(f)) fail(path, "out of float32 range: " + shown(j));
  return f;
}

int64_t integer(const json& j, const std::string& path) {
  // An unsigned number past int64's range is out of range, not its two's-complement wrap.
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    fail(path, "out of range: " + shown(j));
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 9e15) return int64_t(d);
  }
  fail(path, "expected an integer, got " + shown(j));
}

uint32_t row_count(const json& j, const std::string& path) {
  const int64_t v = integer(j, path);
  if (v < 0 || v > int64_t(std::numeric_limits<uint32_t>::max())) fail(path, "out of range: " + shown(j));
  return uint32_t(v);
}

LoopMode loop_mode(const json& j, const std::string& path) {
  if (j == "repeat") return LoopMode::Repeat;
  if (j == "once") return LoopMode::Once;
  if (j == "pingpong") return LoopMode::PingPong;
  fail(path, "expected \"repeat\", \"once\" or \"pingpong\", got " + shown(j));
}

EndMode end_mode(const json& j, const std::string& path) {
  if (j == "clamp") return EndMode::Clamp;
  if (j == "rewind") return EndMode::Rewind;
  fail(path, "expected \"clamp\" or \"rewind\", got " + shown(j));
}

// speed, loopMode, repetitions, endMode of an object.
void policy_fields(const json& j, const std::string& path, PolicyOverrides& p) {
  if (j.contains("speed")) p.speed = number(j["speed"], path + ".speed");
  if (j.contains("loopMode")) p.loop_mode = loop_mode(j["loopMode"], path + ".loopMode");
  if (j.contains("repetitions")) {
    const int64_t n = integer(j["repetitions"], path + ".repetitions");
    if (n < std::numeric_limits<int32_t>::min() || n > std::numeric_limits<int32_t>::max()) {
      fail(path + ".repetitions", "out of range: " + shown(j["repetitions"]));
    }
    p.repetitions = int32_t(n);
  }
  if (j.contains("endMode")) p.end_mode = end_mode(j["endMode"], path + ".endMode");
}

const json& required(const json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) fail(path, std::string("missing \"") + key + "\"");
  return j[key];
}

// A clip's "events": names of 1 to kMaxEventNameBytes bytes, times in [0, duration], in order.
FrameClipEvents clip_events(const json& j, const ClipBand& b, const std::string& path) {
  FrameClipEvents out{b.first_row, b.rows, b.rows > 1 ? float(double(b.rows - 1) / double(b.fps)) : 0.0f, {}};
  if (!j.is_array()) fail(path, "expected an array, got " + shown(j));
  if (j.size() > kMaxClipEvents) fail(path, std::to_string(j.size()) + " events, at most 65536");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = path + "[" + std::to_string(i) + "]";
    only_fields(j[i], p, {"name", "time"});
    const json& name = required(j[i], "name", p);
    if (!name.is_string() || name.get<std::string>().empty() || name.get<std::string>().size() > kMaxEventNameBytes) {
      fail(p + ".name", "expected a name of 1 to 256 bytes, got " + shown(name));
    }
    const float time = number(required(j[i], "time", p), p + ".time");
    if (!(time >= 0.0f && time <= out.duration_s)) {
      fail(p + ".time", float_text(time) + " is outside the clip's [0, " + float_text(out.duration_s) + "] s");
    }
    if (!out.events.empty() && time < out.events.back().time_s) fail(p + ".time", "before the previous event's");
    out.events.push_back({name.get<std::string>(), time});
  }
  return out;
}

// A CLIP object; its events, if any, go to `events`.
ClipBand clip(const json& j, const std::string& path, std::vector<FrameClipEvents>& events) {
  only_fields(j, path, {"startFrame", "frames", "fps", "loopMode", "repetitions", "endMode", "speed", "events"});
  ClipBand b;
  b.first_row = row_count(required(j, "startFrame", path), path + ".startFrame");
  b.rows = row_count(required(j, "frames", path), path + ".frames");
  b.fps = number(required(j, "fps", path), path + ".fps");
  policy_fields(j, path, b.defaults);
  if (j.contains("events")) events.push_back(clip_events(j["events"], b, path + ".events"));
  return b;
}

Instance instance(const json& j, const std::string& path, std::vector<FrameClipEvents>& events) {
  only_fields(j, path,
              {"clip", "startTime", "speed", "loopMode", "repetitions", "endMode", "blend", "fadeDuration", "fadeCurve",
               "fadeStart", "fadeWeight", "from"});
  Instance in;
  in.clip = clip(required(j, "clip", path), path + ".clip", events);
  in.start_time = number(required(j, "startTime", path), path + ".startTime");
  policy_fields(j, path, in.policy);
  if (j.contains("blend")) {
    const json& b = j["blend"];
    const std::string bp = path + ".blend";
    only_fields(b, bp, {"clip", "weight", "sync", "weightFrom"});
    Blend bl;
    bl.clip = clip(required(b, "clip", bp), bp + ".clip", events);
    bl.weight = number(required(b, "weight", bp), bp + ".weight");
    if (b.contains("sync")) {
      if (b["sync"] == "phase") {
        bl.sync = BlendSync::Phase;
      } else if (b["sync"] == "time") {
        bl.sync = BlendSync::Time;
      } else {
        fail(bp + ".sync", "expected \"phase\" or \"time\", got " + shown(b["sync"]));
      }
    }
    if (b.contains("weightFrom")) bl.weight_from = number(b["weightFrom"], bp + ".weightFrom");
    in.blend = bl;
  }
  if (j.contains("fadeDuration")) in.fade_duration = number(j["fadeDuration"], path + ".fadeDuration");
  if (j.contains("fadeCurve")) {
    if (j["fadeCurve"] == "linear") {
      in.fade_curve = FadeCurve::Linear;
    } else if (j["fadeCurve"] == "smooth") {
      in.fade_curve = FadeCurve::Smooth;
    } else {
      fail(path + ".fadeCurve", "expected \"linear\" or \"smooth\", got " + shown(j["fadeCurve"]));
    }
  }
  if (j.contains("fadeStart")) in.fade_start = number(j["fadeStart"], path + ".fadeStart");
  if (j.contains("fadeWeight")) in.fade_weight = number(j["fadeWeight"], path + ".fadeWeight");
  if (j.contains("from")) {
    const json& f = j["from"];
    const std::string fp = path + ".from";
    only_fields(f, fp, {"clip", "startTime", "speed", "loopMode", "repetitions", "endMode"});
    Outgoing o;
    o.clip = clip(required(f, "clip", fp), fp + ".clip", events);
    o.start_time = number(required(f, "startTime", fp), fp + ".startTime");
    policy_fields(f, fp, o.policy);
    in.from = o;
  }
  return in;
}

void append_band(std::string& out, const BandSample& b, const char* suffix) {
  auto key = [&](const char* name) { return std::string("\"") + name + suffix + "\": "; };
  out += key("row") + std::to_string(b.row) + ", ";
  out += key("rowNext") + std::to_string(b.row_next) + ", ";
  out += key("mix") + float_text(b.mix) + ", ";
  out += key("wraps") + (b.wraps ? "true" : "false") + ", ";
  out += key("finished") + (b.finished ? "true" : "false") + ", ";
  out += key("phase") + float_text(b.phase) + ", ";
}

}  // namespace

std::string float_text(float value) {
  char text[48];
  auto written = std::to_chars(text, text + sizeof(text), value);
  double as_double = 0.0;
  vatkit::detail::floating_from_chars(text, written.ptr, as_double);
  if (static_cast<float>(as_double) != value) {
    written = std::to_chars(text, text + sizeof(text), static_cast<double>(value));
  }
  return std::string(text, written.ptr);
}

namespace {

// One "set" entry: {"now", "instance"} or {"now", "control"}.
FrameWrite frame_write(const json& j, const std::string& p, std::vector<FrameClipEvents>& events) {
  only_fields(j, p, {"now", "instance", "control"});
  FrameWrite w;
  w.now = number(required(j, "now", p), p + ".now");
  if (j.contains("control") == j.contains("instance")) fail(p, "needs either \"instance\" or \"control\"");
  if (j.contains("instance")) {
    w.instance = instance(j["instance"], p + ".instance", events);
    return w;
  }
  const json& c = j["control"];
  const std::string name = c.is_string() ? c.get<std::string>() : std::string();
  if (name == "pause") {
    w.control = FrameControl::Pause;
  } else if (name == "resume") {
    w.control = FrameControl::Resume;
  } else if (name == "turnBack") {
    w.control = FrameControl::TurnBack;
  } else {
    fail(p + ".control", "expected \"pause\", \"resume\" or \"turnBack\", got " + shown(c));
  }
  return w;
}

Result<void> apply_write(InstanceTable& table, const FrameWrite& w) {
  switch (w.control) {
    case FrameControl::Pause: return pause(table, 0, w.now);
    case FrameControl::Resume: return resume(table, 0, w.now);
    case FrameControl::TurnBack: return turn_back(table, 0, w.now);
    case FrameControl::None: break;
  }
  return set_instance(table, 0, w.instance, w.now);
}

}  // namespace

Result<FrameQuery> parse_frame_query(std::string_view line) {
  if (!detail::json_depth_ok(line)) return Error{ErrorCode::Limit, std::string("line: ") + detail::kJsonTooDeep};
  json j;
  try {
    j = json::parse(line.begin(), line.end());
  } catch (const json::parse_error& e) {
    // e.byte: the 1-based position of the byte where the parser gave up (the line's column).
    return Error{ErrorCode::Parse, "column " + std::to_string(e.byte) + ": not a JSON value (one object per line)"};
  } catch (const json::exception& e) {  // a number out of double's range: "number overflow parsing '1e4444'"
    return Error{ErrorCode::Parse, "not a JSON value: " + detail::json_error_text(e.what())};
  }
  try {
    only_fields(j, "line", {"instance", "time", "set", "expect", "since"});
    FrameQuery q;
    q.instance = instance(required(j, "instance", "line"), "instance", q.clip_events);
    q.time = number(required(j, "time", "line"), "time");
    if (j.contains("since")) q.since = number(j["since"], "since");
    if (j.contains("set")) {
      const json& s = j["set"];
      if (!s.is_array()) fail("set", "expected an array, got " + shown(s));
      for (size_t i = 0; i < s.size(); ++i) {
        const std::string p = "set[" + std::to_string(i) + "]";
        q.writes.push_back(frame_write(s[i], p, q.clip_events));
      }
    }
    if (j.contains("expect")) {
      if (!j["expect"].is_object()) fail("expect", "expected an object, got " + shown(j["expect"]));
      q.expect = j["expect"].dump();
    }
    return q;
  } catch (const Fail& f) {
    return Error{ErrorCode::Argument, f.message};
  }
}

namespace {

// Appends the events `pb`'s bands cross in (t0, t1], by name; more than kMaxFrameEvents in all is
// an error, checked before the work.
Result<void> crossed_events(const FrameQuery& q, const Playback& pb, float t0, float t1, std::vector<FrameEvent>& out) {
  auto band_of = [&](const Track& t) {
    for (const FrameClipEvents& c : q.clip_events) {
      if (c.first_row == t.first_row && c.rows == t.rows)
        return std::make_pair(&c, BandEvents{c.events, c.duration_s, 0});
    }
    return std::make_pair(static_cast<const FrameClipEvents*>(nullptr), BandEvents{});
  };
  const auto a = band_of(pb.primary);
  const auto b = band_of(pb.second);
  const double bound = events_crossed_bound(pb, a.second, b.second, t0, t1) + double(out.size());
  if (bound > double(kMaxFrameEvents)) {
    return Error{ErrorCode::Limit, "since: the bands may cross up to " + std::to_string(uint64_t(bound)) +
                                       " events in (since, time], more than " + std::to_string(kMaxFrameEvents) +
                                       " a line reports: ask for a shorter span"};
  }
  std::vector<FiredEvent> fired;
  events_crossed(pb, a.second, b.second, t0, t1, fired);
  for (const FiredEvent& f : fired) {
    const FrameClipEvents* clip = f.band == 0 ? a.first : b.first;
    out.push_back({clip->events[f.event].name, f.time, f.band, f.weight});
  }
  return {};
}

}  // namespace

Result<FrameAnswer> run_frame_query(const FrameQuery& q) {
  FrameAnswer answer;
  Result<Playback> first = compile(q.instance);
  if (!first) return Error{first.error().code, "instance: " + first.error().message};
  if (q.writes.empty()) {
    answer.frame = resolve(*first, q.time);
    answer.ends_at = ends_at(*first);
    if (q.since) {
      answer.events.emplace();
      if (auto r = crossed_events(q, *first, *q.since, q.time, *answer.events); !r) return r.error();
    }
    return answer;
  }
  InstanceTable table(1);
  write_playback(table, 0, *first);
  // With "since", each write splits the span: the playback in force before a write at `now`
  // reports (.., now], the one after it (now, ..] (a resumed or turned-back play's rewritten start
  // times describe only what it plays from `now` on).
  float from = q.since.value_or(q.time);
  if (q.since) answer.events.emplace();
  for (size_t i = 0; i < q.writes.size(); ++i) {
    const float cut = std::min(q.writes[i].now, q.time);
    if (q.since && cut > from) {
      if (auto r = crossed_events(q, playback(table, 0), from, cut, *answer.events); !r) return r.error();
      from = cut;
    }
    if (auto r = apply_write(table, q.writes[i]); !r) {
      return Error{r.error().code, "set[" + std::to_string(i) + "]: " + r.error().message};
    }
  }
  answer.frame = resolve(table, 0, q.time);
  answer.ends_at = ends_at(table, 0);
  if (q.since) {
    if (auto r = crossed_events(q, playback(table, 0), from, q.time, *answer.events); !r) return r.error();
  }
  return answer;
}

namespace {

const char* loop_text(LoopMode m) {
  return m == LoopMode::Repeat ? "repeat" : m == LoopMode::Once ? "once" : "pingpong";
}

// ,"speed":S,"loopMode":M,"repetitions":N,"endMode":E for the fields `p` sets.
void append_policy(std::string& out, const PolicyOverrides& p) {
  if (p.speed) out += ",\"speed\":" + float_text(*p.speed);
  if (p.loop_mode) out += std::string(",\"loopMode\":\"") + loop_text(*p.loop_mode) + "\"";
  if (p.repetitions) out += ",\"repetitions\":" + std::to_string(*p.repetitions);
  if (p.end_mode) out += std::string(",\"endMode\":\"") + (*p.end_mode == EndMode::Clamp ? "clamp" : "rewind") + "\"";
}

std::string clip_json(const ClipBand& b) {
  std::string out = "{\"startFrame\":" + std::to_string(b.first_row) + ",\"frames\":" + std::to_string(b.rows) +
                    ",\"fps\":" + float_text(b.fps);
  append_policy(out, b.defaults);
  return out + "}";
}

}  // namespace

std::string instance_json(const Instance& in) {
  std::string out = "{\"clip\":" + clip_json(in.clip) + ",\"startTime\":" + float_text(in.start_time);
  append_policy(out, in.policy);
  if (in.blend) {
    out += ",\"blend\":{\"clip\":" + clip_json(in.blend->clip) + ",\"weight\":" + float_text(in.blend->weight) +
           ",\"sync\":\"" + (in.blend->sync == BlendSync::Phase ? "phase" : "time") + "\"";
    if (in.blend->weight_from) out += ",\"weightFrom\":" + float_text(*in.blend->weight_from);
    out += "}";
  }
  if (in.fade_duration != 0.0f) out += ",\"fadeDuration\":" + float_text(in.fade_duration);
  if (in.fade_curve != FadeCurve::Linear) out += ",\"fadeCurve\":\"smooth\"";
  if (in.fade_start) out += ",\"fadeStart\":" + float_text(*in.fade_start);
  if (in.fade_weight != 1.0f) out += ",\"fadeWeight\":" + float_text(in.fade_weight);
  if (in.from) {
    out += ",\"from\":{\"clip\":" + clip_json(in.from->clip) + ",\"startTime\":" + float_text(in.from->start_time);
    append_policy(out, in.from->policy);
    out += "}";
  }
  return out + "}";
}

std::string frame_json(const FrameAnswer& a) {
  std::string out = "{";
  append_band(out, a.frame.a, "");
  append_band(out, a.frame.b, "B");
  out += "\"weight\": " + float_text(a.frame.weight) + ", ";
  out += std::string("\"kind\": \"") + to_string(a.frame.kind) + "\", ";
  out += "\"endsAt\": " + (a.ends_at ? float_text(*a.ends_at) : std::string("null"));
  if (a.events) {
    out += ", \"events\": [";
    for (size_t i = 0; i < a.events->size(); ++i) {
      const FrameEvent& e = (*a.events)[i];
      out += std::string(i == 0 ? "" : ", ") +
             "{\"name\": " + json(e.name).dump(-1, ' ', true, json::error_handler_t::replace) +
             ", \"time\": " + float_text(e.time) + ", \"band\": \"" + (e.band == 0 ? "a" : "b") +
             "\", \"weight\": " + float_text(e.weight) + "}";
    }
    out += "]";
  }
  return out + "}";
}

namespace {

// Equal JSON values, numbers compared as float32 bits (-0 distinct from 0) at any depth (the
// "events" array's times and weights), everything else exactly.
bool same_as_float32(const json& w, const json& g) {
  if (w.is_number() && g.is_number()) {
    const auto wf = static_cast<float>(w.get<double>());
    const auto gf = static_cast<float>(g.get<double>());
    return std::memcmp(&wf, &gf, 4) == 0;
  }
  if (w.is_array() && g.is_array()) {
    return w.size() == g.size() && std::equal(w.begin(), w.end(), g.begin(), same_as_float32);
  }
  if (w.is_object() && g.is_object()) {
    if (w.size() != g.size()) return false;
    for (auto it = w.begin(); it != w.end(); ++it) {
      if (!g.contains(it.key()) || !same_as_float32(it.value(), g[it.key()])) return false;
    }
    return true;
  }
  return w == g;
}

}  // namespace

Result<void> check_frame_json(std::string_view expected, const FrameAnswer& answer) {
  if (!detail::json_depth_ok(expected)) return Error{ErrorCode::Limit, std::string("expect: ") + detail::kJsonTooDeep};
  const json want = json::parse(expected.begin(), expected.end(), nullptr, false);
  if (want.is_discarded() || !want.is_object()) return Error{ErrorCode::Parse, "expect: not a JSON object"};
  const json got = json::parse(frame_json(answer));
  for (auto it = got.begin(); it != got.end(); ++it) {
    if (!want.contains(it.key())) return Error{ErrorCode::Argument, "expect: missing " + shown_key(it.key())};
    const json& w = want[it.key()];
    const json& g = it.value();
    if (!same_as_float32(w, g)) {
      return Error{ErrorCode::Argument, it.key() + ": expected " + shown(w) + ", got " + shown(g)};
    }
  }
  for (auto it = want.begin(); it != want.end(); ++it) {
    if (!got.contains(it.key())) return Error{ErrorCode::Argument, "expect: unknown field " + shown_key(it.key())};
  }
  return {};
}

}  // namespace vatkit
