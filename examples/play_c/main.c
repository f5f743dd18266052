/* vatkit_play_c FILE.vat.glb [CLIP]: examples/play through the C interface. Loads a baked file,
 * starts one instance of CLIP (a name or #N; the first clip without one) in an instance table,
 * and decodes its vertices on the CPU at a few times, printing where the mesh is; then the world
 * matrix of the first joint (a socket). */
#include <stdio.h>
#include <stdlib.h>

#include <vatkit/vatkit_c.h>

static int failed(const char* what) {
  fprintf(stderr, "vatkit_play_c: %s: %s\n", what, vatkit_last_error());
  return 1;
}

int main(int argc, char** argv) {
  vatkit_vat* vat = NULL;
  vatkit_vat_info info;
  vatkit_clip_info clip;
  vatkit_instance_table* table = NULL;
  vatkit_instance instance = {0};
  vatkit_sample sample;
  float *positions, joint[16];
  uint32_t clip_index = 0, v;
  int step, status = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: vatkit_play_c FILE.vat.glb [CLIP]\n");
    return 2;
  }
  if (vatkit_abi_version() != VATKIT_C_ABI_VERSION) {
    fprintf(stderr, "vatkit_play_c: libvatkit_c has ABI %u, this program was built for %u\n", vatkit_abi_version(),
            VATKIT_C_ABI_VERSION);
    return 1;
  }
  if (vatkit_vat_load(argv[1], &vat) != VATKIT_OK) return failed("load");
  if (vatkit_vat_get_info(vat, &info) != VATKIT_OK) return failed("info");
  if (vatkit_vat_find_clip(vat, argc > 2 ? argv[2] : "#0", &clip_index) != VATKIT_OK) return failed("clip");
  if (vatkit_vat_clip(vat, clip_index, &clip) != VATKIT_OK) return failed("clip");
  printf("%s: vatkit %s, %u clips, %u vertices; playing \"%s\" (%.3f s)\n", argv[1], vatkit_version(), info.clip_count,
         info.vertex_count, clip.name, clip.duration_s);

  if (vatkit_table_create(vat, 1, &table) != VATKIT_OK) return failed("table");
  instance.clip = clip_index;
  if (vatkit_table_set_instance(table, 0, &instance, 0.0f) != VATKIT_OK) return failed("set_instance");
  positions = malloc(3 * sizeof(float) * info.vertex_count);
  for (step = 0; step <= 4 && positions; ++step) {
    const float time = clip.duration_s * (float)step / 4.0f;
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    int k;
    if (vatkit_table_resolve(table, 0, time, &sample) != VATKIT_OK ||
        vatkit_mirror_vertices(vat, &sample, NULL, 0, info.vertex_count, positions, NULL) != VATKIT_OK) {
      status = failed("decode");
      break;
    }
    for (v = 0; v < info.vertex_count; ++v) {
      for (k = 0; k < 3; ++k) {
        const float x = positions[3 * v + (uint32_t)k];
        lo[k] = x < lo[k] ? x : lo[k];
        hi[k] = x > hi[k] ? x : hi[k];
      }
    }
    printf("  t = %.3f s: row %u -> %u (mix %.2f), bounds (%.3f %.3f %.3f) .. (%.3f %.3f %.3f)\n", time, sample.a.row,
           sample.a.row_next, sample.a.mix, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
  }
  if (status == 0 && info.slot_count > 0) {
    vatkit_slot_info slot;
    if (vatkit_vat_slot(vat, 0, &slot) != VATKIT_OK || vatkit_mirror_joint(vat, &sample, NULL, 0, joint) != VATKIT_OK) {
      status = failed("joint");
    } else {
      printf("  joint \"%s\" at (%.3f %.3f %.3f)\n", slot.name, joint[12], joint[13], joint[14]);
    }
  }
  free(positions);
  vatkit_table_free(table);
  vatkit_vat_free(vat);
  return positions ? status : 1;
}
