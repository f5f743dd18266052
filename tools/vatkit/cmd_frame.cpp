// vatkit frame [--check | --annotate] [-o OUT.jsonl]: playback queries on standard input, one JSON
// Frame per line on standard output (vatkit/playback_json.h; docs/playback.md). The conformance
// tool for engines that port resolve to their own shaders.
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "vatkit/playback_json.h"

namespace vatkit::cli {

namespace {

struct FrameOptions {
  bool check = false;
  bool annotate = false;
  std::string output;
};

// The query line with its "expect" field set to the answer (field order kept).
std::string annotated(const std::string& line, const std::string& frame) {
  auto j = nlohmann::ordered_json::parse(line);
  j.erase("expect");
  j["expect"] = nlohmann::ordered_json::parse(frame);
  return j.dump();
}

Result<void> run_frame(const FrameOptions& options) {
  std::string out;
  std::string line;
  size_t number = 0, checked = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines
    auto at = [&](const std::string& what) {
      return make_error("<stdin>", "line " + std::to_string(number) + ": " + what);
    };
    Result<FrameQuery> query = parse_frame_query(line);
    if (!query) return at(query.error().message);
    Result<FrameAnswer> answer = run_frame_query(*query);
    if (!answer) return at(answer.error().message);
    const std::string frame = frame_json(*answer);
    if (options.check) {
      if (!query->expect) return at("--check: the line has no \"expect\"");
      if (auto r = check_frame_json(*query->expect, *answer); !r) return at(r.error().message);
      ++checked;
    } else if (options.annotate) {
      out += annotated(line, frame) + "\n";
    } else {
      out += frame + "\n";
    }
  }
  if (std::cin.bad()) return make_error("<stdin>", "read failed");
  if (options.check) out = std::to_string(checked) + " frames match\n";
  return write_output(options.output, out);
}

}  // namespace

Command add_frame_command(CLI::App& parent) {
  auto options = std::make_shared<FrameOptions>();
  CLI::App* app = parent.add_subcommand(
      "frame", "Resolve playback queries read as JSON lines on stdin: one Frame per line");
  app->add_flag("--check", options->check,
                "Compare each answer with the line's \"expect\" Frame; print the count, or fail at "
                "the first difference");
  app->add_flag("--annotate", options->annotate,
                "Print each query line with \"expect\" set to its answer (how conformance vector "
                "files are made)");
  app->add_option("-o,--output", options->output,
                  "Write to this file (atomically) instead of stdout")
      ->option_text("OUT.jsonl");
  app->footer(
      "Input, one query per line (blank lines skipped):\n"
      "  {\"instance\": {\"clip\": {\"startFrame\": 0, \"frames\": 31, \"fps\": 30}, \"startTime\": 0,\n"
      "                \"loopMode\": \"pingpong\", \"repetitions\": 3}, \"time\": 1.25}\n"
      "Instance fields (three-vat's names): clip {startFrame, frames, fps, and defaults loopMode,\n"
      "repetitions, endMode, speed}, startTime, speed, loopMode (repeat|once|pingpong),\n"
      "repetitions (-1 endless), endMode (clamp|rewind); blend {clip, weight, sync (phase|time),\n"
      "weightFrom}; fadeDuration, fadeCurve (linear|smooth), fadeStart, fadeWeight, from {clip,\n"
      "startTime, speed, loopMode, repetitions, endMode}. \"set\": [{\"now\": N, \"instance\": {...}}]\n"
      "replays set_instance writes (transitions start from what is on screen at N).\n\n"
      "Output, one line per query:\n"
      "  {\"row\", \"rowNext\", \"mix\", \"wraps\", \"finished\", \"phase\", the same with a B suffix\n"
      "   for the second band, \"weight\" (of band B), \"kind\" (single|fade|blend), \"endsAt\"}\n"
      "Numbers are float32, written as the shortest decimal that reads back exactly.\n"
      "A bad line stops everything: one error naming the line, no output, exit 1.\n\n"
      "Examples:\n"
      "  echo '{\"instance\": {\"clip\": {\"startFrame\": 0, \"frames\": 5, \"fps\": 4}, "
      "\"startTime\": 0}, \"time\": 0.3}' | vatkit frame\n"
      "  vatkit frame --check < tests/conformance/playback_v2.jsonl");
  return {app, [options]() {
            if (options->check && options->annotate) {
              return Result<void>(make_error("", "--check and --annotate exclude each other"));
            }
            return run_frame(*options);
          }};
}

}  // namespace vatkit::cli
