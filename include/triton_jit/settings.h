// triton_jit/settings.h: process-wide settings of triton_jit, all in one place.
//
//   triton_jit::set_cache_dir("/var/cache/my_app/kernels");   // where compiled variants persist
//   triton_jit::set_offline(true);                             // serve only the cache and bundles
//   triton_jit::add_kernel_search_path("/opt/my_app/kernels"); // for relative kernel paths
//
// Every function here is thread-safe. Each also has an environment variable read at start
// (named in its comment); the function, when called, wins.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {

// ---- the persistent cache and bundles ----------------------------------------------------------

// Compiled variants, kernel signatures and tuning results are kept on disk, so that a later
// process finds them without Python. Default: TRITON_JIT_CACHE_DIR, else
// $XDG_CACHE_HOME/triton_jit or ~/.cache/triton_jit; "" disables it. A directory of another
// user, or one writable by everyone, is refused (with a warning) and nothing is kept.
TRITON_JIT_API void set_cache_dir(std::string_view directory);
// The cache directory requested (it may still be refused when used); "" when disabled.
TRITON_JIT_API std::string cache_dir();

// Offline mode (also TRITON_JIT_OFFLINE=1): compiling is forbidden; a variant or signature not
// in the cache or a bundle is an Error naming it and how to precompile it.
TRITON_JIT_API void set_offline(bool offline) noexcept;
TRITON_JIT_API bool offline() noexcept;

// Adds one entry of an ahead-of-time bundle (see triton_jit_embed_bundle in CMake); the data
// must live as long as the process. Bundles are consulted before the disk cache and the compiler.
TRITON_JIT_API void register_bundle_entry(const char* relative_path, const void* data, std::size_t size);

// Adds every entry of a bundle directory made by triton_jit_aot (or record_bundle), for programs
// that ship the directory rather than embed it. Also TRITON_JIT_BUNDLE_PATH (':'-separated),
// read at the first lookup. Returns the number of entries; throws Error when the directory does
// not exist or is writable by everyone.
TRITON_JIT_API std::size_t add_bundle_directory(std::string_view directory);

// Records a bundle (also TRITON_JIT_RECORD_BUNDLE=<directory>): every signature and variant this
// process builds or loads from now on is also written into `directory`, which
// triton_jit_embed_bundle() then builds into a program. "" stops recording. Throws Error when
// the directory cannot be created or used (not a directory, another user's, writable by
// everyone); a later write that fails throws from the call that needed it.
TRITON_JIT_API void record_bundle(std::string_view directory);

// ---- autotuning ------------------------------------------------------------------------------------

// Autotuning on or off (also TRITON_JIT_AUTOTUNE=off): off, a kernel with @triton.autotune uses
// its first config (or the one forced) and nothing is benchmarked.
TRITON_JIT_API void set_autotune_enabled(bool enabled) noexcept;

// What an untuned key does while compiling and benchmarking are impossible (offline mode, or no
// GPU): -1 (default) is an error naming the kernel, the key and how to tune it; an index uses
// that config (0: the first). Also TRITON_JIT_AUTOTUNE_FALLBACK=error|first|<index>.
TRITON_JIT_API void set_autotune_fallback(int config) noexcept;

// ---- where kernels are found --------------------------------------------------------------------

// Directories searched for relative kernel paths, before TRITON_JIT_KERNEL_PATH (':'-separated)
// and the working directory. Affects get_instance calls made afterwards.
TRITON_JIT_API void add_kernel_search_path(std::string_view directory);

// The target used when no GPU decides it: TRITON_JIT_TARGET ("cuda:90", "cuda:90a",
// "hip:gfx942"), else the backend's default (cuda:90; hip:gfx942 in a HIP build). Throws
// ValueError when TRITON_JIT_TARGET is not a target.
TRITON_JIT_API Target default_target();

// Parses a target: "cuda:90", "cuda:90a", "sm_90", "90", "hip:gfx942". Throws ValueError naming the text.
TRITON_JIT_API Target parse_target(std::string_view text);
// "cuda:90", "cuda:90a", "hip:gfx942": the text parse_target reads back.
TRITON_JIT_API std::string target_text(const Target& target);

// Whether the backend's driver (CUDA's; HIP's in a HIP build) and at least one device are
// present (never throws).
TRITON_JIT_API bool cuda_available() noexcept;

// ---- memory -------------------------------------------------------------------------------------

// Memory for a kernel's global and profile scratch. allocate() returns device memory usable
// on `stream` of at least `bytes`, aligned to `alignment`; deallocate() is called right
// after the launch is enqueued, so the allocator must be stream-ordered (as PyTorch's caching
// allocator and cudaMallocAsync are). Both may throw. Must be thread-safe.
class ScratchAllocator {
 public:
  virtual ~ScratchAllocator() = default;
  virtual void* allocate(std::size_t bytes, std::size_t alignment, Stream stream) = 0;
  virtual void deallocate(void* ptr, std::size_t bytes, Stream stream) noexcept = 0;
};

// Sets the process-wide scratch allocator; nullptr removes it. The allocator is not owned and
// must outlive every launch. Returns the previous allocator.
TRITON_JIT_API ScratchAllocator* set_scratch_allocator(ScratchAllocator* allocator) noexcept;
TRITON_JIT_API ScratchAllocator* scratch_allocator() noexcept;

// ---- observability ------------------------------------------------------------------------------

// What a launch hook sees. Pointers are valid during the call only.
struct LaunchInfo {
  const char* kernel_name;
  const char* signature;  // the variant, as in VariantInfo::signature
  std::array<unsigned, 3> grid;
  Stream stream;
  int device;
};
using LaunchHook = void (*)(const LaunchInfo& info, void* user_data);

// Hooks called around every launch (a profiler's entry point); nullptr for none. With none set
// a launch pays one relaxed atomic load. Hooks must be thread-safe themselves.
TRITON_JIT_API void set_launch_hooks(LaunchHook enter, LaunchHook exit, void* user_data) noexcept;

// Counts cache hits per function (FunctionStats::hits): one relaxed atomic add per launch while
// enabled. Off by default; TRITON_JIT_STATS=1 turns it on at start.
TRITON_JIT_API void set_stats_enabled(bool enabled) noexcept;

// Keeps the intermediate texts of every compile from now on (also TRITON_JIT_KEEP_IR=1): ttir,
// ttgir, llir and ptx (amdgcn for AMD GPUs), in the cache entry and in VariantInfo::ir, as
// Triton's CompiledKernel.asm has them. Off by default: they are several times the binary's
// size. While it is on, a stored variant without them is compiled again where compiling is
// possible (not offline), so that what was asked for is there.
TRITON_JIT_API void set_keep_ir(bool keep) noexcept;
TRITON_JIT_API bool keep_ir() noexcept;

}  // namespace triton_jit
