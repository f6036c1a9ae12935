#include "backend/scratch.h"

#include <fmt/format.h>

#include "common/settings.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

__attribute__((noinline)) void lease_scratch(const std::string& kernel, uint64_t bytes, uint64_t align, Stream stream,
                                             const char* what, ScratchLease& lease, uint64_t& cell) {
  ScratchAllocator* allocator = hot_settings().scratch.load(std::memory_order_acquire);
  if (allocator == nullptr) {
    throw Error(fmt::format(
        "{}: the kernel needs {} bytes of {} scratch memory, and no scratch allocator is set; call "
        "triton_jit::set_scratch_allocator (triton_jit::torch_adapter::install_scratch_allocator() uses PyTorch's)",
        kernel, bytes, what));
  }
  lease.allocator = allocator;
  lease.bytes = bytes;
  lease.stream = stream;
  lease.ptr = allocator->allocate(bytes, align, stream);
  if (lease.ptr == nullptr)
    throw Error(fmt::format("{}: the scratch allocator returned null for {} bytes", kernel, bytes));
  cell = reinterpret_cast<uint64_t>(lease.ptr);
}

}  // namespace triton_jit::detail
