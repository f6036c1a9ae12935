// Compile targets as text ("cuda:90", "cuda:90a", "sm_90"), parsed and printed in one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// "cuda:90", "cuda:90a", "sm_90", "90": nullopt when the text is not a CUDA target.
std::optional<Target> parse_target(std::string_view text) noexcept;
// "cuda:90" / "cuda:90a".
std::string target_name(const Target& target);
// Parses or throws ValueError "<what>='<text>' is not a CUDA target; expected e.g. cuda:90 or cuda:90a".
Target require_target(std::string_view text, std::string_view what);

}  // namespace triton_jit::detail
