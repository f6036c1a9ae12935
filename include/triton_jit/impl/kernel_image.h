// triton_jit/impl/kernel_image.h: a compiled kernel as a backend receives it. No compatibility promise.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace triton_jit::impl {

// Launch metadata of one compiled variant, from Triton's compiler (see scripts/triton_jit_compile.py).
struct KernelMetadata {
  std::string name;  // kernel symbol in the binary
  int num_warps = 4;  // as compiled; warp specialisation may raise it above the request
  int num_ctas = 1;
  int shared = 0;  // dynamic shared memory bytes
  int tmem_size = 0;
  int global_scratch_size = 0;  // bytes per program
  int global_scratch_align = 1;
  int profile_scratch_size = 0;
  int profile_scratch_align = 1;
  int scratch_params = 2;  // scratch pointers after the kernel's own parameters (Triton 3.5 on: global, profile)
  bool launch_pdl = false;
  bool launch_cooperative_grid = false;
  std::string arch;  // "90", "90a"
  int ptx_version = 0;
  std::string triton_version;
};

struct KernelImage {
  std::string_view binary;  // cubin
  const KernelMetadata* metadata;
};

}  // namespace triton_jit::impl
