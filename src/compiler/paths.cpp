#include "compiler/paths.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "build_paths.h"
#include "common/env.h"
#include "common/process.h"

namespace triton_jit::detail {

std::filesystem::path library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) != 0 && info.dli_fname != nullptr) {
    std::error_code ec;
    auto real = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec) return real.parent_path();
    return std::filesystem::absolute(info.dli_fname).parent_path();
  }
  return std::filesystem::path(TRITON_JIT_BUILD_LIBRARY_DIR);
}

std::filesystem::path scripts_dir() {
  if (auto dir = env_or("TRITON_JIT_SCRIPTS_DIR", ""); !dir.empty()) return dir;
  std::error_code ec;
  auto installed = std::filesystem::weakly_canonical(library_dir() / TRITON_JIT_INSTALLED_SCRIPTS_RELATIVE, ec);
  if (!ec && std::filesystem::exists(installed / "triton_jit_compile.py")) return installed;
  return std::filesystem::path(TRITON_JIT_SOURCE_SCRIPTS_DIR);
}

std::string configured_python() {
  if (const char* configured = TRITON_JIT_CONFIGURED_PYTHON; configured[0] != '\0') return configured;
  // A wheel: the library is <env>/lib/pythonX.Y/site-packages/triton_jit/lib, and the
  // environment's interpreter is <env>/bin/python3; elsewhere, the first python3 on PATH.
  std::error_code ec;
  const std::filesystem::path env_python = library_dir() / ".." / ".." / ".." / ".." / ".." / "bin" / "python3";
  if (std::filesystem::exists(env_python, ec)) return env_python.lexically_normal().string();
  const std::string path = env_or("PATH", "");
  for (std::size_t start = 0; start <= path.size();) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const std::filesystem::path candidate = std::filesystem::path(path.substr(start, end - start)) / "python3";
    if (end > start && std::filesystem::exists(candidate, ec)) return candidate.string();
    start = end + 1;
  }
  return "python3";
}

std::string libpython_for(const std::string& python) {
  const std::string configured = TRITON_JIT_CONFIGURED_LIBPYTHON;
  if (std::getenv("TRITON_JIT_PYTHON") == nullptr && !configured.empty() && configured.front() == '/') {
    return configured;
  }
  const auto printed = output_of({python, "-S", (scripts_dir() / "triton_jit_libpython.py").string()});
  if (printed) {
    std::string path = *printed;
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
    if (!path.empty() && path.find('\n') == std::string::npos) return path;
  }
  return configured;
}

}  // namespace triton_jit::detail
