// triton_jit/jit_utils.h: the small helpers of libtriton_jit's jit_utils.h that code written
// against it calls, for building raw-launch signatures (docs/cpp-api.md, "Coming from libtriton_jit").
//
//   std::vector<std::string> tokens = {"*fp32:16", std::string("i64") + triton_jit::spec(n), "1024"};
//   f.launch_with_raw_args(stream, grid, 1, 1, 4, 3, triton_jit::join_sig(tokens), args);
//
// Header-only; the ATen part is there where libtorch is in use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace triton_jit {

// A raw signature's specialisation suffix for an integer or an address, as libtriton_jit spells
// it: ":16" when divisible by 16, ":1" for the value 1, else "".
template <class T>
constexpr const char* spec(T value) noexcept {
  return value % 16 == 0 ? ":16" : value == 1 ? ":1" : "";
}

// The first multiple of `step` at or after `position`.
template <class T>
constexpr T get_next_multiple_of(T position, T step) noexcept {
  return (position + step - 1) / step * step;
}

// Tokens joined by commas, as a raw signature.
template <class Range>
std::string join_sig(const Range& tokens) {
  std::string out;
  for (const auto& token : tokens) {
    if (!out.empty()) out += ',';
    out += token;
  }
  return out;
}

template <class T, class U>
struct is_same_ignore_cvref : std::is_same<std::remove_cvref_t<T>, std::remove_cvref_t<U>> {};

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_optional<const T> : is_optional<T> {};
template <class T>
struct is_optional<T&> : is_optional<T> {};

// The raw-signature type of a C++ scalar type (triton_type<int64_t>::name is "i64"); no member
// for other types.
template <class T, class = void>
struct triton_type {};
template <class T>
struct triton_type<T, std::enable_if_t<std::is_arithmetic_v<std::remove_cvref_t<T>>>> {
  using U = std::remove_cvref_t<T>;
  static constexpr const char* name = std::is_same_v<U, bool>     ? "i1"
                                      : std::is_same_v<U, float>  ? "fp32"
                                      : std::is_same_v<U, double> ? "fp64"
                                      : std::is_signed_v<U>       ? (sizeof(U) == 8   ? "i64"
                                                                     : sizeof(U) == 4 ? "i32"
                                                                     : sizeof(U) == 2 ? "i16"
                                                                                      : "i8")
                                                                  : (sizeof(U) == 8   ? "u64"
                                                                     : sizeof(U) == 4 ? "u32"
                                                                     : sizeof(U) == 2 ? "u16"
                                                                                      : "u8");
};

}  // namespace triton_jit

#if __has_include(<c10/core/ScalarType.h>)
#include <c10/core/ScalarType.h>

#include <stdexcept>

namespace triton_jit {

// A tensor dtype's raw-signature name ("fp32", "bf16", "i1" for bool); throws
// std::invalid_argument for a dtype Triton does not take.
inline const char* to_triton_typename(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Bool:
      return "i1";
    case c10::ScalarType::Char:
      return "i8";
    case c10::ScalarType::Short:
      return "i16";
    case c10::ScalarType::Int:
      return "i32";
    case c10::ScalarType::Long:
      return "i64";
    case c10::ScalarType::Byte:
      return "u8";
    case c10::ScalarType::UInt16:
      return "u16";
    case c10::ScalarType::UInt32:
      return "u32";
    case c10::ScalarType::UInt64:
      return "u64";
    case c10::ScalarType::Half:
      return "fp16";
    case c10::ScalarType::BFloat16:
      return "bf16";
    case c10::ScalarType::Float:
      return "fp32";
    case c10::ScalarType::Double:
      return "fp64";
    case c10::ScalarType::Float8_e4m3fn:
      return "fp8e4nv";
    case c10::ScalarType::Float8_e5m2:
      return "fp8e5";
    default:
      throw std::invalid_argument(std::string("to_triton_typename: Triton takes no ") + c10::toString(type));
  }
}

}  // namespace triton_jit
#endif
