// A @triton.heuristics function translated by the compile script (triton_jit_heuristics.py) into
// a program for a small stack machine, evaluated on every call of a decorated kernel: no Python,
// no allocation. Python's semantics for int (within 64 bits: beyond is an error, not a wrong
// value), float, bool, None and torch dtypes; Python's errors (division by zero, math domain)
// become ValueError naming the kernel and the heuristic.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "triton_jit/arguments.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

// Thrown by evaluate() for an operation Python performs on string arguments and the program does
// not (ordering, concatenation or repetition of strings, `%` formatting, int() or float() of a
// string): whose types the translator could not know at load. The call then asks Python.
class NeedsPython : public Error {
 public:
  using Error::Error;
};

class HeuristicProgram {
 public:
  // Parses and checks a program (instructions known, operands in range, jumps forward, the stack
  // within its limit, one value left). Throws Error naming what is wrong.
  static HeuristicProgram parse(const nlohmann::json& program, std::size_t num_params);

  // Evaluates with the call's arguments (one slot per kernel parameter). Throws ValueError or
  // TypeError "<kernel>: heuristic '<name>': <what Python would have raised>", or NeedsPython.
  ArgSlot evaluate(const ArgSlot* params, const std::string& kernel, const std::string& name) const;

  std::size_t size() const noexcept { return size_; }

  enum class Op : uint8_t {
    kInt,
    kFloat,
    kBool,
    kNone,
    kDType,
    kArg,
    kIsNone,
    kDTypeOf,
    kElementSize,
    kIsDescriptor,
    kIsTensor,
    kAdd,
    kSub,
    kMul,
    kTrueDiv,
    kFloorDiv,
    kMod,
    kPow,
    kLShift,
    kRShift,
    kAnd,
    kOr,
    kXor,
    kNeg,
    kPos,
    kInvert,
    kNot,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,
    kMin,
    kMax,
    kAbs,
    kToInt,
    kToFloat,
    kToBool,
    kNextPowerOf2,
    kCdiv,
    kLog2,
    kCeil,
    kFloor,
    kSqrt,
    kJump,
    kJumpIfFalse,
    kOrJump,
    kAndJump,
  };
  struct Instruction {
    Op op;
    uint8_t count = 0;    // arguments of min / max
    uint32_t target = 0;  // parameter index, or jump target
    union {
      int64_t i;
      double f;
    } value{.i = 0};
  };

  static constexpr int kMaxStack = 32;

 private:
  const Instruction* code() const noexcept { return size_ <= kInline ? inline_.data() : long_.data(); }
  // Most heuristics are a few instructions: kept inline, in the kernel's signature, so that a call
  // reads them without following another pointer.
  static constexpr std::size_t kInline = 12;
  std::array<Instruction, kInline> inline_{};
  std::vector<Instruction> long_;
  std::size_t size_ = 0;
  std::vector<std::string> strings_;  // "str" constants; slots may point into them
};

}  // namespace triton_jit::detail
