#include "cache/bundle.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cache/entry_format.h"
#include "cache/private_dir.h"
#include "common/env.h"
#include "common/fork_guard.h"
#include "common/log.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {
namespace {

struct Bundle {
  std::mutex mutex;
  std::map<std::string, std::string_view, std::less<>> entries;  // guarded by mutex; data owned by the program
};

Bundle& bundle() {
  static auto* b = [] {
    auto* made = new Bundle();  // never destroyed: registration runs during static initialisation
    guard_across_fork(made->mutex, LockLevel::kLeaf);
    return made;
  }();
  return *b;
}

struct Recording {
  std::mutex mutex;
  bool configured = false;         // guarded by mutex
  std::optional<PrivateDir> root;  // guarded by mutex; empty when not recording
};

Recording& recording() {
  static auto* r = [] {
    auto* made = new Recording();  // never destroyed
    guard_across_fork(made->mutex, LockLevel::kLeaf);
    return made;
  }();
  return *r;
}

// Opens the recording directory; throws Error naming it when it cannot be used.
PrivateDir open_recording(const std::string& directory) {
  std::string why;
  auto root = PrivateDir::open_root(directory, why);
  if (!root) throw Error(fmt::format("triton_jit: cannot record a bundle into {}", why));
  return std::move(*root);
}

}  // namespace

void add_bundle_entry(std::string relative_path, const void* data, std::size_t size) {
  Bundle& b = bundle();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.entries[std::move(relative_path)] = std::string_view(static_cast<const char*>(data), size);
}

std::optional<std::string_view> find_bundle_entry(const std::string& relative_path) {
  static const bool from_environment = [] {
    const std::string path = env_or("TRITON_JIT_BUNDLE_PATH", "");
    for (std::size_t start = 0; start < path.size();) {
      std::size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      if (end > start) {
        try {
          add_bundle_directory(path.substr(start, end - start));
        } catch (const Error& e) {
          log(LogLevel::kWarn, "TRITON_JIT_BUNDLE_PATH: {}", e.what());
        }
      }
      start = end + 1;
    }
    return true;
  }();
  (void)from_environment;
  Bundle& b = bundle();
  std::lock_guard<std::mutex> lock(b.mutex);
  auto it = b.entries.find(relative_path);
  if (it == b.entries.end()) return std::nullopt;
  return it->second;
}

}  // namespace triton_jit::detail

namespace triton_jit::detail {

void record_bundle_entry(const std::string& function_dir, const std::string& file, const std::string& bytes,
                         const std::string& kernel) {
  Recording& r = recording();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.configured) {
    r.configured = true;
    if (auto dir = env_or("TRITON_JIT_RECORD_BUNDLE", ""); !dir.empty()) r.root = open_recording(dir);
  }
  if (!r.root) return;
  auto sub = r.root->sub(function_dir, /*create=*/true);
  if (!sub || !sub->write(file, bytes, /*durable=*/true)) {
    throw Error(
        fmt::format("{}: could not write the bundle entry '{}/{}/{}'", kernel, r.root->path(), function_dir, file));
  }
}

}  // namespace triton_jit::detail

namespace triton_jit {

std::size_t add_bundle_directory(std::string_view directory) {
  namespace fs = std::filesystem;
  const std::string dir(directory);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw Error(fmt::format("triton_jit: bundle directory '{}' does not exist", dir));
  }
  if ((st.st_mode & S_IWOTH) != 0) {
    throw Error(fmt::format("triton_jit: bundle directory '{}' is writable by everyone; refusing to use it", dir));
  }
  // A deployed bundle may belong to root and be read-only; it must not be writable by others.
  std::size_t added = 0;
  std::error_code ec;
  for (const auto& function : fs::directory_iterator(dir, ec)) {
    if (!function.is_directory() || function.is_symlink()) continue;
    for (const auto& file : fs::directory_iterator(function.path(), ec)) {
      const std::string name = file.path().filename().string();
      if (name != "signature" && !name.ends_with(".variant") && !name.ends_with(".tuning")) continue;
      int fd = ::open(file.path().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat fst {};
      std::string* bytes = nullptr;
      if (::fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) && (fst.st_mode & S_IWOTH) == 0 &&
          static_cast<std::size_t>(fst.st_size) <= detail::kMaxEntryBytes) {
        bytes = new std::string(static_cast<std::size_t>(fst.st_size), '\0');  // lives as long as the process
        std::size_t done = 0;
        while (done < bytes->size()) {
          ssize_t n = ::read(fd, bytes->data() + done, bytes->size() - done);
          if (n <= 0) break;
          done += static_cast<std::size_t>(n);
        }
        bytes->resize(done);
      }
      ::close(fd);
      if (bytes == nullptr) continue;
      detail::add_bundle_entry(function.path().filename().string() + "/" + name, bytes->data(), bytes->size());
      ++added;
    }
  }
  return added;
}

void record_bundle(std::string_view directory) {
  auto& r = detail::recording();
  std::optional<detail::PrivateDir> root;
  if (!directory.empty()) root = detail::open_recording(std::string(directory));
  std::lock_guard<std::mutex> lock(r.mutex);
  r.configured = true;
  r.root = std::move(root);
}

}  // namespace triton_jit
