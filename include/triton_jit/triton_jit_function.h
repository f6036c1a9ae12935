// triton_jit/triton_jit_function.h: call a Python @triton.jit kernel from C++.
//
//   #include <triton_jit/triton_jit.h>
//   #include <triton_jit/torch.h>      // for at::Tensor and c10::Scalar arguments
//
//   auto& add = triton_jit::TritonJITFunction::get_instance("kernels/add.py", "add_kernel");
//   add(stream, grid_x, 1, 1, /*num_warps=*/4, /*num_stages=*/3, x, y, out, n, 1024);
//
// The first call with a new combination of argument types, specialisations, constexpr values
// and options compiles a variant with Triton (in an embedded Python interpreter); later calls
// with the same combination launch it directly: no Python, no heap allocation, no lock.
//
// Thread safety: get_instance and every call are safe from any number of threads. Concurrent
// first calls that need the same variant compile it once.
// Errors: LookupError (file or function), TypeError / ValueError (arguments), CompileError,
// DriverError, all derived from triton_jit::Error. See triton_jit/errors.h. Process-wide
// settings (cache, offline mode, search path, scratch memory, hooks) are in triton_jit/settings.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "triton_jit/arguments.h"
#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"

namespace triton_jit {

// A parameter of the kernel, as its Python signature declares it.
struct ParamInfo {
  std::string name;
  std::string kind;        // "specialized", "constexpr", "do_not_specialize", ...
  std::string annotation;  // Triton type ("i64", "*fp32") or "" when unannotated
  bool has_default = false;
};

// What one compiled variant is: the result of warmup(), for inspection and logging.
struct VariantInfo {
  std::string kernel_name;       // the symbol in the cubin
  std::string signature;         // "*fp32:16, *fp32:16, i32, constexpr BLOCK=1024"
  std::string target;            // "cuda:90"
  std::string triton_version;
  int num_warps = 0;             // as compiled (warp specialisation may raise it)
  int num_ctas = 0;
  int shared_memory = 0;
  int global_scratch_size = 0;   // bytes per program
  int profile_scratch_size = 0;
  int num_kernel_params = 0;     // parameters in the kernel ABI, scratch pointers included
  std::string cubin;             // the ELF image
};

// Per-function counters, cheap to read; updated with relaxed atomics.
struct FunctionStats {
  uint64_t hits = 0;            // launches that found their variant; counted only while stats are enabled
  uint64_t variant_misses = 0;  // calls that did not find their variant in memory
  uint64_t compiles = 0;        // variants compiled by Triton in this process
  double compile_seconds = 0;   // wall time of those compiles
  double load_seconds = 0;      // wall time of loading modules onto devices
};

class TRITON_JIT_API TritonJITFunction {
 public:
  // The function `name` in `path`: a .py file (absolute, or relative to the search path), or
  // "package.module:function" (then `name` may be empty). Loads the kernel's static signature
  // on first use. The returned object lives until the process exits. Thread-safe.
  static TritonJITFunction& get_instance(std::string_view path, std::string_view name);

  // libtriton_jit's call form.
  template <class... Args>
  void operator()(Stream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z, int num_warps,
                  int num_stages, const Args&... args) const {
    LaunchConfig config;
    config.stream = stream;
    config.grid = {grid_x, grid_y, grid_z};
    config.num_warps = num_warps;
    config.num_stages = num_stages;
    const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
    launch(config, slots, sizeof...(Args));
  }

  template <class... Args>
  void operator()(const LaunchConfig& config, const Args&... args) const {
    const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
    launch(config, slots, sizeof...(Args));
  }

  // The non-template entry both call forms use.
  void launch(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const;
  void launch(const LaunchConfig& config, const ArgumentBuilder& args) const {
    launch(config, args.data(), args.size());
  }

  // Compiles (or finds) the variant these arguments select, without launching. It targets
  // TRITON_JIT_TARGET when set, else config.device (or the current device) when there is a GPU,
  // else cuda:90. Pointer arguments may be host memory: nothing is
  // dereferenced.
  template <class... Args>
    requires(!(std::is_same_v<std::decay_t<Args>, ArgSlot*> || ...))  // (ArgSlot*, n) takes the overload below
  VariantInfo warmup(const LaunchConfig& config, const Args&... args) const {
    const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
    return warmup(config, slots, sizeof...(Args));
  }
  VariantInfo warmup(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const;
  VariantInfo warmup(const LaunchConfig& config, const ArgumentBuilder& args) const {
    return warmup(config, args.data(), args.size());
  }

  const std::string& name() const noexcept;
  const std::string& source_file() const noexcept;
  std::vector<ParamInfo> params() const;
  FunctionStats stats() const noexcept;

  TritonJITFunction(const TritonJITFunction&) = delete;
  TritonJITFunction& operator=(const TritonJITFunction&) = delete;

  struct Impl;

 private:
  explicit TritonJITFunction(Impl* impl) : impl_(impl) {}
  Impl* impl_;  // owned; never destroyed (instances live until exit)
};

}  // namespace triton_jit
