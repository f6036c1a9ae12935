// Host-side TMA tensor descriptors at launch: what each descriptor argument becomes once the
// variant is known. See Note [Tensor descriptor parameters].
#pragma once

#include <string>

#include "encoding/argument_encoder.h"
#include "encoding/kernel_signature.h"
#include "triton_jit/impl/kernel_image.h"

namespace triton_jit::detail {

// The kernel parameters the descriptors of variant `key` take, as compiled (`m.tensor_maps`).
// Throws CompileError when the metadata does not describe the variant's descriptors.
int descriptor_param_count(const KernelSignature& sig, const VariantKey& key, const impl::KernelMetadata& m);

// Puts each descriptor's parameters in front of the parameter it was recorded at: a tensor map
// (encoded by the backend) with the shape and strides, or the base pointer, shape and strides.
// Allocates nothing. Throws DriverError when the driver refuses a tensor map.
void expand_descriptors(const impl::KernelMetadata& m, EncodedCall& call);

}  // namespace triton_jit::detail
