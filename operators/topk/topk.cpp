// topk: ATen's checks and shapes, then topk.py's selections (a radix select over chunks for types
// of 32 bits and less, one bound for the whole row for a large k, k rounds of selection for
// 64-bit types), each ending in one sort of the candidates.
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/empty.h>

#include <bit>
#include <cstdint>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"
#include "topk/topk_row_bound.h"

namespace triton_jit::ops {
namespace {

// 5-bit digits (32 bins, one a lane) took 0.77-0.86x the time of 8-bit ones from 1 to 4096 rows
// of 128256, k = 50 and 1024 (sweep_kernels.py --topk-radix-bits 4,5,8, H200, 2026-12-03); 4-bit
// ones were up to 8% slower than 5-bit ones (faster only within noise).
constexpr int64_t kTopkRadixBits = 5;
// Groups of 16 in a chunk of 2048: for k up to 64 the k-th largest of 128 group maxima leaves
// about 1.2-1.4k keys at or above it on random data, inside 2 * k_pad slots (a larger k would fall
// back to the passes nearly always). With it, k = 50 over 1 to 4096 rows of 128256 took 0.28-0.65x
// the time of the passes alone (0.24-0.45x ATen's, float32; sweep_kernels.py, H200, 2026-12-03).
constexpr int64_t kTopkGroups = 128;

// Types of 32 bits and less (topk.py's radix select): rounds of chunk-wise selection in registers
// shrink a row to at most `final_max` candidates, which one sort orders. Chunks of 2048 on 4 warps
// measured fastest from 1 to 4096 rows of 128256 (docs/performance.md); a large k takes chunks of
// four times its power of two, so that each round shrinks the row. For k up to 64 a chunk first
// tries the bound of its group maxima (kTopkGroups groups, 2 * k_pad slots; topk.py), which skips
// the digit passes whenever the keys at or above it fit.
// With `overflowed` (run_topk_row_bound's candidate counts), every launch does only the rows whose
// count passed `slots_given`, and the others return at once.
void run_topk_radix(const at::Tensor& rows, int64_t m, int64_t n, int64_t k, bool largest, const at::Tensor& values,
                    const at::Tensor& indices, const at::Tensor& overflowed = at::Tensor(), int64_t slots_given = 0) {
  static const TritonJITFunction& select = kernel("topk.py", "topk_radix_kernel");
  static const TritonJITFunction& sort = kernel("topk.py", "topk_sort_kernel");
  const int64_t k_pad = next_power_of_2(k);
  const int64_t chunk = std::max<int64_t>(2048, 4 * k_pad);
  const int64_t final_max = std::max<int64_t>(2048, 2 * k_pad);
  const bool bounded = 2 * k_pad <= kTopkGroups;
  const int64_t groups = bounded ? kTopkGroups : 0;
  const int64_t slots = bounded ? 2 * k_pad : k;
  at::Tensor keys = rows, positions;
  bool partial = false;
  int64_t length = n;
  while (length > final_max) {
    const int64_t chunks = cdiv(length, chunk);
    const at::Tensor next_keys = at::empty({m, chunks * slots}, rows.options().dtype(at::kInt));
    const at::Tensor next_positions = at::empty({m, chunks * slots}, rows.options().dtype(at::kInt));
    Slots<16> s;
    s.add_all(keys, partial ? positions : at::Tensor(), next_keys, next_positions, length, k, largest, partial, chunk,
              k_pad, kTopkRadixBits, groups, bounded ? slots : 0, overflowed, slots_given);
    s.launch(select,
             launch_config(rows, static_cast<unsigned>(m), static_cast<unsigned>(chunks), 1, chunk >= 4096 ? 8 : 4));
    keys = next_keys;
    positions = next_positions;
    partial = true;
    length = chunks * slots;
  }
  const int64_t block = next_power_of_2(std::max(length, k));
  Slots<11> s;
  s.add_all(keys, partial ? positions : at::Tensor(), values, indices, length, k, largest, partial, block, overflowed,
            slots_given);
  s.launch(sort, launch_config(rows, static_cast<unsigned>(m), 1, 1, block >= 4096 ? 8 : 4));
}

// Bits of a position below n, with 2**bits - 1 itself past the row: topk_rows_sort_kernel reads
// an empty lane as that position.
int64_t position_bits(int64_t n) { return std::bit_width(static_cast<uint64_t>(n)); }

// The low bits of a 16-bit float's 32-bit key that carry nothing (topk_rows_sort_kernel sorts
// without them); 0 for other types, which keep 64-bit words.
int64_t sort_key_shift(at::ScalarType type) {
  if (type == at::kBFloat16) return 16;
  if (type == at::kHalf) return 13;
  return 0;
}

bool topk_row_bound_serves(const at::Tensor& self, int64_t n, int64_t k) {
  return TopkRowBound::serves(at::isFloatingType(self.scalar_type()), self.element_size(), n, k);
}

// One bound for the whole row (topk.py): the top 20 bits of the k-th largest of the row's group
// maxima, the keys at or above it gathered into 2 x k's power of two slots (at least 2048), one
// sort. Rows whose candidates overflow (mostly ties at the bound) are done by the rounds of
// run_topk_radix, which skip every other row. On random rows of 128256 the candidates are about
// 1.1k for k = 1024.
void run_topk_row_bound(const at::Tensor& rows, int64_t m, int64_t n, int64_t k, bool largest, const at::Tensor& values,
                        const at::Tensor& indices) {
  static const TritonJITFunction& group_max = kernel("topk.py", "topk_group_max_kernel");
  static const TritonJITFunction& row_bound = kernel("topk.py", "topk_row_bound_kernel");
  static const TritonJITFunction& gather = kernel("topk.py", "topk_rows_gather_kernel");
  static const TritonJITFunction& sort = kernel("topk.py", "topk_rows_sort_kernel");
  // The gather in chunks of 1024 on 4 warps took 2.3/6.5/80.2 us at 1/16/256 rows of 128256 to
  // 3.5/8.4/119.8 in chunks of 4096 on 8; the maxima of 256 groups a program on 8 warps 2.1/3.2/31.2
  // to 3.9/4.5/52.3 on 4 (bfloat16, H200, measurements/gpu-logs/topk-narrow).
  constexpr int64_t kGroupBlock = 256, kGroupWarps = 8, kGatherChunk = 1024, kGatherWarps = 4;
  int64_t group = TopkRowBound::kGroup;
  while (cdiv(n, group) > TopkRowBound::kMaxima) group *= 2;
  const int64_t maxima_count = cdiv(n, group);
  const int64_t slots = std::max<int64_t>(2048, 2 * next_power_of_2(k));
  const auto ints = rows.options().dtype(at::kInt);
  const at::Tensor maxima = at::empty({m, maxima_count}, ints);
  const at::Tensor bound = at::empty({m}, ints), count = at::empty({m}, ints);
  const at::Tensor keys = at::empty({m, slots}, ints), positions = at::empty({m, slots}, ints);
  const auto rows_u = static_cast<unsigned>(m);
  {
    Slots<8> s;
    s.add_all(rows, maxima, n, maxima_count, largest, group, kGroupBlock);
    s.launch(group_max,
             launch_config(rows, rows_u, static_cast<unsigned>(cdiv(maxima_count, kGroupBlock)), 1, kGroupWarps));
  }
  {
    Slots<8> s;
    s.add_all(maxima, bound, count, maxima_count, k, next_power_of_2(maxima_count));
    s.launch(row_bound, launch_config(rows, rows_u, 1, 1, 16));
  }
  {
    Slots<12> s;
    s.add_all(rows, bound, count, keys, positions, n, slots, largest, kGatherChunk);
    s.launch(gather, launch_config(rows, rows_u, static_cast<unsigned>(cdiv(n, kGatherChunk)), 1, kGatherWarps));
  }
  {
    Slots<12> s;
    s.add_all(keys, positions, count, bound, values, indices, slots, k, position_bits(n), largest,
              sort_key_shift(rows.scalar_type()), slots);
    // 2048 64-bit words sorted on 16 warps took 28.7 us to 38.1 on 4 and 41.7 on 8 (H200, one row);
    // the 32-bit words of a 16-bit row's candidates 16.4 us on 16.
    s.launch(sort, launch_config(rows, rows_u, 1, 1, 16));
  }
  run_topk_radix(rows, m, n, k, largest, values, indices, count, slots);
}

// 64-bit types: k rounds of selection per chunk of 4096 held in registers (topk.py's topk_kernel).
void run_topk_selection(const at::Tensor& rows, int64_t m, int64_t n, int64_t kk, bool largest,
                        const at::Tensor& out_values, const at::Tensor& out_indices) {
  static const TritonJITFunction& f = kernel("topk.py", "topk_kernel");
  constexpr int64_t kChunk = 4096;
  auto launch = [&](const at::Tensor& x, const at::Tensor& idx_in, const at::Tensor& v, const at::Tensor& i,
                    int64_t len, int64_t chunk, int64_t chunks, bool partial) {
    const int64_t block = next_power_of_2(chunk);
    Slots<12> s;
    s.add_all(x, partial ? idx_in : at::Tensor(), v, i, len, chunk, kk, largest, partial, block);
    s.launch(f, launch_config(rows, static_cast<unsigned>(m), static_cast<unsigned>(chunks), 1, block >= 4096 ? 8 : 4));
  };
  if (n <= kChunk) {
    launch(rows, at::Tensor(), out_values, out_indices, n, n, 1, false);
    return;
  }
  // First each chunk's k best, then the k best of those (chunks * k candidates, in one chunk).
  int64_t chunk = kChunk;
  while (cdiv(n, chunk) * kk > kChunk && chunk < n) chunk *= 2;
  TORCH_CHECK(cdiv(n, chunk) * kk <= 4 * kChunk, "triton_jit::topk: k = ", kk, " is too large for rows of ", n);
  const int64_t chunks = cdiv(n, chunk);
  TORCH_CHECK(chunk <= 16384, "triton_jit::topk: k = ", kk, " is too large for rows of ", n);
  const at::Tensor cv = at::empty({m, chunks * kk}, rows.options());
  const at::Tensor ci = at::empty({m, chunks * kk}, rows.options().dtype(at::kLong));
  launch(rows, at::Tensor(), cv, ci, n, chunk, chunks, false);
  launch(cv, ci, out_values, out_indices, chunks * kk, chunks * kk, 1, true);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> topk_symint(const at::Tensor& self, c10::SymInt k, int64_t dim, bool largest,
                                               bool sorted) {
  (void)sorted;  // results always come out sorted, which sorted=False allows
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  const c10::SymInt size = self.dim() == 0 ? c10::SymInt(1) : self.sym_size(wrapped);
  TORCH_CHECK(k >= 0 && k <= size, "selected index k out of range");
  c10::SymDimVector shape(self.sym_sizes().begin(), self.sym_sizes().end());
  if (self.dim() > 0) shape[wrapped] = k;
  at::Tensor values = at::empty_symint(shape, self.options());
  at::Tensor indices = at::empty_symint(shape, self.options().dtype(at::kLong));
  if (values.is_meta() || values.numel() == 0) return {values, indices};
  TORCH_CHECK(self.is_cuda(), "topk: expected CUDA tensors, got ", self.device());
  const int64_t kk = k.expect_int();
  TORCH_CHECK(kk <= 1024, "triton_jit::topk: k = ", kk, " is more than the 1024 this kernel selects");
  // Rows along `dim`, contiguous.
  const at::Tensor rows = self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(wrapped, -1).contiguous();
  const int64_t n = self.dim() == 0 ? 1 : self.size(wrapped);
  const int64_t m = rows.numel() / n;
  torch_adapter::DeviceGuard guard(self);
  // Along the last dimension the results are written in place; another dimension takes a copy.
  const bool along_last = self.dim() == 0 || wrapped == self.dim() - 1;
  const at::Tensor out_values = along_last ? values.view({m, kk}) : at::empty({m, kk}, self.options());
  const at::Tensor out_indices =
      along_last ? indices.view({m, kk}) : at::empty({m, kk}, self.options().dtype(at::kLong));
  if (topk_row_bound_serves(self, n, kk)) {
    run_topk_row_bound(rows, m, n, kk, largest, out_values, out_indices);
  } else if (self.element_size() <= 4 && n <= kMaxInt32) {  // candidates keep int32 positions
    run_topk_radix(rows, m, n, kk, largest, out_values, out_indices);
  } else {
    run_topk_selection(rows, m, n, kk, largest, out_values, out_indices);
  }
  if (!along_last) {
    std::vector<int64_t> moved(self.sizes().begin(), self.sizes().end());
    moved.erase(moved.begin() + wrapped);
    moved.push_back(kk);
    values.copy_(out_values.view(moved).movedim(-1, wrapped));
    indices.copy_(out_indices.view(moved).movedim(-1, wrapped));
  }
  return {values, indices};
}

}  // namespace triton_jit::ops
