// A @triton.autotune hook (a Config's pre_hook, the autotuner's pre_hook or post_hook) translated
// by the compile script (triton_jit_hooks.py) into actions run without Python: setting the block
// shape of a TensorDescriptor argument from the config's values, and zeroing or copying into a
// tensor argument, each under a condition program. See Note [Config hooks].
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "encoding/heuristic_program.h"
#include "triton_jit/arguments.h"

namespace triton_jit::detail {

// The descriptors of one call that a hook gave a block shape: copies of the caller's, which stay
// as they were. Owned by the call; constructed as they are set.
struct HookedDescriptors {
  static constexpr std::size_t kMax = 8;
  HookedDescriptors() noexcept {}
  union {
    TensorDescriptor items[kMax];
  };
  uint8_t count = 0;
  bool owns(const void* p) const noexcept {
    return count != 0 && p >= static_cast<const void*>(items) && p < static_cast<const void*>(items + count);
  }
};

class HookProgram {
 public:
  enum class Kind : uint8_t { kBlockShape, kZero, kCopy };
  struct Action {
    Kind kind = Kind::kZero;
    std::size_t param = 0;                 // the argument it sets or writes
    std::string name;                      // its name, for messages
    std::size_t source = 0;                // kCopy: the argument copied from
    std::optional<HeuristicProgram> when;  // empty: always
    std::vector<HeuristicProgram> shape;   // kBlockShape: one program per dimension
  };

  // Parses and checks a translated hook ({"actions": [...]}); `label` names it in messages
  // ("configs[2].pre_hook"); `names`: the kernel's parameters, then the options a hook may read.
  // Throws Error naming what is wrong.
  static HookProgram parse(const nlohmann::json& hook, const std::vector<std::string>& names, std::string label);

  bool empty() const noexcept { return actions_.empty(); }
  bool sets_block_shapes() const noexcept { return sets_block_shapes_; }
  bool writes_memory() const noexcept { return writes_memory_; }
  const std::string& label() const noexcept { return label_; }
  const std::vector<Action>& actions() const noexcept { return actions_; }

  // Gives the descriptors it sets their block shapes: each is copied into `storage` once and its
  // slot points at the copy. Throws ValueError or TypeError naming the kernel, the hook and the
  // argument (a value that is no positive integer, a rank that differs, an argument that is no
  // descriptor, more descriptors than storage holds).
  void set_block_shapes(ArgSlot* slots, HookedDescriptors& storage, const std::string& kernel) const;

  // The memory actions whose condition holds, in order; `write(action)` performs each.
  template <class Write>
  void for_each_write(const ArgSlot* slots, const std::string& kernel, Write&& write) const {
    for (const Action& a : actions_) {
      if (a.kind != Kind::kBlockShape && holds(a, slots, kernel)) write(a);
    }
  }

 private:
  bool holds(const Action& a, const ArgSlot* slots, const std::string& kernel) const;

  std::vector<Action> actions_;
  std::string label_;
  bool sets_block_shapes_ = false;
  bool writes_memory_ = false;
};

}  // namespace triton_jit::detail
