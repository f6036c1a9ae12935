// Which launches are dependent (ops::DependentLaunches in common/ops.h): the wrappers' side.
#pragma once

#include <ATen/core/Tensor.h>

#include "common/ops.h"

namespace triton_jit::ops {

// Whether a kernel that takes GDC, launched now for `like`'s device, launches dependent: inside a
// DependentLaunches scope of this thread, on a device whose griddepcontrol exists (sm_90 and newer).
bool dependent_launch(const at::Tensor& like);

}  // namespace triton_jit::ops
