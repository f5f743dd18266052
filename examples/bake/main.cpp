// vatkit_bake_file OUT.vat.glb [IN.gltf|IN.glb]: imports a glTF file (the built-in sample when
// none is given), bakes every clip at 30 frames per second with the encoding the baker picks, and
// writes the file. Prints what each clip became and how far it strays from the reference skinner.
#include <cstdio>

#include <vatkit/bake.h>
#include <vatkit/import.h>
#include <vatkit/sample_character.h>
#include <vatkit/vat_write.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vatkit_bake_file OUT.vat.glb [IN.gltf|IN.glb]\n");
    return 2;
  }
  vatkit::Result<vatkit::Asset> asset = argc > 2 ? vatkit::import_gltf(argv[2]) : vatkit::load_sample_character();
  if (!asset) {
    std::fprintf(stderr, "vatkit_bake_file: %s\n", asset.error().message.c_str());
    return 1;
  }
  vatkit::BakeOptions options;  // 30 fps, encoding chosen by measured error, 3 levels of detail
  options.progress = [](std::string_view stage, float fraction) {
    std::fprintf(stderr, "\r%.*s %3.0f%%", static_cast<int>(stage.size()), stage.data(), fraction * 100.0f);
  };
  vatkit::BakeReport report;
  vatkit::Result<vatkit::Vat> vat = vatkit::bake(*asset, options, &report);
  std::fprintf(stderr, "\n");
  if (!vat) {
    std::fprintf(stderr, "vatkit_bake_file: %s\n", vat.error().message.c_str());
    return 1;
  }
  if (vatkit::Result<void> saved = vatkit::save_vat(*vat, argv[1]); !saved) {
    std::fprintf(stderr, "vatkit_bake_file: %s\n", saved.error().message.c_str());
    return 1;
  }
  std::printf("%s: %s encoding, %s, %zu clips, %u frame rows\n", argv[1], vatkit::to_string(vat->encoding),
              vatkit::to_string(vat->precision), vat->clips.size(), vat->frame_rows);
  for (const vatkit::ClipError& e : report.clips) {
    std::printf("  %s: %u rows at %.1f fps, %.3f mm on the rows, %.3f mm between them\n", e.clip.c_str(), e.rows, e.fps,
                e.on_rows_max_mm, e.between_rows_max_mm);
  }
  return 0;
}
