// Pointwise ops: ATen's dtype rules and checks, then one of the generic kernels of pointwise.py.
// Each op is one function used by both dispatch keys: on Meta tensors it stops after allocating.
#include <ATen/native/BinaryOps.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/result_type.h>
#include <c10/core/DefaultDtype.h>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

constexpr const char* kFile = "pointwise.py";

bool is_cpu_scalar(const at::Tensor& t) { return t.dim() == 0 && t.is_cpu(); }
bool is_meta(const at::Tensor& t) { return t.is_meta(); }

// Every operand on the CUDA device of the result, or a 0-dim CPU tensor (a scalar).
void check_devices(const char* op, const at::Tensor& out, Operands operands) {
  for (const at::Tensor* t : operands) {
    if (is_cpu_scalar(*t) || t->device() == out.device()) continue;
    TORCH_CHECK(false, op, ": expected all tensors to be on the same device, but found at least two devices, ",
                out.device(), " and ", t->device(), "!");
  }
  TORCH_CHECK(out.is_cuda(), op, ": expected CUDA tensors, got ", out.device());
}

at::ScalarType default_float() { return c10::typeMetaToScalarType(c10::get_default_dtype()); }

struct Block {
  int64_t size;
  int warps;
};
Block block_for(int64_t n) { return n >= (int64_t{1} << 20) ? Block{2048, 4} : Block{1024, 4}; }

// A scalar as the kernel argument for a computation in `dtype`'s compute type.
template <class S>
void add_scalar(S& slots, const c10::Scalar& v, at::ScalarType dtype) {
  if (dtype == at::kDouble) {
    slots.add(fixed<double>(v.toDouble()));
  } else if (at::isFloatingType(dtype)) {
    slots.add(fixed<float>(static_cast<float>(v.toDouble())));
  } else {
    slots.add(fixed<int64_t>(v.isBoolean() ? int64_t{v.toBool()} : v.toLong()));
  }
}

// Inputs walked in `out`'s memory order; a walk of more than four dims reads contiguous copies.
struct Walk {
  PointwiseView view;
  std::array<at::Tensor, 3> inputs;
  at::Tensor out;  // `out`, or a contiguous stand-in copied back by finish()
  const at::Tensor* target;
  void finish() const {
    if (!out.is_same(*target)) const_cast<at::Tensor*>(target)->copy_(out);
  }
};

Walk walk(const at::Tensor& out, std::initializer_list<at::Tensor> inputs) {
  Walk w{{}, {}, out, &out};
  std::size_t i = 0;
  for (const at::Tensor& t : inputs) w.inputs[i++] = t;
  auto view = i == 1   ? pointwise_view(out, {&w.inputs[0]})
              : i == 2 ? pointwise_view(out, {&w.inputs[0], &w.inputs[1]})
                       : pointwise_view(out, {&w.inputs[0], &w.inputs[1], &w.inputs[2]});
  if (!view) {
    if (!out.is_contiguous()) w.out = at::empty(out.sizes(), out.options());
    for (std::size_t k = 0; k < i; ++k) w.inputs[k] = w.inputs[k].expand(out.sizes()).contiguous();
    view = i == 1   ? pointwise_view(w.out, {&w.inputs[0]})
           : i == 2 ? pointwise_view(w.out, {&w.inputs[0], &w.inputs[1]})
                    : pointwise_view(w.out, {&w.inputs[0], &w.inputs[1], &w.inputs[2]});
  }
  w.view = *view;
  return w;
}

template <class S>
void add_walk(S& slots, const PointwiseView& v, std::size_t inputs) {
  slots.add(v.numel).add_all(v.sizes[1], v.sizes[2], v.sizes[3]);
  for (std::size_t i = 0; i < inputs; ++i)
    slots.add_all(v.strides[i][0], v.strides[i][1], v.strides[i][2], v.strides[i][3]);
}

void run_unary(const char* op, const at::Tensor& x, const at::Tensor& out) {
  if (out.numel() == 0) return;
  static const TritonJITFunction& k = kernel(kFile, "unary_kernel");
  const Walk w = walk(out, {x});
  const Block b = block_for(w.view.numel);
  Slots<16> s;
  s.add(w.inputs[0]).add(w.out);
  add_walk(s, w.view, 1);
  s.add_all(std::string_view(op), w.view.contiguous, w.view.index64, b.size);
  torch_adapter::DeviceGuard guard(out);
  s.launch(k, launch_config(out, static_cast<unsigned>(cdiv(w.view.numel, b.size)), 1, 1, b.warps));
  w.finish();
}

// ATen divides by a CPU scalar with rounding as x times its reciprocal: the same here.
std::string_view scalar_form(std::string_view op) {
  if (op == "div_trunc") return "div_trunc_scalar";
  if (op == "div_floor") return "div_floor_scalar";
  return op;
}

void run_binary_scalar(const char* op, const at::Tensor& x, const c10::Scalar& y, const at::Tensor& out,
                       const c10::Scalar& alpha) {
  if (out.numel() == 0) return;
  static const TritonJITFunction& k = kernel(kFile, "binary_scalar_kernel");
  const Walk w = walk(out, {x});
  const Block b = block_for(w.view.numel);
  Slots<20> s;
  s.add(w.inputs[0]);
  add_scalar(s, y, out.scalar_type());
  s.add(w.out);
  add_walk(s, w.view, 1);
  add_scalar(s, alpha, out.scalar_type());
  s.add_all(scalar_form(op), w.view.contiguous, w.view.index64, b.size);
  torch_adapter::DeviceGuard guard(out);
  s.launch(k, launch_config(out, static_cast<unsigned>(cdiv(w.view.numel, b.size)), 1, 1, b.warps));
  w.finish();
}

bool commutes(std::string_view op) { return op == "add1" || op == "mul" || op == "maximum" || op == "minimum"; }

void run_binary(const char* op, const at::Tensor& x, const at::Tensor& y, const at::Tensor& out,
                const c10::Scalar& alpha) {
  if (out.numel() == 0) return;
  if (is_cpu_scalar(y) && !is_cpu_scalar(x)) return run_binary_scalar(op, x, y.item(), out, alpha);
  if (is_cpu_scalar(x) && !is_cpu_scalar(y) && commutes(op)) return run_binary_scalar(op, y, x.item(), out, alpha);
  // A CPU scalar first in a non-commuting op: copied to the device, as TensorIterator would.
  const at::Tensor xd = is_cpu_scalar(x) ? x.to(out.device()) : x;
  const at::Tensor yd = is_cpu_scalar(y) ? y.to(out.device()) : y;
  static const TritonJITFunction& k = kernel(kFile, "binary_kernel");
  const Walk w = walk(out, {xd, yd});
  const Block b = block_for(w.view.numel);
  Slots<24> s;
  s.add(w.inputs[0]).add(w.inputs[1]).add(w.out);
  add_walk(s, w.view, 2);
  add_scalar(s, alpha, out.scalar_type());
  s.add_all(std::string_view(op), w.view.contiguous, w.view.index64, b.size);
  torch_adapter::DeviceGuard guard(out);
  s.launch(k, launch_config(out, static_cast<unsigned>(cdiv(w.view.numel, b.size)), 1, 1, b.warps));
  w.finish();
}

bool is_one(const c10::Scalar& alpha) {
  return alpha.isIntegral(true) ? alpha.toLong() == 1 : alpha.isFloatingPoint() && alpha.toDouble() == 1.0;
}

// ---- the ops, for both dispatch keys -----------------------------------------------------------

// A dtype the kernel has no code for, reported as ATen reports it: ATen's pointwise kernels
// dispatch on the dtype before they look at the size, so empty inputs get the error too.
struct Support {
  bool supported = true;
  const char* kernel = "";
};

at::Tensor binary(const char* name, const char* op, const at::Tensor& self, const at::Tensor& other,
                  at::ScalarType dtype, const c10::Scalar& alpha = 1, Support support = {}) {
  at::Tensor out = empty_pointwise({&self, &other}, dtype);
  check_dtype_supported(support.supported, support.kernel, dtype);
  if (is_meta(out)) return out;
  check_devices(name, out, {&self, &other});
  run_binary(op, self, other, out, alpha);
  return out;
}

at::Tensor binary(const char* name, const char* op, const at::Tensor& self, const c10::Scalar& other,
                  at::ScalarType dtype, const c10::Scalar& alpha = 1, Support support = {}) {
  at::Tensor out = empty_pointwise({&self}, dtype);
  check_dtype_supported(support.supported, support.kernel, dtype);
  if (is_meta(out)) return out;
  check_devices(name, out, {&self});
  run_binary_scalar(op, self, other, out, alpha);
  return out;
}

at::Tensor unary(const char* name, const char* op, const at::Tensor& self, at::ScalarType dtype, Support support = {}) {
  at::Tensor out = empty_pointwise({&self}, dtype);
  check_dtype_supported(support.supported, support.kernel, self.scalar_type());
  if (is_meta(out)) return out;
  check_devices(name, out, {&self});
  run_unary(op, self, out);
  return out;
}

// Unary ops that give floats, promoting integers as ATen does.
at::ScalarType float_result(const at::Tensor& self) {
  return at::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? default_float() : self.scalar_type();
}

Support not_complex(const char* op, at::ScalarType dtype) { return {!at::isComplexType(dtype), op}; }

std::string_view rounding(std::optional<std::string_view> mode) {
  if (!mode) return "";
  TORCH_CHECK(*mode == "trunc" || *mode == "floor",
              "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
  return *mode;
}

}  // namespace

at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  const auto dtype = at::result_type(self, other);
  at::native::alpha_check(dtype, alpha);
  return binary("add", is_one(alpha) ? "add1" : "add", self, other, dtype, alpha, not_complex("add_cuda", dtype));
}
at::Tensor add(const at::Tensor& self, const c10::Scalar& other, const c10::Scalar& alpha) {
  const auto dtype = at::result_type(self, other);
  at::native::alpha_check(dtype, alpha);
  return binary("add", is_one(alpha) ? "add1" : "add", self, other, dtype, alpha, not_complex("add_cuda", dtype));
}
at::Tensor sub(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  at::native::sub_check(self, other);
  const auto dtype = at::result_type(self, other);
  at::native::alpha_check(dtype, alpha);
  return binary("sub", is_one(alpha) ? "sub1" : "sub", self, other, dtype, alpha, not_complex("sub_cuda", dtype));
}
at::Tensor sub(const at::Tensor& self, const c10::Scalar& other, const c10::Scalar& alpha) {
  at::native::sub_check(self, other);
  const auto dtype = at::result_type(self, other);
  at::native::alpha_check(dtype, alpha);
  return binary("sub", is_one(alpha) ? "sub1" : "sub", self, other, dtype, alpha, not_complex("sub_cuda", dtype));
}
at::Tensor mul(const at::Tensor& self, const at::Tensor& other) {
  const auto dtype = at::result_type(self, other);
  return binary("mul", "mul", self, other, dtype, 1, not_complex("mul_cuda", dtype));
}
at::Tensor mul(const at::Tensor& self, const c10::Scalar& other) {
  const auto dtype = at::result_type(self, other);
  return binary("mul", "mul", self, other, dtype, 1, not_complex("mul_cuda", dtype));
}

namespace {
template <class Other>
at::Tensor divide(const at::Tensor& self, const Other& other, std::optional<std::string_view> rounding_mode) {
  const std::string_view mode = rounding(rounding_mode);
  auto dtype = at::result_type(self, other);
  if (mode.empty()) {
    if (at::isIntegralType(dtype, /*includeBool=*/true)) dtype = default_float();
    return binary("div", "div", self, other, dtype, 1, not_complex("div_cuda", dtype));
  }
  const bool trunc = mode == "trunc";
  return binary("div", trunc ? "div_trunc" : "div_floor", self, other, dtype, 1,
                {dtype != at::kBool && !at::isComplexType(dtype), trunc ? "div_trunc_cuda" : "div_floor_cuda"});
}
}  // namespace

at::Tensor div(const at::Tensor& self, const at::Tensor& other, std::optional<std::string_view> rounding_mode) {
  return divide(self, other, rounding_mode);
}
at::Tensor div(const at::Tensor& self, const c10::Scalar& other, std::optional<std::string_view> rounding_mode) {
  return divide(self, other, rounding_mode);
}
at::Tensor remainder(const at::Tensor& self, const at::Tensor& other) {
  const auto dtype = at::result_type(self, other);
  return binary("remainder", "remainder", self, other, dtype, 1,
                {dtype != at::kBool && !at::isComplexType(dtype), "remainder_cuda"});
}
at::Tensor remainder(const at::Tensor& self, const c10::Scalar& other) {
  const auto dtype = at::result_type(self, other);
  return binary("remainder", "remainder", self, other, dtype, 1,
                {dtype != at::kBool && !at::isComplexType(dtype), "remainder_cuda"});
}
at::Tensor maximum(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(!self.is_complex() && !other.is_complex(), "maximum not implemented for complex tensors.");
  return binary("maximum", "maximum", self, other, at::result_type(self, other));
}
at::Tensor minimum(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(!self.is_complex() && !other.is_complex(), "minimum not implemented for complex tensors.");
  return binary("minimum", "minimum", self, other, at::result_type(self, other));
}

at::Tensor where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(condition.scalar_type() == at::kBool,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              c10::toString(condition.scalar_type()));
  const auto dtype = at::result_type(self, other);
  at::Tensor out = empty_pointwise({&condition, &self, &other}, dtype);
  if (is_meta(out) || out.numel() == 0) return out;
  check_devices("where", out, {&condition, &self, &other});
  auto on_device = [&](const at::Tensor& t) { return is_cpu_scalar(t) ? t.to(out.device()) : t; };
  static const TritonJITFunction& k = kernel(kFile, "where_kernel");
  const Walk w = walk(out, {on_device(condition), on_device(self), on_device(other)});
  const Block b = block_for(w.view.numel);
  Slots<24> s;
  s.add(w.inputs[0]).add(w.inputs[1]).add(w.inputs[2]).add(w.out);
  add_walk(s, w.view, 3);
  s.add_all(w.view.contiguous, w.view.index64, b.size);
  torch_adapter::DeviceGuard guard(out);
  s.launch(k, launch_config(out, static_cast<unsigned>(cdiv(w.view.numel, b.size)), 1, 1, b.warps));
  w.finish();
  return out;
}

at::Tensor neg(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool,
              "Negation, the `-` operator, on a bool tensor is not supported. "
              "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  return unary("neg", "neg", self, self.scalar_type());
}
at::Tensor abs(const at::Tensor& self) { return unary("abs", "abs", self, self.scalar_type()); }
at::Tensor exp(const at::Tensor& self) { return unary("exp", "exp", self, float_result(self)); }
at::Tensor log(const at::Tensor& self) { return unary("log", "log", self, float_result(self)); }
at::Tensor sqrt(const at::Tensor& self) { return unary("sqrt", "sqrt", self, float_result(self)); }
at::Tensor rsqrt(const at::Tensor& self) { return unary("rsqrt", "rsqrt", self, float_result(self)); }
at::Tensor sigmoid(const at::Tensor& self) { return unary("sigmoid", "sigmoid", self, float_result(self)); }
at::Tensor tanh(const at::Tensor& self) { return unary("tanh", "tanh", self, float_result(self)); }
at::Tensor relu(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "Boolean inputs not supported for relu");
  return unary("relu", "relu", self, self.scalar_type());
}
at::Tensor gelu(const at::Tensor& self, std::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "approximate argument must be either none or tanh.");
  return unary("gelu", approximate == "tanh" ? "gelu_tanh" : "gelu", self, self.scalar_type(),
               {at::isFloatingType(self.scalar_type()), "GeluCUDAKernelImpl"});
}
at::Tensor silu(const at::Tensor& self) {
  return unary("silu", "silu", self, self.scalar_type(), {at::isFloatingType(self.scalar_type()), "silu_cuda"});
}

}  // namespace triton_jit::ops
