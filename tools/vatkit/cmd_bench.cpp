// vatkit bench [FILE] [--instances LIST] [--frames K] [--warmup W] [--size WxH] [--variants LIST]
// [--camera overview|person] [--no-culling] [--shadows] [--json FILE]: GPU and CPU time per frame
// of a crowd drawn as a static mesh (the floor), with each VAT encoding, and with live skinning
// (the classic alternative: CPU sampling + palette upload + skinning shader), side by side in one
// run, offscreen. Prints a table of medians and ratios; --json writes the same rows with the
// machine description and the command line.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_crowds.h"
#include "cli.h"
#include "live_skinning.h"
#include "vatkit/bake.h"
#include "vatkit/file_io.h"
#include "vatkit/gl/context.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/timer.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/parallel.h"
#include "vatkit/vat_file.h"

namespace vatkit::cli {

namespace {
// CPU time of the whole process (every thread), in milliseconds.
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6;
}
}  // namespace

namespace {

// RigDecode draws the Rig VAT without the pose cache (CrowdDesc::instance_cache_bytes = 0): every
// vertex resolves its playback row and decodes its slots from the VAT, as direct draws do.
enum class Variant { Static, Rig, RigDecode, DeltaF32, DeltaF16, DeltaQ16, Live };
constexpr Variant kAllVariants[] = {Variant::Static,   Variant::Rig,      Variant::RigDecode, Variant::DeltaF32,
                                    Variant::DeltaF16, Variant::DeltaQ16, Variant::Live};

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::Static: return "static";
    case Variant::Rig: return "rig";
    case Variant::RigDecode: return "rig-decode";
    case Variant::DeltaF32: return "delta-f32";
    case Variant::DeltaF16: return "delta-f16";
    case Variant::DeltaQ16: return "delta-q16";
    case Variant::Live: return "live";
  }
  return "?";
}

struct BenchOptions {
  std::string file;
  std::vector<std::string> allow_roots;
  std::string instances = "1000,10000,100000";
  uint32_t frames = 60;
  uint32_t warmup = 5;
  std::string size = "1920x1080";
  std::string variants = "all";
  std::string camera = "overview";
  bool no_culling = false;
  bool shadows = false;
  bool pipelined = false;
  std::string json;
  uint32_t lods = 10;  // deep levels: a crowd of a million is mostly a few pixels tall
  float lod_error_px = 1.0f;
  int samples = 1;
  uint64_t seed = 1;
  bool verify_live = false;
  size_t pose_cache_mb = gl::CrowdDesc{}.instance_cache_bytes >> 20;
  std::string mode = "variants";  // or mixed, agents (bench_crowds.h)
  uint32_t characters = 4;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (;;) {
    const size_t comma = text.find(',', begin);
    parts.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return parts;
}

// "1000", "10k", "1M" (k = 1000, M = 1000000), 1 .. 2^32 - 1.
Result<std::vector<uint32_t>> parse_instances(const std::string& text) {
  std::vector<uint32_t> counts;
  for (const std::string& part : split_commas(text)) {
    const auto bad = [&] {
      return make_error(ErrorCode::Argument, "bench",
                        "--instances " + text + ": '" + part +
                            "' is not a count (a positive integer, optionally with k or M: 1000,10k,1M)");
    };
    uint64_t value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end == part.data()) return bad();
    const std::string_view suffix(end, size_t(part.data() + part.size() - end));
    uint64_t scale = 1;
    if (suffix == "k" || suffix == "K") {
      scale = 1000;
    } else if (suffix == "M" || suffix == "m") {
      scale = 1000000;
    } else if (!suffix.empty()) {
      return bad();
    }
    if (value == 0 || value > UINT32_MAX / scale) return bad();
    counts.push_back(uint32_t(value * scale));
  }
  if (counts.size() > kMaxBenchSizes) {
    return make_error(
        ErrorCode::Argument, "bench",
        "--instances: " + std::to_string(counts.size()) + " crowd sizes, at most " + std::to_string(kMaxBenchSizes));
  }
  return counts;
}

Result<std::vector<Variant>> parse_variants(const std::string& text) {
  if (text == "all") return std::vector<Variant>(std::begin(kAllVariants), std::end(kAllVariants));
  std::vector<Variant> chosen;
  for (const std::string& part : split_commas(text)) {
    const Variant* found = std::find_if(std::begin(kAllVariants), std::end(kAllVariants),
                                        [&](Variant v) { return part == variant_name(v); });
    if (found == std::end(kAllVariants)) {
      return make_error(ErrorCode::Argument, "bench",
                        "--variants " + text + ": unknown variant '" + part +
                            "' (use all, or a list of static, rig, delta-f32, delta-f16, delta-q16, live)");
    }
    if (std::find(chosen.begin(), chosen.end(), *found) == chosen.end()) chosen.push_back(*found);
  }
  // Always measured in the same order (the table's).
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Nearest rank.
double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t rank = size_t(std::ceil(p * double(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

// The command line as the process got it (Linux), shell-quoted where needed.
std::string command_line() {
  const Result<std::vector<uint8_t>> bytes = read_file("/proc/self/cmdline", 1 << 20);
  const std::string all = bytes ? std::string(bytes->begin(), bytes->end()) : std::string();
  std::string out;
  size_t begin = 0;
  while (begin < all.size()) {
    size_t end = all.find('\0', begin);
    if (end == std::string::npos) end = all.size();
    const std::string arg = all.substr(begin, end - begin);
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_=.,/:+@%") == std::string::npos;
    if (!out.empty()) out += ' ';
    if (plain) {
      out += arg;
    } else {
      out += '\'';
      for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
    begin = end + 1;
  }
  return out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Eye at head height (0.95 x the character's bake height: 1.7 m for a 1.8 m character) just
// outside the crowd's front edge (+Z: the grid faces it), looking across the crowd.
gl::Camera person_camera(const Bounds& crowd, const Bounds& character) {
  const float height = std::max(character.max.y - character.min.y, 1e-3f);
  const float ground = crowd.min.y;
  const float cx = 0.5f * (crowd.min.x + crowd.max.x);
  gl::Camera camera;
  camera.eye = glm::vec3(cx, ground + 0.95f * height, crowd.max.z + 0.5f * height);
  camera.target = glm::vec3(cx, ground + 0.75f * height, crowd.min.z);
  camera.fov_y_deg = 50.0f;
  camera.near_plane = std::max(0.02f * height, 1e-3f);
  const glm::vec3 far_corner(crowd.min.x, crowd.max.y, crowd.min.z);
  camera.far_plane = 1.05f * glm::length(far_corner - camera.eye) + height;
  return camera;
}

struct Row {
  uint32_t instances = 0;
  Variant variant = Variant::Static;
  std::string error;  // set: no numbers
  std::vector<double> gpu_ms, cpu_ms;
  std::vector<double> cpu_work_ms;  // process CPU time over the submission: every thread's
  std::vector<double> triangles;
  uint64_t triangles_per_instance = 0;  // of the full mesh
  double gpu_median = 0, cpu_median = 0, gpu_p95 = 0, frame_ms = 0, triangles_median = 0;
  double cpu_work_median = 0;
  std::optional<double> vs_static, vs_live;
  std::string triangles_from;               // "gpu culling stats", "submitted"
  std::optional<gl::CullingStats> culling;  // of the last measured frame, when read
};

struct Bakes {
  std::optional<Asset> asset;                 // the source (absent for a .vat.glb input)
  std::vector<std::pair<Variant, Vat>> vats;  // the VAT each VAT variant draws
  std::optional<Vat> static_vat;              // whose rest geometry the static floor draws
  std::optional<Vat> rig_for_live;            // the rig the live path draws (its bind geometry)
};

Result<Vat> bake_variant(const Asset& asset, Encoding encoding, Precision precision, uint32_t lods) {
  std::fprintf(stderr, "bench: baking %s %s\n", to_string(encoding), to_string(precision));
  BakeOptions options;
  options.encoding = encoding == Encoding::Rig ? EncodingChoice::Rig : EncodingChoice::Delta;
  options.precision = precision;
  options.measure = false;
  options.lods = lods;
  return bake(asset, options);
}

Result<Bakes> prepare(const BenchOptions& options, std::vector<Variant>& variants) {
  Bakes bakes;
  auto wanted = [&](Variant v) { return std::find(variants.begin(), variants.end(), v) != variants.end(); };
  Result<bool> is_vat = options.file.empty() ? Result<bool>(false) : is_vat_input(options.file);
  if (!is_vat) return is_vat.error();
  if (*is_vat) {
    Result<Vat> vat = load_vat(options.file);
    if (!vat) return vat.error();
    const Variant own = vat->encoding == Encoding::Rig     ? Variant::Rig
                        : vat->precision == Precision::F32 ? Variant::DeltaF32
                        : vat->precision == Precision::F16 ? Variant::DeltaF16
                                                           : Variant::DeltaQ16;
    std::vector<Variant> kept;
    for (Variant v : variants) {
      if (v == Variant::Static || v == own || (v == Variant::RigDecode && own == Variant::Rig)) {
        kept.push_back(v);
      } else if (v == Variant::Live) {
        std::fprintf(stderr, "bench: skipping live: live skinning needs the source glTF, not a .vat.glb\n");
      } else {
        std::fprintf(stderr, "bench: skipping %s: %s is %s %s and cannot be re-baked without its source\n",
                     variant_name(v), options.file.c_str(), to_string(vat->encoding), to_string(vat->precision));
      }
    }
    variants = kept;
    if (wanted(Variant::Static)) bakes.static_vat = *vat;
    if (wanted(own) || (own == Variant::Rig && wanted(Variant::RigDecode))) bakes.vats.emplace_back(own, *vat);
    return bakes;
  }
  Result<Asset> asset = load_input(options.file, options.allow_roots);
  if (!asset) return asset.error();
  bakes.asset = std::move(*asset);
  const Asset& a = *bakes.asset;
  if (wanted(Variant::Rig) || wanted(Variant::RigDecode) || wanted(Variant::Live)) {
    Result<Vat> rig = bake_variant(a, Encoding::Rig, Precision::F16, options.lods);
    if (!rig) return rig.error();
    if (wanted(Variant::Rig) || wanted(Variant::RigDecode)) bakes.vats.emplace_back(Variant::Rig, *rig);
    if (wanted(Variant::Live)) bakes.rig_for_live = std::move(*rig);
  }
  const std::pair<Variant, Precision> deltas[] = {
      {Variant::DeltaF32, Precision::F32}, {Variant::DeltaF16, Precision::F16}, {Variant::DeltaQ16, Precision::Q16}};
  for (const auto& [v, precision] : deltas) {
    if (!wanted(v) && !(v == Variant::DeltaF32 && wanted(Variant::Static))) continue;
    Result<Vat> delta = bake_variant(a, Encoding::Delta, precision, options.lods);
    if (!delta) return delta.error();
    if (v == Variant::DeltaF32 && wanted(Variant::Static)) bakes.static_vat = *delta;
    if (wanted(v)) bakes.vats.emplace_back(v, std::move(*delta));
  }
  return bakes;
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), ms < 10.0 ? "%.3f" : ms < 100.0 ? "%.2f" : "%.1f", ms);
  return text;
}

std::string format_ratio(const std::optional<double>& r) {
  if (!r) return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", *r);
  return text;
}

// One bench run: the context's GL objects made once (VATs uploaded, renderer, target, timers),
// then a row per crowd size and variant. `context` outlives every GL object here.
struct BenchRun {
  const BenchOptions& options;
  gl::Context& context;
  Bakes bakes;
  const std::vector<Variant>& variants;
  const int width, height;
  const bool culling = !options.no_culling;
  std::vector<std::pair<Variant, gl::VatGpu>> gpus;
  std::optional<gl::VatGpu> static_gpu, live_gpu;
  std::vector<glm::vec3> static_positions, static_normals;
  std::optional<gl::Renderer> renderer;
  std::optional<gl::RenderTarget> target;
  int samples = 1;
  // --pipelined: three frames in flight, each with its own timer.
  std::vector<gl::GpuTimer> timers;
  gl::RenderOptions render_options;
  std::string culling_note;  // why triangle counts are the submitted ones, when culling was asked for
  std::vector<Row> rows;
  std::optional<LiveCheck> live_check;

  const gl::ContextInfo& info() const { return context.info(); }
  const char* timer_name() const { return gl::timer_method_name(timers[0].method()); }
  uint32_t total_frames() const { return options.warmup + options.frames; }

  // Upload every VAT once; the renderer, the target and the timers.
  Result<void> set_up() {
    for (auto& [variant, vat] : bakes.vats) {
      Result<gl::VatGpu> gpu = gl::VatGpu::upload(vat);
      if (!gpu) return gpu.error();
      gpus.emplace_back(variant, std::move(*gpu));
    }
    if (bakes.static_vat) {
      Result<gl::VatGpu> gpu = gl::VatGpu::upload(*bakes.static_vat);
      if (!gpu) return gpu.error();
      static_gpu = std::move(*gpu);
      static_positions = bakes.static_vat->geometry.positions;
      static_normals = bakes.static_vat->geometry.normals;
      if (static_normals.size() != static_positions.size())
        static_normals.assign(static_positions.size(), glm::vec3(0, 1, 0));
    }
    if (bakes.rig_for_live) {
      Result<gl::VatGpu> gpu = gl::VatGpu::upload(*bakes.rig_for_live);
      if (!gpu) return gpu.error();
      live_gpu = std::move(*gpu);
    }
    if (auto ok = context.check("bench: upload"); !ok) return ok.error();

    Result<gl::Renderer> made_renderer = gl::Renderer::create();
    if (!made_renderer) return made_renderer.error();
    renderer = std::move(*made_renderer);
    samples = std::min(options.samples, std::max(info().limits.max_samples, 1));
    Result<gl::RenderTarget> made_target = gl::RenderTarget::create({width, height, samples});
    if (!made_target) return made_target.error();
    target = std::move(*made_target);
    for (int i = 0; i < (options.pipelined ? 3 : 1); ++i) {
      Result<gl::GpuTimer> timer = gl::GpuTimer::create(context);
      if (!timer) return timer.error();
      timers.push_back(std::move(*timer));
    }
    render_options.shadows = options.shadows;
    render_options.ground = false;
    render_options.gpu_culling = culling;
    render_options.lod = culling;
    render_options.lod_error_px = options.lod_error_px;
    return {};
  }

  const gl::VatGpu* gpu_of(Variant variant) const {
    if (variant == Variant::Static) return &*static_gpu;
    if (variant == Variant::Live) return &*live_gpu;
    const gl::VatGpu* gpu = nullptr;
    const Variant drawn = variant == Variant::RigDecode ? Variant::Rig : variant;
    for (const auto& [v, g] : gpus)
      if (v == drawn) gpu = &g;
    return gpu;
  }

  gl::Camera camera_for(const gl::Crowd& crowd, const gl::VatGpu& gpu) const {
    if (options.camera == "person") return person_camera(crowd.world_bounds(), gpu.bounds());
    if (options.camera == "away") {
      // The person's eye turned around: every instance is culled on the GPU, so the frame's
      // GPU time is the culling pass alone and the CPU time is what a frame costs to issue
      // for this crowd size, undisturbed by long waits for the rasterizer.
      gl::Camera camera = person_camera(crowd.world_bounds(), gpu.bounds());
      camera.target = camera.eye + (camera.eye - camera.target);
      return camera;
    }
    return gl::camera_for_bounds(crowd.world_bounds(), float(width) / float(height));
  }

  // --verify-live: the live-skinning path against the reference skinner and the rig decode.
  Result<void> verify_live(LiveSkinning& live, gl::Crowd& crowd, uint32_t n, const gl::VatGpu& gpu) {
    const float times[] = {0.25f, 1.1f, 2.7f};
    Result<LiveCheck> check = check_live_skinning(live, *bakes.asset, *bakes.rig_for_live, crowd, 16, times);
    if (!check) return check.error();
    live_check = *check;
    std::printf(
        "live check: %u instances x %u vertices x 3 times: max |live - reference| = %.6g, "
        "max |live - rig decode| = %.6g (file units; largest |coordinate| %.6g)\n",
        std::min(n, 16u), gpu.vertex_count(), check->max_vs_reference, check->max_vs_rig, check->world_extent);
    const double tolerance = 2e-5 * std::max(1.0, check->world_extent);
    if (!(check->max_vs_reference <= tolerance)) {
      return make_error(ErrorCode::Gl, "bench",
                        "live skinning differs from the reference skinner by " +
                            std::to_string(check->max_vs_reference) + " (tolerance " + std::to_string(tolerance) + ")");
    }
    return {};
  }

  Result<void> measure(uint32_t n, Variant variant, std::optional<gl::Camera>& camera);
  Result<void> time_frames(Row& row, gl::Crowd& crowd, const gl::Camera& camera, LiveSkinning* live);
  void add_ratios();
  void print_table(const std::string& source) const;
  Result<void> write_json(const std::string& source) const;
};

// One row: crowd size n drawn with `variant` (the first row of a size chooses the camera). A
// failure of the variant is the row's error; a failure of the run is returned.
Result<void> BenchRun::measure(uint32_t n, Variant variant, std::optional<gl::Camera>& camera) {
  Row row;
  row.instances = n;
  row.variant = variant;
  const gl::VatGpu* gpu = gpu_of(variant);
  auto fail = [&](const std::string& raw) -> Result<void> {
    const std::string message = printable(raw, Backslash::Keep);  // it may quote file names
    std::fprintf(stderr, "vatkit: bench: N=%u %s: %s\n", n, variant_name(variant), message.c_str());
    row.error = message;
    rows.push_back(std::move(row));
    context.take_errors();
    return {};
  };

  row.triangles_per_instance = gpu->index_count() / 3;
  gl::CrowdDesc crowd_desc;
  crowd_desc.instance_cache_bytes = variant == Variant::RigDecode ? 0 : options.pose_cache_mb << 20;
  Result<gl::Crowd> crowd = gl::Crowd::create(*gpu, n, crowd_desc);
  if (!crowd) return fail(crowd.error().message);
  gl::SpreadOptions spread;
  spread.layout = gl::CrowdLayout::Grid;
  spread.seed = options.seed;
  if (auto ok = gl::spread_crowd(*crowd, spread); !ok) return ok.error();
  if (variant == Variant::Static) {
    if (auto ok = crowd->set_static_pose(static_positions, static_normals); !ok) return ok.error();
  }
  if (!camera) camera = camera_for(*crowd, *gpu);
  std::optional<LiveSkinning> live;
  if (variant == Variant::Live) {
    Result<LiveSkinning> made =
        LiveSkinning::create(*bakes.asset, *gpu, *crowd, info().limits.max_texture_buffer_texels);
    if (!made) return fail(made.error().message);
    live = std::move(*made);
    if (options.verify_live && !live_check) {
      if (auto ok = verify_live(*live, *crowd, n, *gpu); !ok) return ok.error();
    }
  }
  std::fprintf(stderr, "bench: N=%u %s: %u frames (%u warm-up)...", n, variant_name(variant), total_frames(),
               options.warmup);
  std::fflush(stderr);
  if (auto ok = time_frames(row, *crowd, *camera, live ? &*live : nullptr); !ok) return ok.error();
  if (auto ok = context.check("bench"); !ok) {
    std::fprintf(stderr, "\n");
    return fail(ok.error().message);
  }
  row.gpu_median = median(row.gpu_ms);
  row.cpu_median = median(row.cpu_ms);
  row.cpu_work_median = median(row.cpu_work_ms);
  row.gpu_p95 = percentile(row.gpu_ms, 0.95);
  row.frame_ms = std::max(row.gpu_median, row.cpu_median);
  row.triangles_median = median(row.triangles);
  std::fprintf(stderr, " GPU %s ms, CPU %s ms\n", format_ms(row.gpu_median).c_str(), format_ms(row.cpu_median).c_str());
  rows.push_back(std::move(row));
  return {};
}

// The warm-up and measured frames of one row: GPU, CPU and process CPU time, and triangles.
Result<void> BenchRun::time_frames(Row& row, gl::Crowd& crowd, const gl::Camera& camera, LiveSkinning* live) {
  bool culling_stats = culling && row.variant != Variant::Live && culling_note.empty();
  // The triangles of a frame just finished: the GPU culling's count, or what was submitted.
  auto frame_triangles = [&]() -> double {
    if (live) {
      row.triangles_from = "submitted";
      return double(live->triangles_per_draw());
    }
    if (culling_stats) {
      Result<gl::CullingStats> stats = renderer->read_culling_stats(crowd);
      if (stats) {
        row.triangles_from = "gpu culling stats";
        row.culling = std::move(*stats);
        return double(row.culling->triangles + row.culling->shadow_triangles);
      }
      culling_note = printable(stats.error().message, Backslash::Keep);
      culling_stats = false;
      std::fprintf(stderr, "\nbench: no culling statistics (%s): triangles are the submitted ones\n",
                   culling_note.c_str());
    }
    row.triangles_from = "submitted";
    return double(renderer->stats().triangles);
  };
  // One timer per frame in flight: frame k reads the timer of frame k - in_flight before it
  // reuses it (pipelined), or its own right after it (in_flight 1: each frame waits for the
  // GPU, and its culling statistics are read).
  const uint32_t in_flight = uint32_t(timers.size());
  std::vector<int64_t> timed(in_flight, -1);  // the frame each timer holds, -1: none
  auto collect = [&](uint32_t slot) -> Result<void> {
    if (timed[slot] < 0) return {};
    Result<double> gpu_ms = timers[slot].elapsed_ms();
    if (!gpu_ms) return gpu_ms.error();
    if (timed[slot] >= int64_t(options.warmup)) row.gpu_ms.push_back(*gpu_ms);
    timed[slot] = -1;
    return {};
  };
  for (uint32_t k = 0; k < total_frames(); ++k) {
    const float t = float(k) / 60.0f;
    const uint32_t slot = k % in_flight;
    if (auto r = collect(slot); !r) return r.error();
    timers[slot].begin();
    // The process clock sums every thread's time: read outside the wall-clock window.
    const double work_start = process_cpu_ms();
    const auto cpu_start = std::chrono::steady_clock::now();
    if (live) {
      live->update(t);
      live->upload();
      live->draw(*target, camera, render_options.background, render_options.light);
    } else {
      renderer->render(*target, crowd, camera, t, render_options);
    }
    const auto cpu_stop = std::chrono::steady_clock::now();
    const double work_stop = process_cpu_ms();
    timers[slot].end();
    timed[slot] = k;
    if (k >= options.warmup) {
      row.cpu_ms.push_back(std::chrono::duration<double, std::milli>(cpu_stop - cpu_start).count());
      row.cpu_work_ms.push_back(work_stop - work_start);
    }
    if (in_flight == 1) {
      if (auto r = collect(slot); !r) return r.error();
      const double triangles = frame_triangles();
      if (k >= options.warmup) row.triangles.push_back(triangles);
    }
  }
  for (uint32_t slot = 0; slot < in_flight; ++slot) {
    if (auto r = collect(slot); !r) return r.error();
  }
  if (in_flight > 1) row.triangles.assign(row.cpu_ms.size(), frame_triangles());  // the last frame's
  return {};
}

// Ratios against the floor and the classic alternative at the same N.
void BenchRun::add_ratios() {
  for (Row& row : rows) {
    if (!row.error.empty()) continue;
    for (const Row& other : rows) {
      if (other.instances != row.instances || !other.error.empty() || other.frame_ms <= 0.0) continue;
      if (other.variant == Variant::Static) row.vs_static = row.frame_ms / other.frame_ms;
      if (other.variant == Variant::Live) row.vs_live = row.frame_ms / other.frame_ms;
    }
  }
}

void BenchRun::print_table(const std::string& source) const {
  std::printf(
      "vatkit bench: %s, %dx%d (%d sample%s), %u frames after %u warm-up, 1/60 s per frame, camera %s, "
      "culling+LOD %s (%u levels baked, %.3g px budget), shadows %s, ground off%s\n",
      source.c_str(), width, height, samples, samples == 1 ? "" : "s", options.frames, options.warmup,
      options.camera.c_str(), culling ? "on" : "off", options.lods, double(options.lod_error_px),
      options.shadows ? "on (VAT and static)" : "off",
      options.pipelined ? ", 3 frames in flight" : ", each frame waited for");
  std::printf("GPU: %s (%s, %s); GPU timer: %s; CPU: %u hardware threads\n", info().renderer.c_str(),
              info().vendor.c_str(), info().version.c_str(), timer_name(), hardware_threads());
  std::printf(
      "frame ms = max(median GPU ms, median CPU ms); x static, x live = frame ms / that variant's at the same N;\n"
      "CPU ms = wall time of the submission; CPU work = the process's CPU time in it (every thread: the\n"
      "driver's, live's samplers), less than CPU ms where the submission waited\n");
  if (!culling_note.empty())
    std::printf("triangles: submitted (culling statistics unavailable: %s)\n", culling_note.c_str());
  std::printf("%10s  %-10s  %9s  %9s  %9s  %9s  %10s  %8s  %8s  %9s\n", "N", "variant", "GPU ms", "CPU ms", "GPU p95",
              "frame ms", "Mtri/frame", "x static", "x live", "CPU work");
  for (const Row& row : rows) {
    if (!row.error.empty()) {
      std::printf("%10u  %-10s  error: %s\n", row.instances, variant_name(row.variant), row.error.c_str());
      continue;
    }
    std::printf("%10u  %-10s  %9s  %9s  %9s  %9s  %10.3f  %8s  %8s  %9s\n", row.instances, variant_name(row.variant),
                format_ms(row.gpu_median).c_str(), format_ms(row.cpu_median).c_str(), format_ms(row.gpu_p95).c_str(),
                format_ms(row.frame_ms).c_str(), row.triangles_median / 1e6, format_ratio(row.vs_static).c_str(),
                format_ratio(row.vs_live).c_str(), format_ms(row.cpu_work_median).c_str());
  }
  for (const Row& row : rows) {
    if (row.error.empty() && row.culling && row.culling->cached < row.culling->visible &&
        row.culling->cache_capacity > 0) {
      std::printf(
          "note: N=%u %s: the pose cache held %llu of %llu visible instances; the others decoded per vertex "
          "(raise --pose-cache-mb)\n",
          row.instances, variant_name(row.variant), static_cast<unsigned long long>(row.culling->cached),
          static_cast<unsigned long long>(row.culling->visible));
    }
  }
}

nlohmann::ordered_json row_json(const Row& row) {
  nlohmann::ordered_json r;
  r["instances"] = row.instances;
  r["variant"] = variant_name(row.variant);
  if (!row.error.empty()) {
    r["error"] = row.error;
    return r;
  }
  r["gpu_ms_median"] = row.gpu_median;
  r["cpu_ms_median"] = row.cpu_median;
  r["cpu_work_ms_median"] = row.cpu_work_median;
  r["gpu_ms_p95"] = row.gpu_p95;
  r["frame_ms"] = row.frame_ms;
  r["triangles"] = row.triangles_median;
  r["triangles_from"] = row.triangles_from;
  r["triangles_per_instance"] = row.triangles_per_instance;
  if (row.culling) {
    r["culling_stats"] = {{"instances", row.culling->instances},
                          {"visible", row.culling->visible},
                          {"per_level", row.culling->per_level},
                          {"triangles", row.culling->triangles},
                          {"shadow_visible", row.culling->shadow_visible},
                          {"shadow_triangles", row.culling->shadow_triangles},
                          {"cached", row.culling->cached},
                          {"cache_capacity", row.culling->cache_capacity}};
  }
  r["vs_static"] = row.vs_static ? nlohmann::ordered_json(*row.vs_static) : nlohmann::ordered_json();
  r["vs_live"] = row.vs_live ? nlohmann::ordered_json(*row.vs_live) : nlohmann::ordered_json();
  r["gpu_ms"] = row.gpu_ms;
  r["cpu_ms"] = row.cpu_ms;
  r["cpu_work_ms"] = row.cpu_work_ms;
  return r;
}

// --json: the rows, the machine and the command line.
Result<void> BenchRun::write_json(const std::string& source) const {
  nlohmann::ordered_json doc;
  doc["command"] = command_line();
  doc["date"] = utc_now();
  doc["machine"] = {{"renderer", info().renderer},
                    {"vendor", info().vendor},
                    {"version", info().version},
                    {"software", info().software},
                    {"cpu_threads", hardware_threads()}};
  doc["gpu_timer"] = timer_name();
  doc["source"] = source;
  doc["size"] = {width, height};
  doc["samples"] = samples;
  doc["frames"] = options.frames;
  doc["warmup"] = options.warmup;
  doc["camera"] = options.camera;
  doc["culling"] = culling;
  doc["shadows"] = options.shadows;
  doc["pipelined"] = options.pipelined;
  doc["frame_ms"] = "max(gpu_ms_median, cpu_ms_median)";
  if (!culling_note.empty()) doc["culling_note"] = culling_note;
  if (live_check) {
    doc["live_check"] = {{"max_vs_reference", live_check->max_vs_reference},
                         {"max_vs_rig", live_check->max_vs_rig},
                         {"world_extent", live_check->world_extent}};
  }
  nlohmann::ordered_json out_rows = nlohmann::ordered_json::array();
  for (const Row& row : rows) out_rows.push_back(row_json(row));
  doc["rows"] = std::move(out_rows);
  return write_output(options.json,
                      doc.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<void> run_bench(const BenchOptions& options) {
  int width = 0, height = 0;
  if (auto ok = parse_size("bench", options.size, "1920x1080", width, height); !ok) return ok.error();
  Result<std::vector<uint32_t>> counts = parse_instances(options.instances);
  if (!counts) return counts.error();
  Result<std::vector<Variant>> parsed_variants = parse_variants(options.variants);
  if (!parsed_variants) return parsed_variants.error();
  std::vector<Variant> variants = *parsed_variants;
  if (auto ok = check_target_size("bench", width, height, options.samples); !ok) return ok.error();
  if (!options.json.empty()) {
    const std::filesystem::path dir = std::filesystem::path(options.json).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
      return make_error(ErrorCode::Io, options.json, "cannot write here: " + dir.string() + " is not a directory");
    }
  }

  Result<gl::Context> context = gl::Context::create_headless();
  if (!context)
    return make_error(context.error().code, "bench", "no headless OpenGL context: " + context.error().message);
  Result<Bakes> bakes = prepare(options, variants);
  if (!bakes) return bakes.error();
  if (variants.empty()) return make_error(ErrorCode::Argument, "bench", "no variant left to measure");

  BenchRun run{options, *context, std::move(*bakes), variants, width, height};
  if (auto ok = run.set_up(); !ok) return ok.error();
  for (const uint32_t n : *counts) {
    std::optional<gl::Camera> camera;
    for (const Variant variant : variants) {
      if (auto ok = run.measure(n, variant, camera); !ok) return ok.error();
    }
  }
  run.add_ratios();
  const std::string source = run.bakes.asset ? run.bakes.asset->source : options.file;
  run.print_table(source);
  // The table reached stdout before the JSON file is written: a failed command leaves no file.
  if (Result<void> flushed = flush_stdout(); !flushed) return flushed;
  if (!options.json.empty()) {
    if (auto ok = run.write_json(source); !ok) return ok.error();
  }
  const bool any = std::any_of(run.rows.begin(), run.rows.end(), [](const Row& r) { return r.error.empty(); });
  if (!any) return make_error(ErrorCode::Gl, "bench", "nothing could be measured (see the errors above)");
  return {};
}

// --mode mixed | agents: bench_crowds.cpp, with this command's sizes, frames and target.
Result<void> run_crowd_bench(const BenchOptions& options) {
  CrowdBenchOptions crowd;
  crowd.file = options.file;
  crowd.allow_roots = options.allow_roots;
  if (auto ok = parse_size("bench", options.size, "1920x1080", crowd.width, crowd.height); !ok) return ok.error();
  if (auto ok = check_target_size("bench", crowd.width, crowd.height, 1); !ok) return ok.error();
  Result<std::vector<uint32_t>> counts = parse_instances(options.instances);
  if (!counts) return counts.error();
  crowd.counts = *counts;
  crowd.frames = options.frames;
  crowd.warmup = options.warmup;
  crowd.seed = options.seed;
  crowd.characters = options.characters;
  return options.mode == "mixed" ? run_mixed_bench(crowd) : run_agents_bench(crowd);
}

}  // namespace

Command add_bench_command(CLI::App& parent) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* app = parent.add_subcommand(
      "bench", "Measure crowd frame times: static mesh, VAT rig and delta encodings, live skinning (headless)");
  app->add_option("file", options->file,
                  "Input: a glTF 2.0 file (.gltf/.glb) baked here in every encoding, or a .vat.glb (its own "
                  "encoding and the static floor only); the built-in sample character when left out")
      ->option_text("FILE");
  add_allow_root_option(app, options->allow_roots);
  app->add_option("-n,--instances", options->instances,
                  "Crowd sizes, comma-separated, k = 1000, M = 1000000 (default 1000,10000,100000; at most " +
                      std::to_string(kMaxBenchSizes) + " sizes)")
      ->option_text("LIST");
  app->add_option("--frames", options->frames,
                  "Measured frames per size and variant (default 60; 1 to " + std::to_string(kMaxFrames) + ")")
      ->check(CLI::Range(uint32_t(1), kMaxFrames))
      ->option_text("K");
  app->add_option("--warmup", options->warmup,
                  "Frames rendered before measuring (default 5; at most " + std::to_string(kMaxWarmup) + ")")
      ->check(CLI::Range(uint32_t(0), kMaxWarmup))
      ->option_text("W");
  app->add_option("-s,--size", options->size,
                  "Render target size in pixels (default 1920x1080; each 1 to 16384, and width x height x "
                  "samples at most 2^28)")
      ->option_text("WxH");
  app->add_option(
         "--variants", options->variants,
         "all, or a comma list of static, rig, rig-decode, delta-f32, delta-f16, delta-q16, live (default all)")
      ->option_text("LIST");
  app->add_option("--camera", options->camera,
                  "overview: the whole crowd in view; person: eye at head height at the crowd's edge, "
                  "looking across it; away: the same eye turned away from the crowd, everything culled "
                  "(measures the cost of issuing a frame) (default overview)")
      ->check(CLI::IsMember({"overview", "person", "away"}))
      ->option_text("overview|person|away");
  app->add_flag("--no-culling", options->no_culling,
                "VAT and static variants: no GPU culling, no LOD (direct draws of every instance)");
  app->add_flag("--shadows", options->shadows, "Shadow pass on for the VAT and static variants (default off)");
  app->add_flag("--pipelined", options->pipelined,
                "Keep three frames in flight, as a renderer that does not wait for the GPU every frame "
                "(default: each frame waits for the last); triangles are then the last frame's");
  app->add_option("--json", options->json, "Also write the rows, the machine and the command line as JSON")
      ->check(output_name())
      ->option_text("FILE");
  app->add_option("--lods", options->lods,
                  "Levels of detail baked per VAT (default 10: far instances are a few pixels tall; 0 to " +
                      std::to_string(kMaxLods) + ", as bake --lods)")
      ->check(CLI::Range(uint32_t(0), kMaxLods))
      ->option_text("N");
  app->add_option("--lod-error", options->lod_error_px,
                  "Screen-space error budget of the level choice, pixels (default 1; RenderOptions::lod_error_px)")
      ->check(CLI::PositiveNumber)
      ->option_text("PX");
  app->add_option("--pose-cache-mb", options->pose_cache_mb,
                  "with culling: GPU memory per culling pass for the pose cache (rig: the slot palette), MiB "
                  "(CrowdDesc::instance_cache_bytes; "
                  "default " +
                      std::to_string(options->pose_cache_mb) + "; at most " + std::to_string(kMaxPoseCacheMb) + ")")
      ->check(CLI::Range(size_t(0), kMaxPoseCacheMb))
      ->option_text("MB");
  app->add_option("--samples", options->samples,
                  "Multisampling per pixel (default 1; 1 to " + std::to_string(kMaxSamples) +
                      ", capped to the driver's GL_MAX_SAMPLES)")
      ->check(CLI::Range(1, kMaxSamples))
      ->option_text("N");
  app->add_option("--seed", options->seed, "Seed of the crowd's clips, phases and speeds (default 1)")
      ->option_text("S");
  app->add_option("--mode", options->mode,
                  "variants (default): the table of variants below; mixed: one character against --characters "
                  "crowds with the same triangles (shadows on); agents: N agents moved every frame through full "
                  "matrices against position + heading, CPU ms and bytes uploaded per frame")
      ->check(CLI::IsMember({"variants", "mixed", "agents"}))
      ->option_text("variants|mixed|agents");
  app->add_option("--characters", options->characters,
                  "--mode mixed: crowds (uploads of the character) the instances are dealt over (default 4; 2 to 64)")
      ->check(CLI::Range(uint32_t(2), uint32_t(64)))
      ->option_text("N");
  app->add_flag("--verify-live", options->verify_live,
                "Before timing, check the live-skinning path against the reference skinner and the rig "
                "decode (16 instances, 3 times); fail if it is off the reference");
  app->footer(
      "Variants: static (the rest mesh as a static instanced mesh: the floor), rig (f16; with culling,\n"
      "slots evaluated once per visible instance into the slot palette), rig-decode (the same VAT,\n"
      "slots decoded per vertex), delta-f32, delta-f16, delta-q16 (VAT decode in the vertex shader),\n"
      "live (CPU samples every skeleton each frame on every thread, uploads the palettes, a skinning\n"
      "vertex shader draws). Every variant draws the same desynchronised grid crowd from the same\n"
      "camera; the clock advances 1/60 s per frame. GPU time uses GL_TIME_ELAPSED queries on\n"
      "hardware and glFinish + wall clock on software renderers (printed); CPU time is the frame's\n"
      "submission (Renderer::render, or sampling + upload + draw for live). Progress goes to\n"
      "stderr, the table to stdout.\n\n"
      "Examples:\n"
      "  vatkit bench --instances 1k,10k --frames 30\n"
      "  vatkit bench Fox.glb --camera person --instances 100k,1M --variants static,rig,delta-q16\n"
      "  vatkit bench --no-culling --json bench.json\n"
      "  vatkit bench --mode mixed --instances 10k,100k\n"
      "  vatkit bench --mode agents --instances 100k");
  return {app, [options]() { return options->mode == "variants" ? run_bench(*options) : run_crowd_bench(*options); }};
}

}  // namespace vatkit::cli
