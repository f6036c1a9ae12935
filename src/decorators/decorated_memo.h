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
// one line of the memo and copies the values.
// The inputs also hold what else the variant key is made of (whether each tensor is 16-byte
// aligned, a descriptor's block shape, the caller's compile flags), so an entry keeps the variant
// its call launched as well: a repeated call then skips the options, the key and the variant
// table, and only writes the kernel's parameters. A call with extra compile options keeps no
// variant (they are not packed) and looks its variant up.
// Entries are seqlocks of atomic words: readers take no lock and write nothing; a writer that
// finds an entry busy leaves it. A string argument is packed as a 128-bit digest of its text
// (its address says nothing). Kernels whose heuristics run in Python (which may read anything)
// or whose configs have hooks take the full path. The generation changes when a config is
// forced, so an entry made before never answers after.

namespace triton_jit::detail {

struct Variant;

class DecoratedMemo {
 public:
  static constexpr std::size_t kEntries = 8;
  // As many as the header's six bits count: a call of up to 50 parameters without strings fits
  // (real fused norms take 38 and 44; Liger's and FlagGems' kernels fewer).
  static constexpr std::size_t kMaxInputWords = 63;
  static constexpr std::size_t kMaxOutputs = 8;

  // A call's inputs, packed: each argument's kind, dtype and alignment (four to a word), the
  // values of its scalars and descriptors, the digests of its strings; the caller's options go into
  // the header. find() adds
  // the options the decorators chose. Not initialised: pack() and seal() write what they use;
  // aligned so that a short call's is a line.
  struct alignas(64) Inputs {
    uint64_t header;  // words, device, autotune on, the caller's options, extra options, generation
    uint32_t size;
    uint32_t entry;
    int32_t first_device;  // of the first tensor argument that has one, else -1
    uint32_t options;      // the caller's, packed
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

  // Packs a call's inputs in one pass over them, noting the first tensor's device on the way;
  // false when the call cannot be remembered (too many arguments or string words, options out of
  // range). seal() then adds the launch device and picks the entry.
  bool pack(const ArgSlot* args, std::size_t n, const LaunchConfig& config, Inputs& in) const noexcept;
  void seal(Inputs& in, int device) const noexcept;
  // Copies out what the decorators set for these inputs, and returns the variant the call
  // launched (nullptr when the entry keeps none); false when not remembered.
  bool find(Inputs& in, Outputs& out, const Variant*& variant) const noexcept;
  // Remembers what the decorators set (the full call's slots and options), and the variant the
  // call launched.
  void remember(const Inputs& in, const ArgSlot* slots, const LaunchConfig& config, const Variant* variant) noexcept;
  // Makes every entry stale (a config was forced, or forcing ended).
  void invalidate() noexcept;

 private:
  // Words: the variant, the chosen options with the first outputs' kinds, the other outputs'
  // kinds, the outputs' values, then the inputs' words. A short call's entry is one line.
  static constexpr std::size_t kMaxWords = 2 + kMaxOutputs / 4 + kMaxOutputs + kMaxInputWords;
  struct alignas(64) Entry {
    std::atomic<uint64_t> seq{0};  // odd while written
    std::atomic<uint64_t> header{0};
    std::atomic<uint64_t> words[kMaxWords];
  };
  // Outputs whose kinds share the options' word; the others' take words of four.
  static constexpr std::size_t kKindsWithOptions = 3;
  std::size_t outputs_at() const noexcept { return inputs_at_ - num_outputs_; }

  // What every remembered call reads: Impl puts them in the line of its variant cache, which the
  // launch reads anyway.
  bool enabled_ = false;
  bool user_first_ = false;
  uint8_t num_user_ = 0;
  uint8_t num_outputs_ = 0;
  uint8_t inputs_at_ = 0;
  std::atomic<uint32_t> generation_{0};  // 21 bits of it are kept in an entry
  std::unique_ptr<Entry[]> entries_;
  uint8_t output_at_[kMaxOutputs] = {};
  uint8_t user_at_[kMaxParams] = {};
};

}  // namespace triton_jit::detail
