#include "common/target.h"

#include <fmt/format.h>

#include <charconv>

#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

namespace {

// "gfx942", "gfx90a", "gfx1100": the digits after "gfx" are hexadecimal.
std::optional<Target> parse_hip_target(std::string_view text) noexcept {
  if (!text.starts_with("gfx")) return std::nullopt;
  text.remove_prefix(3);
  if (text.size() < 3 || text.size() > 4) return std::nullopt;
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  for (char c : text) {
    if (c >= 'A' && c <= 'F') return std::nullopt;  // AMD spells them in lower case
  }
  Target t;
  t.vendor = Vendor::kHip;
  t.arch = value;
  return t;
}

}  // namespace

std::optional<Target> parse_target(std::string_view text) noexcept {
  if (text.starts_with("hip:")) return parse_hip_target(text.substr(4));
  if (text.starts_with("gfx")) return parse_hip_target(text);
  if (text.starts_with("cuda:")) {
    text.remove_prefix(5);
  } else if (text.starts_with("sm_")) {
    text.remove_prefix(3);
  }
  Target t;
  t.arch_specific = !text.empty() && text.back() == 'a';
  if (t.arch_specific) text.remove_suffix(1);
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 10 || value > 1000) return std::nullopt;
  t.arch = value;
  return t;
}

std::string target_name(const Target& target) {
  if (target.vendor == Vendor::kHip) return fmt::format("hip:gfx{:x}", target.arch);
  return fmt::format("cuda:{}{}", target.arch, target.arch_specific ? "a" : "");
}

std::string arch_name(const Target& target) {
  if (target.vendor == Vendor::kHip) return fmt::format("gfx{:x}", target.arch);
  return std::to_string(target.arch);
}

Target require_target(std::string_view text, std::string_view what) {
  if (auto t = parse_target(text)) return *t;
  throw ValueError(fmt::format("{}='{}' is not a compile target; expected e.g. cuda:90, cuda:90a or hip:gfx942", what,
                               text.substr(0, 200)));
}

}  // namespace triton_jit::detail

namespace triton_jit {

Target parse_target(std::string_view text) { return detail::require_target(text, "target"); }
std::string target_text(const Target& target) { return detail::target_name(target); }

}  // namespace triton_jit
