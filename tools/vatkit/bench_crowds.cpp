// `vatkit bench --mode mixed|agents`: see bench_crowds.h.
#include "bench_crowds.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "bake_options.h"
#include "cli.h"
#include "vatkit/gl/context.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/gl.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"

namespace vatkit::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// What both modes need: a context, the VAT (rig f16 when baked here), a renderer and a target.
struct BenchScene {
  gl::Context context;
  Vat vat;
  gl::Renderer renderer;
  gl::RenderTarget target;
};

Result<BenchScene> open_scene(const CrowdBenchOptions& options) {
  Result<gl::Context> context = gl::Context::create_headless();
  if (!context)
    return make_error(context.error().code, "bench", "no headless OpenGL context: " + context.error().message);
  ViewBakeOptions bake;
  bake.encoding = "rig";
  bake.precision = "f16";
  Result<Vat> vat = load_or_bake(options.file, options.allow_roots, bake);
  if (!vat) return vat.error();
  Result<gl::Renderer> renderer = gl::Renderer::create();
  if (!renderer) return renderer.error();
  Result<gl::RenderTarget> target = gl::RenderTarget::create({options.width, options.height, 1});
  if (!target) return target.error();
  return BenchScene{std::move(*context), std::move(*vat), std::move(*renderer), std::move(*target)};
}

struct MixedRow {
  uint32_t instances = 0, crowds = 0;
  double frame_ms = 0.0, cpu_ms = 0.0;
  uint64_t triangles = 0;
};

// One crowd set: `crowds` uploads of the VAT, instance i of one spread in crowd i mod crowds.
Result<MixedRow> measure_mixed(BenchScene& s, const CrowdBenchOptions& options, uint32_t n, uint32_t crowds) {
  gl::SpreadOptions spread;
  spread.seed = options.seed;
  Result<std::vector<gl::SpreadInstance>> all = gl::spread_instances(s.vat, n, spread);
  if (!all) return all.error();
  std::vector<gl::VatGpu> gpus;
  std::vector<gl::Crowd> made;
  for (uint32_t c = 0; c < crowds; ++c) {
    Result<gl::VatGpu> gpu = gl::VatGpu::upload(s.vat);
    if (!gpu) return gpu.error();
    gpus.push_back(std::move(*gpu));
  }
  Bounds bounds{glm::vec3(1.0f), glm::vec3(-1.0f)};
  for (uint32_t c = 0; c < crowds; ++c) {
    const uint32_t count = (n - c + crowds - 1) / crowds;
    Result<gl::Crowd> crowd = gl::Crowd::create(gpus[c], count);
    if (!crowd) return crowd.error();
    for (uint32_t k = 0; k < count; ++k) {
      const gl::SpreadInstance& si = (*all)[size_t(k) * crowds + c];
      crowd->set_world(k, si.world);
      if (auto ok = set_instance(crowd->table(), k, si.instance, 0.0f); !ok) return ok.error();
    }
    crowd->recompute_bounds();
    const Bounds b = crowd->world_bounds();
    bounds = c == 0 ? b : Bounds{glm::min(bounds.min, b.min), glm::max(bounds.max, b.max)};
    made.push_back(std::move(*crowd));
  }
  std::vector<gl::Crowd*> pointers;
  for (gl::Crowd& c : made) pointers.push_back(&c);
  const gl::Camera camera = gl::camera_for_bounds(bounds, float(options.width) / float(options.height));
  gl::RenderOptions render_options;
  render_options.ground = false;
  std::vector<double> frame, cpu;
  for (uint32_t f = 0; f < options.warmup + options.frames; ++f) {
    const Clock::time_point start = Clock::now();
    s.renderer.render(s.target, pointers, camera, float(f) / 60.0f, render_options);
    const double submitted = ms_since(start);
    glFinish();
    if (f >= options.warmup) {
      cpu.push_back(submitted);
      frame.push_back(ms_since(start));
    }
  }
  if (auto ok = s.context.check("bench --mode mixed"); !ok) return ok.error();
  MixedRow row{n, crowds, median_of(frame), median_of(cpu), 0};
  for (const gl::Crowd* c : pointers) {
    Result<gl::CullingStats> culled = s.renderer.read_culling_stats(*c);
    if (culled) row.triangles += culled->triangles + culled->shadow_triangles;
  }
  return row;
}

// Agent k's place at time t: walking a circle of 2 m around its own centre (heading along it).
glm::vec4 agent_at(uint32_t k, uint32_t columns, float t) {
  const float phase = float(k % 97u) * 0.37f;
  const float angle = t * 0.8f + phase;
  const glm::vec3 centre(float(k % columns) * 3.0f, 0.0f, float(k / columns) * 3.0f);
  const glm::vec3 p = centre + 1.0f * glm::vec3(std::cos(angle), 0.0f, std::sin(angle));
  return glm::vec4(p, std::atan2(-std::sin(angle), std::cos(angle)));  // the tangent's heading about +Y
}

enum class AgentPath { Matrices, Placements, Bulk };
const char* path_name(AgentPath p) {
  return p == AgentPath::Matrices     ? "set_world (matrix)"
         : p == AgentPath::Placements ? "set_placement"
                                      : "set_placements";
}

struct AgentRow {
  uint32_t agents = 0;
  AgentPath path = AgentPath::Matrices;
  double update_ms = 0.0, upload_ms = 0.0, render_ms = 0.0;
  uint64_t bytes = 0;
};

Result<AgentRow> measure_agents(BenchScene& s, const CrowdBenchOptions& options, uint32_t n, AgentPath path) {
  Result<gl::VatGpu> gpu = gl::VatGpu::upload(s.vat);
  if (!gpu) return gpu.error();
  gl::CrowdDesc desc;
  if (path != AgentPath::Matrices) desc.transforms = gl::CrowdTransforms::PositionHeading;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, n, desc);
  if (!crowd) return crowd.error();
  gl::SpreadOptions spread;
  spread.seed = options.seed;
  if (auto ok = gl::spread_crowd(*crowd, spread); !ok) return ok.error();
  const auto columns = uint32_t(std::ceil(std::sqrt(double(n))));
  // The eye beyond the crowd's far edge, looking away: every agent is culled on the GPU, so the
  // frame is the updates, their upload and the culling pass, not the rasterizer.
  gl::Camera camera;
  camera.eye = glm::vec3(float(columns) * 1.5f, 2.0f, float(columns) * 3.0f + 20.0f);
  camera.target = camera.eye + glm::vec3(0.0f, 0.0f, 10.0f);
  gl::RenderOptions render_options;
  render_options.ground = false;
  render_options.shadows = false;
  std::vector<glm::vec4> agents(n);
  std::vector<glm::mat4> matrices(path == AgentPath::Matrices ? n : 0);
  std::vector<double> update, upload, render;
  uint64_t bytes = 0;
  for (uint32_t f = 0; f < options.warmup + options.frames; ++f) {
    const float t = float(f) / 60.0f;
    // The game's own step (not timed): where every agent is now.
    for (uint32_t k = 0; k < n; ++k) agents[k] = agent_at(k, columns, t);
    for (size_t k = 0; k < matrices.size(); ++k) {
      matrices[k] = glm::rotate(glm::translate(glm::mat4(1.0f), glm::vec3(agents[k])), agents[k].w, glm::vec3(0, 1, 0));
    }
    const Clock::time_point start = Clock::now();
    if (path == AgentPath::Matrices) {
      for (uint32_t k = 0; k < n; ++k) crowd->set_world(k, matrices[k]);
    } else if (path == AgentPath::Placements) {
      for (uint32_t k = 0; k < n; ++k) crowd->set_placement(k, glm::vec3(agents[k]), agents[k].w);
    } else {
      crowd->set_placements(0, agents);
    }
    const double updated = ms_since(start);
    // The upload alone (render() would sync first; here it finds nothing left to upload).
    const Clock::time_point sync_start = Clock::now();
    const size_t synced = crowd->sync();
    const double uploaded = ms_since(sync_start);
    const Clock::time_point render_start = Clock::now();
    s.renderer.render(s.target, *crowd, camera, t, render_options);
    const double rendered = ms_since(render_start);
    glFinish();  // the next frame's timing starts with an idle GPU
    if (f >= options.warmup) {
      update.push_back(updated);
      upload.push_back(uploaded);
      render.push_back(rendered);
      bytes = synced + s.renderer.stats().uploaded_bytes;
    }
  }
  if (auto ok = s.context.check("bench --mode agents"); !ok) return ok.error();
  return AgentRow{n, path, median_of(update), median_of(upload), median_of(render), bytes};
}

}  // namespace

Result<void> run_mixed_bench(const CrowdBenchOptions& options) {
  Result<BenchScene> scene = open_scene(options);
  if (!scene) return scene.error();
  std::printf("vatkit bench --mode mixed: %s, %dx%d, %u frames after %u warm-up, shadows on, GPU culling and LOD\n",
              printable(scene->vat.source).c_str(), options.width, options.height, options.frames, options.warmup);
  std::printf("%-10s %-8s %-10s %-10s %-14s %s\n", "instances", "crowds", "frame ms", "CPU ms", "triangles",
              "frame ratio");
  for (const uint32_t n : options.counts) {
    if (n < options.characters) {
      return make_error(ErrorCode::Argument, "bench",
                        "--instances " + std::to_string(n) + ": fewer than the " + std::to_string(options.characters) +
                            " characters");
    }
    Result<MixedRow> one = measure_mixed(*scene, options, n, 1);
    if (!one) return one.error();
    Result<MixedRow> several = measure_mixed(*scene, options, n, options.characters);
    if (!several) return several.error();
    for (const MixedRow* r : {&*one, &*several}) {
      char ratio[32] = "1.00";
      if (r->crowds > 1) std::snprintf(ratio, sizeof(ratio), "%.2f", r->frame_ms / std::max(one->frame_ms, 1e-9));
      std::printf("%-10u %-8u %-10.3f %-10.3f %-14llu %s\n", r->instances, r->crowds, r->frame_ms, r->cpu_ms,
                  static_cast<unsigned long long>(r->triangles), ratio);
    }
  }
  return flush_stdout();
}

Result<void> run_agents_bench(const CrowdBenchOptions& options) {
  Result<BenchScene> scene = open_scene(options);
  if (!scene) return scene.error();
  std::printf(
      "vatkit bench --mode agents: %s, every agent moved every frame, %u frames after %u warm-up, camera turned "
      "away (all culled)\n",
      printable(scene->vat.source).c_str(), options.frames, options.warmup);
  std::printf("%-8s %-20s %-10s %-10s %-10s %-10s %s\n", "agents", "update", "update ms", "upload ms", "render ms",
              "CPU ms", "bytes uploaded");
  for (const uint32_t n : options.counts) {
    for (const AgentPath path : {AgentPath::Matrices, AgentPath::Placements, AgentPath::Bulk}) {
      Result<AgentRow> row = measure_agents(*scene, options, n, path);
      if (!row) return row.error();
      std::printf("%-8u %-20s %-10.3f %-10.3f %-10.3f %-10.3f %llu\n", row->agents, path_name(row->path),
                  row->update_ms, row->upload_ms, row->render_ms, row->update_ms + row->upload_ms + row->render_ms,
                  static_cast<unsigned long long>(row->bytes));
    }
  }
  return flush_stdout();
}

}  // namespace vatkit::cli
