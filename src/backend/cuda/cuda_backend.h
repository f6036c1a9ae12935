// The CUDA backend policy: modules per (variant, device), launches through cuLaunchKernelEx.
// Satisfies impl::BackendPolicy. cuda.h stays inside this folder.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "triton_jit/impl/backend_policy.h"
#include "triton_jit/impl/kernel_image.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail::cuda {

// Whether a cubin built for `arch` ("90", "90a", "80") runs on a device of compute capability
// major.minor: the same major and a minor no newer than the device; an 'a' target only on
// exactly its own capability.
bool arch_runs_on(const std::string& arch, int major, int minor) noexcept;

class CudaBackend {
 public:
  struct Kernel;  // defined in cuda_backend.cpp; immutable after load

  static bool available() noexcept;
  static int current_device();
  static Target device_target(int device);
  // The returned kernel is never unloaded: variants live as long as their function (the process).
  static const Kernel* load(const impl::KernelImage& image, int device);
  static impl::KernelResources resources(const Kernel& kernel) noexcept;
  static void launch(const Kernel& kernel, const LaunchConfig& config, void** params, uint32_t num_params,
                     uint64_t* scratch_cells);

  // ---- autotuning ----
  static std::string device_name(int device);
  // Device memory outside any allocator, for snapshots while tuning. Throws DriverError.
  static void* allocate(int device, std::size_t bytes);
  static void release(int device, void* ptr) noexcept;
  static void fill_zero(void* ptr, std::size_t bytes, Stream stream);
  // Whether `stream` is capturing work into a CUDA graph (where nothing may be timed or waited for).
  static bool capturing(int device, Stream stream);
  // Waits for the work queued on `stream` (nullptr: the legacy default stream).
  static void synchronize(int device, Stream stream);
  // Synchronous copies between host and device memory.
  static void upload(int device, void* destination, const void* host, std::size_t bytes);
  static void download(int device, void* host, const void* source, std::size_t bytes);
  static void copy(void* destination, const void* source, std::size_t bytes, Stream stream);
  // Times `run` on `stream` as triton.testing.do_bench does: once; five times, each after
  // flushing the L2 cache (a 256 MB memset), to estimate; warm-up runs for warmup_ms; then runs
  // for rep_ms, each after a flush, between two events. The 50th, 20th and 80th percentiles in ms.
  static std::array<double, 3> benchmark(int device, Stream stream, void (*run)(void*), void* context, double warmup_ms,
                                         double rep_ms);
  // Writes the 128-byte tensor map of a host-side TMA descriptor into `map`.
  static void encode_tensor_map(void* map, const impl::TensorMapRequest& request);
};

}  // namespace triton_jit::detail::cuda
