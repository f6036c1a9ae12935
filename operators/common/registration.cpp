// Every operator of the library, in one place: the schemas (ATen's, where ATen has the op, so
// that each can stand in for it), the CUDA and Meta kernels (one function serves both: on Meta
// tensors it stops after computing the result's shape), and the ATen stand-ins.
#include <ATen/core/Tensor.h>  // first: the dispatch headers below assume it (and c10::string_view)
#include <ATen/ops/_log_softmax_cuda_dispatch.h>
#include <ATen/ops/_softmax_cuda_dispatch.h>
#include <ATen/ops/add_cuda_dispatch.h>
#include <ATen/ops/addmm_cuda_dispatch.h>
#include <ATen/ops/amax_cuda_dispatch.h>
#include <ATen/ops/argmax_cuda_dispatch.h>
#include <ATen/ops/bmm_cuda_dispatch.h>
#include <ATen/ops/cat_cuda_dispatch.h>
#include <ATen/ops/div_cuda_dispatch.h>
#include <ATen/ops/exp_cuda_dispatch.h>
#include <ATen/ops/gelu_cuda_dispatch.h>
#include <ATen/ops/max_cuda_dispatch.h>
#include <ATen/ops/maximum_cuda_dispatch.h>
#include <ATen/ops/min_cuda_dispatch.h>
#include <ATen/ops/minimum_cuda_dispatch.h>
#include <ATen/ops/mm_cuda_dispatch.h>
#include <ATen/ops/mul_cuda_dispatch.h>
#include <ATen/ops/remainder_cuda_dispatch.h>
#include <ATen/ops/rsqrt_cuda_dispatch.h>
#include <ATen/ops/sub_cuda_dispatch.h>
#include <ATen/ops/tanh_cuda_dispatch.h>
#include <ATen/ops/topk_cuda_dispatch.h>
#include <ATen/ops/where_cuda_dispatch.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include <triton_jit/torch_library.h>

#include "common/ops.h"
#include "common/stand_in_policy.h"

namespace triton_jit::ops {
namespace {

using at::Tensor;
using c10::Scalar;
using Pair = std::tuple<Tensor, Tensor>;

// The registered forms: the dispatcher's C++ types for each schema.
Tensor add_tensor(const Tensor& a, const Tensor& b, const Scalar& alpha) { return ops::add(a, b, alpha); }
Tensor add_scalar(const Tensor& a, const Scalar& b, const Scalar& alpha) { return ops::add(a, b, alpha); }
Tensor sub_tensor(const Tensor& a, const Tensor& b, const Scalar& alpha) { return ops::sub(a, b, alpha); }
Tensor sub_scalar(const Tensor& a, const Scalar& b, const Scalar& alpha) { return ops::sub(a, b, alpha); }
Tensor mul_tensor(const Tensor& a, const Tensor& b) { return ops::mul(a, b); }
Tensor mul_scalar(const Tensor& a, const Scalar& b) { return ops::mul(a, b); }
Tensor div_tensor(const Tensor& a, const Tensor& b) { return ops::div(a, b); }
Tensor div_scalar(const Tensor& a, const Scalar& b) { return ops::div(a, b); }
Tensor div_tensor_mode(const Tensor& a, const Tensor& b, std::optional<c10::string_view> mode) {
  return ops::div(a, b, mode);
}
Tensor div_scalar_mode(const Tensor& a, const Scalar& b, std::optional<c10::string_view> mode) {
  return ops::div(a, b, mode);
}
Tensor remainder_tensor(const Tensor& a, const Tensor& b) { return ops::remainder(a, b); }
Tensor remainder_scalar(const Tensor& a, const Scalar& b) { return ops::remainder(a, b); }
Tensor gelu_op(const Tensor& a, c10::string_view approximate) { return ops::gelu(a, approximate); }
Tensor gelu_and_mul_op(const Tensor& a, c10::string_view approximate) { return ops::gelu_and_mul(a, approximate); }
Tensor softmax_int(const Tensor& a, int64_t dim, std::optional<at::ScalarType> dtype) {
  return ops::softmax(a, dim, dtype);
}
Tensor log_softmax_int(const Tensor& a, int64_t dim, std::optional<at::ScalarType> dtype) {
  return ops::log_softmax(a, dim, dtype);
}
Tensor softmax_aten(const Tensor& a, int64_t dim, bool half_to_float) {
  return ops::softmax(a, dim, half_to_float ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt);
}
Tensor log_softmax_aten(const Tensor& a, int64_t dim, bool half_to_float) {
  return ops::log_softmax(a, dim, half_to_float ? std::optional<at::ScalarType>(at::kFloat) : std::nullopt);
}
Tensor layer_norm_op(const Tensor& input, c10::SymIntArrayRef shape, const std::optional<Tensor>& weight,
                     const std::optional<Tensor>& bias, double eps, bool /*cudnn_enable*/) {
  return ops::layer_norm_symint(input, shape, weight, bias, eps);
}
Tensor embedding_op(const Tensor& weight, const Tensor& indices, c10::SymInt padding_idx, bool scale, bool sparse) {
  return ops::embedding(weight, indices, padding_idx.guard_int(__FILE__, __LINE__), scale, sparse);
}
Pair topk_op(const Tensor& self, c10::SymInt k, int64_t dim, bool largest, bool sorted) {
  return ops::topk_symint(self, std::move(k), dim, largest, sorted);
}

// ---- ATen stand-ins -------------------------------------------------------------------------------

// Routing (common/stand_in_policy.h): the stand-ins of ops whose kernels are slower than ATen's for
// some shape classes ask stand_in_policy.h per call and send those classes back to ATen's own CUDA
// kernel, called directly (at::cuda::), since the dispatcher's CUDA entry is now ours.
std::atomic<bool> routing_enabled{true};

enum RoutedOp : size_t {
  kMm,
  kAddmm,
  kBmm,
  kTopk,
  kSoftmax,
  kLogSoftmax,
  kArgmax,
  kMaxDim,
  kMinDim,
  kAmax,
  kCat,
  kRemainder,
  kTanh,
  kGelu,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kMinimum,
  kWhere,
  kExp,
  kRsqrt,
  kRoutedOps
};
constexpr std::array<const char*, kRoutedOps> kRoutedNames = {
    "mm",      "addmm",   "bmm",        "topk",       "_softmax",   "_log_softmax",
    "argmax",  "max.dim", "min.dim",    "amax",       "cat",        "remainder.Tensor",
    "tanh",    "gelu",    "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor",
    "maximum", "minimum", "where.self", "exp",        "rsqrt"};
static_assert(kRoutedNames.back() != nullptr, "a routed stand-in without a name");
struct RouteCount {
  std::atomic<uint64_t> ours{0}, aten{0};
};
std::array<RouteCount, kRoutedOps> route_counts;

// Runs `ours` or `aten` as the policy said (ours for every call while routing is off) and counts it.
template <class Ours, class Aten>
auto routed(RoutedOp op, Route route, Ours&& ours, Aten&& aten) {
  if (route == Route::kAten && routing_enabled.load(std::memory_order_relaxed)) {
    route_counts[op].aten.fetch_add(1, std::memory_order_relaxed);
    return aten();
  }
  route_counts[op].ours.fetch_add(1, std::memory_order_relaxed);
  return ours();
}

// The rows and row length of a reduction of `self` over `dims` (all of them when empty).
RowShape row_shape(const Tensor& self, at::IntArrayRef dims) {
  const int64_t numel = self.numel();
  int64_t length = 1;
  if (dims.empty()) {
    length = numel;
  } else {
    for (int64_t d : dims) length *= self.dim() == 0 ? 1 : self.size(c10::maybe_wrap_dim(d, self.dim()));
  }
  return {length == 0 ? 0 : numel / length, length, static_cast<int64_t>(self.element_size()),
          at::isFloatingType(self.scalar_type())};
}
RowShape row_shape(const Tensor& self, int64_t dim) { return row_shape(self, at::IntArrayRef(dim)); }

Tensor mm_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kMm, route_matmul({1, a.size(0), b.size(1), a.size(1), static_cast<int64_t>(a.element_size())}),
      [&] { return ops::mm(a, b); }, [&] { return at::cuda::mm(a, b); });
}
Tensor addmm_stand_in(const Tensor& self, const Tensor& m1, const Tensor& m2, const Scalar& beta, const Scalar& alpha) {
  return routed(
      kAddmm, route_matmul({1, m1.size(0), m2.size(1), m1.size(1), static_cast<int64_t>(m1.element_size())}),
      [&] { return ops::addmm(self, m1, m2, beta, alpha); },
      [&] { return at::cuda::addmm(self, m1, m2, beta, alpha); });
}
Tensor bmm_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kBmm, route_matmul({a.size(0), a.size(1), b.size(2), a.size(2), static_cast<int64_t>(a.element_size())}),
      [&] { return ops::bmm(a, b); }, [&] { return at::cuda::bmm(a, b); });
}
Pair topk_stand_in(const Tensor& self, c10::SymInt k, int64_t dim, bool largest, bool sorted) {
  const int64_t count = k.guard_int(__FILE__, __LINE__);
  return routed(
      kTopk, route_topk(row_shape(self, dim), count), [&] { return ops::topk_symint(self, k, dim, largest, sorted); },
      [&] { return at::cuda::topk(self, count, dim, largest, sorted); });
}
Tensor softmax_stand_in(const Tensor& a, int64_t dim, bool half_to_float) {
  return routed(
      kSoftmax, route_softmax(row_shape(a, dim)), [&] { return softmax_aten(a, dim, half_to_float); },
      [&] { return at::cuda::_softmax(a, dim, half_to_float); });
}
Tensor log_softmax_stand_in(const Tensor& a, int64_t dim, bool half_to_float) {
  return routed(
      kLogSoftmax, route_softmax(row_shape(a, dim)), [&] { return log_softmax_aten(a, dim, half_to_float); },
      [&] { return at::cuda::_log_softmax(a, dim, half_to_float); });
}
Tensor argmax_stand_in(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  const RowShape shape = dim ? row_shape(self, *dim) : row_shape(self, at::IntArrayRef{});
  return routed(
      kArgmax, route_index_reduction(shape), [&] { return ops::argmax(self, dim, keepdim); },
      [&] { return at::cuda::argmax(self, dim, keepdim); });
}
Pair max_stand_in(const Tensor& self, int64_t dim, bool keepdim) {
  return routed(
      kMaxDim, route_index_reduction(row_shape(self, dim)), [&] { return ops::max(self, dim, keepdim); },
      [&] { return at::cuda::max(self, dim, keepdim); });
}
Pair min_stand_in(const Tensor& self, int64_t dim, bool keepdim) {
  return routed(
      kMinDim, route_index_reduction(row_shape(self, dim)), [&] { return ops::min(self, dim, keepdim); },
      [&] { return at::cuda::min(self, dim, keepdim); });
}
Tensor amax_stand_in(const Tensor& self, at::IntArrayRef dim, bool keepdim) {
  return routed(
      kAmax, route_amax(row_shape(self, dim)), [&] { return ops::amax(self, dim, keepdim); },
      [&] { return at::cuda::amax(self, dim, keepdim); });
}
Tensor cat_stand_in(const at::ITensorListRef& tensors, int64_t dim) {
  return routed(
      kCat, route_cat(), [&] { return ops::cat(tensors, dim); }, [&] { return at::cuda::cat(tensors, dim); });
}
int64_t elements(const Tensor& a, const Tensor& b) { return std::max(a.numel(), b.numel()); }  // broadcast's, nearly
Tensor remainder_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kRemainder, route_elementwise(elements(a, b)), [&] { return ops::remainder(a, b); },
      [&] { return at::cuda::remainder(a, b); });
}
Tensor add_stand_in(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return routed(
      kAdd, route_elementwise(elements(a, b)), [&] { return ops::add(a, b, alpha); },
      [&] { return at::cuda::add(a, b, alpha); });
}
Tensor sub_stand_in(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return routed(
      kSub, route_elementwise(elements(a, b)), [&] { return ops::sub(a, b, alpha); },
      [&] { return at::cuda::sub(a, b, alpha); });
}
Tensor mul_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kMul, route_elementwise(elements(a, b)), [&] { return ops::mul(a, b); }, [&] { return at::cuda::mul(a, b); });
}
Tensor div_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kDiv, route_elementwise(elements(a, b)), [&] { return ops::div(a, b); }, [&] { return at::cuda::div(a, b); });
}
Tensor maximum_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kMaximum, route_elementwise(elements(a, b)), [&] { return ops::maximum(a, b); },
      [&] { return at::cuda::maximum(a, b); });
}
Tensor minimum_stand_in(const Tensor& a, const Tensor& b) {
  return routed(
      kMinimum, route_elementwise(elements(a, b)), [&] { return ops::minimum(a, b); },
      [&] { return at::cuda::minimum(a, b); });
}
Tensor where_stand_in(const Tensor& condition, const Tensor& a, const Tensor& b) {
  return routed(
      kWhere, route_elementwise(std::max(condition.numel(), elements(a, b))),
      [&] { return ops::where(condition, a, b); }, [&] { return at::cuda::where(condition, a, b); });
}
Tensor exp_stand_in(const Tensor& a) {
  return routed(
      kExp, route_elementwise(a.numel()), [&] { return ops::exp(a); }, [&] { return at::cuda::exp(a); });
}
Tensor rsqrt_stand_in(const Tensor& a) {
  return routed(
      kRsqrt, route_elementwise(a.numel()), [&] { return ops::rsqrt(a); }, [&] { return at::cuda::rsqrt(a); });
}
Tensor tanh_stand_in(const Tensor& a) {
  return routed(
      kTanh, route_tanh(), [&] { return ops::tanh(a); }, [&] { return at::cuda::tanh(a); });
}
Tensor gelu_stand_in(const Tensor& a, c10::string_view approximate) {
  return routed(
      kGelu, approximate == "tanh" ? route_tanh() : route_elementwise(a.numel()),
      [&] { return ops::gelu(a, approximate); }, [&] { return at::cuda::gelu(a, approximate); });
}

using Installer = void (*)(::torch::Library&);
#define TRITON_JIT_STAND_IN(name, fn)                             \
  {                                                               \
    name, [](::torch::Library& l) { l.impl(name, TORCH_FN(fn)); } \
  }

const std::map<std::string, Installer>& stand_ins() {
  static const auto* table = new std::map<std::string, Installer>{
      TRITON_JIT_STAND_IN("add.Tensor", add_stand_in),
      TRITON_JIT_STAND_IN("add.Scalar", add_scalar),
      TRITON_JIT_STAND_IN("sub.Tensor", sub_stand_in),
      TRITON_JIT_STAND_IN("sub.Scalar", sub_scalar),
      TRITON_JIT_STAND_IN("mul.Tensor", mul_stand_in),
      TRITON_JIT_STAND_IN("mul.Scalar", mul_scalar),
      TRITON_JIT_STAND_IN("div.Tensor", div_stand_in),
      TRITON_JIT_STAND_IN("div.Scalar", div_scalar),
      TRITON_JIT_STAND_IN("div.Tensor_mode", div_tensor_mode),
      TRITON_JIT_STAND_IN("div.Scalar_mode", div_scalar_mode),
      TRITON_JIT_STAND_IN("remainder.Tensor", remainder_stand_in),
      TRITON_JIT_STAND_IN("remainder.Scalar", remainder_scalar),
      TRITON_JIT_STAND_IN("maximum", maximum_stand_in),
      TRITON_JIT_STAND_IN("minimum", minimum_stand_in),
      TRITON_JIT_STAND_IN("where.self", where_stand_in),
      TRITON_JIT_STAND_IN("neg", neg),
      TRITON_JIT_STAND_IN("abs", abs),
      TRITON_JIT_STAND_IN("exp", exp_stand_in),
      TRITON_JIT_STAND_IN("log", log),
      TRITON_JIT_STAND_IN("sqrt", sqrt),
      TRITON_JIT_STAND_IN("rsqrt", rsqrt_stand_in),
      TRITON_JIT_STAND_IN("sigmoid", sigmoid),
      TRITON_JIT_STAND_IN("tanh", tanh_stand_in),
      TRITON_JIT_STAND_IN("relu", relu),
      TRITON_JIT_STAND_IN("gelu", gelu_stand_in),
      TRITON_JIT_STAND_IN("silu", silu),
      TRITON_JIT_STAND_IN("sum.dim_IntList", sum),
      TRITON_JIT_STAND_IN("mean.dim", mean),
      TRITON_JIT_STAND_IN("amax", amax_stand_in),
      TRITON_JIT_STAND_IN("max.dim", max_stand_in),
      TRITON_JIT_STAND_IN("min.dim", min_stand_in),
      TRITON_JIT_STAND_IN("argmax", argmax_stand_in),
      TRITON_JIT_STAND_IN("_softmax", softmax_stand_in),
      TRITON_JIT_STAND_IN("_log_softmax", log_softmax_stand_in),
      TRITON_JIT_STAND_IN("mm", mm_stand_in),
      TRITON_JIT_STAND_IN("addmm", addmm_stand_in),
      TRITON_JIT_STAND_IN("bmm", bmm_stand_in),
      TRITON_JIT_STAND_IN("embedding", embedding_op),
      TRITON_JIT_STAND_IN("index_select", index_select),
      TRITON_JIT_STAND_IN("gather", gather),
      TRITON_JIT_STAND_IN("cat", cat_stand_in),
      TRITON_JIT_STAND_IN("topk", topk_stand_in),
  };
  return *table;
}
#undef TRITON_JIT_STAND_IN

struct StandInState {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<::torch::Library>> active;  // guarded by mutex
};
StandInState& stand_in_state() {
  static auto* state = new StandInState();  // never destroyed: registrations may outlive statics
  return *state;
}

std::string without_namespace(const std::string& name) { return name.rfind("aten::", 0) == 0 ? name.substr(6) : name; }

void enable_op(const std::vector<std::string>& names) { ops::enable(names); }
void disable_op() { disable(); }
std::vector<std::string> stand_ins_op() { return standing_in(); }
std::vector<std::string> enabled_op() { return enabled_stand_ins(); }
void set_routing_op(bool enabled) { set_stand_in_routing(enabled); }
std::tuple<std::vector<std::string>, std::vector<int64_t>, std::vector<int64_t>> routes_op() {
  std::tuple<std::vector<std::string>, std::vector<int64_t>, std::vector<int64_t>> table;
  for (const StandInRoutes& r : stand_in_routes()) {
    std::get<0>(table).push_back(r.op);
    std::get<1>(table).push_back(static_cast<int64_t>(r.ours));
    std::get<2>(table).push_back(static_cast<int64_t>(r.aten));
  }
  return table;
}
// For Python (the wheel's triton_jit module): compile ahead, and the settings of the cache.
std::vector<std::string> warmup_op(c10::ScalarType dtype) {
  std::vector<std::string> made;
  for (const auto& v : warmup(dtype)) made.push_back(v.kernel_name + " " + v.signature + " for " + v.target);
  return made;
}
std::string cache_dir_op() { return triton_jit::cache_dir(); }
void set_cache_dir_op(const std::string& directory) { triton_jit::set_cache_dir(directory); }
void set_offline_op(bool value) { triton_jit::set_offline(value); }
bool offline_op() { return triton_jit::offline(); }

}  // namespace

void enable(const std::vector<std::string>& aten_ops) {
  const auto& table = stand_ins();
  for (const auto& name : aten_ops) {
    if (table.count(without_namespace(name)) == 0) {
      throw ValueError("triton_jit::ops::enable: no stand-in for '" + name + "' (standing_in() lists them)");
    }
  }
  StandInState& s = stand_in_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& name : aten_ops) {
    const std::string op = without_namespace(name);
    if (s.active.count(op) != 0) continue;
    auto library =
        std::make_unique<::torch::Library>(::torch::Library::IMPL, "aten", c10::DispatchKey::CUDA, __FILE__, __LINE__);
    table.at(op)(*library);
    s.active.emplace(op, std::move(library));
  }
}

void disable() {
  StandInState& s = stand_in_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.active.clear();  // each Library's destruction takes its registrations back
}

std::vector<std::string> standing_in() {
  std::vector<std::string> names;
  for (const auto& [name, installer] : stand_ins()) names.push_back("aten::" + name);
  return names;
}

void set_stand_in_routing(bool enabled) { routing_enabled.store(enabled, std::memory_order_relaxed); }
bool stand_in_routing() { return routing_enabled.load(std::memory_order_relaxed); }

std::vector<StandInRoutes> stand_in_routes() {
  std::vector<StandInRoutes> routes;
  for (size_t op = 0; op < kRoutedOps; ++op) {
    routes.push_back({std::string("aten::") + kRoutedNames[op], route_counts[op].ours.load(std::memory_order_relaxed),
                      route_counts[op].aten.load(std::memory_order_relaxed)});
  }
  return routes;
}

std::vector<std::string> enabled_stand_ins() {
  StandInState& s = stand_in_state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<std::string> names;
  for (const auto& [name, library] : s.active) names.push_back("aten::" + name);
  return names;
}

}  // namespace triton_jit::ops

TORCH_LIBRARY(triton_jit, m) {
  // pointwise
  m.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  m.def("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  m.def("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  m.def("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  m.def("mul.Tensor(Tensor self, Tensor other) -> Tensor");
  m.def("mul.Scalar(Tensor self, Scalar other) -> Tensor");
  m.def("div.Tensor(Tensor self, Tensor other) -> Tensor");
  m.def("div.Scalar(Tensor self, Scalar other) -> Tensor");
  m.def("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor");
  m.def("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor");
  m.def("remainder.Tensor(Tensor self, Tensor other) -> Tensor");
  m.def("remainder.Scalar(Tensor self, Scalar other) -> Tensor");
  m.def("maximum(Tensor self, Tensor other) -> Tensor");
  m.def("minimum(Tensor self, Tensor other) -> Tensor");
  m.def("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor");
  for (const char* unary : {"neg", "abs", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "silu"}) {
    m.def((std::string(unary) + "(Tensor self) -> Tensor").c_str());
  }
  m.def("gelu(Tensor self, *, str approximate='none') -> Tensor");
  // fused
  m.def("silu_and_mul(Tensor x) -> Tensor");
  m.def("gelu_and_mul(Tensor x, str approximate='none') -> Tensor");
  m.def("fused_add_rms_norm(Tensor x, Tensor residual, Tensor weight, float eps=1e-06) -> (Tensor, Tensor)");
  m.def("rotary_embedding(Tensor x, Tensor cos, Tensor sin, Tensor? positions=None, bool interleaved=False) -> Tensor");
  // reductions
  m.def("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  m.def("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  m.def("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor");
  m.def("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  m.def("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor");
  m.def("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  m.def("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  m.def("_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  m.def("_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor");
  // norms
  m.def(
      "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
      "float eps=1e-05, bool cudnn_enable=True) -> Tensor");
  m.def("rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor");
  // matmul
  m.def("mm(Tensor self, Tensor mat2) -> Tensor");
  m.def("addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor");
  m.def("bmm(Tensor self, Tensor mat2) -> Tensor");
  // indexing
  m.def(
      "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
      "bool sparse=False) -> Tensor");
  m.def("index_select(Tensor self, int dim, Tensor index) -> Tensor");
  m.def("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor");
  m.def("cat(Tensor[] tensors, int dim=0) -> Tensor");
  m.def(
      "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor "
      "indices)");
  // attention
  m.def(
      "flash_attn_varlen(Tensor q, Tensor k, Tensor v, Tensor cu_seqlens_q, Tensor cu_seqlens_k, int max_seqlen_q, "
      "int max_seqlen_k, float? softmax_scale=None, bool causal=False) -> Tensor");
  m.def(
      "paged_attention(Tensor q, Tensor key_cache, Tensor value_cache, Tensor block_tables, Tensor seq_lens, "
      "float? softmax_scale=None) -> Tensor");
  m.def(
      "reshape_and_cache(Tensor key, Tensor value, Tensor(a!) key_cache, Tensor(b!) value_cache, "
      "Tensor slot_mapping) -> ()");
  // standing in for ATen (no tensors: a kernel for every dispatch key)
  m.def("enable_aten(str[] ops) -> ()", &triton_jit::ops::enable_op);
  m.def("disable_aten() -> ()", &triton_jit::ops::disable_op);
  m.def("aten_stand_ins() -> str[]", &triton_jit::ops::stand_ins_op);
  m.def("enabled_aten_stand_ins() -> str[]", &triton_jit::ops::enabled_op);
  m.def("set_stand_in_routing(bool enabled) -> ()", &triton_jit::ops::set_routing_op);
  m.def("stand_in_routes() -> (str[] ops, int[] ours, int[] aten)", &triton_jit::ops::routes_op);
  m.def("warmup(ScalarType dtype) -> str[]", &triton_jit::ops::warmup_op);
  m.def("cache_dir() -> str", &triton_jit::ops::cache_dir_op);
  m.def("set_cache_dir(str directory) -> ()", &triton_jit::ops::set_cache_dir_op);
  m.def("set_offline(bool offline) -> ()", &triton_jit::ops::set_offline_op);
  m.def("offline() -> bool", &triton_jit::ops::offline_op);
}

namespace {

namespace ops = triton_jit::ops;

triton_jit::torch_adapter::OpLibrary& implementations() {
  static auto* library = [] {  // never destroyed: the registrations last for the process
    auto* l = new triton_jit::torch_adapter::OpLibrary("triton_jit");
    l->impl("add.Tensor", &ops::add_tensor, &ops::add_tensor)
        .impl("add.Scalar", &ops::add_scalar, &ops::add_scalar)
        .impl("sub.Tensor", &ops::sub_tensor, &ops::sub_tensor)
        .impl("sub.Scalar", &ops::sub_scalar, &ops::sub_scalar)
        .impl("mul.Tensor", &ops::mul_tensor, &ops::mul_tensor)
        .impl("mul.Scalar", &ops::mul_scalar, &ops::mul_scalar)
        .impl("div.Tensor", &ops::div_tensor, &ops::div_tensor)
        .impl("div.Scalar", &ops::div_scalar, &ops::div_scalar)
        .impl("div.Tensor_mode", &ops::div_tensor_mode, &ops::div_tensor_mode)
        .impl("div.Scalar_mode", &ops::div_scalar_mode, &ops::div_scalar_mode)
        .impl("remainder.Tensor", &ops::remainder_tensor, &ops::remainder_tensor)
        .impl("remainder.Scalar", &ops::remainder_scalar, &ops::remainder_scalar)
        .impl("maximum", &ops::maximum, &ops::maximum)
        .impl("minimum", &ops::minimum, &ops::minimum)
        .impl("where.self", &ops::where, &ops::where)
        .impl("neg", &ops::neg, &ops::neg)
        .impl("abs", &ops::abs, &ops::abs)
        .impl("exp", &ops::exp, &ops::exp)
        .impl("log", &ops::log, &ops::log)
        .impl("sqrt", &ops::sqrt, &ops::sqrt)
        .impl("rsqrt", &ops::rsqrt, &ops::rsqrt)
        .impl("sigmoid", &ops::sigmoid, &ops::sigmoid)
        .impl("tanh", &ops::tanh, &ops::tanh)
        .impl("relu", &ops::relu, &ops::relu)
        .impl("silu", &ops::silu, &ops::silu)
        .impl("gelu", &ops::gelu_op, &ops::gelu_op)
        .impl("silu_and_mul", &ops::silu_and_mul, &ops::silu_and_mul)
        .impl("gelu_and_mul", &ops::gelu_and_mul_op, &ops::gelu_and_mul_op)
        .impl("fused_add_rms_norm", &ops::fused_add_rms_norm, &ops::fused_add_rms_norm)
        .impl("rotary_embedding", &ops::rotary_embedding, &ops::rotary_embedding)
        .impl("sum.dim_IntList", &ops::sum, &ops::sum)
        .impl("mean.dim", &ops::mean, &ops::mean)
        .impl("amax", &ops::amax, &ops::amax)
        .impl("max.dim", &ops::max, &ops::max)
        .impl("min.dim", &ops::min, &ops::min)
        .impl("argmax", &ops::argmax, &ops::argmax)
        .impl("softmax.int", &ops::softmax_int, &ops::softmax_int)
        .impl("log_softmax.int", &ops::log_softmax_int, &ops::log_softmax_int)
        .impl("_softmax", &ops::softmax_aten, &ops::softmax_aten)
        .impl("_log_softmax", &ops::log_softmax_aten, &ops::log_softmax_aten)
        .impl("layer_norm", &ops::layer_norm_op, &ops::layer_norm_op)
        .impl("rms_norm", &ops::rms_norm_symint, &ops::rms_norm_symint)
        .impl("mm", &ops::mm, &ops::mm)
        .impl("addmm", &ops::addmm, &ops::addmm)
        .impl("bmm", &ops::bmm, &ops::bmm)
        .impl("embedding", &ops::embedding_op, &ops::embedding_op)
        .impl("index_select", &ops::index_select, &ops::index_select)
        .impl("gather", &ops::gather, &ops::gather)
        .impl("cat", &ops::cat, &ops::cat)
        .impl("topk", &ops::topk_op, &ops::topk_op)
        .impl("flash_attn_varlen", &ops::flash_attn_varlen, &ops::flash_attn_varlen)
        .impl("paged_attention", &ops::paged_attention, &ops::paged_attention)
        .impl("reshape_and_cache", &ops::reshape_and_cache, &ops::reshape_and_cache);
    return l;
  }();
  return *library;
}

const bool kRegistered = (implementations(), true);

}  // namespace

// cat of an empty list has no tensor to dispatch on: this kernel says so as ATen does.
TORCH_LIBRARY_IMPL(triton_jit, CompositeExplicitAutograd, m) { m.impl("cat", TORCH_FN(triton_jit::ops::cat)); }
