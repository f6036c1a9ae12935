// Argument encoding: C++ argument slots -> kernel parameter bytes + variant key, following
// the specialisation rules of the installed Triton's Python runtime (DESIGN.md, "Parity").
#pragma once

#include <cstdint>
#include <string>

#include "common/limits.h"
#include "encoding/kernel_signature.h"
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
// "tensordesc<fp16[64, 32]>", Triton's type name for it.
// Triton's type of a descriptor argument: "tensordesc<fp16[64, 32]>", with a Gluon layout
// "tensordesc<fp16[64, 32],NVMMASharedLayout(...)>".
std::string descriptor_type_name(uint64_t word, std::string_view layout = {});
// The rank and block shape held by a descriptor word.
int descriptor_rank(uint64_t word) noexcept;

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

// The kind of a constexpr value in the key (its entry's value kind).
enum ValueKind : uint8_t { kVNone = 0, kVBool, kVInt, kVUInt, kVFloat, kVString, kVTuple, kVFunction, kVExpression };

// A tuple argument's tree in the key's tail, in pre-order: a node word per tuple (its element
// count), a leaf word per element (its 16-bit entry), then the value word of a leaf folded into
// a constexpr (None, 1).
inline constexpr uint64_t kTreeNode = uint64_t{1} << 63;
inline constexpr uint64_t kTreeLeaf = uint64_t{1} << 62;

// One parameter of a variant, decoded from its key.
struct DecodedParam {
  TypeToken token;
  Attr attr;
  uint8_t value_kind;  // for constexprs
  uint64_t value;      // a constexpr's bits (the first word of a string's or tuple's digest); a descriptor's word
  uint32_t tree = 0;   // kTupleToken: where its tree starts in the key
};

// The layout of a descriptor parameter of a variant, from the call's slot ("" without one).
std::string_view descriptor_layout(const KernelSignature& sig, const DecodedParam& d, const ArgSlot& slot);

// A descriptor entry's value kind when the descriptor carries a Gluon layout: two more words, its
// text's digest, follow the descriptor's word.
inline constexpr uint8_t kDescriptorWithLayout = 1;

inline uint32_t constexpr_words(uint8_t value_kind) {
  return value_kind == kVString || value_kind == kVTuple || value_kind == kVFunction || value_kind == kVExpression ? 2
                                                                                                                   : 1;
}

// The word after a tuple tree that starts at `cw`.
inline uint32_t skip_tree(const VariantKey& key, uint32_t cw) {
  uint64_t remaining = 1;
  while (remaining > 0) {
    const uint64_t w = key.words[cw++];
    --remaining;
    if (w & kTreeNode) {
      remaining += static_cast<uint32_t>(w);
    } else if (entry_token(static_cast<uint16_t>(w)) == kConstexprToken) {
      cw += constexpr_words(entry_value_kind(static_cast<uint16_t>(w)));
    }
  }
  return cw;
}

// Calls fn(index, DecodedParam) for every parameter of the variant `key` of `sig`.
template <class Fn>
void for_each_param(const KernelSignature& sig, const VariantKey& key, Fn&& fn) {
  uint32_t cw = kHeaderWords + param_words(sig.params.size());
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    uint16_t entry = key_entry(key, i);
    DecodedParam d{entry_token(entry), entry_attr(entry), entry_value_kind(entry), 0};
    if (d.token == kConstexprToken) {
      d.value = key.words[cw];
      cw += constexpr_words(d.value_kind);
    } else if (d.token == kTensorDescToken) {
      d.value = key.words[cw++];
      if (d.value_kind == kDescriptorWithLayout) cw += 2;
    } else if (d.token == kTupleToken) {
      d.tree = cw;
      cw = skip_tree(key, cw);
    }
    fn(i, d);
  }
}

// A step of a walk through a tuple tree: a node's start or end, or a leaf.
struct TupleStep {
  enum Kind { kBegin, kLeaf, kEnd } kind;
  uint32_t count;        // kBegin: elements
  uint16_t entry;        // kLeaf
  uint64_t value;        // kLeaf folded into a constexpr: its value bits
  const uint32_t* path;  // the element's indices from the tuple down (kLeaf, kBegin of an inner node)
  uint32_t depth;
  bool leaf = false;
};

// Walks the tree at `tree` in order. Throws ValueError when it nests deeper than kMaxTupleDepth.
template <class Fn>
void walk_tuple(const VariantKey& key, uint32_t tree, Fn&& fn);

// Parameters the kernel ABI takes from the user for this variant (constexprs excluded).
int kernel_param_count(const KernelSignature& sig, const VariantKey& key);

// The argument for parameter i: the caller's, or the parameter's default.
const ArgSlot& argument_or_default(const KernelSignature& sig, const ArgSlot* args, std::size_t n, std::size_t i);

// Human-readable variant, for messages and VariantInfo: "x: *fp32:16, n: i32, BLOCK=1024".
std::string describe_variant(const KernelSignature& sig, const VariantKey& key, const CallArgs& args);

template <class Fn>
void walk_tuple(const VariantKey& key, uint32_t tree, Fn&& fn) {
  uint32_t path[kMaxTupleDepth];
  uint32_t left[kMaxTupleDepth];
  uint32_t depth = 0;
  uint32_t cw = tree;
  auto finished = [&] {  // one element done: close the nodes it completed
    while (depth > 0) {
      ++path[depth - 1];
      if (--left[depth - 1] > 0) return;
      --depth;
      fn(TupleStep{TupleStep::kEnd, 0, 0, 0, path, depth});
    }
  };
  do {
    const uint64_t w = key.words[cw++];
    if (w & kTreeNode) {
      const auto count = static_cast<uint32_t>(w);
      fn(TupleStep{TupleStep::kBegin, count, 0, 0, path, depth});
      if (depth == kMaxTupleDepth) throw ValueError("triton_jit: tuple arguments nest deeper than 16");
      if (count == 0) {
        fn(TupleStep{TupleStep::kEnd, 0, 0, 0, path, depth});
        finished();
        continue;
      }
      path[depth] = 0;
      left[depth] = count;
      ++depth;
    } else {
      const auto entry = static_cast<uint16_t>(w);
      uint64_t value = 0;
      if (entry_token(entry) == kConstexprToken) {
        value = key.words[cw];
        cw += constexpr_words(entry_value_kind(entry));
      }
      TupleStep step{TupleStep::kLeaf, 0, entry, value, path, depth};
      step.leaf = true;
      fn(step);
      finished();
    }
  } while (depth > 0);
}

}  // namespace triton_jit::detail
