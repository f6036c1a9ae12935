// A directory tree only this user can write, reached through checked file descriptors: the
// persistent cache's storage. See Note [Private directories].
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace triton_jit::detail {

class PrivateDir {
 public:
  enum class Read { kOk, kMissing, kForeign, kNotRegular, kTooLarge, kError };

  // Opens `root`, creating it (0700) and its parents if missing and `create`. nullopt, with `why`
  // set, when it is missing (and not created), not a directory, another user's or writable by
  // everyone ("" when it is just missing).
  static std::optional<PrivateDir> open_root(const std::string& root, std::string& why, bool create = true);

  // Opens the subdirectory `name` (one path component), creating it 0700 when `create`. nullopt
  // when missing (and not created), or refused: a symbolic link, not a directory, another user's.
  // A directory of ours with group or other permissions is removed and, when `create`, recreated.
  std::optional<PrivateDir> sub(std::string_view name, bool create) const;

  // Reads the regular file `name` (no symlinks, no FIFOs, not another user's, at most max_size).
  Read read(std::string_view name, std::string& out, std::size_t max_size) const;
  // Writes `name` atomically (a private temporary file, renamed into place). `durable` also
  // fsyncs it first: a cache entry does not need that (a torn one fails its checksum and is
  // rebuilt), a recorded bundle does. False on any failure.
  bool write(std::string_view name, std::string_view content, bool durable = false) const;
  // Removes the entry `name` (a file, a link, a FIFO or an empty directory).
  void remove(std::string_view name) const;

  const std::string& path() const noexcept { return path_; }
  std::string path_of(std::string_view name) const;

  PrivateDir(PrivateDir&& other) noexcept;
  PrivateDir& operator=(PrivateDir&& other) noexcept;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir();

 private:
  PrivateDir(int fd, std::string path) noexcept : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

}  // namespace triton_jit::detail
