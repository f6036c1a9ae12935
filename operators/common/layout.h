// Shape, dtype and layout logic shared by the wrappers and their Meta kernels: written once, in
// symbolic sizes (c10::SymInt), so that the Meta kernels work under torch.compile(dynamic=True)
// and torch.export with dynamic dims, and the CUDA kernels allocate exactly what the Meta ones
// promise.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/SymIntArrayRef.h>
#include <c10/util/OptionalArrayRef.h>

namespace triton_jit::ops {

inline constexpr int64_t kMaxInt32 = 2147483647;

using Operands = std::initializer_list<const at::Tensor*>;

// ---- pointwise -----------------------------------------------------------------------------------

// The broadcast shape (ATen's infer_size: its error when sizes do not match).
c10::SymDimVector broadcast_shape(Operands operands);

// An uninitialised result of a pointwise op over `operands`, with the strides ATen's
// TensorIterator gives it: contiguous when the inputs are, theirs when they share one dense
// layout, else dense in the order of the inputs' strides.
at::Tensor empty_pointwise(Operands operands, at::ScalarType dtype);

// The walk a pointwise kernel makes over a dense output: its dims in memory order (outermost
// first), size-1 dims dropped and adjacent dims merged where every input allows; at most four.
struct PointwiseView {
  int64_t numel = 0;
  std::array<int64_t, 4> sizes{1, 1, 1, 1};
  std::array<std::array<int64_t, 4>, 3> strides{};  // per input, 0 where broadcast
  bool contiguous = true;                           // every input is read at the walk's own index
  bool index64 = false;                             // an index or offset passes 2^31
};
// std::nullopt when more than four dims remain (the caller makes its inputs contiguous).
std::optional<PointwiseView> pointwise_view(const at::Tensor& out, Operands inputs);

// ---- reductions ----------------------------------------------------------------------------------

// dim (none or empty: all) wrapped and checked as ATen does, as a bit mask.
uint64_t reduction_mask(const at::Tensor& self, at::OptionalIntArrayRef dim, const char* op);
// The reduced shape: reduced dims removed, or kept as 1.
c10::SymDimVector reduced_shape(const at::Tensor& self, uint64_t mask, bool keepdim);

// A contiguous tensor viewed as (M, N, K), N the reduced dims. The input is made contiguous,
// and permuted first when the reduced dims are not adjacent.
struct ReductionView {
  at::Tensor input;  // contiguous
  int64_t m = 1, n = 1, k = 1;
};
ReductionView reduction_view(const at::Tensor& self, uint64_t mask);

// ---- messages ----------------------------------------------------------------------------------

// Sizes for error messages: the value, or the symbol's name when it has none.
std::string to_text(const c10::SymInt& size);
std::string to_text(c10::SymIntArrayRef sizes);  // "[2, 3]"

// ---- dtypes ----------------------------------------------------------------------------------

// ATen's check that an op supports a dtype: NotImplementedError "\"<op>\" not implemented for
// '<dtype>'".
void check_dtype_supported(bool supported, const char* op, at::ScalarType dtype);
// The same, made as ATen makes it: only when `result` has elements to compute (ATen's kernels
// return before they dispatch on the dtype when there is nothing to do); on Meta tensors always.
void check_dtype_supported(bool supported, const char* op, at::ScalarType dtype, const at::Tensor& result);

}  // namespace triton_jit::ops
