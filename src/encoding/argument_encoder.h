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

// The compile request for a variant, as JSON for the compile script:
// {"signature": [...], "constexprs": {...}, "attrs": {...}, "options": {...}, "target": "cuda:90"}.
std::string compile_request_json(const KernelSignature& sig, const ResolvedOptions& options, const VariantKey& key,
                                 const ArgSlot* args, std::size_t num_args);

// Parameters the kernel ABI takes from the user for this variant (constexprs excluded).
int kernel_param_count(const KernelSignature& sig, const VariantKey& key);

// Human-readable variant, for messages and VariantInfo: "*fp32:16, i32, constexpr BLOCK=1024".
std::string describe_variant(const KernelSignature& sig, const VariantKey& key, const ArgSlot* args,
                             std::size_t num_args);

}  // namespace triton_jit::detail
