// The rules, each with the measurement it rests on (H200, torch 2.11, Triton 3.6; ratios are our
// GPU time over ATen's for the same call, CUDA graphs of 20 calls). A class that was not measured
// keeps ours where every neighbouring class measured ours faster, and goes to ATen otherwise.
#include "common/stand_in_policy.h"

#include "topk/topk_row_bound.h"

namespace triton_jit::ops {
namespace {
constexpr int64_t kLongRow = 32768;
}

Route route_matmul(const MatmulShape& s) {
  // 16-bit products (matmul_skinny.py to 64 rows, the persistent TMA kernel above) against cuBLAS
  // with nn.Linear's weight layout, weights rotated past L2 (sweep_kernels.py, 2026-12-02): within
  // 5% of cuBLAS at nearly every shape, faster in the classes below, which hold at every measured M:
  // a vocabulary-wide lm_head at decode (0.90-0.96x) and from 512 rows (0.96x, 0.99x), down's
  // K = 14336 at up to 16 rows (0.95-0.98x), and 8192-row prefills of outputs up to 8192 wide (qkv
  // 0.99x, o 0.94x, down 0.99x). Where the two are within noise of each other (qkv and o at decode,
  // 1.00-1.05x; gate_up 0.93-1.01x) or cuBLAS is faster (64 rows of o, 1.10x even split in K; 128
  // to 512 rows, 0.98-1.14x with matmul_wave.py's one-wave tiles, 2026-12-04: cuBLAS's kernels there
  // share loads across a cluster by TMA multicast and feed two warp groups from a producer, neither
  // of which Triton 3.6 can express on sm_90; the classes under 1.0x in one run were over it in
  // another), ATen runs. Batched products go to ATen:
  // attention's scores and values measured 0.94-1.28x through the dispatcher (2026-12-03), at or
  // above parity everywhere but values of head dim 64 at 2048 tokens; 32- and 64-bit types
  // (1.09-1.78x) go to ATen too.
  if (s.batch != 1 || s.element_size != 2) return Route::kAten;
  if (s.n >= 65536 && (s.m <= 64 || s.m >= 512)) return Route::kOurs;
  if (s.m <= 16 && s.k >= 8192) return Route::kOurs;
  // Split in K (matmul.cpp, split_k_slices): down at 32 and 64 rows 0.95x and 0.93x (was 1.10x and
  // 1.19x unsplit); o at 64 rows still 1.11x, so a K of 4096 stays with ATen.
  if (s.m <= 64 && s.k >= 8192 && s.n <= 4096) return Route::kOurs;
  if (s.m >= 8192 && s.n <= 8192) return Route::kOurs;
  return Route::kAten;
}

Route route_topk(const RowShape& s, int64_t k) {
  // Radix select in registers for types of 32 bits and less, 5-bit digits, each chunk first trying
  // the bound of its group maxima (k <= 64): over rows of 128256 at k = 50, 0.24x ATen's time at
  // 1 row, 0.29x at 16, 0.40x at 256 and 0.45x at 4096 (float32), 0.43-0.86x bfloat16, 0.53-0.66x
  // over rows of few distinct values (sweep_kernels.py, H200, 2026-12-03). Only rows of 128256
  // were measured beyond 16 rows, so many shorter rows keep ATen. A larger k over rows within
  // TopkRowBound's limits takes one bound for the whole row (topk.cpp's run_topk_row_bound): k =
  // 1024 over 1, 16 and 256 rows of 128256 0.63x, 0.58x and 0.44x ATen's time in float32, and
  // 0.69x, 0.63x and 0.54x in bfloat16, whose candidates sort as 32-bit words (bench_llm.py, H200,
  // 2026-12-04). Up to 256 rows is ours (float16 takes the same kernels on both sides as
  // bfloat16); more rows were not measured and stay with ATen.
  const bool radix = s.element_size <= 4 && k <= 64;
  if (radix && (s.rows <= 16 || s.length >= 65536)) return Route::kOurs;
  const bool row_bound = k <= 1024 && TopkRowBound::serves(s.floating, s.element_size, s.length, k);
  if (row_bound && s.rows <= 256) return Route::kOurs;
  return Route::kAten;
}

Route route_softmax(const RowShape& s) {
  // Rows of 128256: cut into chunks, 0.19x ATen's time at 1 row, 0.25x at 16, 0.81x at 256; one
  // program per row 0.76x at 4096 rows; rows up to 8192 wide 0.26-0.39x.
  (void)s;
  return Route::kOurs;
}

Route route_index_reduction(const RowShape& s) {
  // Rows of the vocabulary, 2048 of a row per step: 0.17x ATen's time at 1 row, 0.20x at 16, 0.85x
  // at 256, 0.95x at 4096 (two rows a program there); rows up to 8192 wide 0.57-1.00x.
  (void)s;
  return Route::kOurs;
}

Route route_amax(const RowShape& s) {
  // Rows of the vocabulary: 0.27x at 1 row, 0.30x at 16, 0.88x at 256, 1.00x at 4096 (ATen's there);
  // compute-bound on its NaN checks at 8192x8192 (1.38x); 1024x4096 0.94x.
  if (s.length > kLongRow && s.rows >= 2048) return Route::kAten;
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
