// vatkit_play FILE.vat.glb [CLIP]: loads a baked file, starts one instance of CLIP (a name or #N;
// the first clip without one) and decodes its vertices on the CPU at a few times, printing where
// the mesh is. This is what a game server or a physics step does with vatkit::runtime: the pose
// the GPU shows, without a GPU.
#include <cstdio>
#include <string>
#include <vector>

#include <vatkit/mirror.h>
#include <vatkit/playback.h>
#include <vatkit/vat_file.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vatkit_play FILE.vat.glb [CLIP]\n");
    return 2;
  }
  vatkit::Result<vatkit::Vat> vat = vatkit::load_vat(argv[1]);
  if (!vat) {
    std::fprintf(stderr, "vatkit_play: %s\n", vat.error().message.c_str());
    return 1;
  }
  vatkit::Result<int> clip = vatkit::find_clip(*vat, argc > 2 ? argv[2] : "#0");
  if (!clip) {
    std::fprintf(stderr, "vatkit_play: %s\n", clip.error().message.c_str());
    return 1;
  }
  const vatkit::VatClip& c = vat->clips[static_cast<size_t>(*clip)];
  std::printf("%s: %s, %zu clips, %u vertices; playing \"%s\" (%.3f s)\n", argv[1], vatkit::to_string(vat->encoding),
              vat->clips.size(), vat->geometry.vertex_count(), vatkit::clip_label(*vat, *clip).c_str(), c.duration_s);

  vatkit::Instance instance;
  instance.clip = vatkit::clip_band(*vat, static_cast<uint32_t>(*clip));
  if (vatkit::Result<void> ok = vatkit::check_instance(*vat, instance); !ok) {
    std::fprintf(stderr, "vatkit_play: %s\n", ok.error().message.c_str());
    return 1;
  }
  std::vector<glm::vec3> positions(vat->geometry.vertex_count());
  for (int step = 0; step <= 4; ++step) {
    const float time = c.duration_s * static_cast<float>(step) / 4.0f;
    const vatkit::PlaybackSample frame = vatkit::resolve(instance, time);
    if (auto mirrored = vatkit::mirror_vertices(*vat, frame, glm::mat4(1.0f), 0, positions); !mirrored) {
      std::fprintf(stderr, "vatkit_play: %s\n", mirrored.error().message.c_str());
      return 1;
    }
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (const glm::vec3& p : positions) lo = glm::min(lo, p), hi = glm::max(hi, p);
    std::printf("  t = %.3f s: row %u -> %u (mix %.2f), bounds (%.3f %.3f %.3f) .. (%.3f %.3f %.3f)\n", time,
                frame.a.row, frame.a.row_next, frame.a.mix, lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
  }
  return positions.empty() ? 1 : 0;
}
