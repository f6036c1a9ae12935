// Programmatic dependent launch for the operators whose kernels take GDC (the norms, the gated
// activations, rotary_and_cache, paged attention): inside a DependentLaunches scope, on a device
// of compute capability 9.0 or newer, each of them is launched so that it may start while the
// kernel before it on the stream finishes, and waits (griddepcontrol.wait) before it reads
// anything, so its launch latency and start overlap its predecessor's tail. Results are the same
// bits either way. Off unless a scope asks: a long grid of dependents can hold SM slots that its
// predecessor's later blocks would use, so the caller that knows its grids decides (the decoder's
// decode step). The scope is the calling thread's; it is captured into CUDA graphs like any launch.
#pragma once

#include <ATen/core/Tensor.h>

namespace triton_jit::ops {

class DependentLaunches {
 public:
  DependentLaunches() noexcept;
  ~DependentLaunches();
  DependentLaunches(const DependentLaunches&) = delete;
  DependentLaunches& operator=(const DependentLaunches&) = delete;
};

// Whether a kernel that takes GDC, launched now for `like`'s device, launches dependent.
bool dependent_launch(const at::Tensor& like);

}  // namespace triton_jit::ops
