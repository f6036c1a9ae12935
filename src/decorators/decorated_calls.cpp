#include "decorators/decorated_calls.h"

#include <fmt/format.h>

#include "common/fork_guard.h"
#include "decorators/autotuner.h"
#include "decorators/decorators.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {
namespace {

void abandon_tuning(void* arg) {
  // Forked child: the threads that were tuning, and those waiting for them, are gone.
  static_cast<DecoratorState*>(arg)->tuning.abandon();
}

// Binds a call and runs its decorator steps before the autotuner (all of them when there is
// none). `binding` says how the arguments were bound.
std::unique_ptr<PreparedCall> prepare_until_autotune(FunctionState& f, DecoratorState& d, const LaunchConfig& config,
                                                     const ArgSlot* args, std::size_t n, TupleSource tuples,
                                                     Binding& binding, int device) {
  auto call = std::make_unique<PreparedCall>();
  call->config = config;
  call->tuples = tuples;
  binding = bind_decorated(f.sig, args, n, *call);
  if (binding != Binding::kDecorated) return call;
  const std::size_t at = autotune_step(f.sig);
  run_decorators(f, d, *call, 0, device, at == kNoAutotune ? f.sig.decorators.steps.size() : at);
  return call;
}

}  // namespace

void DecoratedCalls::configure(const KernelSignature& sig) {
  const auto& autotune = sig.decorators.autotune;
  if (autotune && !autotune->hooks.empty()) {
    std::string hooks;
    for (const auto& h : autotune->hooks) hooks += (hooks.empty() ? "" : "; ") + h;
    throw Error(
        fmt::format("{}: its @triton.autotune runs Python code that triton_jit cannot run around C++ launches: {}",
                    sig.name, hooks));
  }
  state_.memo.configure(sig);
  on_fork_child(&abandon_tuning, &state_);
}

void DecoratedCalls::interleave(const ArgSlot* args, std::size_t n, const Recall& r,
                                PreparedCall& call) const noexcept {
  const DecoratedMemo& memo = state_.memo;
  const uint8_t* user_at = memo.user_at();
  for (std::size_t i = 0; i < n; ++i) std::construct_at(&call.slots[user_at[i]], args[i]);
  const uint8_t* output_at = memo.output_at();
  for (std::size_t i = 0; i < memo.num_outputs(); ++i) std::construct_at(&call.slots[output_at[i]], r.outputs.slots[i]);
}

bool DecoratedCalls::run(FunctionState& f, const LaunchConfig& config, const ArgSlot* args, std::size_t n, int device,
                         PreparedCall& call, TupleSource tuples) {
  call.config = config;
  call.tuples = tuples;
  if (bind_decorated(f.sig, args, n, call) != Binding::kDecorated) return false;
  run_decorators(f, state_, call, 0, device);
  return true;
}

void DecoratedCalls::write_launch_hook(const KernelSignature& sig, const PreparedCall& call) {
  write_hooked(sig, *call.launch_hook, call);
}

void DecoratedCalls::remember(const Recall& r, const PreparedCall& call, const Variant* launched) noexcept {
  state_.memo.remember(r.inputs, call.slots, call.config, launched);
}

std::vector<std::unique_ptr<PreparedCall>> DecoratedCalls::warmup_calls(FunctionState& f, const LaunchConfig& config,
                                                                        const ArgSlot* args, std::size_t n, int device,
                                                                        TupleSource tuples) {
  Binding binding;
  auto call = prepare_until_autotune(f, state_, config, args, n, tuples, binding, device);
  std::vector<std::unique_ptr<PreparedCall>> calls;
  const std::size_t at = autotune_step(f.sig);
  if (binding == Binding::kExplicit || at == kNoAutotune) {
    calls.push_back(std::move(call));
    return calls;
  }
  std::vector<int> configs;
  if (auto known = known_choice(f, state_, *call, device)) {
    configs = {known->config};
  } else {
    configs = candidate_configs(f, *call, device);
  }
  for (int c : configs) {
    auto trial = std::make_unique<PreparedCall>();
    copy_call(f.sig, *call, *trial);
    apply_config(f.sig, c, *trial);
    run_decorators(f, state_, *trial, at + 1, device);
    calls.push_back(std::move(trial));
  }
  return calls;
}

std::optional<AutotuneChoice> DecoratedCalls::choice(FunctionState& f, const LaunchConfig& config, const ArgSlot* args,
                                                     std::size_t n, int device, TupleSource tuples) {
  if (!f.sig.decorators.autotune) return std::nullopt;
  Binding binding;
  auto call = prepare_until_autotune(f, state_, config, args, n, tuples, binding, device);
  if (binding != Binding::kDecorated) return std::nullopt;
  return known_choice(f, state_, *call, device);
}

std::vector<std::string> DecoratedCalls::configs(const KernelSignature& sig) {
  std::vector<std::string> out;
  if (sig.decorators.autotune) {
    for (const auto& c : sig.decorators.autotune->configs) out.push_back(c.text);
  }
  return out;
}

void DecoratedCalls::force(const KernelSignature& sig, int index) {
  const std::size_t count = sig.decorators.autotune ? sig.decorators.autotune->configs.size() : 0;
  if (index < -1 || (index >= 0 && static_cast<std::size_t>(index) >= count)) {
    throw ValueError(
        fmt::format("{}: force_autotune_config({}): expected -1 (tune again) or a config index from 0 to {}", sig.name,
                    index, count == 0 ? -1 : static_cast<long>(count) - 1));
  }
  state_.forced_config.store(index, std::memory_order_relaxed);
  state_.memo.invalidate();
}

}  // namespace triton_jit::detail
