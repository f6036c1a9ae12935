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
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "triton_jit/arguments.h"
#include "triton_jit/backend_config.h"
#include "triton_jit/compile_options.h"
#include "triton_jit/export.h"
#include "triton_jit/jit_function_arg.h"
#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"

namespace triton_jit {

// A parameter of the kernel, as its Python signature declares it.
struct ParamInfo {
  std::string name;
  std::string kind;        // "specialized", "constexpr", "do_not_specialize", ...
  std::string annotation;  // Triton type ("i64", "*fp32") or "" when unannotated
  bool has_default = false;
  // The default as a slot (strings point into the function, which lives until exit); kNone when
  // there is none, kUnsupported when the Python default is not a value a call could pass.
  ArgSlot default_value{};
  // Set by the kernel's @triton.autotune configs or @triton.heuristics: a call leaves it out (the
  // positional arguments of a decorated call are the other parameters, in order).
  bool set_by_decorators = false;
};

// One intermediate text of a compile ("ttir", "ttgir", "llir", "ptx"; "amdgcn" for AMD GPUs).
struct IRText {
  std::string_view stage;
  std::string_view text;
};

// What one compiled variant is: the result of warmup() and prepare(), for inspection and
// logging, with what the compiler and the driver reported as Triton's CompiledKernel has it.
// The views (cubin, ir) point into the variant, which lives as long as the process.
struct VariantInfo {
  std::string kernel_name;  // the symbol in the cubin
  std::string signature;    // "*fp32:16, *fp32:16, i32, constexpr BLOCK=1024"
  std::string target;       // "cuda:90"
  std::string triton_version;
  int num_warps = 0;  // as compiled (warp specialisation may raise it)
  int num_ctas = 0;
  int shared_memory = 0;
  int global_scratch_size = 0;  // bytes per program
  int profile_scratch_size = 0;
  int num_kernel_params = 0;  // parameters in the kernel ABI, scratch pointers included
  // As the driver reports them once the variant is loaded on a device (prepare(), or a launch;
  // the device asked for, else the first it is loaded on); -1 before. Triton's n_regs, n_spills
  // (local memory in 4-byte words) and n_max_threads.
  int n_regs = -1;
  int n_spills = -1;
  int max_threads_per_block = -1;
  std::string_view cubin;  // the ELF image (an AMDGPU code object for HIP targets)
  // The intermediate texts, in the order Triton produced them; empty unless keep_ir was on
  // (triton_jit/settings.h) when the variant was compiled.
  std::vector<IRText> ir;

  // One stage's text, or "" when it was not kept.
  std::string_view ir_text(std::string_view stage) const noexcept {
    for (const IRText& t : ir) {
      if (t.stage == stage) return t.text;
    }
    return {};
  }
};

// Per-function counters, cheap to read; updated with relaxed atomics.
struct FunctionStats {
  uint64_t hits = 0;            // launches that found their variant; counted only while stats are enabled
  uint64_t remembered = 0;      // of those, decorated calls served by the memo of recent calls (likewise)
  uint64_t variant_misses = 0;  // calls that did not find their variant in memory
  uint64_t compiles = 0;        // variants compiled by Triton in this process
  uint64_t tunings = 0;         // autotune keys benchmarked in this process
  double compile_seconds = 0;   // wall time of those compiles
  double load_seconds = 0;      // wall time of loading modules onto devices
};

// A call's final arguments: the caller's, then what the kernel's decorators set, and the compile
// options; what a GridFunction reads. Valid during the call only.
class TRITON_JIT_API LaunchMeta {
 public:
  // An integer or bool argument by parameter name, or "num_warps", "num_stages", "num_ctas".
  // Throws ValueError when there is none, or it is not an integer or bool.
  int64_t operator[](std::string_view name) const;
  // Any number (floats too).
  double real(std::string_view name) const;
  // The argument of a parameter whatever its kind, or nullptr when there is no such parameter.
  const ArgSlot* argument(std::string_view name) const noexcept { return find(name); }

  LaunchMeta(const void* signature, const ArgSlot* args, std::size_t num_args, const LaunchConfig& config) noexcept
      : signature_(signature), args_(args), num_args_(num_args), config_(config) {}
  // Parameters from num_args on come from `rest` (what a decorated call's decorators set).
  LaunchMeta(const void* signature, const ArgSlot* args, std::size_t num_args, const ArgSlot* rest,
             const LaunchConfig& config) noexcept
      : signature_(signature), args_(args), num_args_(num_args), config_(config), rest_(rest) {}

 private:
  const ArgSlot* find(std::string_view name) const noexcept;
  const void* signature_;
  const ArgSlot* args_;
  std::size_t num_args_;
  const LaunchConfig& config_;
  const ArgSlot* rest_ = nullptr;
};

// A config chosen by @triton.autotune for some arguments.
struct AutotuneChoice {
  int config = -1;          // index in the decorator's configs
  std::string text;         // "BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3"
  std::string source;       // "tuned" (in this process), "cache", "bundle", "forced", "autotune off", "fallback"
  double milliseconds = 0;  // its median time, when tuned in this process
};

class TRITON_JIT_API TritonJITFunction {
 public:
  // The function `name` in `path`: a .py file (absolute, or relative to the search path), or
  // "package.module:function" (then `name` may be empty). Loads the kernel's static signature
  // on first use. The returned object lives until the process exits. Thread-safe.
  static TritonJITFunction& get_instance(std::string_view path, std::string_view name);

  // libtriton_jit's call form.
  template <class... Args>
  void operator()(Stream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z, int num_warps, int num_stages,
                  const Args&... args) const {
    LaunchConfig config;
    config.stream = stream;
    config.grid = {grid_x, grid_y, grid_z};
    config.num_warps = num_warps;
    config.num_stages = num_stages;
    (*this)(config, args...);
  }

  // libtriton_jit's call form with its CompileOptions: num_warps, num_stages and the `extra`
  // options (compile_options.h); allocates when there are named options.
  template <class... Args>
  void operator()(Stream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z, const CompileOptions& options,
                  const Args&... args) const {
    LaunchConfig config;
    config.stream = stream;
    config.grid = {grid_x, grid_y, grid_z};
    if (options.empty() && options.extra.empty()) {
      config.num_warps = options.num_warps;
      config.num_stages = options.num_stages;
      (*this)(config, args...);
      return;
    }
    const CompileOptions named = options.for_call(config);
    if (!named.empty()) config.compile_options = &named;
    (*this)(config, args...);
  }

  template <class... Args>
  void operator()(const LaunchConfig& config, const Args&... args) const {
    if constexpr ((is_tuple_like_v<Args> || ...)) {
      ArgSlot slots[(slot_count_v<Args> + ... + 0)];
      ArgSlot* out = slots;
      ((out = write_slots(out, args)), ...);
      launch_nested(config, slots, out - slots);
    } else {
      const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
      launch(config, slots, sizeof...(Args));
    }
  }

  // The non-template entry both call forms use: one slot per argument.
  void launch(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const;
  // Arguments that include tuples: each tuple is a kTuple slot followed by its elements' slots.
  void launch_nested(const LaunchConfig& config, const ArgSlot* slots, std::size_t num_slots) const;
  void launch(const LaunchConfig& config, const ArgumentBuilder& args) const {
    if (args.nested()) {
      launch_nested(config, args.data(), args.size());
    } else {
      launch(config, args.data(), args.size());
    }
  }

  // libtriton_jit's raw launch: `signature` has one token per parameter the call passes, joined
  // by commas, as libtriton_jit spells them: a pointer "*fp32" (":16" claims 16-byte alignment), a
  // scalar "i32" / "i64" / "fp32" / "i1" (":16" claims divisibility by 16, ":1" is the value 1 and
  // passes nothing), a constexpr's value ("1024", "0.5", "true", "nullopt", a string), a tuple
  // "(i32,i64)", or a JitFunctionArg's signature_token(). `args` holds, in order, the address of
  // the value of every parameter the signature does not fix (the addresses of libtriton_jit's
  // ParameterBuffer), then optionally the scratch pointers it appends, which are ignored: this
  // runtime allocates scratch itself. `num_args` (0: not given) is checked against that count.
  // The values are then specialised as Triton's Python runtime would (an i64 that fits is i32,
  // 16 | n gives the divisibility attribute) and a claim the value contradicts is a ValueError
  // naming the parameter. The signature is parsed once per distinct text; after that a call
  // reads it from a lock-free list: no allocation, no lock.
  void launch_with_raw_args(Stream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned num_warps,
                            unsigned num_stages, std::string_view signature, void** args,
                            std::size_t num_args = 0) const;
  // libtriton_jit's compile: the variant such a signature selects, built for `device` (its
  // architecture; the CUDA context is not needed) without launching. Unclaimed scalars and
  // pointers compile as values with neither attribute.
  VariantInfo compile(std::string_view signature, unsigned num_warps, unsigned num_stages, int device) const;

  // Compiles (or finds) the variant these arguments select, without launching. It targets
  // TRITON_JIT_TARGET when set, else config.device (or the current device) when there is a GPU,
  // else cuda:90. Pointer arguments may be host memory: nothing is
  // dereferenced.
  // clang-format off: this clang-format splits requires-clauses mid-declaration
  template <class... Args>
  requires(!(std::is_same_v<std::decay_t<Args>, ArgSlot*> || ...))  // (ArgSlot*, n) takes the overload below
      VariantInfo warmup(const LaunchConfig& config, const Args&... args)
  const {
    if constexpr ((is_tuple_like_v<Args> || ...)) {
      ArgSlot slots[(slot_count_v<Args> + ... + 0)];
      ArgSlot* out = slots;
      ((out = write_slots(out, args)), ...);
      return warmup_nested(config, slots, out - slots);
    } else {
      const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
      return warmup(config, slots, sizeof...(Args));
    }
  }  // clang-format on

  VariantInfo warmup(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const;
  VariantInfo warmup_nested(const LaunchConfig& config, const ArgSlot* slots, std::size_t num_slots) const;
  VariantInfo warmup(const LaunchConfig& config, const ArgumentBuilder& args) const {
    return args.nested() ? warmup_nested(config, args.data(), args.size()) : warmup(config, args.data(), args.size());
  }

  // Everything a call with these arguments does except the launch, on the device the launch
  // would use: heuristics, tuning of a new autotune key (the configs run on config.stream, with
  // reset_to_zero and restore_value honoured), compiling and loading the variant. After it, the
  // same call makes no CUDA call but the launch: what a CUDA graph capture needs. Needs a GPU.
  // clang-format off: this clang-format splits requires-clauses mid-declaration
  template <class... Args>
  requires(!(std::is_same_v<std::decay_t<Args>, ArgSlot*> || ...)) VariantInfo
      prepare(const LaunchConfig& config, const Args&... args)
  const {
    if constexpr ((is_tuple_like_v<Args> || ...)) {
      ArgSlot slots[(slot_count_v<Args> + ... + 0)];
      ArgSlot* out = slots;
      ((out = write_slots(out, args)), ...);
      return prepare_nested(config, slots, out - slots);
    } else {
      const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
      return prepare(config, slots, sizeof...(Args));
    }
  }  // clang-format on

  VariantInfo prepare(const LaunchConfig& config, const ArgSlot* args, std::size_t num_args) const;
  VariantInfo prepare_nested(const LaunchConfig& config, const ArgSlot* slots, std::size_t num_slots) const;

  const std::string& name() const noexcept;
  const std::string& source_file() const noexcept;
  std::vector<ParamInfo> params() const;
  FunctionStats stats() const noexcept;

  // ---- @triton.autotune -------------------------------------------------------------------------
  // The first call with a new key (the values of the decorator's `key` arguments and the dtypes
  // of the tensor arguments, as Triton forms it) benchmarks every config on the caller's stream,
  // as triton.testing.do_bench does, and keeps the fastest; the choice is persisted like a
  // variant. Concurrent first calls with one key tune once.

  // The configs, as text, in the decorator's order ({} for a kernel without @triton.autotune).
  std::vector<std::string> autotune_configs() const;
  // The config chosen for these arguments, without tuning: from this process, the cache or a
  // bundle, or forced / off; nullopt when not known yet.
  template <class... Args>
  std::optional<AutotuneChoice> autotune_choice(const LaunchConfig& config, const Args&... args) const {
    const ArgSlot slots[sizeof...(Args) + 1] = {to_slot(args)..., ArgSlot{}};
    return autotune_choice(config, slots, sizeof...(Args));
  }
  std::optional<AutotuneChoice> autotune_choice(const LaunchConfig& config, const ArgSlot* args,
                                                std::size_t num_args) const;
  // The same for a call whose slots hold tuples (a header slot, then its elements).
  std::optional<AutotuneChoice> autotune_choice_nested(const LaunchConfig& config, const ArgSlot* slots,
                                                       std::size_t num_slots) const;
  std::optional<AutotuneChoice> autotune_choice(const LaunchConfig& config, const ArgumentBuilder& args) const {
    return args.nested() ? autotune_choice_nested(config, args.data(), args.size())
                         : autotune_choice(config, args.data(), args.size());
  }
  // Uses config `index` for every call from now on; -1 goes back to tuning. Throws ValueError
  // for an index out of range.
  void force_autotune_config(int index);

  TritonJITFunction(const TritonJITFunction&) = delete;
  TritonJITFunction& operator=(const TritonJITFunction&) = delete;

  struct Impl;

 private:
  explicit TritonJITFunction(Impl* impl) : impl_(impl) {}
  Impl* impl_;  // owned; never destroyed (instances live until exit)
};

}  // namespace triton_jit

// libtriton_jit's header gave at::Tensor and c10::Scalar arguments wherever libtorch is in use;
// so does this one (the adapter's argument traits are header-only: linking TritonJIT::torch is
// needed only for its functions, current_stream() and the rest).
#if __has_include(<ATen/core/Tensor.h>) && __has_include("triton_jit/torch.h")
#include "triton_jit/torch.h"
#endif
