// The HIP backend policy: code objects per (variant, device), launches through
// hipModuleLaunchKernel with Triton's AMD launch ABI. Satisfies impl::BackendPolicy; selected with
// CMake's TRITON_JIT_BACKEND=hip. The HIP headers stay inside this folder.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "triton_jit/impl/backend_policy.h"
#include "triton_jit/impl/kernel_image.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail::hip {

// The compile target of a device from its architecture name ("gfx942:sramecc+:xnack-"): the
// part before the first ':'; nullopt-like Target{0} when it is not a gfx name.
Target target_of_arch_name(const std::string& gcn_arch_name) noexcept;

class HipBackend {
 public:
  struct Kernel;  // defined in hip_backend.cpp; immutable after load

  static bool available() noexcept;
  static int current_device();
  static Target device_target(int device);
  static const Kernel* load(const impl::KernelImage& image, int device);
  static impl::KernelResources resources(const Kernel& kernel) noexcept;
  static void launch(const Kernel& kernel, const LaunchConfig& config, void** params, uint32_t num_params,
                     uint64_t* scratch_cells);

  static std::string device_name(int device);
  static void* allocate(int device, std::size_t bytes);
  static void release(int device, void* ptr) noexcept;
  static void fill_zero(void* ptr, std::size_t bytes, Stream stream);
  static bool capturing(int device, Stream stream);
  static void synchronize(int device, Stream stream);
  static void upload(int device, void* destination, const void* host, std::size_t bytes);
  static void download(int device, void* host, const void* source, std::size_t bytes);
  static void copy(void* destination, const void* source, std::size_t bytes, Stream stream);
  static std::array<double, 3> benchmark(int device, Stream stream, void (*run)(void*), void* context, double warmup_ms,
                                         double rep_ms);
  // Writes the 128-byte tensor map of a host-side TMA descriptor into `map`.
  static void encode_tensor_map(void* map, const impl::TensorMapRequest& request);
};

}  // namespace triton_jit::detail::hip
