// The static signature of a kernel: what its Python definition says about each parameter.
// Built once per function (from the compile script's describe()), immutable afterwards.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/heuristic_program.h"
#include "encoding/type_token.h"
#include "triton_jit/arguments.h"

namespace triton_jit::detail {

struct ParamSpec {
  std::string name;
  bool is_constexpr = false;
  bool specialize = true;  // false: do_not_specialize
  bool align = true;       // false: do_not_specialize_on_alignment
  TypeToken annotation = kNoToken;  // a type annotation fixes the kernel type
  bool has_default = false;
  ArgSlot default_value;  // valid when has_default; strings point into KernelSignature storage
  std::string default_error;  // set when the Python default cannot be expressed from C++
};

// What the encoder reads per parameter on every call, packed apart from the names and defaults
// so that a call touches a few bytes per parameter.
struct ParamRule {
  bool is_constexpr;
  bool specialize;
  bool align;
  TypeToken annotation;
};

// Options a kernel's decorator supplies (an autotune config), 0 when absent.
struct LaunchDefaults {
  int num_warps = 0;
  int num_stages = 0;
  int num_ctas = 0;
  int maxnreg = 0;
};

// After the kernel's parameters, a decorated call's argument array holds the options an
// autotuner passes to what it wraps (heuristics inside it may read them).
inline constexpr std::size_t kOptionSlots = 4;  // num_warps, num_stages, num_ctas, maxnreg

// One @triton.autotune config.
struct AutotuneConfig {
  std::vector<std::pair<std::size_t, ArgSlot>> kwargs;  // parameter index, value; strings in string_storage
  LaunchDefaults options;
  ArgSlot option_slots[kOptionSlots];  // what heuristics inside the autotuner read (maxnreg: None when unset)
  std::string text;  // "BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3", for messages
};

// A @triton.autotune decorator.
struct AutotuneSpec {
  std::size_t decorator = 0;               // its place in the chain, outermost 0
  std::vector<std::size_t> key_params;     // parameters named by `key` (other names are skipped, as Triton does)
  std::vector<std::string> key_names;
  std::vector<AutotuneConfig> configs;
  std::vector<std::size_t> reset_to_zero;  // parameter indices
  std::vector<std::size_t> restore_value;
  bool prune = false;                      // prune_configs_by (early_config_prune or perf_model), run in Python
  double warmup_ms = 25;                   // do_bench's warmup and rep (the decorator's warmup=, rep=)
  double rep_ms = 100;
  std::vector<std::string> hooks;          // user hooks C++ cannot run; calling the kernel is an error
  std::string configs_digest;              // identifies the configs (a tuning result is for these)
};

// One value of a @triton.heuristics decorator.
struct HeuristicSpec {
  std::size_t decorator = 0;
  std::string name;
  std::size_t param = 0;                   // the parameter it sets
  std::optional<HeuristicProgram> program;  // empty: evaluated in Python
  std::string untranslated;                // why not
};

// A step of the decorator chain, outermost first: a range of heuristics, or the autotuner.
struct DecoratorStep {
  bool autotune = false;
  std::size_t first = 0;  // heuristics: [first, first + count) of KernelSignature::heuristics
  std::size_t count = 0;
};

struct KernelSignature {
  std::string name;
  std::string file;
  std::string triton_version;
  std::vector<ParamSpec> params;
  std::vector<ParamRule> rules;  // one per parameter, derived from params
  std::size_t num_required = 0;  // arguments a call must pass; the rest have defaults
  LaunchDefaults defaults;

  // Decorators (@triton.autotune, @triton.heuristics), outermost first.
  std::vector<DecoratorStep> steps;
  std::vector<HeuristicSpec> heuristics;
  std::optional<AutotuneSpec> autotune;
  std::vector<std::size_t> user_params;  // what a decorated call passes: parameters no decorator sets
  std::vector<std::size_t> decorator_params;  // the others
  std::size_t num_required_user = 0;
  bool decorated() const noexcept { return !steps.empty(); }

  std::deque<std::string> string_storage;  // backs string defaults (stable addresses)
};

// Parses describe()'s JSON. Throws Error on malformed input.
KernelSignature parse_kernel_signature(std::string_view json);

}  // namespace triton_jit::detail
