// embedding, index_select, gather and cat: ATen's checks and shapes, then index.py.
#include <ATen/WrapDimUtils.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/empty.h>

#include <cstdint>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

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

}  // namespace triton_jit::ops
