/* vatkit/vatkit_c.h: the runtime behind a plain C interface, for callers that cannot use C++:
 * C, C# (P/Invoke: Unity), Unreal plugins built without the runtime's C++ flags, Python (ctypes),
 * Rust, Zig. It lives in the shared library vatkit_c (libvatkit_c.so, vatkit_c.dll), which holds
 * the static C++ runtime inside and exports only the vatkit_* functions below. docs/c-api.md is
 * the guide; this comment is the contract.
 *
 * Language: C99. No C++ type crosses the interface: handles are opaque pointers, everything else
 * is a plain struct of 4-byte fields (and const char* names), so it can be declared field for
 * field in another language. Enumerations are int32_t fields with the VATKIT_* constants below.
 * Matrices are 16 floats in column-major order (OpenGL's and glm's: m[12], m[13], m[14] are the
 * translation). Calling convention: the platform's C convention (cdecl; C#:
 * CallingConvention.Cdecl).
 *
 * Versions: VATKIT_C_ABI_VERSION changes whenever a struct, a constant or a function's meaning
 * changes incompatibly; vatkit_abi_version() says what the loaded library was built with. A
 * caller checks vatkit_abi_version() == VATKIT_C_ABI_VERSION once, before anything else.
 *
 * Errors: every call that can fail returns a vatkit_status: VATKIT_OK (0) or an error code (the
 * C++ runtime's ErrorCode plus one: VATKIT_ERROR_IO is 1 ... VATKIT_ERROR_GL is 8). The message of
 * the last failed call is vatkit_last_error(): one line, "FILE: what and where", the same text the
 * C++ runtime gives (a C-layer argument error names the function instead of a file when there is
 * no file). The message is kept per thread: a failing call sets the calling thread's message, a
 * successful one clears it to "", and other threads never see it. The returned pointer stays
 * valid until the same thread's next vatkit call. Nothing in this interface aborts or throws on
 * bad input or bad arguments: NULL pointers, indices out of range, enumeration values out of
 * range and non-finite times are VATKIT_ERROR_ARGUMENT. Running out of memory is
 * VATKIT_ERROR_LIMIT.
 *
 * Ownership: handles are created by vatkit_*_load / vatkit_*_create and released by the matching
 * vatkit_*_free (NULL is ignored). An instance table keeps its Vat alive: a Vat may be freed
 * before the tables made from it. Strings the library returns (clip and slot names, versions)
 * belong to the library and live as long as their Vat (or for ever, for the static ones). Output
 * arrays are the caller's: the library writes into them and keeps no pointer.
 *
 * Threads: nothing here starts a thread or takes a lock. A vatkit_vat is immutable once loaded:
 * any number of threads may call the functions taking `const vatkit_vat*` on one Vat at once. An
 * instance table is not synchronized: calls taking `vatkit_instance_table*` (writes) need
 * exclusive access; calls taking `const vatkit_instance_table*` (reads) may run concurrently with
 * each other. */
#ifndef VATKIT_C_H
#define VATKIT_C_H

#include <stddef.h>
#include <stdint.h>

/* Exported functions: VATKIT_C_BUILDING is defined only while building the library. */
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(VATKIT_C_BUILDING)
#define VATKIT_C_API __declspec(dllexport)
#else
#define VATKIT_C_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define VATKIT_C_API __attribute__((visibility("default")))
#else
#define VATKIT_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The interface's version (see "Versions" above). */
#define VATKIT_C_ABI_VERSION 1

/* ---- status codes ---------------------------------------------------------------------------- */

typedef int32_t vatkit_status;
enum {
  VATKIT_OK = 0,
  VATKIT_ERROR_IO = 1,           /* a file cannot be opened or read, or does not exist */
  VATKIT_ERROR_PARSE = 2,        /* bytes that cannot be parsed: a bad GLB container, truncated chunks, bad JSON */
  VATKIT_ERROR_INVALID_GLTF = 3, /* a glTF that breaks the glTF 2.0 spec */
  VATKIT_ERROR_UNSUPPORTED = 4,  /* valid input vatkit does not handle (another format version) */
  VATKIT_ERROR_LIMIT = 5,        /* a size or count over a documented limit; out of memory */
  VATKIT_ERROR_CORRUPT = 6,      /* a .vat.glb that fails validation or its checksum */
  VATKIT_ERROR_ARGUMENT = 7,     /* a wrong argument: NULL, an index or value out of range */
  VATKIT_ERROR_GL = 8,           /* (not produced by this library: the renderer's code) */
  VATKIT_ERROR_INTERNAL = 255    /* a bug in vatkit: an unexpected C++ exception reached the boundary */
};

/* ---- enumerations (int32_t fields) ------------------------------------------------------------ */

enum { VATKIT_ENCODING_DELTA = 0, VATKIT_ENCODING_RIG = 1 };
enum { VATKIT_PRECISION_F32 = 0, VATKIT_PRECISION_F16 = 1, VATKIT_PRECISION_Q16 = 2 };
enum { VATKIT_LOOP_REPEAT = 0, VATKIT_LOOP_ONCE = 1, VATKIT_LOOP_PINGPONG = 2 };
enum { VATKIT_END_CLAMP = 0, VATKIT_END_REWIND = 1 };
enum { VATKIT_FADE_LINEAR = 0, VATKIT_FADE_SMOOTH = 1 }; /* smooth: c = p^2 (3 - 2p) */
enum { VATKIT_SYNC_PHASE = 0, VATKIT_SYNC_TIME = 1 };
enum { VATKIT_MIX_SINGLE = 0, VATKIT_MIX_FADE = 1, VATKIT_MIX_BLEND = 2 };
enum { VATKIT_EVENT_END = 0, VATKIT_EVENT_FADE_END = 1 };
/* Repetitions: endless. */
#define VATKIT_INFINITE_REPETITIONS (-1)
/* "Never" in a time (an endless loop's end): the largest float, FLT_MAX. */
#define VATKIT_NEVER 3.402823466e+38F

/* ---- library ----------------------------------------------------------------------------------- */

/* VATKIT_C_ABI_VERSION as the loaded library was built. */
VATKIT_C_API uint32_t vatkit_abi_version(void);
/* The vatkit release, "MAJOR.MINOR.PATCH". Static. */
VATKIT_C_API const char* vatkit_version(void);
/* The calling thread's last error message, "" after a successful call. Never NULL. */
VATKIT_C_API const char* vatkit_last_error(void);
/* "ok", "io", "parse", "invalid_gltf", "unsupported", "limit", "corrupt", "argument", "gl",
 * "internal"; "unknown" for any other value. Static. */
VATKIT_C_API const char* vatkit_status_name(vatkit_status status);

/* ---- a loaded .vat.glb ------------------------------------------------------------------------- */

typedef struct vatkit_vat vatkit_vat;

/* Reads and validates a .vat.glb (checksum, version, every size, offset and range) into memory
 * the Vat owns; the file is not kept open. On error *out is NULL. Blocks on file I/O. */
VATKIT_C_API vatkit_status vatkit_vat_load(const char* path, vatkit_vat** out);
/* The same from bytes in memory, which are copied (the caller may free them on return). `name`
 * is what error messages call the bytes (NULL: "<memory>"). */
VATKIT_C_API vatkit_status vatkit_vat_load_memory(const void* bytes, size_t size, const char* name, vatkit_vat** out);
VATKIT_C_API void vatkit_vat_free(vatkit_vat* vat);

typedef struct vatkit_vat_info {
  int32_t encoding;      /* VATKIT_ENCODING_* */
  int32_t precision;     /* VATKIT_PRECISION_* */
  uint32_t vertex_count; /* vertices of the merged geometry: the size of a full decode */
  uint32_t clip_count;
  uint32_t slot_count; /* rig slots, or a delta bake's joints for sockets (0 without a skin) */
  uint32_t frame_rows; /* rows over all clips */
  float bounds_min[3]; /* object-space bounds of every posed vertex over every clip */
  float bounds_max[3];
} vatkit_vat_info; /* 48 bytes */

VATKIT_C_API vatkit_status vatkit_vat_get_info(const vatkit_vat* vat, vatkit_vat_info* out);

/* One clip: a band of consecutive frame rows and the playback defaults the bake stored. */
typedef struct vatkit_clip_info {
  const char* name;         /* "" when the source named none; lives as long as the Vat */
  int32_t source_animation; /* its index among the source asset's animations */
  uint32_t first_row;       /* absolute frame row of the band's first row */
  uint32_t rows;            /* rows in the band, >= 1 */
  float fps;                /* exact row rate (rows - 1) / duration_s; 0 for a one-row clip */
  float duration_s;
  int32_t loop_mode;   /* default VATKIT_LOOP_* */
  int32_t repetitions; /* default repetitions, VATKIT_INFINITE_REPETITIONS = endless */
  int32_t end_mode;    /* default VATKIT_END_* */
  float speed;         /* default speed (negative: backwards) */
  float max_delta;     /* largest distance of any vertex from its rest position (file units) */
  float bounds_min[3]; /* object-space bounds of the clip's posed vertices */
  float bounds_max[3];
} vatkit_clip_info; /* 72 bytes with 8-byte pointers, 68 with 4-byte ones */

VATKIT_C_API vatkit_status vatkit_vat_clip(const vatkit_vat* vat, uint32_t clip, vatkit_clip_info* out);
/* The clip `selector` names: "#N" (0-based index) or a clip name. */
VATKIT_C_API vatkit_status vatkit_vat_find_clip(const vatkit_vat* vat, const char* selector, uint32_t* clip);

/* A slot: a joint (or rigidly animated node) whose world transform vatkit_mirror_joint gives. */
typedef struct vatkit_slot_info {
  const char* name; /* the joint's node name; lives as long as the Vat */
  int32_t node;     /* its node index in the source asset */
  int32_t reserved; /* 0 */
} vatkit_slot_info; /* 16 bytes with 8-byte pointers */

VATKIT_C_API vatkit_status vatkit_vat_slot(const vatkit_vat* vat, uint32_t slot, vatkit_slot_info* out);
/* The first slot whose joint is named `name` (sockets: "hand_r"). */
VATKIT_C_API vatkit_status vatkit_vat_find_slot(const vatkit_vat* vat, const char* name, uint32_t* slot);

/* ---- clip events ------------------------------------------------------------------------------- */

/* A named event of a clip (a footstep, a hit frame) at a time within it. */
typedef struct vatkit_clip_event {
  const char* name;  /* non-empty; lives as long as the Vat */
  float time_s;      /* seconds into the clip, 0 <= time_s <= duration_s; a clip's events are in time order */
  int32_t reserved;  /* 0 */
} vatkit_clip_event; /* 16 bytes with 8-byte pointers */

/* How many events clip `clip` carries (0 for most clips: events are given at bake time). */
VATKIT_C_API vatkit_status vatkit_vat_clip_event_count(const vatkit_vat* vat, uint32_t clip, uint32_t* count);
VATKIT_C_API vatkit_status vatkit_vat_clip_event(const vatkit_vat* vat, uint32_t clip, uint32_t event,
                                                 vatkit_clip_event* out);

/* ---- playback samples -------------------------------------------------------------------------- */

/* One band at one time (vatkit::BandSample). */
typedef struct vatkit_band_sample {
  uint32_t row;       /* absolute frame row */
  uint32_t row_next;  /* the row it blends toward, in the same clip */
  float mix;          /* [0, 1): weight of row_next */
  float phase;        /* [0, 1]: how far through the band */
  uint32_t wraps;     /* 1: a Repeat band past its first cycle, not finished */
  uint32_t finished;  /* 1: the repetitions ran out; the band holds its end pose */
} vatkit_band_sample; /* 24 bytes */

/* What an instance shows (vatkit::PlaybackSample): band a, and band b at weight `weight`. */
typedef struct vatkit_sample {
  vatkit_band_sample a;
  vatkit_band_sample b; /* read only when weight > 0 */
  float weight;         /* of b, [0, 1] */
  int32_t kind;         /* VATKIT_MIX_*: what b is (nothing, a fade's outgoing band, a blend's second clip) */
} vatkit_sample;        /* 56 bytes */

/* The pose of `clip` at `time_s` on its own timeline (0 to duration_s, clamped; no looping), as
 * a one-band sample: what `vatkit pose FILE --clip C --time T` decodes. */
VATKIT_C_API vatkit_status vatkit_clip_sample(const vatkit_vat* vat, uint32_t clip, float time_s, vatkit_sample* out);

/* ---- decode into caller memory (the CPU mirror) ------------------------------------------------ */

/* Positions (and normals) of vertices [first_vertex, first_vertex + count) under `sample`, placed
 * by `world` (16 floats, column-major; NULL: identity), with the arithmetic the GPU decode uses.
 * `positions` and `normals` are the caller's arrays of 3 * count floats (x, y, z per vertex);
 * either may be NULL (not both). Normals are unit length (the inverse transpose of `world`'s 3x3
 * part applies). Errors: a sample whose bands are not rows of one clip each, vertices past
 * vatkit_vat_info.vertex_count. O(count) (a rig: plus O(slots)); allocates nothing. */
VATKIT_C_API vatkit_status vatkit_mirror_vertices(const vatkit_vat* vat, const vatkit_sample* sample,
                                                  const float* world, uint32_t first_vertex, uint32_t count,
                                                  float* positions, float* normals);
/* The world matrix of slot `slot`'s joint under `sample`, placed by `world` (NULL: identity),
 * into out[16] (column-major): where to attach a sword to a hand. Works for both encodings
 * (a delta bake carries its joints for this). Errors: a slot out of range, a Vat without slots. */
VATKIT_C_API vatkit_status vatkit_mirror_joint(const vatkit_vat* vat, const vatkit_sample* sample, const float* world,
                                               uint32_t slot, float* out);

/* ---- instances --------------------------------------------------------------------------------- */

/* Bits of vatkit_instance.fields: the optional fields that are set. A field whose bit is clear
 * takes its default (the clip's default, then the library's: docs/playback.md). */
#define VATKIT_FIELD_LOOP_MODE (1u << 0)
#define VATKIT_FIELD_REPETITIONS (1u << 1)
#define VATKIT_FIELD_END_MODE (1u << 2)
#define VATKIT_FIELD_SPEED (1u << 3)
#define VATKIT_FIELD_BLEND (1u << 4)             /* blend_clip, blend_weight, blend_sync */
#define VATKIT_FIELD_BLEND_WEIGHT_FROM (1u << 5) /* blend_weight_from (with VATKIT_FIELD_BLEND) */
#define VATKIT_FIELD_FADE_START (1u << 6)        /* fade_start; default: start_time */

/* What one instance plays (vatkit::Instance; docs/playback.md has the semantics). Zero-filled, it
 * is clip 0 started at time 0 under the clip's defaults, with no blend and no fade. Clips are
 * indices into the table's Vat. A cross-fade starts from what the instance shows when it is
 * written (vatkit_table_set_instance), so the C++ Instance's hand-made fade (`from`, fade_weight)
 * has no field here. */
typedef struct vatkit_instance {
  uint32_t fields;         /* VATKIT_FIELD_* bits */
  uint32_t clip;           /* the clip it plays */
  float start_time;        /* clock time the clip began (seconds; a time in the past desyncs) */
  int32_t loop_mode;       /* VATKIT_FIELD_LOOP_MODE: VATKIT_LOOP_* */
  int32_t repetitions;     /* VATKIT_FIELD_REPETITIONS: -1 or 1 .. 2^24 */
  int32_t end_mode;        /* VATKIT_FIELD_END_MODE: VATKIT_END_* */
  float speed;             /* VATKIT_FIELD_SPEED: finite; negative plays backwards */
  uint32_t blend_clip;     /* VATKIT_FIELD_BLEND: a steady two-clip blend: clip B ... */
  float blend_weight;      /*   ... at this weight, [0, 1] ... */
  int32_t blend_sync;      /*   ... in step with the clip (VATKIT_SYNC_PHASE) or on its clock (TIME) */
  float blend_weight_from; /* VATKIT_FIELD_BLEND_WEIGHT_FROM: B's weight ramps from this over the fade */
  float fade_duration;     /* seconds of cross-fade from what the instance showed; 0 cuts */
  int32_t fade_curve;      /* VATKIT_FADE_* */
  float fade_start;        /* VATKIT_FIELD_FADE_START: clock time a blend's weight ramp begins */
} vatkit_instance;         /* 56 bytes */

/* ---- the instance table ------------------------------------------------------------------------ */

/* The per-instance playback table of a crowd: one row of 24 floats per instance, the layout the
 * GPU reads (vatkit/instance_table.h and docs/c-api.md list the fields), keyed by the instance's
 * index. */
typedef struct vatkit_instance_table vatkit_instance_table;

typedef struct vatkit_row_range {
  uint32_t first;
  uint32_t count;
} vatkit_row_range;

typedef struct vatkit_event {
  float time;     /* clock seconds */
  uint32_t index; /* the instance */
  int32_t kind;   /* VATKIT_EVENT_END: its clip finished (chain the next one); _FADE_END: its fade is over */
} vatkit_event;

typedef struct vatkit_rebase_report {
  float shift;      /* subtract it from the clock (and from the start times the caller keeps) */
  uint32_t exact;   /* tracks shifted exactly */
  uint32_t folded;  /* tracks advanced by whole cycles */
  uint32_t rounded; /* tracks whose start could only be rounded */
} vatkit_rebase_report;

/* A table of `count` unwritten instances (each holds row 0) for clips of `vat`, which it keeps
 * alive. */
VATKIT_C_API vatkit_status vatkit_table_create(const vatkit_vat* vat, uint32_t count, vatkit_instance_table** out);
VATKIT_C_API void vatkit_table_free(vatkit_instance_table* table);
/* Instances in the table; 0 for NULL. */
VATKIT_C_API uint32_t vatkit_table_size(const vatkit_instance_table* table);
/* Adds unwritten instances or drops the last ones. Invalidates vatkit_table_floats's pointer. */
VATKIT_C_API vatkit_status vatkit_table_resize(vatkit_instance_table* table, uint32_t count);

/* Changes instance `index`'s animation at clock time `now`; with fade_duration > 0 it cross-fades
 * from what the instance showed at `now` (vatkit::set_instance: the outgoing band plays on).
 * Marks the row dirty. On error the table is unchanged. O(log events). */
VATKIT_C_API vatkit_status vatkit_table_set_instance(vatkit_instance_table* table, uint32_t index,
                                                     const vatkit_instance* instance, float now);
/* The playback controls at clock time `now` (vatkit::pause, resume, turn_back; docs/playback.md):
 * pause holds the pose instance `index` shows at `now` (bit for bit, a fade's weight included;
 * its end and fade-end events are held too), resume plays on from the held pose at its speed,
 * turn_back sends each moving band back the way it came from the pose it shows, retracing its
 * play. Errors: a non-finite `now`, an instance never written. Mark the row dirty. O(log events). */
VATKIT_C_API vatkit_status vatkit_table_pause(vatkit_instance_table* table, uint32_t index, float now);
VATKIT_C_API vatkit_status vatkit_table_resume(vatkit_instance_table* table, uint32_t index, float now);
VATKIT_C_API vatkit_status vatkit_table_turn_back(vatkit_instance_table* table, uint32_t index, float now);
/* What instance `index` shows at clock time `time` (finite): the sample to decode. */
VATKIT_C_API vatkit_status vatkit_table_resolve(const vatkit_instance_table* table, uint32_t index, float time,
                                                vatkit_sample* out);
/* The clock time instance `index`'s clip finishes, or VATKIT_NEVER (an endless loop, speed 0). */
VATKIT_C_API vatkit_status vatkit_table_ends_at(const vatkit_instance_table* table, uint32_t index, float* time);

/* One crossing of a clip event by an instance (docs/events.md: exact fire times across loops,
 * ping-pong, speed, backwards play, pauses, fades and blends; the C++ events_crossed). */
typedef struct vatkit_crossing {
  float time;      /* the clock time it fired */
  uint32_t clip;   /* the clip whose event it is */
  uint32_t event;  /* the event's index in that clip (vatkit_vat_clip_event) */
  uint32_t cycle;  /* the cycle (a ping-pong's traversal) it fired in */
  uint32_t band;   /* 0: the instance's primary clip; 1: the second (a fade's outgoing clip, a blend's B) */
  float weight;    /* that band's weight at `time`, > 0 */
} vatkit_crossing; /* 24 bytes */

/* The events instance `index` crosses with t0 < time <= t1 (finite), in firing order: call it
 * once per frame with (previous frame's time, this frame's time] and each crossing is reported
 * once. *count is how many there are; the first min(*count, capacity) are written to `out` (out
 * may be NULL when capacity is 0): a caller whose array was too small calls again with a larger
 * one. Pure: the table is not changed. */
VATKIT_C_API vatkit_status vatkit_table_events_crossed(const vatkit_instance_table* table, uint32_t index, float t0,
                                                       float t1, vatkit_crossing* out, size_t capacity, size_t* count);

/* The rows the GPU reads: 24 floats per instance (six RGBA32F texels), vatkit_table_size() rows,
 * *float_count = 24 * size. The pointer is the table's own memory (no copy): valid until
 * vatkit_table_resize or vatkit_table_free; the values change with each write. NULL for NULL. */
VATKIT_C_API const float* vatkit_table_floats(const vatkit_instance_table* table, size_t* float_count);

/* Rows written since the last call, as sorted ranges (ranges separated by at most `merge_gap`
 * clean rows are merged): up to `capacity` ranges into `out`, their number in *count. The ranges
 * handed out are forgotten; when more were waiting than `capacity`, the rest come first from the
 * next call: call until *count is 0. */
VATKIT_C_API vatkit_status vatkit_table_take_dirty(vatkit_instance_table* table, uint32_t merge_gap,
                                                   vatkit_row_range* out, size_t capacity, size_t* count);
/* Events due by clock time `until` (a clip finishing, a fade ending), earliest first: up to
 * `capacity` into `out`, their number in *count, and removed. Events due but not handed out for
 * want of capacity come first from the next call (whatever its `until`): call until *count is 0. */
VATKIT_C_API vatkit_status vatkit_table_pop_events(vatkit_instance_table* table, float until, vatkit_event* out,
                                                   size_t capacity, size_t* count);
/* Long sessions: moves the clock's origin by floor(now) (vatkit::rebase_clock: the float32 clock
 * keeps its resolution). The caller's clock becomes now - report.shift from the next call on;
 * every row is rewritten and dirty. `report` may be NULL. */
VATKIT_C_API vatkit_status vatkit_table_rebase_clock(vatkit_instance_table* table, float now,
                                                     vatkit_rebase_report* report);

#ifdef __cplusplus
}
#endif

#endif /* VATKIT_C_H */
