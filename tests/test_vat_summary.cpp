// vatkit/summary.h for a Vat: summarize() against the Vat it describes (counts, clip table,
// planes and their bytes, errors only where measured), the JSON against the struct, the text's
// table, and find_clip / clip_label over a Vat's clips (which are not the source's when --clips
// picked some).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "vatkit/bake.h"
#include "vatkit/decode.h"
#include "vatkit/sample_character.h"
#include "summary.h"

namespace vatkit {
namespace {

using nlohmann::json;

Vat bake_sample(const BakeOptions& options, BakeReport* report = nullptr) {
  Result<Asset> sample = load_sample_character();
  EXPECT_TRUE(sample.ok());
  Result<Vat> vat = bake(*sample, options, report);
  EXPECT_TRUE(vat.ok()) << vat.error().message;
  return std::move(vat).value();
}

TEST(VatSummary, DescribesTheVatAndItsReport) {
  BakeOptions options;
  options.encoding = EncodingChoice::Delta;
  options.precision = Precision::Q16;
  options.fps = 20.0f;
  options.clips = {"run", "idle"};
  options.clip_defaults = {{"idle", ClipDefaults{LoopMode::PingPong, 2, EndMode::Rewind, 0.5f}}};
  BakeReport report;
  const Vat vat = bake_sample(options, &report);
  const VatSummary s = summarize(vat, report);

  EXPECT_EQ(s.encoding, Encoding::Delta);
  EXPECT_EQ(s.precision, Precision::Q16);
  EXPECT_EQ(s.vertices, vat.geometry.vertex_count());
  EXPECT_EQ(s.triangles * 3, vat.geometry.indices.size());
  EXPECT_EQ(s.draw_groups, vat.geometry.groups.size());
  EXPECT_EQ(s.source_primitives, vat.geometry.sources.size());
  EXPECT_EQ(s.slots, vat.slots.size());
  EXPECT_EQ(s.influences, 0u);  // a delta has no slot influences
  EXPECT_EQ(s.frame_rows, vat.frame_rows);
  EXPECT_TRUE(s.baked);
  EXPECT_EQ(s.encoding_reason, "requested");
  EXPECT_EQ(s.bake_seconds, report.seconds);
  // The default three levels of detail and the measurement are parts of the bake's time.
  EXPECT_EQ(s.lod_seconds, report.lod_seconds);
  EXPECT_GT(report.lod_seconds, 0.0);
  EXPECT_GT(report.measure_seconds, 0.0);
  EXPECT_LE(report.lod_seconds + report.measure_seconds, report.seconds);

  // Clips in the VAT's order, rows round(D * 20) + 1: run 0.667 s -> 14, idle 3 s -> 61.
  ASSERT_EQ(s.clips.size(), 2u);
  EXPECT_EQ(s.clips[0].name, "run");
  EXPECT_EQ(s.clips[0].rows, 14u);
  EXPECT_EQ(s.clips[1].name, "idle");
  EXPECT_EQ(s.clips[1].rows, 61u);
  EXPECT_EQ(s.clips[1].first_row, 14u);
  EXPECT_EQ(s.clips[1].defaults.loop_mode, LoopMode::PingPong);
  EXPECT_EQ(s.clips[1].defaults.repetitions, 2);
  for (size_t c = 0; c < 2; ++c) {
    EXPECT_TRUE(s.clips[c].measured);
    EXPECT_EQ(s.clips[c].error.on_rows_max_mm, report.clips[c].on_rows_max_mm);
    EXPECT_EQ(s.clips[c].max_delta, vat.clips[c].max_delta);
  }

  // Planes: a q16 delta has Position (normal in w) and the socket Slots, no Normal plane.
  uint64_t bytes = 0;
  for (const VatPlaneSummary& p : s.planes) {
    EXPECT_NE(p.semantic, PlaneSemantic::Normal);
    EXPECT_EQ(p.format, TexelFormat::RGBA16Unorm);
    EXPECT_EQ(p.bytes, uint64_t(p.width) * p.height * 8);
    bytes += p.bytes;
  }
  EXPECT_EQ(s.planes.size(), vat.planes.size());
  EXPECT_EQ(s.plane_bytes, bytes);
  EXPECT_EQ(s.file_bytes, 0u);  // left to the caller

  // JSON carries the struct.
  const json j = json::parse(summary_json(s));
  EXPECT_EQ(j["encoding"], "delta");
  EXPECT_EQ(j["precision"], "q16");
  EXPECT_EQ(j["vertices"], s.vertices);
  EXPECT_EQ(j["plane_bytes"], s.plane_bytes);
  ASSERT_EQ(j["clips"].size(), 2u);
  EXPECT_EQ(j["clips"][1]["defaults"],
            json({{"loop_mode", "pingpong"}, {"repetitions", 2}, {"end_mode", "rewind"}, {"speed", 0.5}}));
  EXPECT_EQ(j["clips"][0]["error"]["on_rows_max_mm"].get<float>(), report.clips[0].on_rows_max_mm);
  EXPECT_EQ(j["clips"][0]["fps"].get<float>(), vat.clips[0].fps);
  EXPECT_EQ(j["planes"][0]["semantic"], "position");
  EXPECT_EQ(j["planes"][0]["format"], "rgba16unorm");
  EXPECT_EQ(j["lod_seconds"].get<double>(), report.lod_seconds);

  // Text: the table's columns and rows.
  const std::string text = summary_text(s);
  for (const std::string& part :
       {std::string("delta, q16 (requested)"), std::string("on rows max"), std::string("between max"),
        std::string("\"run\""), std::string("pingpong x2 rewind speed 0.500"), std::string("rgba16unorm"),
        std::string("bake time"), std::string("levels of detail ")}) {
    EXPECT_NE(text.find(part), std::string::npos) << "missing " << part << " in\n" << text;
  }
}

// The bake time names only the parts the bake had: no "measuring" line after --no-measure, no
// levels of detail after --lods 0.
TEST(VatSummary, BakeTimeNamesOnlyThePartsTheBakeHad) {
  BakeOptions options;
  options.encoding = EncodingChoice::Rig;
  options.measure = false;
  options.lods = 0;
  BakeReport report;
  const Vat bare = bake_sample(options, &report);
  const std::string bare_text = summary_text(summarize(bare, report));
  const size_t at = bare_text.find("bake time");
  ASSERT_NE(at, std::string::npos) << bare_text;
  const std::string bare_line = bare_text.substr(at, bare_text.find('\n', at) - at);
  EXPECT_EQ(bare_line.find("measuring"), std::string::npos) << bare_line;
  EXPECT_EQ(bare_line.find("levels of detail"), std::string::npos) << bare_line;
  options.measure = true;
  options.lods = 1;
  const Vat full = bake_sample(options, &report);
  const std::string full_text = summary_text(summarize(full, report));
  EXPECT_NE(full_text.find("s (levels of detail "), std::string::npos) << full_text;
  EXPECT_NE(full_text.find(" s, measuring against the reference "), std::string::npos) << full_text;
}

TEST(VatSummary, WithoutErrorsSaysTheyWereNotMeasured) {
  BakeOptions options;
  options.encoding = EncodingChoice::Rig;
  options.measure = false;
  const Vat vat = bake_sample(options);
  const VatSummary s = summarize(vat);
  EXPECT_FALSE(s.baked);
  EXPECT_EQ(s.influences, 4u);
  for (const VatClipSummary& c : s.clips) EXPECT_FALSE(c.measured);
  const std::string text = summary_text(s);
  EXPECT_EQ(text.find("on rows max"), std::string::npos) << text;
  EXPECT_NE(text.find("not measured"), std::string::npos) << text;
  EXPECT_EQ(text.find("bake time"), std::string::npos) << text;
  const json j = json::parse(summary_json(s));
  for (const json& c : j["clips"]) EXPECT_TRUE(c["error"].is_null());
}

TEST(VatSummary, FindClipIndexesTheVatsClips) {
  BakeOptions options;
  options.clips = {"run", "walk"};
  options.measure = false;
  options.encoding = EncodingChoice::Rig;
  Vat vat = bake_sample(options);
  vat.source = "x.vat.glb";
  EXPECT_EQ(*find_clip(vat, "walk"), 1);
  EXPECT_EQ(*find_clip(vat, "#0"), 0);  // run: the VAT's first clip, the source's third
  EXPECT_EQ(clip_label(vat, 1), "walk");
  const Result<int> missing = find_clip(vat, "idle");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "x.vat.glb: no clip named \"idle\" (clips: run, walk)");
  const Result<int> past = find_clip(vat, "#2");
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().message, "x.vat.glb: no clip #2: the file has 2 clips (run, walk)");
  const Result<int> bad = find_clip(vat, "#x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "x.vat.glb: bad clip index \"#x\" (expected #N with N from 0 to 1)");
  vat.clips[0].name.clear();
  EXPECT_EQ(clip_label(vat, 0), "#0");
  EXPECT_EQ(*find_clip(vat, "#0"), 0);
}

TEST(VatSummary, ListsTheSlotsAndFindsThemByName) {
  BakeOptions options;
  options.measure = false;
  options.encoding = EncodingChoice::Rig;
  Vat vat = bake_sample(options);
  vat.source = "x.vat.glb";
  const VatSummary s = summarize(vat);
  ASSERT_EQ(s.slot_list.size(), vat.slots.size());
  ASSERT_GE(s.slot_list.size(), 2u);
  const std::string text = slots_text(s);
  for (const VatSlotSummary& slot : s.slot_list) {
    EXPECT_EQ(slot.name, vat.slots[slot.index].name);
    EXPECT_EQ(slot.node, vat.slots[slot.index].node);
    EXPECT_NE(text.find("\"" + slot.name + "\""), std::string::npos) << text;
    const Result<int> found = find_slot(vat, slot.name);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(vat.slots[size_t(*found)].name, slot.name);  // the first slot with that name
  }
  EXPECT_EQ(json::parse(summary_json(s))["slot_list"].size(), vat.slots.size());
  const Result<int> missing = find_slot(vat, "no such joint");
  ASSERT_FALSE(missing.ok());
  const std::string& message = missing.error().message;
  EXPECT_EQ(message.rfind("x.vat.glb: no joint is named \"no such joint\" (joints: " + vat.slots[0].name + ", ", 0), 0u)
      << message;
  vat.slots.clear();
  EXPECT_EQ(find_slot(vat, "hand").error().message, "x.vat.glb: has no joints, so no joint is named \"hand\"");
}

}  // namespace
}  // namespace vatkit
