// Reductions (sum, mean, amax, max, min, argmax) and softmax / log_softmax: ATen's dtype rules and
// checks, the shape (symbolic for Meta), then reduce.py / softmax.py over an (M, N, K) view.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <c10/core/DefaultDtype.h>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

constexpr int kTargetPrograms = 528;  // four programs for each of the H200's 132 SMs
constexpr int64_t kLongRow = 32768;
// softmax over few long rows: chunks of kSoftmaxChunk elements, read kSoftmaxBlock at a time
constexpr int64_t kSoftmaxChunk = 4096;
constexpr int64_t kSoftmaxBlock = 1024;

// One reduction over v into out (M * K values, contiguous) and indices (int64, same count; undefined
// when OP gives none). Splits a long N across programs when M * K alone leaves the GPU idle.
void run_reduce(const char* op, const ReductionView& v, const at::Tensor& out, const at::Tensor& indices,
                const char* acc, double divisor) {
  static const TritonJITFunction& rows_kernel = kernel("reduce.py", "reduce_rows_kernel");
  static const TritonJITFunction& middle_kernel = kernel("reduce.py", "reduce_kernel");
  const std::string_view name(op);
  const bool max_like = name == "max" || name == "min" || name == "amax" || name == "argmax";
  const bool rows = v.k == 1;
  // Tiles of 4096 elements; along K (contiguous) up to 256 wide, so that each row of a tile is one
  // long coalesced read. Rows longer than kLongRow (a vocabulary's logits) take 2048 of one row
  // (two from 2048 rows on, for the indexed ones): measured at 0.17-0.95x ATen's time over 1 to 4096
  // rows of 128256, where 4096-element tiles of four rows measured 0.21-1.07x (docs/performance.md).
  const bool long_rows = rows && v.n > kLongRow;
  const int64_t block_k = rows ? 1 : std::min<int64_t>(next_power_of_2(v.k), 256);
  const int64_t block_n = long_rows ? 2048
                          : rows    ? std::min<int64_t>(next_power_of_2(v.n), 1024)
                                    : std::max<int64_t>(1, 4096 / block_k);
  const int64_t block_m = long_rows ? (v.m >= 2048 && name != "amax" ? 2 : 1)
                          : rows    ? std::clamp<int64_t>(4096 / block_n, 1, next_power_of_2(v.m))
                                    : 1;
  const int64_t programs = rows ? cdiv(v.m, block_m) : v.m * cdiv(v.k, block_k);
  int64_t splits = 1;
  if (programs < kTargetPrograms && v.n >= 8 * block_n) {
    splits = std::min(cdiv(kTargetPrograms, programs), cdiv(v.n, 4 * block_n));
  }
  const int64_t chunk = cdiv(cdiv(v.n, splits), block_n) * block_n;
  splits = cdiv(v.n, chunk);
  const bool index64 = v.m * v.n * v.k > kMaxInt32 || v.m * splits * v.k > kMaxInt32;
  torch_adapter::DeviceGuard guard(v.input);
  auto launch = [&](const char* kernel_op, const at::Tensor& in, const at::Tensor& idx_in, const at::Tensor& o,
                    const at::Tensor& oi, int64_t n, int64_t chunk_n, int64_t split_count, bool partial, double div) {
    const int warps = long_rows || (rows ? block_m * block_n : block_n * block_k) >= 4096 ? 8 : 4;
    Slots<20> s;
    s.add(in)
        .add(partial ? idx_in : at::Tensor())
        .add(o.defined() ? o : at::Tensor())
        .add(oi.defined() ? oi : at::Tensor());
    if (rows) {
      s.add_all(v.m, n, chunk_n);
    } else {
      s.add_all(v.m, n, v.k, chunk_n);
    }
    if (std::string_view(acc) == "fp64") {
      s.add(fixed<double>(div));
    } else {
      s.add(fixed<float>(static_cast<float>(div)));
    }
    s.add_all(std::string_view(kernel_op), std::string_view(acc), partial);
    if (rows) {
      s.add_all(block_m, block_n, index64);
      s.launch(rows_kernel, launch_config(v.input, static_cast<unsigned>(cdiv(v.m, block_m)),
                                          static_cast<unsigned>(split_count), 1, warps));
    } else {
      s.add_all(block_n, block_k, index64);
      s.launch(middle_kernel,
               launch_config(v.input, static_cast<unsigned>(v.m), static_cast<unsigned>(cdiv(v.k, block_k)),
                             static_cast<unsigned>(split_count), warps));
    }
  };
  if (splits == 1) {
    launch(op, v.input, at::Tensor(), out, indices, v.n, v.n, 1, false, divisor);
    return;
  }
  // First launch: each split's partial result; second: those reduced.
  // amax carries no indices: its partial maxima are reduced by a plain amax over them
  const bool indexed = max_like && name != "amax";
  const at::ScalarType partial_type = max_like                          ? v.input.scalar_type()
                                      : std::string_view(acc) == "fp64" ? at::kDouble
                                      : std::string_view(acc) == "i64"  ? at::kLong
                                                                        : at::kFloat;
  const at::Tensor partial = at::empty({v.m, splits, v.k}, v.input.options().dtype(partial_type));
  const at::Tensor partial_idx =
      indexed ? at::empty({v.m, splits, v.k}, v.input.options().dtype(at::kLong)) : at::Tensor();
  const char* first = name == "amax" ? "amax" : max_like ? (name == "min" ? "min" : "max") : "sum";
  launch(first, v.input, at::Tensor(), partial, partial_idx, v.n, chunk, splits, false, 1.0);
  ReductionView second{partial, v.m, splits, v.k};
  // The second launch reads the partials as rows of `splits` (K == 1) or an (M, splits, K) view.
  if (rows) {
    Slots<20> s;
    const int64_t bn = std::min<int64_t>(next_power_of_2(splits), 1024);
    const int64_t bm = std::clamp<int64_t>(4096 / bn, 1, next_power_of_2(v.m));
    s.add(partial)
        .add(indexed ? partial_idx : at::Tensor())
        .add(name == "argmax" ? at::Tensor() : out)
        .add(indices.defined() ? indices : at::Tensor());
    s.add_all(v.m, splits, splits);
    if (std::string_view(acc) == "fp64") {
      s.add(fixed<double>(divisor));
    } else {
      s.add(fixed<float>(static_cast<float>(divisor)));
    }
    s.add_all(std::string_view(op), std::string_view(acc), indexed, bm, bn, index64);
    s.launch(rows_kernel, launch_config(v.input, static_cast<unsigned>(cdiv(v.m, bm)), 1, 1, 4));
  } else {
    launch(op, second.input, partial_idx, name == "argmax" ? at::Tensor() : out, indices, splits, splits, 1, indexed,
           divisor);
  }
}

const char* accumulator(at::ScalarType in, at::ScalarType out) {
  if (in == at::kDouble || out == at::kDouble) return "fp64";
  if (at::isIntegralType(out, /*includeBool=*/true)) return "i64";
  return "fp32";
}

// ATen's check that a max-like reduction has something to reduce.
void check_nonempty(const at::Tensor& self, uint64_t mask, at::OptionalIntArrayRef dim, const char* op) {
  if (!dim.has_value() || dim->empty()) {
    TORCH_CHECK_INDEX(self.numel() != 0, op,
                      ": Expected reduction dim to be specified for input.numel() == 0. "
                      "Specify the reduction dim with the 'dim' argument.");
    return;
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if ((mask >> d) & 1) {
      TORCH_CHECK_INDEX(self.size(d) != 0, op, ": Expected reduction dim ", d, " to have non-zero size.");
    }
  }
}

at::Tensor reduce_values(const char* op, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                         at::ScalarType out_dtype, bool max_like) {
  const uint64_t mask = reduction_mask(self, dim, op);
  if (max_like && !self.is_meta()) check_nonempty(self, mask, dim, (std::string(op) + "()").c_str());
  at::Tensor out = at::empty_symint(reduced_shape(self, mask, keepdim), self.options().dtype(out_dtype));
  if (out.is_meta() || out.numel() == 0) return out;
  const ReductionView v = reduction_view(self, mask);
  if (v.n == 0) {  // sum of nothing: 0; mean: 0 / 0
    return std::string_view(op) == "mean" ? out.fill_(std::numeric_limits<double>::quiet_NaN()) : out.zero_();
  }
  run_reduce(op, v, out, at::Tensor(), accumulator(self.scalar_type(), out_dtype), static_cast<double>(v.n));
  return out;
}

std::tuple<at::Tensor, at::Tensor> reduce_with_indices(const char* op, const at::Tensor& self, int64_t dim,
                                                       bool keepdim) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  const uint64_t mask = self.dim() == 0 ? 1 : uint64_t{1} << wrapped;
  TORCH_CHECK_INDEX(self.dim() == 0 || self.sym_size(wrapped) != 0, op, "(): Expected reduction dim ", dim,
                    " to have non-zero size.");
  at::Tensor values = at::empty_symint(reduced_shape(self, mask, keepdim), self.options());
  at::Tensor indices = at::empty_symint(reduced_shape(self, mask, keepdim), self.options().dtype(at::kLong));
  if (values.is_meta() || values.numel() == 0) return {values, indices};
  run_reduce(op, reduction_view(self, mask), values, indices, "fp32", 1.0);
  return {values, indices};
}

}  // namespace

at::Tensor sum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, std::optional<at::ScalarType> dtype) {
  const at::ScalarType out = dtype                                                          ? *dtype
                             : at::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? at::kLong
                                                                                            : self.scalar_type();
  check_dtype_supported(!at::isComplexType(out), "sum_cuda", out);
  return reduce_values("sum", self, dim, keepdim, out, false);
}

at::Tensor mean(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                std::optional<at::ScalarType> dtype) {
  const at::ScalarType out = dtype ? *dtype : self.scalar_type();
  TORCH_CHECK(at::isFloatingType(out), "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
              " dtype must be either a floating point or complex dtype. Got: ", c10::toString(out));
  return reduce_values("mean", self, dim, keepdim, out, false);
}

at::Tensor amax(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  check_dtype_supported(!at::isComplexType(self.scalar_type()), "max_values_cuda", self.scalar_type());
  return reduce_values("amax", self, dim, keepdim, self.scalar_type(), true);
}

std::tuple<at::Tensor, at::Tensor> max(const at::Tensor& self, int64_t dim, bool keepdim) {
  check_dtype_supported(!at::isComplexType(self.scalar_type()), "max_cuda", self.scalar_type());
  return reduce_with_indices("max", self, dim, keepdim);
}

std::tuple<at::Tensor, at::Tensor> min(const at::Tensor& self, int64_t dim, bool keepdim) {
  check_dtype_supported(!at::isComplexType(self.scalar_type()), "min_cuda", self.scalar_type());
  return reduce_with_indices("min", self, dim, keepdim);
}

at::Tensor argmax(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  TORCH_CHECK(self.scalar_type() != at::kBool, "argmax(): does not support bool input");
  const bool supported = !at::isComplexType(self.scalar_type());
  if (dim.has_value()) {
    const int64_t wrapped = at::maybe_wrap_dim(*dim, self.dim());
    TORCH_CHECK_INDEX(self.dim() == 0 || self.sym_size(wrapped) != 0, "argmax(): Expected reduction dim ", *dim,
                      " to have non-zero size.");
    const uint64_t mask = self.dim() == 0 ? 1 : uint64_t{1} << wrapped;
    at::Tensor out = at::empty_symint(reduced_shape(self, mask, keepdim), self.options().dtype(at::kLong));
    check_dtype_supported(supported, "argmax_cuda", self.scalar_type(), out);
    if (out.is_meta() || out.numel() == 0) return out;
    run_reduce("argmax", reduction_view(self, mask), at::Tensor(), out, "fp32", 1.0);
    return out;
  }
  TORCH_CHECK_INDEX(self.sym_numel() != 0, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  c10::SymDimVector shape;
  if (keepdim) shape.assign(static_cast<std::size_t>(self.dim()), c10::SymInt(1));
  at::Tensor out = at::empty_symint(shape, self.options().dtype(at::kLong));
  check_dtype_supported(supported, "argmax_cuda", self.scalar_type(), out);
  if (out.is_meta()) return out;
  ReductionView v{self.contiguous().reshape({1, -1}), 1, self.numel(), 1};
  run_reduce("argmax", v, at::Tensor(), out, "fp32", 1.0);
  return out;
}

// ---- softmax ----------------------------------------------------------------------------------

namespace {

at::Tensor run_softmax(const at::Tensor& self, int64_t dim, at::ScalarType out_dtype, bool log, const char* op,
                       bool supported) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  at::Tensor out = at::empty_symint(self.sym_sizes(), self.options().dtype(out_dtype));
  check_dtype_supported(supported, op, self.scalar_type(), out);
  if (out.is_meta() || out.numel() == 0) return out;
  // An integer input with a float dtype is converted first, as ATen's softmax(dtype=) does.
  const at::Tensor x = (at::isFloatingType(self.scalar_type()) ? self : self.to(out_dtype)).contiguous();
  int64_t m = 1, n = 1, k = 1;
  for (int64_t d = 0; d < self.dim(); ++d) (d < wrapped ? m : d == wrapped ? n : k) *= self.size(d);
  const bool index64 = self.numel() > kMaxInt32;
  torch_adapter::DeviceGuard guard(self);
  // Fewer than 4096 long rows: each cut into chunks of kSoftmaxChunk (two launches), which measured
  // 0.19x, 0.25x and 0.81x ATen's time over 1, 16 and 256 rows of 128256 where one program per row
  // took 1.61x, 1.64x and 1.08x; from 4096 rows one program per row is faster than ATen (0.76x).
  const int64_t chunks = k == 1 && n > 8192 && m < 4096 ? cdiv(n, kSoftmaxChunk) : 1;
  if (chunks > 1) {
    static const TritonJITFunction& stats_kernel = kernel("softmax.py", "softmax_chunk_stats_kernel");
    static const TritonJITFunction& finish_kernel = kernel("softmax.py", "softmax_chunk_finish_kernel");
    const int64_t chunk = cdiv(cdiv(n, chunks), kSoftmaxBlock) * kSoftmaxBlock;
    const int64_t used = cdiv(n, chunk);
    const at::ScalarType compute =
        x.scalar_type() == at::kDouble || out_dtype == at::kDouble ? at::kDouble : at::kFloat;
    const at::Tensor stats = at::empty({m, used, 2}, x.options().dtype(compute));
    const LaunchConfig config = launch_config(self, static_cast<unsigned>(m), static_cast<unsigned>(used), 1, 4);
    Slots<8> first;
    first.add_all(x, stats, n, chunk, kSoftmaxBlock);
    first.launch(stats_kernel, config);
    Slots<10> second;
    second.add_all(x, out, stats, n, chunk, log, kSoftmaxBlock, next_power_of_2(used));
    second.launch(finish_kernel, config);
    return out;
  }
  if (k == 1) {
    static const TritonJITFunction& rows = kernel("softmax.py", "softmax_rows_kernel");
    const bool one_pass = n <= 8192;
    const int64_t block = one_pass ? next_power_of_2(n) : 2048;
    const int warps = block >= 8192 ? 16 : block >= 2048 ? 8 : 4;
    Slots<10> s;
    s.add_all(x, out, m, n, log, one_pass, block, index64);
    s.launch(rows, launch_config(self, static_cast<unsigned>(m), 1, 1, warps));
  } else {
    static const TritonJITFunction& middle = kernel("softmax.py", "softmax_kernel");
    const int64_t block_k = std::min<int64_t>(next_power_of_2(k), 64);
    const int64_t block_n = std::max<int64_t>(1, std::min<int64_t>(next_power_of_2(n), 2048 / block_k));
    Slots<10> s;
    s.add_all(x, out, m, n, k, log, block_n, block_k, index64);
    s.launch(middle, launch_config(self, static_cast<unsigned>(m), static_cast<unsigned>(cdiv(k, block_k)), 1, 4));
  }
  return out;
}

at::Tensor softmax_like(const char* op, const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype,
                        bool log) {
  const at::ScalarType out = dtype ? *dtype : self.scalar_type();
  const bool supported = (at::isFloatingType(self.scalar_type()) || dtype.has_value()) && at::isFloatingType(out);
  return run_softmax(self, dim, out, log, op, supported);
}

}  // namespace

at::Tensor softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  return softmax_like("host_softmax", self, dim, dtype, false);
}
at::Tensor log_softmax(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  return softmax_like("host_softmax", self, dim, dtype, true);
}

}  // namespace triton_jit::ops
