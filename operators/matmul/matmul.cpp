// mm, addmm and bmm through one autotuned kernel (matmul.py) that reads any strides in place.
#include <ATen/Context.h>
#include <ATen/ExpandUtils.h>
#include <ATen/ops/empty.h>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

constexpr int64_t kMaxGridY = 65535;

struct GridData {
  int64_t batch;
};

Grid matmul_grid(const LaunchMeta& m, void* data) {
  const auto* g = static_cast<const GridData*>(data);
  return Grid{triton_jit::cdiv(m["M"], m["BLOCK_M"]) * triton_jit::cdiv(m["N"], m["BLOCK_N"]),
              static_cast<unsigned>(g->batch), 1};
}

void check_same_dtypes(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
              c10::toString(a.scalar_type()), " != ", c10::toString(b.scalar_type()));
}

// As ATen, only when there is something to multiply: an empty product is zeros in any dtype.
void check_supported(const char* op, const at::Tensor& a, const at::Tensor& b) {
  const auto t = a.scalar_type();
  if (a.numel() == 0 || b.numel() == 0) return;
  check_dtype_supported(t == at::kHalf || t == at::kBFloat16 || t == at::kFloat || t == at::kDouble, op, t);
}

void check_devices(const char* op, std::initializer_list<const at::Tensor*> tensors) {
  const at::Tensor& first = **tensors.begin();
  for (const at::Tensor* t : tensors) {
    TORCH_CHECK(t->device() == first.device(), op, ": expected all tensors to be on the same device, but found at "
                "least two devices, ", first.device(), " and ", t->device(), "!");
  }
  TORCH_CHECK(first.is_cuda(), op, ": expected CUDA tensors, got ", first.device());
}

// out[b] = alpha * a[b] @ b[b] + beta * bias[b] for 3-D views (batch first); bias may be undefined.
void run_matmul(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, const at::Tensor& bias,
                const c10::Scalar& alpha, const c10::Scalar& beta) {
  static const TritonJITFunction& k = kernel("matmul.py", "matmul_kernel");
  const int64_t batch = a.size(0), m = a.size(1), kk = a.size(2), n = b.size(2);
  if (batch == 0 || m == 0 || n == 0) return;
  if (kk == 0) {  // nothing to multiply: beta * bias, or zeros
    if (bias.defined()) {
      out.copy_(bias).mul_(beta);
    } else {
      out.zero_();
    }
    return;
  }
  const bool wide = a.scalar_type() == at::kDouble;
  const bool tf32 = a.scalar_type() == at::kFloat && at::globalContext().allowTF32CuBLAS();
  const bool has_bias = bias.defined();
  torch::DeviceGuard guard(out);
  for (int64_t offset = 0; offset < batch; offset += kMaxGridY) {
    GridData grid{std::min(kMaxGridY, batch - offset)};
    LaunchConfig config = launch_config(out, 1);
    config.num_warps = 0;  // the config's
    config.grid_fn = &matmul_grid;
    config.grid_data = &grid;
    Slots<32> s;
    s.add_all(a, b, out, has_bias ? bias : at::Tensor(), m, n, kk);
    s.add_all(a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2));
    s.add_all(out.stride(0), out.stride(1), out.stride(2));
    if (has_bias) {
      s.add_all(bias.stride(0), bias.stride(1), bias.stride(2));
    } else {
      s.add_all(int64_t{0}, int64_t{0}, int64_t{0});
    }
    if (wide) {
      s.add_all(fixed<double>(alpha.toDouble()), fixed<double>(beta.toDouble()));
    } else {
      s.add_all(fixed<float>(static_cast<float>(alpha.toDouble())), fixed<float>(static_cast<float>(beta.toDouble())));
    }
    s.add_all(offset, has_bias, std::string_view(tf32 ? "tf32" : "ieee"));
    s.launch(k, config);
  }
}

}  // namespace

at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.dim() == 2, "self must be a matrix");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TORCH_CHECK(self.sym_size(1) == mat2.sym_size(0), "mat1 and mat2 shapes cannot be multiplied (", to_text(self.sym_size(0)),
              "x", to_text(self.sym_size(1)), " and ", to_text(mat2.sym_size(0)), "x", to_text(mat2.sym_size(1)), ")");
  check_same_dtypes(self, mat2);
  at::Tensor out = at::empty_symint({self.sym_size(0), mat2.sym_size(1)}, self.options());
  if (out.is_meta()) return out;
  check_devices("mm", {&self, &mat2});
  check_supported("addmm_cuda", self, mat2);
  run_matmul(self.unsqueeze(0), mat2.unsqueeze(0), out.unsqueeze(0), at::Tensor(), 1, 0);
  return out;
}

at::Tensor addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2, const c10::Scalar& beta,
                 const c10::Scalar& alpha) {
  TORCH_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  TORCH_CHECK(mat1.sym_size(1) == mat2.sym_size(0), "mat1 and mat2 shapes cannot be multiplied (", to_text(mat1.sym_size(0)),
              "x", to_text(mat1.sym_size(1)), " and ", to_text(mat2.sym_size(0)), "x", to_text(mat2.sym_size(1)), ")");
  check_same_dtypes(mat1, mat2);
  TORCH_CHECK(self.scalar_type() == mat1.scalar_type(), "self and mat2 must have the same dtype, but got ",
              c10::toString(self.scalar_type()), " and ", c10::toString(mat2.scalar_type()));
  const c10::SymInt rows = mat1.sym_size(0), cols = mat2.sym_size(1);
  const std::array<c10::SymInt, 2> shape{rows, cols};
  // self must broadcast to (rows, cols): expand's own error when it does not
  const at::Tensor bias = self.expand_symint(shape);
  at::Tensor out = at::empty_symint(shape, mat1.options());
  if (out.is_meta()) return out;
  check_devices("addmm", {&mat1, &mat2, &self});
  check_supported("addmm_cuda", mat1, mat2);
  const bool use_bias = !(beta.isIntegral(true) ? beta.toLong() == 0 : beta.toDouble() == 0.0);
  run_matmul(mat1.unsqueeze(0), mat2.unsqueeze(0), out.unsqueeze(0), use_bias ? bias.unsqueeze(0) : at::Tensor(), alpha,
             beta);
  return out;
}

at::Tensor bmm(const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(mat2.sym_size(0) == self.sym_size(0) && mat2.sym_size(1) == self.sym_size(2),
              "Expected size for first two dimensions of batch2 tensor to be: [", to_text(self.sym_size(0)), ", ",
              to_text(self.sym_size(2)), "] but got: [", to_text(mat2.sym_size(0)), ", ", to_text(mat2.sym_size(1)), "].");
  check_same_dtypes(self, mat2);
  at::Tensor out = at::empty_symint({self.sym_size(0), self.sym_size(1), mat2.sym_size(2)}, self.options());
  if (out.is_meta()) return out;
  check_devices("bmm", {&self, &mat2});
  check_supported("bmm_cuda", self, mat2);
  run_matmul(self, mat2, out, at::Tensor(), 1, 0);
  return out;
}

}  // namespace triton_jit::ops
