// A decorated call as its decorators complete it: the value type the runtime and the decorators
// pass each other through the room's door (decorators/decorated_calls.h).
#pragma once

#include "common/limits.h"
#include "encoding/decorator_specs.h"
#include "encoding/hook_program.h"
#include "triton_jit/arguments.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

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
};

enum class Binding {
  kDecorated,  // the parameters no decorator sets: the decorators run
  kExplicit,   // every parameter: the decorators are bypassed, as before they were supported
};

}  // namespace triton_jit::detail
