// Scratch memory a kernel asks for per launch (Triton's global and profile scratch), taken from
// the process's ScratchAllocator on the launch stream and given back when the launch has been
// queued (the allocator orders reuse after the stream's work). Shared by the backend policies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "triton_jit/launch_config.h"
#include "triton_jit/settings.h"

namespace triton_jit::detail {

struct ScratchLease {
  ScratchAllocator* allocator = nullptr;
  void* ptr = nullptr;
  std::size_t bytes = 0;
  Stream stream = nullptr;
  ScratchLease() = default;
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  ~ScratchLease() {
    if (ptr != nullptr) allocator->deallocate(ptr, bytes, stream);
  }
};

// Takes `bytes` for kernel `kernel`'s `what` ("global", "profile") scratch into `lease` and
// writes its address to `cell`. Throws Error naming the kernel when no allocator is set or it
// returns null. Off the hot path: only kernels that declare scratch call it.
void lease_scratch(const std::string& kernel, uint64_t bytes, uint64_t align, Stream stream, const char* what,
                   ScratchLease& lease, uint64_t& cell);

}  // namespace triton_jit::detail
