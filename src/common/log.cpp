#include "common/log.h"

#include "common/fork_guard.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace triton_jit::detail {
namespace {

LogLevel parse_level() {
  const char* text = std::getenv("TRITON_JIT_LOG_LEVEL");
  if (text == nullptr || *text == '\0') return LogLevel::kWarn;
  if (std::strcmp(text, "error") == 0) return LogLevel::kError;
  if (std::strcmp(text, "warn") == 0 || std::strcmp(text, "warning") == 0) return LogLevel::kWarn;
  if (std::strcmp(text, "info") == 0) return LogLevel::kInfo;
  if (std::strcmp(text, "debug") == 0) return LogLevel::kDebug;
  std::fprintf(stderr, "[triton_jit] WARN  TRITON_JIT_LOG_LEVEL='%s' is not error, warn, info or debug; using warn\n",
               text);
  return LogLevel::kWarn;
}

}  // namespace

LogLevel log_level() noexcept {
  static const LogLevel level = parse_level();
  return level;
}

void write_log(LogLevel level, std::string_view message) noexcept {
  static constexpr const char* kNames[] = {"ERROR", "WARN ", "INFO ", "DEBUG"};
  static auto* mutex = [] {
    auto* m = new std::mutex();  // keeps lines whole across threads; never destroyed
    guard_across_fork(*m, LockLevel::kLog);
    return m;
  }();
  std::lock_guard<std::mutex> lock(*mutex);
  std::fprintf(stderr, "[triton_jit] %s %.*s\n", kNames[static_cast<int>(level)], static_cast<int>(message.size()),
               message.data());
}

}  // namespace triton_jit::detail
