// A grid dimension in a manifest's "tune" entry, written as the kernel's Python launcher writes
// it: "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" or "triton.cdiv(n, META['BLOCK'])". Names are the
// call's final arguments: the kernel's integer parameters, the constexprs its decorators set,
// num_warps, num_stages and num_ctas. Integers only, with Python's meaning of // and %:
//   expression := term (("+" | "-") term)*
//   term       := unary (("*" | "//" | "%") unary)*
//   unary      := "-" unary | atom
//   atom       := integer | name | META["name"] | function "(" expression ("," expression)* ")"
//               | "(" expression ")"
//   function   := cdiv | triton.cdiv | min | max
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <triton_jit/triton_jit.h>

namespace triton_jit::aot {

class GridExpression {
 public:
  // Throws std::invalid_argument describing the first error and where it is.
  static GridExpression parse(std::string_view text);
  static GridExpression constant(int64_t value);

  // `lookup` gives a name's value (LaunchMeta's operator[]). Throws ValueError on a division by
  // zero or a value out of 64 bits, and what `lookup` throws.
  using Lookup = int64_t (*)(std::string_view name, const void* context);
  int64_t evaluate(Lookup lookup, const void* context) const;
  const std::string& text() const noexcept { return text_; }

  enum class Op : uint8_t { kConstant, kName, kAdd, kSub, kMul, kFloorDiv, kMod, kNeg, kCdiv, kMin, kMax };
  struct Step {
    Op op;
    int64_t value = 0;  // kConstant: the value; kMin, kMax: how many operands
    std::string name;   // kName
  };

 private:
  std::string text_;
  std::vector<Step> program_;  // postfix
  friend class GridParser;
};

}  // namespace triton_jit::aot
