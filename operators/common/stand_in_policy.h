// Which kernel an enabled ATen stand-in runs for a call: ours, or ATen's own CUDA kernel, by the
// shape class of the call. The rule of each op is the H200 measurement of `benchmarks/ops/
// bench_llm.py` and `bench_ops.py` (docs/performance.md, "Standing in without slowing a model
// down"): a class goes back to ATen where ours measured slower, so that enable() never makes a model
// slower. No torch here: the rules are plain functions of sizes, tested on CPU.
#pragma once

#include <cstdint>

namespace triton_jit::ops {

enum class Route : uint8_t { kOurs, kAten };

// C[batch] = A[batch] (m x k) @ B[batch] (k x n): mm, addmm (batch 1) and bmm.
struct MatmulShape {
  int64_t batch, m, n, k, element_size;
};

// A reduction or selection along one dimension: `rows` independent rows of `length` elements.
struct RowShape {
  int64_t rows, length, element_size;
  bool floating = false;  // a floating-point type
};

Route route_matmul(const MatmulShape& shape);
Route route_topk(const RowShape& shape, int64_t k);
Route route_softmax(const RowShape& shape);          // _softmax and _log_softmax
Route route_index_reduction(const RowShape& shape);  // argmax, max.dim, min.dim
Route route_amax(const RowShape& shape);
Route route_cat();
// add, sub, mul, div (true division), maximum, minimum, where, remainder, exp, rsqrt, gelu (none)
Route route_elementwise(int64_t output_elements);
Route route_tanh();  // tanh and gelu(approximate="tanh")

}  // namespace triton_jit::ops
