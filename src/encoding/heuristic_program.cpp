// The heuristic stack machine: parsing and checking a translated program, and evaluating it with
// Python's semantics for every operation (integer overflow past 64 bits, floor division and
// modulo of negatives, float formatting of errors, dtype comparisons). Longer than 400 lines
// because each operation's semantics belong next to the evaluation loop that runs them: one
// switch, read in one place against Python's rules.
#include "encoding/heuristic_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <type_traits>

#include "encoding/type_token.h"
#include "triton_jit/errors.h"

// Note [Python arithmetic in C++]
// Heuristics decide constexpr values, so a value that differs from Python's in one corner
// compiles a different kernel. Ints are int64 with every overflow an error (Python would have
// gone on with a big int; we refuse rather than wrap). Floor division and modulo round toward
// negative infinity; int / int is the correctly rounded quotient (not float(a) / float(b), which
// rounds twice beyond 2**53); comparisons between ints and floats are exact; min and max keep the
// first of equal items; `and` and `or` yield an operand, not a bool. The golden test
// (tests/python/test_heuristics.py) compares every operation with Python's on edge values.

namespace triton_jit::detail {
namespace {

using Op = HeuristicProgram::Op;

// Trivial on purpose: the evaluator's stack is left uninitialised (it runs on every call).
struct Value {
  enum Kind : uint8_t { kInt, kFloat, kBool, kNone, kDType, kStr } kind;
  uint32_t length;  // kStr
  union {
    int64_t i;      // kInt, kBool (0 or 1), kDType (a DType)
    double f;       // kFloat
    const char* s;  // kStr
  };

  static Value integer(int64_t v) {
    Value r;
    r.kind = kInt;
    r.i = v;
    return r;
  }
  static Value real(double v) {
    Value r;
    r.kind = kFloat;
    r.f = v;
    return r;
  }
  static Value boolean(bool v) {
    Value r;
    r.kind = kBool;
    r.i = v ? 1 : 0;
    return r;
  }
  static Value none() {
    Value r;
    r.kind = kNone;
    r.i = 0;
    return r;
  }
  static Value dtype(int64_t d) {
    Value r;
    r.kind = kDType;
    r.i = d;
    return r;
  }
  static Value text(const char* p, std::size_t n) {
    Value r;
    r.kind = kStr;
    r.length = static_cast<uint32_t>(n);
    r.s = p;
    return r;
  }
  bool intlike() const { return kind == kInt || kind == kBool; }
  bool number() const { return intlike() || kind == kFloat; }
  double as_double() const { return kind == kFloat ? f : static_cast<double>(i); }
};

static_assert(std::is_trivial_v<Value>);

const char* type_name(const Value& v) {
  switch (v.kind) {
    case Value::kInt:
      return "int";
    case Value::kFloat:
      return "float";
    case Value::kBool:
      return "bool";
    case Value::kNone:
      return "NoneType";
    case Value::kDType:
      return "torch.dtype";
    case Value::kStr:
      return "str";
  }
  return "object";
}

struct Context {
  const std::string& kernel;
  const std::string& name;

  [[noreturn]] __attribute__((noinline, cold)) void type_error(const std::string& what) const {
    throw TypeError(fmt::format("{}: heuristic '{}': {}", kernel, name, what));
  }
  [[noreturn]] __attribute__((noinline, cold)) void value_error(const std::string& what) const {
    throw ValueError(fmt::format("{}: heuristic '{}': {}", kernel, name, what));
  }
  [[noreturn]] __attribute__((noinline, cold)) void overflow() const {
    value_error("an integer beyond 64 bits (Python would have used a big int; triton_jit refuses it)");
  }
  [[noreturn]] __attribute__((noinline, cold)) void needs_python(const std::string& what) const {
    throw NeedsPython(what);  // python_heuristic() names the kernel and the heuristic
  }
  [[noreturn]] __attribute__((noinline, cold)) void operands(const char* op, const Value& a, const Value& b) const {
    // What Python does with strings: "a" + "b", "ab" * 3, "%d" % n; the program computes none of it
    const bool strings = a.kind == Value::kStr && b.kind == Value::kStr;
    const std::string_view symbol(op);
    if ((symbol == "+" && strings) || (symbol == "%" && a.kind == Value::kStr) ||
        (symbol == "*" && ((a.kind == Value::kStr && b.intlike()) || (b.kind == Value::kStr && a.intlike())))) {
      needs_python(fmt::format("'{}' of '{}' and '{}'", op, type_name(a), type_name(b)));
    }
    type_error(fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", op, type_name(a), type_name(b)));
  }
};

bool truthy(const Value& v) {
  switch (v.kind) {
    case Value::kFloat:
      return v.f != 0.0;
    case Value::kNone:
      return false;
    case Value::kDType:
      return true;
    case Value::kStr:
      return v.length != 0;
    default:
      return v.i != 0;
  }
}

// The double nearest a / b, ties to even, for b != 0 (Python's int / int).
double true_divide(int64_t a, int64_t b) {
  constexpr int64_t kExact = int64_t{1} << 53;
  if (a >= -kExact && a <= kExact && b >= -kExact && b <= kExact)
    return static_cast<double>(a) / static_cast<double>(b);
  const bool negative = (a < 0) != (b < 0);
  const uint64_t ua = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  const uint64_t ub = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  if (ua == 0) return negative ? -0.0 : 0.0;
  // Long division into a 55-bit mantissa and a sticky bit, then one rounding.
  uint64_t q = ua / ub;
  unsigned __int128 r = ua % ub;
  uint64_t mantissa = 0;
  int exponent = 0;
  bool sticky = false;
  if (q >= (uint64_t{1} << 55)) {
    const int bits = 64 - std::countl_zero(q);
    const int drop = bits - 55;
    mantissa = q >> drop;
    sticky = (q & ((uint64_t{1} << drop) - 1)) != 0 || r != 0;
    exponent = drop;
  } else {
    mantissa = q;
    while (mantissa < (uint64_t{1} << 54)) {
      r <<= 1;
      const bool bit = r >= ub;
      if (bit) r -= ub;
      mantissa = (mantissa << 1) | (bit ? 1 : 0);
      --exponent;
    }
    sticky = r != 0;
  }
  // mantissa holds 55 significant bits (54 when it stopped at 2^54: the round bit is then bit 0).
  const int extra = 64 - std::countl_zero(mantissa) - 53;
  uint64_t top = mantissa >> extra;
  const bool round_bit = ((mantissa >> (extra - 1)) & 1) != 0;
  sticky = sticky || (mantissa & ((uint64_t{1} << (extra - 1)) - 1)) != 0;
  if (round_bit && (sticky || (top & 1))) ++top;
  const double magnitude = std::ldexp(static_cast<double>(top), exponent + extra);
  return negative ? -magnitude : magnitude;
}

// -1, 0, 1, or 2 when unordered (NaN): exact comparison of an int with a float.
int compare(int64_t a, double b) {
  if (std::isnan(b)) return 2;
  if (b >= 9223372036854775808.0) return -1;
  if (b < -9223372036854775808.0) return 1;
  const double t = std::trunc(b);
  const auto bi = static_cast<int64_t>(t);
  if (a != bi) return a < bi ? -1 : 1;
  const double fraction = b - t;
  return fraction > 0 ? -1 : fraction < 0 ? 1 : 0;
}

// -1, 0, 1, or 2 when unordered; numbers only.
int compare(const Value& a, const Value& b) {
  if (a.intlike() && b.intlike()) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  if (a.intlike()) return compare(a.i, b.f);
  if (b.intlike()) {
    const int c = compare(b.i, a.f);
    return c == 2 ? 2 : -c;
  }
  if (std::isnan(a.f) || std::isnan(b.f)) return 2;
  return a.f < b.f ? -1 : a.f > b.f ? 1 : 0;
}

bool equal(const Value& a, const Value& b) {
  if (a.number() && b.number()) return compare(a, b) == 0;
  if (a.kind != b.kind) return false;
  if (a.kind == Value::kNone) return true;
  if (a.kind == Value::kStr) return a.length == b.length && std::memcmp(a.s, b.s, a.length) == 0;
  return a.i == b.i;  // dtypes
}

bool ordered(const Context& c, Op op, const Value& a, const Value& b) {
  const char* names[] = {"<", "<=", ">", ">="};
  const int index = static_cast<int>(op) - static_cast<int>(Op::kLt);
  if (!a.number() || !b.number()) {
    if (a.kind == Value::kStr && b.kind == Value::kStr)
      c.needs_python(fmt::format("'{}' of two strings", names[index]));
    c.type_error(
        fmt::format("'{}' not supported between instances of '{}' and '{}'", names[index], type_name(a), type_name(b)));
  }
  const int r = compare(a, b);
  if (r == 2) return false;
  switch (op) {
    case Op::kLt:
      return r < 0;
    case Op::kLe:
      return r <= 0;
    case Op::kGt:
      return r > 0;
    default:
      return r >= 0;
  }
}

int64_t add(const Context& c, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) c.overflow();
  return r;
}
int64_t subtract(const Context& c, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) c.overflow();
  return r;
}
int64_t multiply(const Context& c, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) c.overflow();
  return r;
}

int64_t floor_divide(const Context& c, int64_t a, int64_t b) {
  if (b == 0) c.value_error("integer division or modulo by zero");
  if (a == std::numeric_limits<int64_t>::min() && b == -1) c.overflow();
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t modulo(const Context& c, int64_t a, int64_t b) {
  if (b == 0) c.value_error("integer division or modulo by zero");
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Python's float divmod.
void float_divmod(const Context& c, double a, double b, double& div, double& mod, const char* what) {
  if (b == 0.0) c.value_error(fmt::format("float {} by zero", what));
  mod = std::fmod(a, b);
  div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (div != 0.0) {
    double floored = std::floor(div);
    if (div - floored > 0.5) floored += 1.0;
    div = floored;
  } else {
    div = std::copysign(0.0, a / b);
  }
}

int64_t to_int(const Context& c, double v) {
  if (std::isnan(v)) c.value_error("cannot convert float NaN to integer");
  if (std::isinf(v)) c.value_error("cannot convert float infinity to integer");
  if (v >= 9223372036854775808.0 || v < -9223372036854775808.0) c.overflow();
  return static_cast<int64_t>(v);
}

Value power(const Context& c, const Value& a, const Value& b) {
  if (!a.number() || !b.number()) c.operands("** or pow()", a, b);
  if (a.intlike() && b.intlike()) {
    if (b.i < 0) {
      if (a.i == 0) c.value_error("0.0 cannot be raised to a negative power");
      return Value::real(std::pow(static_cast<double>(a.i), static_cast<double>(b.i)));
    }
    int64_t result = 1, base = a.i;
    for (int64_t e = b.i; e > 0; e >>= 1) {
      if (e & 1) result = multiply(c, result, base);
      if (e > 1) base = multiply(c, base, base);
    }
    return Value::integer(result);
  }
  const double x = a.as_double(), y = b.as_double();
  if (y == 0.0) return Value::real(1.0);
  if (x == 0.0 && y < 0) c.value_error("0.0 cannot be raised to a negative power");
  if (x < 0 && std::isfinite(y) && std::trunc(y) != y) c.value_error("the result would be a complex number");
  const double r = std::pow(x, y);
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) c.value_error("(34, 'Numerical result out of range')");
  return Value::real(r);
}

Value arithmetic(const Context& c, Op op, const Value& a, const Value& b) {
  static constexpr const char* kSymbols[] = {"+", "-", "*", "/", "//", "%"};
  const char* symbol = kSymbols[static_cast<int>(op) - static_cast<int>(Op::kAdd)];
  if (!a.number() || !b.number()) c.operands(symbol, a, b);
  if (a.intlike() && b.intlike()) {
    switch (op) {
      case Op::kAdd:
        return Value::integer(add(c, a.i, b.i));
      case Op::kSub:
        return Value::integer(subtract(c, a.i, b.i));
      case Op::kMul:
        return Value::integer(multiply(c, a.i, b.i));
      case Op::kTrueDiv:
        if (b.i == 0) c.value_error("division by zero");
        return Value::real(true_divide(a.i, b.i));
      case Op::kFloorDiv:
        return Value::integer(floor_divide(c, a.i, b.i));
      default:
        return Value::integer(modulo(c, a.i, b.i));
    }
  }
  const double x = a.as_double(), y = b.as_double();
  double div = 0, mod = 0;
  switch (op) {
    case Op::kAdd:
      return Value::real(x + y);
    case Op::kSub:
      return Value::real(x - y);
    case Op::kMul:
      return Value::real(x * y);
    case Op::kTrueDiv:
      if (y == 0.0) c.value_error("float division by zero");
      return Value::real(x / y);
    case Op::kFloorDiv:
      float_divmod(c, x, y, div, mod, "floor division");
      return Value::real(div);
    default:
      float_divmod(c, x, y, div, mod, "modulo");
      return Value::real(mod);
  }
}

Value bitwise(const Context& c, Op op, const Value& a, const Value& b) {
  static constexpr const char* kSymbols[] = {"<<", ">>", "&", "|", "^"};
  const char* symbol = kSymbols[static_cast<int>(op) - static_cast<int>(Op::kLShift)];
  if (!a.intlike() || !b.intlike()) c.operands(symbol, a, b);
  switch (op) {
    case Op::kLShift: {
      if (b.i < 0) c.value_error("negative shift count");
      if (a.i == 0) return Value::integer(0);
      if (b.i >= 63) c.overflow();
      const int64_t r = static_cast<int64_t>(static_cast<uint64_t>(a.i) << b.i);
      if ((r >> b.i) != a.i) c.overflow();
      return Value::integer(r);
    }
    case Op::kRShift:
      if (b.i < 0) c.value_error("negative shift count");
      return Value::integer(b.i >= 64 ? (a.i < 0 ? -1 : 0) : a.i >> b.i);
    default:
      break;
  }
  const int64_t r = op == Op::kAnd ? (a.i & b.i) : op == Op::kOr ? (a.i | b.i) : (a.i ^ b.i);
  return a.kind == Value::kBool && b.kind == Value::kBool ? Value::boolean(r != 0) : Value::integer(r);
}

Value call(const Context& c, Op op, Value* args, int n) {
  const Value& x = args[0];
  switch (op) {
    case Op::kMin:
    case Op::kMax: {
      Value best = args[0];
      for (int k = 1; k < n; ++k) {
        if (ordered(c, op == Op::kMin ? Op::kLt : Op::kGt, args[k], best)) best = args[k];
      }
      return best;
    }
    case Op::kAbs:
      if (x.intlike()) {
        if (x.i == std::numeric_limits<int64_t>::min()) c.overflow();
        return Value::integer(x.i < 0 ? -x.i : x.i);
      }
      if (x.kind == Value::kFloat) return Value::real(std::fabs(x.f));
      c.type_error(fmt::format("bad operand type for abs(): '{}'", type_name(x)));
    case Op::kToInt:
      if (x.intlike()) return Value::integer(x.i);
      if (x.kind == Value::kFloat) return Value::integer(to_int(c, x.f));
      if (x.kind == Value::kStr) c.needs_python("int() of a string");
      c.type_error(
          fmt::format("int() argument must be a string, a bytes-like object or a real number, not '{}'", type_name(x)));
    case Op::kToFloat:
      if (x.number()) return Value::real(x.as_double());
      if (x.kind == Value::kStr) c.needs_python("float() of a string");
      c.type_error(fmt::format("float() argument must be a string or a real number, not '{}'", type_name(x)));
    case Op::kToBool:
      return Value::boolean(truthy(x));
    case Op::kNextPowerOf2: {
      if (!x.intlike()) c.operands("|=", x, Value::integer(0));
      int64_t v = subtract(c, x.i, 1);
      for (int shift : {1, 2, 4, 8, 16, 32}) v |= v >> shift;
      return Value::integer(add(c, v, 1));
    }
    case Op::kCdiv: {
      const Value sum = arithmetic(c, Op::kAdd, args[0], args[1]);
      const Value less = arithmetic(c, Op::kSub, sum, Value::integer(1));
      return arithmetic(c, Op::kFloorDiv, less, args[1]);
    }
    case Op::kLog2:
    case Op::kSqrt: {
      if (!x.number()) c.type_error(fmt::format("must be real number, not {}", type_name(x)));
      const double v = x.as_double();
      if (op == Op::kLog2 ? v <= 0.0 : v < 0.0) c.value_error("math domain error");
      return Value::real(op == Op::kLog2 ? std::log2(v) : std::sqrt(v));
    }
    default: {  // ceil, floor
      if (x.intlike()) return Value::integer(x.i);
      if (x.kind != Value::kFloat) c.type_error(fmt::format("must be real number, not {}", type_name(x)));
      return Value::integer(to_int(c, op == Op::kCeil ? std::ceil(x.f) : std::floor(x.f)));
    }
  }
}

Value from_slot(const Context& c, const ArgSlot& s, uint32_t index) {
  switch (s.kind) {
    case ArgKind::kInt:
      return Value::integer(s.value.i);
    case ArgKind::kUInt:
      c.overflow();
    case ArgKind::kFloat:
      return Value::real(s.value.f);
    case ArgKind::kBool:
      return Value::boolean(s.value.i != 0);
    case ArgKind::kNone:
      return Value::none();
    case ArgKind::kString:
      return Value::text(s.value.s, s.size);
    case ArgKind::kJitFunction:
      c.type_error(fmt::format("parameter {} is a @triton.jit function, and the heuristic reads it as a value", index));
    case ArgKind::kExpression:
      c.type_error(
          fmt::format("parameter {} is a constexpr expression ({}), which a heuristic run without Python "
                      "cannot read",
                      index, std::string_view(s.value.s, s.size)));
    default:
      c.type_error(fmt::format("parameter {} is a tensor, and the heuristic reads it as a value", index));
  }
}

const struct {
  const char* name;
  Op op;
  int pops;  // stack effect: values consumed (pushes one, except jumps)
} kOps[] = {
    {"int", Op::kInt, 0},
    {"float", Op::kFloat, 0},
    {"bool", Op::kBool, 0},
    {"none", Op::kNone, 0},
    {"dtype", Op::kDType, 0},
    {"str", Op::kNone, 0},
    {"arg", Op::kArg, 0},
    {"is_none", Op::kIsNone, 0},
    {"dtype_of", Op::kDTypeOf, 0},
    {"element_size", Op::kElementSize, 0},
    {"is_descriptor", Op::kIsDescriptor, 0},
    {"is_tensor", Op::kIsTensor, 0},
    {"add", Op::kAdd, 2},
    {"sub", Op::kSub, 2},
    {"mul", Op::kMul, 2},
    {"truediv", Op::kTrueDiv, 2},
    {"floordiv", Op::kFloorDiv, 2},
    {"mod", Op::kMod, 2},
    {"pow", Op::kPow, 2},
    {"lshift", Op::kLShift, 2},
    {"rshift", Op::kRShift, 2},
    {"and", Op::kAnd, 2},
    {"or", Op::kOr, 2},
    {"xor", Op::kXor, 2},
    {"neg", Op::kNeg, 1},
    {"pos", Op::kPos, 1},
    {"invert", Op::kInvert, 1},
    {"not", Op::kNot, 1},
    {"eq", Op::kEq, 2},
    {"ne", Op::kNe, 2},
    {"lt", Op::kLt, 2},
    {"le", Op::kLe, 2},
    {"gt", Op::kGt, 2},
    {"ge", Op::kGe, 2},
};

const struct {
  const char* name;
  Op op;
  int arity;  // 0: any count from 2
} kCalls[] = {
    {"min", Op::kMin, 0},
    {"max", Op::kMax, 0},
    {"abs", Op::kAbs, 1},
    {"int", Op::kToInt, 1},
    {"float", Op::kToFloat, 1},
    {"bool", Op::kToBool, 1},
    {"next_power_of_2", Op::kNextPowerOf2, 1},
    {"cdiv", Op::kCdiv, 2},
    {"log2", Op::kLog2, 1},
    {"ceil", Op::kCeil, 1},
    {"floor", Op::kFloor, 1},
    {"sqrt", Op::kSqrt, 1},
};

}  // namespace

HeuristicProgram HeuristicProgram::parse(const nlohmann::json& program, std::size_t num_params) {
  auto fail = [](const std::string& what) -> void { throw Error("triton_jit: malformed heuristic program: " + what); };
  if (!program.is_array() || program.empty() || program.size() > 4096) fail("not a non-empty list");
  HeuristicProgram p;
  // Strings of "str" constants live in this program; one allocation, sized first.
  std::vector<int> depth_at(program.size() + 1, -1);
  int depth = 0;
  for (std::size_t pc = 0; pc < program.size(); ++pc) {
    const auto& in = program[pc];
    if (!in.is_array() || in.empty() || !in[0].is_string()) fail(fmt::format("instruction {} is not [op, ...]", pc));
    if (depth_at[pc] >= 0) {
      if (depth >= 0 && depth != depth_at[pc]) fail(fmt::format("stack depths disagree at {}", pc));
      depth = depth_at[pc];
    }
    if (depth < 0) fail(fmt::format("instruction {} cannot be reached", pc));
    const std::string& name = in[0].get_ref<const std::string&>();
    Instruction ins{};
    auto operand_index = [&](std::size_t limit) -> uint32_t {
      if (in.size() != 2 || !in[1].is_number_unsigned() || in[1].get<uint64_t>() >= limit) {
        fail(fmt::format("instruction {} ('{}') has no valid operand", pc, name));
      }
      return static_cast<uint32_t>(in[1].get<uint64_t>());
    };
    auto jump = [&](Op op, int depth_there, int depth_next) {
      ins.op = op;
      ins.target = operand_index(program.size() + 1);
      if (ins.target <= pc) fail(fmt::format("instruction {} jumps backwards", pc));
      if (depth_at[ins.target] >= 0 && depth_at[ins.target] != depth_there) fail("stack depths disagree");
      depth_at[ins.target] = depth_there;
      depth = depth_next;
    };
    if (name == "jump") {
      jump(Op::kJump, depth, -1);
    } else if (name == "jump_if_false") {
      if (depth < 1) fail("stack underflow");
      jump(Op::kJumpIfFalse, depth - 1, depth - 1);
    } else if (name == "or_jump" || name == "and_jump") {
      if (depth < 1) fail("stack underflow");
      jump(name == "or_jump" ? Op::kOrJump : Op::kAndJump, depth, depth - 1);
    } else if (name == "call") {
      if (in.size() != 3 || !in[1].is_string() || !in[2].is_number_unsigned()) fail(fmt::format("bad call at {}", pc));
      const auto count = in[2].get<uint64_t>();
      bool known = false;
      for (const auto& c : kCalls) {
        if (in[1] == c.name) {
          known = true;
          ins.op = c.op;
          if ((c.arity == 0 && (count < 2 || count > 16)) ||
              (c.arity != 0 && count != static_cast<uint64_t>(c.arity))) {
            fail(fmt::format("{} with {} arguments", c.name, count));
          }
        }
      }
      if (!known) fail(fmt::format("unknown function '{}'", in[1].dump()));
      ins.count = static_cast<uint8_t>(count);
      if (depth < static_cast<int>(count)) fail("stack underflow");
      depth -= static_cast<int>(count) - 1;
    } else {
      bool known = false;
      for (const auto& o : kOps) {
        if (name != o.name) continue;
        known = true;
        ins.op = o.op;
        if (depth < o.pops) fail("stack underflow");
        depth += 1 - o.pops;
      }
      if (!known) fail(fmt::format("unknown instruction '{}'", name.substr(0, 40)));
      if (name == "int") {
        if (in.size() != 2 || !in[1].is_number_integer() ||
            (in[1].is_number_unsigned() && in[1].get<uint64_t>() > INT64_MAX)) {
          fail("bad int");
        }
        ins.value.i = in[1].get<int64_t>();
      } else if (name == "float") {
        if (in.size() != 2 || !in[1].is_string()) fail("bad float");
        const std::string& text = in[1].get_ref<const std::string&>();
        char* end = nullptr;
        ins.value.f = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) fail("bad float");
      } else if (name == "bool") {
        if (in.size() != 2 || !in[1].is_boolean()) fail("bad bool");
        ins.value.i = in[1].get<bool>() ? 1 : 0;
      } else if (name == "dtype") {
        if (in.size() != 2 || !in[1].is_string()) fail("bad dtype");
        const TypeToken t = parse_token(in[1].get<std::string>());
        if (t == kNoToken || is_pointer(t)) fail("bad dtype");
        ins.value.i = static_cast<int64_t>(token_dtype(t));
      } else if (name == "str") {
        if (in.size() != 2 || !in[1].is_string()) fail("bad str");
        ins.op = Op::kNone;  // placeholder, fixed below
        p.strings_.push_back(in[1].get<std::string>());
        ins.target = static_cast<uint32_t>(p.strings_.size() - 1);
        ins.count = 1;  // marks a string constant
      } else if (name == "arg" || name == "is_none" || name == "dtype_of" || name == "element_size" ||
                 name == "is_descriptor" || name == "is_tensor") {
        ins.target = operand_index(num_params);
      }
    }
    if (depth > kMaxStack) fail("deeper than the evaluator's stack");
    p.long_.push_back(ins);
  }
  if (depth_at[program.size()] >= 0) {
    if (depth >= 0 && depth != depth_at[program.size()]) fail("stack depths disagree at the end");
    depth = depth_at[program.size()];
  }
  if (depth != 1) fail("it does not leave exactly one value");
  p.size_ = p.long_.size();
  if (p.size_ <= kInline) {
    std::copy(p.long_.begin(), p.long_.end(), p.inline_.begin());
    p.long_.clear();
    p.long_.shrink_to_fit();
  }
  return p;
}

ArgSlot HeuristicProgram::evaluate(const ArgSlot* params, const std::string& kernel, const std::string& name) const {
  const Context c{kernel, name};
  Value stack[kMaxStack];  // uninitialised: parse() proved every read follows a write
  int top = 0;             // the number of values on the stack
  const std::size_t n = size_;
  const Instruction* code_at = code();
  for (std::size_t pc = 0; pc < n;) {
    const Instruction& in = code_at[pc++];
    switch (in.op) {
      case Op::kInt:
        stack[top++] = Value::integer(in.value.i);
        break;
      case Op::kFloat:
        stack[top++] = Value::real(in.value.f);
        break;
      case Op::kBool:
        stack[top++] = Value::boolean(in.value.i != 0);
        break;
      case Op::kNone:
        if (in.count == 1) {
          const std::string& s = strings_[in.target];
          stack[top++] = Value::text(s.data(), s.size());
        } else {
          stack[top++] = Value::none();
        }
        break;
      case Op::kDType:
        stack[top++] = Value::dtype(in.value.i);
        break;
      case Op::kArg: {
        const ArgSlot& slot = params[in.target];
        if (slot.kind == ArgKind::kInt) [[likely]] {
          stack[top++] = Value::integer(slot.value.i);
        } else {
          stack[top++] = from_slot(c, slot, in.target);
        }
        break;
      }
      case Op::kIsNone:
        stack[top++] = Value::boolean(params[in.target].kind == ArgKind::kNone);
        break;
      case Op::kIsDescriptor:
        stack[top++] = Value::boolean(params[in.target].kind == ArgKind::kTensorDescriptor);
        break;
      case Op::kIsTensor:  // a C++ raw pointer stands for a tensor, as everywhere else
        stack[top++] = Value::boolean(params[in.target].kind == ArgKind::kPointer);
        break;
      case Op::kDTypeOf:
      case Op::kElementSize: {
        const ArgSlot& s = params[in.target];
        if (s.kind != ArgKind::kPointer) {
          c.type_error(fmt::format("parameter {} is not a tensor ({} of it was asked for)", in.target,
                                   in.op == Op::kDTypeOf ? "the dtype" : "the element size"));
        }
        stack[top++] =
            in.op == Op::kDTypeOf ? Value::dtype(static_cast<int64_t>(s.dtype)) : Value::integer(scalar_size(s.dtype));
        break;
      }
      case Op::kMod:
      case Op::kFloorDiv: {
        // The common heuristic (n % BLOCK == 0) in its common case: two positive ints.
        Value& a = stack[top - 2];
        const Value& b = stack[top - 1];
        --top;
        if (a.kind == Value::kInt && b.kind == Value::kInt && a.i >= 0 && b.i > 0) [[likely]] {
          a.i = in.op == Op::kMod ? a.i % b.i : a.i / b.i;
        } else {
          a = arithmetic(c, in.op, a, b);
        }
        break;
      }
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kTrueDiv:
        --top;
        stack[top - 1] = arithmetic(c, in.op, stack[top - 1], stack[top]);
        break;
      case Op::kPow:
        --top;
        stack[top - 1] = power(c, stack[top - 1], stack[top]);
        break;
      case Op::kLShift:
      case Op::kRShift:
      case Op::kAnd:
      case Op::kOr:
      case Op::kXor:
        --top;
        stack[top - 1] = bitwise(c, in.op, stack[top - 1], stack[top]);
        break;
      case Op::kNeg:
      case Op::kPos: {
        Value& v = stack[top - 1];
        if (v.intlike()) {
          if (in.op == Op::kNeg && v.i == std::numeric_limits<int64_t>::min()) c.overflow();
          v = Value::integer(in.op == Op::kNeg ? -v.i : v.i);
        } else if (v.kind == Value::kFloat) {
          v.f = in.op == Op::kNeg ? -v.f : v.f;
        } else {
          c.type_error(fmt::format("bad operand type for unary {}: '{}'", in.op == Op::kNeg ? "-" : "+", type_name(v)));
        }
        break;
      }
      case Op::kInvert: {
        Value& v = stack[top - 1];
        if (!v.intlike()) c.type_error(fmt::format("bad operand type for unary ~: '{}'", type_name(v)));
        v = Value::integer(~v.i);
        break;
      }
      case Op::kNot:
        stack[top - 1] = Value::boolean(!truthy(stack[top - 1]));
        break;
      case Op::kEq:
      case Op::kNe: {
        --top;
        const Value& a = stack[top - 1];
        const Value& b = stack[top];
        const bool eq = a.kind == Value::kInt && b.kind == Value::kInt ? a.i == b.i : equal(a, b);
        stack[top - 1] = Value::boolean(in.op == Op::kEq ? eq : !eq);
        break;
      }
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
        --top;
        stack[top - 1] = Value::boolean(ordered(c, in.op, stack[top - 1], stack[top]));
        break;
      case Op::kJump:
        pc = in.target;
        break;
      case Op::kJumpIfFalse:
        if (!truthy(stack[--top])) pc = in.target;
        break;
      case Op::kOrJump:
      case Op::kAndJump:
        if (truthy(stack[top - 1]) == (in.op == Op::kOrJump)) {
          pc = in.target;
        } else {
          --top;
        }
        break;
      default: {  // calls
        const int count = in.count == 0 ? 1 : in.count;
        top -= count;
        stack[top] = call(c, in.op, &stack[top], count);
        ++top;
        break;
      }
    }
  }
  const Value& result = stack[0];
  ArgSlot slot;
  switch (result.kind) {
    case Value::kInt:
      slot.kind = ArgKind::kInt;
      slot.value.i = result.i;
      break;
    case Value::kBool:
      slot.kind = ArgKind::kBool;
      slot.value.i = result.i;
      break;
    case Value::kFloat:
      slot.kind = ArgKind::kFloat;
      slot.value.f = result.f;
      break;
    case Value::kNone:
      break;
    case Value::kStr:
      slot.kind = ArgKind::kString;
      slot.value.s = result.s;
      slot.size = result.length;
      break;
    case Value::kDType:
      c.type_error("it returned a dtype, which a constexpr cannot hold");
  }
  return slot;
}

}  // namespace triton_jit::detail
