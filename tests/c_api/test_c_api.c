/* test_c_api WORK_DIR: the C interface called from C (C99, built as C), on the files
 * tests/c_api/make_files.cmake puts in WORK_DIR (the sample character baked with the delta and the
 * rig encodings, and `vatkit pose` outputs, which are the expectations: the C++ tool's decode,
 * not this library's). Prints every failed check and exits 1 if any failed.
 *
 * What it checks:
 *  - the version functions and status names;
 *  - the clip table (names, bands, the walk defaults the bake was given) and the find functions;
 *  - a clip's pose (vatkit_clip_sample + vatkit_mirror_vertices) against `vatkit pose`, both
 *    encodings;
 *  - a cross-fade written through the instance table with overridden loop mode and speed: the
 *    resolved sample's rows, mixes and weight, and its decoded positions against the two `vatkit
 *    pose` outputs mixed by the fade's weight (a field mixed up in the C layer moves the clip
 *    time or the weight, and the positions by centimetres); a world matrix moves them; the end
 *    time; the table's floats; dirty ranges and events handed out through a small array, and
 *    trimmed by a resize;
 *  - sockets: a joint's world matrix in the delta bake against the rig bake's, at a row;
 *  - errors: a missing file, a corrupt and a truncated file, bad arguments: the status, a message
 *    of one line naming the file or the function, and the table unchanged. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vatkit/vatkit_c.h"

static int failures = 0;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A call that must succeed; the test cannot go on without it. */
#define REQUIRE_OK(call)                                                                                     \
  do {                                                                                                       \
    vatkit_status status_ = (call);                                                                          \
    if (status_ != VATKIT_OK) {                                                                              \
      fprintf(stderr, "%s:%d: %s failed (%s): %s\n", __FILE__, __LINE__, #call, vatkit_status_name(status_), \
              vatkit_last_error());                                                                          \
      exit(1);                                                                                               \
    }                                                                                                        \
  } while (0)

static const char* work_dir;

static void path_of(char* out, size_t size, const char* name) { snprintf(out, size, "%s/%s", work_dir, name); }

static unsigned char* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* bytes;
  long n;
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  bytes = malloc((size_t)n + 1);
  if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  bytes[n] = 0;
  *size = (size_t)n;
  return bytes;
}

/* Every number of every "positions" array of a `vatkit pose` file, in order (the source
 * primitives' vertices, which for the sample are the merged vertices in order). */
static float* pose_positions(const char* name, size_t* count) {
  char path[1024];
  size_t size, n = 0, capacity = 0;
  float* out = NULL;
  char* text;
  const char* p;
  path_of(path, sizeof path, name);
  text = (char*)read_all(path, &size);
  for (p = strstr(text, "\"positions\": ["); p; p = strstr(p, "\"positions\": [")) {
    p += strlen("\"positions\": [");
    while (*p != ']') {
      char* end;
      double v = strtod(p, &end);
      if (end == p) {
        fprintf(stderr, "%s: not a number at offset %ld\n", path, (long)(p - text));
        exit(1);
      }
      if (n == capacity) {
        capacity = capacity ? 2 * capacity : 4096;
        out = realloc(out, capacity * sizeof *out);
        if (!out) exit(1);
      }
      out[n++] = (float)v;
      p = end;
      while (*p == ',' || *p == ' ') ++p;
    }
  }
  free(text);
  *count = n;
  return out;
}

static int one_line(const char* message) { return message[0] != 0 && strchr(message, '\n') == NULL; }

/* The message is one line and begins "WORK_DIR/name: ". */
static int names_file(const char* message, const char* name) {
  char prefix[1024];
  path_of(prefix, sizeof prefix - 2, name);
  strcat(prefix, ": ");
  return one_line(message) && strncmp(message, prefix, strlen(prefix)) == 0;
}

static float max_difference(const float* a, const float* b, size_t n) {
  float worst = 0.0f;
  size_t i;
  for (i = 0; i < n; ++i) {
    float d = fabsf(a[i] - b[i]);
    if (!(d <= worst)) worst = d; /* NaN counts */
  }
  return worst;
}

static vatkit_vat* load(const char* name) {
  char path[1024];
  vatkit_vat* vat = NULL;
  path_of(path, sizeof path, name);
  REQUIRE_OK(vatkit_vat_load(path, &vat));
  return vat;
}

static void test_library(void) {
  CHECK(vatkit_abi_version() == VATKIT_C_ABI_VERSION, "abi %u", vatkit_abi_version());
  CHECK(strlen(vatkit_version()) >= 5 && strchr(vatkit_version(), '.') != NULL, "version \"%s\"", vatkit_version());
  CHECK(strcmp(vatkit_status_name(VATKIT_OK), "ok") == 0, "%s", vatkit_status_name(VATKIT_OK));
  CHECK(strcmp(vatkit_status_name(VATKIT_ERROR_CORRUPT), "corrupt") == 0, "%s", vatkit_status_name(6));
  CHECK(strcmp(vatkit_status_name(VATKIT_ERROR_INVALID_GLTF), "invalid_gltf") == 0, "%s", vatkit_status_name(3));
  CHECK(strcmp(vatkit_status_name(VATKIT_ERROR_INTERNAL), "internal") == 0, "%s", vatkit_status_name(255));
  CHECK(strcmp(vatkit_status_name(42), "unknown") == 0, "%s", vatkit_status_name(42));
}

static void test_clip_table(const vatkit_vat* vat, size_t vertices) {
  static const char* names[3] = {"idle", "walk", "run"};
  vatkit_vat_info info;
  vatkit_clip_info clip;
  uint32_t c, row = 0, index = 99;
  REQUIRE_OK(vatkit_vat_get_info(vat, &info));
  CHECK(info.encoding == VATKIT_ENCODING_DELTA && info.precision == VATKIT_PRECISION_F32, "%d %d", info.encoding,
        info.precision);
  CHECK(info.clip_count == 3 && info.slot_count == 22, "%u clips, %u slots", info.clip_count, info.slot_count);
  CHECK(info.vertex_count == vertices, "%u vertices, the pose has %lu", info.vertex_count, (unsigned long)vertices);
  CHECK(info.bounds_min[1] < 0.0f && info.bounds_max[1] > 1.5f, "bounds y %g .. %g", info.bounds_min[1],
        info.bounds_max[1]);
  for (c = 0; c < info.clip_count; ++c) {
    REQUIRE_OK(vatkit_vat_clip(vat, c, &clip));
    CHECK(strcmp(clip.name, names[c]) == 0, "clip %u is \"%s\"", c, clip.name);
    CHECK(clip.first_row == row, "clip %u starts at row %u, expected %u", c, clip.first_row, row);
    /* Baked at a nominal 10 fps: round(duration * 10) + 1 rows at the exact rate (rows - 1) / duration. */
    CHECK(clip.rows == (uint32_t)lroundf(clip.duration_s * 10.0f) + 1 &&
              fabsf(clip.fps * clip.duration_s - (float)(clip.rows - 1)) < 1e-4f,
          "clip %u: %u rows, %g s, %g fps", c, clip.rows, clip.duration_s, clip.fps);
    CHECK(clip.max_delta > 0.01f && clip.bounds_max[1] > clip.bounds_min[1], "clip %u max_delta %g", c, clip.max_delta);
    CHECK(clip.source_animation == (int32_t)c, "clip %u source_animation %d", c, clip.source_animation);
    row += clip.rows;
  }
  CHECK(row == info.frame_rows, "%u rows in the clips, frame_rows %u", row, info.frame_rows);
  /* walk's defaults are what make_files.cmake baked; idle's the library's. */
  REQUIRE_OK(vatkit_vat_clip(vat, 1, &clip));
  CHECK(clip.loop_mode == VATKIT_LOOP_PINGPONG && clip.repetitions == 3 && clip.end_mode == VATKIT_END_REWIND &&
            clip.speed == 1.5f,
        "walk defaults %d %d %d %g", clip.loop_mode, clip.repetitions, clip.end_mode, clip.speed);
  REQUIRE_OK(vatkit_vat_clip(vat, 0, &clip));
  CHECK(clip.loop_mode == VATKIT_LOOP_REPEAT && clip.repetitions == VATKIT_INFINITE_REPETITIONS &&
            clip.end_mode == VATKIT_END_CLAMP && clip.speed == 1.0f,
        "idle defaults %d %d %d %g", clip.loop_mode, clip.repetitions, clip.end_mode, clip.speed);

  REQUIRE_OK(vatkit_vat_find_clip(vat, "walk", &index));
  CHECK(index == 1, "walk is %u", index);
  REQUIRE_OK(vatkit_vat_find_clip(vat, "#2", &index));
  CHECK(index == 2, "#2 is %u", index);
  CHECK(vatkit_vat_find_clip(vat, "jump", &index) == VATKIT_ERROR_ARGUMENT, "jump found");
  CHECK(names_file(vatkit_last_error(), "delta.vat.glb") && strstr(vatkit_last_error(), "jump") != NULL, "\"%s\"",
        vatkit_last_error());
  CHECK(vatkit_vat_clip(vat, 3, &clip) == VATKIT_ERROR_ARGUMENT, "clip 3 of 3");
  CHECK(strstr(vatkit_last_error(), "clip 3 is out of range (3 clips)") != NULL, "\"%s\"", vatkit_last_error());
  REQUIRE_OK(vatkit_vat_get_info(vat, &info));
  CHECK(strcmp(vatkit_last_error(), "") == 0, "a success leaves \"%s\"", vatkit_last_error());
}

/* A clip's pose against `vatkit pose`. */
static void test_clip_pose(const vatkit_vat* vat, const char* pose_file, float tolerance) {
  size_t n;
  float* expected = pose_positions(pose_file, &n);
  float* positions = malloc(n * sizeof(float));
  vatkit_sample sample;
  float worst;
  REQUIRE_OK(vatkit_clip_sample(vat, 1, 0.115f, &sample));
  CHECK(sample.a.row == 32 && sample.a.row_next == 33 && fabsf(sample.a.mix - 0.15f) < 1e-4f && sample.weight == 0.0f,
        "walk at 0.115 s: rows %u %u mix %g", sample.a.row, sample.a.row_next, sample.a.mix);
  REQUIRE_OK(vatkit_mirror_vertices(vat, &sample, NULL, 0, (uint32_t)(n / 3), positions, NULL));
  worst = max_difference(positions, expected, n);
  CHECK(worst <= tolerance, "%s: %g from vatkit pose", pose_file, worst);
  free(positions);
  free(expected);
}

static void test_cross_fade(const vatkit_vat* vat) {
  size_t n, m, i, dirty_count, floats_count;
  float* walk = pose_positions("delta_walk.json", &n); /* walk at 0.115 s */
  float* idle = pose_positions("delta_idle.json", &m); /* idle at 1.23 s */
  float* expected = malloc(n * sizeof(float));
  float* positions = malloc(n * sizeof(float));
  float* moved = malloc(n * sizeof(float));
  float* normals = malloc(n * sizeof(float));
  float world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, -2, 1}; /* column-major: translate (5, 0, -2) */
  float row_before[24], worst = 0.0f, ends = 0.0f;
  const float* floats;
  vatkit_instance_table* table = NULL;
  vatkit_instance instance;
  vatkit_sample sample, held;
  vatkit_row_range range;
  vatkit_event event;
  vatkit_rebase_report report;
  CHECK(n == m && n > 0, "%lu and %lu positions", (unsigned long)n, (unsigned long)m);

  REQUIRE_OK(vatkit_table_create(vat, 4, &table));
  CHECK(vatkit_table_size(table) == 4, "size %u", vatkit_table_size(table));
  /* Instance 2: idle from 0 under its defaults (repeat); at 1.0, walk played once at half speed,
   * clamped (overriding walk's pingpong at 1.5, rewinding), cross-fading over 0.5 s. At 1.23: walk is 0.115 s in,
   * idle 1.23 s, and idle's weight 1 - 0.23 / 0.5 = 0.54. */
  memset(&instance, 0, sizeof instance);
  REQUIRE_OK(vatkit_table_set_instance(table, 2, &instance, 0.0f));
  instance.fields = VATKIT_FIELD_LOOP_MODE | VATKIT_FIELD_SPEED | VATKIT_FIELD_END_MODE;
  instance.clip = 1;
  instance.start_time = 1.0f;
  instance.loop_mode = VATKIT_LOOP_ONCE;
  instance.end_mode = VATKIT_END_CLAMP; /* not walk's rewind: the end phase is 1 */
  instance.speed = 0.5f;
  instance.fade_duration = 0.5f;
  instance.fade_curve = VATKIT_FADE_LINEAR;
  REQUIRE_OK(vatkit_table_set_instance(table, 2, &instance, 1.0f));
  REQUIRE_OK(vatkit_table_resolve(table, 2, 1.23f, &sample));
  CHECK(sample.kind == VATKIT_MIX_FADE, "kind %d", sample.kind);
  CHECK(sample.a.row == 32 && sample.a.row_next == 33 && fabsf(sample.a.mix - 0.15f) < 1e-4f,
        "walk band: rows %u %u mix %g", sample.a.row, sample.a.row_next, sample.a.mix);
  CHECK(sample.b.row == 12 && sample.b.row_next == 13 && fabsf(sample.b.mix - 0.3f) < 1e-4f,
        "idle band: rows %u %u mix %g", sample.b.row, sample.b.row_next, sample.b.mix);
  CHECK(fabsf(sample.weight - 0.54f) < 1e-5f, "weight %g", sample.weight);
  CHECK(!sample.a.finished && !sample.a.wraps && sample.b.wraps == 0, "flags %u %u %u", sample.a.finished,
        sample.a.wraps, sample.b.wraps);

  for (i = 0; i < n; ++i) expected[i] = (1.0f - sample.weight) * walk[i] + sample.weight * idle[i];
  REQUIRE_OK(vatkit_mirror_vertices(vat, &sample, NULL, 0, (uint32_t)(n / 3), positions, normals));
  worst = max_difference(positions, expected, n);
  CHECK(worst <= 2e-5f, "the fade's pose is %g from the mix of vatkit pose's", worst);
  for (i = 0; i < n; i += 3) {
    float len = sqrtf(normals[i] * normals[i] + normals[i + 1] * normals[i + 1] + normals[i + 2] * normals[i + 2]);
    if (fabsf(len - 1.0f) > 1e-4f) {
      CHECK(0, "normal %lu has length %g", (unsigned long)(i / 3), len);
      break;
    }
  }
  /* A world matrix; and a range of vertices lands in the same place as in the full decode. */
  REQUIRE_OK(vatkit_mirror_vertices(vat, &sample, world, 0, (uint32_t)(n / 3), moved, NULL));
  for (i = 0; i < n; i += 3)
    expected[i] = positions[i] + 5.0f, expected[i + 1] = positions[i + 1], expected[i + 2] = positions[i + 2] - 2.0f;
  worst = max_difference(moved, expected, n);
  CHECK(worst <= 1e-5f, "translated by (5, 0, -2): %g off", worst);
  REQUIRE_OK(vatkit_mirror_vertices(vat, &sample, NULL, 100, 10, moved, NULL));
  worst = max_difference(moved, positions + 300, 30);
  CHECK(worst == 0.0f, "vertices 100..109 differ by %g", worst);

  /* Once at half speed over a 1 s clip from 1.0: it ends at 3.0. Idle alone never ends. */
  REQUIRE_OK(vatkit_table_ends_at(table, 2, &ends));
  CHECK(fabsf(ends - 3.0f) < 1e-5f, "ends at %g", ends);
  memset(&instance, 0, sizeof instance);
  instance.clip = 2;
  REQUIRE_OK(vatkit_table_set_instance(table, 0, &instance, 1.0f));
  REQUIRE_OK(vatkit_table_ends_at(table, 0, &ends));
  CHECK(ends == VATKIT_NEVER, "a repeating run ends at %g", ends);

  /* The table's floats: instance 2's row (instance_table.h's layout). */
  floats = vatkit_table_floats(table, &floats_count);
  CHECK(floats != NULL && floats_count == 4 * 24, "%lu floats", (unsigned long)floats_count);
  floats += 2 * 24;
  CHECK(floats[0] == 31.0f && floats[1] == 11.0f && floats[2] == (float)VATKIT_LOOP_ONCE && floats[3] == 1.0f,
        "A band %g %g %g %g (walk: rows 31.., 11 rows, once, clamped at its end)", floats[0], floats[1], floats[2],
        floats[3]);
  CHECK(floats[4] == 1.0f && floats[5] == 0.5f && fabsf(floats[6] - 3.0f) < 1e-5f && floats[7] == 1.0f,
        "A timing %g %g %g %g", floats[4], floats[5], floats[6], floats[7]);
  CHECK(floats[8] == 0.0f && floats[9] == 31.0f && floats[10] == (float)VATKIT_LOOP_REPEAT && floats[12] == 0.0f &&
            floats[14] == VATKIT_NEVER && floats[15] == -1.0f,
        "B (idle) %g %g %g start %g end %g repetitions %g", floats[8], floats[9], floats[10], floats[12], floats[14],
        floats[15]);
  CHECK(floats[16] == 1.0f && floats[17] == 0.0f && floats[18] == 1.0f && floats[19] == 2.0f, "weight ramp %g %g %g %g",
        floats[16], floats[17], floats[18], floats[19]);
  CHECK(floats[20] == (float)VATKIT_MIX_FADE && floats[21] == (float)VATKIT_FADE_LINEAR && floats[22] == 0.0f &&
            floats[23] == 0.0f,
        "texel 5: %g %g %g %g", floats[20], floats[21], floats[22], floats[23]);

  /* Dirty rows 0 and 2, one range at a time through a one-element array. */
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &dirty_count));
  CHECK(dirty_count == 1 && range.first == 0 && range.count == 1, "%lu: [%u, +%u)", (unsigned long)dirty_count,
        range.first, range.count);
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &dirty_count));
  CHECK(dirty_count == 1 && range.first == 2 && range.count == 1, "%lu: [%u, +%u)", (unsigned long)dirty_count,
        range.first, range.count);
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &dirty_count));
  CHECK(dirty_count == 0, "%lu more", (unsigned long)dirty_count);
  /* Events of instance 2: the fade ends at 1.5, the walk at 3.0. */
  REQUIRE_OK(vatkit_table_pop_events(table, 10.0f, &event, 1, &dirty_count));
  CHECK(dirty_count == 1 && event.index == 2 && event.kind == VATKIT_EVENT_FADE_END && event.time == 1.5f,
        "%lu: %u %d %g", (unsigned long)dirty_count, event.index, event.kind, event.time);
  REQUIRE_OK(vatkit_table_pop_events(table, 10.0f, &event, 1, &dirty_count));
  CHECK(dirty_count == 1 && event.index == 2 && event.kind == VATKIT_EVENT_END && fabsf(event.time - 3.0f) < 1e-5f,
        "%lu: %u %d %g", (unsigned long)dirty_count, event.index, event.kind, event.time);
  REQUIRE_OK(vatkit_table_pop_events(table, 10.0f, &event, 1, &dirty_count));
  CHECK(dirty_count == 0, "%lu more events", (unsigned long)dirty_count);

  /* The controls on instance 3 (a run from 0, repeating): paused at 0.25 it shows its 0.25 pose at
   * 5.0, resumed at 5.0 it shows it again, turned back at 5.2 (its 0.45 pose) it shows its 0.25
   * pose 0.2 s later. Each write marks the row dirty. */
  REQUIRE_OK(vatkit_table_set_instance(table, 3, &instance, 0.0f));
  REQUIRE_OK(vatkit_table_resolve(table, 3, 0.25f, &held));
  REQUIRE_OK(vatkit_table_pause(table, 3, 0.25f));
  REQUIRE_OK(vatkit_table_resolve(table, 3, 5.0f, &sample));
  CHECK(memcmp(&sample, &held, sizeof sample) == 0, "paused: row %u mix %g", sample.a.row, sample.a.mix);
  REQUIRE_OK(vatkit_table_resume(table, 3, 5.0f));
  REQUIRE_OK(vatkit_table_resolve(table, 3, 5.0f, &sample));
  CHECK(memcmp(&sample, &held, sizeof sample) == 0, "resumed: row %u mix %g", sample.a.row, sample.a.mix);
  REQUIRE_OK(vatkit_table_turn_back(table, 3, 5.2f));
  REQUIRE_OK(vatkit_table_resolve(table, 3, 5.4f, &sample));
  CHECK(sample.a.row == held.a.row && fabsf(sample.a.mix - held.a.mix) < 1e-4f, "turned back: row %u mix %g",
        sample.a.row, sample.a.mix);
  CHECK(vatkit_table_pause(table, 3, NAN) == VATKIT_ERROR_ARGUMENT, "a NaN pause taken");
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &dirty_count));
  CHECK(dirty_count == 1 && range.first == 3 && range.count == 1, "%lu: [%u, +%u)", (unsigned long)dirty_count,
        range.first, range.count);

  /* Refusals leave the table as it was. */
  floats = vatkit_table_floats(table, &floats_count) + 2 * 24;
  memcpy(row_before, floats, sizeof row_before);
  instance.clip = 7;
  CHECK(vatkit_table_set_instance(table, 2, &instance, 2.0f) == VATKIT_ERROR_ARGUMENT, "clip 7 taken");
  CHECK(names_file(vatkit_last_error(), "delta.vat.glb") &&
            strstr(vatkit_last_error(), "clip 7 is out of range (3 clips)") != NULL,
        "\"%s\"", vatkit_last_error());
  instance.clip = 1;
  instance.fields = VATKIT_FIELD_SPEED;
  instance.speed = NAN; /* (a negative speed plays backwards) */
  CHECK(vatkit_table_set_instance(table, 2, &instance, 2.0f) == VATKIT_ERROR_ARGUMENT, "speed NaN taken");
  CHECK(names_file(vatkit_last_error(), "delta.vat.glb") && strstr(vatkit_last_error(), ": instance 2: ") != NULL &&
            strstr(vatkit_last_error(), "speed") != NULL,
        "\"%s\"", vatkit_last_error());
  instance.fields = VATKIT_FIELD_LOOP_MODE;
  instance.loop_mode = 3;
  CHECK(vatkit_table_set_instance(table, 2, &instance, 2.0f) == VATKIT_ERROR_ARGUMENT, "loop mode 3 taken");
  CHECK(strstr(vatkit_last_error(), "loop_mode 3 is not one of 0..2") != NULL, "\"%s\"", vatkit_last_error());
  instance.fields = 1u << 20;
  CHECK(vatkit_table_set_instance(table, 2, &instance, 2.0f) == VATKIT_ERROR_ARGUMENT, "unknown field bit taken");
  instance.fields = 0;
  CHECK(vatkit_table_set_instance(table, 4, &instance, 2.0f) == VATKIT_ERROR_ARGUMENT, "instance 4 of 4 written");
  CHECK(strstr(vatkit_last_error(), "instance 4 is out of range (4 instances in the table)") != NULL, "\"%s\"",
        vatkit_last_error());
  CHECK(memcmp(row_before, floats, sizeof row_before) == 0, "a refused write changed the row");
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &dirty_count));
  CHECK(dirty_count == 0, "a refused write left %lu dirty ranges", (unsigned long)dirty_count);
  CHECK(vatkit_table_resolve(table, 2, NAN, &sample) == VATKIT_ERROR_ARGUMENT, "NaN time resolved");
  CHECK(vatkit_mirror_vertices(vat, &sample, NULL, (uint32_t)(n / 3) - 5, 10, positions, NULL) == VATKIT_ERROR_ARGUMENT,
        "vertices past the end decoded");
  CHECK(one_line(vatkit_last_error()) && strstr(vatkit_last_error(), "run past") != NULL, "\"%s\"",
        vatkit_last_error());
  CHECK(vatkit_mirror_vertices(vat, &sample, NULL, 0, 1, NULL, NULL) == VATKIT_ERROR_ARGUMENT, "no outputs");

  /* The clock rebase: a shift of floor(now), and the pose at the same instant is the same. */
  REQUIRE_OK(vatkit_table_resolve(table, 2, 2.25f, &sample));
  REQUIRE_OK(vatkit_table_rebase_clock(table, 2.25f, &report));
  CHECK(report.shift == 2.0f, "shift %g", report.shift);
  {
    vatkit_sample after;
    REQUIRE_OK(vatkit_table_resolve(table, 2, 0.25f, &after));
    CHECK(after.a.row == sample.a.row && after.a.mix == sample.a.mix && after.kind == sample.kind,
          "after the rebase: row %u mix %g, before %u %g", after.a.row, after.a.mix, sample.a.row, sample.a.mix);
  }
  REQUIRE_OK(vatkit_table_resize(table, 1));
  CHECK(vatkit_table_size(table) == 1, "size %u", vatkit_table_size(table));
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &dirty_count));
  CHECK(dirty_count == 1 && range.first == 0 && range.count == 1, "after the resize: %lu [%u, +%u)",
        (unsigned long)dirty_count, range.first, range.count);

  vatkit_table_free(table);
  free(walk);
  free(idle);
  free(expected);
  free(positions);
  free(moved);
  free(normals);
}

/* A socket: the joint's world matrix from the delta bake (stored directly) and the rig bake
 * (slot transform times the inverse of its inverse bind matrix), at a row of walk. */
static void test_sockets(const vatkit_vat* delta, const vatkit_vat* rig) {
  vatkit_slot_info slot;
  vatkit_sample in_delta, in_rig;
  uint32_t s, found = 99, rig_slot = 99;
  float a[16], b[16], placed[16], world[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 3, 0, 1};
  int k;
  REQUIRE_OK(vatkit_clip_sample(delta, 1, 0.2f, &in_delta));
  REQUIRE_OK(vatkit_clip_sample(rig, 1, 0.2f, &in_rig));
  CHECK(in_delta.a.mix == 0.0f && in_delta.a.row == 33, "walk at 0.2 s: row %u mix %g", in_delta.a.row, in_delta.a.mix);
  for (s = 0; s < 22; s += 7) {
    float worst = 0.0f;
    REQUIRE_OK(vatkit_vat_slot(delta, s, &slot));
    CHECK(slot.name[0] != 0 && slot.node >= 0, "slot %u: \"%s\" node %d", s, slot.name, slot.node);
    REQUIRE_OK(vatkit_vat_find_slot(delta, slot.name, &found));
    CHECK(found == s, "\"%s\" found at %u", slot.name, found);
    REQUIRE_OK(vatkit_vat_find_slot(rig, slot.name, &rig_slot));
    REQUIRE_OK(vatkit_mirror_joint(delta, &in_delta, NULL, s, a));
    REQUIRE_OK(vatkit_mirror_joint(rig, &in_rig, NULL, rig_slot, b));
    for (k = 0; k < 16; ++k) worst = fabsf(a[k] - b[k]) > worst ? fabsf(a[k] - b[k]) : worst;
    CHECK(worst < 1e-4f, "joint \"%s\": delta and rig differ by %g", slot.name, worst);
    CHECK(a[15] == 1.0f && a[3] == 0.0f && a[7] == 0.0f && a[11] == 0.0f, "joint \"%s\": not affine column-major",
          slot.name);
    REQUIRE_OK(vatkit_mirror_joint(delta, &in_delta, world, s, placed));
    CHECK(fabsf(placed[13] - (a[13] + 3.0f)) < 1e-5f && placed[12] == a[12] && placed[14] == a[14],
          "joint \"%s\" lifted by 3: %g -> %g", slot.name, a[13], placed[13]);
  }
  CHECK(vatkit_vat_find_slot(delta, "no_such_joint", &found) == VATKIT_ERROR_ARGUMENT, "found no_such_joint");
  CHECK(one_line(vatkit_last_error()) && strstr(vatkit_last_error(), "no_such_joint") != NULL, "\"%s\"",
        vatkit_last_error());
  CHECK(vatkit_mirror_joint(delta, &in_delta, NULL, 22, a) == VATKIT_ERROR_ARGUMENT, "slot 22 of 22");
}

/* A table keeps its Vat: freeing the Vat first is allowed (ASan would see a use after free). */
/* Walk's one event, "step" at 0.2 s (make_files.cmake), played on repeat at speed 1 from clock 0:
 * by the definition (docs/events.md) it fires at 0.2 + k * D in cycle k, D walk's duration. */
static void test_events(const vatkit_vat* vat) {
  uint32_t count32 = 99, k;
  size_t count = 99;
  float duration;
  vatkit_clip_info walk;
  vatkit_clip_event event;
  vatkit_crossing crossed[4];
  vatkit_instance_table* table = NULL;
  vatkit_instance instance;
  REQUIRE_OK(vatkit_vat_clip(vat, 1, &walk));
  duration = walk.duration_s;
  CHECK(strcmp(walk.name, "walk") == 0 && duration > 0.5f, "clip 1 is %s of %g s", walk.name, duration);
  REQUIRE_OK(vatkit_vat_clip_event_count(vat, 0, &count32));
  CHECK(count32 == 0, "idle has %u events", count32);
  REQUIRE_OK(vatkit_vat_clip_event_count(vat, 1, &count32));
  CHECK(count32 == 1, "walk has %u events", count32);
  REQUIRE_OK(vatkit_vat_clip_event(vat, 1, 0, &event));
  CHECK(strcmp(event.name, "step") == 0 && event.time_s == 0.2f, "event %s at %g", event.name, event.time_s);
  CHECK(vatkit_vat_clip_event(vat, 1, 1, &event) == VATKIT_ERROR_ARGUMENT && one_line(vatkit_last_error()),
        "event 1 of 1: %s", vatkit_last_error());

  REQUIRE_OK(vatkit_table_create(vat, 2, &table));
  memset(&instance, 0, sizeof instance);
  instance.fields = VATKIT_FIELD_LOOP_MODE | VATKIT_FIELD_REPETITIONS | VATKIT_FIELD_SPEED;
  instance.clip = 1;
  instance.loop_mode = VATKIT_LOOP_REPEAT;
  instance.repetitions = VATKIT_INFINITE_REPETITIONS;
  instance.speed = 1.0f;
  REQUIRE_OK(vatkit_table_set_instance(table, 1, &instance, 0.0f));
  REQUIRE_OK(vatkit_table_events_crossed(table, 1, 0.0f, 2.5f * duration, crossed, 4, &count));
  CHECK(count == 3, "%lu crossings in (0, 2.5 D]", (unsigned long)count);
  for (k = 0; k < 3 && k < count; ++k) {
    const float expected = 0.2f + (float)k * duration;
    CHECK(fabsf(crossed[k].time - expected) < 1e-5f && crossed[k].clip == 1 && crossed[k].event == 0 &&
              crossed[k].cycle == k && crossed[k].band == 0 && crossed[k].weight == 1.0f,
          "crossing %u: %g (expected %g) clip %u event %u cycle %u band %u weight %g", k, crossed[k].time, expected,
          crossed[k].clip, crossed[k].event, crossed[k].cycle, crossed[k].band, crossed[k].weight);
  }
  /* Consecutive frames report each crossing once; a short array gets the first and the full count. */
  REQUIRE_OK(vatkit_table_events_crossed(table, 1, 0.2f + duration, 2.5f * duration, crossed, 4, &count));
  CHECK(count == 1 && crossed[0].cycle == 2, "%lu crossings after the second (cycle %u)", (unsigned long)count,
        crossed[0].cycle);
  memset(crossed, 0, sizeof crossed);
  REQUIRE_OK(vatkit_table_events_crossed(table, 1, 0.0f, 2.5f * duration, crossed, 1, &count));
  CHECK(count == 3 && crossed[0].cycle == 0 && crossed[1].time == 0.0f, "capacity 1: count %lu", (unsigned long)count);
  REQUIRE_OK(vatkit_table_events_crossed(table, 1, 0.0f, 2.5f * duration, NULL, 0, &count));
  CHECK(count == 3, "capacity 0: count %lu", (unsigned long)count);
  /* Instance 0 plays idle, which has no events. */
  REQUIRE_OK(vatkit_table_events_crossed(table, 0, 0.0f, 10.0f, crossed, 4, &count));
  CHECK(count == 0, "idle crossed %lu", (unsigned long)count);
  CHECK(vatkit_table_events_crossed(table, 1, NAN, 1.0f, crossed, 4, &count) == VATKIT_ERROR_ARGUMENT &&
            one_line(vatkit_last_error()),
        "NaN t0: %s", vatkit_last_error());
  CHECK(vatkit_table_events_crossed(table, 2, 0.0f, 1.0f, crossed, 4, &count) == VATKIT_ERROR_ARGUMENT,
        "row 2 of 2: %s", vatkit_last_error());
  CHECK(vatkit_table_events_crossed(table, 1, 0.0f, 1.0f, NULL, 4, &count) == VATKIT_ERROR_ARGUMENT,
        "NULL out with capacity 4: %s", vatkit_last_error());
  vatkit_table_free(table);
}

static void test_table_keeps_its_vat(void) {
  vatkit_vat* vat = load("rig.vat.glb");
  vatkit_instance_table* table = NULL;
  vatkit_instance instance;
  vatkit_sample sample;
  REQUIRE_OK(vatkit_table_create(vat, 1, &table));
  vatkit_vat_free(vat);
  memset(&instance, 0, sizeof instance);
  instance.clip = 2;
  REQUIRE_OK(vatkit_table_set_instance(table, 0, &instance, 0.0f));
  REQUIRE_OK(vatkit_table_resolve(table, 0, 0.0f, &sample));
  CHECK(sample.a.row == 42, "run starts at row %u", sample.a.row);
  instance.clip = 3;
  CHECK(vatkit_table_set_instance(table, 0, &instance, 0.0f) == VATKIT_ERROR_ARGUMENT, "clip 3 of 3");
  CHECK(names_file(vatkit_last_error(), "rig.vat.glb"), "\"%s\"", vatkit_last_error());
  vatkit_table_free(table);
}

/* What a one-element array left waiting, a resize trims: no range or event names a dropped row. */
static void test_resize_trims_what_is_waiting(const vatkit_vat* vat) {
  vatkit_instance_table* table = NULL;
  vatkit_instance instance;
  vatkit_row_range range;
  vatkit_event event;
  size_t count;
  uint32_t i;
  REQUIRE_OK(vatkit_table_create(vat, 4, &table));
  memset(&instance, 0, sizeof instance);
  instance.fields = VATKIT_FIELD_LOOP_MODE;
  instance.loop_mode = VATKIT_LOOP_ONCE; /* each ends: one event per row */
  for (i = 0; i < 4; i += 2) REQUIRE_OK(vatkit_table_set_instance(table, i, &instance, 0.0f));
  instance.start_time = 0.5f;
  REQUIRE_OK(vatkit_table_set_instance(table, 3, &instance, 0.0f));
  /* Waiting: ranges [0, 1) and [2, 4); events of rows 0, 2 (at 3 s) and 3 (at 3.5 s). */
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &count));
  CHECK(count == 1 && range.first == 0 && range.count == 1, "%lu [%u, +%u)", (unsigned long)count, range.first,
        range.count);
  REQUIRE_OK(vatkit_table_pop_events(table, 100.0f, &event, 1, &count));
  CHECK(count == 1 && event.index == 0, "%lu: event of %u", (unsigned long)count, event.index);
  REQUIRE_OK(vatkit_table_resize(table, 3));
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &count));
  CHECK(count == 1 && range.first == 2 && range.count == 1, "after the resize: %lu [%u, +%u)", (unsigned long)count,
        range.first, range.count);
  REQUIRE_OK(vatkit_table_take_dirty(table, 0, &range, 1, &count));
  CHECK(count == 0, "after the resize: %lu more ranges", (unsigned long)count);
  REQUIRE_OK(vatkit_table_pop_events(table, 100.0f, &event, 1, &count));
  CHECK(count == 1 && event.index == 2 && fabsf(event.time - 3.0f) < 1e-5f, "after the resize: %lu: %u at %g",
        (unsigned long)count, event.index, event.time);
  REQUIRE_OK(vatkit_table_pop_events(table, 100.0f, &event, 1, &count));
  CHECK(count == 0, "after the resize: %lu more events (row 3 was dropped)", (unsigned long)count);
  vatkit_table_free(table);
}

static void test_errors(void) {
  char path[1024];
  size_t size;
  unsigned char* bytes;
  vatkit_vat* vat = (vatkit_vat*)&size; /* must come back NULL */
  vatkit_vat_info info;

  path_of(path, sizeof path, "missing.vat.glb");
  CHECK(vatkit_vat_load(path, &vat) == VATKIT_ERROR_IO && vat == NULL, "a missing file: %s",
        vatkit_status_name(vatkit_vat_load(path, &vat)));
  CHECK(one_line(vatkit_last_error()) && strstr(vatkit_last_error(), path) == vatkit_last_error(), "\"%s\"",
        vatkit_last_error());

  path_of(path, sizeof path, "delta.vat.glb");
  bytes = read_all(path, &size);
  bytes[size / 2] ^= 0x40; /* a flipped bit in the planes: only the checksum sees it */
  vat = (vatkit_vat*)&size;
  CHECK(vatkit_vat_load_memory(bytes, size, "flipped.vat.glb", &vat) == VATKIT_ERROR_CORRUPT && vat == NULL,
        "a flipped bit: %s, %s", vatkit_status_name(vatkit_vat_load_memory(bytes, size, "flipped.vat.glb", &vat)),
        vatkit_last_error());
  CHECK(one_line(vatkit_last_error()) && strstr(vatkit_last_error(), "flipped.vat.glb: ") == vatkit_last_error() &&
            strstr(vatkit_last_error(), "checksum") != NULL,
        "\"%s\"", vatkit_last_error());
  bytes[size / 2] ^= 0x40;
  CHECK(vatkit_vat_load_memory(bytes, size / 3, "cut.vat.glb", &vat) == VATKIT_ERROR_PARSE, "a truncated file: %s",
        vatkit_last_error());
  CHECK(one_line(vatkit_last_error()) && strstr(vatkit_last_error(), "cut.vat.glb: ") == vatkit_last_error(), "\"%s\"",
        vatkit_last_error());
  REQUIRE_OK(vatkit_vat_load_memory(bytes, size, NULL, &vat)); /* the same bytes, whole, load */
  free(bytes);                                                 /* they were copied */
  REQUIRE_OK(vatkit_vat_get_info(vat, &info));
  CHECK(info.clip_count == 3, "%u clips from memory", info.clip_count);
  vatkit_vat_free(vat);

  CHECK(vatkit_vat_get_info(NULL, &info) == VATKIT_ERROR_ARGUMENT, "a NULL vat");
  CHECK(strcmp(vatkit_last_error(), "vatkit_vat_get_info: vat is NULL") == 0, "\"%s\"", vatkit_last_error());
  CHECK(vatkit_vat_load(NULL, &vat) == VATKIT_ERROR_ARGUMENT && vat == NULL, "a NULL path");
  CHECK(vatkit_table_floats(NULL, &size) == NULL && size == 0, "floats of NULL");
  vatkit_vat_free(NULL);
  vatkit_table_free(NULL);
}

int main(int argc, char** argv) {
  vatkit_vat *delta, *rig;
  size_t vertices;
  float* rest;
  if (argc != 2) {
    fprintf(stderr, "usage: test_c_api WORK_DIR (tests/c_api/make_files.cmake fills it)\n");
    return 2;
  }
  work_dir = argv[1];
  test_library();
  delta = load("delta.vat.glb");
  rig = load("rig.vat.glb");
  rest = pose_positions("delta_walk.json", &vertices);
  free(rest);
  test_clip_table(delta, vertices / 3);
  test_clip_pose(delta, "delta_walk.json", 1e-6f);
  test_clip_pose(rig, "rig_walk.json", 1e-6f);
  test_cross_fade(delta);
  test_events(delta);
  test_table_keeps_its_vat();
  test_resize_trims_what_is_waiting(delta);
  test_sockets(delta, rig);
  test_errors();
  vatkit_vat_free(delta);
  vatkit_vat_free(rig);
  if (failures) {
    fprintf(stderr, "test_c_api: %d checks failed\n", failures);
    return 1;
  }
  printf("test_c_api: every check passed\n");
  return 0;
}
