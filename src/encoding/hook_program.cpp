#include "encoding/hook_program.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "triton_jit/errors.h"

// Note [Config hooks]
// Triton calls a Config's pre_hook with the call's arguments and the config's values before each
// launch with that config, benchmarked runs included, and the autotuner's own pre_hook and
// post_hook around each benchmarked run only. Libraries use them to give host-side descriptors
// the block shape the config tiles by, and to zero a tensor the kernel accumulates into. Such
// hooks are translated (triton_jit_hooks.py) and run here:
// - block shapes when the config is applied, before the call is encoded, so the variant key
//   follows them ("tensordesc<fp16[128, 64]>") as Triton's does. The caller's descriptor is not
//   changed: the call gets a copy with the new shape.
// - zero_ / copy_ on the launch's stream just before the kernel (decorators.cpp), and around each
//   benchmarked run while tuning, where the tensors they write are saved first and put back after,
//   as reset_to_zero's are (tuning never changes a caller's data).
// Calls of kernels with hooks are not remembered (Note [Decorated call memo]): a remembered call
// skips the decorators, and with them the hook.

namespace triton_jit::detail {

HookProgram HookProgram::parse(const nlohmann::json& hook, const std::vector<std::string>& names, std::string label) {
  const std::size_t num_params = names.size();
  HookProgram h;
  h.label_ = std::move(label);
  auto fail = [&](const std::string& what) -> void {
    throw Error(fmt::format("triton_jit: {}: malformed translated hook: {}", h.label_, what));
  };
  if (!hook.is_object() || !hook.contains("actions") || !hook["actions"].is_array()) fail("no list of actions");
  auto index = [&](const nlohmann::json& action, const char* field) -> std::size_t {
    if (!action.contains(field) || !action[field].is_number_unsigned() || action[field].get<uint64_t>() >= num_params) {
      fail(fmt::format("'{}' is not a parameter index", field));
    }
    return action[field].get<std::size_t>();
  };
  for (const auto& a : hook["actions"]) {
    if (!a.is_object() || !a.contains("do") || !a["do"].is_string()) fail("an action without 'do'");
    Action action;
    const std::string kind = a["do"].get<std::string>();
    action.param = index(a, "param");
    action.name = names[action.param];
    if (kind == "block_shape") {
      action.kind = Kind::kBlockShape;
      if (!a.contains("shape") || !a["shape"].is_array() || a["shape"].empty() ||
          a["shape"].size() > static_cast<std::size_t>(TensorDescriptor::kMaxRank)) {
        fail("a block shape of 1 to 5 dimensions expected");
      }
      for (const auto& dim : a["shape"]) action.shape.push_back(HeuristicProgram::parse(dim, num_params));
      h.sets_block_shapes_ = true;
    } else if (kind == "zero") {
      action.kind = Kind::kZero;
      h.writes_memory_ = true;
    } else if (kind == "copy") {
      action.kind = Kind::kCopy;
      action.source = index(a, "from");
      h.writes_memory_ = true;
    } else {
      fail(fmt::format("unknown action '{}'", kind));
    }
    if (a.contains("when") && !a["when"].is_null()) action.when = HeuristicProgram::parse(a["when"], num_params);
    h.actions_.push_back(std::move(action));
  }
  return h;
}

namespace {

bool truthy(const ArgSlot& v) {
  switch (v.kind) {
    case ArgKind::kNone:
      return false;
    case ArgKind::kBool:
    case ArgKind::kInt:
      return v.value.i != 0;
    case ArgKind::kUInt:
      return v.value.u != 0;
    case ArgKind::kFloat:
      return v.value.f != 0.0;
    case ArgKind::kString:
      return v.size != 0;
    default:
      return true;  // a tensor or descriptor, as Python's truth of an object
  }
}

}  // namespace

bool HookProgram::holds(const Action& a, const ArgSlot* slots, const std::string& kernel) const {
  return !a.when || truthy(a.when->evaluate(slots, kernel, label_));
}

void HookProgram::set_block_shapes(ArgSlot* slots, HookedDescriptors& storage, const std::string& kernel) const {
  for (const Action& a : actions_) {
    if (a.kind != Kind::kBlockShape || !holds(a, slots, kernel)) continue;
    ArgSlot& slot = slots[a.param];
    if (slot.kind != ArgKind::kTensorDescriptor) {
      throw TypeError(fmt::format("{}: {} sets the block_shape of argument '{}', which is not a TensorDescriptor",
                                  kernel, label_, a.name));
    }
    const auto* given = static_cast<const TensorDescriptor*>(slot.value.p);
    if (given->rank != static_cast<int>(a.shape.size())) {
      throw ValueError(
          fmt::format("{}: {} sets a block_shape of {} dimensions on argument '{}', a descriptor of rank {}", kernel,
                      label_, a.shape.size(), a.name, given->rank));
    }
    TensorDescriptor* copy;
    if (storage.owns(given)) {
      copy = const_cast<TensorDescriptor*>(given);
    } else {
      if (storage.count == HookedDescriptors::kMax) [[unlikely]] {
        throw ValueError(fmt::format("{}: {} sets the block shapes of more than {} descriptors", kernel, label_,
                                     HookedDescriptors::kMax));
      }
      copy = std::construct_at(&storage.items[storage.count++], *given);
      slot.value.p = copy;
    }
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      const ArgSlot v = a.shape[d].evaluate(slots, kernel, label_);
      if (v.kind != ArgKind::kInt || v.value.i <= 0 || v.value.i > (int64_t{1} << 30)) {
        throw ValueError(
            fmt::format("{}: {} sets block_shape[{}] of argument '{}' to a value that is not a positive "
                        "integer",
                        kernel, label_, d, a.name));
      }
      copy->block_shape[d] = static_cast<int32_t>(v.value.i);
    }
  }
}

}  // namespace triton_jit::detail
