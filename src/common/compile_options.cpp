#include "triton_jit/compile_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include "common/hash.h"
#include "triton_jit/errors.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {
namespace {

constexpr std::array<std::string_view, 7> kLaunchConfigFields = {
    "num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_pdl", "launch_cooperative_grid"};

bool is_identifier(std::string_view name) {
  if (name.empty() || name.size() > 64 || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string python_text(const CompileOptions::Value& value) {
  struct Visitor {
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& v) const { return fmt::format("'{}'", v); }
  };
  return std::visit(Visitor{}, value);
}

std::optional<int64_t> parse_integer(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::optional<double> parse_real(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

CompileOptions& CompileOptions::put(std::string_view name, Value value) {
  if (!is_identifier(name)) {
    throw ValueError(
        fmt::format("CompileOptions::set: '{}' is not an option name (a Python identifier of at most "
                    "64 characters)",
                    name.substr(0, 100)));
  }
  if (std::find(kLaunchConfigFields.begin(), kLaunchConfigFields.end(), name) != kLaunchConfigFields.end()) {
    throw ValueError(fmt::format("CompileOptions::set: '{}' is a field of LaunchConfig; set it there", name));
  }
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, std::string_view n) { return item.first < n; });
  if (it != items_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    items_.emplace(it, std::string(name), std::move(value));
  }
  // The key keeps 56 bits of it beside maxnreg; never 0, which means "no options".
  std::string canonical;
  for (const auto& [n, v] : items_) canonical += fmt::format("{}={}:{};", n, v.index(), python_text(v));
  digest_ = (detail::digest(canonical).low & 0x00ff'ffff'ffff'ffffULL) | 1;
  return *this;
}

CompileOptions CompileOptions::for_call(LaunchConfig& config) const {
  config.num_warps = num_warps;
  config.num_stages = num_stages;
  CompileOptions out;
  out.items_ = items_;
  out.digest_ = digest_;
  for (const auto& option : extra) {
    // Named references, not a structured binding: clang before 16 cannot capture one in a lambda.
    const std::string& name = option.first;
    const std::string& literal = option.second;
    const bool truth = literal == "True" || literal == "true";
    const bool falsity = literal == "False" || literal == "false";
    const std::optional<int64_t> integer = parse_integer(literal);
    auto field_int = [&]() -> int {
      if (!integer || *integer < 0 || *integer > 1 << 20) {
        throw ValueError(fmt::format("CompileOptions::extra: '{}' must be a non-negative integer, got '{}'", name,
                                     literal.substr(0, 100)));
      }
      return static_cast<int>(*integer);
    };
    auto field_bool = [&]() -> bool {
      if (!truth && !falsity && integer != 0 && integer != 1) {
        throw ValueError(
            fmt::format("CompileOptions::extra: '{}' must be true or false, got '{}'", name, literal.substr(0, 100)));
      }
      return truth || integer == 1;
    };
    if (name == "num_ctas") {
      config.num_ctas = field_int();
    } else if (name == "maxnreg") {
      config.maxnreg = field_int();
    } else if (name == "enable_fp_fusion") {
      config.enable_fp_fusion = field_bool();
    } else if (name == "launch_pdl") {
      config.launch_pdl = field_bool();
    } else if (name == "launch_cooperative_grid") {
      config.launch_cooperative_grid = field_bool();
    } else if (name == "num_warps" || name == "num_stages") {
      throw ValueError(fmt::format("CompileOptions::extra: '{}' is a field of CompileOptions; set it there", name));
    } else if (truth || falsity) {
      out.set(name, truth);
    } else if (integer) {
      out.set(name, static_cast<long long>(*integer));
    } else if (auto real = parse_real(literal)) {
      out.set(name, *real);
    } else {
      out.set(name, literal);
    }
  }
  return out;
}

std::string CompileOptions::text() const {
  std::string out;
  for (const auto& [name, value] : items_)
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", name, python_text(value));
  return out;
}

}  // namespace triton_jit
