// Bake throughput and size per encoding and precision, on real files at 30 fps, all clips.
//
// Usage: bench_bake [ASSETS_DIR] [--reps N] [--files a.glb,b.glb] [--encodings delta,rig] [--no-measure]
//                   [--precisions f32,f16,q16] [--lanes 4|8|16]  (the kernels' SIMD width; default: the widest the CPU
//                   runs)
//                   [--pages reused|fresh]  (reused: repeated bakes reuse their buffers' pages; fresh: each
//                   bake's buffers are fresh mappings, as in a new process; see main)
// Prints a Markdown table: the median over N repetitions (default 7) after warm-up bakes (see main), one
// thread and every hardware thread. Throughput is vertex-frames per second for delta (vertices x
// frame rows) and joint-frames per second for rig (slots x frame rows), for the whole bake() call
// (merged geometry, slots, every frame row, the planes; BakeOptions::measure = false and lods = 0), by wall
// time and per CPU-second (process CPU time: on a machine shared with other work the wall time
// is inflated by waiting, the CPU time much less), and for the frame rows alone
// (BakeReport::frame_seconds: posing, encoding and the planes, without the merged geometry and
// slots that every bake builds once, whatever its length). "f32"/"f16"/"q16" are the precisions; bytes
// per vertex-frame count the delta's Position/Normal/Tangent planes (the socket Slots plane is in
// the plane bytes). The error columns come from one separate measure_error run (its time is
// reported on its own), made after every configuration is timed: max over clips, on rows and
// between rows, in mm (file units taken as metres), against the reference skinner.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <fstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "simd/simd.h"
#include "vatkit/bake.h"
#include "vatkit/import.h"
#include "vatkit/parallel.h"
#include "vatkit/sample_character.h"

namespace {

using Clock = std::chrono::steady_clock;
using vatkit::bench::cpu_seconds;
using vatkit::bench::si;

std::string bytes(double v) {
  char buf[32];
  if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f MB", v / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f kB", v / 1e3);
  }
  return buf;
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir = VATKIT_ASSETS_DIR;
  int reps = 7;
  bool measure = true;
  std::string pages = "reused";
  std::vector<unsigned> thread_counts;  // empty: 1 and every hardware thread
  std::vector<std::string> files = {"threejs/RobotExpressive.glb", "khronos/Fox.glb", "khronos/CesiumMan.glb",
                                    "<sample>"};
  std::vector<vatkit::EncodingChoice> encodings = {vatkit::EncodingChoice::Delta, vatkit::EncodingChoice::Rig};
  std::vector<vatkit::Precision> precisions = {vatkit::Precision::F32, vatkit::Precision::F16, vatkit::Precision::Q16};
  const auto split = [](const std::string& list) {
    std::vector<std::string> out;
    for (size_t at = 0; at <= list.size();) {
      const size_t comma = std::min(list.find(',', at), list.size());
      out.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--lanes") == 0 && i + 1 < argc) {
      vatkit::detail::force_simd_lanes(unsigned(std::atoi(argv[++i])));
    } else if (std::strcmp(argv[i], "--precisions") == 0 && i + 1 < argc) {
      precisions.clear();
      for (const std::string& name : split(argv[++i])) {
        const vatkit::Precision all[3] = {vatkit::Precision::F32, vatkit::Precision::F16, vatkit::Precision::Q16};
        const vatkit::Precision* found =
            std::find_if(all, all + 3, [&](vatkit::Precision q) { return name == vatkit::to_string(q); });
        if (found == all + 3) {
          std::fprintf(stderr, "bench_bake: --precisions: '%s' is not f32, f16 or q16\n", name.c_str());
          return 2;
        }
        precisions.push_back(*found);
      }
    } else if (std::strcmp(argv[i], "--pages") == 0 && i + 1 < argc) {
      pages = argv[++i];
      if (pages != "reused" && pages != "fresh") {
        std::fprintf(stderr, "bench_bake: --pages: '%s' is not reused or fresh\n", pages.c_str());
        return 2;
      }
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      thread_counts.clear();
      for (const std::string& t : split(argv[++i])) {
        const int n = std::atoi(t.c_str());
        if (n < 1 || n > 1024) {
          std::fprintf(stderr, "bench_bake: --threads: '%s' is not a thread count\n", t.c_str());
          return 2;
        }
        thread_counts.push_back(unsigned(n));
      }
    } else if (std::strcmp(argv[i], "--no-measure") == 0) {
      measure = false;
    } else if (std::strcmp(argv[i], "--files") == 0 && i + 1 < argc) {
      files = split(argv[++i]);
    } else if (std::strcmp(argv[i], "--encodings") == 0 && i + 1 < argc) {
      encodings.clear();
      for (const std::string& e : split(argv[++i])) {
        if (e != "delta" && e != "rig") {
          std::fprintf(stderr, "bench_bake: --encodings: '%s' is not delta or rig\n", e.c_str());
          return 2;
        }
        encodings.push_back(e == "rig" ? vatkit::EncodingChoice::Rig : vatkit::EncodingChoice::Delta);
      }
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf(
          "usage: bench_bake [ASSETS_DIR] [--reps N] [--files a.glb,b.glb] [--encodings delta,rig]\n"
          "                  [--precisions f32,f16,q16] [--threads 1,N] [--lanes 4|8|16] [--pages reused|fresh]\n"
          "                  [--no-measure]\n"
          "--threads: the thread counts to time (default: 1 and every hardware thread)\n");
      return 0;
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "bench_bake: unknown option '%s' (--help lists them)\n", argv[i]);
      return 2;
    } else {
      dir = argv[i];
    }
  }
  // Which memory a bake's buffers get is glibc's choice, and it changes with the sizes asked
  // before: a block at or above the mmap threshold is a fresh mapping, and that threshold moves
  // with every large free. Where a fresh page is expensive (bench_fresh_pages measures it), that
  // choice can swing a bake severalfold between two builds whose only difference is a scratch
  // buffer's size. Both are pinned here: "reused" (the default) keeps every block under 32 MB (glibc's
  // largest threshold) in the heap and never trims it, so repeated bakes reuse their pages (the
  // bake's own work, as a process baking many files runs it); "fresh" maps every block of 64 kB
  // or more anew, so each bake pays for fresh pages as a bake in a new process does.
#if defined(__GLIBC__)
  if (pages == "reused") {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 0x7fffffff);
  } else {
    mallopt(M_MMAP_THRESHOLD, 64 << 10);
  }
#endif
  const unsigned all = vatkit::hardware_threads();
  if (thread_counts.empty()) thread_counts = {1u, all};
  const unsigned measured_threads =
      *std::max_element(thread_counts.begin(), thread_counts.end());  // errors of one bake each
  std::printf(
      "Bake throughput (30 fps, every clip; median of %d after warm-ups until the heap is steady; %u hardware threads; "
      "rig kernel %u "
      "lanes; %s pages; load average at start %s)\n\n",
      reps, all, vatkit::detail::simd_lanes(), pages.c_str(), loadavg().c_str());
  std::printf(
      "| file | encoding | precision | threads | rows | vertices / slots | bake ms (wall) | bake ms (CPU) | "
      "throughput (wall) | per CPU-second | frame rows only (wall) | plane bytes | bytes per vertex-frame / "
      "joint-frame | measure ms | "
      "max on rows mm | max between mm |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  // Every configuration is timed first; the errors are measured afterwards, on a fresh bake of
  // each: a measurement between two configurations changes what the next one's buffers cost
  // (fresh pages instead of reused ones).
  struct Row {
    std::string cells;  // up to the measure column
    const vatkit::Asset* asset = nullptr;
    vatkit::BakeOptions options;
    bool measure = false;
  };
  std::vector<Row> rows;
  std::vector<vatkit::Asset> assets;
  assets.reserve(files.size());
  for (const std::string& f : files) {
    vatkit::ImportOptions io;
    io.load_images = false;
    auto a = f == "<sample>" ? vatkit::load_sample_character() : vatkit::import_gltf(dir / f, io);
    if (!a) {
      std::fprintf(stderr, "bench_bake: %s\n", a.error().message.c_str());
      return 1;
    }
    assets.push_back(std::move(*a));
    const vatkit::Asset* asset = &assets.back();
    const std::string name = f == "<sample>" ? "sample character" : std::filesystem::path(f).stem().string();
    for (vatkit::EncodingChoice enc : encodings) {
      for (vatkit::Precision prec : precisions) {
        for (unsigned threads : thread_counts) {
          vatkit::BakeOptions o;
          o.encoding = enc;
          o.precision = prec;
          o.threads = threads;
          o.measure = false;
          o.lods = 0;  // the frames and planes only; docs/lod.md measures the levels' cost
          std::vector<double> times, cpu, frames;
          // Warm-up: at least three bakes, and until the heap stops growing (three bakes in a
          // row that leave it at the same size, at most 40), so that every timed bake reuses
          // pages the allocator already holds (see `pages` above). Each bake's result is released
          // before the next starts (`drop`), as in a process baking one file after another. A
          // fixed count of warm-ups is not enough: the heap can keep growing by a plane for the
          // first bakes of a configuration (each hole left by the last bake's buffers a little too
          // small for the next), and those bakes pay fresh pages.
          const auto drop = [](vatkit::Result<vatkit::Vat>& r) { r = vatkit::Error{}; };
          const auto heap_bytes = [] {
#if defined(__GLIBC__)
            const struct mallinfo2 m = mallinfo2();
            return m.arena + m.hblkhd;
#else
            return size_t(0);
#endif
          };
          vatkit::Result<vatkit::Vat> vat = vatkit::bake(*asset, o);
          for (int w = 1, same = 0; vat && w < 40 && (w < 3 || (pages == "reused" && same < 3)); ++w) {
            const size_t before = heap_bytes();
            drop(vat);
            vat = vatkit::bake(*asset, o);
            same = heap_bytes() == before ? same + 1 : 0;
          }
          if (!vat) {
            Row row;
            row.cells = "| " + name + " | " + (enc == vatkit::EncodingChoice::Rig ? "rig" : "delta") + " | " +
                        vatkit::to_string(prec) + " | " + std::to_string(threads) +
                        " | refused: " + vat.error().message + " |";
            rows.push_back(row);
            break;
          }
          // The wall clock times the bake() call alone: releasing the last result and reading
          // the process's CPU time (a system call) fall outside it.
          for (int r = 0; r < reps; ++r) {
            vatkit::BakeReport rep;
            const double c0 = cpu_seconds();
            drop(vat);
            const auto t0 = Clock::now();
            vat = vatkit::bake(*asset, o, &rep);
            times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            cpu.push_back(cpu_seconds() - c0);
            frames.push_back(rep.frame_seconds);
          }
          std::sort(times.begin(), times.end());
          std::sort(cpu.begin(), cpu.end());
          std::sort(frames.begin(), frames.end());
          const double fs = frames[frames.size() / 2];
          const double s = times[times.size() / 2];
          const double cs = cpu[cpu.size() / 2];
          const vatkit::Vat& v = *vat;
          const bool rig = v.encoding == vatkit::Encoding::Rig;
          const double units = double(rig ? v.slots.size() : v.geometry.vertex_count()) * v.frame_rows;
          size_t plane_bytes = 0;
          for (const auto& p : v.planes) plane_bytes += p.byte_size();
          // Bytes per vertex-frame of what the encoding needs to pose a vertex: every plane but
          // the delta's socket slots (reported in plane bytes all the same).
          size_t core_bytes = 0;
          for (const auto& p : v.planes)
            if (rig || p.semantic != vatkit::PlaneSemantic::Slots) core_bytes += p.byte_size();
          char buf[512];
          std::snprintf(buf, sizeof buf,
                        "| %s | %s | %s | %u | %u | %zu | %.2f | %.2f | %s %s/s | %s | %s | %s | %.2f |", name.c_str(),
                        rig ? "rig" : "delta", vatkit::to_string(prec), threads, v.frame_rows,
                        rig ? v.slots.size() : size_t(v.geometry.vertex_count()), s * 1e3, cs * 1e3,
                        si(units / s).c_str(), rig ? "joint-frames" : "vertex-frames", si(units / cs).c_str(),
                        si(units / fs).c_str(), bytes(double(plane_bytes)).c_str(), double(core_bytes) / units);
          Row row;
          row.cells = buf;
          row.asset = asset;
          row.options = o;
          row.measure = measure && threads == measured_threads;
          rows.push_back(row);
          std::fprintf(stderr, "\r%zu configurations timed", rows.size());
        }
      }
    }
  }
  std::fprintf(stderr, "\n");
  for (const Row& row : rows) {
    if (!row.asset) {
      std::printf("%s\n", row.cells.c_str());
      continue;
    }
    std::string tail = " | | |";
    if (row.measure) {
      auto vat = vatkit::bake(*row.asset, row.options);
      if (vat) {
        const auto t0 = Clock::now();
        auto m = vatkit::measure_error(*row.asset, *vat, {});
        const double ms = std::chrono::duration<double>(Clock::now() - t0).count() * 1e3;
        float on = 0.0f, between = 0.0f;
        if (m) {
          for (const auto& c : *m) {
            on = std::max(on, c.on_rows_max_mm);
            between = std::max(between, c.between_rows_max_mm);
          }
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, " %.1f | %.4f | %.3f |", ms, double(on), double(between));
        tail = buf;
      }
    }
    std::printf("%s%s\n", row.cells.c_str(), tail.c_str());
  }
  std::printf("\nLoad average at the end: %s\n", loadavg().c_str());
  return 0;
}
