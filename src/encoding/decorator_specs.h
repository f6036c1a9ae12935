// What a kernel's @triton.autotune and @triton.heuristics decorators say, as the compile script
// described them: the chain of steps, each heuristic's program, the autotuner's configs and
// hooks. Parsed once per function, with the signature (parse_decorators), immutable afterwards.
// A leaf of the decorators room: it needs only the public argument types and the two programs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "encoding/heuristic_program.h"
#include "encoding/hook_program.h"
#include "triton_jit/arguments.h"

namespace triton_jit::detail {

struct KernelSignature;

// Options a kernel's decorator supplies (an autotune config), 0 when absent.
struct LaunchDefaults {
  int num_warps = 0;
  int num_stages = 0;
  int num_ctas = 0;
  int maxnreg = 0;
};

// A launch option: the call's or config's value, else the kernel's default, else Triton's.
constexpr int option_or_default(int value, int fallback, int otherwise) noexcept {
  return value > 0 ? value : fallback > 0 ? fallback : otherwise;
}

// After the kernel's parameters, a decorated call's argument array holds the options an
// autotuner passes to what it wraps (heuristics inside it may read them).
inline constexpr std::size_t kOptionSlots = 4;  // num_warps, num_stages, num_ctas, maxnreg

// One @triton.autotune config.
struct AutotuneConfig {
  std::vector<std::pair<std::size_t, ArgSlot>> kwargs;  // parameter index, value; strings in string_storage
  LaunchDefaults options;
  ArgSlot option_slots[kOptionSlots];  // what heuristics inside the autotuner read (maxnreg: None when unset)
  std::string text;                    // "BLOCK_M=128, BLOCK_N=64, num_warps=4, num_stages=3", for messages
  HookProgram pre_hook;                // the config's pre_hook, translated (empty when it has none)
};

// A @triton.autotune decorator.
struct AutotuneSpec {
  std::size_t decorator = 0;            // its place in the chain, outermost 0
  std::vector<std::size_t> key_params;  // parameters named by `key` (other names are skipped, as Triton does)
  std::vector<std::string> key_names;
  std::vector<AutotuneConfig> configs;
  std::vector<std::size_t> reset_to_zero;  // parameter indices
  std::vector<std::size_t> restore_value;
  bool prune = false;     // prune_configs_by (early_config_prune or perf_model), run in Python
  double warmup_ms = 25;  // do_bench's warmup and rep (the decorator's warmup=, rep=)
  double rep_ms = 100;
  std::vector<std::string> hooks;  // hooks C++ cannot run, each with why: the kernel is refused at load
  HookProgram pre_hook;            // the autotuner's own: around each benchmarked run
  HookProgram post_hook;
  std::string configs_digest;  // identifies the configs (a tuning result is for these)
};

// One value of a @triton.heuristics decorator.
struct HeuristicSpec {
  std::size_t decorator = 0;
  std::string name;
  std::size_t param = 0;                    // the parameter it sets
  std::optional<HeuristicProgram> program;  // empty: evaluated in Python
  std::string untranslated;                 // why not
};

// A step of the decorator chain, outermost first: a range of heuristics, or the autotuner.
struct DecoratorStep {
  bool autotune = false;
  std::size_t first = 0;  // heuristics: [first, first + count) of DecoratorSpecs::heuristics
  std::size_t count = 0;
};

// What a kernel's @triton.autotune and @triton.heuristics say, outermost first. Part of the
// signature as one value: only parse_decorators writes it and only decorators/ reads it.
struct DecoratorSpecs {
  std::vector<DecoratorStep> steps;
  std::vector<HeuristicSpec> heuristics;
  std::optional<AutotuneSpec> autotune;
};

// Parses describe()'s "decorators" into the signature's chain and decides which parameters a
// decorated call passes. Throws Error on malformed input.
void parse_decorators(const nlohmann::json& described, KernelSignature& sig);

}  // namespace triton_jit::detail
