// Reading the process environment, written once.
#pragma once

#include <string>

namespace triton_jit::detail {

// The variable's value, or `fallback` when it is unset or empty.
std::string env_or(const char* name, const std::string& fallback);
// Whether the variable is set to something other than "", "0", "off", "false" or "no".
bool env_flag(const char* name) noexcept;

}  // namespace triton_jit::detail
