// vatkit frame [--check | --annotate] [-o OUT.jsonl]: playback queries on standard input, one JSON
// PlaybackSample per line on standard output (vatkit/playback_json.h; docs/playback.md). The conformance
// tool for engines that port resolve to their own shaders.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "playback_json.h"

namespace vatkit::cli {

namespace {

struct FrameOptions {
  bool check = false;
  bool annotate = false;
  bool keep_going = false;
  std::string output;
};

// The longest query line read; a longer one is a bad line (memory stays bounded whatever the input).
constexpr size_t kMaxLineBytes = size_t(1) << 20;

// The query line with its "expect" field set to the answer (field order kept).
std::string annotated(const std::string& line, const std::string& frame) {
  auto j = nlohmann::ordered_json::parse(line);
  j.erase("expect");
  j["expect"] = nlohmann::ordered_json::parse(frame);
  return j.dump();
}

// Reads the next line of stdin into `line` (without its '\n'). False at the end of the input.
// `too_long` is set when the line had more than kMaxLineBytes (the rest of it is skipped).
bool read_line(std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  int c = 0;
  bool any = false;
  while ((c = std::getc(stdin)) != EOF) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < kMaxLineBytes) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
  return any;
}

// Answers each line as it is read: every answer is written (and stdout flushed) before the next
// line is read, so a program driving vatkit through a pipe gets each answer back at once.
Result<void> run_frame(const FrameOptions& options) {
  std::optional<OutputFile> file;
  if (!options.output.empty()) {
    Result<OutputFile> created = OutputFile::create(options.output);
    if (!created) return created.error();
    file.emplace(std::move(*created));
  }
  auto emit = [&](const std::string& text) -> Result<void> {
    if (file) return file->write(text);
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
      return make_error(ErrorCode::Io, "<stdout>", std::string("write failed (") + std::strerror(errno) + ")");
    }
    return flush_stdout();
  };

  std::string line;
  bool too_long = false;
  size_t number = 0, answered = 0, bad = 0;
  // One line's answer as text to write (nothing under --check); an error names the line (and
  // the column, where the parser gives one).
  auto answer_line = [&]() -> Result<std::string> {
    auto at = [&](ErrorCode code, const std::string& what) {
      return make_error(code, "<stdin>", "line " + std::to_string(number) + ": " + what);
    };
    if (too_long) return at(ErrorCode::Limit, "longer than " + std::to_string(kMaxLineBytes) + " bytes");
    Result<FrameQuery> query = parse_frame_query(line);
    if (!query) return at(query.error().code, query.error().message);
    Result<FrameAnswer> answer = run_frame_query(*query);
    if (!answer) return at(answer.error().code, answer.error().message);
    const std::string frame = frame_json(*answer);
    if (options.check) {
      if (!query->expect) return at(ErrorCode::Argument, "--check: the line has no \"expect\"");
      if (auto r = check_frame_json(*query->expect, *answer); !r) return at(r.error().code, r.error().message);
      return std::string();
    }
    return (options.annotate ? annotated(line, frame) : frame) + "\n";
  };

  while (read_line(line, too_long)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!too_long && line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines
    Result<std::string> text = answer_line();
    if (!text) {
      if (!options.keep_going) return text.error();
      print_error(text.error().message);
      ++bad;
      continue;
    }
    ++answered;
    if (!text->empty()) {
      if (Result<void> r = emit(*text); !r) return r;  // an output that fails ends the run
    }
  }
  if (std::ferror(stdin))
    return make_error(ErrorCode::Io, "<stdin>", std::string("read failed (") + std::strerror(errno) + ")");
  if (options.check) {
    if (Result<void> r = emit(std::to_string(answered) + " frames match\n"); !r) return r;
  }
  if (file) {
    if (Result<void> r = file->commit(); !r) return r;
  }
  if (bad > 0) {
    return make_error(ErrorCode::Argument, "<stdin>",
                      std::to_string(bad) + " of " + std::to_string(bad + answered) +
                          " query lines were bad and skipped (--keep-going; reported above)");
  }
  return {};
}

}  // namespace

Command add_frame_command(CLI::App& parent) {
  auto options = std::make_shared<FrameOptions>();
  CLI::App* app = parent.add_subcommand(
      "frame", "Resolve playback queries read as JSON lines on stdin: one playback sample per line");
  app->add_flag("--check", options->check,
                "Compare each answer with the line's \"expect\" sample; print the count, or fail at "
                "the first difference");
  app->add_flag("--annotate", options->annotate,
                "Print each query line with \"expect\" set to its answer (how conformance vector "
                "files are made)");
  app->add_flag("--keep-going", options->keep_going,
                "Report a bad line on stderr and go on with the next; exit 1 at the end if any was bad");
  app->add_option("-o,--output", options->output,
                  "Write to this file (atomically, at the end of the input) instead of stdout")
      ->check(output_name())
      ->option_text("OUT.jsonl");
  app->footer(
      "Input, one query per line (blank lines skipped):\n"
      "  {\"instance\": {\"clip\": {\"startFrame\": 0, \"frames\": 31, \"fps\": 30}, \"startTime\": 0,\n"
      "                \"loopMode\": \"pingpong\", \"repetitions\": 3}, \"time\": 1.25}\n"
      "Instance fields (three-vat's names): clip {startFrame, frames, fps, and defaults loopMode,\n"
      "repetitions, endMode, speed}, startTime, speed, loopMode (repeat|once|pingpong),\n"
      "repetitions (-1 endless), endMode (clamp|rewind); blend {clip, weight, sync (phase|time),\n"
      "weightFrom}; fadeDuration, fadeCurve (linear|smooth), fadeStart, fadeWeight, from {clip,\n"
      "startTime, speed, loopMode, repetitions, endMode}. A negative speed plays backwards.\n"
      "\"set\": [{\"now\": N, \"instance\": {...}}] replays set_instance writes (transitions start\n"
      "from what is on screen at N); {\"now\": N, \"control\": \"pause\"|\"resume\"|\"turnBack\"}\n"
      "entries call the playback controls instead.\n"
      "Events: a clip may carry \"events\": [{\"name\": \"step_l\", \"time\": 0.25}] (seconds into\n"
      "the band, in time order); with \"since\": T0 the answer adds \"events\": the events its bands\n"
      "cross in (T0, time], in order, each with the clock time it fired, its band (a|b) and that\n"
      "band's weight (docs/events.md); each \"set\" entry at N splits the span there (the\n"
      "playback before it reports up to N, the one after it from N on).\n\n"
      "Output, one line per query:\n"
      "  {\"row\", \"rowNext\", \"mix\", \"wraps\", \"finished\", \"phase\", the same with a B suffix\n"
      "   for the second band, \"weight\" (of band B), \"kind\" (single|fade|blend), \"endsAt\",\n"
      "   and with \"since\", \"events\": [{\"name\", \"time\", \"band\", \"weight\"}]}\n"
      "Numbers are float32, written as the shortest decimal that reads back exactly.\n"
      "Each answer is written as soon as its line is read (stdout is flushed after each line).\n"
      "A bad line (or, with --check, a different answer) stops the run: one error naming the\n"
      "line (and the column where the JSON parser gives one), exit 1; the answers of the lines\n"
      "before it have been written to stdout, while -o leaves no file. With --keep-going each\n"
      "bad line is reported on stderr (\"vatkit: error: <stdin>: line N: ...\") and skipped, the\n"
      "other lines are answered (-o's file is written), and the run ends with one more error\n"
      "line counting the bad lines and exit 1. Lines longer than 1 MiB are bad lines.\n\n"
      "Examples:\n"
      "  echo '{\"instance\": {\"clip\": {\"startFrame\": 0, \"frames\": 5, \"fps\": 4}, "
      "\"startTime\": 0}, \"time\": 0.3}' | vatkit frame\n"
      "  echo '{\"instance\": {\"clip\": {\"startFrame\": 0, \"frames\": 5, \"fps\": 4}, "
      "\"startTime\": 0}, \"time\": 1.7, \"set\": [{\"now\": 1.45, \"control\": \"turnBack\"}]}' | vatkit frame\n"
      "  vatkit frame --check < tests/conformance/playback_v2.jsonl");
  return {app, [options]() {
            if (options->check && options->annotate) {
              return Result<void>(make_error(ErrorCode::Argument, "", "--check and --annotate exclude each other"));
            }
            return run_frame(*options);
          }};
}

}  // namespace vatkit::cli
