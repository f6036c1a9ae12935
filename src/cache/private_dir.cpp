#include "cache/private_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/log.h"

// Note [Private directories]
// Loading someone else's cubin runs their code, so nothing below the cache root is trusted by
// its path: every directory is opened with O_NOFOLLOW relative to its checked parent and
// checked again on the descriptor (a directory, ours, no group or other permissions), and every
// file is opened the same way with O_NONBLOCK (a FIFO must not hang the reader) and must be a
// regular file of ours. The root itself may be a link the user chose; it must be ours and not
// writable by everyone. Writes go to a private temporary file that is renamed into place, so a
// reader sees the old entry, the new one or none.

namespace triton_jit::detail {
namespace {

bool valid_component(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
         name.find('\0') == std::string_view::npos && name.size() < 256;
}

std::string mode_text(mode_t mode) { return fmt::format("{:04o}", mode & 07777); }

}  // namespace

PrivateDir::PrivateDir(PrivateDir&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }

PrivateDir& PrivateDir::operator=(PrivateDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

PrivateDir::~PrivateDir() {
  if (fd_ >= 0) ::close(fd_);
}

std::string PrivateDir::path_of(std::string_view name) const { return path_ + "/" + std::string(name); }

std::optional<PrivateDir> PrivateDir::open_root(const std::string& root, std::string& why, bool create) {
  if (root.empty()) {
    why = "no directory given";
    return std::nullopt;
  }
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && !create) {
    why.clear();
    return std::nullopt;
  }
  if (fd < 0 && errno == ENOENT) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(root).parent_path(), ec);
    if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
      why = fmt::format("'{}' could not be created ({})", root, std::strerror(errno));
      return std::nullopt;
    }
    fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) {
    why = fmt::format("'{}' cannot be opened as a directory ({})", root, std::strerror(errno));
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    ::close(fd);
    why = fmt::format("'{}' is not a directory", root);
    return std::nullopt;
  }
  if (st.st_uid != ::geteuid()) {
    ::close(fd);
    why = fmt::format("'{}' belongs to another user (uid {}); refusing to use it", root, st.st_uid);
    return std::nullopt;
  }
  if ((st.st_mode & S_IWOTH) != 0) {
    ::close(fd);
    why = fmt::format("'{}' is writable by everyone; refusing to use it", root);
    return std::nullopt;
  }
  if (create && ::faccessat(fd, ".", W_OK, AT_EACCESS) != 0) {
    ::close(fd);
    why = fmt::format("'{}' is not writable ({})", root, std::strerror(errno));
    return std::nullopt;
  }
  return PrivateDir(fd, root);
}

std::optional<PrivateDir> PrivateDir::sub(std::string_view name, bool create) const {
  if (!valid_component(name)) return std::nullopt;
  const std::string component(name);
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::openat(fd_, component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
      if (!create) return std::nullopt;
      if (::mkdirat(fd_, component.c_str(), 0700) != 0 && errno != EEXIST) {
        log(LogLevel::kWarn, "cache directory '{}' could not be created ({})", path_of(name), std::strerror(errno));
        return std::nullopt;
      }
      fd = ::openat(fd_, component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) ::fchmod(fd, 0700);  // whatever the umask made of it
    }
    if (fd < 0) {
      if (errno == ELOOP || errno == ENOTDIR) {
        log(LogLevel::kWarn, "cache entry '{}' is not a directory of ours (a link or a file); refusing it",
            path_of(name));
      }
      return std::nullopt;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
      ::close(fd);
      return std::nullopt;
    }
    if (st.st_uid != ::geteuid()) {
      ::close(fd);
      log(LogLevel::kWarn, "cache directory '{}' belongs to another user (uid {}); refusing to use it", path_of(name),
          st.st_uid);
      return std::nullopt;
    }
    if ((st.st_mode & 077) == 0) return PrivateDir(fd, path_of(name));
    ::close(fd);
    // Ours, but others could have written into it: nothing in it can be trusted.
    log(LogLevel::kWarn, "cache directory '{}' has mode {} (expected 0700); removing it", path_of(name),
        mode_text(st.st_mode));
    std::error_code ec;
    std::filesystem::remove_all(path_of(name), ec);
    if (!create) return std::nullopt;
  }
  return std::nullopt;
}

PrivateDir::Read PrivateDir::read(std::string_view name, std::string& out, std::size_t max_size) const {
  if (!valid_component(name)) return Read::kMissing;
  const std::string component(name);
  int fd = ::openat(fd_, component.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Read::kMissing;
    if (errno == ELOOP) return Read::kNotRegular;
    return Read::kError;
  }
  struct stat st {};
  Read status = Read::kOk;
  if (::fstat(fd, &st) != 0) {
    status = Read::kError;
  } else if (!S_ISREG(st.st_mode)) {
    status = Read::kNotRegular;
  } else if (st.st_uid != ::geteuid()) {
    status = Read::kForeign;
  } else if (static_cast<std::size_t>(st.st_size) > max_size) {
    status = Read::kTooLarge;
  }
  if (status != Read::kOk) {
    ::close(fd);
    return status;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(done);
  return Read::kOk;
}

bool PrivateDir::write(std::string_view name, std::string_view content, bool durable) const {
  if (!valid_component(name)) return false;
  static std::atomic<uint64_t> counter{0};
  const std::string component(name);
  const std::string temporary = fmt::format(".{}.tmp.{}.{}", component, ::getpid(), counter.fetch_add(1));
  int fd = ::openat(fd_, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  bool ok = done == content.size() && (!durable || ::fsync(fd) == 0);
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::renameat(fd_, temporary.c_str(), fd_, component.c_str()) != 0) {
    ::unlinkat(fd_, temporary.c_str(), 0);
    return false;
  }
  return true;
}

void PrivateDir::remove(std::string_view name) const {
  if (!valid_component(name)) return;
  const std::string component(name);
  if (::unlinkat(fd_, component.c_str(), 0) != 0 && errno == EISDIR) ::unlinkat(fd_, component.c_str(), AT_REMOVEDIR);
}

}  // namespace triton_jit::detail
