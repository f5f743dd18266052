// Where outputs go (vatkit/file_io.h's OutputFile, and the CLI's -o): devices, FIFOs and symbolic
// links are not replaced by regular files, an existing file's permissions are kept, a signal
// leaves no temporary, empty and long names, a failed stdout leaves no file, and `vatkit frame`
// answers each line as it reads it.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_test_support.h"
#include "vatkit/file_io.h"
#include "playback_json.h"
#include "vatkit/sample_character.h"

namespace vatkit {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using test::shell_quote;
using test::vatkit_cli;

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string read_text(const fs::path& path) {
  const std::vector<uint8_t> bytes = test::read_file(path);
  return std::string(bytes.begin(), bytes.end());
}

const std::string kQuery =
    R"({"instance": {"clip": {"startFrame": 10, "frames": 5, "fps": 4}, "startTime": 2}, "time": 3.125})";

// kQuery's answer, from the library rather than the CLI.
std::string query_answer() {
  Result<FrameQuery> query = parse_frame_query(kQuery);
  EXPECT_TRUE(query.ok());
  Result<FrameAnswer> answer = run_frame_query(*query);
  EXPECT_TRUE(answer.ok());
  return frame_json(*answer);
}

TEST(CliOutput, DevNullStaysACharacterDevice) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  const CommandResult r = vatkit_cli("sample -o /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat after {};
  ASSERT_EQ(::lstat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/null was replaced";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  EXPECT_EQ(after.st_mode, before.st_mode);

  // /dev/stdout: a link to this process's descriptor 1, kept a link.
  struct stat link_before {};
  ASSERT_EQ(::lstat("/dev/stdout", &link_before), 0);
  const CommandResult r2 = vatkit_cli("sample -o /dev/stdout");
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
  const std::vector<uint8_t> sample = sample_character_glb();
  EXPECT_TRUE(r2.out == std::string(sample.begin(), sample.end()) + "wrote /dev/stdout (" +
                            std::to_string(sample.size()) + " bytes)\n")
      << r2.out.size() << " bytes";
  struct stat link_after {};
  ASSERT_EQ(::lstat("/dev/stdout", &link_after), 0);
  EXPECT_EQ(link_after.st_mode, link_before.st_mode);
  EXPECT_EQ(link_after.st_ino, link_before.st_ino);
}

// A descriptor link writes the descriptor itself, at its offset: the report printed afterwards
// follows the file's bytes (the shell's file is neither replaced nor overwritten).
TEST(CliOutput, DescriptorLinkWritesTheDescriptor) {
  const std::vector<uint8_t> sample = sample_character_glb();
  for (const std::string link : {"/dev/fd/1", "/proc/self/fd/1"}) {
    const CommandResult r = vatkit_cli("sample -o " + link);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // EXPECT_TRUE: a failure would print 350 kB of binary.
    EXPECT_TRUE(r.out == std::string(sample.begin(), sample.end()) + "wrote " + link + " (" +
                             std::to_string(sample.size()) + " bytes)\n")
        << link << ": " << r.out.size() << " bytes";
  }
}

// The same on a null device of the test's own (where the process may create one: root), so that
// a failure cannot break the machine's /dev/null.
TEST(CliOutput, CharacterDeviceIsWrittenInPlace) {
  const fs::path dir = test::scratch_dir("output_chr");
  const fs::path device = dir / "null";
  struct stat null_st {};
  ASSERT_EQ(::stat("/dev/null", &null_st), 0);
  if (::mknod(device.c_str(), S_IFCHR | 0666, null_st.st_rdev) != 0) GTEST_SKIP() << "cannot mknod here";
  const CommandResult r = vatkit_cli("bake -o " + shell_quote(device.string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat after {};
  ASSERT_EQ(::lstat(device.c_str(), &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "the device node was replaced by a file";
  EXPECT_EQ(after.st_rdev, null_st.st_rdev);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"null"}) << "a temporary was left behind";
}

TEST(CliOutput, FifoIsWrittenInPlace) {
  const fs::path dir = test::scratch_dir("output_fifo");
  const fs::path fifo = dir / "answers";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader, so that the writer's open does not wait; the answer is far below a pipe's capacity.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  const CommandResult r = test::run_command("echo " + shell_quote(kQuery) + " | " + shell_quote(VATKIT_CLI) +
                                            " frame -o " + shell_quote(fifo.string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  char buffer[4096];
  const ssize_t n = ::read(reader, buffer, sizeof(buffer));
  ::close(reader);
  EXPECT_EQ(n > 0 ? std::string(buffer, size_t(n)) : std::string(), query_answer() + "\n");
  struct stat after {};
  ASSERT_EQ(::lstat(fifo.c_str(), &after), 0);
  EXPECT_TRUE(S_ISFIFO(after.st_mode)) << "the FIFO was replaced by a file";
  EXPECT_EQ(entries(dir), std::vector<std::string>{"answers"});
}

TEST(CliOutput, SymbolicLinkStaysALinkAndItsTargetIsReplaced) {
  const fs::path dir = test::scratch_dir("output_symlink");
  fs::create_directories(dir / "real");
  write_text(dir / "real" / "character.glb", "old bytes");
  fs::create_symlink("real/character.glb", dir / "link.glb");
  const CommandResult r = vatkit_cli("sample -o " + shell_quote((dir / "link.glb").string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::is_symlink(dir / "link.glb")) << "the link was replaced by a file";
  EXPECT_EQ(fs::read_symlink(dir / "link.glb"), fs::path("real/character.glb"));
  EXPECT_EQ(test::read_file(dir / "real" / "character.glb"), sample_character_glb());
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"link.glb", "real"}));
  EXPECT_EQ(entries(dir / "real"), std::vector<std::string>{"character.glb"});

  // A link to a name that does not exist yet: the file is created where the link points.
  fs::create_symlink("real/new.glb", dir / "dangling.glb");
  const CommandResult r2 = vatkit_cli("sample -o " + shell_quote((dir / "dangling.glb").string()));
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.glb"));
  EXPECT_EQ(test::read_file(dir / "real" / "new.glb"), sample_character_glb());
}

TEST(CliOutput, ReplacementKeepsTheFilesPermissions) {
  const fs::path dir = test::scratch_dir("output_mode");
  const fs::path file = dir / "secret.vat.glb";
  write_text(file, "old");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  const CommandResult r =
      test::run_command("umask 022 && " + shell_quote(VATKIT_CLI) + " bake -o " + shell_quote(file.string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << std::oct << (st.st_mode & 07777);
  EXPECT_GT(st.st_size, 3);

  // A new file: 0666 less the umask, as any new file.
  const fs::path fresh = dir / "fresh.glb";
  const CommandResult r2 =
      test::run_command("umask 027 && " + shell_quote(VATKIT_CLI) + " sample -o " + shell_quote(fresh.string()));
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u) << std::oct << (st.st_mode & 07777);
}

TEST(CliOutput, RefusesWhatIsNotAFile) {
  const fs::path dir = test::scratch_dir("output_refused");
  fs::create_directories(dir / "folder");
  test::expect_one_error_line(vatkit_cli("sample -o " + shell_quote((dir / "folder").string())), "is a directory");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"folder"});
  EXPECT_TRUE(entries(dir / "folder").empty());
}

// A child killed by SIGTERM while its output is being written leaves no temporary behind.
TEST(FileIoSignals, SigtermRemovesTheTemporary) {
  const fs::path dir = test::scratch_dir("output_sigterm");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    remove_temporaries_on_signals();
    Result<OutputFile> out = OutputFile::create(dir / "out.bin");
    if (!out) ::_exit(10);
    const std::vector<uint8_t> bytes(100000, 7);
    if (!out->write(bytes)) ::_exit(11);
    if (entries(dir).size() != 1) ::_exit(12);  // the temporary exists before the signal
    ::raise(SIGTERM);
    ::_exit(13);  // not reached: the handler ends the process with SIGTERM
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit code " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_TRUE(entries(dir).empty()) << entries(dir).front();
}

TEST(CliOutput, EmptyOutputNameIsRefused) {
  const fs::path dir = test::scratch_dir("output_empty");
  for (const char* command :
       {"sample -o ''", "bake -o ''", "pose -o ''", "frame -o '' < /dev/null", "render -o ''", "bench --json ''"}) {
    const CommandResult r =
        test::run_command("cd " + shell_quote(dir.string()) + " && " + shell_quote(VATKIT_CLI) + " " + command);
    test::expect_one_error_line(r, std::string(command).find("--json") != std::string::npos ? "--json" : "--output", 2);
    EXPECT_NE(r.err.find("an empty name"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(entries(dir).empty()) << entries(dir).front();
}

TEST(CliOutput, LongOutputNameWorks) {
  const fs::path dir = test::scratch_dir("output_long");
  const std::string name = std::string(246, 'n') + ".glb";  // 250 bytes, NAME_MAX is 255
  const CommandResult r = vatkit_cli("sample -o " + shell_quote((dir / name).string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(entries(dir), std::vector<std::string>{name});
}

// stdout fails (a full disk): the command fails and leaves no output file, new or replaced.
TEST(CliOutput, FailedStdoutLeavesNoFile) {
  const fs::path dir = test::scratch_dir("output_full");
  const std::string cli = shell_quote(VATKIT_CLI);
  for (const std::string& command :
       {"sample -o " + shell_quote((dir / "s.glb").string()), "bake -o " + shell_quote((dir / "b.vat.glb").string()),
        "bake --json -o " + shell_quote((dir / "j.vat.glb").string())}) {
    const CommandResult r = test::run_command("{ " + cli + " " + command + " > /dev/full; }");
    test::expect_one_error_line(r, "<stdout>: write failed", 1);
    EXPECT_TRUE(entries(dir).empty()) << command << " left " << entries(dir).front();
  }
  // An existing file keeps its bytes.
  write_text(dir / "kept.vat.glb", "old");
  const CommandResult r =
      test::run_command("{ " + cli + " bake -o " + shell_quote((dir / "kept.vat.glb").string()) + " > /dev/full; }");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(read_text(dir / "kept.vat.glb"), "old");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"kept.vat.glb"});
}

// Reads one line from `fd`, waiting at most 30 s for each piece (a line held back until the input
// ends never comes: the input is still open).
std::string read_line_from(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 30000) != 1) return line + "<no answer within 30 s>";
    if (::read(fd, &c, 1) != 1) return line + "<end of output>";
    if (c == '\n') return line;
    line.push_back(c);
  }
}

TEST(CliFrame, AnswersEachLineBeforeTheInputEnds) {
  int in[2], out[2];
  ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::execl(VATKIT_CLI, "vatkit", "frame", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  const std::string answer = query_answer();
  const std::string line = kQuery + "\n";
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(::write(in[1], line.data(), line.size()), ssize_t(line.size()));
    EXPECT_EQ(read_line_from(out[0]), answer) << "query " << i;
  }
  ::close(in[1]);
  EXPECT_EQ(read_line_from(out[0]), "<end of output>");
  ::close(out[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(CliFrame, KeepGoingSkipsABadLine) {
  const std::string input = "printf '%s\\n%s\\n%s\\n' " + shell_quote(kQuery) + " " +
                            shell_quote(R"({"instance": {"clip": 1, "time": 1)") + " " + shell_quote(kQuery) + " | ";
  const std::string answer = query_answer();
  CommandResult r = test::run_command(input + shell_quote(VATKIT_CLI) + " frame --keep-going");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, answer + "\n" + answer + "\n");
  EXPECT_EQ(r.err,
            "vatkit: error: <stdin>: line 2: column 35: not a JSON value (one object per line)\n"
            "vatkit: error: <stdin>: 1 of 3 query lines were bad and skipped (--keep-going; reported above)\n");

  // With -o, the file holds the good lines' answers.
  const fs::path dir = test::scratch_dir("frame_keep_going");
  r = test::run_command(input + shell_quote(VATKIT_CLI) + " frame --keep-going -o " +
                        shell_quote((dir / "a.jsonl").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_text(dir / "a.jsonl"), answer + "\n" + answer + "\n");

  // Without it, the bad line ends the run and -o leaves no file.
  r = test::run_command(input + shell_quote(VATKIT_CLI) + " frame -o " + shell_quote((dir / "b.jsonl").string()));
  test::expect_one_error_line(r, "<stdin>: line 2: column 35: ", 1);
  EXPECT_EQ(entries(dir), std::vector<std::string>{"a.jsonl"});
}

}  // namespace
}  // namespace vatkit
