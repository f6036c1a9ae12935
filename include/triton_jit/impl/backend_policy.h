// triton_jit/impl/backend_policy.h: what a backend provides. No compatibility promise.
//
// A backend is a class with static members, chosen at configure time (TRITON_JIT_BACKEND). It
// loads kernel images per device, once, doing every check and attribute setting there, and
// launches a loaded kernel with prepared parameters. The launch must not allocate (except
// scratch buffers a kernel asks for), format strings or lock.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>

#include "triton_jit/impl/kernel_image.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::impl {

template <class B>
concept BackendPolicy = requires(const KernelImage& image, int device, const typename B::Kernel& kernel,
                                 const LaunchConfig& config, void** params, uint32_t num_params,
                                 uint64_t* scratch_cells) {
  typename B::Kernel;
  // Whether a driver and a device are present; never throws.
  { B::available() } -> std::same_as<bool>;
  // The calling thread's current device; throws DriverError without a driver.
  { B::current_device() } -> std::same_as<int>;
  // The compile target that runs best on `device`.
  { B::device_target(device) } -> std::same_as<Target>;
  // Loads and checks an image for `device` (shared memory, threads, arch); throws on failure.
  // The kernel stays loaded for the life of the process.
  { B::load(image, device) } -> std::same_as<const typename B::Kernel*>;
  // What the driver reported of a loaded kernel (registers, spills, threads), read at load.
  { B::resources(kernel) } -> std::same_as<KernelResources>;
  // Launches; params[0..num_params) are the user parameters, params[num_params] and
  // params[num_params + 1] must point to scratch_cells[0] and [1], which launch fills.
  { B::launch(kernel, config, params, num_params, scratch_cells) } -> std::same_as<void>;
  // Autotuning: the device's name (a tuning result is kept per kind of device), device memory
  // for snapshots, stream-ordered fills and copies, host copies (DeviceBuffer), and timing as triton.testing.do_bench
  // does.
  { B::device_name(device) } -> std::same_as<std::string>;
  { B::allocate(device, std::size_t{}) } -> std::same_as<void*>;
  { B::release(device, static_cast<void*>(nullptr)) } -> std::same_as<void>;
  { B::fill_zero(static_cast<void*>(nullptr), std::size_t{}, config.stream) } -> std::same_as<void>;
  {
    B::copy(static_cast<void*>(nullptr), static_cast<const void*>(nullptr), std::size_t{}, config.stream)
    } -> std::same_as<void>;
  { B::synchronize(device, config.stream) } -> std::same_as<void>;
  // Whether the stream is capturing a CUDA graph (tuning, which times and waits, cannot run then).
  { B::capturing(device, config.stream) } -> std::same_as<bool>;
  {
    B::upload(device, static_cast<void*>(nullptr), static_cast<const void*>(nullptr), std::size_t{})
    } -> std::same_as<void>;
  {
    B::download(device, static_cast<void*>(nullptr), static_cast<const void*>(nullptr), std::size_t{})
    } -> std::same_as<void>;
  {
    B::benchmark(device, config.stream, static_cast<void (*)(void*)>(nullptr), static_cast<void*>(nullptr), 25.0, 100.0)
    } -> std::same_as<std::array<double, 3>>;
  // Host-side TMA descriptors: writes the 128-byte tensor map a kernel parameter takes; throws
  // (naming what was asked) where the device or the backend has none.
  { B::encode_tensor_map(static_cast<void*>(nullptr), TensorMapRequest{}) } -> std::same_as<void>;
};

}  // namespace triton_jit::impl
