// What the decorators of a kernel decided for recent calls, so that a repeated call skips them.
// See Note [Decorated call memo].
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "encoding/kernel_signature.h"
#include "encoding/variant_key.h"
#include "triton_jit/arguments.h"
#include "triton_jit/launch_config.h"

// Note [Decorated call memo]
// Heuristics translated to programs and the autotuner's choice are pure functions of what a call
// passes: the values of its scalar arguments, the dtypes of its tensors (never their addresses:
// the programs cannot read one), the device, and the options the caller set. A decorated hit used
// to run every decorator step, which reads a dozen cache lines spread over the signature
// (programs, the tuning table, the config's values); after a driver call has evicted them, each is
// a miss, and on the H200 VMs that cost ~175 ns. The memo keeps, per function, a few recent
// calls' inputs (packed into words) and what the decorators set for them: a repeated call reads
// one line of the memo and copies the values. Entries are seqlocks of atomic words: readers take
// no lock and write nothing; a writer that finds an entry busy leaves it. Kernels whose
// heuristics run in Python (which may read anything) and calls with string arguments or omitted
// defaults take the full path. The generation changes when a config is forced, so an entry made
// before never answers after.

namespace triton_jit::detail {

class DecoratedMemo {
 public:
  static constexpr std::size_t kEntries = 8;
  static constexpr std::size_t kMaxInputWords = 20;
  static constexpr std::size_t kMaxOutputs = 8;

  // A call's inputs, packed: each argument's kind and dtype (four to a word), the values of its
  // scalars; the caller's options go into the header. find() adds the options the decorators
  // chose. Not initialised: pack() writes what it uses; aligned so that a short call's is a line.
  struct alignas(64) Inputs {
    uint64_t header;  // arguments, device, words, autotune on, the caller's options, generation
    std::size_t size;
    std::size_t entry;
    LaunchDefaults chosen;
    uint64_t words[kMaxInputWords];
  };
  // The values the decorators set, in parameter order; find() constructs the first
  // num_outputs().
  struct alignas(64) Outputs {
    Outputs() noexcept {}
    union {
      ArgSlot slots[kMaxOutputs];
    };
  };

  // Decides, once the signature is known, whether its calls can be remembered.
  void configure(const KernelSignature& sig);
  bool enabled() const noexcept { return enabled_; }
  std::size_t num_user() const noexcept { return num_user_; }
  const uint8_t* user_at() const noexcept { return user_at_; }
  const uint8_t* output_at() const noexcept { return output_at_; }
  std::size_t num_outputs() const noexcept { return num_outputs_; }
  // The parameters a call passes come first, those its decorators set after them (most kernels):
  // the outputs then follow the caller's arguments without being copied next to them.
  bool user_first() const noexcept { return user_first_; }

  // Packs a call's inputs; false when the call cannot be remembered (a string argument, too many
  // words).
  bool pack(const ArgSlot* args, std::size_t n, int device, const LaunchConfig& config, Inputs& in) const noexcept;
  // Copies out what the decorators set for these inputs; false when not remembered.
  bool find(Inputs& in, Outputs& out) const noexcept;
  // Remembers what the decorators set (the full call's slots and options).
  void remember(const Inputs& in, const ArgSlot* slots, const LaunchConfig& config) noexcept;
  // Makes every entry stale (a config was forced, or forcing ended).
  void invalidate() noexcept;

 private:
  // The inputs' words, then the outputs' values, their kinds and dtypes (four to a word) and the
  // options: a short call's entry is one line.
  struct alignas(64) Entry {
    std::atomic<uint64_t> seq{0};  // odd while written
    std::atomic<uint64_t> header{0};
    std::atomic<uint64_t> words[kMaxInputWords + kMaxOutputs + kMaxOutputs / 4 + 1];
  };

  // What every remembered call reads, 24 bytes: Impl puts them in the line of its variant cache,
  // which the launch reads anyway.
  bool enabled_ = false;
  bool user_first_ = false;
  uint8_t num_user_ = 0;
  uint8_t num_outputs_ = 0;
  std::atomic<uint32_t> generation_{0};  // 13 bits of it are kept in an entry
  std::unique_ptr<Entry[]> entries_;
  uint8_t output_at_[kMaxOutputs] = {};
  uint8_t user_at_[kMaxParams] = {};
};

}  // namespace triton_jit::detail
