// A variant in words, from its key: the signature text of messages and VariantInfo, the kernel's
// parameter count, and the type names of tensor descriptors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "encoding/argument_encoder.h"
#include "encoding/key_layout.h"

namespace triton_jit::detail {

// Human-readable variant, for messages and VariantInfo: "x: *fp32:16, n: i32, BLOCK=1024".
std::string describe_variant(const KernelSignature& sig, const VariantKey& key, const CallArgs& args);

// Parameters the kernel ABI takes from the user for this variant (constexprs excluded).
int kernel_param_count(const KernelSignature& sig, const VariantKey& key);

// Triton's type of a descriptor argument: "tensordesc<fp16[64, 32]>", with a Gluon layout
// "tensordesc<fp16[64, 32],NVMMASharedLayout(...)>".
std::string descriptor_type_name(uint64_t word, std::string_view layout = {});
// The rank and block shape held by a descriptor word.
int descriptor_rank(uint64_t word) noexcept;

// The layout of a descriptor parameter of a variant, from the call's slot ("" without one).
std::string_view descriptor_layout(const KernelSignature& sig, const DecodedParam& d, const ArgSlot& slot);

}  // namespace triton_jit::detail
