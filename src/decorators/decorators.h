// Calls of kernels with @triton.heuristics and @triton.autotune: binding the caller's arguments
// to the parameters no decorator sets, evaluating heuristics (translated programs; Python for
// the rest), and applying the autotuner's config for the call's key. The hit path stays free of
// allocation and locks: a lookup of the key and a few small programs. See Note [Decorated calls].
#pragma once

#include <cstddef>

#include "decorators/decorator_state.h"
#include "decorators/prepared_call.h"
#include "variants/function_state.h"

namespace triton_jit::detail {
inline constexpr std::size_t kNoAutotune = ~std::size_t{0};
// The index of the autotune step, or kNoAutotune.
inline std::size_t autotune_step(const KernelSignature& sig) {
  for (std::size_t s = 0; s < sig.decorators.steps.size(); ++s) {
    if (sig.decorators.steps[s].autotune) return s;
  }
  return kNoAutotune;
}
}  // namespace triton_jit::detail

namespace triton_jit::detail {

// Fills call.slots from the caller's arguments and the parameters' defaults. Throws TypeError
// naming the parameters and which decorator sets the others when the count fits neither form.
Binding bind_decorated(const KernelSignature& sig, const ArgSlot* args, std::size_t n, PreparedCall& call);

// Runs the decorator steps [first_step, end_step): heuristics set their parameters, the
// autotuner its config's values and options (tuning a new key first).
void run_decorators(FunctionState& f, DecoratorState& d, PreparedCall& call, std::size_t first_step, int device,
                    std::size_t end_step = ~std::size_t{0});

// Applies config `index` of the autotuner: its values to the slots, its options to the launch
// configuration and the option slots, and its pre_hook's block shapes (Note [Config hooks]).
void apply_config(const KernelSignature& sig, int index, PreparedCall& call);

// Runs the zero_ / copy_ actions of a hook on the call's stream (Note [Config hooks]).
void write_hooked(const KernelSignature& sig, const HookProgram& hook, const PreparedCall& call);

// The call's arguments as tagged JSON for Python code of the decorators (one per parameter and
// option; tensors by dtype, element size and address).
std::string arguments_json(const KernelSignature& sig, const PreparedCall& call);

}  // namespace triton_jit::detail
