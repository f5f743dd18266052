// `vatkit bake`, `vatkit verify`, and `info` / `pose` on a .vat.glb, run as a program: the sample,
// Fox and CesiumMan bake in both encodings at every precision; `info` on the file reports what
// the bake reported; `pose` on the .vat.glb and on its source agree within the precision's
// documented bound on the rows (docs/encodings.md) and within the measured error between them;
// `verify` passes a generous tolerance and exits 3 on an impossible one; --max-error picks a rate
// per clip; the output passes the Khronos validator; every kind of bad input gives one
// "vatkit: error: " line, a non-zero exit and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "test_support.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::CommandResult;
using test::expect_help_documents;
using test::expect_one_error_line;
using test::shell_quote;
using test::vatkit_cli;

std::string quoted(const fs::path& path) { return shell_quote(path.string()); }
std::string asset(const std::string& relative) { return quoted(test::asset_path(relative)); }

// Exactly one line on stderr, starting with "vatkit: error: ", containing `must_contain`.

size_t entries_in(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

json parse_json(const CommandResult& r) {
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

// The 3 * V coordinates of every primitive of a `vatkit pose` document, keyed by instance.
struct Pose {
  std::vector<std::array<uint32_t, 3>> keys;  // node, mesh, primitive
  std::vector<std::vector<double>> positions;
};

Pose parse_pose(const CommandResult& r) {
  Pose pose;
  const json doc = parse_json(r);
  if (doc.is_discarded()) return pose;
  for (const json& p : doc["primitives"]) {
    pose.keys.push_back({p["node"].get<uint32_t>(), p["mesh"].get<uint32_t>(), p["primitive"].get<uint32_t>()});
    pose.positions.push_back(p["positions"].get<std::vector<double>>());
  }
  return pose;
}

// Largest distance between corresponding vertices; fails the test when the layouts differ.
double max_distance(const Pose& a, const Pose& b) {
  EXPECT_EQ(a.keys, b.keys);
  if (a.keys != b.keys) return INFINITY;
  double worst = 0.0;
  for (size_t p = 0; p < a.positions.size(); ++p) {
    EXPECT_EQ(a.positions[p].size(), b.positions[p].size());
    if (a.positions[p].size() != b.positions[p].size()) return INFINITY;
    for (size_t v = 0; v + 2 < a.positions[p].size(); v += 3) {
      const double dx = a.positions[p][v] - b.positions[p][v];
      const double dy = a.positions[p][v + 1] - b.positions[p][v + 1];
      const double dz = a.positions[p][v + 2] - b.positions[p][v + 2];
      worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
  }
  return worst;
}

// Largest |coordinate| of the scene's bounds, in file units.
double extent_of(const json& summary) {
  double e = 0.0;
  for (const char* end : {"min", "max"}) {
    for (const json& x : summary["bounds"][end]) e = std::max(e, std::fabs(x.get<double>()));
  }
  return e;
}

// The worst position error on the rows that docs/encodings.md allows, as a multiple of the scene
// extent E (deltas, translations and bind-space distances are all within about 2E):
//  f32: float rounding, a few ulps of |p| (delta) and of the skinning sums (rig): 1e-5 E.
//  f16: delta 2^-11 |d| per component, |d| <= 2E: sqrt(3) 2^-10 E = 1.7e-3 E; rig 4 * 2^-12 |b|
//       for the rotation + 2^-11 |t| + 2^-11 |s||b|: (2^-9 + 2^-11 + 2^-10) E = 3.4e-3 E.
//  q16: delta (hi - lo) / 131070 per axis: sqrt(3) 2E / 131070 = 2.6e-5 E; rig 4 / 65535 |b| +
//       sqrt(3) (hi - lo) / 131070 + scale: 1.2e-4 E + 2.6e-5 E + 1.5e-5 E = 1.7e-4 E.
double on_row_bound(const std::string& precision, const std::string& encoding, double extent) {
  if (precision == "f32") return 1e-5 * extent;
  if (precision == "f16") return (encoding == "rig" ? 3.4e-3 : 1.7e-3) * extent;
  return (encoding == "rig" ? 1.7e-4 : 2.6e-5) * extent;
}

std::string time_text(double t) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.9g", t);
  return text;
}

// ---- help ----------------------------------------------------------------------------------

TEST(CliBake, HelpDocumentsEveryOption) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> options = {
      {"bake",
       {"FILE",
        "-o,--output",
        "--encoding",
        "auto|rig|delta",
        "--fps",
        "--max-error",
        "--precision",
        "f32|f16|q16",
        "--clips",
        "--clip-defaults",
        "--no-normals",
        "--no-tangents",
        "--max-texture-size",
        "--threads",
        "--auto-budget",
        "--max-search-fps",
        "--rig-tolerance",
        "--no-measure",
        "--json",
        "sample.vat.glb"}},
      {"verify",
       {"FILE", "VAT", "--tolerance", "--between-samples", "--precision", "--max-error", "--json", "Exit status",
        "3 a clip over it"}},
      {"info", {".vat.glb", "--json"}},
      {"pose", {".vat.glb", "-c,--clip", "-t,--time"}},
  };
  expect_help_documents({"bake", "verify", "info", "pose"}, options);
}

// ---- bake and info -------------------------------------------------------------------------

TEST(CliBake, SampleBakesToSampleVatGlbInTheCurrentDirectory) {
  const fs::path dir = test::scratch_dir("cli_bake_default");
  const CommandResult r = test::run_command("cd " + quoted(dir) + " && " + shell_quote(VATKIT_CLI) + " bake");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "no progress bar when stderr is not a terminal: " << r.err;
  const fs::path file = dir / "sample.vat.glb";
  ASSERT_TRUE(fs::exists(file));
  EXPECT_EQ(entries_in(dir), 1u) << "a temporary file was left behind";
  // The table: clips with their rows and errors, planes, totals, time, the encoding and why.
  for (const char* text :
       {"sample.vat.glb", "encoding    rig, f32 (rig error", "\"idle\"", "\"walk\"", "\"run\"", "on rows max",
        "between max", "p99", "rows/frame", "slots", "in planes; file ", "bake time"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << "missing " << text << " in\n" << r.out;
  }
  const std::string size = std::to_string(fs::file_size(file)) + " B";
  EXPECT_NE(r.out.find("file " + size), std::string::npos) << r.out;

  // info on the file: the same table, errors included (the file keeps them), but not the bake
  // time (the file is the same bytes whatever the machine).
  const CommandResult info = vatkit_cli("info " + quoted(file));
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const char* text : {"encoding    rig, f32", "clips       3, 143 frame rows", "\"walk\"", "on rows max",
                           "between max", "rows/frame", "bake time   not stored"}) {
    EXPECT_NE(info.out.find(text), std::string::npos) << "missing " << text << " in\n" << info.out;
  }
  EXPECT_EQ(info.out.find("not measured"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("file " + size), std::string::npos) << info.out;
  // Each clip row of the table reads the same in both (rows, first row, fps, duration, playback,
  // max delta, and the errors on the rows and between them).
  for (const char* clip : {"\"idle\"", "\"walk\"", "\"run\""}) {
    const size_t b = r.out.find(clip), i = info.out.find(clip);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(i, std::string::npos);
    const size_t b_end = r.out.find('\n', b), i_end = info.out.find('\n', i);
    EXPECT_EQ(r.out.substr(b, b_end - b), info.out.substr(i, i_end - i));
  }

  // A file's stem names the default output. (--no-measure with --encoding auto still measures
  // what auto needs to choose.)
  const CommandResult fox = test::run_command("cd " + quoted(dir) + " && " + shell_quote(VATKIT_CLI) + " bake " +
                                              asset("khronos/Fox.glb") + " --clips Walk --encoding rig --no-measure");
  ASSERT_EQ(fox.exit_code, 0) << fox.err;
  EXPECT_TRUE(fs::exists(dir / "Fox.vat.glb"));
  EXPECT_EQ(fox.out.find("on rows max"), std::string::npos) << "--no-measure still measured:\n" << fox.out;
  const CommandResult fox_info = vatkit_cli("info " + quoted(dir / "Fox.vat.glb"));
  ASSERT_EQ(fox_info.exit_code, 0) << fox_info.err;
  EXPECT_NE(fox_info.out.find("error       not measured"), std::string::npos) << fox_info.out;
}

TEST(CliBake, ProgressBarOnlyOnATerminal) {
  if (test::run_command("command -v script").exit_code != 0) {
    GTEST_SKIP() << "script (util-linux) is not installed: cannot give the command a terminal";
  }
  const fs::path dir = test::scratch_dir("cli_bake_progress");
  // script gives the command a pseudo-terminal and copies what it writes there: stderr only,
  // stdout goes to a file.
  const std::string command = shell_quote(VATKIT_CLI) + " bake --encoding delta -o " + quoted(dir / "x.vat.glb") +
                              " >" + quoted(dir / "table.txt");
  const CommandResult r = test::run_command("script -qec " + shell_quote(command) + " /dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* text : {"\rbake     [", "100%", "\rmeasure  ["}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << "missing " << text << " in " << r.out;
  }
  EXPECT_EQ(r.out.back(), '\r') << "the bar is erased at the end";
  const std::vector<uint8_t> table = test::read_file(dir / "table.txt");
  EXPECT_EQ(std::string(table.begin(), table.end()).find('\r'), std::string::npos) << "no bar on stdout";
}

struct BakeCase {
  std::string name;    // for traces
  std::string source;  // quoted path, or "" for the sample
};

const std::vector<BakeCase>& bake_cases() {
  static const std::vector<BakeCase> cases = {
      {"sample", ""},
      {"Fox", asset("khronos/Fox.glb")},
      {"CesiumMan", asset("khronos/CesiumMan.glb")},
  };
  return cases;
}

// For each asset, encoding and precision: bake --json, info --json on the file, and pose on the
// source and on the file at the first, a middle and the last row of every clip and between two
// rows.
TEST(CliBake, EveryEncodingAndPrecisionRoundTripsThroughInfoAndPose) {
  const fs::path dir = test::scratch_dir("cli_bake_matrix");
  for (const BakeCase& c : bake_cases()) {
    for (const std::string encoding : {"rig", "delta"}) {
      for (const std::string precision : {"f32", "f16", "q16"}) {
        SCOPED_TRACE(c.name + " " + encoding + " " + precision);
        const fs::path file = dir / (c.name + "_" + encoding + "_" + precision + ".vat.glb");
        const CommandResult baked = vatkit_cli("bake " + c.source + " --json --encoding " + encoding + " --precision " +
                                               precision + " -o " + quoted(file));
        ASSERT_EQ(baked.exit_code, 0) << baked.err;
        const json bake = parse_json(baked);
        ASSERT_TRUE(bake.is_object());
        EXPECT_EQ(bake["encoding"], encoding);
        EXPECT_EQ(bake["precision"], precision);
        EXPECT_EQ(bake["encoding_reason"], "requested");
        EXPECT_TRUE(bake["baked"].get<bool>());
        EXPECT_EQ(bake["file_bytes"].get<uint64_t>(), fs::file_size(file));

        const CommandResult described = vatkit_cli("info --json " + quoted(file));
        ASSERT_EQ(described.exit_code, 0) << described.err;
        const json info = parse_json(described);
        ASSERT_TRUE(info.is_object());
        for (const char* key :
             {"encoding", "precision", "vertices", "triangles", "draw_groups", "source_primitives", "slots",
              "influences", "frame_rows", "bounds", "planes", "plane_bytes", "file_bytes", "materials", "images"}) {
          EXPECT_EQ(info[key], bake[key]) << key;
        }
        EXPECT_FALSE(info["baked"].get<bool>());
        ASSERT_EQ(info["clips"].size(), bake["clips"].size());
        const double extent = extent_of(info);
        const double bound = on_row_bound(precision, encoding, extent);
        for (size_t k = 0; k < info["clips"].size(); ++k) {
          const json& ic = info["clips"][k];
          const json& bc = bake["clips"][k];
          for (const char* key : {"name", "source_animation", "first_row", "rows", "fps", "duration_s", "defaults",
                                  "max_delta", "bounds"}) {
            EXPECT_EQ(ic[key], bc[key]) << "clip " << k << " " << key;
          }
          // The file keeps the bake's measurement, to the bit (JSON numbers that read back as
          // the same floats).
          ASSERT_TRUE(bc["measured"].get<bool>());
          EXPECT_TRUE(ic["measured"].get<bool>());
          EXPECT_EQ(ic["error"], bc["error"]) << "clip " << k;
          // The bake's own measurement on the rows is within the documented bound too.
          EXPECT_LE(bc["error"]["on_rows_max_mm"].get<double>(), bound * 1000.0) << "clip " << k;
        }
        if (encoding == "delta" && precision != "q16") {
          const bool has_normal = std::any_of(info["planes"].begin(), info["planes"].end(),
                                              [](const json& p) { return p["semantic"] == "normal"; });
          EXPECT_TRUE(has_normal);
        }

        // pose: the file against its source. Only f32 checks every clip (the poses cost a
        // process each); the others check the first and the last.
        const size_t clips = info["clips"].size();
        for (size_t k = 0; k < clips; ++k) {
          if (precision != "f32" && k != 0 && k + 1 != clips) continue;
          const json& clip = info["clips"][k];
          const uint32_t rows = clip["rows"].get<uint32_t>();
          const double duration = clip["duration_s"].get<double>();
          const std::string selector = shell_quote("#" + std::to_string(k));
          // Row times k * D / (rows - 1) as floats, and one time between two rows.
          std::vector<std::pair<double, bool>> times;  // time, on a row
          for (uint32_t row : {0u, rows / 2, rows - 1}) {
            times.push_back({rows > 1 ? double(float(row * duration / (rows - 1))) : 0.0, true});
          }
          if (rows > 2) times.push_back({(rows / 3 + 0.5) * duration / (rows - 1), false});
          for (const auto& [t, on_row] : times) {
            SCOPED_TRACE("clip #" + std::to_string(k) + " t " + time_text(t));
            const std::string args = " --clip " + selector + " --time " + time_text(t);
            const CommandResult from_source = vatkit_cli("pose " + c.source + args);
            const CommandResult from_vat = vatkit_cli("pose " + quoted(file) + args);
            ASSERT_EQ(from_source.exit_code, 0) << from_source.err;
            ASSERT_EQ(from_vat.exit_code, 0) << from_vat.err;
            EXPECT_EQ(json::parse(from_source.out)["clip"], json::parse(from_vat.out)["clip"]);
            const double distance = max_distance(parse_pose(from_source), parse_pose(from_vat));
            if (on_row) {
              EXPECT_LE(distance, bound) << "extent " << extent;
            } else {
              // Between rows: within what the bake measured there (the same decode), plus the
              // precision's own error.
              const double measured = bake["clips"][k]["error"]["between_rows_max_mm"].get<double>() / 1000.0;
              EXPECT_LE(distance, measured + bound) << "extent " << extent;
            }
          }
        }
      }
    }
  }
  // The rest pose: the rest geometry is the reference's rest pose, exactly.
  for (const BakeCase& c : bake_cases()) {
    const fs::path file = dir / (c.name + "_delta_f32.vat.glb");
    const CommandResult a = vatkit_cli("pose " + c.source);
    const CommandResult b = vatkit_cli("pose " + quoted(file));
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(a.out, b.out) << c.name;
  }
}

TEST(CliBake, OptionsReachTheFile) {
  const fs::path dir = test::scratch_dir("cli_bake_options");
  const fs::path file = dir / "fox.vat.glb";
  const CommandResult r =
      vatkit_cli("bake " + asset("khronos/Fox.glb") + " --encoding delta --no-normals --no-measure --fps 12" +
                 " --clips Run,Survey --clip-defaults Run=pingpong,repetitions=3,rewind,speed=1.5" +
                 " --clip-defaults '#0=pingpong' --max-texture-size 1000 --threads 1 -o " + quoted(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json info = parse_json(vatkit_cli("info --json " + quoted(file)));
  ASSERT_EQ(info["clips"].size(), 2u);
  EXPECT_EQ(info["clips"][0]["name"], "Run");
  EXPECT_EQ(info["clips"][1]["name"], "Survey");
  EXPECT_EQ(info["clips"][0]["defaults"],
            json({{"loop_mode", "pingpong"}, {"repetitions", 3}, {"end_mode", "rewind"}, {"speed", 1.5}}));
  // No count given: the mode's default count, three-vat's (one play for pingpong and once).
  EXPECT_EQ(info["clips"][1]["defaults"],
            json({{"loop_mode", "pingpong"}, {"repetitions", 1}, {"end_mode", "clamp"}, {"speed", 1.0}}));
  // 12 fps: round(D * 12) + 1 rows (Run 1.1583 s, Survey 3.4167 s).
  EXPECT_EQ(info["clips"][0]["rows"], 15);
  EXPECT_EQ(info["clips"][1]["rows"], 42);
  // No normal plane; Fox's 1728 vertices wrap onto 2 rows of 864 under a 1000 limit.
  for (const json& plane : info["planes"]) {
    EXPECT_NE(plane["semantic"], "normal");
    if (plane["semantic"] == "position") {
      EXPECT_EQ(plane["width"], 864);
      EXPECT_EQ(plane["rows_per_frame"], 2);
    }
  }
  // The thread count does not change the bytes.
  const fs::path two = dir / "fox2.vat.glb";
  ASSERT_EQ(vatkit_cli("bake " + asset("khronos/Fox.glb") +
                       " --encoding delta --no-normals --no-measure --fps 12 --clips Run,Survey" +
                       " --clip-defaults Run=pingpong,repetitions=3,rewind,speed=1.5" +
                       " --clip-defaults '#0=pingpong' --max-texture-size 1000 --threads 2 -o " + quoted(two))
                .exit_code,
            0);
  EXPECT_EQ(test::read_file(file), test::read_file(two));
}

TEST(CliBake, MaxErrorGivesEachClipItsOwnRate) {
  const fs::path dir = test::scratch_dir("cli_bake_max_error");
  const fs::path file = dir / "sample.vat.glb";
  const CommandResult r = vatkit_cli("bake --encoding delta --precision f16 --max-error 5 --json -o " + quoted(file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json bake = parse_json(r);
  ASSERT_EQ(bake["clips"].size(), 3u);
  std::vector<double> fps;
  for (const json& clip : bake["clips"]) {
    SCOPED_TRACE(clip["name"].get<std::string>());
    EXPECT_LE(clip["error"]["on_rows_max_mm"].get<double>(), 5.0);
    EXPECT_LE(clip["error"]["between_rows_max_mm"].get<double>(), 5.0);
    fps.push_back(clip["fps"].get<double>());
  }
  // idle moves slowly, run fast: their rates differ, and the slow clip needs fewer rows per second.
  EXPECT_LT(fps[0], fps[2]);
  // The table shows each clip's rate.
  const CommandResult text = vatkit_cli("info " + quoted(file));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (double f : fps) {
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.3f", f);
    EXPECT_NE(text.out.find(rate), std::string::npos) << rate << " in\n" << text.out;
  }
  // verify holds the bake to its promise by default (--tolerance = --max-error).
  const CommandResult verified = vatkit_cli("verify '' " + quoted(file) + " --max-error 5");
  EXPECT_EQ(verified.exit_code, 0) << verified.err << verified.out;
  // Each clip has its budget: no note points at --max-error.
  for (const json& note : bake["notes"])
    EXPECT_EQ(note.get<std::string>().find("--max-error"), std::string::npos) << note;
}

// At a fixed rate the summary names the clip that strays furthest between its rows, with its
// error, and points at --max-error; not when every clip is within the 1 mm budget.
TEST(CliBake, FixedRateNamesTheClipThatStraysFurthestBetweenRows) {
  const fs::path dir = test::scratch_dir("cli_bake_between_note");
  auto notes_about_max_error = [](const json& bake) {
    std::vector<std::string> found;
    for (const json& note : bake["notes"]) {
      if (note.get<std::string>().find("--max-error MM") != std::string::npos) found.push_back(note.get<std::string>());
    }
    return found;
  };
  const CommandResult r = vatkit_cli("bake --json -o " + quoted(dir / "a.vat.glb"));  // the sample at 30 fps
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json bake = parse_json(r);
  std::string worst;
  double worst_mm = -1.0, worst_fps = 0.0;
  for (const json& clip : bake["clips"]) {
    const double mm = clip["error"]["between_rows_max_mm"].get<double>();
    if (mm > worst_mm) worst_mm = mm, worst = clip["name"].get<std::string>(), worst_fps = clip["fps"].get<double>();
  }
  ASSERT_GT(worst_mm, 1.0) << "the sample's fastest clip strays more than 1 mm between rows at 30 fps";
  const std::vector<std::string> notes = notes_about_max_error(bake);
  ASSERT_EQ(notes.size(), 1u) << bake["notes"];
  char expected[256];
  std::snprintf(expected, sizeof(expected), "clip \"%s\" (%.3f fps) strays up to %.3g mm", worst.c_str(), worst_fps,
                worst_mm);
  EXPECT_NE(notes[0].find(expected), std::string::npos) << notes[0] << "\nexpected " << expected;
  // The table prints it under "notes".
  const CommandResult text = vatkit_cli("bake -o " + quoted(dir / "b.vat.glb"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("notes       " + notes[0]), std::string::npos) << text.out;

  // idle at 120 fps is within 1 mm between its rows: nothing to say.
  const CommandResult fine = vatkit_cli("bake --clips idle --fps 120 --json -o " + quoted(dir / "c.vat.glb"));
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  const json fine_bake = parse_json(fine);
  ASSERT_LT(fine_bake["clips"][0]["error"]["between_rows_max_mm"].get<double>(), 1.0);
  EXPECT_TRUE(notes_about_max_error(fine_bake).empty()) << fine_bake["notes"];
}

// ---- units -----------------------------------------------------------------------------------

// Fox is modelled in centimetres (155 units across). Taken as metres, its default bake's errors are
// 100x too large and `verify --tolerance 50` (the help's example) fails; with --units cm the
// figures are millimetres of the real fox, the file keeps the unit, and verify passes.
TEST(CliBake, UnitsMakeMillimetresRealAndImplausibleSizesAreNoted) {
  const fs::path dir = test::scratch_dir("cli_units");
  const std::string fox = asset("khronos/Fox.glb");
  const fs::path as_metres = dir / "fox_m.vat.glb";
  const fs::path as_cm = dir / "fox_cm.vat.glb";
  const json m = parse_json(vatkit_cli("bake " + fox + " --lods 1 --json -o " + quoted(as_metres)));
  const json cm = parse_json(vatkit_cli("bake " + fox + " --lods 1 --units cm --json -o " + quoted(as_cm)));
  ASSERT_EQ(m["clips"].size(), 3u);
  ASSERT_EQ(cm["clips"].size(), 3u);
  EXPECT_EQ(m["metres_per_unit"], 1.0);
  EXPECT_NEAR(cm["metres_per_unit"].get<double>(), 0.01, 1e-9);
  for (size_t c = 0; c < 3; ++c) {
    for (const char* key : {"on_rows_max_mm", "between_rows_max_mm"}) {
      const double metres = m["clips"][c]["error"][key].get<double>();
      EXPECT_NEAR(cm["clips"][c]["error"][key].get<double>(), metres / 100.0, metres * 1e-5) << key;
    }
  }
  auto noted = [](const json& j, const std::string& text) {
    for (const json& n : j["notes"])
      if (n.get<std::string>().find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(noted(m, "implausible for a character")) << m["notes"];
  EXPECT_TRUE(noted(m, "--units cm")) << m["notes"];
  EXPECT_FALSE(noted(cm, "implausible")) << cm["notes"];

  const CommandResult fails = vatkit_cli("verify " + fox + " " + quoted(as_metres) + " --tolerance 50");
  EXPECT_EQ(fails.exit_code, 3) << fails.out;
  const CommandResult passes = vatkit_cli("verify " + fox + " " + quoted(as_cm) + " --tolerance 50");
  EXPECT_EQ(passes.exit_code, 0) << passes.err << passes.out;
  const CommandResult info = vatkit_cli("info " + quoted(as_cm));
  EXPECT_NE(info.out.find("0.01 m per unit"), std::string::npos) << info.out;

  // A plausible size, no note; a unit the option does not know, refused by name.
  const json sample = parse_json(vatkit_cli("bake --lods 0 --no-measure --json -o " + quoted(dir / "s.vat.glb")));
  EXPECT_FALSE(noted(sample, "implausible")) << sample["notes"];
  expect_one_error_line(vatkit_cli("bake --units furlong -o " + quoted(dir / "x.vat.glb")), "--units", 2);
}

// ---- verify --------------------------------------------------------------------------------

TEST(CliBake, VerifyPassesAGenerousToleranceAndFailsAnImpossibleOne) {
  const fs::path dir = test::scratch_dir("cli_verify");
  const fs::path file = dir / "man.vat.glb";
  const std::string man = asset("khronos/CesiumMan.glb");
  ASSERT_EQ(vatkit_cli("bake " + man + " --encoding rig --precision q16 -o " + quoted(file)).exit_code, 0);

  // The loaded file, generous: exit 0, the table with errors, the verdict.
  const CommandResult pass = vatkit_cli("verify " + man + " " + quoted(file) + " --tolerance 100");
  ASSERT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_TRUE(pass.err.empty()) << pass.err;
  for (const char* text : {"on rows max", "between max", "every clip within the tolerance 100 mm"}) {
    EXPECT_NE(pass.out.find(text), std::string::npos) << "missing " << text << " in\n" << pass.out;
  }
  // Impossible for q16: exit 3, one line naming the clip and by how much.
  const CommandResult fail = vatkit_cli("verify " + man + " " + quoted(file) + " --tolerance 1e-9");
  expect_one_error_line(fail, "man.vat.glb: clip \"#0\": max error ", 3, true);
  EXPECT_NE(fail.err.find("exceeds the tolerance 1e-09 mm by "), std::string::npos) << fail.err;
  EXPECT_NE(fail.err.find("(1 of 1 clips over)"), std::string::npos) << fail.err;
  EXPECT_FALSE(fail.out.empty()) << "the report still goes to stdout";

  // Baking instead of loading: the same numbers as the loaded file (same bake, same measure).
  const json loaded = parse_json(vatkit_cli("verify " + man + " " + quoted(file) + " --json"));
  const json baked = parse_json(vatkit_cli("verify " + man + " --encoding rig --precision q16 --json"));
  ASSERT_EQ(loaded["clips"].size(), 1u);
  ASSERT_EQ(baked["clips"].size(), 1u);
  EXPECT_EQ(loaded["clips"][0]["error"], baked["clips"][0]["error"]);
  EXPECT_TRUE(loaded["tolerance_mm"].is_null());
  EXPECT_EQ(loaded["clips_over_tolerance"], 0);
  const double between = loaded["clips"][0]["error"]["between_rows_max_mm"].get<double>();
  EXPECT_GT(between, loaded["clips"][0]["error"]["on_rows_max_mm"].get<double>());
  // Just under / just over the measured worst.
  EXPECT_EQ(vatkit_cli("verify " + man + " " + quoted(file) + " --tolerance " + time_text(between * 0.999)).exit_code,
            3);
  EXPECT_EQ(vatkit_cli("verify " + man + " " + quoted(file) + " --tolerance " + time_text(between * 1.001)).exit_code,
            0);
  // Nothing was written next to the file.
  EXPECT_EQ(entries_in(dir), 1u);
}

// A clip baked to one row holds its first pose: the bake says so (naming the clip, its duration
// and its rows), and verify measures it up to the clip's end, where the walk has moved on.
TEST(CliBake, AOneRowClipIsNotedAndVerifiedToItsEnd) {
  const fs::path dir = test::scratch_dir("cli_one_row");
  const fs::path file = dir / "walk.vat.glb";
  const CommandResult baked = vatkit_cli("bake --clips walk --encoding delta --fps 1e-6 --json -o " + quoted(file));
  ASSERT_EQ(baked.exit_code, 0) << baked.err;
  const json summary = parse_json(baked);
  ASSERT_EQ(summary["clips"].size(), 1u);
  EXPECT_EQ(summary["clips"][0]["rows"], 1);
  const std::string note = "clip \"walk\" (";
  bool noted = false;
  for (const json& n : summary["notes"]) {
    const std::string text = n.get<std::string>();
    noted |= text.rfind(note, 0) == 0 &&
             text.find(" s) has 1 frame row at 1e-06 fps: it holds its first pose") != std::string::npos;
  }
  EXPECT_TRUE(noted) << summary["notes"].dump();
  // The sample's walk moves its vertices by centimetres at least: the error is not 0 any more.
  const json verified = parse_json(vatkit_cli("verify '' " + quoted(file) + " --json"));
  ASSERT_EQ(verified["clips"].size(), 1u);
  EXPECT_GT(verified["clips"][0]["error"]["between_rows_max_mm"].get<double>(), 10.0) << verified.dump();
  EXPECT_EQ(vatkit_cli("verify '' " + quoted(file) + " --tolerance 10").exit_code, 3);
}

// ---- the validator -------------------------------------------------------------------------

TEST(CliBake, BakedFilesPassTheKhronosValidator) {
  if (test::run_command("command -v node").exit_code != 0) {
    GTEST_SKIP() << "node is not installed: cannot run the Khronos validator";
  }
  const fs::path dir = test::scratch_dir("cli_bake_validator");
  const std::vector<std::pair<std::string, std::string>> bakes = {
      {"", "--encoding rig --precision q16"},
      {asset("khronos/Fox.glb"), "--encoding delta --precision f16"},
      {asset("khronos/CesiumMan.glb"), "--encoding delta --precision q16"},
      {asset("khronos/CesiumMan.glb"), "--encoding rig --precision f32"},
  };
  for (const auto& [source, options] : bakes) {
    SCOPED_TRACE(source + " " + options);
    const fs::path file = dir / "out.vat.glb";
    ASSERT_EQ(vatkit_cli("bake " + source + " " + options + " --no-measure -o " + quoted(file)).exit_code, 0);
    const CommandResult r = test::run_command("node " + shell_quote(VATKIT_VALIDATOR) + " " + quoted(file));
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    const json report = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(report.is_object()) << r.out;
    EXPECT_EQ(report["issues"]["numErrors"], 0) << r.out;
  }
}

// ---- errors --------------------------------------------------------------------------------

TEST(CliBake, BadInputGivesOneErrorLineAndNoOutputFile) {
  const fs::path dir = test::scratch_dir("cli_bake_errors");
  const fs::path out = dir / "out.vat.glb";
  const std::string o = " -o " + quoted(out);

  // Inputs.
  const fs::path missing = dir / "missing.glb";
  expect_one_error_line(vatkit_cli("bake " + quoted(missing) + o), "missing.glb: ");
  expect_one_error_line(vatkit_cli("verify " + quoted(missing)), "missing.glb: ");
  expect_one_error_line(vatkit_cli("verify '' " + quoted(missing)), "missing.glb: ");

  const fs::path garbage = dir / "garbage.glb";
  {
    std::string noise(4096, '\0');
    for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((i * 7919u + 13u) % 251u);
    std::ofstream(garbage, std::ios::binary) << noise;
  }
  expect_one_error_line(vatkit_cli("bake " + quoted(garbage) + o), "garbage.glb: ");
  expect_one_error_line(vatkit_cli("verify '' " + quoted(garbage)), "garbage.glb: ");

  // A .vat.glb cut short (in its BIN chunk) and one with a flipped byte.
  const fs::path good = dir / "good.vat.glb";
  ASSERT_EQ(vatkit_cli("bake --clips walk --no-measure -o " + quoted(good)).exit_code, 0);
  const std::vector<uint8_t> bytes = test::read_file(good);
  const fs::path truncated = dir / "truncated.vat.glb";
  std::ofstream(truncated, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() - 100));
  const fs::path corrupt = dir / "corrupt.vat.glb";
  {
    std::vector<uint8_t> flipped = bytes;
    flipped[flipped.size() - 64] ^= 0x10;
    std::ofstream(corrupt, std::ios::binary)
        .write(reinterpret_cast<const char*>(flipped.data()), static_cast<std::streamsize>(flipped.size()));
  }
  fs::remove(good);
  for (const fs::path& bad : {truncated, corrupt}) {
    const std::string name = bad.filename().string() + ": ";
    expect_one_error_line(vatkit_cli("info " + quoted(bad)), name);
    expect_one_error_line(vatkit_cli("pose " + quoted(bad) + " --clip walk -o " + quoted(dir / "p.json")), name);
    expect_one_error_line(vatkit_cli("verify '' " + quoted(bad)), name);
    EXPECT_TRUE(vatkit_cli("info " + quoted(bad)).out.empty());
  }
  // A .vat.glb is not a source.
  const fs::path vat = dir / "walk.vat.glb";
  ASSERT_EQ(vatkit_cli("bake --clips walk --no-measure -o " + quoted(vat)).exit_code, 0);
  expect_one_error_line(vatkit_cli("bake " + quoted(vat) + o), "walk.vat.glb: is a .vat.glb");
  expect_one_error_line(vatkit_cli("verify " + quoted(vat)), "give the source first");
  // A VAT measured against another source.
  expect_one_error_line(vatkit_cli("verify " + asset("khronos/Fox.glb") + " " + quoted(vat)), "walk.vat.glb: ");
  // Clips.
  expect_one_error_line(vatkit_cli("bake --clips jog" + o), "no clip named \"jog\" (clips: idle, walk, run)");
  expect_one_error_line(vatkit_cli("bake --clips walk,walk" + o), "selected twice");
  expect_one_error_line(vatkit_cli("bake --clip-defaults jog=once" + o), "--clip-defaults: no clip named \"jog\"");
  expect_one_error_line(vatkit_cli("pose " + quoted(vat) + " --clip run"),
                        "walk.vat.glb: no clip named \"run\" (clips: walk)");
  expect_one_error_line(vatkit_cli("pose " + quoted(vat) + " --clip '#1'"), "walk.vat.glb: no clip #1");
  expect_one_error_line(vatkit_cli("pose " + quoted(vat) + " --clip walk --time inf"), "--time");
  expect_one_error_line(vatkit_cli("bake " + asset("khronos/SimpleMorph.gltf") + " --encoding rig" + o),
                        "SimpleMorph.gltf: ");
  // Option values.
  expect_one_error_line(vatkit_cli("bake --fps -1" + o), "--fps -1: must be a positive number");
  expect_one_error_line(vatkit_cli("bake --fps 0" + o), "--fps 0: must be a positive number");
  expect_one_error_line(vatkit_cli("bake --fps 1e9" + o),
                        "--fps 1e+09: must be a positive number of frames per second, from 1e-06 to 1e+06");
  // Every number is checked against its range, and the error says the range.
  expect_one_error_line(vatkit_cli("bake --fps 1e-300" + o),
                        "--fps 1e-300: must be a positive number of frames per second, from 1e-06 to 1e+06");
  expect_one_error_line(vatkit_cli("bake --max-error 1 --max-search-fps 2e6" + o),
                        "--max-search-fps 2e+06: must be a positive number of frames per second, from 1e-06 to 1e+06");
  expect_one_error_line(vatkit_cli("bake --max-texture-size 99999999999" + o),
                        "--max-texture-size 99999999999: must be from 1 to 65536");
  expect_one_error_line(vatkit_cli("bake --max-texture-size 65537" + o),
                        "--max-texture-size 65537: must be from 1 to 65536");
  expect_one_error_line(vatkit_cli("bake --max-texture-size -1" + o), "--max-texture-size -1: must be from 1 to 65536");
  expect_one_error_line(vatkit_cli("bake --lods 4294967297" + o), "--lods 4294967297: must be from 0 to 16");
  expect_one_error_line(vatkit_cli("bake --lods -1" + o), "--lods -1: must be from 0 to 16");
  // vatkit writes binary glTF: a .gltf output name is refused before anything is baked.
  expect_one_error_line(vatkit_cli("bake --no-measure -o " + quoted(dir / "x.gltf")),
                        "x.gltf: vatkit writes binary glTF");
  expect_one_error_line(vatkit_cli("sample -o " + quoted(dir / "x.GLTF")), "x.GLTF: vatkit writes binary glTF");
  EXPECT_FALSE(fs::exists(dir / "x.gltf"));
  // verify with a VAT measures it as it is: a bake option would be ignored, so it is refused.
  expect_one_error_line(vatkit_cli("verify '' " + quoted(vat) + " --fps 10"), "--fps is a bake option, but");
  expect_one_error_line(vatkit_cli("bake --fps nan" + o), "--fps nan");
  expect_one_error_line(vatkit_cli("bake --fps 0 --max-error 1" + o), "--fps", 2);
  expect_one_error_line(vatkit_cli("bake --max-error -2" + o), "--max-error -2");
  expect_one_error_line(vatkit_cli("bake --max-error 1e-9 --precision q16 --clips run" + o), "<sample>: ");
  expect_one_error_line(vatkit_cli("bake --precision f64" + o), "f64", 2);
  expect_one_error_line(vatkit_cli("bake --encoding skin" + o), "skin", 2);
  expect_one_error_line(vatkit_cli("bake --max-texture-size 0" + o), "--max-texture-size 0: must be from 1 to 65536");
  expect_one_error_line(vatkit_cli("bake --threads many" + o), "--threads", 2);
  expect_one_error_line(vatkit_cli("bake --clip-defaults walk" + o), "expected NAME=SPEC");
  expect_one_error_line(vatkit_cli("bake --clip-defaults walk=sideways" + o), "unknown \"sideways\"");
  expect_one_error_line(vatkit_cli("bake --clip-defaults walk=speed=-1" + o), "speed \"-1\"");
  expect_one_error_line(vatkit_cli("bake --clip-defaults walk=repetitions=0" + o), "repetitions \"0\"");
  expect_one_error_line(vatkit_cli("verify --tolerance -1"), "--tolerance -1");
  expect_one_error_line(vatkit_cli("bake --frobnicate" + o), "--frobnicate", 2);
  // An output directory that does not exist: the error names the output.
  expect_one_error_line(vatkit_cli("bake --no-measure -o " + quoted(dir / "no_such_dir" / "x.vat.glb")), "no_such_dir");
  // A texture limit nothing fits in: says what would fit, writes nothing.
  const CommandResult small = vatkit_cli("bake --encoding delta --max-texture-size 64" + o);
  expect_one_error_line(small, "over the texture size limit 64");

  EXPECT_FALSE(fs::exists(out)) << "a failed command wrote its output";
  EXPECT_FALSE(fs::exists(dir / "p.json"));
  EXPECT_EQ(entries_in(dir), 4u) << "only garbage.glb, truncated/corrupt.vat.glb and walk.vat.glb belong here";
}

}  // namespace
}  // namespace vatkit
