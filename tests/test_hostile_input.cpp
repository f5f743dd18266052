// Hostile input files: external references that leave the asset's folder, inputs that are not
// regular files (FIFOs, devices), and declared sizes far beyond what the file holds or the
// limits allow. Every file is made here, in a scratch directory.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "gltf_builder.h"
#include "test_support.h"
#include "vatkit/bake.h"
#include "vatkit/file_io.h"
#include "vatkit/import.h"

namespace vatkit::test {
namespace {

namespace fs = std::filesystem;

// One triangle whose buffer is the external file `buffer_uri` (36 bytes of positions), and
// optionally an image at `image_uri`.
std::string triangle_gltf(const std::string& buffer_uri, const std::string& image_uri = "") {
  json doc = {
      {"asset", {{"version", "2.0"}}},
      {"buffers", json::array({{{"uri", buffer_uri}, {"byteLength", 36}}})},
      {"bufferViews", json::array({{{"buffer", 0}, {"byteLength", 36}}})},
      {"accessors", json::array({{{"bufferView", 0}, {"componentType", kFloat}, {"count", 3}, {"type", "VEC3"}}})},
      {"meshes", json::array({{{"primitives", json::array({{{"attributes", {{"POSITION", 0}}}}})}}})},
      {"nodes", json::array({{{"mesh", 0}}})}};
  if (!image_uri.empty()) doc["images"] = json::array({{{"uri", image_uri}}});
  return doc.dump();
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

void write_positions(const fs::path& path, float value) {
  const std::vector<float> p = {value, 0, 0, 0, value, 0, 0, 0, value};
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(p.data()), 36);
}

// dir/asset/ holds the glTF files; dir/other/secret.bin lies outside it.
struct Layout {
  fs::path dir, asset, other;
  explicit Layout(const std::string& name) : dir(scratch_dir(name)), asset(dir / "asset"), other(dir / "other") {
    fs::create_directories(asset);
    fs::create_directories(other);
    write_positions(asset / "ok.bin", 1.0f);
    write_positions(other / "secret.bin", 7.0f);
  }
};

std::string message(const Result<Asset>& r) { return r.ok() ? "OK" : r.error().message; }
// The error's code; a Result that holds a value fails the test.
ErrorCode code(const Result<Asset>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? ErrorCode::Argument : r.error().code;
}

TEST(HostileInput, ExternalReferencesStayInsideTheAssetFolder) {
  const Layout l("hostile_roots");
  const std::string outside = "outside the asset's folder " + fs::canonical(l.asset).string();
  const std::string secret = fs::canonical(l.other / "secret.bin").string();
  fs::create_symlink(l.other / "secret.bin", l.asset / "link.bin");
  struct Case {
    const char* name;
    std::string buffer, image;
  };
  const std::vector<Case> cases = {
      {"dotdot", "../other/secret.bin", ""}, {"percent", "%2e%2e%2fother%2fsecret.bin", ""}, {"absolute", secret, ""},
      {"symlink", "link.bin", ""},           {"image", "ok.bin", "../other/secret.bin"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path file = l.asset / (std::string(c.name) + ".gltf");
    write_text(file, triangle_gltf(c.buffer, c.image));
    const std::string m = message(import_gltf(file));
    EXPECT_NE(m.find(std::string(c.image.empty() ? "buffers[0]" : "images[0]") + ".uri: \""), std::string::npos) << m;
    EXPECT_NE(m.find("resolves to " + secret + ", " + outside), std::string::npos) << m;
    EXPECT_NE(m.find("--allow-root DIR"), std::string::npos) << m;
    EXPECT_EQ(code(import_gltf(file)), ErrorCode::Unsupported);

    ImportOptions allowed;
    allowed.allowed_roots = {l.other};
    const Result<Asset> r = import_gltf(file, allowed);
    ASSERT_TRUE(r.ok()) << message(r);
    if (c.image.empty()) {
      EXPECT_EQ(r->meshes[0].primitives[0].positions[0].x, 7.0f);  // the file outside was read
    } else {
      ASSERT_EQ(r->images.size(), 1u);
      EXPECT_EQ(r->images[0].bytes.size(), 36u);
    }
  }
  // A root is a folder, compared by path components: "other2" is not inside "other".
  fs::create_directories(l.dir / "other2");
  write_positions(l.dir / "other2" / "x.bin", 2.0f);
  write_text(l.asset / "sibling.gltf", triangle_gltf("../other2/x.bin"));
  ImportOptions allowed;
  allowed.allowed_roots = {l.other};
  EXPECT_NE(message(import_gltf(l.asset / "sibling.gltf", allowed)).find("and the allowed folders"), std::string::npos);
  // A memory import follows the same rule against its base directory.
  const std::string text = triangle_gltf("../other/secret.bin");
  EXPECT_NE(message(import_gltf_memory(std::vector<uint8_t>(text.begin(), text.end()), "m.gltf", l.asset))
                .find("resolves to " + secret),
            std::string::npos);
  const std::string inside = triangle_gltf("other/secret.bin");
  EXPECT_EQ(message(import_gltf_memory(std::vector<uint8_t>(inside.begin(), inside.end()), "m.gltf", l.asset / "..")),
            "OK");
}

TEST(HostileInput, OddUris) {
  const Layout l("hostile_uris");
  fs::create_directories(l.asset / "folder");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ok.bin%00.png", "buffers[0].uri: \"ok.bin%00.png\" decodes to a NUL byte"},
      {"file:///etc/passwd", "buffers[0].uri: \"file:///etc/passwd\" is not a relative file reference"},
      {"folder", "is a directory, not a file"},
      {"", "buffers[0].uri: is empty"},
  };
  for (const auto& [uri, expected] : cases) {
    SCOPED_TRACE(uri);
    write_text(l.asset / "odd.gltf", triangle_gltf(uri));
    const std::string m = message(import_gltf(l.asset / "odd.gltf"));
    EXPECT_NE(m.find(expected), std::string::npos) << m;
  }
  write_text(l.asset / "fine.gltf", triangle_gltf("ok.bin"));
  EXPECT_EQ(message(import_gltf(l.asset / "fine.gltf")), "OK");
}

TEST(HostileInput, CliRefusesFilesOutsideAndWritesNothing) {
  const Layout l("hostile_cli_roots");
  const fs::path file = l.asset / "up.gltf";
  write_text(file, triangle_gltf("../other/secret.bin"));
  const fs::path out = l.dir / "out.vat.glb";
  const fs::path pose = l.dir / "pose.json";
  expect_one_error_line(vatkit_cli("bake " + shell_quote(file.string()) + " -o " + shell_quote(out.string())),
                        "outside the asset's folder");
  expect_one_error_line(vatkit_cli("pose " + shell_quote(file.string()) + " -o " + shell_quote(pose.string())),
                        "outside the asset's folder");
  expect_one_error_line(vatkit_cli("pose " + shell_quote(file.string())), "outside the asset's folder");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(pose));

  const CommandResult allowed =
      vatkit_cli("pose " + shell_quote(file.string()) + " --allow-root " + shell_quote(l.other.string()));
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("\"positions\": [7, 0, 0"), std::string::npos) << allowed.out;
  for (const char* command : {"info", "bake", "verify", "render", "bench"}) {
    const CommandResult help = vatkit_cli(std::string(command) + " --help");
    EXPECT_NE(help.out.find("--allow-root"), std::string::npos) << command;
  }
}

TEST(HostileInput, FifosAndDevicesAreRefusedAtOnce) {
  const Layout l("hostile_fifo");
  const fs::path fifo = l.asset / "pipe.glb";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((l.asset / "pipe.bin").c_str(), 0600), 0);
  write_text(l.asset / "pipe.gltf", triangle_gltf("pipe.bin"));
  // `timeout`: a regression blocks in open() for ever; it must fail instead of hanging.
  auto run = [](const std::string& arguments) {
    return run_command("timeout 30 " + shell_quote(VATKIT_CLI) + " " + arguments);
  };
  const std::string quoted_fifo = shell_quote(fifo.string());
  expect_one_error_line(run("info " + quoted_fifo), "is a FIFO (named pipe), not a regular file");
  expect_one_error_line(run("bake " + quoted_fifo + " -o " + shell_quote((l.dir / "o.vat.glb").string())),
                        "is a FIFO (named pipe), not a regular file");
  expect_one_error_line(run("pose " + quoted_fifo), "is a FIFO (named pipe), not a regular file");
  expect_one_error_line(run("info " + shell_quote((l.asset / "pipe.gltf").string())),
                        "buffers[0]: cannot read \"pipe.bin\"");
  expect_one_error_line(run("info /dev/zero"), "/dev/zero: is a character device, not a regular file");
  expect_one_error_line(run("bake /dev/zero"), "/dev/zero: is a character device, not a regular file");
  EXPECT_FALSE(fs::exists(l.dir / "o.vat.glb"));

  const Result<std::vector<uint8_t>> r = vatkit::read_file(fifo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, fifo.string() + ": is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  EXPECT_EQ(code(import_gltf(fifo)), ErrorCode::Io);
  EXPECT_NE(message(import_gltf(fifo)).find("is a FIFO"), std::string::npos);
}

TEST(HostileInput, ReadFileLimit) {
  const fs::path dir = scratch_dir("hostile_read_limit");
  write_text(dir / "ten.txt", "0123456789");
  EXPECT_TRUE(vatkit::read_file(dir / "ten.txt", 10).ok());
  const Result<std::vector<uint8_t>> r = vatkit::read_file(dir / "ten.txt", 9);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is 10 bytes, more than"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().code, ErrorCode::Limit);
  // /proc files say 0 bytes and have more: the limit still holds while reading.
  const Result<std::vector<uint8_t>> proc = vatkit::read_file("/proc/self/status", 16);
  ASSERT_FALSE(proc.ok());
  EXPECT_NE(proc.error().message.find("has at least "), std::string::npos) << proc.error().message;
  EXPECT_EQ(proc.error().code, ErrorCode::Limit);
  EXPECT_NE(proc.error().message.find("more than the most this reads (16 bytes)"), std::string::npos)
      << proc.error().message;
  EXPECT_TRUE(vatkit::read_file("/proc/self/status").ok());
}

// Sparse files: a declared size far beyond the limits is refused before it is read or allocated.
TEST(HostileInput, HugeDeclaredSizesAreRefusedBeforeReading) {
  const fs::path dir = scratch_dir("hostile_sparse");
  const uint64_t huge = uint64_t{3} << 30;
  // A GLB whose header and BIN chunk say 3 GiB (the file is that long, all but the start a hole).
  {
    json doc = {{"asset", {{"version", "2.0"}}}, {"buffers", json::array({{{"byteLength", huge}}})}};
    std::string text = doc.dump();
    while (text.size() % 4) text += ' ';
    const uint64_t total = 12 + 8 + text.size() + 8 + huge;
    std::string bytes = "glTF";
    auto u32 = [&](uint64_t v) {
      for (int i = 0; i < 4; ++i) bytes += char((v >> (8 * i)) & 0xFF);
    };
    u32(2), u32(total), u32(text.size()), u32(0x4E4F534A);
    bytes += text;
    u32(huge), u32(0x004E4942);
    write_text(dir / "huge.glb", bytes);
    fs::resize_file(dir / "huge.glb", total);
    const std::string m = message(import_gltf(dir / "huge.glb"));
    EXPECT_NE(
        m.find("buffers[0]: 3221225472 more bytes would take the import past its input limit of 2147483648 bytes"),
        std::string::npos)
        << m;
    EXPECT_EQ(code(import_gltf(dir / "huge.glb")), ErrorCode::Limit);
    ImportOptions small;
    small.max_input_bytes = 1 << 20;
    EXPECT_NE(message(import_gltf(dir / "huge.glb", small)).find("input limit of 1048576 bytes"), std::string::npos);
  }
  // A GLB whose header claims more than the file has.
  {
    std::string bytes = "glTF";
    auto u32 = [&](uint64_t v) {
      for (int i = 0; i < 4; ++i) bytes += char((v >> (8 * i)) & 0xFF);
    };
    u32(2), u32(huge);
    write_text(dir / "short.glb", bytes);
    EXPECT_NE(message(import_gltf(dir / "short.glb")).find("the header says 3221225472 bytes, but there are only 12"),
              std::string::npos);
  }
  // A 3 GiB .gltf text file.
  write_text(dir / "huge.gltf", "{");
  fs::resize_file(dir / "huge.gltf", huge);
  EXPECT_NE(
      message(import_gltf(dir / "huge.gltf")).find("the JSON is 3221225472 bytes, more than the limit of 268435456"),
      std::string::npos);
  EXPECT_EQ(code(import_gltf(dir / "huge.gltf")), ErrorCode::Limit);
  // A 3 GiB file of zeros is not JSON: judged on its first bytes.
  write_text(dir / "zeros.gltf", "");
  fs::resize_file(dir / "zeros.gltf", huge);
  EXPECT_NE(message(import_gltf(dir / "zeros.gltf")).find("not a glTF file"), std::string::npos);
  // A .gltf whose external buffer says 3 GiB (and has them, as a hole).
  write_text(dir / "external.gltf", json{{"asset", {{"version", "2.0"}}},
                                         {"buffers", json::array({{{"uri", "huge.bin"}, {"byteLength", huge}}})}}
                                        .dump());
  write_text(dir / "huge.bin", "");
  fs::resize_file(dir / "huge.bin", huge);
  EXPECT_NE(
      message(import_gltf(dir / "external.gltf")).find("buffers[0]: 3221225472 more bytes would take the import past"),
      std::string::npos);
  fs::remove(dir / "huge.bin");
  fs::remove(dir / "huge.gltf");
  fs::remove(dir / "zeros.gltf");
  fs::remove(dir / "huge.glb");
}

// More distinct skin joints than a .vat.glb has slots: refused by the baker before it makes a
// row (the file writer refused it only after the whole bake).
TEST(HostileInput, TooManyJointsAreRefusedBeforeBaking) {
  GltfBuilder b;
  const int position = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0, 1, 0}, kFloat, "VEC3");
  const int joints = b.data(std::vector<uint16_t>(12, 0), kUnsignedShort, "VEC4");
  const int weights = b.data(std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, kFloat, "VEC4");
  const int times = b.data(std::vector<float>{0, 1}, kFloat, "SCALAR");
  const int rotations = b.data(std::vector<float>{0, 0, 0, 1, 0, 0, 0.7071068f, 0.7071068f}, kFloat, "VEC4");
  const int mesh_node = b.mesh_node({{"POSITION", position}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}});
  const size_t joint_count = kMaxVatSlots + 10;
  json skin_joints = json::array();
  for (size_t j = 0; j < joint_count; ++j) skin_joints.push_back(b.push("nodes", json::object()));
  b.doc["nodes"][mesh_node]["skin"] = b.push("skins", {{"joints", skin_joints}});
  b.push("animations",
         {{"samplers", json::array({{{"input", times}, {"output", rotations}}})},
          {"channels", json::array({{{"sampler", 0}, {"target", {{"node", 1}, {"path", "rotation"}}}}})}});
  const Result<Asset> asset = b.import_gltf();
  ASSERT_TRUE(asset.ok()) << message(asset);
  BakeOptions options;
  options.encoding = EncodingChoice::Delta;
  options.measure = false;
  options.lods = 0;
  const Result<Vat> vat = bake(*asset, options);
  ASSERT_FALSE(vat.ok());
  EXPECT_EQ(vat.error().message, "test.gltf: delta encoding: the skins have " + std::to_string(joint_count) +
                                     " distinct joints (one socket slot each), more than the 65536 a .vat.glb holds");
  EXPECT_EQ(vat.error().code, ErrorCode::Limit);
}

}  // namespace
}  // namespace vatkit::test
