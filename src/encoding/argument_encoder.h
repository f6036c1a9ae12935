// Argument encoding: C++ argument slots -> kernel parameter bytes + variant key, following
// the specialisation rules of the installed Triton's Python runtime (DESIGN.md, "Parity").
#pragma once

#include <cstdint>
#include <string>

#include "encoding/kernel_signature.h"
#include "encoding/variant_key.h"

namespace triton_jit::detail {

// Compile options after defaults were applied; they go into the key's header.
struct ResolvedOptions {
  int arch = 90;
  bool arch_specific = false;
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
  int maxnreg = 0;
  bool enable_fp_fusion = true;
  bool launch_pdl = false;
  bool launch_cooperative_grid = false;
};

// Everything one call needs, on the caller's stack. Two trailing parameter cells are left
// for the scratch pointers the kernel ABI appends.
struct EncodedCall {
  VariantKey key;
  uint32_t num_kernel_params = 0;  // user parameters passed to the kernel (no constexprs)
  uint64_t cells[kMaxParams + 2];
  void* params[kMaxParams + 2];
};

// device_check: the CUDA device every pointer argument must live on, or -1 to skip the check
// (warmup, where nothing is dereferenced). Throws TypeError / ValueError naming the argument.
void encode_call(const KernelSignature& sig, const ResolvedOptions& options, const ArgSlot* args,
                 std::size_t num_args, int device_check, EncodedCall& out);

// The kind of a constexpr value in the key (its entry's value kind).
enum ValueKind : uint8_t { kVNone = 0, kVBool, kVInt, kVUInt, kVFloat, kVString };

// One parameter of a variant, decoded from its key.
struct DecodedParam {
  TypeToken token;
  Attr attr;
  uint8_t value_kind;  // for constexprs
  uint64_t value;      // a constexpr's bits (the first word of a string's digest)
};

// Calls fn(index, DecodedParam) for every parameter of the variant `key` of `sig`.
template <class Fn>
void for_each_param(const KernelSignature& sig, const VariantKey& key, Fn&& fn) {
  uint32_t cw = kHeaderWords + param_words(sig.params.size());
  for (std::size_t i = 0; i < sig.params.size(); ++i) {
    uint16_t entry = key_entry(key, i);
    DecodedParam d{entry_token(entry), entry_attr(entry), entry_value_kind(entry), 0};
    if (d.token == kConstexprToken) {
      d.value = key.words[cw++];
      if (d.value_kind == kVString) ++cw;  // strings take a 128-bit digest
    }
    fn(i, d);
  }
}

// The argument for parameter i: the caller's, or the parameter's default.
const ArgSlot& argument_or_default(const KernelSignature& sig, const ArgSlot* args, std::size_t n, std::size_t i);

// Parameters the kernel ABI takes from the user for this variant (constexprs excluded).
int kernel_param_count(const KernelSignature& sig, const VariantKey& key);

// Human-readable variant, for messages and VariantInfo: "*fp32:16, i32, constexpr BLOCK=1024".
std::string describe_variant(const KernelSignature& sig, const VariantKey& key, const ArgSlot* args,
                             std::size_t num_args);

}  // namespace triton_jit::detail
