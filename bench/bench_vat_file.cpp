// .vat.glb write and load speed: a synthetic delta VAT of about SIZE_MB (default 100) is written,
// saved and loaded; each step is timed over repetitions and the median printed, with the XXH3
// checksum alone for comparison. "cold" drops the file's pages from the page cache first
// (posix_fadvise DONTNEED), so the load reads the disk; "warm" loads from the page cache.
// Usage: bench_vat_file [SIZE_MB] [REPETITIONS]
//        bench_vat_file FILE.vat.glb [REPETITIONS]   (load_vat of an existing file, warm and cold)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "file/glb_writer.h"
#include "file/checksum.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace {

using Clock = std::chrono::steady_clock;

double median_ms(int repetitions, const std::function<void()>& before, const std::function<void()>& run) {
  std::vector<double> ms;
  for (int r = 0; r < repetitions; ++r) {
    if (before) before();
    const auto t0 = Clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void drop_from_cache(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vatkit;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 7;
  if (argc > 1 && std::filesystem::is_regular_file(argv[1])) {
    const std::filesystem::path path = argv[1];
    const double mb = double(std::filesystem::file_size(path)) / 1e6;
    const double warm_ms = median_ms(repetitions, nullptr, [&] {
      if (!load_vat(path).ok()) std::abort();
    });
    const double cold_ms = median_ms(
        repetitions, [&] { drop_from_cache(path); },
        [&] {
          if (!load_vat(path).ok()) std::abort();
        });
    std::printf("bench_vat_file: %s, %.1f MB, median of %d\n\n| step | ms | GB/s |\n|---|---:|---:|\n", path.c_str(),
                mb, repetitions);
    std::printf("| load_vat, warm page cache | %.2f | %.1f |\n", warm_ms, mb / warm_ms);
    std::printf("| load_vat, cold (file dropped from the page cache) | %.2f | %.1f |\n", cold_ms, mb / cold_ms);
    return 0;
  }
  const double size_mb = argc > 1 ? std::atof(argv[1]) : 100.0;

  // 20k vertices, position and normal planes (f32, 32 bytes per vertex-frame), wrapped in two
  // texture rows per frame; as many frame rows as make the size.
  const uint32_t vertices = 20000;
  const uint32_t frame_rows = std::max<uint32_t>(1, uint32_t(size_mb * 1e6 / (vertices * 32.0)));
  Vat vat;
  vat.source = "bench";
  vat.frame_rows = frame_rows;
  VatClip clip;
  clip.name = "clip";
  clip.rows = frame_rows;
  clip.duration_s = float(frame_rows - 1) / 30.0f;
  clip.fps = 30.0f;
  vat.clips.push_back(clip);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  for (uint32_t v = 0; v < vertices; ++v) {
    vat.geometry.positions.push_back({unit(rng), unit(rng), unit(rng)});
    vat.geometry.normals.push_back(glm::normalize(glm::vec3(unit(rng), unit(rng), 1.5f)));
    vat.geometry.texcoords0.push_back({unit(rng), unit(rng)});
  }
  for (uint32_t t = 0; t + 2 < vertices; ++t)
    vat.geometry.indices.insert(vat.geometry.indices.end(), {t, t + 1, t + 2});
  vat.geometry.groups.push_back({0, uint32_t(vat.geometry.indices.size()), -1});
  auto storage = std::make_shared<std::vector<std::vector<uint8_t>>>();
  storage->reserve(2);
  for (PlaneSemantic s : {PlaneSemantic::Position, PlaneSemantic::Normal}) {
    Plane p;
    p.semantic = s;
    p.texels_per_frame = vertices;
    p.rows_per_frame = 2;
    p.width = vertices / 2;
    p.height = 2 * frame_rows;
    std::vector<uint8_t>& bytes = storage->emplace_back(p.byte_size());
    for (size_t i = 0; i < bytes.size(); i += 4) bytes[i] = uint8_t(rng());
    p.data = bytes;
    vat.planes.push_back(p);
  }
  vat.storage = storage;

  std::vector<uint8_t> file;
  const double write_ms = median_ms(repetitions, nullptr, [&] { file = std::move(*write_vat_glb(vat)); });
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "bench_vat_file.vat.glb";
  const double save_ms = median_ms(repetitions, nullptr, [&] {
    if (!save_vat(vat, path).ok()) std::abort();
  });

  std::string why;
  const Result<glb::Chunks> chunks = glb::split_glb(file, "bench");
  const size_t digits = *vat_file_detail::find_checksum_digits(file, chunks->json, &why);
  uint64_t sink = 0;
  const double xxh_ms =
      median_ms(repetitions, nullptr, [&] { sink += vat_file_detail::content_checksum(file, digits); });
  const double memory_ms = median_ms(repetitions, nullptr, [&] {
    if (!load_vat_memory(file, "bench").ok()) std::abort();
  });
  const double warm_ms = median_ms(repetitions, nullptr, [&] {
    if (!load_vat(path).ok()) std::abort();
  });
  const double cold_ms = median_ms(
      repetitions, [&] { drop_from_cache(path); },
      [&] {
        if (!load_vat(path).ok()) std::abort();
      });
  std::filesystem::remove(path);

  const double mb = double(file.size()) / 1e6;
  std::printf("bench_vat_file: %.1f MB .vat.glb (delta f32, %u vertices, %u frame rows), median of %d\n\n", mb,
              vertices, frame_rows, repetitions);
  std::printf("| step | ms | GB/s |\n|---|---:|---:|\n");
  auto row = [&](const char* what, double ms) { std::printf("| %s | %.2f | %.1f |\n", what, ms, mb / ms); };
  row("write_vat_glb (in memory)", write_ms);
  row("save_vat (write + atomic save, fsync)", save_ms);
  row("XXH3-64 checksum alone", xxh_ms);
  row("load_vat_memory (bytes in memory)", memory_ms);
  row("load_vat, warm page cache (read + checksum + validation)", warm_ms);
  row("load_vat, cold (file dropped from the page cache)", cold_ms);
  return sink == 42 ? 1 : 0;
}
