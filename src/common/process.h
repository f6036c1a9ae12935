// Running a helper program and reading what it prints: used once, when the compiler is first
// loaded, never on a launch.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace triton_jit::detail {

// The standard output of `argv` (argv[0] a path, or a name looked up in PATH; no shell), or nullopt when it cannot be
// started or exits with a status other than 0. Its standard error is discarded.
std::optional<std::string> output_of(const std::vector<std::string>& argv);

}  // namespace triton_jit::detail
