// triton_jit/device_buffer.h: device memory for callers without torch (small programs, tests,
// triton_jit_aot's tuning). With libtorch, pass at::Tensor instead.
//
//   triton_jit::DeviceBuffer x(n * sizeof(float));          // on the current device
//   x.upload(host.data(), n * sizeof(float));
//   scale(cfg, x.as(triton_jit::DType::kFloat32), out.as(triton_jit::DType::kFloat32), n);
//   out.download(result.data(), n * sizeof(float));
#pragma once

#include <cstddef>

#include "triton_jit/arguments.h"
#include "triton_jit/export.h"
#include "triton_jit/launch_config.h"

namespace triton_jit {

class TRITON_JIT_API DeviceBuffer {
 public:
  DeviceBuffer() noexcept = default;
  // Allocates `bytes` on `device` (-1: the calling thread's current device), zero-filled.
  // Throws DriverError without a driver or when the memory is not there.
  explicit DeviceBuffer(std::size_t bytes, int device = -1);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  int device() const noexcept { return device_; }

  // Synchronous copies from and to host memory, at `offset` bytes into the buffer. Throws
  // ValueError when the range is outside the buffer.
  void upload(const void* host, std::size_t bytes, std::size_t offset = 0);
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;
  // Zero-fills, ordered on `stream`.
  void zero(Stream stream = nullptr);

  // The buffer as a kernel argument of element type `dtype`, with its device and extent (so
  // that an autotuner can save and restore it).
  DevicePointer as(DType dtype) const noexcept {
    return device_pointer(ptr_, dtype, device_, static_cast<uint64_t>(bytes_));
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

}  // namespace triton_jit
