// triton_jit/torch.h: the libtorch adapter (link TritonJIT::torch).
//
// Adds at::Tensor and c10::Scalar arguments, the current stream and device helpers, PyTorch's
// caching allocator for kernel scratch memory, and helpers to register an operator.
//
//   #include <triton_jit/torch.h>
//   at::Tensor add(const at::Tensor& x, const at::Tensor& y) {
//     auto out = at::empty_like(x);
//     triton_jit::torch_adapter::DeviceGuard guard(x);
//     static auto& kernel = triton_jit::TritonJITFunction::get_instance("add.py", "add_kernel");
//     kernel(triton_jit::torch_adapter::current_stream(), blocks, 1, 1, 4, 3, x, y, out, x.numel(), 1024);
//     return out;
//   }
//
// A tensor argument is checked to be on the launch device (a CPU tensor, or one on another
// GPU, is a ValueError naming the argument); its data pointer includes its storage offset.
// A dtype Triton does not accept (complex, for example) is a TypeError naming it.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>

#include <memory>

#include "triton_jit/triton_jit.h"

namespace triton_jit {

namespace torch_adapter {

// The Triton dtype of a torch dtype, or DType::kInvalid when Triton does not accept it.
constexpr DType to_dtype(c10::ScalarType t) noexcept {
  switch (t) {
    case c10::ScalarType::Bool:
      return DType::kBool;
    case c10::ScalarType::Char:
      return DType::kInt8;
    case c10::ScalarType::Short:
      return DType::kInt16;
    case c10::ScalarType::Int:
      return DType::kInt32;
    case c10::ScalarType::Long:
      return DType::kInt64;
    case c10::ScalarType::Byte:
      return DType::kUInt8;
    case c10::ScalarType::UInt16:
      return DType::kUInt16;
    case c10::ScalarType::UInt32:
      return DType::kUInt32;
    case c10::ScalarType::UInt64:
      return DType::kUInt64;
    case c10::ScalarType::Half:
      return DType::kFloat16;
    case c10::ScalarType::BFloat16:
      return DType::kBFloat16;
    case c10::ScalarType::Float:
      return DType::kFloat32;
    case c10::ScalarType::Double:
      return DType::kFloat64;
    case c10::ScalarType::Float8_e4m3fn:
      return DType::kFloat8E4M3FN;
    case c10::ScalarType::Float8_e5m2:
      return DType::kFloat8E5M2;
    case c10::ScalarType::Float8_e4m3fnuz:
      return DType::kFloat8E4M3FNUZ;
    case c10::ScalarType::Float8_e5m2fnuz:
      return DType::kFloat8E5M2FNUZ;
    default:
      return DType::kInvalid;
  }
}

// TensorDescriptor.from_tensor(t, block_shape, padding): a TMA descriptor over the whole tensor
// (its sizes and strides). A tensor of rank 0 or above 5 gives a descriptor the launch refuses.
inline TensorDescriptor tensor_descriptor(const at::Tensor& t, std::initializer_list<int32_t> block_shape,
                                          bool nan_padding = false, bool round_f32_to_tf32 = false) {
  TensorDescriptor d;
  d.base = t.data_ptr();
  d.dtype = to_dtype(t.scalar_type());
  const c10::Device device = t.device();
  d.device = device.is_cuda() ? static_cast<int16_t>(device.index()) : device.is_cpu() ? kHostDevice : kOtherDevice;
  d.rank = static_cast<int>(t.dim());
  if (d.rank < 1 || d.rank > TensorDescriptor::kMaxRank || block_shape.size() != static_cast<std::size_t>(d.rank)) {
    d.rank = -1;
    return d;
  }
  for (int k = 0; k < d.rank; ++k) {
    d.shape[static_cast<std::size_t>(k)] = t.size(k);
    d.strides[static_cast<std::size_t>(k)] = t.stride(k);
  }
  std::copy(block_shape.begin(), block_shape.end(), d.block_shape.begin());
  d.nan_padding = nan_padding;
  d.round_f32_to_tf32 = round_f32_to_tf32;
  return d;
}

}  // namespace torch_adapter

template <>
struct ArgTraits<at::Tensor> {
  // The bytes a strided view spans from its first element to its last.
  static uint64_t strided_extent(const at::Tensor& t) noexcept {
    if (t.numel() == 0) return 0;
    int64_t last = 0;
    for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    return static_cast<uint64_t>(last + 1) * static_cast<uint64_t>(t.element_size());
  }

  // The kLayout* bits of ArgSlot::size.
  static uint32_t layout(const at::Tensor& t, bool contiguous) noexcept {
    uint32_t shape = static_cast<uint32_t>(t.dim());
    for (const int64_t n : t.sizes())
      shape = (shape ^ static_cast<uint32_t>(n) ^ static_cast<uint32_t>(n >> 32)) * 0x9E3779B1u;
    const bool dense = contiguous || t.is_non_overlapping_and_dense();
    return kLayoutKnown | (dense ? kLayoutDense : 0u) | (contiguous ? kLayoutContiguous : 0u) |
           shape << kLayoutShapeShift;
  }

  static ArgSlot to_slot(const at::Tensor& t) noexcept {
    ArgSlot s;
    if (!t.defined()) return s;  // an undefined tensor is None, as an optional would be
    const DType dtype = torch_adapter::to_dtype(t.scalar_type());
    if (dtype == DType::kInvalid) [[unlikely]] {
      s.kind = ArgKind::kUnsupported;
      s.value.s = c10::toString(t.scalar_type());
      return s;
    }
    s.kind = ArgKind::kPointer;
    s.dtype = dtype;
    s.value.p = t.data_ptr();
    const bool contiguous = t.is_contiguous();
    s.extent = contiguous ? static_cast<uint64_t>(t.nbytes()) : strided_extent(t);
    s.size = layout(t, contiguous);
    const c10::Device device = t.device();
    s.device = device.is_cuda() ? static_cast<int16_t>(device.index()) : device.is_cpu() ? kHostDevice : kOtherDevice;
    return s;
  }
};

template <>
struct ArgTraits<c10::Scalar> {
  static ArgSlot to_slot(const c10::Scalar& v) noexcept {
    if (v.isBoolean()) return ArgTraits<bool>::to_slot(v.toBool());
    if (v.isIntegral(/*includeBool=*/false)) {
      if (v.type() == c10::ScalarType::UInt64) return ArgTraits<uint64_t>::to_slot(v.toUInt64());
      return ArgTraits<int64_t>::to_slot(v.toLong());
    }
    if (v.isFloatingPoint()) return ArgTraits<double>::to_slot(v.toDouble());
    ArgSlot s;
    s.kind = ArgKind::kUnsupported;
    s.value.s = c10::toString(v.type());
    return s;
  }
};

namespace torch_adapter {

// The current CUDA stream of the current device (or of `device`), as a triton_jit::Stream.
TRITON_JIT_API Stream current_stream();
TRITON_JIT_API Stream current_stream(c10::DeviceIndex device);

// Makes the tensor's device current for its lifetime (a c10 CUDA device guard).
class TRITON_JIT_API DeviceGuard {
 public:
  explicit DeviceGuard(const at::Tensor& tensor);
  explicit DeviceGuard(c10::DeviceIndex device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  c10::DeviceIndex previous_;
};

// Sets PyTorch's CUDA caching allocator as triton_jit's scratch allocator (idempotent,
// thread-safe). Called by every operator in operators/ before its first launch.
TRITON_JIT_API void install_scratch_allocator();

// An uninitialised contiguous output on the device of `like`, with `dtype`.
TRITON_JIT_API at::Tensor empty_output(at::IntArrayRef sizes, c10::ScalarType dtype, const at::Tensor& like);

// Checks used by operator wrappers; throw ValueError naming the operator and argument.
TRITON_JIT_API void check_cuda(const at::Tensor& t, const char* op, const char* arg);
TRITON_JIT_API void check_same_device(const at::Tensor& a, const at::Tensor& b, const char* op);

// Number of blocks of `block` elements covering n.
constexpr unsigned blocks_for(int64_t n, int64_t block) noexcept {
  return static_cast<unsigned>((n + block - 1) / block);
}

}  // namespace torch_adapter
}  // namespace triton_jit
