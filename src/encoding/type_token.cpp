#include "encoding/type_token.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "triton_jit/errors.h"

namespace triton_jit {

namespace {
constexpr std::array<const char*, 19> kDTypeNames = {
    "invalid", "u1",   "i8",   "i16",  "i32",     "i64",   "u8",      "u16",      "u32",     "u64",
    "fp16",    "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b8", "fp8e5b16", "fp8e4b15"};
}  // namespace

// triton.language's name of each dtype object, as a Python expression: what dtype() passes.
constexpr std::array<std::string_view, 19> kDTypeExpressions = {"",
                                                                "tl.int1",
                                                                "tl.int8",
                                                                "tl.int16",
                                                                "tl.int32",
                                                                "tl.int64",
                                                                "tl.uint8",
                                                                "tl.uint16",
                                                                "tl.uint32",
                                                                "tl.uint64",
                                                                "tl.float16",
                                                                "tl.bfloat16",
                                                                "tl.float32",
                                                                "tl.float64",
                                                                "tl.float8e4nv",
                                                                "tl.float8e5",
                                                                "tl.float8e4b8",
                                                                "tl.float8e5b16",
                                                                "tl.float8e4b15"};

const char* dtype_name(DType dtype) noexcept {
  auto index = static_cast<std::size_t>(dtype);
  return index < kDTypeNames.size() ? kDTypeNames[index] : "invalid";
}

ConstexprExpression dtype(DType dtype) {
  const auto index = static_cast<std::size_t>(dtype);
  if (index == 0 || index >= kDTypeExpressions.size()) {
    throw ValueError(fmt::format("triton_jit::dtype: {} is not a dtype Triton has", static_cast<int>(index)));
  }
  return {kDTypeExpressions[index]};
}

ConstexprExpression dtype(std::string_view triton_name) {
  const std::string_view name = triton_name == "i1" ? "u1" : triton_name;  // libtriton_jit's name of bool
  for (std::size_t i = 1; i < kDTypeNames.size(); ++i) {
    if (name == kDTypeNames[i]) return {kDTypeExpressions[i]};
  }
  throw ValueError(
      fmt::format("triton_jit::dtype: '{}' is not a Triton dtype name (expected one of fp16, bf16, fp32, "
                  "fp64, i8, i16, i32, i64, u1, u8, u16, u32, u64, fp8e4nv, fp8e5, fp8e4b8, fp8e5b16, "
                  "fp8e4b15)",
                  triton_name));
}

namespace detail {

std::string token_name(TypeToken token) {
  if (token == kConstexprToken) return "constexpr";
  if (token == kTensorDescToken) return "tensordesc";
  std::string name;
  if (is_pointer(token)) name = (token & kConstPointerBit) ? "*k" : "*";
  name += dtype_name(token_dtype(token));
  return name;
}

TypeToken parse_token(std::string_view name) noexcept {
  if (name == "constexpr") return kConstexprToken;
  bool pointer = false;
  bool is_const = false;
  if (name.starts_with("*k")) {
    pointer = is_const = true;
    name.remove_prefix(2);
  } else if (name.starts_with("*")) {
    pointer = true;
    name.remove_prefix(1);
  }
  for (std::size_t i = 1; i < kDTypeNames.size(); ++i) {
    if (name == kDTypeNames[i]) {
      auto dtype = static_cast<DType>(i);
      return pointer ? pointer_token(dtype, is_const) : scalar_token(dtype);
    }
  }
  return kNoToken;
}

int scalar_size(DType dtype) noexcept {
  switch (dtype) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E5M2:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2FNUZ:
    case DType::kFloat8E4B15:
      return 1;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
      return 8;
    case DType::kInvalid:
      break;
  }
  return 0;
}

}  // namespace detail
}  // namespace triton_jit
