// A decorated call as its decorators complete it: the value type the runtime and the decorators
// pass each other through the room's door (decorators/decorated_calls.h).
#pragma once

#include <cstddef>

#include "common/limits.h"
#include "encoding/decorator_specs.h"
#include "encoding/hook_program.h"
#include "triton_jit/arguments.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// The caller's nested slots of a call with tuple arguments, where each tuple's elements are: a
// prepared call's slot for a tuple is its header (Note [Decorators over tuples]). Empty for
// other calls.
struct TupleSource {
  const ArgSlot* slots = nullptr;
  std::size_t count = 0;
};

// A decorated call's arguments: every parameter's value, then the autotuner's options (which
// heuristics inside it may read), and the launch configuration the kernel gets.
struct PreparedCall {
  PreparedCall() noexcept {}  // slots are constructed as they are bound: no 3 KB clear per call
  union {
    ArgSlot slots[kMaxParams + kOptionSlots];
  };
  LaunchConfig config;
  HookedDescriptors descriptors;             // those the config's pre_hook gave a block shape
  const HookProgram* launch_hook = nullptr;  // the config's pre_hook, when it writes memory before a launch
  TupleSource tuples;                        // a call with tuple arguments: where their elements are
};

enum class Binding {
  kDecorated,  // the parameters no decorator sets: the decorators run
  kExplicit,   // every parameter: the decorators are bypassed, as before they were supported
};

}  // namespace triton_jit::detail
