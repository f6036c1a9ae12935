#include "compiler/paths.h"

#include <dlfcn.h>

#include <cstdlib>

#include "build_paths.h"
#include "common/env.h"

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

std::string configured_python() { return TRITON_JIT_CONFIGURED_PYTHON; }
std::string configured_libpython() { return TRITON_JIT_CONFIGURED_LIBPYTHON; }

}  // namespace triton_jit::detail
