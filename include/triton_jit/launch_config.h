// triton_jit/launch_config.h: how a kernel is launched and which compile options it uses.
//
//   triton_jit::LaunchConfig cfg;
//   cfg.stream = stream;             // any CUstream / cudaStream_t; nullptr is the default stream
//   cfg.grid = {blocks, 1, 1};
//   cfg.num_warps = 8;               // 0: the kernel's default (its single autotune config) or 4
//   cfg.num_ctas = 2;                // thread-block cluster of 2 (Hopper and newer)
//   add(cfg, x, y, out, n);
//
// Fields that are compile options (num_warps, num_stages, num_ctas, maxnreg, enable_fp_fusion,
// launch_pdl, launch_cooperative_grid, compile_options) select the variant; the others only
// affect the launch.
// For a kernel with @triton.autotune, the chosen config's num_warps, num_stages, num_ctas and
// maxnreg replace the config's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "triton_jit/export.h"

// The CUDA stream type, declared the way cuda.h declares it, so that this header needs no cuda.h.
struct CUstream_st;

namespace triton_jit {

using Stream = CUstream_st*;

class LaunchMeta;      // a call's final arguments, by name (triton_jit_function.h)
class CompileOptions;  // options of the installed Triton by name (compile_options.h)

// Computes a call's grid from its final arguments: for kernels whose decorators choose block
// sizes (@triton.autotune, @triton.heuristics), as Triton's `grid = lambda META: ...` does.
//   cfg.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
//     return triton_jit::Grid{triton_jit::cdiv(m["M"], m["BLOCK_M"]), triton_jit::cdiv(m["N"], m["BLOCK_N"]), 1};
//   };
using Grid = std::array<unsigned, 3>;
using GridFunction = Grid (*)(const LaunchMeta& meta, void* user_data);

// The number of blocks of `b` covering `a` (Triton's cdiv), as a grid dimension.
constexpr unsigned cdiv(int64_t a, int64_t b) noexcept { return static_cast<unsigned>((a + b - 1) / b); }

struct LaunchConfig {
  Stream stream = nullptr;
  std::array<unsigned, 3> grid{1, 1, 1};
  int num_warps = 0;   // 0: kernel default, else a power of two
  int num_stages = 0;  // 0: kernel default
  int num_ctas = 0;    // 0: kernel default (1)
  int maxnreg = 0;     // 0: no limit
  bool enable_fp_fusion = true;
  bool launch_pdl = false;               // programmatic dependent launch
  bool launch_cooperative_grid = false;  // cooperative launch (grid-wide sync)
  // Other compile options of the installed Triton, by name; part of the variant. Not owned: it
  // must outlive the calls that use it.
  const CompileOptions* compile_options = nullptr;
  int shared_memory = -1;  // dynamic shared memory bytes; -1: what the compiled kernel needs
  // The device to launch on; -1: the device of the tensor arguments, or with none the calling
  // thread's current device. Its context must be current (or be the device's primary context).
  int device = -1;
  // When set, replaces `grid`: called on every launch with the call's final arguments.
  GridFunction grid_fn = nullptr;
  void* grid_data = nullptr;
};

// A compile target: an NVIDIA architecture (90 for sm_90, with the 'a' suffix or not), or an AMD
// one (the gfx name's hexadecimal digits: 0x942 for gfx942, 0x90a for gfx90a).
enum class Vendor : uint8_t { kCuda, kHip };
struct Target {
  int arch = 90;
  bool arch_specific = false;  // the 'a' suffix, e.g. sm_90a
  Vendor vendor = Vendor::kCuda;
};

}  // namespace triton_jit
