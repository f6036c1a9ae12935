// triton_jit/impl/kernel_image.h: a compiled kernel as a backend receives it. No compatibility promise.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace triton_jit::impl {

// Launch metadata of one compiled variant, from Triton's compiler (see scripts/triton_jit_compile.py).
// How a compiled kernel reads one tensor descriptor parameter (Triton's tensordesc_meta entry).
struct TensorMapLayout {
  bool tma = false;  // false: the kernel takes the base pointer, shape and strides instead of a CUtensorMap
  int swizzle = 0;   // CUtensorMapSwizzle
  int elem_size = 0;
  int elem_type = 0;  // the device-side enum, as the metadata gives it
  int rank = 0;
  std::array<int, 5> block{};
  bool fp4_padded = false;
};

struct KernelMetadata {
  std::string name;   // kernel symbol in the binary
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
  std::vector<TensorMapLayout> tensor_maps;  // per tensor descriptor parameter, in order; empty: none uses TMA
  // The i1 flags a descriptor read without TMA passes after its base, shape and strides, as the
  // compiling Triton's launcher passes them: 0 (3.4), 1 (padding, 3.5 on), 2 (and round_f32_to_tf32, 3.8 on).
  int descriptor_flags = 1;
};

// A tiled tensor map (CUtensorMap) to encode for a launch, dimensions innermost first, as
// cuTensorMapEncodeTiled takes them.
struct TensorMapRequest {
  const void* base = nullptr;
  int rank = 0;
  int elem_type = 0;  // the host-side enum (CUtensorMapDataType)
  std::array<uint64_t, 5> dims{};
  std::array<uint64_t, 4> byte_strides{};  // of dimensions 1 to rank-1
  std::array<uint32_t, 5> box{};
  int swizzle = 0;
  bool nan_fill = false;  // out-of-bounds reads give NaN (padding="nan"), else zero
};

// What the driver reports of a loaded kernel, as Triton's CompiledKernel has it: registers per
// thread (n_regs), local memory per thread in 4-byte words (n_spills) and the most threads a
// block of it may have (n_max_threads).
struct KernelResources {
  int registers = -1;
  int spilled_words = -1;
  int max_threads = -1;
};

struct KernelImage {
  std::string_view binary;  // cubin
  const KernelMetadata* metadata;
};

}  // namespace triton_jit::impl
