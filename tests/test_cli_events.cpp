// Clip events from the source to the file and the tools (docs/events.md): an animation's extras
// read at import, the bake's --event and manifest options, --feet, `vatkit info` listing them,
// `vatkit frame` reporting those crossed; bad specifications are one error line and no file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "gltf_builder.h"
#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::CommandResult;
using test::shell_quote;
using test::vatkit_cli;

std::string quoted(const fs::path& path) { return shell_quote(path.string()); }

// A triangle whose node slides 1 unit along x in 2 s; `extras` on its animation.
test::GltfBuilder sliding_triangle(const json& extras) {
  test::GltfBuilder b;
  const int positions = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, test::kFloat, "VEC3");
  const int node = b.mesh_node({{"POSITION", positions}});
  b.doc["scenes"] = json::array({{{"nodes", {node}}}});
  const int times = b.data(std::vector<float>{0.0f, 2.0f}, test::kFloat, "SCALAR");
  const int values = b.data(std::vector<float>{0, 0, 0, 1, 0, 0}, test::kFloat, "VEC3");
  json animation = {{"name", "slide"},
                    {"samplers", {{{"input", times}, {"output", values}}}},
                    {"channels", {{{"sampler", 0}, {"target", {{"node", node}, {"path", "translation"}}}}}}};
  if (!extras.is_null()) animation["extras"] = extras;
  b.push("animations", animation);
  return b;
}

TEST(ClipEventSources, AnimationExtrasAreReadAndBadEntriesWarned) {
  const json extras = json::parse(R"({
      "events": [{"name": "hit", "time": 1.5}, {"name": "", "time": 0.5}, {"name": "late", "time": 3},
                 {"name": "start", "time": 0}, "step"],
      "markers": [{"name": "mark", "time": 1.0}]})");
  Result<Asset> asset = sliding_triangle(extras).import_gltf();
  ASSERT_TRUE(asset.ok()) << asset.error().message;
  const std::vector<ClipEvent> expected = {{"start", 0.0f}, {"mark", 1.0f}, {"hit", 1.5f}};
  EXPECT_EQ(asset->animations[0].events, expected);
  size_t warned = 0;
  for (const std::string& w : asset->warnings) warned += w.find("animations[0].extras.events[") == 0;
  EXPECT_EQ(warned, 3u);  // the unnamed, the late and the bare string

  // The bake keeps them, adds the options' (sorted by time; equal times in the order added) and
  // the file stores them.
  BakeOptions options;
  options.lods = 0;
  options.measure = false;
  options.events = {{"slide", {"land", 2.0f}}, {"#0", {"mid", 1.0f}}};
  Result<Vat> vat = bake(*asset, options);
  ASSERT_TRUE(vat.ok()) << vat.error().message;
  const std::vector<ClipEvent> baked = {{"start", 0.0f}, {"mark", 1.0f}, {"mid", 1.0f}, {"hit", 1.5f}, {"land", 2.0f}};
  EXPECT_EQ(vat->clips[0].events, baked);
  Result<std::vector<uint8_t>> bytes = write_vat_glb(*vat);
  ASSERT_TRUE(bytes.ok());
  Result<Vat> loaded = load_vat_memory(*bytes, "slide.vat.glb");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->clips[0].events, baked);

  options.source_events = false;
  options.events = {{"slide", {"late", 2.5f}}};
  Result<Vat> late = bake(*asset, options);
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("event \"late\" of clip \"slide\": 2.5 is outside the clip's [0, 2] s"),
            std::string::npos)
      << late.error().message;
  options.events = {{"jog", {"step", 0.5f}}};
  Result<Vat> unknown = bake(*asset, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("no clip named \"jog\""), std::string::npos) << unknown.error().message;
}

// The events of clip `name` in `vatkit info --json`'s output.
json events_of(const CommandResult& info, const std::string& name) {
  const json doc = json::parse(info.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << info.out;
  if (doc.is_discarded()) return json();
  for (const json& c : doc["clips"])
    if (c["name"] == name) return c["events"];
  return json();
}

TEST(CliEvents, BakeStoresEventsAndFeetAndInfoListsThem) {
  const fs::path dir = test::scratch_dir("cli_events_bake");
  const fs::path out = dir / "s.vat.glb";
  const CommandResult r = vatkit_cli("bake -o " + quoted(out) +
                                     " --lods 0 --no-measure --event 'walk=step_l@0.1,step_r@0.4' "
                                     "--event 'idle=blink@1' --feet auto");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("feet (by name): left \"foot.L\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("events"), std::string::npos) << r.out;
  const CommandResult text = vatkit_cli("info " + quoted(out));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("idle: blink 1.00 s"), std::string::npos) << text.out;
  const CommandResult info = vatkit_cli("info --json " + quoted(out));
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const json walk = events_of(info, "walk");
  ASSERT_TRUE(walk.is_array()) << info.out;
  size_t steps = 0, downs = 0;
  for (const json& e : walk) {
    steps += e["name"] == "step_l" || e["name"] == "step_r";
    downs += e["name"] == "foot_l_down" || e["name"] == "foot_r_down";
  }
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(downs, 2u);  // one contact per foot in the walk cycle
  EXPECT_EQ(events_of(info, "idle"), json::parse(R"([{"name": "blink", "time_s": 1.0}])"));
}

TEST(CliEvents, AManifestGivesAnAssetItsEvents) {
  const fs::path dir = test::scratch_dir("cli_events_manifest");
  ASSERT_EQ(vatkit_cli("sample -o " + quoted(dir / "sample.glb")).exit_code, 0);
  std::ofstream(dir / "assets.json")
      << R"({"assets": [{"file": "sample.glb", "options": ["--event", "run=hit@0.2"]}]})";
  const CommandResult r = vatkit_cli("bake --manifest " + quoted(dir / "assets.json") + " --output-dir " +
                                     quoted(dir / "o") + " --lods 0 --no-measure");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CommandResult info = vatkit_cli("info --json " + quoted(dir / "o/sample.vat.glb"));
  EXPECT_EQ(events_of(info, "run"), json::parse(R"([{"name": "hit", "time_s": 0.2}])")) << info.out;
}

TEST(CliEvents, BadEventOptionsAreOneLineAndNoFile) {
  const fs::path dir = test::scratch_dir("cli_events_bad");
  const fs::path out = dir / "x.vat.glb";
  const std::pair<const char*, const char*> cases[] = {
      {"--event walk", "--event walk: expected CLIP=NAME@SECONDS"},
      {"--event walk=step", "\"step\" is not NAME@SECONDS"},
      {"--event walk=step@-1", "time \"-1\" is not a number of seconds >= 0"},
      {"--event walk=step@x", "time \"x\" is not a number of seconds >= 0"},
      {"--event jog=step@0.1", "no clip named \"jog\""},
      {"--event walk=step@99", "event \"step\" of clip \"walk\": 99 is outside the clip's"},
      {"--feet foot.L", "--feet foot.L: expected auto or LEFT,RIGHT"},
      {"--feet foot.L,nope", "--feet: no joint named \"nope\""},
  };
  for (const auto& [option, message] : cases) {
    SCOPED_TRACE(option);
    const CommandResult r = vatkit_cli("bake -o " + quoted(out) + " --lods 0 --no-measure " + option);
    test::expect_one_error_line(r, message);
    EXPECT_FALSE(fs::exists(out));
  }
}

TEST(CliEvents, HostileEventNamesAreEscapedInReports) {
  const fs::path dir = test::scratch_dir("cli_events_hostile");
  const fs::path out = dir / "h.vat.glb";
  const std::string name =
      "\x1b[2J\xe2\x80\xae"
      "boom";  // a terminal clear and a right-to-left override
  const CommandResult r =
      vatkit_cli("bake -o " + quoted(out) + " --lods 0 --no-measure --event " + shell_quote("walk=" + name + "@0.5"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* command : {"info ", "info --json "}) {
    const CommandResult info = vatkit_cli(command + quoted(out));
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(info.out.find('\x1b'), std::string::npos) << command;
    EXPECT_EQ(info.out.find("\xe2\x80\xae"), std::string::npos) << command;
    EXPECT_NE(info.out.find("boom"), std::string::npos) << command;
  }
  EXPECT_EQ(events_of(vatkit_cli("info --json " + quoted(out)), "walk")[0]["name"], name);
}

TEST(CliEvents, FrameReportsTheEventsCrossedSinceAPreviousTime) {
  const std::string line =
      R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 4, "events": [{"name": "step", "time": 0.25}]},)"
      R"( "startTime": 0, "speed": 2}, "since": 0.25, "time": 1.25})";
  const CommandResult r = test::run_command("echo " + shell_quote(line) + " | " + shell_quote(VATKIT_CLI) + " frame");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json answer = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << r.out;
  // Speed 2 on a 1 s band: the step (phase 0.25) fires at 0.125 + 0.5 k: 0.625 and 1.125 in (0.25, 1.25].
  EXPECT_EQ(answer["events"], json::parse(R"([{"name": "step", "time": 0.625, "band": "a", "weight": 1},
                                              {"name": "step", "time": 1.125, "band": "a", "weight": 1}])"));
  // Without "since" the answer is the same as before events existed.
  const std::string plain =
      R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 4}, "startTime": 0}, "time": 1})";
  const CommandResult p = test::run_command("echo " + shell_quote(plain) + " | " + shell_quote(VATKIT_CLI) + " frame");
  EXPECT_EQ(p.out.find("events"), std::string::npos) << p.out;
  // A bad event names its place.
  const std::string bad =
      R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 4, "events": [{"name": "s", "time": 2}]}, "startTime": 0}, "time": 1})";
  const CommandResult e = test::run_command("echo " + shell_quote(bad) + " | " + shell_quote(VATKIT_CLI) + " frame");
  test::expect_one_error_line(e, "line 1: instance.clip.events[0].time: 2 is outside the clip's [0, 1] s");
  // A span that crosses millions of events is refused before the work (2^24 cycles at most).
  const std::string huge =
      R"({"instance": {"clip": {"startFrame": 0, "frames": 5, "fps": 4000, "events": [{"name": "s", "time": 0}]},)"
      R"( "startTime": 0}, "since": -1, "time": 1e9})";
  const CommandResult h = test::run_command("echo " + shell_quote(huge) + " | " + shell_quote(VATKIT_CLI) + " frame");
  test::expect_one_error_line(h, "line 1: since: the bands may cross up to 16777218 events");
}

TEST(CliEvents, FrameReportsTheEventsOfPausedResumedAndTurnedBackInstances) {
  // A 1 s band at speed 1, its step at phase 0.25. Each write splits (since, time]: the step at
  // 0.25 s; paused at 0.5 s (nothing until the resume at 2 s, which starts it again 1.5 s later);
  // the step at c = 1.25 (2.75 s); turned back at 2.875 s (c = 1.375: start 2.25, rate -1), the
  // step again at c = 0.75 of the turned play (3 s); then a backwards band at speed -2 alone.
  const std::string clip =
      R"("clip": {"startFrame": 0, "frames": 5, "fps": 4, "events": [{"name": "step", "time": 0.25}]})";
  const std::string line =
      R"({"instance": {)" + clip + R"(, "startTime": 0}, "since": 0, "time": 3.5, "set": [)" +
      R"({"now": 0.5, "control": "pause"}, {"now": 2, "control": "resume"}, {"now": 2.875, "control": "turnBack"}]})";
  const std::string backwards =
      R"({"instance": {)" + clip + R"(, "startTime": 0, "speed": -2}, "since": 0, "time": 1})";
  const CommandResult r = test::run_command("printf '%s\\n%s\\n' " + shell_quote(line) + " " + shell_quote(backwards) +
                                            " | " + shell_quote(VATKIT_CLI) + " frame");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  const json a = json::parse(first, nullptr, false), b = json::parse(second, nullptr, false);
  ASSERT_FALSE(a.is_discarded() || b.is_discarded()) << r.out;
  EXPECT_EQ(a["events"], json::parse(R"([{"name": "step", "time": 0.25, "band": "a", "weight": 1},
                                         {"name": "step", "time": 2.75, "band": "a", "weight": 1},
                                         {"name": "step", "time": 3, "band": "a", "weight": 1}])"));
  // Speed -2: the phase 0.25 is reached at c = 0.75, 1.75 (0.375 s, 0.875 s).
  EXPECT_EQ(b["events"], json::parse(R"([{"name": "step", "time": 0.375, "band": "a", "weight": 1},
                                         {"name": "step", "time": 0.875, "band": "a", "weight": 1}])"));
}

TEST(CliEvents, HelpDocumentsTheOptions) {
  test::expect_help_documents({}, {{"bake", {"--event", "--feet", "--no-source-events"}}, {"frame", {"since"}}});
}

}  // namespace
}  // namespace vatkit
