#include "common/kernel_path.h"

#include <dlfcn.h>

#include <filesystem>

namespace triton_jit::ops {

std::string kernel_path(const char* file) {
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&kernel_path), &info);
  auto dir = std::filesystem::absolute(info.dli_fname).parent_path() / "triton_jit_kernels";
  return (dir / file).string();
}

}  // namespace triton_jit::ops
