// The library's one logger: stderr, with a level from TRITON_JIT_LOG_LEVEL (error, warn, info,
// debug; default warn) read once. Cold paths only: nothing on the launch path logs.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace triton_jit::detail {

enum class LogLevel : int { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

LogLevel log_level() noexcept;
void write_log(LogLevel level, std::string_view message) noexcept;

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (static_cast<int>(level) > static_cast<int>(log_level())) return;
  write_log(level, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace triton_jit::detail
