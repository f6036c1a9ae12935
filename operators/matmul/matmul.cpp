// mm, addmm and bmm: a decode step's few rows (M <= 64) through matmul_skinny.py (with K split
// across programs where its column blocks alone would leave SMs idle), larger 16-bit
// products on Hopper through TMA where it can address the operands (65 to 512 rows against a
// K-major weight through matmul_wave.py's one-wave tiles, the rest through the persistent kernel
// of matmul_tma.py), and everything else through matmul.py, which reads any strides in place. All
// are autotuned; the size classes they tune by are in their files.
#include <ATen/Context.h>
#include <ATen/ExpandUtils.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <algorithm>

#include "common/launch.h"
#include "common/layout.h"
#include "common/ops.h"

namespace triton_jit::ops {
namespace {

constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kSkinnyRows = 64;  // matmul_skinny.py's largest token tile
// A single product of 65 to 512 rows against a K-major weight takes matmul_wave.py where its widest
// tile (128 rows by 224 columns) makes at most one wave: at 128 to 512 rows of Llama-3-8B's
// projections it measured 0.98-1.14x cuBLAS's time through the dispatcher (1.30x for qkv at 384
// rows, where no tiling fills a wave) against the persistent kernel's 1.07-1.64x; where it takes
// several waves (gate_up from 256 rows) the persistent kernel was faster (docs/performance.md, H200).
constexpr int64_t kWaveRows = 512;
constexpr int64_t kWaveTileRows = 128;
constexpr int64_t kWaveTileColumns = 224;

bool one_wave(int64_t m, int64_t n, int64_t sms) {
  const int64_t tiles = (m + kWaveTileRows - 1) / kWaveTileRows * ((n + kWaveTileColumns - 1) / kWaveTileColumns);
  return m <= kWaveRows && tiles <= sms;
}
// A batched product takes the persistent kernel from this many rows and columns (see run_matmul).
constexpr int64_t kPersistentBatchedRows = 2048;
constexpr int64_t kPersistentBatchedColumns = 128;

struct GridData {
  int64_t batch;
  int64_t programs;  // the persistent kernel's ceiling: one program per SM
};

Grid matmul_grid(const LaunchMeta& m, void* data) {
  const auto* g = static_cast<const GridData*>(data);
  return Grid{triton_jit::cdiv(m["M"], m["BLOCK_M"]) * triton_jit::cdiv(m["N"], m["BLOCK_N"]),
              static_cast<unsigned>(g->batch), 1};
}

Grid skinny_grid(const LaunchMeta& m, void* data) {
  const auto* g = static_cast<const GridData*>(data);
  return Grid{triton_jit::cdiv(m["N"], m["BLOCK_N"]), static_cast<unsigned>(g->batch), 1};
}

struct SplitGridData {
  int64_t split;
};

Grid split_grid(const LaunchMeta& m, void* data) {
  const auto* g = static_cast<const SplitGridData*>(data);
  return Grid{triton_jit::cdiv(m["N"], m["BLOCK_N"]), static_cast<unsigned>(g->split), 1};
}

Grid wave_grid(const LaunchMeta& m, void* /*data*/) {
  const int64_t width = m["BLOCK_N0"] + m["BLOCK_N1"] + m["BLOCK_N2"];
  return Grid{static_cast<unsigned>(triton_jit::cdiv(m["M"], m["BLOCK_M"]) * triton_jit::cdiv(m["N"], width)), 1, 1};
}

Grid persistent_grid(const LaunchMeta& m, void* data) {
  const auto* g = static_cast<const GridData*>(data);
  const int64_t tiles = g->batch * triton_jit::cdiv(m["M"], m["BLOCK_M"]) * triton_jit::cdiv(m["N"], m["BLOCK_N"]);
  return Grid{static_cast<unsigned>(std::min(tiles, g->programs)), 1, 1};
}

void check_same_dtypes(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(),
              "expected m1 and m2 to have the same dtype, but got: ", c10::toString(a.scalar_type()),
              " != ", c10::toString(b.scalar_type()));
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
    TORCH_CHECK(t->device() == first.device(), op,
                ": expected all tensors to be on the same device, but found at "
                "least two devices, ",
                first.device(), " and ", t->device(), "!");
  }
  TORCH_CHECK(first.is_cuda(), op, ": expected CUDA tensors, got ", first.device());
}

bool sixteen_bit(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16; }

bool tma_aligned(const at::Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0; }

// A row stride TMA can take: a multiple of 16 bytes, below its 2^40 limit (2-byte elements).
bool tma_stride(int64_t elements) { return elements > 0 && elements % 8 == 0 && elements < (int64_t{1} << 39); }

// Whether the persistent TMA kernel can address a (batch-first, 3-D) product: A row-major, B with
// unit stride along K or N, C contiguous; batch strides nonzero where there is more than one.
bool tma_addressable(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out) {
  if (!tma_aligned(a) || !tma_aligned(b) || !tma_aligned(out)) return false;
  const int64_t batch = a.size(0);
  const bool batch_ok = batch == 1 || (tma_stride(a.stride(0)) && tma_stride(b.stride(0)) && tma_stride(out.stride(0)));
  const bool a_ok = a.stride(2) == 1 && tma_stride(a.stride(1));
  const bool b_ok = (b.stride(1) == 1 && tma_stride(b.stride(2))) || (b.stride(2) == 1 && tma_stride(b.stride(1)));
  const bool c_ok = out.stride(2) == 1 && tma_stride(out.stride(1));
  return batch_ok && a_ok && b_ok && c_ok;
}

void add_alpha_beta(Slots<32>& s, bool wide, const c10::Scalar& alpha, const c10::Scalar& beta) {
  if (wide) {
    s.add_all(fixed<double>(alpha.toDouble()), fixed<double>(beta.toDouble()));
  } else {
    s.add_all(fixed<float>(static_cast<float>(alpha.toDouble())), fixed<float>(static_cast<float>(beta.toDouble())));
  }
}

void add_bias(Slots<32>& s, const at::Tensor& bias) {
  if (bias.defined()) {
    s.add_all(bias.stride(0), bias.stride(1), bias.stride(2));
  } else {
    s.add_all(int64_t{0}, int64_t{0}, int64_t{0});
  }
}

// How many K-slices a decode product of more than 16 rows takes: enough that about one program
// per SM runs with 64-column blocks (sweep_kernels.py --parts splitk, H200, 2026-12-02: 4096-wide
// outputs over 132 SMs split in 2; down's K = 14336 at 32 and 64 rows 0.93-0.95x cuBLAS's time,
// against 1.10-1.19x unsplit; o's K = 4096 0.90x and 1.11x, against 0.98x and 1.50x; wider
// outputs fill the SMs unsplit and measured slower split). 1 for no split.
int64_t split_k_slices(int64_t m, int64_t n, int64_t k, int64_t sms) {
  if (m <= 16 || k < 2048) return 1;
  const int64_t column_blocks = triton_jit::cdiv(n, 64);
  return std::clamp<int64_t>((sms + column_blocks / 4) / column_blocks, 1, 8);
}

// C = A @ B over `split` K-slices: float32 partial sums, then their sum in a fixed order.
void run_split_k(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, int64_t block_m, int64_t split) {
  static const TritonJITFunction& k = kernel("matmul_skinny.py", "matmul_skinny_split_kernel");
  static const TritonJITFunction& reduce = kernel("matmul_skinny.py", "split_k_reduce");
  const int64_t m = a.size(0), kk = b.size(0), n = b.size(1);
  const at::Tensor partial = at::empty({split, m, n}, out.options().dtype(at::kFloat));
  SplitGridData grid{split};
  LaunchConfig config = launch_config(out, 1);
  config.num_warps = 0;  // the config's
  config.grid_fn = &split_grid;
  config.grid_data = &grid;
  Slots<32> s;
  s.add_all(a, b, partial, m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1), block_m, split);
  launch_after(s, k, config, out);
  constexpr int64_t kReduceBlock = 1024;
  Slots<32> r;
  r.add_all(partial, out, m, n, out.stride(0), out.stride(1), split, kReduceBlock);
  launch_after(r, reduce, launch_config(out, static_cast<unsigned>(triton_jit::cdiv(m * n, kReduceBlock))), out);
}

bool is_one(const c10::Scalar& v) { return v.isIntegral(true) ? v.toLong() == 1 : v.toDouble() == 1.0; }

// A decode step's rows: one launch per 65535 batches, the token tile the next power of two of M.
void run_skinny(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, const at::Tensor& bias,
                const c10::Scalar& alpha, const c10::Scalar& beta) {
  static const TritonJITFunction& k = kernel("matmul_skinny.py", "matmul_skinny_kernel");
  const int64_t batch = a.size(0), m = a.size(1), kk = b.size(1), n = b.size(2);
  const int64_t block_m = std::max<int64_t>(16, next_power_of_2(m));
  if (batch == 1 && !bias.defined() && is_one(alpha)) {
    const int64_t sms = at::cuda::getDeviceProperties(out.device().index())->multiProcessorCount;
    if (const int64_t split = split_k_slices(m, n, kk, sms); split > 1) {
      run_split_k(a[0], b[0], out[0], block_m, split);
      return;
    }
  }
  for (int64_t offset = 0; offset < batch; offset += kMaxGridY) {
    GridData grid{std::min(kMaxGridY, batch - offset), 0};
    LaunchConfig config = launch_config(out, 1);
    config.num_warps = 0;  // the config's
    config.grid_fn = &skinny_grid;
    config.grid_data = &grid;
    Slots<32> s;
    s.add_all(a, b, out, bias.defined() ? bias : at::Tensor(), m, n, kk);
    s.add_all(a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2));
    s.add_all(out.stride(0), out.stride(1), out.stride(2));
    add_bias(s, bias);
    add_alpha_beta(s, false, alpha, beta);
    s.add_all(offset, bias.defined(), block_m);
    launch_after(s, k, config, out);
  }
}

// Hopper and newer: one program per SM over every tile of every batch, descriptors on the device.
void run_tma(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, const at::Tensor& bias,
             const c10::Scalar& alpha, const c10::Scalar& beta, int64_t sms) {
  static const TritonJITFunction& k = kernel("matmul_tma.py", "matmul_tma_kernel");
  const int64_t batch = a.size(0), m = a.size(1), kk = a.size(2), n = b.size(2);
  const bool k_major = b.stride(1) == 1 && tma_stride(b.stride(2));
  // a single batch's stride is never followed; any the descriptor accepts will do
  auto batch_stride = [&](const at::Tensor& t, int64_t rows, int64_t row_stride) {
    return batch == 1 ? rows * row_stride : t.stride(0);
  };
  GridData grid{batch, sms};
  LaunchConfig config = launch_config(out, 1);
  config.num_warps = 0;
  config.grid_fn = &persistent_grid;
  config.grid_data = &grid;
  Slots<32> s;
  s.add_all(a, b, out, bias.defined() ? bias : at::Tensor(), m, n, kk, batch);
  s.add_all(batch_stride(a, m, a.stride(1)), a.stride(1));
  s.add_all(batch_stride(b, k_major ? n : kk, k_major ? b.stride(2) : b.stride(1)), b.stride(1), b.stride(2));
  s.add_all(batch_stride(out, m, out.stride(1)), out.stride(1));
  add_bias(s, bias);
  add_alpha_beta(s, false, alpha, beta);
  s.add_all(next_power_of_2(m), bias.defined(), k_major, sms);
  s.launch(k, config);
}

// One product (batch 1) against a K-major B: one tile per program, about one wave of them. The
// descriptors' block shapes here are placeholders: each config's pre_hook sets them.
void run_wave(const at::Tensor& a, const at::Tensor& b, const at::Tensor& out, const at::Tensor& bias,
              const c10::Scalar& alpha, const c10::Scalar& beta, int64_t sms) {
  static const TritonJITFunction& k = kernel("matmul_wave.py", "matmul_wave_kernel");
  const int64_t m = a.size(1), kk = a.size(2), n = b.size(2);
  const DType dtype = torch_adapter::to_dtype(a.scalar_type());
  const int device = out.device().index();
  const TensorDescriptor a_desc = tensor_descriptor(a.data_ptr(), dtype, device, {m, kk}, {a.stride(1), 1}, {64, 64});
  // one for each piece of a tile, each given its own block shape
  const TensorDescriptor b0_desc = tensor_descriptor(b.data_ptr(), dtype, device, {n, kk}, {b.stride(2), 1}, {64, 64});
  const TensorDescriptor b1_desc = b0_desc, b2_desc = b0_desc;
  LaunchConfig config = launch_config(out, 1);
  config.num_warps = 0;
  config.grid_fn = &wave_grid;
  Slots<32> s;
  s.add_all(a_desc, b0_desc, b1_desc, b2_desc, out, bias.defined() ? bias : at::Tensor(), m, n, kk, out.stride(1));
  s.add_all(bias.defined() ? bias.stride(1) : int64_t{0}, bias.defined() ? bias.stride(2) : int64_t{0});
  add_alpha_beta(s, false, alpha, beta);
  s.add_all((m + 63) / 64 * 64, bias.defined(), sms);  // M_CLASS: a tiling's programs vary with no finer M
  s.launch(k, config);
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
  torch_adapter::DeviceGuard guard(out);
  if (sixteen_bit(a.scalar_type())) {
    if (m <= kSkinnyRows) {
      run_skinny(a, b, out, bias, alpha, beta);
      return;
    }
    // Batched products (attention's scores and values) go to the persistent kernel only where it
    // measured faster than matmul.py (docs/performance.md, H200): with its tile loop flattened,
    // scores of 2048 tokens take 95 us against 129 (K = 128) and 85 against 101 (K = 64), values
    // of head dim 128 82 against 84; at 512 tokens and below, or an N of 64, matmul.py is as fast
    // or faster (values of head dim 64: 72 against 79 us).
    const bool persistent_pays = batch == 1 || (m >= kPersistentBatchedRows && n >= kPersistentBatchedColumns);
    const cudaDeviceProp* props = at::cuda::getDeviceProperties(out.device().index());
    const bool k_major = b.stride(1) == 1 && tma_stride(b.stride(2));
    if (batch == 1 && k_major && props->major >= 9 && one_wave(m, n, props->multiProcessorCount) &&
        tma_addressable(a, b, out)) {
      run_wave(a, b, out, bias, alpha, beta, props->multiProcessorCount);
      return;
    }
    if (persistent_pays && props->major >= 9 && tma_addressable(a, b, out)) {
      run_tma(a, b, out, bias, alpha, beta, props->multiProcessorCount);
      return;
    }
  }
  const bool wide = a.scalar_type() == at::kDouble;
  const bool tf32 = a.scalar_type() == at::kFloat && at::globalContext().allowTF32CuBLAS();
  const bool has_bias = bias.defined();
  for (int64_t offset = 0; offset < batch; offset += kMaxGridY) {
    GridData grid{std::min(kMaxGridY, batch - offset), 0};
    LaunchConfig config = launch_config(out, 1);
    config.num_warps = 0;  // the config's
    config.grid_fn = &matmul_grid;
    config.grid_data = &grid;
    Slots<32> s;
    s.add_all(a, b, out, has_bias ? bias : at::Tensor(), m, n, kk);
    s.add_all(a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2));
    s.add_all(out.stride(0), out.stride(1), out.stride(2));
    add_bias(s, bias);
    add_alpha_beta(s, wide, alpha, beta);
    s.add_all(offset, has_bias, std::string_view(tf32 ? "tf32" : "ieee"));
    s.launch(k, config);
  }
}

}  // namespace

at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.dim() == 2, "self must be a matrix");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TORCH_CHECK(self.sym_size(1) == mat2.sym_size(0), "mat1 and mat2 shapes cannot be multiplied (",
              to_text(self.sym_size(0)), "x", to_text(self.sym_size(1)), " and ", to_text(mat2.sym_size(0)), "x",
              to_text(mat2.sym_size(1)), ")");
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
  TORCH_CHECK(mat1.sym_size(1) == mat2.sym_size(0), "mat1 and mat2 shapes cannot be multiplied (",
              to_text(mat1.sym_size(0)), "x", to_text(mat1.sym_size(1)), " and ", to_text(mat2.sym_size(0)), "x",
              to_text(mat2.sym_size(1)), ")");
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
              to_text(self.sym_size(2)), "] but got: [", to_text(mat2.sym_size(0)), ", ", to_text(mat2.sym_size(1)),
              "].");
  check_same_dtypes(self, mat2);
  at::Tensor out = at::empty_symint({self.sym_size(0), self.sym_size(1), mat2.sym_size(2)}, self.options());
  if (out.is_meta()) return out;
  check_devices("bmm", {&self, &mat2});
  check_supported("bmm_cuda", self, mat2);
  run_matmul(self, mat2, out, at::Tensor(), 1, 0);
  return out;
}

at::Tensor silu_and_mul_mm(const at::Tensor& gate_up, const at::Tensor& mat2) {
  constexpr const char* op = "silu_and_mul_mm";
  TORCH_CHECK(gate_up.dim() == 2 && mat2.dim() == 2, op, ": gate_up must be [M, 2K] and mat2 [K, N], got ",
              to_text(gate_up.sym_sizes()), " and ", to_text(mat2.sym_sizes()));
  TORCH_CHECK(gate_up.sym_size(1) == mat2.sym_size(0) * 2, op, ": gate_up's ", to_text(gate_up.sym_size(1)),
              " columns must be twice mat2's ", to_text(mat2.sym_size(0)), " rows (the gates, then the ups)");
  TORCH_CHECK(gate_up.scalar_type() == mat2.scalar_type(), op, ": gate_up and mat2 must have one dtype, got ",
              c10::toString(gate_up.scalar_type()), " and ", c10::toString(mat2.scalar_type()));
  check_dtype_supported(at::isFloatingType(gate_up.scalar_type()), op, gate_up.scalar_type());
  // Two launches, also at decode: made as the product's kernel loaded its tokens, the activation
  // (two token tiles per weight tile, staged in shared memory) halved the programs an SM held and
  // the down projection took 78 us where the plain product takes 44 (H100, Llama-3-8B, M = 1 and
  // 8; docs/performance.md), far more than the launch it saved.
  return ops::mm(ops::silu_and_mul(gate_up), mat2);
}

}  // namespace triton_jit::ops
