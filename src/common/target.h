// Compile targets as text ("cuda:90", "cuda:90a", "sm_90", "hip:gfx942"), parsed and printed in one place.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// "cuda:90", "cuda:90a", "sm_90", "90", "hip:gfx942", "gfx90a": nullopt when the text is not a
// compile target.
std::optional<Target> parse_target(std::string_view text) noexcept;
// "cuda:90" / "cuda:90a" / "hip:gfx942".
std::string target_name(const Target& target);
// The architecture as Triton's metadata names it: "90", "gfx942".
std::string arch_name(const Target& target);
// Parses or throws ValueError "<what>='<text>' is not a compile target; expected e.g. ...".
Target require_target(std::string_view text, std::string_view what);

}  // namespace triton_jit::detail
