// The door of the decorators room: what the runtime may ask of a kernel with @triton.heuristics
// or @triton.autotune. Nothing else of the room is included outside it. The repeated call's part
// is inline, for the hit path; the rest runs once per new call, per warmup or per question.
// See Note [Decorated calls] and Note [Decorated call memo].
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "decorators/decorator_state.h"
#include "decorators/prepared_call.h"
#include "triton_jit/triton_jit_function.h"
#include "variants/function_state.h"

namespace triton_jit::detail {

// A call as the memo sees it: its packed inputs and, once found, what the decorators set and the
// variant the call launched last time.
struct Recall {
  DecoratedMemo::Inputs inputs;
  DecoratedMemo::Outputs outputs;
  const Variant* known = nullptr;
};

class DecoratedCalls {
 public:
  // At get_instance, once the signature is known. Throws Error for an autotuner whose hooks run
  // Python that cannot run around C++ launches. The object lasts for the process from then on.
  void configure(const KernelSignature& sig);

  // A repeated call, in two steps around the choice of its device: pack() is false when the memo
  // cannot take the call (the decorators then run every time); find() is true when the memo holds
  // it for `device`, with what the decorators set in r.outputs (in parameter order), the options
  // they chose in r.inputs.chosen and, where kept, the variant in r.known.
  bool pack(const ArgSlot* args, std::size_t n, const LaunchConfig& config, Recall& r) const noexcept {
    const DecoratedMemo& memo = state_.memo;
    return memo.enabled() && n == memo.num_user() && memo.pack(args, n, config, r.inputs);
  }
  bool find(Recall& r, int device) const noexcept {
    state_.memo.seal(r.inputs, device);
    return state_.memo.find(r.inputs, r.outputs, r.known);
  }
  // Whether the caller's parameters all come before those the decorators set, so that a found
  // call launches from the caller's array and r.outputs as they are.
  bool user_first() const noexcept { return state_.memo.user_first(); }
  // A found call's parameters in order, for a kernel whose decorators set some between the
  // caller's.
  void interleave(const ArgSlot* args, std::size_t n, const Recall& r, PreparedCall& call) const noexcept;

  // A call the memo does not hold: binds the arguments and runs the decorators. True when it was
  // bound as a decorated call, the kind remember() keeps. `tuples`: where the elements of tuple
  // arguments are, when `args` holds their headers (Note [Decorators over tuples]).
  bool run(FunctionState& f, const LaunchConfig& config, const ArgSlot* args, std::size_t n, int device,
           PreparedCall& call, TupleSource tuples = {});
  // What the chosen config's pre_hook writes before a launch (Note [Config hooks]); nothing for
  // most calls.
  static void before_launch(const KernelSignature& sig, const PreparedCall& call) {
    if (call.launch_hook != nullptr) [[unlikely]]
      write_launch_hook(sig, call);
  }
  // Keeps a call run() bound as decorated, with the variant it launched.
  void remember(const Recall& r, const PreparedCall& call, const Variant* launched) noexcept;

  // The calls warmup compiles: as Triton's Autotuner.warmup, each config worth trying, or the one
  // already chosen; one call when there is no autotuner or the caller passed every parameter.
  std::vector<std::unique_ptr<PreparedCall>> warmup_calls(FunctionState& f, const LaunchConfig& config,
                                                          const ArgSlot* args, std::size_t n, int device,
                                                          TupleSource tuples = {});
  // What is known of the autotuner's choice for the call, without tuning.
  std::optional<AutotuneChoice> choice(FunctionState& f, const LaunchConfig& config, const ArgSlot* args, std::size_t n,
                                       int device, TupleSource tuples = {});
  static std::vector<std::string> configs(const KernelSignature& sig);
  // force_autotune_config: `index`, or -1 to choose by tuning again. Throws ValueError.
  void force(const KernelSignature& sig, int index);

 private:
  static void write_launch_hook(const KernelSignature& sig, const PreparedCall& call);

  DecoratorState state_;
};

}  // namespace triton_jit::detail
