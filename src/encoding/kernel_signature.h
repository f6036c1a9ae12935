// The static signature of a kernel: what its Python definition says about each parameter.
// Built once per function (from the compile script's describe()), immutable afterwards.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/decorator_specs.h"
#include "encoding/type_token.h"
#include "triton_jit/arguments.h"

#include <nlohmann/json_fwd.hpp>

namespace triton_jit::detail {

struct ParamSpec {
  std::string name;
  bool is_constexpr = false;
  bool specialize = true;           // false: do_not_specialize
  bool align = true;                // false: do_not_specialize_on_alignment
  TypeToken annotation = kNoToken;  // a type annotation fixes the kernel type
  bool has_default = false;
  ArgSlot default_value;      // valid when has_default; strings point into KernelSignature storage
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

struct KernelSignature {
  std::string name;
  std::string file;
  std::string triton_version;
  std::vector<ParamSpec> params;
  std::vector<ParamRule> rules;  // one per parameter, derived from params
  std::size_t num_required = 0;  // arguments a call must pass; the rest have defaults
  LaunchDefaults defaults;
  DecoratorSpecs decorators;  // here: every launch reads decorated() in the line of the fields above

  // How a call binds when the kernel has decorators: what it passes, and what they set.
  std::vector<std::size_t> user_params;       // what a decorated call passes: parameters no decorator sets
  std::vector<std::size_t> decorator_params;  // the others
  std::size_t num_required_user = 0;
  bool decorated() const noexcept { return !decorators.steps.empty(); }

  std::deque<std::string> string_storage;  // backs string defaults (stable addresses)
};

// Parses describe()'s JSON. Throws Error on malformed input.
KernelSignature parse_kernel_signature(std::string_view json);

// A tagged value of describe()'s JSON ({"int": 3}, ...) as a slot; strings are kept in the
// signature's storage. Sets `error` (what the value is) when C++ cannot pass it.
ArgSlot slot_from_tagged(const nlohmann::json& tagged, KernelSignature& sig, std::string& error);
// The index of parameter `name`; throws Error naming `what` refers to it.
std::size_t param_index(const KernelSignature& sig, const std::string& name, const char* what);

}  // namespace triton_jit::detail
