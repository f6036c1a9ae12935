// What every wrapper needs to launch a kernel: the kernel, found once beside the library; a fixed
// array of argument slots (no allocation per call); the current stream and device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <triton_jit/torch.h>

#include "common/dependent_launch.h"
#include "common/kernel_path.h"

namespace triton_jit::ops {

// The kernel `function` of `file` (relative to triton_jit_kernels/ beside the library); looked
// up once per call site:  static const auto& k = kernel("pointwise.py", "unary_kernel");
inline const TritonJITFunction& kernel(const char* file, const char* function) {
  return TritonJITFunction::get_instance(kernel_path(file), function);
}

template <std::size_t N>
class Slots {
 public:
  // A branch, not a formatted message, on the launch path: one more argument than the slots hold
  // is a mistake in the wrapper, caught before it writes past the array.
  template <class T>
  Slots& add(const T& value) {
    if (size_ == N) throw std::logic_error("triton_jit::ops::Slots::add: more arguments than slots");
    slots_[size_++] = to_slot(value);
    return *this;
  }
  template <class... T>
  Slots& add_all(const T&... values) {
    static_assert(sizeof...(T) <= N, "more arguments than slots: make the Slots larger");
    (add(values), ...);
    return *this;
  }
  void launch(const TritonJITFunction& f, const LaunchConfig& config) const { f.launch(config, slots_.data(), size_); }

 private:
  std::array<ArgSlot, N> slots_{};
  std::size_t size_ = 0;
};

// A launch on the current stream of `like`'s device, with PyTorch's allocator for scratch.
inline LaunchConfig launch_config(const at::Tensor& like, unsigned grid_x, unsigned grid_y = 1, unsigned grid_z = 1,
                                  int num_warps = 4, int num_stages = 0) {
  torch_adapter::install_scratch_allocator();
  LaunchConfig c;
  c.device = like.device().index();
  c.stream = torch_adapter::current_stream(like.device().index());
  c.grid = {grid_x, grid_y, grid_z};
  c.num_warps = num_warps;
  c.num_stages = num_stages;
  return c;
}

// The launch of a kernel that takes GDC as its last parameter: dependent on its predecessor where
// a DependentLaunches scope asks for it (common/dependent_launch.h), and GDC says so to the kernel,
// which then waits for its predecessor's writes before it reads.
template <std::size_t N>
void launch_after(Slots<N>& s, const TritonJITFunction& f, LaunchConfig config, const at::Tensor& like) {
  const bool gdc = dependent_launch(like);
  s.add(gdc);
  config.launch_pdl = gdc;
  s.launch(f, config);
}

constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
constexpr int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace triton_jit::ops
