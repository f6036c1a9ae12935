#include "variants/function_identity.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cache/bundle.h"
#include "common/env.h"
#include "common/hash.h"
#include "compiler/paths.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

namespace fs = std::filesystem;

bool is_module_spec(std::string_view spec) {
  const auto colon = spec.find(':');
  return colon != std::string_view::npos && !spec.ends_with(".py") &&
         spec.substr(0, colon).find('/') == std::string_view::npos;
}

bool regular_file(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

// A kernel whose file is not here (a deployment that ships a bundle, not its sources): a bundle
// holding its signature serves it by its portable identity, the file's name and the function,
// as it would serve the same file found elsewhere. No source is checked against the bundle's
// (there is none); compiling it, for a variant the bundle lacks, fails naming the file.
std::optional<ResolvedFunction> bundled_only(std::string_view spec, std::string_view name,
                                             const std::vector<std::string>& search_path) {
  const std::string function(name);
  const std::string portable = fmt::format("{}::{}", fs::path(spec).filename().string(), function);
  const std::string bundle_dir = digest(portable).hex();
  if (!find_bundle_entry(bundle_dir + "/signature")) return std::nullopt;
  ResolvedFunction r;
  r.id = make_identity(fmt::format("bundle:{}", portable), portable, function, "");
  r.location = KernelLocation{std::string(spec), "", function, search_path};
  return r;
}

}  // namespace

ResolvedFunction resolve_function(std::string_view spec, std::string_view name,
                                  const std::vector<std::string>& search_path) {
  ResolvedFunction r;
  if (is_module_spec(spec)) {
    const auto colon = spec.find(':');
    const std::string module(spec.substr(0, colon));
    const std::string function(name.empty() ? spec.substr(colon + 1) : name);
    if (function.empty()) throw LookupError(fmt::format("'{}': no function name given", spec));
    // Without Python the module's file is unknown: the identity holds everything that decides
    // which file an import finds.
    const std::string where = fmt::format("[{}|{}|{}]", join(search_path, ":"), env_or("PYTHONPATH", ""),
                                          env_or("TRITON_JIT_PYTHON", configured_python()));
    r.id = make_identity(fmt::format("module:{}{}::{}", module, where, function),
                         fmt::format("module:{}::{}", module, function), function, "");
    r.location = KernelLocation{"", module, function, search_path};
    return r;
  }
  if (name.empty()) throw LookupError(fmt::format("'{}': no function name given", spec));
  fs::path found;
  const fs::path given(spec);
  if (given.is_absolute()) {
    if (regular_file(given)) found = given;
  } else {
    std::vector<std::string> bases = search_path;
    std::error_code ec;
    bases.push_back(fs::current_path(ec).string());
    for (const auto& base : bases) {
      if (fs::path candidate = fs::path(base) / given; regular_file(candidate)) {
        found = candidate;
        break;
      }
    }
    if (found.empty()) {
      if (auto bundled = bundled_only(spec, name, search_path)) return *bundled;
      throw LookupError(fmt::format("{}: kernel file '{}' not found (searched: {})", name, spec, join(bases, ", ")));
    }
  }
  if (found.empty()) {
    if (auto bundled = bundled_only(spec, name, search_path)) return *bundled;
    throw LookupError(fmt::format("{}: kernel file '{}' not found", name, spec));
  }
  std::error_code ec;
  const fs::path real = fs::canonical(found, ec);
  if (ec) throw LookupError(fmt::format("{}: kernel file '{}' cannot be resolved ({})", name, spec, ec.message()));
  const std::string function(name);
  r.id = make_identity(fmt::format("file:{}::{}", real.string(), function),
                       fmt::format("{}::{}", real.filename().string(), function), function, real.string());
  r.location = KernelLocation{real.string(), "", function, search_path};
  return r;
}

}  // namespace triton_jit::detail
