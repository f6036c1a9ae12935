// The static signature of a kernel: what its Python definition says about each parameter.
// Built once per function (from the compile script's describe()), immutable afterwards.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

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

// Options a kernel's decorator supplies (its single autotune config), 0 when absent.
struct LaunchDefaults {
  int num_warps = 0;
  int num_stages = 0;
  int num_ctas = 0;
  int maxnreg = 0;
};

// One @triton.autotune config, kept for autotuning from C++.
struct AutotuneConfig {
  std::vector<std::pair<std::string, ArgSlot>> kwargs;  // constexpr values; strings in string_storage
  LaunchDefaults options;
};

struct KernelSignature {
  std::string name;
  std::string file;
  std::string triton_version;
  std::vector<ParamSpec> params;
  std::vector<ParamRule> rules;  // one per parameter, derived from params
  std::size_t num_required = 0;  // arguments a call must pass; the rest have defaults
  LaunchDefaults defaults;
  std::vector<AutotuneConfig> autotune_configs;
  std::vector<std::string> autotune_key;         // argument names the autotuner keys on
  std::vector<std::vector<std::string>> heuristics;  // per @triton.heuristics: the names it sets
  std::deque<std::string> string_storage;  // backs string defaults (stable addresses)
};

// Parses describe()'s JSON. Throws Error on malformed input.
KernelSignature parse_kernel_signature(std::string_view json);

}  // namespace triton_jit::detail
