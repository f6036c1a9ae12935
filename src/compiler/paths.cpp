#include "compiler/paths.h"

#include <dlfcn.h>

#include <cstdlib>

#include "build_paths.h"

namespace triton_jit::detail {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::filesystem::path library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) != 0 && info.dli_fname != nullptr) {
    return std::filesystem::absolute(info.dli_fname).parent_path();
  }
  return std::filesystem::path(TRITON_JIT_BUILD_LIBRARY_DIR);
}

std::filesystem::path scripts_dir() {
  if (const char* dir = std::getenv("TRITON_JIT_SCRIPTS_DIR"); dir != nullptr && *dir != '\0') return dir;
  auto installed = library_dir() / TRITON_JIT_INSTALLED_SCRIPTS_RELATIVE;
  if (std::filesystem::exists(installed / "triton_jit_compile.py")) return installed.lexically_normal();
  return std::filesystem::path(TRITON_JIT_SOURCE_SCRIPTS_DIR);
}

std::string configured_python() { return TRITON_JIT_CONFIGURED_PYTHON; }
std::string configured_libpython() { return TRITON_JIT_CONFIGURED_LIBPYTHON; }

}  // namespace triton_jit::detail
