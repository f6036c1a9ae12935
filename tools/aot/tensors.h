// Device memory for the tensor arguments of a manifest's tuning calls.
#pragma once

#include <vector>

#include <triton_jit/triton_jit.h>

#include "manifest.h"

namespace triton_jit::aot {

// One buffer per tensor argument, in order, filled as the manifest asks: the same values on
// every run.
std::vector<DeviceBuffer> make_tensors(const std::vector<Argument>& arguments);

// The buffers as kernel arguments of the tensors' element types, for to_slots.
std::vector<DevicePointer> pointers(const std::vector<Argument>& arguments, const std::vector<DeviceBuffer>& tensors);

}  // namespace triton_jit::aot
