// LaunchMeta: what a grid function reads of a call (triton_jit_function.h).
#include <fmt/format.h>

#include "encoding/kernel_signature.h"
#include "triton_jit/errors.h"
#include "triton_jit/triton_jit_function.h"

namespace triton_jit {

const ArgSlot* LaunchMeta::find(std::string_view name) const noexcept {
  const auto& sig = *static_cast<const detail::KernelSignature*>(signature_);
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    if (sig.params[i].name != name) continue;
    if (i < num_args_) return &args_[i];
    return rest_ != nullptr ? &rest_[i - num_args_] : &sig.params[i].default_value;
  }
  return nullptr;
}

int64_t LaunchMeta::operator[](std::string_view name) const {
  const auto& sig = *static_cast<const detail::KernelSignature*>(signature_);
  if (name == "num_warps") return detail::option_or_default(config_.num_warps, sig.defaults.num_warps, 4);
  if (name == "num_stages") return detail::option_or_default(config_.num_stages, sig.defaults.num_stages, 3);
  if (name == "num_ctas") return detail::option_or_default(config_.num_ctas, sig.defaults.num_ctas, 1);
  const ArgSlot* s = find(name);
  if (s == nullptr)
    throw ValueError(fmt::format("{}: the grid asked for '{}', which is not a parameter", sig.name, name));
  if (s->kind == ArgKind::kInt || s->kind == ArgKind::kBool) return s->value.i;
  if (s->kind == ArgKind::kUInt) return static_cast<int64_t>(s->value.u);
  throw ValueError(fmt::format("{}: the grid asked for '{}' as an integer, and it is not one", sig.name, name));
}

double LaunchMeta::real(std::string_view name) const {
  const ArgSlot* s = find(name);
  if (s != nullptr && s->kind == ArgKind::kFloat) return s->value.f;
  return static_cast<double>((*this)[name]);
}

}  // namespace triton_jit
