// Argument encoding: C++ argument slots -> kernel parameter bytes + variant key, following
// the specialisation rules of the installed Triton's Python runtime (DESIGN.md, "Parity").
#pragma once

#include <cstdint>
#include <string>

#include "common/limits.h"
#include "encoding/kernel_signature.h"
#include "encoding/key_layout.h"
#include "encoding/variant_key.h"
#include "triton_jit/errors.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// Compile options after defaults were applied; they go into the key's header.
struct ResolvedOptions {
  int arch = 90;
  bool arch_specific = false;
  Vendor vendor = Vendor::kCuda;
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
  int maxnreg = 0;
  bool enable_fp_fusion = true;
  bool launch_pdl = false;
  bool launch_cooperative_grid = false;
  const CompileOptions* extra = nullptr;  // LaunchConfig::compile_options
  uint64_t extra_digest = 0;              // its digest (56 bits), 0 without
};

inline constexpr std::size_t kDescriptorCells = 4 * TensorDescriptor::kMaxRank + 2;  // the most one expands to

// Everything one call needs, on the caller's stack. Two trailing parameter cells are left
// for the scratch pointers the kernel ABI appends. Tensor descriptors are expanded once the
// variant is known (expand_descriptors): what they become depends on how it was compiled.
struct EncodedCall {
  VariantKey key;
  uint32_t num_kernel_params = 0;  // user parameters passed to the kernel (no constexprs)
  uint32_t num_descriptors = 0;
  uint64_t cells[kMaxParams + 2];
  void* params[kMaxParams + 2];
  struct Descriptor {
    uint32_t at;  // the kernel parameter it expands in front of
    const TensorDescriptor* value;
  } descriptors[kMaxDescriptors];
  uint64_t descriptor_cells[kMaxDescriptors * kDescriptorCells];
  uint64_t tensor_maps[kMaxDescriptors * 16 + 8];  // 128-byte CUtensorMaps, 64-byte aligned within
};

// The key word of a tensor descriptor parameter: its dtype and block shape.
uint64_t descriptor_word(const TensorDescriptor& d) noexcept;

// device_check: the CUDA device every pointer argument must live on, or -1 to skip the check
// (warmup, where nothing is dereferenced). Throws TypeError / ValueError naming the argument.
void encode_call(const KernelSignature& sig, const ResolvedOptions& options, const ArgSlot* args, std::size_t num_args,
                 int device_check, EncodedCall& out);
// The same for parameters given in two pieces: [0, n_head) from head, the rest from tail (a
// decorated call: what the caller passed, then what its decorators set).
void encode_call_split(const KernelSignature& sig, const ResolvedOptions& options, const ArgSlot* head,
                       std::size_t n_head, const ArgSlot* tail, int device_check, EncodedCall& out);
// Only the kernel's parameters (cells, params, descriptors) of such a call, with the same checks,
// for a caller that knows its variant (Note [Decorated call memo]); the key is left unwritten.
void encode_params_split(const KernelSignature& sig, const ArgSlot* head, std::size_t n_head, const ArgSlot* tail,
                         int device_check, EncodedCall& out);
// The same for arguments that include tuples (TritonJITFunction::launch_nested's slots). A tuple
// passed to a parameter is specialised element by element, as Triton does; its elements that
// are not constexpr become kernel parameters in order.
void encode_call_nested(const KernelSignature& sig, const ResolvedOptions& options, const ArgSlot* slots,
                        std::size_t num_slots, int device_check, EncodedCall& out);

// A call's arguments as the cold path sees them: one slot per argument, or nested slots.
struct CallArgs {
  const ArgSlot* slots;
  std::size_t count;
  bool nested = false;
  // The slot of parameter i (a kTuple slot for a tuple), or its default.
  const ArgSlot& param(const KernelSignature& sig, std::size_t i) const;
};

// The argument for parameter i: the caller's, or the parameter's default.
const ArgSlot& argument_or_default(const KernelSignature& sig, const ArgSlot* args, std::size_t n, std::size_t i);

// Note [Decorators over tuples]
// The decorators see one slot a parameter, as Triton's do one Python value: a tuple is its
// header slot there. After they ran, the call is nested again for the encoder: each header takes
// back its elements, from the caller's slots, in order (decorators set constexprs, never tuples,
// and a tuple is never a default, so the k-th header bound is the caller's k-th tuple).

// The top-level arguments of nested slots, one slot each (a tuple's header slot) into `out`
// (kMaxParams); returns how many. Throws ValueError on a malformed sequence.
std::size_t top_level_arguments(const KernelSignature& sig, const ArgSlot* slots, std::size_t n_slots, ArgSlot* out);
// Parameters bound one slot each (`params`, sig.params.size() of them) as nested slots again,
// each tuple's elements taken from `source`, the nested slots they were bound from. Returns the
// number written to `out` (kMaxNestedSlots).
std::size_t nest_tuples(const KernelSignature& sig, const ArgSlot* params, const ArgSlot* source, std::size_t n_source,
                        ArgSlot* out);

}  // namespace triton_jit::detail
