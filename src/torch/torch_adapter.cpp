#include <ATen/ops/empty.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <fmt/format.h>

#include <mutex>

#include "triton_jit/torch.h"

namespace triton_jit::torch_adapter {
namespace {

// Scratch memory from PyTorch's caching allocator. Freeing right after the launch is enqueued
// is safe: the allocator hands the block out again only to work ordered after it on the stream.
class CachingScratchAllocator final : public ScratchAllocator {
 public:
  void* allocate(std::size_t bytes, std::size_t alignment, Stream stream) override {
    // The caching allocator aligns blocks to 512 bytes, more than Triton asks for.
    if (alignment > 512) {
      throw ValueError(
          fmt::format("triton_jit: scratch alignment {} exceeds what the caching allocator gives (512)", alignment));
    }
    return c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, reinterpret_cast<cudaStream_t>(stream));
  }
  void deallocate(void* ptr, std::size_t, Stream) noexcept override {
    c10::cuda::CUDACachingAllocator::raw_delete(ptr);
  }
};

}  // namespace

Stream current_stream() { return reinterpret_cast<Stream>(c10::cuda::getCurrentCUDAStream().stream()); }

Stream current_stream(c10::DeviceIndex device) {
  return reinterpret_cast<Stream>(c10::cuda::getCurrentCUDAStream(device).stream());
}

DeviceGuard::DeviceGuard(const at::Tensor& tensor) : DeviceGuard(tensor.device().index()) {}

DeviceGuard::DeviceGuard(c10::DeviceIndex device) : previous_(c10::cuda::current_device()) {
  if (device >= 0 && device != previous_) c10::cuda::set_device(device);
}

DeviceGuard::~DeviceGuard() {
  if (c10::cuda::current_device() != previous_) c10::cuda::set_device(previous_);
}

void install_scratch_allocator() {
  static CachingScratchAllocator* allocator = [] {
    auto* a = new CachingScratchAllocator();  // never destroyed: launches may outlive statics
    set_scratch_allocator(a);
    return a;
  }();
  (void)allocator;
}

at::Tensor empty_output(at::IntArrayRef sizes, c10::ScalarType dtype, const at::Tensor& like) {
  return at::empty(sizes, like.options().dtype(dtype).memory_format(c10::MemoryFormat::Contiguous));
}

void check_cuda(const at::Tensor& t, const char* op, const char* arg) {
  if (!t.defined()) throw ValueError(fmt::format("{}: argument '{}' is an undefined tensor", op, arg));
  if (!t.is_cuda()) {
    throw ValueError(
        fmt::format("{}: argument '{}' expected a CUDA tensor, got a {} tensor", op, arg, t.device().str()));
  }
}

void check_same_device(const at::Tensor& a, const at::Tensor& b, const char* op) {
  if (a.device() != b.device()) {
    throw ValueError(
        fmt::format("{}: expected tensors on one device, got {} and {}", op, a.device().str(), b.device().str()));
  }
}

}  // namespace triton_jit::torch_adapter
