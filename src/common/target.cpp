#include "common/target.h"

#include <fmt/format.h>

#include <charconv>

#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

std::optional<Target> parse_target(std::string_view text) noexcept {
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
  return fmt::format("cuda:{}{}", target.arch, target.arch_specific ? "a" : "");
}

Target require_target(std::string_view text, std::string_view what) {
  if (auto t = parse_target(text)) return *t;
  throw ValueError(fmt::format("{}='{}' is not a CUDA target; expected e.g. cuda:90 or cuda:90a", what,
                               text.substr(0, 200)));
}

}  // namespace triton_jit::detail

namespace triton_jit {

Target parse_target(std::string_view text) { return detail::require_target(text, "target"); }

}  // namespace triton_jit
