#include "bake_options.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "cli.h"
#include "vatkit/parallel.h"
#include "vatkit/playback.h"
#include "summary.h"
#include "vatkit/vat_file.h"
#include "util/from_chars.h"

namespace vatkit::cli {

namespace {

std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", v);
  return text;
}

bool parse_int(std::string_view text, int64_t& out) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto parsed = std::from_chars(first, last, out);
  return first != last && parsed.ec == std::errc() && parsed.ptr == last;
}

bool parse_float(std::string_view text, float& out) {
  // std::from_chars for float: no locale, and it refuses "0x", leading '+' and trailing junk.
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto parsed = vatkit::detail::floating_from_chars(first, last, out);
  return first != last && parsed.ec == std::errc() && parsed.ptr == last;
}

// "NAME=once,clamp,repetitions=2,speed=0.5" -> (NAME, ClipDefaults).
Result<std::pair<std::string, ClipDefaults>> parse_clip_defaults(const std::string& text) {
  const std::string where = "--clip-defaults " + text;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return make_error(ErrorCode::Argument, "", where + ": expected NAME=SPEC, e.g. die=once,clamp");
  }
  std::pair<std::string, ClipDefaults> out{text.substr(0, eq), ClipDefaults{}};
  ClipDefaults& d = out.second;
  std::string_view rest = std::string_view(text).substr(eq + 1);
  if (rest.empty()) return make_error(ErrorCode::Argument, "", where + ": nothing after '='");
  bool counted = false;  // repetitions= given; otherwise the loop mode's default count
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view token = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (token == "repeat") {
      d.loop_mode = LoopMode::Repeat;
    } else if (token == "once") {
      d.loop_mode = LoopMode::Once;
    } else if (token == "pingpong") {
      d.loop_mode = LoopMode::PingPong;
    } else if (token == "clamp") {
      d.end_mode = EndMode::Clamp;
    } else if (token == "rewind") {
      d.end_mode = EndMode::Rewind;
    } else if (token.rfind("repetitions=", 0) == 0) {
      counted = true;
      const std::string_view value = token.substr(12);
      int64_t n = 0;
      if (value == "endless") {
        d.repetitions = kInfiniteRepetitions;
      } else if (parse_int(value, n) && n >= 1 && n <= std::numeric_limits<int32_t>::max()) {
        d.repetitions = static_cast<int32_t>(n);
      } else {
        return make_error(ErrorCode::Argument, "",
                          where + ": repetitions \"" + std::string(value) + "\" is not a count >= 1 or \"endless\"");
      }
    } else if (token.rfind("speed=", 0) == 0) {
      const std::string_view value = token.substr(6);
      if (!parse_float(value, d.speed) || !std::isfinite(d.speed) || d.speed < 0.0f) {
        return make_error(ErrorCode::Argument, "",
                          where + ": speed \"" + std::string(value) + "\" is not a finite number >= 0");
      }
    } else {
      return make_error(ErrorCode::Argument, "",
                        where + ": unknown \"" + std::string(token) +
                            "\" (expected repeat, once, pingpong, clamp, rewind, "
                            "repetitions=N or speed=S)");
    }
  }
  if (!counted) d.repetitions = default_repetitions(d.loop_mode);  // endless for repeat, one play otherwise
  return out;
}

// "CLIP=NAME@SECONDS[,NAME@SECONDS...]" -> (CLIP, event) pairs.
Result<void> parse_events(const std::string& text, std::vector<std::pair<std::string, ClipEvent>>& out) {
  const std::string where = "--event " + text;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return make_error(ErrorCode::Argument, "", where + ": expected CLIP=NAME@SECONDS, e.g. Walk=step_l@0.25");
  }
  std::string_view rest = std::string_view(text).substr(eq + 1);
  if (rest.empty()) return make_error(ErrorCode::Argument, "", where + ": nothing after '='");
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view token = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const size_t at = token.rfind('@');
    ClipEvent e;
    if (at == std::string_view::npos || at == 0 || at > kMaxEventNameBytes) {
      return make_error(ErrorCode::Argument, "",
                        where + ": \"" + std::string(token) + "\" is not NAME@SECONDS (a name of 1 to 256 bytes)");
    }
    e.name = std::string(token.substr(0, at));
    if (!parse_float(token.substr(at + 1), e.time_s) || !std::isfinite(e.time_s) || e.time_s < 0.0f) {
      return make_error(ErrorCode::Argument, "",
                        where + ": time \"" + std::string(token.substr(at + 1)) + "\" is not a number of seconds >= 0");
    }
    out.emplace_back(text.substr(0, eq), std::move(e));
  }
  return {};
}

// --feet: "auto" finds the feet, "LEFT,RIGHT" names them.
Result<void> parse_feet(const std::string& text, FootOptions& feet) {
  if (text.empty()) return {};
  feet.enabled = true;
  if (text == "auto") return {};
  const size_t comma = text.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == text.size() ||
      text.find(',', comma + 1) != std::string::npos) {
    return make_error(ErrorCode::Argument, "", "--feet " + text + ": expected auto or LEFT,RIGHT (two joint names)");
  }
  feet.left = text.substr(0, comma);
  feet.right = text.substr(comma + 1);
  return {};
}

// --root-motion: "CLIP[=ROOT]", CLIP a clip name, #INDEX or all, ROOT auto (the default), feet or
// a joint's name.
Result<void> parse_root_motion(const std::string& text, std::vector<RootMotionOption>& out) {
  const size_t eq = text.find('=');
  RootMotionOption o{text.substr(0, eq), eq == std::string::npos ? "auto" : text.substr(eq + 1)};
  if (o.clip.empty() || o.root.empty()) {
    return make_error(ErrorCode::Argument, "",
                      "--root-motion " + text +
                          ": expected CLIP[=ROOT] (CLIP a clip name, #INDEX or all; ROOT auto, "
                          "feet or a joint's name)");
  }
  out.push_back(std::move(o));
  return {};
}

// The bake options that say how to read the source: which clips and their playback defaults, its
// unit, animations merged.
void add_source_options(CLI::App& app, BakeCliOptions& o, const char* group) {
  app.add_option("--clips", o.clips,
                 "Bake only these clips, in this order (names or #INDEX, comma-separated; "
                 "default: all)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->option_text("NAME,...")
      ->group(group);
  app.add_option("--clip-defaults", o.clip_defaults,
                 "Playback defaults stored for a clip (repeatable): NAME=SPEC, SPEC a comma list "
                 "of repeat|once|pingpong, clamp|rewind, repetitions=N|endless, speed=S; e.g. "
                 "die=once,clamp; NAME * gives every clip not named otherwise (default: from the "
                 "motion: a clip whose last pose is within 7% of the asset's size of its first "
                 "repeats, any other plays once and clamps, and the bake says so; speed 1; "
                 "repetitions endless for repeat, 1 for once and pingpong, as three-vat)")
      ->allow_extra_args(false)
      ->option_text("NAME=SPEC")
      ->group(group);
  app.add_option("--event", o.events,
                 "Named events stored with a clip (repeatable): CLIP=NAME@SECONDS[,NAME@SECONDS...], "
                 "e.g. Walk=step_l@0.25,step_r@0.75; seconds from the clip's start, within its "
                 "duration (docs/events.md); they join the events the glTF file carries")
      ->allow_extra_args(false)
      ->option_text("CLIP=NAME@S,...")
      ->group(group);
  app.add_option("--feet", o.feet,
                 "Store foot contacts as events (foot_l_down, foot_l_up, foot_r_down, foot_r_up) "
                 "found from the foot joints' height and speed: auto finds the feet by name "
                 "(foot, ankle, toe with left/right) or as the lowest leaf joints, and the bake "
                 "prints its choice; LEFT,RIGHT names the joints")
      ->option_text("auto|LEFT,RIGHT")
      ->group(group);
  app.add_option("--root-motion", o.root_motion,
                 "Take a clip's root motion out of its rows and store it (repeatable): CLIP[=ROOT], CLIP a "
                 "clip name, #INDEX or all; ROOT a joint's name, feet (the motion that keeps the planted foot "
                 "still, for a clip made in place) or auto (the default: the hips or the skeleton's root, or the "
                 "feet where that joint stays in place); the bake prints its choice (docs/root-motion.md)")
      ->allow_extra_args(false)
      ->option_text("CLIP[=ROOT]")
      ->group(group);
  app.add_flag("--root-motion-vertical", o.root_motion_vertical,
               "Take the root joint's height out of the rows too (default: vertical motion stays in the rows)")
      ->group(group);
  app.add_flag("--no-source-events", o.no_source_events,
               "Ignore the events the glTF file's animations carry in their extras "
               "(\"events\" or \"markers\": [{\"name\", \"time\"}])")
      ->group(group);
  app.add_option("--units", o.units,
                 "The source's length unit (default m, glTF's): errors, budgets (--max-error, "
                 "--auto-budget), tolerances and seams are millimetres of real length, and the file "
                 "keeps the unit; the bake notes a size implausible for a character (over 20 m or "
                 "under 2 cm) and the unit that would fit (Fox is modelled in cm)")
      ->check(CLI::IsMember({"km", "m", "dm", "cm", "mm", "in", "ft"}))
      ->option_text("m|cm|mm|in|ft|dm|km")
      ->group(group);
  app.add_flag("--merge-clips", o.merge_clips,
               "Bake animations that are pieces of one (the same time range, each moving its own "
               "nodes, as old exporters wrote one animation per joint) as one clip, named as the "
               "first piece; without it they bake apart and the bake warns")
      ->group(group);
}

}  // namespace

void add_bake_options(CLI::App& app, BakeCliOptions& o, bool with_measure) {
  const char* group = "Bake";
  app.add_option("--encoding", o.encoding,
                 "auto (default): the rig when it represents the asset within --auto-budget, "
                 "else the delta; rig: per-joint transforms (refused, naming the joint, when the "
                 "rig cannot express the motion); delta: per-vertex positions")
      ->check(CLI::IsMember({"auto", "rig", "delta"}))
      ->option_text("auto|rig|delta")
      ->group(group);
  o.fps_option = app.add_option("--fps", o.fps,
                                "Nominal frame rate of every clip, 1e-6 to 1e6 (default 30): a clip of "
                                "duration D gets round(D * fps) + 1 rows")
                     ->option_text("N")
                     ->group(group);
  o.max_error_option = app.add_option("--max-error", o.max_error_mm,
                                      "Instead of --fps: per clip, the lowest rate whose decode stays within this "
                                      "error against the reference skinner, on the rows and between them")
                           ->option_text("MM")
                           ->excludes(o.fps_option)
                           ->group(group);
  app.add_option("--precision", o.precision,
                 "Texel precision (default f32): f32 (RGBA32F), f16 (RGBA16F), q16 (16-bit "
                 "unorm against each clip's range; octahedral normals); bounds in "
                 "docs/encodings.md")
      ->check(CLI::IsMember({"f32", "f16", "q16"}))
      ->option_text("f32|f16|q16")
      ->group(group);
  add_source_options(app, o, group);
  app.add_flag("--no-normals", o.no_normals,
               "Delta f32/f16: leave out the normal plane (a q16 delta keeps its normals: they "
               "cost no bytes)")
      ->group(group);
  app.add_flag("--no-tangents", o.no_tangents, "Leave out tangents even where the source has them")->group(group);
  app.add_option("--max-texture-size", o.max_texture_size,
                 "Largest texture width and height, 1 to 65536 (default 16384): wider frames wrap "
                 "onto several rows, and every clip's rows stack in the height; a bake that does "
                 "not fit fails and says what would")
      ->option_text("N")
      ->group(group);
  app.add_option("--threads", o.threads,
                 "Worker threads (default 0: every hardware thread; at most " + std::to_string(kMaxThreads) +
                     "); the output bytes do not depend on it")
      ->check(CLI::Range(0u, kMaxThreads))
      ->option_text("N")
      ->group(group);
  app.add_option("--auto-budget", o.auto_budget_mm,
                 "--encoding auto picks the rig when its error on the rows is within this "
                 "(default 1 mm; with --max-error, that budget instead)")
      ->option_text("MM")
      ->group(group);
  app.add_option("--max-search-fps", o.max_search_fps,
                 "--max-error tries rates up to this, 1e-6 to 1e6 (default 480), and rows up "
                 "to the texture size limit, before giving up")
      ->option_text("N")
      ->group(group);
  app.add_option("--rig-tolerance", o.rig_tolerance,
                 "How far a joint's matrix may be from rotation + translation + uniform scale "
                 "before the rig is refused (relative; default 0.001)")
      ->option_text("R")
      ->group(group);
  app.add_option("--lods", o.lods,
                 "Levels of detail stored in the file, 0 to 16 (default 3; 0: none): index buffers over "
                 "the same vertices at about 1/2, 1/4, 1/8... of the triangles, each with its "
                 "error at rest and in motion and the screen size to switch at (docs/lod.md)")
      ->option_text("N")
      ->group(group);
  if (with_measure) {
    app.add_flag("--no-measure", o.no_measure,
                 "Skip measuring the result against the reference (faster; the table then has "
                 "no error columns)")
        ->group(group);
  }
}

EncodingChoice encoding_choice(const std::string& word) {
  return word == "rig" ? EncodingChoice::Rig : word == "delta" ? EncodingChoice::Delta : EncodingChoice::Auto;
}

Precision precision_choice(const std::string& word) {
  return word == "f16" ? Precision::F16 : word == "q16" ? Precision::Q16 : Precision::F32;
}

// --units' words (checked by CLI11 against the list) as metres.
float metres_per_unit(const std::string& unit) {
  if (unit == "km") return 1000.0f;
  if (unit == "dm") return 0.1f;
  if (unit == "cm") return 0.01f;
  if (unit == "mm") return 0.001f;
  if (unit == "in") return 0.0254f;
  if (unit == "ft") return 0.3048f;
  return 1.0f;
}

Result<BakeOptions> make_bake_options(const BakeCliOptions& o) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0.0 && v < 1e30; };
  // A rate in vatkit::bake's range [kMinBakeFps, kMaxBakeFps].
  auto rate = [](const char* option, double v) -> Result<void> {
    if (v >= double(kMinBakeFps) && v <= double(kMaxBakeFps)) return {};
    return make_error(ErrorCode::Argument, "",
                      std::string(option) + " " + number_text(v) +
                          ": must be a positive number of frames per second, from " + number_text(kMinBakeFps) +
                          " to " + number_text(kMaxBakeFps));
  };
  BakeOptions b;
  b.encoding = encoding_choice(o.encoding);
  b.precision = precision_choice(o.precision);
  if (o.max_error_option != nullptr && o.max_error_option->count() > 0) {
    if (!positive(o.max_error_mm)) {
      return make_error(ErrorCode::Argument, "",
                        "--max-error " + number_text(o.max_error_mm) + ": not a positive number of millimetres");
    }
    b.max_error_mm = static_cast<float>(o.max_error_mm);
  } else if (auto r = rate("--fps", o.fps); !r) {
    return r.error();
  }
  b.fps = static_cast<float>(o.fps);
  if (auto r = rate("--max-search-fps", o.max_search_fps); !r) return r.error();
  b.max_search_fps = static_cast<float>(o.max_search_fps);
  if (!positive(o.auto_budget_mm)) {
    return make_error(ErrorCode::Argument, "",
                      "--auto-budget " + number_text(o.auto_budget_mm) + ": not a positive number of millimetres");
  }
  b.auto_budget_mm = static_cast<float>(o.auto_budget_mm);
  if (!positive(o.rig_tolerance)) {
    return make_error(ErrorCode::Argument, "",
                      "--rig-tolerance " + number_text(o.rig_tolerance) + ": not a positive number");
  }
  b.rig_tolerance = static_cast<float>(o.rig_tolerance);
  b.metres_per_unit = metres_per_unit(o.units);
  if (o.max_texture_size < 1 || o.max_texture_size > kMaxTextureSize) {
    return make_error(ErrorCode::Argument, "",
                      "--max-texture-size " + std::to_string(o.max_texture_size) + ": must be from 1 to " +
                          std::to_string(kMaxTextureSize));
  }
  b.max_texture_size = uint32_t(o.max_texture_size);
  b.clips = o.clips;
  for (const std::string& clip : b.clips) {
    if (clip.empty()) return make_error(ErrorCode::Argument, "", "--clips: an empty clip name");
  }
  for (const std::string& spec : o.clip_defaults) {
    auto parsed = parse_clip_defaults(spec);
    if (!parsed) return parsed.error();
    b.clip_defaults.push_back(std::move(*parsed));
  }
  for (const std::string& spec : o.events) {
    if (auto r = parse_events(spec, b.events); !r) return r.error();
  }
  if (auto r = parse_feet(o.feet, b.feet); !r) return r.error();
  for (const std::string& spec : o.root_motion) {
    if (auto r = parse_root_motion(spec, b.root_motion); !r) return r.error();
  }
  b.root_motion_vertical = o.root_motion_vertical;
  b.source_events = !o.no_source_events;
  if (o.lods < 0 || o.lods > kMaxBakeLods) {
    return make_error(ErrorCode::Argument, "",
                      "--lods " + std::to_string(o.lods) + ": must be from 0 to " + std::to_string(kMaxBakeLods));
  }
  b.lods = uint32_t(o.lods);
  b.normals = !o.no_normals;
  b.tangents = !o.no_tangents;
  b.merge_clip_pieces = o.merge_clips;
  b.measure = !o.no_measure;
  b.threads = o.threads;
  return b;
}

Result<void> resolve_clip_defaults(BakeOptions& options, const Asset& asset) {
  for (auto& [name, defaults] : options.clip_defaults) {
    if (name == "*") continue;  // every clip not named otherwise
    Result<int> clip = find_clip(asset, name);
    if (!clip)
      return make_error(
          clip.error().code, asset.source,
          "--clip-defaults: " + clip.error().message.substr(asset.source.empty() ? 0 : asset.source.size() + 2));
    name = clip_label(asset, *clip);  // what the baker matches
  }
  return {};
}

Result<void> check_source_file(const std::string& file) {
  if (file.empty()) return {};
  Result<bool> is_vat = is_vat_input(file);
  if (!is_vat) return is_vat.error();
  if (*is_vat) {
    return make_error(ErrorCode::Argument, file, "is a .vat.glb (a baked VAT), not a source glTF file");
  }
  return {};
}

ProgressBar::ProgressBar() : enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() { finish(); }

ProgressFn ProgressBar::callback() {
  if (!enabled_) return {};
  return [this](std::string_view stage, float fraction) { draw(stage, fraction); };
}

void ProgressBar::draw(std::string_view stage, float fraction) {
  const int percent = static_cast<int>(std::clamp(fraction, 0.0f, 1.0f) * 100.0f);
  if (stage == stage_ && percent == percent_) return;
  stage_ = stage;
  percent_ = percent;
  constexpr int kWidth = 40;
  const int filled = percent * kWidth / 100;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\r%-8s [%s] %3d%%", stage_.c_str(), bar.c_str(), percent);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%*s\r", 60, "");
  std::fflush(stderr);
  drawn_ = false;
  stage_.clear();
  percent_ = -1;
}

void add_view_bake_options(CLI::App& app, ViewBakeOptions& options) {
  app.add_option("--encoding", options.encoding, "When baking FILE: auto, delta or rig (default auto)")
      ->check(CLI::IsMember({"auto", "delta", "rig"}))
      ->option_text("auto|delta|rig");
  app.add_option("--precision", options.precision, "When baking FILE: f32, f16 or q16 (default f32)")
      ->check(CLI::IsMember({"f32", "f16", "q16"}))
      ->option_text("f32|f16|q16");
}

Result<Vat> load_or_bake(const std::string& file, const std::vector<std::string>& allow_roots,
                         const ViewBakeOptions& view) {
  if (!file.empty()) {
    Result<bool> is_vat = is_vat_input(file);
    if (!is_vat) return is_vat.error();
    if (*is_vat) return load_vat(file);
  }
  Result<Asset> asset = load_input(file, allow_roots);
  if (!asset) return asset.error();
  BakeOptions options;
  options.encoding = encoding_choice(view.encoding);
  options.precision = precision_choice(view.precision);
  options.measure = false;
  if (view.root_motion) options.root_motion = {RootMotionOption{"all", "auto"}};
  return bake(*asset, options);
}

}  // namespace vatkit::cli
