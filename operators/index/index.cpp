// embedding, index_select, gather, cat and topk: ATen's checks and shapes, then index.py / topk.py.
#include <ATen/WrapDimUtils.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/empty.h>

#include <bit>
#include <cstdint>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"
#include "index/topk_row_bound.h"

namespace triton_jit::ops {
namespace {

void check_same_device(const char* op, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.device() == b.device(), op,
              ": expected all tensors to be on the same device, but found at least two "
              "devices, ",
              a.device(), " and ", b.device(), "!");
  TORCH_CHECK(a.is_cuda(), op, ": expected CUDA tensors, got ", a.device());
}

bool is_index_type(at::ScalarType t) { return t == at::kLong || t == at::kInt; }

// out (M, L, K) = src (M, N, K) rows picked by idx (L values).
void run_index_rows(const at::Tensor& src, const at::Tensor& idx, const at::Tensor& out, int64_t m, int64_t n,
                    int64_t k) {
  static const TritonJITFunction& f = kernel("index.py", "index_rows_kernel");
  const int64_t l = idx.numel();
  const int64_t rows = m * l;
  if (rows == 0 || k == 0) return;
  const int64_t block_k = std::min<int64_t>(next_power_of_2(k), 1024);
  const int64_t block_r = std::clamp<int64_t>(2048 / block_k, 1, 64);
  Slots<12> s;
  s.add_all(src, idx.contiguous(), out, rows, l, n, k, block_r, block_k,
            src.numel() > kMaxInt32 || out.numel() > kMaxInt32);
  torch_adapter::DeviceGuard guard(out);
  s.launch(
      f, launch_config(out, static_cast<unsigned>(cdiv(rows, block_r)), static_cast<unsigned>(cdiv(k, block_k)), 1, 4));
}

}  // namespace

at::Tensor embedding(const at::Tensor& weight, const at::Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                     bool sparse) {
  (void)padding_idx;  // the forward is the same; padding only changes the gradient
  (void)scale_grad_by_freq;
  (void)sparse;
  TORCH_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  TORCH_CHECK(
      is_index_type(indices.scalar_type()),
      "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got ",
      indices.toString(), " instead (while checking arguments for embedding)");
  c10::SymDimVector shape(indices.sym_sizes().begin(), indices.sym_sizes().end());
  shape.push_back(weight.sym_size(1));
  at::Tensor out = at::empty_symint(shape, weight.options());
  if (out.is_meta() || out.numel() == 0) return out;
  check_same_device("embedding", weight, indices);
  run_index_rows(weight.contiguous(), indices, out, 1, weight.size(0), weight.size(1));
  return out;
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(is_index_type(index.scalar_type()), "index_select(): Expected dtype int32 or int64 for index");
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  c10::SymDimVector shape(self.sym_sizes().begin(), self.sym_sizes().end());
  if (self.dim() > 0) {
    shape[wrapped] = index.sym_numel();
  } else {
    TORCH_CHECK_INDEX(index.sym_numel() == 1, "index_select(): Index to scalar can have only 1 value, got ",
                      to_text(index.sym_numel()), " value(s)");
  }
  at::Tensor out = at::empty_symint(shape, self.options());
  if (out.is_meta() || out.numel() == 0) return out;
  check_same_device("index_select", self, index);
  int64_t m = 1, n = 1, k = 1;
  for (int64_t d = 0; d < self.dim(); ++d) (d < wrapped ? m : d == wrapped ? n : k) *= self.size(d);
  run_index_rows(self.contiguous(), index.reshape({-1}), out, m, n, k);
  return out;
}

at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad) {
  (void)sparse_grad;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(is_index_type(index.scalar_type()), "gather(): Expected dtype int32/int64 for index");
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  TORCH_CHECK(std::max<int64_t>(index.dim(), 1) == ndim,
              "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < self.dim() && index.dim() == self.dim(); ++d) {
    if (d == wrapped) continue;
    TORCH_CHECK(index.sym_size(d) <= self.sym_size(d), "Size does not match at dimension ", d, " expected index ",
                to_text(index.sym_sizes()), " to be no larger than self ", to_text(self.sym_sizes()),
                " apart from dimension ", wrapped);
  }
  at::Tensor out = at::empty_symint(index.sym_sizes(), self.options());
  if (out.is_meta() || out.numel() == 0) return out;
  check_same_device("gather", self, index);
  TORCH_CHECK(self.dim() <= 4, "triton_jit::gather: tensors of more than 4 dims are not supported (got ", self.dim(),
              ")");
  static const TritonJITFunction& f = kernel("index.py", "gather_kernel");
  std::array<int64_t, 4> sizes{1, 1, 1, 1}, ss{0, 0, 0, 0}, is{0, 0, 0, 0};
  const int64_t offset = 4 - ndim;
  int64_t last_self = 0, last_index = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    sizes[offset + d] = index.size(d);
    ss[offset + d] = self.stride(d);
    is[offset + d] = index.stride(d);
    last_self += (self.size(d) - 1) * self.stride(d);
    last_index += (index.size(d) - 1) * index.stride(d);
  }
  const int64_t dim_size = self.dim() == 0 ? 1 : self.size(wrapped);
  constexpr int64_t kBlock = 1024;
  Slots<24> s;
  s.add_all(self, index, out, out.numel(), sizes[1], sizes[2], sizes[3], ss[0], ss[1], ss[2], ss[3], is[0], is[1],
            is[2], is[3], dim_size, offset + (self.dim() == 0 ? 0 : wrapped), kBlock,
            out.numel() > kMaxInt32 || last_self > kMaxInt32 || last_index > kMaxInt32);
  torch_adapter::DeviceGuard guard(out);
  s.launch(f, launch_config(out, static_cast<unsigned>(cdiv(out.numel(), kBlock))));
  return out;
}

at::Tensor cat(const at::ITensorListRef& tensor_list, int64_t dim) {
  // Checked and read from a plain list: an error must not unwind through the list's iteration.
  std::vector<at::Tensor> tensors;
  tensors.reserve(tensor_list.size());
  for (const at::Tensor& t : tensor_list) tensors.push_back(t);
  TORCH_CHECK_VALUE(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  // ATen skips 1-D empty tensors (a legacy rule); the others fix the shape.
  auto skipped = [](const at::Tensor& t) { return t.dim() == 1 && t.sym_size(0) == 0; };
  const at::Tensor* shaped = nullptr;
  for (const at::Tensor& t : tensors) {
    if (!skipped(t)) {
      shaped = &t;
      break;
    }
  }
  const at::ScalarType dtype = at::native::result_type(tensor_list);
  if (shaped == nullptr) return at::empty({0}, tensors.front().options().dtype(dtype));
  TORCH_CHECK(shaped->dim() > 0, "zero-dimensional tensor (at position 0) cannot be concatenated");
  const int64_t wrapped = at::maybe_wrap_dim(dim, shaped->dim());
  c10::SymDimVector shape(shaped->sym_sizes().begin(), shaped->sym_sizes().end());
  c10::SymInt total = 0;
  for (std::size_t position = 0; position < tensors.size(); ++position) {
    const at::Tensor& t = tensors[position];
    if (skipped(t)) continue;
    TORCH_CHECK(t.dim() == shaped->dim(), "Tensors must have same number of dimensions: got ", shaped->dim(), " and ",
                t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == wrapped) continue;
      TORCH_CHECK(t.sym_size(d) == shape[d], "Sizes of tensors must match except in dimension ", wrapped,
                  ". Expected size ", to_text(shape[d]), " but got size ", to_text(t.sym_size(d)),
                  " for tensor number ", position, " in the list.");
    }
    total = total + t.sym_size(wrapped);
  }
  shape[wrapped] = total;
  at::Tensor out = at::empty_symint(shape, shaped->options().dtype(dtype));
  if (out.is_meta() || out.numel() == 0) return out;
  for (const at::Tensor& t : tensors) {
    if (!skipped(t)) check_same_device("cat", out, t);
  }
  // One launch copies up to four inputs, each into its columns of the output viewed as
  // (outer, columns of all inputs).
  static const TritonJITFunction& f = kernel("index.py", "cat_kernel");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < out.dim(); ++d) {
    if (d < wrapped) outer *= out.size(d);
    if (d > wrapped) inner *= out.size(d);
  }
  const int64_t dst_row = out.size(wrapped) * inner;
  std::vector<at::Tensor> sources;
  std::vector<int64_t> columns, offsets;
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    if (skipped(t)) continue;
    const int64_t cols = t.size(wrapped) * inner;
    if (cols != 0) {
      sources.push_back(t.contiguous());
      columns.push_back(cols);
      offsets.push_back(offset);
    }
    offset += cols;
  }
  torch_adapter::DeviceGuard guard(out);
  for (std::size_t first = 0; first < sources.size() && outer != 0; first += 4) {
    const std::size_t count = std::min<std::size_t>(4, sources.size() - first);
    int64_t widest = 0;
    for (std::size_t i = 0; i < count; ++i) widest = std::max(widest, columns[first + i]);
    const int64_t block_c = std::min<int64_t>(next_power_of_2(widest), 1024);
    const int64_t block_r = std::clamp<int64_t>(4096 / block_c, 1, 64);
    Slots<24> s;
    s.add(out);
    for (std::size_t i = 0; i < 4; ++i) s.add(i < count ? sources[first + i] : at::Tensor());
    for (std::size_t i = 0; i < 4; ++i) s.add(i < count ? columns[first + i] : int64_t{0});
    for (std::size_t i = 0; i < 4; ++i) s.add(i < count ? offsets[first + i] : int64_t{0});
    s.add_all(outer, dst_row, static_cast<int64_t>(count), block_r, block_c, out.numel() > kMaxInt32);
    s.launch(f, launch_config(out, static_cast<unsigned>(cdiv(outer, block_r)),
                              static_cast<unsigned>(cdiv(widest, block_c)), static_cast<unsigned>(count)));
  }
  return out;
}

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
  check_same_device("topk", self, self);
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
