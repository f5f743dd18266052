// Outputs and inputs over platform.h (the system calls live there; this file is portable): how
// an output is created through a temporary and committed, and how inputs are read.
//
// The registry of live temporaries is fixed static storage that the termination cleanup
// (platform::on_termination_request) may read without allocating or locking: each slot is free
// (0), being filled (1) or names a live temporary (2); the cleanup removes the live ones.
// Registration happens right after the temporary is created, and a slot is freed right after the
// temporary was renamed or removed, so the cleanup at worst removes a name that no longer exists.
#include "vatkit/file_io.h"

#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "platform/platform.h"

namespace vatkit {
namespace {

using platform::error_text;
using platform::kNoFile;

// ---- the registry of live temporaries, read by the termination cleanup ----

constexpr int kSlots = 64;
constexpr size_t kSlotPath = 4096;  // characters, the terminating zero included (Linux's PATH_MAX)
struct TempSlot {
  std::atomic<int> state{0};
  platform::NativeChar path[kSlotPath];
};
static_assert(std::atomic<int>::is_always_lock_free, "the cleanup reads the slots' states from a signal handler");
TempSlot g_slots[kSlots];

int register_temporary(const std::filesystem::path& temp) {
  const auto& path = temp.native();
  if (path.size() >= kSlotPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, path.c_str(), (path.size() + 1) * sizeof(platform::NativeChar));
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

void remove_live_temporaries() {
  for (TempSlot& slot : g_slots) {
    if (slot.state.load() == 2) platform::remove_while_ending(slot.path);
  }
}

// ".NAME.vatkit-PID-N.tmp" with NAME cut to 64 bytes: within NAME_MAX whatever the name's length.
std::string temporary_name(const std::filesystem::path& target, unsigned counter) {
  constexpr size_t kNameBytes = 64;
  const std::string base = target.filename().string();
  // Appends rather than operator+ chains: g++ 12 warns falsely (-Wrestrict) on the latter.
  std::string name = ".";
  name.append(base, 0, kNameBytes);
  name.append(".vatkit-");
  name.append(std::to_string(platform::process_id()));
  name.append("-");
  name.append(std::to_string(counter));
  name.append(".tmp");
  return name;
}

}  // namespace

Result<OutputFile> OutputFile::create(const std::filesystem::path& path) {
  const std::string name = path.string();
  if (path.empty()) return make_error(ErrorCode::Argument, name, "an empty name is not a file name");
  Result<platform::OutputTarget> found = platform::find_output(path, name);
  if (!found) return found.error();
  const platform::OutputTarget& target = *found;

  OutputFile out;
  out.name_ = name;
  out.target_ = target.path;
  if (target.in_place != kNoFile) {
    out.file_ = target.in_place;
    return out;
  }

  static std::atomic<unsigned> counter{0};
  const std::filesystem::path dir = target.path.has_parent_path() ? target.path.parent_path() : ".";
  int open_error = 0;
  for (int attempt = 0; attempt < 100 && out.file_ == kNoFile; ++attempt) {
    out.temp_ = dir / temporary_name(target.path, counter.fetch_add(1));
    open_error = platform::create_new(out.temp_, out.file_);
    if (open_error != 0 && !platform::name_taken(open_error)) break;
  }
  if (out.file_ == kNoFile) {
    out.temp_.clear();
    return make_error(ErrorCode::Io, name,
                      "cannot create a temporary file next to it (" + error_text(open_error) + ")");
  }
  out.signal_entry_ = register_temporary(out.temp_);
  if (Result<void> kept = platform::keep_attributes(out.file_, target, name); !kept) {
    out.abandon();
    return kept.error();
  }
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : name_(std::move(other.name_)),
      target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      file_(other.file_),
      signal_entry_(other.signal_entry_),
      size_(other.size_),
      done_(other.done_) {
  other.file_ = kNoFile;
  other.signal_entry_ = -1;
  other.temp_.clear();
  other.done_ = true;
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    abandon();
    name_ = std::move(other.name_);
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    file_ = other.file_;
    signal_entry_ = other.signal_entry_;
    size_ = other.size_;
    done_ = other.done_;
    other.file_ = kNoFile;
    other.signal_entry_ = -1;
    other.temp_.clear();
    other.done_ = true;
  }
  return *this;
}

OutputFile::~OutputFile() { abandon(); }

void OutputFile::abandon() {
  if (file_ != kNoFile) platform::close(file_);
  file_ = kNoFile;
  if (!temp_.empty()) platform::remove(temp_);
  temp_.clear();
  unregister_temporary(signal_entry_);
  signal_entry_ = -1;
  done_ = true;
}

Result<void> OutputFile::write(std::span<const uint8_t> bytes) {
  if (done_ || file_ == kNoFile)
    return make_error(ErrorCode::Argument, name_, "write after the output was finished or abandoned");
  if (const int error = platform::write_all(file_, bytes)) {
    abandon();
    return make_error(ErrorCode::Io, name_, "write failed (" + error_text(error) + ")");
  }
  size_ += bytes.size();
  return {};
}

Result<void> OutputFile::write(std::string_view text) {
  return write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Result<void> OutputFile::finish() {
  if (done_) return make_error(ErrorCode::Argument, name_, "the output was committed or abandoned");
  if (file_ == kNoFile) return {};
  // In place (a device, a FIFO, a descriptor): nothing to flush to disk.
  if (!temp_.empty()) {
    if (const int error = platform::flush_to_disk(file_)) {
      abandon();
      return make_error(ErrorCode::Io, name_, "fsync failed (" + error_text(error) + ")");
    }
  }
  const int closed = platform::close(file_);
  file_ = kNoFile;
  if (closed != 0) {
    abandon();
    return make_error(ErrorCode::Io, name_, "close failed (" + error_text(closed) + ")");
  }
  return {};
}

Result<void> OutputFile::commit() {
  if (Result<void> finished = finish(); !finished) return finished;
  if (temp_.empty()) {  // in place
    done_ = true;
    return {};
  }
  if (const int error = platform::replace(temp_, target_)) {
    abandon();
    return make_error(ErrorCode::Io, name_, "cannot replace it (" + error_text(error) + ")");
  }
  temp_.clear();
  unregister_temporary(signal_entry_);
  signal_entry_ = -1;
  done_ = true;
  return {};
}

Result<void> write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  const std::span<const uint8_t> pieces[1] = {bytes};
  return write_file_atomic_pieces(path, pieces);
}

Result<void> write_file_atomic_pieces(const std::filesystem::path& path,
                                      std::span<const std::span<const uint8_t>> pieces) {
  Result<OutputFile> out = OutputFile::create(path);
  if (!out) return out.error();
  for (const std::span<const uint8_t>& bytes : pieces) {
    if (Result<void> written = out->write(bytes); !written) return written;
  }
  return out->commit();
}

void remove_temporaries_on_signals() { platform::on_termination_request(remove_live_temporaries); }

namespace {
std::string bytes_text(uint64_t n) { return std::to_string(n) + " bytes"; }
}  // namespace

Result<InputFile> InputFile::open(const std::filesystem::path& path) {
  std::string name = path.string();
  if (path.empty()) return make_error(ErrorCode::Argument, "<input>", "no file name given");
  Result<platform::InputHandle> opened = platform::open_input(path, name);
  if (!opened) return opened.error();
  return InputFile(opened->handle, std::move(name), opened->size);
}

InputFile::InputFile(InputFile&& other) noexcept
    : file_(std::exchange(other.file_, kNoFile)), name_(std::move(other.name_)), size_(other.size_) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (file_ != kNoFile) platform::close(file_);
    file_ = std::exchange(other.file_, kNoFile);
    name_ = std::move(other.name_);
    size_ = other.size_;
  }
  return *this;
}

InputFile::~InputFile() {
  if (file_ != kNoFile) platform::close(file_);
}

Result<void> InputFile::read_at(uint64_t offset, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    size_t n = 0;
    if (const int error = platform::read_at(file_, offset + done, out.subspan(done), n)) {
      return make_error(ErrorCode::Io, name_, "read failed (" + error_text(error) + ")");
    }
    if (n == 0) {
      return make_error(ErrorCode::Io, name_,
                        "ends at " + bytes_text(offset + done) + ", but " + bytes_text(offset + out.size()) +
                            " were expected (truncated, or changed while being read)");
    }
    done += n;
  }
  return {};
}

Result<std::vector<uint8_t>> InputFile::read_rest(uint64_t offset, uint64_t max_bytes, const std::string& what) const {
  const uint64_t expected = size_ > offset ? size_ - offset : 0;
  auto too_large = [&](uint64_t at_least) {
    return make_error(ErrorCode::Limit, name_,
                      (at_least == expected ? "is " : "has at least ") + bytes_text(at_least) +
                          (offset ? " from byte " + std::to_string(offset) : std::string()) + ", more than " + what +
                          " (" + bytes_text(max_bytes) + ")");
  };
  if (expected > max_bytes) return too_large(expected);
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(static_cast<size_t>(expected));
  } catch (const std::bad_alloc&) {
    return make_error(ErrorCode::Limit, name_, "out of memory reading " + bytes_text(expected));
  }
  size_t done = 0;
  while (true) {
    size_t n = 0;
    if (done == bytes.size()) {
      // Every byte the size promised is in: probe for more into a small buffer rather than
      // growing the vector (which would reallocate and copy the whole file just to find the end).
      uint8_t probe[4096];
      if (const int error = platform::read_at(file_, offset + done, probe, n)) {
        return make_error(ErrorCode::Io, name_, "read failed (" + error_text(error) + ")");
      }
      if (n == 0) break;
      if (done + n > max_bytes) return too_large(done + n);
      bytes.insert(bytes.end(), probe, probe + n);  // the file grew (or /proc said 0): keep going
      done += n;
      continue;
    }
    if (const int error = platform::read_at(file_, offset + done, std::span(bytes).subspan(done), n)) {
      return make_error(ErrorCode::Io, name_, "read failed (" + error_text(error) + ")");
    }
    if (n == 0) break;
    done += n;
  }
  bytes.resize(done);
  return bytes;
}

Result<std::vector<uint8_t>> read_file(const std::filesystem::path& path, uint64_t max_bytes) {
  Result<InputFile> file = InputFile::open(path);
  if (!file) return file.error();
  return file->read_rest(0, max_bytes, "the most this reads");
}

}  // namespace vatkit
