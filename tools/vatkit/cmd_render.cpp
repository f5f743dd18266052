// vatkit render [FILE...] [--instances N] [--tint none|palette] [--time T] [--size WxH] [--layout grid|random] [--seed
// S]
// [--frames K --fps F] [-o OUT.png|OUT.mp4|OUT.webp]: a crowd of desynchronised instances rendered
// headless (vatkit::gl: EGL, VAT decode on the GPU, shadows) and written as PNG, or the K frames as
// one video (video/video.h). Several files make a mixed crowd: instance i of the spread is drawn
// with file i mod F (round-robin), one Crowd per file, all in one Renderer::render.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bake_options.h"
#include "cli.h"
#include "playback_json.h"
#include "render_prop.h"
#include "vatkit/bake.h"
#include "vatkit/gl/context.h"
#include "vatkit/gl/crowd.h"
#include "vatkit/gl/image.h"
#include "vatkit/gl/render_target.h"
#include "vatkit/gl/vat_gpu.h"
#include "vatkit/instance_table.h"
#include "vatkit/root_motion.h"
#include "vatkit/vat_file.h"
#include "video.h"

namespace vatkit::cli {

namespace {
constexpr double kMaxTime = 1e7;  // seconds either side of 0, for --time and every frame's clock

struct RenderOptions {
  std::string file;                // the first of `files` (the one the report and --scene-out name)
  std::vector<std::string> files;  // empty: the built-in sample
  std::string tint = "none";
  std::vector<std::string> allow_roots;
  uint32_t instances = 64;
  double time_s = 1.0;
  std::string size = "960x540";
  std::string layout = "grid";
  uint64_t seed = 1;
  uint32_t frames = 1;
  double fps = 30.0;
  std::string output = "crowd.png";
  int quality = -1;  // --quality (WebP); -1: not given, 80
  bool lossless = false;
  ViewBakeOptions bake;  // --encoding, --precision
  int samples = 4;
  bool no_shadows = false;
  std::string shading = "lit";
  std::string scene_out;
  bool root_motion = false;  // --root-motion
  std::string prop;          // --prop SPEC (render_prop.h)
};

void append_matrix(std::string& out, const glm::mat4& m) {
  out += "[";
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      if (c || r) out += ',';
      out += float_text(m[c][r]);
    }
  }
  out += "]";
}

// The --scene-out document: what another renderer needs to draw the same picture (the web
// runtime's browser tests do): the input, the first frame's time, the image size, the shading,
// the camera's matrices (column-major; OpenGL clip space) and every instance's world matrix and
// playback (playback_json.h's INSTANCE, written at clock time 0 without fades).
Result<std::string> scene_json(const RenderOptions& options, const Vat& vat, int width, int height,
                               const gl::Camera& camera, const gl::SpreadOptions& spread) {
  Result<std::vector<gl::SpreadInstance>> instances = gl::spread_instances(vat, options.instances, spread);
  if (!instances) return instances.error();
  std::string out = "{\"vat\":" + json_string(options.file) + ",\"time\":" + float_text(float(options.time_s)) +
                    ",\"width\":" + std::to_string(width) + ",\"height\":" + std::to_string(height) +
                    ",\"shading\":" + json_string(options.shading) + ",\"camera\":{\"view\":";
  append_matrix(out, camera.view());
  out += ",\"projection\":";
  append_matrix(out, camera.projection(float(width) / float(height)));
  out += ",\"position\":[" + float_text(camera.eye.x) + "," + float_text(camera.eye.y) + "," +
         float_text(camera.eye.z) + "]},\n\"instances\":[";
  for (size_t i = 0; i < instances->size(); ++i) {
    out += i ? ",\n{\"world\":" : "\n{\"world\":";
    append_matrix(out, (*instances)[i].world);
    out += ",\"instance\":" + instance_json((*instances)[i].instance) + "}";
  }
  return out + "]}\n";
}

// OUT.png for one frame; OUT-0000.png, OUT-0001.png ... for a sequence.
std::string frame_path(const std::string& output, uint32_t frames, uint32_t k) {
  if (frames == 1) return output;
  const size_t slash = output.find_last_of('/');
  const size_t dot = output.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  char number[16];
  std::snprintf(number, sizeof(number), "-%04u", k);
  return has_ext ? output.substr(0, dot) + number + output.substr(dot) : output + number + ".png";
}

// The options' values (the image size aside): the clock of every frame, and the output's folder,
// checked before anything is baked or rendered.
Result<void> check_render_options(const RenderOptions& options) {
  if (!std::isfinite(options.time_s) || std::abs(options.time_s) > kMaxTime) {
    return make_error(ErrorCode::Argument, "render", "--time must be a finite number of seconds, at most 1e7 from 0");
  }
  if (!(std::isfinite(options.fps) && options.fps > 0.0))
    return make_error(ErrorCode::Argument, "render", "--fps must be a positive number");
  // The clock of the last frame stays within the bound of --time too.
  const double last_time = options.time_s + double(options.frames - 1) / options.fps;
  if (!(std::abs(last_time) <= kMaxTime)) {
    char fps[32];
    std::snprintf(fps, sizeof(fps), "%g", options.fps);
    return make_error(ErrorCode::Argument, "render",
                      std::string("--fps ") + fps + " with --frames " + std::to_string(options.frames) +
                          ": the last frame's time is beyond 1e7 s");
  }
  if (options.output.empty()) return make_error(ErrorCode::Argument, "render", "-o must name a file");
  Result<OutputKind> kind = output_kind(options.output);
  if (!kind) return kind.error();
  if (*kind != OutputKind::Webp && (options.quality >= 0 || options.lossless)) {
    return make_error(ErrorCode::Argument, options.output, "--quality and --lossless apply to .webp output only");
  }
  // Fail before baking and rendering when the output cannot be written where asked.
  const std::filesystem::path out_dir = std::filesystem::path(options.output).parent_path();
  if (!out_dir.empty() && !std::filesystem::is_directory(out_dir)) {
    return make_error(ErrorCode::Io, options.output, "cannot write here: " + out_dir.string() + " is not a directory");
  }
  return {};
}

// The --scene-out file, written (not yet committed) into `files`.
Result<void> write_scene_file(const RenderOptions& options, const Vat& vat, int width, int height,
                              const gl::Camera& camera, const gl::SpreadOptions& spread,
                              std::vector<OutputFile>& files) {
  Result<OutputFile> file = OutputFile::create(options.scene_out);
  if (!file) return file.error();
  Result<std::string> text = scene_json(options, vat, width, height, camera, spread);
  if (!text) return text.error();
  if (auto ok = file->write(*text); !ok) return ok.error();
  files.push_back(std::move(*file));
  return {};
}

// The line on stdout: what was written, from what, how large and how many triangles.
void print_report(const RenderOptions& options, const std::vector<Vat>& vats, gl::Renderer& renderer,
                  std::span<gl::Crowd* const> crowds, int width, int height, bool video) {
  uint64_t triangles = renderer.stats().triangles;
  for (const gl::Crowd* crowd : crowds) {
    if (Result<gl::CullingStats> culled = renderer.read_culling_stats(*crowd)) {
      triangles += culled->triangles + culled->shadow_triangles;
    }
  }
  const Vat& vat = vats[0];
  std::string source = printable(vat.source);
  for (size_t f = 1; f < vats.size(); ++f) source += " + " + printable(vats[f].source);
  char rate[48] = "";
  if (video) std::snprintf(rate, sizeof(rate), " at %g fps", options.fps);
  std::printf("%s: %u instance%s of %s (%s %s, %zu clip%s), %dx%d, %u frame%s%s, %llu triangles per frame\n",
              printable(video ? options.output : frame_path(options.output, options.frames, 0)).c_str(),
              options.instances, options.instances == 1 ? "" : "s", source.c_str(), to_string(vat.encoding),
              to_string(vat.precision), vat.clips.size(), vat.clips.size() == 1 ? "" : "s", width, height,
              options.frames, options.frames == 1 ? "" : "s", rate, static_cast<unsigned long long>(triangles));
}

// Where the frames go: PNG files written as they come (OUT.png, or OUT-0000.png ... for a
// sequence), or one video encoded as they come and written at the end. The video's file is
// opened before anything is rendered, so a place that cannot be written fails at once.
struct FrameOutput {
  std::unique_ptr<VideoWriter> video;
  std::optional<OutputFile> video_file;
};

Result<void> open_frame_output(const RenderOptions& options, int width, int height, FrameOutput& out) {
  Result<OutputKind> kind = output_kind(options.output);
  if (!kind) return kind.error();
  if (*kind == OutputKind::Png) return {};
  VideoOptions video;
  video.fps = options.fps;
  if (options.quality >= 0) video.quality = options.quality;
  video.lossless = options.lossless;
  Result<std::unique_ptr<VideoWriter>> writer = open_video(*kind, options.output, width, height, video);
  if (!writer) return writer.error();
  Result<OutputFile> file = OutputFile::create(options.output);
  if (!file) return file.error();
  out.video = std::move(*writer);
  out.video_file.emplace(std::move(*file));
  return {};
}

Result<void> add_frame(const RenderOptions& options, uint32_t k, const gl::ImageView& image, FrameOutput& out,
                       std::vector<OutputFile>& files) {
  if (out.video) return out.video->add_frame(image);
  const std::string path = frame_path(options.output, options.frames, k);
  Result<std::vector<uint8_t>> png = gl::encode_png(image);
  if (!png) return make_error(png.error().code, path, png.error().message);
  Result<OutputFile> file = OutputFile::create(path);
  if (!file) return file.error();
  if (auto ok = file->write(*png); !ok) return ok.error();
  if (auto ok = file->finish(); !ok) return ok.error();  // a long sequence holds no descriptors
  files.push_back(std::move(*file));
  return {};
}

// The video's bytes, written into its file (committed with the others once the report is out).
Result<void> finish_frame_output(FrameOutput& out, std::vector<OutputFile>& files) {
  if (!out.video) return {};
  Result<std::vector<uint8_t>> bytes = out.video->finish();
  if (!bytes) return bytes.error();
  if (auto ok = out.video_file->write(*bytes); !ok) return ok.error();
  files.push_back(std::move(*out.video_file));
  return {};
}

// What the frames are drawn with, set up once (in the context, which outlives it).
struct RenderSetup {
  gl::Renderer renderer;
  gl::RenderTarget target;
  gl::Camera camera;
  gl::RenderOptions render_options;
};

// --root-motion: each instance stands at its spread world at the first frame's clock and from
// there moves by its clip's root motion (root_motion.h), in its own heading: world(t) =
// spread world x root_motion_between(playback, first clock, t).
struct Movers {
  struct Instance {
    gl::Crowd* crowd;
    uint32_t index;
    const Vat* vat;
    glm::mat4 base;
    Playback playback;
  };
  std::vector<Instance> instances;
  float first = 0.0f;
};

Movers movers_of(const std::vector<Vat>& vats, std::span<gl::Crowd* const> crowds, float first) {
  Movers m;
  m.first = first;
  for (size_t c = 0; c < crowds.size(); ++c) {
    for (uint32_t i = 0; i < crowds[c]->size(); ++i) {
      m.instances.push_back({crowds[c], i, &vats[c], crowds[c]->world(i), playback(crowds[c]->table(), i)});
    }
  }
  return m;
}

void move_crowds(const Movers& m, std::span<gl::Crowd* const> crowds, float t) {
  for (const Movers::Instance& in : m.instances) {
    in.crowd->set_world(in.index, in.base * root_motion_between(*in.vat, in.playback, m.first, t).matrix());
  }
  for (gl::Crowd* c : crowds) c->recompute_bounds();
}

// The union of the crowds' world bounds.
Bounds union_bounds(std::span<gl::Crowd* const> crowds) {
  Bounds out{glm::vec3(1.0f), glm::vec3(-1.0f)};
  for (const gl::Crowd* c : crowds) {
    const Bounds b = c->world_bounds();
    out = out.min.x > out.max.x ? b : Bounds{glm::min(out.min, b.min), glm::max(out.max, b.max)};
  }
  return out;
}

// Renders options.frames frames into `out`, telling the progress bar (a terminal's stderr only).
Result<void> render_frames(const RenderOptions& options, gl::Context& context, RenderSetup& setup,
                           std::span<gl::Crowd* const> crowds, const Movers* movers, int width, int height,
                           FrameOutput& out, std::vector<OutputFile>& files) {
  gl::Image image;
  image.width = width;
  image.height = height;
  image.pixels.resize(size_t(width) * size_t(height) * 4);
  ProgressBar bar;
  const ProgressFn progress = bar.callback();
  for (uint32_t k = 0; k < options.frames; ++k) {
    const auto t = static_cast<float>(options.time_s + double(k) / options.fps);
    if (movers) move_crowds(*movers, crowds, t);
    setup.renderer.render(setup.target, crowds, setup.camera, t, setup.render_options);
    if (auto ok = context.check("render"); !ok) return ok.error();
    if (auto ok = setup.target.read_rgba8(image.pixels); !ok) return ok.error();
    if (auto ok = add_frame(options, k, image.view(), out, files); !ok) return ok;
    if (progress) progress("render", float(k + 1) / float(options.frames));
  }
  if (progress && out.video) progress("encode", 1.0f);
  return finish_frame_output(out, files);
}

Result<RenderSetup> set_up_rendering(const RenderOptions& options, const gl::Context& context, const Bounds& bounds,
                                     int width, int height) {
  Result<gl::Renderer> renderer = gl::Renderer::create();
  if (!renderer) return renderer.error();
  const int max_samples = std::max(context.info().limits.max_samples, 1);
  const int samples = std::min(options.samples, max_samples);
  if (samples < options.samples) {
    std::fprintf(stderr, "vatkit: note: --samples %d capped to %d, the driver's GL_MAX_SAMPLES\n", options.samples,
                 samples);
  }
  Result<gl::RenderTarget> target = gl::RenderTarget::create({width, height, samples});
  if (!target) return target.error();
  const gl::Camera camera = gl::camera_for_bounds(bounds, float(width) / float(height));
  gl::RenderOptions render_options;
  render_options.shadows = !options.no_shadows;
  render_options.shading = options.shading == "normals" ? gl::Shading::Normals : gl::Shading::Lit;
  return RenderSetup{std::move(*renderer), std::move(*target), camera, render_options};
}

// The crowds of a render: one per file, instance i of the spread (over every instance) drawn
// with file i mod F. One file keeps spread_crowd's own layout; several share one grid whose
// spacing suits the widest character.
struct Crowds {
  std::vector<gl::VatGpu> gpus;
  std::vector<gl::Crowd> crowds;
  std::vector<gl::Crowd*> pointers;
  Bounds bounds{glm::vec3(1.0f), glm::vec3(-1.0f)};
};

float mixed_spacing(const std::vector<Vat>& vats) {
  float footprint = 1e-3f;
  for (const Vat& vat : vats) {
    const glm::vec3 extent = vat.bounds.max - vat.bounds.min;
    footprint = std::max({footprint, extent.x, extent.z});
  }
  return footprint * 1.3f;
}

Result<void> make_crowds(const RenderOptions& options, const std::vector<Vat>& vats, const gl::SpreadOptions& spread,
                         Crowds& out) {
  const auto files = uint32_t(vats.size());
  for (const Vat& vat : vats) {
    Result<gl::VatGpu> gpu = gl::VatGpu::upload(vat);
    if (!gpu) return gpu.error();
    out.gpus.push_back(std::move(*gpu));
  }
  for (uint32_t f = 0; f < files; ++f) {
    const uint32_t count = (options.instances - f + files - 1) / files;
    Result<gl::Crowd> crowd = gl::Crowd::create(out.gpus[f], count);
    if (!crowd) return crowd.error();
    if (files == 1) {
      if (auto ok = gl::spread_crowd(*crowd, spread); !ok) return ok.error();  // the list scene_json writes
    } else {
      Result<std::vector<gl::SpreadInstance>> all = gl::spread_instances(vats[f], options.instances, spread);
      if (!all) return all.error();
      for (uint32_t k = 0; k < count; ++k) {
        const gl::SpreadInstance& s = (*all)[size_t(k) * files + f];
        crowd->set_world(k, s.world);
        if (auto ok = set_instance(crowd->table(), k, s.instance, spread.now); !ok) return ok.error();
      }
      crowd->recompute_bounds();
    }
    if (options.tint == "palette") {
      for (uint32_t k = 0; k < count; ++k) crowd->set_tint(k, gl::palette_tint(k * files + f));
    }
    if (!options.prop.empty()) {  // each file's own joint (a mixed crowd: each names it alike)
      Result<PropChoice> prop = parse_prop(options.prop, vats[f], options.allow_roots);
      if (!prop) return prop.error();
      if (Result<uint32_t> attached = crowd->attach(prop->mesh, prop->desc); !attached) return attached.error();
    }
    out.crowds.push_back(std::move(*crowd));
  }
  for (gl::Crowd& c : out.crowds) out.pointers.push_back(&c);
  out.bounds = union_bounds(out.pointers);
  return {};
}

Result<void> check_files(const RenderOptions& options) {
  if (options.files.size() > 1 && options.instances < options.files.size()) {
    return make_error(ErrorCode::Argument, "render",
                      "--instances " + std::to_string(options.instances) + " is fewer than the " +
                          std::to_string(options.files.size()) + " files: every file needs an instance");
  }
  if (options.files.size() > 1 && !options.scene_out.empty()) {
    return make_error(ErrorCode::Argument, "render", "--scene-out describes one file's crowd; give one file");
  }
  return {};
}

Result<void> run_render(RenderOptions options) {
  int width = 0, height = 0;
  if (auto ok = parse_size("render", options.size, "960x540", width, height); !ok) return ok.error();
  if (auto ok = check_target_size("render", width, height, options.samples); !ok) return ok.error();
  if (auto ok = check_render_options(options); !ok) return ok.error();
  if (auto ok = check_files(options); !ok) return ok.error();
  FrameOutput out;
  if (auto ok = open_frame_output(options, width, height, out); !ok) return ok.error();

  if (options.files.empty()) options.files.emplace_back();  // the built-in sample
  options.file = options.files[0];
  std::vector<Vat> vats;
  ViewBakeOptions bake_options = options.bake;
  bake_options.root_motion = options.root_motion;
  for (const std::string& file : options.files) {
    Result<Vat> vat = load_or_bake(file, options.allow_roots, bake_options);
    if (!vat) return vat.error();
    vats.push_back(std::move(*vat));
  }

  gl::HeadlessDesc context_options;
  Result<gl::Context> context = gl::Context::create_headless(context_options);
  if (!context)
    return make_error(context.error().code, "render", "no headless OpenGL context: " + context.error().message);

  if (context->info().software && options.instances > kMaxSoftwareInstances) {
    return make_error(ErrorCode::Limit, "render",
                      "--instances " + std::to_string(options.instances) + ": at most " +
                          std::to_string(kMaxSoftwareInstances) + " on a software renderer (" +
                          printable(context->info().renderer) + ")");
  }
  gl::SpreadOptions spread;
  spread.layout = options.layout == "random" ? gl::CrowdLayout::Random : gl::CrowdLayout::Grid;
  spread.seed = options.seed;
  if (vats.size() > 1) spread.spacing = mixed_spacing(vats);
  Crowds crowds;
  if (auto ok = make_crowds(options, vats, spread, crowds); !ok) return ok.error();

  std::optional<Movers> movers;
  if (options.root_motion) {
    // The camera frames the crowd halfway through the frames, where the walkers are on average.
    movers = movers_of(vats, crowds.pointers, float(options.time_s));
    move_crowds(*movers, crowds.pointers, float(options.time_s + 0.5 * double(options.frames - 1) / options.fps));
    crowds.bounds = union_bounds(crowds.pointers);
  }
  Result<RenderSetup> setup = set_up_rendering(options, *context, crowds.bounds, width, height);
  if (!setup) return setup.error();
  std::vector<OutputFile> files;  // committed once the report reached stdout
  if (!options.scene_out.empty()) {
    if (auto ok = write_scene_file(options, vats[0], width, height, setup->camera, spread, files); !ok)
      return ok.error();
  }
  if (auto ok = render_frames(options, *context, *setup, crowds.pointers, movers ? &*movers : nullptr, width, height,
                              out, files);
      !ok)
    return ok;
  print_report(options, vats, setup->renderer, crowds.pointers, width, height, out.video != nullptr);
  return flush_stdout_then_commit(files);
}
}  // namespace

Command add_render_command(CLI::App& parent) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* app = parent.add_subcommand(
      "render",
      "Render a crowd of desynchronised instances headless (OpenGL, EGL) and write a PNG, PNG frames or a "
      "video (.mp4, .webp)");
  app->add_option("file", options->files,
                  "Input: a .vat.glb, or a glTF 2.0 file (.gltf/.glb) baked on the fly; the built-in "
                  "sample character when left out. Several files: a mixed crowd, instance i drawn with file "
                  "i mod F (round-robin) on one shared grid")
      ->option_text("FILE...");
  add_allow_root_option(app, options->allow_roots);
  app->add_option("-n,--instances", options->instances,
                  "Number of instances (default 64; 1 to " + std::to_string(kMaxInstances) + ", at most " +
                      std::to_string(kMaxSoftwareInstances) + " on a software renderer)")
      ->check(CLI::Range(uint32_t(1), kMaxInstances))
      ->option_text("N");
  app->add_option("-t,--time", options->time_s,
                  "Clock time of the (first) frame, in seconds (default 1; at most 1e7 from 0)")
      ->option_text("SECONDS");
  app->add_option("-s,--size", options->size,
                  "Image size in pixels (default 960x540; each 1 to 16384, and width x height x samples at "
                  "most 2^28)")
      ->option_text("WxH");
  app->add_option("--layout", options->layout, "Where instances stand: grid or random (default grid)")
      ->check(CLI::IsMember({"grid", "random"}))
      ->option_text("grid|random");
  app->add_option("--seed", options->seed, "Seed of the layout, clips, phases and speeds (default 1)")
      ->option_text("S");
  app->add_option("--frames", options->frames,
                  "Render K frames, 1/F s apart: OUT-0000.png, OUT-0001.png ..., or the frames of one video "
                  "OUT.mp4 / OUT.webp (default 1: OUT.png; at most " +
                      std::to_string(kMaxFrames) + ")")
      ->check(CLI::Range(uint32_t(1), kMaxFrames))
      ->option_text("K");
  app->add_option("--fps", options->fps, "Frame rate of a sequence or video (default 30; .webp: 0.001 to 1000)")
      ->option_text("F");
  app->add_option("-o,--output", options->output,
                  "Output by extension: .png (default crowd.png), .mp4 (H.264, crf 18, even width and height) or "
                  ".webp (animated, looping); any other extension is refused; written atomically, nothing left behind "
                  "on failure")
      ->check(output_name())
      ->option_text("OUT.png|OUT.mp4|OUT.webp");
  app->add_option("--quality", options->quality, "Lossy quality of a .webp, 0 to 100 (default 80)")
      ->check(CLI::Range(0, 100))
      ->option_text("Q");
  app->add_flag("--lossless", options->lossless, "A lossless .webp: every frame's pixels exactly as rendered");
  add_view_bake_options(*app, options->bake);
  app->add_option("--samples", options->samples,
                  "Multisampling per pixel (default 4; 1 to " + std::to_string(kMaxSamples) +
                      ", capped to the driver's GL_MAX_SAMPLES)")
      ->check(CLI::Range(1, kMaxSamples))
      ->option_text("N");
  app->add_flag("--root-motion", options->root_motion,
                "Move each instance by its clip's root motion (docs/root-motion.md), in its own heading, from where "
                "it stands at the first frame; a glTF input (the sample included) is baked with --root-motion all "
                "(each clip's root joint, or its planted feet where the clip is made in place)");
  app->add_flag("--no-shadows", options->no_shadows, "Skip the shadow pass");
  app->add_option("--tint", options->tint,
                  "none (default), or palette: instance i's base colour times the i-th (mod 8) colour of "
                  "vatkit's palette (gl::palette_tint)")
      ->check(CLI::IsMember({"none", "palette"}))
      ->option_text("none|palette");
  app->add_option("--shading", options->shading,
                  "lit (default): materials, light, sky and shadows; normals: the view-space normal as colour "
                  "(n * 0.5 + 0.5, unlit, black background, no ground or shadows), as three.js's "
                  "MeshNormalMaterial draws it")
      ->check(CLI::IsMember({"lit", "normals"}))
      ->option_text("lit|normals");
  app->add_option("--prop", options->prop,
                  "Give every instance a prop held by a joint: sword, box or a glTF file (its meshes at rest, "
                  "in their own units), then @JOINT (default: the joint named like a right hand)")
      ->option_text("sword|box|FILE[@JOINT]");
  app->add_option("--scene-out", options->scene_out,
                  "Also write the scene as JSON: camera matrices, and each instance's world matrix and "
                  "playback, for drawing the same picture in another renderer")
      ->check(output_name())
      ->option_text("FILE.json");
  app->footer(
      "Instances are spread on a grid (or at random), each playing one of the clips from its own\n"
      "start time and speed; the camera frames the crowd from the bake's bounds; one directional\n"
      "light casts shadows (its casters decode the VAT too). Needs an OpenGL 4.5 driver reachable\n"
      "through EGL (Mesa's llvmpipe works without a GPU).\n\n"
      "Examples:\n"
      "  vatkit render --instances 100 -o crowd.png\n"
      "  vatkit render Fox.glb --layout random --seed 3 --size 1280x720\n"
      "  vatkit render crowd.vat.glb --frames 60 --fps 30 -o frames/crowd.png\n"
      "  vatkit render --frames 75 --fps 25 --size 320x180 -o crowd.webp\n"
      "  vatkit render crowd.vat.glb --frames 90 --fps 30 --size 1280x720 -o crowd.mp4\n"
      "  vatkit render crowd.vat.glb --shading normals --scene-out scene.json -o normals.png\n"
      "  vatkit render knight.vat.glb fox.vat.glb --instances 400 --tint palette -o mixed.png");
  return {app, [options]() { return run_render(*options); }};
}

}  // namespace vatkit::cli
