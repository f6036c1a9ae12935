// triton_jit/arguments.h: how a C++ argument becomes a kernel argument.
//
// Every argument of a kernel call is turned into an ArgSlot, a small tagged value, by
// ArgTraits<T>::to_slot. The slot carries what Triton's Python runtime would see: an integer
// (its value, not its C++ width), a float, a bool, None, a string (constexprs only) or a
// pointer with its dtype and device. The kernel's signature then decides the kernel type,
// exactly as Triton would for the same Python value.
//
//   f(stream, grid_x, 1, 1, 4, 3, x, y, out, int64_t{n});      // n -> i32 if it fits, like Python
//   f(stream, grid_x, 1, 1, 4, 3, x, y, out, triton_jit::fixed<int64_t>(n));   // always i64
//   f(stream, ..., triton_jit::device_pointer(ptr, triton_jit::DType::kFloat32, 0), ...);
//
// Supported out of the box: bool, every integer type, float, double, std::nullopt,
// std::nullptr_t, std::optional<T>, const char*, std::string, std::string_view,
// DevicePointer, TensorDescriptor and Fixed<T>. triton_jit/torch.h adds at::Tensor and c10::Scalar. Other
// types can be added by specialising ArgTraits.
//
// ArgumentBuilder collects slots when the number of arguments is known only at run time.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "triton_jit/export.h"

namespace triton_jit {

// Element types Triton accepts for pointers and scalars; names follow Triton's ("fp32", "*bf16").
enum class DType : uint8_t {
  kInvalid = 0,
  kBool,  // u1
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kFloat8E4M3FN,    // fp8e4nv
  kFloat8E5M2,      // fp8e5
  kFloat8E4M3FNUZ,  // fp8e4b8
  kFloat8E5M2FNUZ,  // fp8e5b16
  kFloat8E4B15,     // fp8e4b15
};

// Triton's name of a dtype ("fp32"); "invalid" for kInvalid.
TRITON_JIT_API const char* dtype_name(DType dtype) noexcept;

enum class ArgKind : uint8_t {
  kNone,
  kBool,
  kInt,    // value.i
  kUInt,   // value.u, used for values above INT64_MAX
  kFloat,  // value.f
  kPointer,
  kString,            // value.s, size bytes; constexpr parameters only
  kUnsupported,       // value.s names what was passed (an unsupported dtype)
  kTuple,             // a tuple of `size` elements, whose slots follow this one (nested tuples too);
                      // value.s, extent bytes: a namedtuple's "Name:field,field" (nullptr: a tuple)
  kTensorDescriptor,  // value.p: a TensorDescriptor, valid during the call; dtype, device: its base's
  kJitFunction,       // value.p: a JitFunctionArg (triton_jit/jit_function_arg.h), valid during the call
  kExpression,        // value.s, size bytes: a constexpr named by a Python expression (ConstexprExpression)
};

// Device of a pointer argument.
inline constexpr int16_t kHostDevice = -1;     // a CPU tensor or host pointer
inline constexpr int16_t kUnknownDevice = -2;  // a raw pointer: not checked
inline constexpr int16_t kOtherDevice = -3;    // memory of another device type

// What a kPointer slot knows of its tensor's layout (ArgSlot::size): what a Config hook that
// zeroes or copies a whole tensor must know to write its elements and nothing between them.
inline constexpr uint32_t kLayoutKnown = 1u;       // the bits below were read from a tensor
inline constexpr uint32_t kLayoutDense = 2u;       // non-overlapping and dense: its elements fill the extent
inline constexpr uint32_t kLayoutContiguous = 4u;  // row-major contiguous
inline constexpr unsigned kLayoutShapeShift = 3;   // bits 3 to 31: a digest of its shape

struct ArgSlot {
  union Value {
    int64_t i;
    uint64_t u;
    double f;
    const void* p;
    const char* s;
  } value{.i = 0};
  // kPointer: the bytes the argument spans from value.p (0: unknown). Autotuning needs it to
  // snapshot the tensors of reset_to_zero and restore_value.
  uint64_t extent = 0;
  uint32_t size = 0;  // kString: length in bytes; kPointer: its layout (kLayout* bits; 0: unknown)
  ArgKind kind = ArgKind::kNone;
  // kPointer: the pointee type. kInt/kUInt/kFloat/kBool: a fixed kernel type chosen in C++
  // (Fixed<T>), kInvalid to choose like Triton's Python runtime.
  DType dtype = DType::kInvalid;
  int16_t device = kUnknownDevice;  // kPointer only
};

template <class T, class Enable = void>
struct ArgTraits;  // no definition: an unsupported C++ type fails to compile here

template <>
struct ArgTraits<bool> {
  static ArgSlot to_slot(bool v) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kBool;
    s.value.i = v ? 1 : 0;
    return s;
  }
};

template <class T>
struct ArgTraits<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  static ArgSlot to_slot(T v) noexcept {
    ArgSlot s;
    if constexpr (std::is_signed_v<T>) {
      s.kind = ArgKind::kInt;
      s.value.i = static_cast<int64_t>(v);
    } else {
      s.kind = static_cast<uint64_t>(v) > static_cast<uint64_t>(INT64_MAX) ? ArgKind::kUInt : ArgKind::kInt;
      s.value.u = static_cast<uint64_t>(v);
    }
    return s;
  }
};

template <class T>
struct ArgTraits<T, std::enable_if_t<std::is_floating_point_v<T>>> {
  static ArgSlot to_slot(T v) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kFloat;
    s.value.f = static_cast<double>(v);
    return s;
  }
};

template <>
struct ArgTraits<std::nullopt_t> {
  static ArgSlot to_slot(std::nullopt_t) noexcept { return ArgSlot{}; }
};

template <>
struct ArgTraits<std::nullptr_t> {
  static ArgSlot to_slot(std::nullptr_t) noexcept { return ArgSlot{}; }
};

template <class T>
struct ArgTraits<std::optional<T>> {
  static ArgSlot to_slot(const std::optional<T>& v) { return v ? ArgTraits<std::decay_t<T>>::to_slot(*v) : ArgSlot{}; }
};

// Strings are accepted for constexpr parameters. The slot points into the caller's string,
// which must outlive the call.
template <>
struct ArgTraits<std::string_view> {
  static ArgSlot to_slot(std::string_view v) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kString;
    s.value.s = v.data();
    s.size = static_cast<uint32_t>(v.size());
    return s;
  }
};
template <>
struct ArgTraits<std::string> {
  static ArgSlot to_slot(const std::string& v) noexcept { return ArgTraits<std::string_view>::to_slot(v); }
};
template <>
struct ArgTraits<const char*> {
  static ArgSlot to_slot(const char* v) noexcept { return ArgTraits<std::string_view>::to_slot(v); }
};
template <>
struct ArgTraits<char*> {
  static ArgSlot to_slot(const char* v) noexcept { return ArgTraits<std::string_view>::to_slot(v); }
};

// A constexpr value that only Python can hold (a dtype, a Gluon layout, a class), named by the
// Python expression that makes it. It is evaluated where the kernel's module is imported, with
// `tl` (triton.language), `triton`, `gl` (Gluon's language, where the installed Triton has it)
// and the module's own names in scope, and `torch` when the text names it. Two texts are one
// value only when they are the same text. Passed to a parameter that is not a constexpr, it makes
// that parameter a constexpr of the variant, as Triton does with tl.constexpr(...). The text must
// outlive the call.
//   f(stream, grid, 4, 3, x, out, n, triton_jit::dtype("bf16"));          // X_dtype: tl.constexpr
//   f(stream, grid, 4, 3, x, n, triton_jit::constexpr_expression("gl.BlockedLayout([1, 4], [32, 1], [4, 1], [1, 0])"));
struct ConstexprExpression {
  std::string_view text;
};
inline ConstexprExpression constexpr_expression(std::string_view text) noexcept { return {text}; }
// Triton's dtype as a constexpr: what `X_dtype=tl.float16` passes from Python. `triton_name` is
// Triton's name ("fp16", "bf16", "fp32", "i32", "u1", "fp8e4nv", ...; dtype_name() spells them).
// Throws ValueError for a name Triton does not have. The text is static.
TRITON_JIT_API ConstexprExpression dtype(std::string_view triton_name);
TRITON_JIT_API ConstexprExpression dtype(DType dtype);

template <>
struct ArgTraits<ConstexprExpression> {
  static ArgSlot to_slot(const ConstexprExpression& e) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kExpression;
    s.value.s = e.text.data();
    s.size = static_cast<uint32_t>(e.text.size());
    return s;
  }
};

// A raw device pointer with its element type, for callers without torch; `bytes` is how much
// memory it spans (needed only when an autotuner must save and restore it).
struct DevicePointer {
  const void* ptr;
  DType dtype;
  int16_t device = kUnknownDevice;
  uint64_t bytes = 0;
};
inline DevicePointer device_pointer(const void* ptr, DType dtype, int device = kUnknownDevice,
                                    uint64_t bytes = 0) noexcept {
  return DevicePointer{ptr, dtype, static_cast<int16_t>(device), bytes};
}
template <>
struct ArgTraits<DevicePointer> {
  static ArgSlot to_slot(const DevicePointer& v) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kPointer;
    s.value.p = v.ptr;
    s.dtype = v.dtype;
    s.device = v.device;
    s.extent = v.bytes;
    return s;
  }
};

// A host-side TMA tensor descriptor, as triton.tools.tensor_descriptor.TensorDescriptor: a
// kernel parameter that takes one calls .load / .store on tiles of block_shape. The launch turns
// it into what the compiled kernel takes: a CUtensorMap (cuTensorMapEncodeTiled with the swizzle
// and element type the compiler chose) and the shape and strides, or, where the kernel was not
// lowered to TMA (before sm_90), the base pointer, shape and strides. The variant depends on the
// dtype and block shape, as in Triton ("tensordesc<fp16[64, 32]>").
//
//   auto a_desc = triton_jit::tensor_descriptor(a_ptr, DType::kFloat16, device, {M, K}, {K, 1}, {128, 64});
//   matmul(cfg, a_desc, b_desc, c_desc, M, N, K);   // triton_jit/torch.h: tensor_descriptor(tensor, {128, 64})
//
// The object must outlive the call that takes it (ArgumentBuilder keeps a pointer to it).
struct TensorDescriptor {
  static constexpr int kMaxRank = 5;
  const void* base = nullptr;  // 16-byte aligned device memory
  DType dtype = DType::kInvalid;
  int16_t device = kUnknownDevice;
  int rank = 0;                                 // 1 to 5
  std::array<int64_t, kMaxRank> shape{};        // elements, outermost first
  std::array<int64_t, kMaxRank> strides{};      // elements; the last is 1, the others 16-byte multiples
  std::array<int32_t, kMaxRank> block_shape{};  // powers of two
  bool nan_padding = false;                     // padding="nan": out-of-bounds loads read NaN (floating point only)
  bool round_f32_to_tf32 = false;               // fp32 read as tf32 by the tensor map (Triton 3.8 and newer)
  // Gluon's descriptors carry the shared-memory layout of a block, which is part of the kernel's
  // type: its repr ("NVMMASharedLayout(swizzle_byte_width=128, ...)", valid during the call).
  // Empty for Triton's.
  std::string_view layout{};
};
// Checked when a kernel takes it; shape, strides and block_shape must have one size, 1 to 5.
inline TensorDescriptor tensor_descriptor(const void* base, DType dtype, int device,
                                          std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides,
                                          std::initializer_list<int32_t> block_shape,
                                          bool nan_padding = false) noexcept {
  TensorDescriptor d;
  d.base = base;
  d.dtype = dtype;
  d.device = static_cast<int16_t>(device);
  d.rank = static_cast<int>(shape.size());
  if (d.rank > TensorDescriptor::kMaxRank || strides.size() != shape.size() || block_shape.size() != shape.size()) {
    d.rank = -1;  // refused with a message when a kernel takes it
    return d;
  }
  std::copy(shape.begin(), shape.end(), d.shape.begin());
  std::copy(strides.begin(), strides.end(), d.strides.begin());
  std::copy(block_shape.begin(), block_shape.end(), d.block_shape.begin());
  d.nan_padding = nan_padding;
  return d;
}
template <>
struct ArgTraits<TensorDescriptor> {
  static ArgSlot to_slot(const TensorDescriptor& v) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kTensorDescriptor;
    s.value.p = &v;
    s.dtype = v.dtype;
    s.device = v.device;
    return s;
  }
};

// A scalar whose kernel type is fixed by C++ rather than chosen from its value:
// fixed<int64_t>(n) is always i64, as a `n: tl.int64` annotation would make it.
template <class T>
struct Fixed {
  T value;
};
template <class T>
constexpr Fixed<T> fixed(T value) noexcept {
  return Fixed<T>{value};
}

template <class T>
constexpr DType dtype_of() noexcept {
  if constexpr (std::is_same_v<T, bool>)
    return DType::kBool;
  else if constexpr (std::is_same_v<T, float>)
    return DType::kFloat32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::kFloat64;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return sizeof(T) == 1   ? DType::kInt8
           : sizeof(T) == 2 ? DType::kInt16
           : sizeof(T) == 4 ? DType::kInt32
                            : DType::kInt64;
  } else if constexpr (std::is_integral_v<T>) {
    return sizeof(T) == 1   ? DType::kUInt8
           : sizeof(T) == 2 ? DType::kUInt16
           : sizeof(T) == 4 ? DType::kUInt32
                            : DType::kUInt64;
  } else {
    return DType::kInvalid;
  }
}

template <class T>
struct ArgTraits<Fixed<T>> {
  static_assert(dtype_of<T>() != DType::kInvalid, "Fixed<T> takes a bool, integer or floating-point type");
  static ArgSlot to_slot(const Fixed<T>& v) noexcept {
    ArgSlot s = ArgTraits<T>::to_slot(v.value);
    s.dtype = dtype_of<T>();
    return s;
  }
};

template <class T>
inline ArgSlot to_slot(const T& value) {
  using Decayed = std::decay_t<T>;
  if constexpr (std::is_array_v<std::remove_reference_t<T>> || std::is_same_v<Decayed, const char*>) {
    return ArgTraits<const char*>::to_slot(value);
  } else {
    return ArgTraits<Decayed>::to_slot(value);
  }
}

// Tuples: a std::tuple, std::pair or std::array argument (nested too) is passed to a kernel
// parameter that Triton specialises element by element. It takes one kTuple slot, then its
// elements' slots in order.
template <class T>
struct IsTupleLike : std::false_type {};
template <class... Ts>
struct IsTupleLike<std::tuple<Ts...>> : std::true_type {};
template <class A, class B>
struct IsTupleLike<std::pair<A, B>> : std::true_type {};
template <class T, std::size_t N>
struct IsTupleLike<std::array<T, N>> : std::true_type {};
template <class T>
inline constexpr bool is_tuple_like_v = IsTupleLike<std::decay_t<T>>::value;

template <class T>
struct SlotCount : std::integral_constant<std::size_t, 1> {};
template <class... Ts>
struct SlotCount<std::tuple<Ts...>>
    : std::integral_constant<std::size_t, (1 + ... + SlotCount<std::decay_t<Ts>>::value)> {};
template <class A, class B>
struct SlotCount<std::pair<A, B>>
    : std::integral_constant<std::size_t, 1 + SlotCount<std::decay_t<A>>::value + SlotCount<std::decay_t<B>>::value> {};
template <class T, std::size_t N>
struct SlotCount<std::array<T, N>> : std::integral_constant<std::size_t, 1 + N * SlotCount<std::decay_t<T>>::value> {};
template <class T>
inline constexpr std::size_t slot_count_v = SlotCount<std::decay_t<T>>::value;

// Writes the slots of one argument at `out`; returns the position after them.
template <class T>
ArgSlot* write_slots(ArgSlot* out, const T& value) {
  if constexpr (is_tuple_like_v<T>) {
    ArgSlot header;
    header.kind = ArgKind::kTuple;
    header.size = static_cast<uint32_t>(std::tuple_size_v<std::decay_t<T>>);
    *out++ = header;
    std::apply([&](const auto&... element) { ((out = write_slots(out, element)), ...); }, value);
    return out;
  } else {
    *out = to_slot(value);
    return out + 1;
  }
}

// Collects arguments one at a time, for callers whose argument count is known only at run
// time (generated kernels). Not thread-safe; reuse it with clear() to keep its capacity.
class ArgumentBuilder {
 public:
  ArgumentBuilder() = default;
  explicit ArgumentBuilder(std::size_t capacity) { slots_.reserve(capacity); }

  template <class T>
  ArgumentBuilder& add(const T& value) {
    if constexpr (is_tuple_like_v<T>) {
      ArgSlot written[slot_count_v<T>];
      write_slots(written, value);
      for (const ArgSlot& s : written) add_slot(s);
    } else {
      slots_.push_back(to_slot(value));
    }
    return *this;
  }
  ArgumentBuilder& add_slot(const ArgSlot& slot) {
    slots_.push_back(slot);
    nested_ = nested_ || slot.kind == ArgKind::kTuple;
    return *this;
  }
  // A tuple of `count` elements: the next `count` arguments added (tuples count as one).
  ArgumentBuilder& begin_tuple(uint32_t count) {
    ArgSlot header;
    header.kind = ArgKind::kTuple;
    header.size = count;
    return add_slot(header);
  }
  void clear() noexcept {
    slots_.clear();
    nested_ = false;
  }
  const ArgSlot* data() const noexcept { return slots_.data(); }
  std::size_t size() const noexcept { return slots_.size(); }
  bool nested() const noexcept { return nested_; }  // holds a tuple

 private:
  std::vector<ArgSlot> slots_;
  bool nested_ = false;
};

}  // namespace triton_jit
