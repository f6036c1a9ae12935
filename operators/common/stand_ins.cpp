// The ATen stand-ins: our kernels registered under aten's own names for CUDA while enabled
// (ops::enable), each routed back to ATen's kernel for the shape classes where ATen is faster
// (common/stand_in_policy.h).
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

#include "common/aten_forms.h"
#include "common/ops.h"
#include "common/stand_in_policy.h"

namespace triton_jit::ops {
namespace {

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
