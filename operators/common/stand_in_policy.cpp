// The rules, each with the measurement it rests on (H200, torch 2.11, Triton 3.6; ratios are our
// GPU time over ATen's for the same call, CUDA graphs of 20 calls). A class that was not measured
// keeps ours where every neighbouring class measured ours faster, and goes to ATen otherwise.
#include "common/stand_in_policy.h"

namespace triton_jit::ops {
namespace {
constexpr int64_t kLongRow = 32768;
}

Route route_matmul(const MatmulShape& s) {
  // cuBLAS is faster at nearly every LLM shape with nn.Linear's weight layout (mm 1.09-1.78x, M = 1
  // to 8192 against qkv, o, gate_up and down; bmm of attention scores at 512 and 2048 tokens
  // 1.29x and 1.72x). Ours wins two classes: products of at most 128 in every dimension (bmm
  // 32x128x128x128 0.92x, 4x32x64x64 0.90x) and skinny products against a vocabulary-wide output
  // (lm_head 4096x128256 at M = 8 to 64: 0.92-0.97x).
  if (s.m <= 128 && s.n <= 128 && s.k <= 128) return Route::kOurs;
  if (s.batch == 1 && s.m <= 64 && s.n >= 65536) return Route::kOurs;
  return Route::kAten;
}

Route route_topk(const RowShape& s, int64_t k) {
  // Ours selects by k block-wide reductions where ATen radix-selects: one float32 row of the
  // vocabulary at k = 50 is 0.95x; bfloat16 rows 1.37x, 16 rows 1.33x, 4096 rows 2.8x.
  if (s.rows == 1 && s.element_size == 4 && k <= 50) return Route::kOurs;
  return Route::kAten;
}

Route route_softmax(const RowShape& s) {
  // One program per row: few long rows leave the GPU idle (a 128256-wide float32 row at 1 and 16
  // rows 1.64x, at 256 rows 1.10x), many rows win (4096 rows 0.76x; rows up to 8192 wide 0.26-0.39x).
  if (s.length > kLongRow && s.rows < 4096) return Route::kAten;
  return Route::kOurs;
}

Route route_index_reduction(const RowShape& s) {
  // Rows of the vocabulary: 1 and 16 rows 0.30x (ours splits a row across programs), 256 and 4096
  // rows 1.56x and 1.18x; rows up to 8192 wide 0.57-1.00x.
  if (s.length > kLongRow && s.rows > 16) return Route::kAten;
  return Route::kOurs;
}

Route route_amax(const RowShape& s) {
  // As argmax over long rows (0.60x at 1 and 16 rows, 1.91x and 1.32x at 256 and 4096), and
  // compute-bound on its NaN checks at 8192x8192 (1.38x); 1024x4096 0.94x.
  if (s.length > kLongRow && s.rows > 16) return Route::kAten;
  if (s.rows * s.length >= (int64_t{1} << 26)) return Route::kAten;
  return Route::kOurs;
}

Route route_cat() {
  // 1.07x, 1.04x and 1.10x at 1k, 1M and 67M elements: ATen's copy kernels are as fast or faster.
  return Route::kAten;
}

Route route_elementwise(int64_t output_elements) {
  // Bandwidth-bound from 1M elements on, where ATen's TensorIterator kernels match or beat ours
  // (bfloat16, 1M and 67M elements): add 1.02x and 1.01x, sub 1.02x and 1.01x, mul 0.97x and
  // 1.01x, div 0.95x and 1.01x, maximum 0.94x and 1.02x, minimum 0.96x and 1.03x, where 1.16x and
  // 1.01x, remainder 1.16x and 1.11x, exp 1.06x and 1.00x, rsqrt 0.98x and 1.01x, gelu 1.07x and
  // 1.03x; a decoder block of 2048 tokens measured 1.004x ATen's with these ours. Below 1M
  // elements, where the launch decides, ours is 0.72-0.98x (remainder 0.94x at 1k).
  return output_elements >= (int64_t{1} << 20) ? Route::kAten : Route::kOurs;
}

Route route_tanh() {
  // tanh and gelu's tanh form: 1.25x at 1k elements, 1.35-1.38x at 1M, 0.98-1.04x at 67M.
  return Route::kAten;
}

}  // namespace triton_jit::ops
