// The C interface (vatkit/vatkit_c.h) over the C++ runtime: argument checks, conversions between
// the plain structs and the runtime's types, and the boundary that turns every Result error and
// every exception into a status and the calling thread's message.
#include "vatkit/vatkit_c.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <glm/gtc/type_ptr.hpp>

#include "vatkit/decode.h"
#include "vatkit/events.h"
#include "vatkit/instance_table.h"
#include "vatkit/mirror.h"
#include "vatkit/playback.h"
#include "vatkit/result.h"
#include "vatkit/vat.h"
#include "vatkit/vat_file.h"

#ifndef VATKIT_VERSION
#define VATKIT_VERSION "unknown"
#endif

// Layouts other languages declare field for field (docs/c-api.md lists the sizes).
static_assert(sizeof(vatkit_vat_info) == 48);
static_assert(sizeof(vatkit_clip_info) == sizeof(void*) + 64);
static_assert(offsetof(vatkit_clip_info, bounds_max) == sizeof(void*) + 52);
static_assert(sizeof(vatkit_slot_info) == sizeof(void*) + 8);
static_assert(sizeof(vatkit_band_sample) == 24);
static_assert(sizeof(vatkit_sample) == 56 && offsetof(vatkit_sample, weight) == 48);
static_assert(sizeof(vatkit_instance) == 56 && offsetof(vatkit_instance, fade_start) == 52);
static_assert(sizeof(vatkit_row_range) == 8 && sizeof(vatkit_event) == 12 && sizeof(vatkit_rebase_report) == 16);
// The status of an ErrorCode is the code plus one.
static_assert(uint8_t(vatkit::ErrorCode::Io) + 1 == VATKIT_ERROR_IO &&
              uint8_t(vatkit::ErrorCode::Gl) + 1 == VATKIT_ERROR_GL);
// The decode writes x, y, z per vertex into the caller's floats.
static_assert(sizeof(glm::vec3) == 3 * sizeof(float) && alignof(glm::vec3) == alignof(float));
static_assert(sizeof(vatkit::PackedInstance) == 24 * sizeof(float));

struct vatkit_vat {
  std::shared_ptr<const vatkit::Vat> vat;
};

// Ranges and events taken from the table but not yet handed out (a caller's array was full).
template <class T>
struct Pending {
  std::vector<T> items;
  size_t next = 0;  // items[0, next) were handed out
  bool empty() const { return next == items.size(); }
  // Forgets what was handed out, then keeps the waiting items `keep` accepts (it may edit them).
  template <class Keep>
  void filter(Keep&& keep) {
    items.erase(items.begin(), items.begin() + std::ptrdiff_t(next));
    next = 0;
    std::erase_if(items, [&](T& item) { return !keep(item); });
  }
};

struct vatkit_instance_table {
  std::shared_ptr<const vatkit::Vat> vat;
  vatkit::InstanceTable table;
  Pending<vatkit::RowRange> dirty;
  Pending<vatkit::PlaybackEvent> events;
};

namespace {

thread_local std::string t_last_error;

// Thrown inside the boundary by the argument checks below; caught by guarded().
struct CallError {
  vatkit::Error error;
};

[[noreturn]] void fail(vatkit::ErrorCode code, const std::string& file, const std::string& what) {
  throw CallError{vatkit::make_error(code, file, what)};
}
[[noreturn]] void fail_argument(const char* function, const std::string& what) {
  fail(vatkit::ErrorCode::Argument, "", std::string(function) + ": " + what);
}
template <class T>
T take(vatkit::Result<T> result) {
  if (!result) throw CallError{result.error()};
  return std::move(result).value();
}
void take(const vatkit::Result<void>& result) {
  if (!result) throw CallError{result.error()};
}

// Runs `body` (which throws CallError on failure), sets the calling thread's message and returns
// the status. Nothing escapes into C.
template <class F>
vatkit_status guarded(const char* function, F&& body) noexcept {
  try {
    body();
    t_last_error.clear();
    return VATKIT_OK;
  } catch (const CallError& e) {
    t_last_error = e.error.message;
    return vatkit_status(uint8_t(e.error.code) + 1);
  } catch (const std::bad_alloc&) {
    t_last_error = std::string(function) + ": out of memory";
    return VATKIT_ERROR_LIMIT;
  } catch (const std::exception& e) {
    t_last_error = std::string(function) + ": internal error: " + e.what();
    return VATKIT_ERROR_INTERNAL;
  } catch (...) {
    t_last_error = std::string(function) + ": internal error";
    return VATKIT_ERROR_INTERNAL;
  }
}

template <class T>
T& need(T* pointer, const char* function, const char* name) {
  if (pointer == nullptr) fail_argument(function, std::string(name) + " is NULL");
  return *pointer;
}

const vatkit::Vat& vat_of(const vatkit_vat* vat, const char* function) { return *need(vat, function, "vat").vat; }

void check_index(uint32_t index, size_t count, const std::string& file, const char* function, const char* what,
                 const char* of) {
  if (index >= count) {
    fail(vatkit::ErrorCode::Argument, file,
         std::string(function) + ": " + what + " " + std::to_string(index) + " is out of range (" +
             std::to_string(count) + " " + of + ")");
  }
}
void check_finite(float value, const char* function, const char* name) {
  if (!std::isfinite(value)) fail_argument(function, std::string(name) + " is not finite");
}
// An enumeration field's value, checked against its last value.
template <class E>
E enum_value(int32_t value, int32_t last, const char* function, const char* name) {
  if (value < 0 || value > last) {
    fail_argument(function,
                  std::string(name) + " " + std::to_string(value) + " is not one of 0.." + std::to_string(last));
  }
  return E(uint8_t(value));
}

void copy3(const glm::vec3& v, float* out) { std::memcpy(out, &v, sizeof v); }

vatkit_band_sample to_c(const vatkit::BandSample& b) {
  return {b.row, b.row_next, b.mix, b.phase, uint32_t(b.wraps), uint32_t(b.finished)};
}
vatkit_sample to_c(const vatkit::PlaybackSample& s) {
  return {to_c(s.a), to_c(s.b), s.weight, int32_t(uint8_t(s.kind))};
}
vatkit::BandSample from_c(const vatkit_band_sample& b) {
  return {b.row, b.row_next, b.mix, b.phase, b.wraps != 0, b.finished != 0};
}
vatkit::PlaybackSample from_c(const vatkit_sample& s, const char* function) {
  vatkit::PlaybackSample out;
  out.a = from_c(s.a);
  out.b = from_c(s.b);
  if (!(s.weight >= 0.0f && s.weight <= 1.0f)) fail_argument(function, "sample weight is outside [0, 1]");
  if (!(std::isfinite(s.a.mix) && std::isfinite(s.b.mix))) fail_argument(function, "sample mix is not finite");
  out.weight = s.weight;
  out.kind = enum_value<vatkit::MixKind>(s.kind, 2, function, "sample kind");
  return out;
}
glm::mat4 world_of(const float* world) { return world ? glm::make_mat4(world) : glm::mat4(1.0f); }

// vatkit_instance -> vatkit::Instance, its clips those of `vat`.
vatkit::Instance from_c(const vatkit::Vat& vat, const vatkit_instance& in, const char* function) {
  constexpr uint32_t known = VATKIT_FIELD_LOOP_MODE | VATKIT_FIELD_REPETITIONS | VATKIT_FIELD_END_MODE |
                             VATKIT_FIELD_SPEED | VATKIT_FIELD_BLEND | VATKIT_FIELD_BLEND_WEIGHT_FROM |
                             VATKIT_FIELD_FADE_START;
  if (in.fields & ~known)
    fail_argument(function, "instance fields has unknown bits " + std::to_string(in.fields & ~known));
  auto has = [&](uint32_t bit) { return (in.fields & bit) != 0; };
  vatkit::Instance out;
  check_index(in.clip, vat.clips.size(), vat.source, function, "clip", "clips");
  out.clip = vatkit::clip_band(vat, in.clip);
  out.start_time = in.start_time;
  if (has(VATKIT_FIELD_LOOP_MODE))
    out.policy.loop_mode = enum_value<vatkit::LoopMode>(in.loop_mode, 2, function, "loop_mode");
  if (has(VATKIT_FIELD_REPETITIONS)) out.policy.repetitions = in.repetitions;
  if (has(VATKIT_FIELD_END_MODE))
    out.policy.end_mode = enum_value<vatkit::EndMode>(in.end_mode, 1, function, "end_mode");
  if (has(VATKIT_FIELD_SPEED)) out.policy.speed = in.speed;
  if (has(VATKIT_FIELD_BLEND)) {
    check_index(in.blend_clip, vat.clips.size(), vat.source, function, "blend_clip", "clips");
    vatkit::Blend blend;
    blend.clip = vatkit::clip_band(vat, in.blend_clip);
    blend.weight = in.blend_weight;
    blend.sync = enum_value<vatkit::BlendSync>(in.blend_sync, 1, function, "blend_sync");
    if (has(VATKIT_FIELD_BLEND_WEIGHT_FROM)) blend.weight_from = in.blend_weight_from;
    out.blend = blend;
  } else if (has(VATKIT_FIELD_BLEND_WEIGHT_FROM)) {
    fail_argument(function, "blend_weight_from is set without VATKIT_FIELD_BLEND");
  }
  out.fade_duration = in.fade_duration;
  out.fade_curve = enum_value<vatkit::FadeCurve>(in.fade_curve, 1, function, "fade_curve");
  if (has(VATKIT_FIELD_FADE_START)) out.fade_start = in.fade_start;
  return out;
}

vatkit_instance_table& table_of(vatkit_instance_table* table, const char* function) {
  return need(table, function, "table");
}
const vatkit_instance_table& table_of(const vatkit_instance_table* table, const char* function) {
  return need(table, function, "table");
}
void check_instance_index(const vatkit_instance_table& t, uint32_t index, const char* function) {
  check_index(index, t.table.size(), t.vat->source, function, "instance", "instances in the table");
}

// Hands out up to `capacity` pending items, refilling the pending list with `refill` when it is
// empty; the C array receives them converted by `convert`.
template <class T, class C, class Refill, class Convert>
void hand_out(Pending<T>& pending, C* out, size_t capacity, size_t* count, Refill&& refill, Convert&& convert,
              const char* function) {
  need(count, function, "count");
  if (capacity > 0) need(out, function, "out");
  if (pending.empty()) {
    pending.items.clear();
    pending.next = 0;
    refill(pending.items);
  }
  const size_t n = std::min(capacity, pending.items.size() - pending.next);
  for (size_t i = 0; i < n; ++i) out[i] = convert(pending.items[pending.next + i]);
  pending.next += n;
  *count = n;
}

}  // namespace

extern "C" {

uint32_t vatkit_abi_version(void) { return VATKIT_C_ABI_VERSION; }
const char* vatkit_version(void) { return VATKIT_VERSION; }
const char* vatkit_last_error(void) { return t_last_error.c_str(); }

const char* vatkit_status_name(vatkit_status status) {
  if (status == VATKIT_OK) return "ok";
  if (status == VATKIT_ERROR_INTERNAL) return "internal";
  if (status >= VATKIT_ERROR_IO && status <= VATKIT_ERROR_GL) return vatkit::to_string(vatkit::ErrorCode(status - 1));
  return "unknown";
}

vatkit_status vatkit_vat_load(const char* path, vatkit_vat** out) {
  constexpr const char* function = "vatkit_vat_load";
  if (out) *out = nullptr;
  return guarded(function, [&] {
    need(out, function, "out");
    need(path, function, "path");
    auto vat = std::make_shared<const vatkit::Vat>(take(vatkit::load_vat(path)));
    *out = new vatkit_vat{std::move(vat)};
  });
}

vatkit_status vatkit_vat_load_memory(const void* bytes, size_t size, const char* name, vatkit_vat** out) {
  constexpr const char* function = "vatkit_vat_load_memory";
  if (out) *out = nullptr;
  return guarded(function, [&] {
    need(out, function, "out");
    if (bytes == nullptr && size > 0) fail_argument(function, "bytes is NULL");
    const auto* first = static_cast<const uint8_t*>(bytes);
    auto copy = std::make_shared<const std::vector<uint8_t>>(first, first + size);
    auto vat =
        std::make_shared<const vatkit::Vat>(take(vatkit::load_vat_memory(*copy, name ? name : "<memory>", copy)));
    *out = new vatkit_vat{std::move(vat)};
  });
}

void vatkit_vat_free(vatkit_vat* vat) { delete vat; }

vatkit_status vatkit_vat_get_info(const vatkit_vat* vat, vatkit_vat_info* out) {
  constexpr const char* function = "vatkit_vat_get_info";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    vatkit_vat_info& info = need(out, function, "out");
    info = {};
    info.encoding = int32_t(uint8_t(v.encoding));
    info.precision = int32_t(uint8_t(v.precision));
    info.vertex_count = v.geometry.vertex_count();
    info.clip_count = uint32_t(v.clips.size());
    info.slot_count = uint32_t(v.slots.size());
    info.frame_rows = v.frame_rows;
    copy3(v.bounds.min, info.bounds_min);
    copy3(v.bounds.max, info.bounds_max);
  });
}

vatkit_status vatkit_vat_clip(const vatkit_vat* vat, uint32_t clip, vatkit_clip_info* out) {
  constexpr const char* function = "vatkit_vat_clip";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    vatkit_clip_info& info = need(out, function, "out");
    check_index(clip, v.clips.size(), v.source, function, "clip", "clips");
    const vatkit::VatClip& c = v.clips[clip];
    info = {};
    info.name = c.name.c_str();
    info.source_animation = c.source_animation;
    info.first_row = c.first_row;
    info.rows = c.rows;
    info.fps = c.fps;
    info.duration_s = c.duration_s;
    info.loop_mode = int32_t(uint8_t(c.defaults.loop_mode));
    info.repetitions = c.defaults.repetitions;
    info.end_mode = int32_t(uint8_t(c.defaults.end_mode));
    info.speed = c.defaults.speed;
    info.max_delta = c.max_delta;
    copy3(c.bounds.min, info.bounds_min);
    copy3(c.bounds.max, info.bounds_max);
  });
}

vatkit_status vatkit_vat_find_clip(const vatkit_vat* vat, const char* selector, uint32_t* clip) {
  constexpr const char* function = "vatkit_vat_find_clip";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    need(clip, function, "clip");
    need(selector, function, "selector");
    *clip = uint32_t(take(vatkit::find_clip(v, selector)));
  });
}

vatkit_status vatkit_vat_slot(const vatkit_vat* vat, uint32_t slot, vatkit_slot_info* out) {
  constexpr const char* function = "vatkit_vat_slot";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    vatkit_slot_info& info = need(out, function, "out");
    check_index(slot, v.slots.size(), v.source, function, "slot", "slots");
    info = {};
    info.name = v.slots[slot].name.c_str();
    info.node = v.slots[slot].node;
  });
}

vatkit_status vatkit_vat_clip_event_count(const vatkit_vat* vat, uint32_t clip, uint32_t* count) {
  constexpr const char* function = "vatkit_vat_clip_event_count";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    check_index(clip, v.clips.size(), v.source, function, "clip", "clips");
    need(count, function, "count") = uint32_t(v.clips[clip].events.size());
  });
}

vatkit_status vatkit_vat_clip_event(const vatkit_vat* vat, uint32_t clip, uint32_t event, vatkit_clip_event* out) {
  constexpr const char* function = "vatkit_vat_clip_event";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    vatkit_clip_event& info = need(out, function, "out");
    check_index(clip, v.clips.size(), v.source, function, "clip", "clips");
    const auto& events = v.clips[clip].events;
    check_index(event, events.size(), v.source, function, "event", "events of the clip");
    info = {};
    info.name = events[event].name.c_str();
    info.time_s = events[event].time_s;
  });
}

vatkit_status vatkit_vat_find_slot(const vatkit_vat* vat, const char* name, uint32_t* slot) {
  constexpr const char* function = "vatkit_vat_find_slot";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    need(slot, function, "slot");
    need(name, function, "name");
    *slot = uint32_t(take(vatkit::find_slot(v, std::string(name))));
  });
}

vatkit_status vatkit_clip_sample(const vatkit_vat* vat, uint32_t clip, float time_s, vatkit_sample* out) {
  constexpr const char* function = "vatkit_clip_sample";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    need(out, function, "out");
    check_index(clip, v.clips.size(), v.source, function, "clip", "clips");
    check_finite(time_s, function, "time_s");
    const vatkit::RowBlend rows = vatkit::clip_rows_at(v, clip, time_s);
    const vatkit::VatClip& c = v.clips[clip];
    vatkit::PlaybackSample sample;
    sample.a.row = rows.row;
    sample.a.row_next = rows.row_next;
    sample.a.mix = rows.mix;
    sample.a.phase = c.rows > 1 ? (float(rows.row - c.first_row) + rows.mix) / float(c.rows - 1) : 0.0f;
    sample.b = sample.a;
    *out = to_c(sample);
  });
}

vatkit_status vatkit_mirror_vertices(const vatkit_vat* vat, const vatkit_sample* sample, const float* world,
                                     uint32_t first_vertex, uint32_t count, float* positions, float* normals) {
  constexpr const char* function = "vatkit_mirror_vertices";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    const vatkit::PlaybackSample s = from_c(need(sample, function, "sample"), function);
    if (positions == nullptr && normals == nullptr) fail_argument(function, "positions and normals are both NULL");
    auto span = [&](float* floats) {
      return floats ? std::span<glm::vec3>(reinterpret_cast<glm::vec3*>(floats), count) : std::span<glm::vec3>();
    };
    take(vatkit::mirror_vertices(v, s, world_of(world), first_vertex, span(positions), span(normals)));
  });
}

vatkit_status vatkit_mirror_joint(const vatkit_vat* vat, const vatkit_sample* sample, const float* world, uint32_t slot,
                                  float* out) {
  constexpr const char* function = "vatkit_mirror_joint";
  return guarded(function, [&] {
    const vatkit::Vat& v = vat_of(vat, function);
    const vatkit::PlaybackSample s = from_c(need(sample, function, "sample"), function);
    need(out, function, "out");
    const glm::mat4 joint = take(vatkit::mirror_joint(v, s, world_of(world), slot));
    std::memcpy(out, glm::value_ptr(joint), sizeof joint);
  });
}

vatkit_status vatkit_table_create(const vatkit_vat* vat, uint32_t count, vatkit_instance_table** out) {
  constexpr const char* function = "vatkit_table_create";
  if (out) *out = nullptr;
  return guarded(function, [&] {
    need(out, function, "out");
    const auto& shared = need(vat, function, "vat").vat;
    *out = new vatkit_instance_table{shared, vatkit::InstanceTable(count, shared->frame_rows), {}, {}};
  });
}

void vatkit_table_free(vatkit_instance_table* table) { delete table; }

uint32_t vatkit_table_size(const vatkit_instance_table* table) { return table ? table->table.size() : 0; }

vatkit_status vatkit_table_resize(vatkit_instance_table* table, uint32_t count) {
  constexpr const char* function = "vatkit_table_resize";
  return guarded(function, [&] {
    vatkit_instance_table& t = table_of(table, function);
    t.table.resize(count);
    // Nothing handed out later may name a dropped row.
    t.dirty.filter([&](vatkit::RowRange& r) {
      r.count = r.first >= count ? 0 : std::min(r.count, count - r.first);
      return r.count > 0;
    });
    t.events.filter([&](const vatkit::PlaybackEvent& e) { return e.index < count; });
  });
}

vatkit_status vatkit_table_set_instance(vatkit_instance_table* table, uint32_t index, const vatkit_instance* instance,
                                        float now) {
  constexpr const char* function = "vatkit_table_set_instance";
  return guarded(function, [&] {
    vatkit_instance_table& t = table_of(table, function);
    check_instance_index(t, index, function);
    const vatkit::Instance in = from_c(*t.vat, need(instance, function, "instance"), function);
    if (vatkit::Result<void> ok = vatkit::set_instance(t.table, index, in, now); !ok)
      fail(ok.error().code, t.vat->source, ok.error().message);
  });
}

namespace {

vatkit_status table_control(vatkit_instance_table* table, uint32_t index, float now, const char* function,
                            vatkit::Result<void> (*control)(vatkit::InstanceTable&, uint32_t, float)) {
  return guarded(function, [&] {
    vatkit_instance_table& t = table_of(table, function);
    check_instance_index(t, index, function);
    if (vatkit::Result<void> ok = control(t.table, index, now); !ok)
      fail(ok.error().code, t.vat->source, ok.error().message);
  });
}

}  // namespace

vatkit_status vatkit_table_pause(vatkit_instance_table* table, uint32_t index, float now) {
  return table_control(table, index, now, "vatkit_table_pause", vatkit::pause);
}

vatkit_status vatkit_table_resume(vatkit_instance_table* table, uint32_t index, float now) {
  return table_control(table, index, now, "vatkit_table_resume", vatkit::resume);
}

vatkit_status vatkit_table_turn_back(vatkit_instance_table* table, uint32_t index, float now) {
  return table_control(table, index, now, "vatkit_table_turn_back", vatkit::turn_back);
}

vatkit_status vatkit_table_resolve(const vatkit_instance_table* table, uint32_t index, float time, vatkit_sample* out) {
  constexpr const char* function = "vatkit_table_resolve";
  return guarded(function, [&] {
    const vatkit_instance_table& t = table_of(table, function);
    check_instance_index(t, index, function);
    check_finite(time, function, "time");
    need(out, function, "out") = to_c(vatkit::resolve(t.table, index, time));
  });
}

vatkit_status vatkit_table_events_crossed(const vatkit_instance_table* table, uint32_t index, float t0, float t1,
                                          vatkit_crossing* out, size_t capacity, size_t* count) {
  constexpr const char* function = "vatkit_table_events_crossed";
  return guarded(function, [&] {
    const vatkit_instance_table& t = table_of(table, function);
    check_instance_index(t, index, function);
    check_finite(t0, function, "t0");
    check_finite(t1, function, "t1");
    need(count, function, "count");
    if (capacity > 0) need(out, function, "out");
    std::vector<vatkit::FiredEvent> fired;
    vatkit::events_crossed(*t.vat, vatkit::playback(t.table, index), t0, t1, fired);
    for (size_t i = 0; i < std::min(capacity, fired.size()); ++i) {
      const vatkit::FiredEvent& e = fired[i];
      out[i] = vatkit_crossing{e.time, e.clip, e.event, e.cycle, e.band, e.weight};
    }
    *count = fired.size();
  });
}

vatkit_status vatkit_table_ends_at(const vatkit_instance_table* table, uint32_t index, float* time) {
  constexpr const char* function = "vatkit_table_ends_at";
  return guarded(function, [&] {
    const vatkit_instance_table& t = table_of(table, function);
    check_instance_index(t, index, function);
    need(time, function, "time") = vatkit::ends_at(t.table, index).value_or(vatkit::kNever);
  });
}

const float* vatkit_table_floats(const vatkit_instance_table* table, size_t* float_count) {
  if (float_count) *float_count = table ? table->table.floats().size() : 0;
  return table ? table->table.floats().data() : nullptr;
}

vatkit_status vatkit_table_take_dirty(vatkit_instance_table* table, uint32_t merge_gap, vatkit_row_range* out,
                                      size_t capacity, size_t* count) {
  constexpr const char* function = "vatkit_table_take_dirty";
  return guarded(function, [&] {
    vatkit_instance_table& t = table_of(table, function);
    hand_out(
        t.dirty, out, capacity, count,
        [&](std::vector<vatkit::RowRange>& v) { vatkit::take_dirty(t.table, v, merge_gap); },
        [](const vatkit::RowRange& r) {
          return vatkit_row_range{r.first, r.count};
        },
        function);
  });
}

vatkit_status vatkit_table_pop_events(vatkit_instance_table* table, float until, vatkit_event* out, size_t capacity,
                                      size_t* count) {
  constexpr const char* function = "vatkit_table_pop_events";
  return guarded(function, [&] {
    vatkit_instance_table& t = table_of(table, function);
    if (std::isnan(until)) fail_argument(function, "until is NaN");
    hand_out(
        t.events, out, capacity, count,
        [&](std::vector<vatkit::PlaybackEvent>& v) { vatkit::pop_events(t.table, until, v); },
        [](const vatkit::PlaybackEvent& e) {
          return vatkit_event{e.time, e.index, int32_t(uint8_t(e.kind))};
        },
        function);
  });
}

vatkit_status vatkit_table_rebase_clock(vatkit_instance_table* table, float now, vatkit_rebase_report* report) {
  constexpr const char* function = "vatkit_table_rebase_clock";
  return guarded(function, [&] {
    vatkit_instance_table& t = table_of(table, function);
    check_finite(now, function, "now");
    const vatkit::RebaseReport r = vatkit::rebase_clock(t.table, now);
    // Events already taken from the table but not handed out move with the clock too.
    for (vatkit::PlaybackEvent& e : t.events.items) e.time -= r.shift;
    if (report) *report = {r.shift, r.exact, r.folded, r.rounded};
  });
}

}  // extern "C"
