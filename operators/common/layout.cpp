#include "common/layout.h"

#include <ATen/ExpandUtils.h>
#include <ATen/WrapDimUtilsMulti.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <numeric>

namespace triton_jit::ops {
namespace {

// The operand whose device and options a result takes: the first that is not a CPU scalar
// (TensorIterator lets a 0-dim CPU tensor join CUDA operands as a scalar).
const at::Tensor& leading(Operands operands) {
  for (const at::Tensor* t : operands) {
    if (!(t->dim() == 0 && t->is_cpu())) return *t;
  }
  return **operands.begin();
}

}  // namespace

c10::SymDimVector broadcast_shape(Operands operands) {
  auto it = operands.begin();
  c10::SymDimVector shape((*it)->sym_sizes().begin(), (*it)->sym_sizes().end());
  for (++it; it != operands.end(); ++it) shape = at::infer_size_symdimvector(shape, (*it)->sym_sizes());
  return shape;
}

at::Tensor empty_pointwise(Operands operands, at::ScalarType dtype) {
  const at::TensorOptions options = leading(operands).options().dtype(dtype);
  const c10::SymDimVector shape = broadcast_shape(operands);
  const int64_t ndim = static_cast<int64_t>(shape.size());
  if (ndim == 0) return at::empty_symint(shape, options);

  // TensorIterator's fast setups: every operand of the result's shape, all contiguous, or all
  // dense with one set of strides.
  bool same_shape = true, contiguous = true, dense_alike = true;
  const at::Tensor& first = leading(operands);
  for (const at::Tensor* t : operands) {
    same_shape = same_shape && t->sym_sizes().equals(shape);
    if (!same_shape) break;
    contiguous = contiguous && t->is_contiguous();
    dense_alike = dense_alike && t->is_non_overlapping_and_dense() && t->sym_strides().equals(first.sym_strides());
  }
  if (same_shape && contiguous) return at::empty_symint(shape, options);
  if (same_shape && dense_alike) return at::empty_strided_symint(shape, first.sym_strides(), options);

  // Otherwise TensorIterator's reorder_dimensions: the fastest-moving dims first, ordered by the
  // operands' strides (broadcast dims ignored), ties to the smaller size.
  auto stride_of = [&](const at::Tensor& t, int64_t d) -> c10::SymInt {
    const int64_t td = d - (ndim - t.dim());
    if (td < 0 || (t.sym_size(td) == 1 && shape[d] != 1)) return c10::SymInt(0);
    return t.sym_stride(td);
  };
  auto should_swap = [&](int64_t dim0, int64_t dim1) {
    for (const at::Tensor* t : operands) {
      const c10::SymInt s0 = stride_of(*t, dim0);
      const c10::SymInt s1 = stride_of(*t, dim1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[dim0] > shape[dim1]) return 1;
    }
    return 0;
  };
  std::vector<int64_t> perm(ndim);
  for (int64_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  for (int64_t i = 1; i < ndim; ++i) {
    int64_t dim1 = i;
    for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
      const int comparison = should_swap(perm[dim0], perm[dim1]);
      if (comparison > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  c10::SymDimVector strides(ndim);
  c10::SymInt step = 1;
  for (int64_t k = 0; k < ndim; ++k) {
    strides[perm[k]] = step;
    step = step * shape[perm[k]];
  }
  return at::empty_strided_symint(shape, strides, options);
}

std::optional<PointwiseView> pointwise_view(const at::Tensor& out, Operands inputs) {
  PointwiseView v;
  v.numel = out.numel();
  const int64_t ndim = out.dim();
  std::array<int64_t, 64> order{};
  std::iota(order.begin(), order.begin() + ndim, 0);
  std::stable_sort(order.begin(), order.begin() + ndim,
                   [&](int64_t a, int64_t b) { return out.stride(a) > out.stride(b); });
  // Dims of the walk, outermost first, merged as they come.
  std::array<int64_t, 64> sizes{};
  std::array<std::array<int64_t, 64>, 3> strides{};
  int rank = 0;
  for (int64_t k = 0; k < ndim; ++k) {
    const int64_t d = order[k];
    const int64_t size = out.size(d);
    if (size == 1) continue;
    std::array<int64_t, 3> s{};
    std::size_t j = 0;
    for (const at::Tensor* t : inputs) {
      const int64_t td = d - (ndim - t->dim());
      s[j++] = (td < 0 || t->size(td) == 1) ? 0 : t->stride(td);
    }
    bool merges = rank > 0;
    for (std::size_t i = 0; i < inputs.size() && merges; ++i) merges = strides[i][rank - 1] == s[i] * size;
    if (merges) {
      sizes[rank - 1] *= size;
      for (std::size_t i = 0; i < inputs.size(); ++i) strides[i][rank - 1] = s[i];
    } else {
      sizes[rank] = size;
      for (std::size_t i = 0; i < inputs.size(); ++i) strides[i][rank] = s[i];
      ++rank;
    }
  }
  if (rank > 4) return std::nullopt;
  const int offset = 4 - rank;
  for (int r = 0; r < rank; ++r) v.sizes[offset + r] = sizes[r];
  v.index64 = v.numel > kMaxInt32;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    int64_t last = 0;
    for (int r = 0; r < rank; ++r) {
      v.strides[i][offset + r] = strides[i][r];
      last += (sizes[r] - 1) * strides[i][r];
    }
    v.index64 = v.index64 || last > kMaxInt32;
    v.contiguous = v.contiguous && (rank == 0 || (rank == 1 && strides[i][0] == 1));
  }
  return v;
}

uint64_t reduction_mask(const at::Tensor& self, at::OptionalIntArrayRef dim, const char* op) {
  const int64_t ndim = self.dim();
  if (!dim.has_value() || dim->empty()) return ndim == 0 ? 1 : (ndim >= 64 ? ~uint64_t{0} : (uint64_t{1} << ndim) - 1);
  const std::bitset<64> bits = at::dim_list_to_bitset(*dim, ndim);
  (void)op;
  return ndim == 0 ? 1 : bits.to_ullong();
}

c10::SymDimVector reduced_shape(const at::Tensor& self, uint64_t mask, bool keepdim) {
  c10::SymDimVector shape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if ((mask >> d) & 1) {
      if (keepdim) shape.emplace_back(1);
    } else {
      shape.push_back(self.sym_size(d));
    }
  }
  return shape;
}

ReductionView reduction_view(const at::Tensor& self, uint64_t mask) {
  ReductionView v;
  const int64_t ndim = self.dim();
  if (ndim == 0) {
    v.input = self.reshape({1});
    return v;
  }
  int64_t first = -1, last = -1;
  bool adjacent = true;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!((mask >> d) & 1)) continue;
    if (first < 0) first = d;
    if (last >= 0 && d != last + 1) adjacent = false;
    last = d;
  }
  if (adjacent) {
    v.input = self.contiguous();
    for (int64_t d = 0; d < ndim; ++d) {
      (d < first ? v.m : d <= last ? v.n : v.k) *= self.size(d);
    }
    return v;
  }
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < ndim; ++d) {
    if (!((mask >> d) & 1)) {
      perm.push_back(d);
      v.m *= self.size(d);
    }
  }
  for (int64_t d = 0; d < ndim; ++d) {
    if ((mask >> d) & 1) {
      perm.push_back(d);
      v.n *= self.size(d);
    }
  }
  v.input = self.permute(perm).contiguous();
  return v;
}

std::string to_text(const c10::SymInt& size) {
  if (auto value = size.maybe_as_int()) return std::to_string(*value);
  return size.toSymNodeImplUnowned()->str();
}

std::string to_text(c10::SymIntArrayRef sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) text += (i == 0 ? "" : ", ") + to_text(sizes[i]);
  return text + "]";
}

void check_dtype_supported(bool supported, const char* op, at::ScalarType dtype) {
  TORCH_CHECK_NOT_IMPLEMENTED(supported, "\"", op, "\" not implemented for '", c10::toString(dtype), "'");
}

void check_dtype_supported(bool supported, const char* op, at::ScalarType dtype, const at::Tensor& result) {
  // On Meta tensors (tracing) always: what would fail for real inputs fails early.
  if (result.is_meta() || result.numel() != 0) check_dtype_supported(supported, op, dtype);
}

}  // namespace triton_jit::ops
