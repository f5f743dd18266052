// Sampling and reference-skinning throughput on real files (Fox, CesiumMan, RobotExpressive).
//
// Usage: bench_sample_skin [ASSETS_DIR] [--reps N] [--lanes 4|8|16]  (the skinning kernel's SIMD
//        width; default: the widest the CPU runs)
// Prints Markdown tables: median over N repetitions (default 15) after one warm-up run, with
// deterministic inputs (evenly spaced times over each clip, and the same times shuffled with a
// fixed seed). Caches are warm: this measures the kernels, not memory traffic. Each row gives
// the wall-clock median, the best wall-clock repetition, and the median process CPU time (all
// threads summed), which is the number to trust on a shared, loaded machine.
//
// Sampling columns:
//   channel samples/s = channels of the clip x times / second
//   joints/s          = distinct nodes the clip animates x times / second (a "joint" = its T, R
//                       and S channels, which is what ozz-animation counts)
// "batch" is sample_animation_batch (channel-outer, key cursor); "one by one" is reset_pose +
// sample_animation per time (binary search per channel).
// Skinning: SceneEvaluator::skin, positions + normals of every instance, vertices/s; pose() is
// timed separately (sampling + world matrices + joint matrices).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_util.h"
#include "simd/simd.h"
#include "vatkit/import.h"
#include "vatkit/parallel.h"
#include "vatkit/sample.h"
#include "vatkit/scene.h"

namespace {

using Clock = std::chrono::steady_clock;
using vatkit::bench::cpu_seconds;
using vatkit::bench::si;

// Wall-clock median and best, and the median of the process CPU time (all threads summed).
// On a shared machine the CPU time is the robust number for one thread: time spent preempted
// does not count.
struct Timing {
  double median_s = 0.0;
  double best_s = 0.0;
  double cpu_median_s = 0.0;
  Timing operator/(double n) const { return {median_s / n, best_s / n, cpu_median_s / n}; }
};

template <class F>
Timing time_it(int reps, F&& f) {
  f();  // warm-up
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const double c0 = cpu_seconds();
    const auto t0 = Clock::now();
    f();
    wall.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    cpu.push_back(cpu_seconds() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], wall.front(), cpu[cpu.size() / 2]};
}

volatile float g_sink = 0.0f;  // keeps results observable

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir = VATKIT_ASSETS_DIR;
  int reps = 15;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--lanes") == 0 && i + 1 < argc) {
      vatkit::detail::force_simd_lanes(unsigned(std::atoi(argv[++i])));
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: bench_sample_skin [ASSETS_DIR] [--reps N] [--lanes 4|8|16]\n");
      return 0;
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "bench_sample_skin: unknown option '%s' (--help lists them)\n", argv[i]);
      return 2;
    } else {
      dir = argv[i];
    }
  }
  const char* files[] = {"khronos/Fox.glb", "khronos/CesiumMan.glb", "threejs/RobotExpressive.glb"};
  const unsigned all = vatkit::hardware_threads();
  const size_t kTimes = 4096;

  std::printf("Sampling (%zu times per clip, summed over every clip of the file; median of %d)\n\n", kTimes, reps);
  std::printf(
      "| file | clips | channels | joints | threads | order | mode | channel samples/s | joints/s | joints/s (best) | "
      "joints per CPU-second |\n");
  std::printf("|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|\n");

  struct Loaded {
    std::string name;
    vatkit::Asset asset;
  };
  std::vector<Loaded> assets;
  for (const char* f : files) {
    vatkit::ImportOptions options;
    options.load_images = false;
    auto r = vatkit::import_gltf(dir / f, options);
    if (!r) {
      std::fprintf(stderr, "bench_sample_skin: %s\n", r.error().message.c_str());
      return 1;
    }
    assets.push_back({std::filesystem::path(f).stem().string(), std::move(r.value())});
  }

  for (const Loaded& l : assets) {
    const vatkit::Asset& a = l.asset;
    size_t channels = 0, joints = 0;
    std::vector<std::vector<float>> sorted_times, shuffled_times;
    std::mt19937 rng(20240607);
    for (const auto& anim : a.animations) {
      channels += anim.channels.size();
      std::set<uint32_t> nodes;
      for (const auto& ch : anim.channels) {
        if (ch.path != vatkit::Path::Weights) nodes.insert(ch.node);
      }
      joints += nodes.size();
      std::vector<float> t(kTimes);
      for (size_t k = 0; k < kTimes; ++k) t[k] = anim.end_s * float(k) / float(kTimes - 1);
      sorted_times.push_back(t);
      std::shuffle(t.begin(), t.end(), rng);
      shuffled_times.push_back(t);
    }
    std::vector<vatkit::Pose> poses(kTimes, vatkit::make_rest_pose(a));
    for (unsigned threads : {1u, all}) {
      for (int order = 0; order < 2; ++order) {
        const auto& times = order == 0 ? sorted_times : shuffled_times;
        for (int mode = 0; mode < 2; ++mode) {
          if (mode == 1 && threads != 1) continue;  // one-by-one is single-threaded
          const Timing tm = time_it(reps, [&] {
            for (size_t c = 0; c < a.animations.size(); ++c) {
              if (mode == 0) {
                vatkit::sample_animation_batch(a, a.animations[c], times[c], poses, threads);
              } else {
                for (size_t k = 0; k < kTimes; ++k) {
                  vatkit::reset_pose(a, poses[k]);
                  vatkit::sample_animation(a.animations[c], times[c][k], poses[k], a);
                }
              }
            }
            g_sink = g_sink + poses[kTimes / 2].rotation[0].w;
          });
          // Every clip is sampled at kTimes times; channels and joints are sums over the clips.
          const double s = tm.median_s;
          std::printf("| %s | %zu | %zu | %zu | %u | %s | %s | %s | %s | %s | %s |\n", l.name.c_str(),
                      a.animations.size(), channels, joints, threads, order == 0 ? "in order" : "shuffled",
                      mode == 0 ? "batch" : "one by one", si(double(channels) * kTimes / s).c_str(),
                      si(double(joints) * kTimes / s).c_str(), si(double(joints) * kTimes / tm.best_s).c_str(),
                      si(double(joints) * kTimes / tm.cpu_median_s).c_str());
        }
      }
    }
  }

  // A crowd-sized scene for thread scaling: Fox's skinned mesh instanced 64 times (one scene
  // node each, all on the same skin), 110,592 vertices. Small files stay on one thread by design.
  {
    vatkit::Asset crowd = assets[0].asset;
    const vatkit::MeshInstance base = crowd.instances.at(0);
    const uint32_t node = base.node;
    for (int copy = 1; copy < 64; ++copy) {
      vatkit::Node n = crowd.nodes[node];
      n.parent = -1;
      n.children.clear();
      const uint32_t id = uint32_t(crowd.nodes.size());
      crowd.nodes.push_back(n);
      crowd.node_order.push_back(id);
      crowd.roots.push_back(id);
      vatkit::MeshInstance inst = base;
      inst.node = id;
      inst.first_vertex = crowd.instance_vertex_count;
      crowd.instances.push_back(inst);
      crowd.instance_vertex_count += inst.vertex_count;
    }
    assets.push_back({"Fox x64", std::move(crowd)});
  }

  std::printf(
      "\nSkinning (SceneEvaluator::skin, positions + normals of every instance; median of %d; kernel %u lanes)\n\n",
      reps, vatkit::detail::simd_lanes());
  std::printf(
      "| file | vertices | skinned | threads | vertices/s | ns/vertex | vertices/s (best) | CPU ns/vertex | pose() µs "
      "|\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Loaded& l : assets) {
    const vatkit::Asset& a = l.asset;
    vatkit::SceneEvaluator ev(a);
    size_t skinned = 0;
    for (const auto& inst : a.instances) {
      const auto& prim = a.meshes[inst.mesh].primitives[inst.primitive];
      if (a.nodes[inst.node].skin >= 0 && !prim.joints0.empty()) skinned += inst.vertex_count;
    }
    std::vector<glm::vec3> positions(a.instance_vertex_count), normals(a.instance_vertex_count);
    const int clip = a.animations.empty() ? -1 : 0;
    const float mid = a.animations.empty() ? 0.0f : 0.5f * a.animations[0].end_s;
    const double pose_s = time_it(reps,
                                  [&] {
                                    for (int i = 0; i < 100; ++i) ev.pose(clip, mid * float(i) / 50.0f);
                                  })
                              .median_s /
                          100.0;
    ev.pose(clip, mid);
    for (unsigned threads : {1u, all}) {
      // Enough calls per repetition to run for a few milliseconds.
      const int calls = std::max(1, int(2000000 / std::max<size_t>(1, a.instance_vertex_count)));
      const Timing tm = time_it(reps,
                                [&] {
                                  for (int i = 0; i < calls; ++i) ev.skin(positions, normals, {}, threads);
                                  g_sink = g_sink + positions[0].x;
                                }) /
                        calls;
      const double s = tm.median_s;
      std::printf("| %s | %u | %zu | %u | %s | %.2f | %s | %.2f | %.1f |\n", l.name.c_str(), a.instance_vertex_count,
                  skinned, threads, si(a.instance_vertex_count / s).c_str(), s * 1e9 / a.instance_vertex_count,
                  si(a.instance_vertex_count / tm.best_s).c_str(), tm.cpu_median_s * 1e9 / a.instance_vertex_count,
                  pose_s * 1e6);
    }
  }
  return 0;
}
