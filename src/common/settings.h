// Process-wide settings: one place for what the public functions of triton_jit/settings.h set
// (cache directory, offline mode, statistics, launch hooks, kernel search path, scratch
// allocator). Read on cold paths, except the atomics the launch path loads.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "triton_jit/settings.h"

namespace triton_jit::detail {

struct LaunchHooks {
  LaunchHook enter;
  LaunchHook exit;
  void* user_data;
};

// The atomics a launch reads; relaxed loads, one cache line.
struct alignas(64) HotSettings {
  std::atomic<const LaunchHooks*> hooks{nullptr};
  std::atomic<bool> stats{false};
  std::atomic<bool> offline{false};
  std::atomic<ScratchAllocator*> scratch{nullptr};
  std::atomic<bool> autotune{true};
  std::atomic<int> autotune_fallback{-1};  // -1: an untuned key offline is an error
  std::atomic<bool> keep_ir{false};        // read by compiles only
};
extern constinit HotSettings g_hot_settings;
inline HotSettings& hot_settings() noexcept { return g_hot_settings; }

// The cache root to use: set_cache_dir()'s, else TRITON_JIT_CACHE_DIR, else the XDG default;
// "" when disabled.
std::string cache_root();
// add_kernel_search_path()'s directories, then TRITON_JIT_KERNEL_PATH's.
std::vector<std::string> kernel_search_path();
// Digest of the environment variables Triton's compiler reads (TRITON_*, MLIR_*, LLVM_*, apart
// from triton_jit's own and locations that do not change the code).
std::string compiler_environment_digest();

}  // namespace triton_jit::detail
