// Kernel types of a variant, one byte each: a DType, optionally a pointer (to const) to it, or
// the constexpr marker. The byte goes into the variant key; its name goes to the compiler.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "triton_jit/arguments.h"

namespace triton_jit::detail {

using TypeToken = uint8_t;

inline constexpr TypeToken kNoToken = 0;
inline constexpr TypeToken kPointerBit = 0x40;
inline constexpr TypeToken kConstPointerBit = 0x80;
inline constexpr TypeToken kConstexprToken = 0x3F;
inline constexpr TypeToken kTupleToken = 0x3E;       // a tuple: its tree is in the key's tail
inline constexpr TypeToken kTensorDescToken = 0x3D;  // a host TMA descriptor: its dtype and block in the tail

constexpr TypeToken scalar_token(DType dtype) noexcept { return static_cast<TypeToken>(dtype); }
constexpr TypeToken pointer_token(DType dtype, bool is_const) noexcept {
  return static_cast<TypeToken>(static_cast<uint8_t>(dtype) | kPointerBit | (is_const ? kConstPointerBit : 0));
}
constexpr bool is_pointer(TypeToken t) noexcept { return (t & kPointerBit) != 0; }
constexpr DType token_dtype(TypeToken t) noexcept { return static_cast<DType>(t & 0x3F); }

// "i32", "*fp16", "*kbf16", "constexpr".
std::string token_name(TypeToken token);

// Parses Triton's canonical type names ("fp32", "*fp32", "*kfp8e4nv", "u1"); kNoToken when the
// name is not a type (an empty annotation, or one Triton ignores).
TypeToken parse_token(std::string_view name) noexcept;

// Size in bytes of a scalar kernel parameter of this dtype.
int scalar_size(DType dtype) noexcept;

constexpr bool is_float_dtype(DType d) noexcept {
  return d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 || d == DType::kFloat64;
}

}  // namespace triton_jit::detail
