// ATen stand-ins from C++: a small transformer block (embedding, rms_norm, mm, rotary, softmax,
// silu-gated MLP, residual adds) written with ATen calls runs once on ATen's kernels and once with
// ops::enable() routing them to ours (routing to ATen off); the outputs agree, and ours did run.
// With routing on, the classes stand_in_policy.h gives to ATen run ATen's own kernels.
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/add.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/bmm.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/div.h>
#include <ATen/ops/embedding.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/rms_norm.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/topk.h>

#include <cmath>
#include <string>
#include <vector>

#include <triton_jit/torch.h>

#include "common/kernel_path.h"
#include "common/ops.h"

namespace {

struct Weights {
  at::Tensor embedding, norm1, wq, wk, wv, wo, norm2, w_up, w_down, cos, sin;
};

constexpr int64_t kVocab = 1000, kDim = 256, kHeads = 4, kHeadDim = 64, kHidden = 512;

Weights make_weights(at::ScalarType dtype) {
  auto o = at::TensorOptions().device(at::kCUDA).dtype(dtype);
  auto w = [&](int64_t rows, int64_t cols) {
    return at::randn({rows, cols}, o) / std::sqrt(static_cast<double>(rows));
  };
  Weights x;
  x.embedding = at::randn({kVocab, kDim}, o);
  x.norm1 = at::rand({kDim}, o) + 0.5;
  x.wq = w(kDim, kDim);
  x.wk = w(kDim, kDim);
  x.wv = w(kDim, kDim);
  x.wo = w(kDim, kDim);
  x.norm2 = at::rand({kDim}, o) + 0.5;
  x.w_up = w(kDim, 2 * kHidden);
  x.w_down = w(kHidden, kDim);
  auto angles = at::arange(128, o.dtype(at::kFloat)).unsqueeze(1) *
                at::pow(10000.0, -at::arange(kHeadDim / 2, o.dtype(at::kFloat)) / (kHeadDim / 2));
  x.cos = at::cos(angles);
  x.sin = at::sin(angles);
  return x;
}

// Rotary embedding (GPT-NeoX halves) written with ATen ops: [T, H, D].
at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const int64_t t = x.size(0);
  auto c = cos.narrow(0, 0, t).unsqueeze(1).to(x.scalar_type());
  auto s = sin.narrow(0, 0, t).unsqueeze(1).to(x.scalar_type());
  auto x1 = x.narrow(2, 0, kHeadDim / 2), x2 = x.narrow(2, kHeadDim / 2, kHeadDim / 2);
  return at::cat({at::sub(at::mul(x1, c), at::mul(x2, s)), at::add(at::mul(x2, c), at::mul(x1, s))}, 2);
}

at::Tensor block(const Weights& w, const at::Tensor& tokens) {
  const int64_t t = tokens.size(0);
  at::Tensor x = at::embedding(w.embedding, tokens);
  at::Tensor h = at::rms_norm(x, {kDim}, w.norm1, 1e-6);
  at::Tensor q = rotary(at::mm(h, w.wq).view({t, kHeads, kHeadDim}), w.cos, w.sin).transpose(0, 1);
  at::Tensor k = rotary(at::mm(h, w.wk).view({t, kHeads, kHeadDim}), w.cos, w.sin).transpose(0, 1);
  at::Tensor v = at::mm(h, w.wv).view({t, kHeads, kHeadDim}).transpose(0, 1);
  at::Tensor scores = at::div(at::bmm(q, k.transpose(1, 2)), std::sqrt(static_cast<double>(kHeadDim)));
  at::Tensor attention = at::bmm(at::softmax(scores, -1), v).transpose(0, 1).reshape({t, kDim});
  x = at::add(x, at::mm(attention, w.wo));
  at::Tensor gate_up = at::mm(at::rms_norm(x, {kDim}, w.norm2, 1e-6), w.w_up);
  at::Tensor mlp = at::mul(at::silu(gate_up.narrow(1, 0, kHidden)), gate_up.narrow(1, kHidden, kHidden));
  return at::add(x, at::mm(mlp, w.w_down));
}

uint64_t launches(const char* file, const char* function) {
  return triton_jit::TritonJITFunction::get_instance(triton_jit::ops::kernel_path(file), function).stats().hits;
}

// Products of every matmul kernel: the generic one, a decode step's and the persistent TMA one.
uint64_t matmul_launches() {
  return launches("matmul.py", "matmul_kernel") + launches("matmul_skinny.py", "matmul_skinny_kernel") +
         launches("matmul_tma.py", "matmul_tma_kernel");
}

// Stand-ins on for one scope with the given routing; off again, routing restored, on leaving it, so
// that a failed ASSERT or a throwing op does not leave later tests on our kernels.
class StandInsEnabled {
 public:
  StandInsEnabled(const std::vector<std::string>& ops, bool routing) {
    triton_jit::ops::set_stand_in_routing(routing);
    triton_jit::ops::enable(ops);
  }
  ~StandInsEnabled() {
    triton_jit::ops::disable();
    triton_jit::ops::set_stand_in_routing(true);
  }
  StandInsEnabled(const StandInsEnabled&) = delete;
  StandInsEnabled& operator=(const StandInsEnabled&) = delete;
};

}  // namespace

TEST(StandIn, ATransformerBlockAgreesWithAndWithoutOurKernels) {
  if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: stand-in tests run on the GPU machine";
  triton_jit::set_stats_enabled(true);
  const std::vector<std::string> routed = {
      "aten::embedding",  "aten::mm",         "aten::bmm",  "aten::_softmax", "aten::add.Tensor", "aten::sub.Tensor",
      "aten::mul.Tensor", "aten::div.Scalar", "aten::silu", "aten::cat",      "aten::mean.dim",   "aten::rsqrt"};
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    at::manual_seed(0);
    const Weights w = make_weights(dtype);
    const at::Tensor tokens = at::randint(0, kVocab, {77}, at::TensorOptions().device(at::kCUDA).dtype(at::kLong));
    const at::Tensor reference = block(w, tokens);
    const uint64_t mm_before = matmul_launches();
    const uint64_t pointwise_before = launches("pointwise.py", "binary_kernel");
    at::Tensor ours;
    {
      const StandInsEnabled on(routed, /*routing=*/false);
      ours = block(w, tokens);
    }
    EXPECT_EQ(triton_jit::ops::enabled_stand_ins().size(), 0u);
    // six mm and two bmm
    EXPECT_EQ(matmul_launches() - mm_before, 8u) << "aten::mm and aten::bmm did not reach ours";
    EXPECT_GT(launches("pointwise.py", "binary_kernel") - pointwise_before, 0u);
    const double tolerance = dtype == at::kFloat ? 1e-4 : 5e-2;
    const double error = (ours.to(at::kFloat) - reference.to(at::kFloat)).abs().max().item<double>();
    const double scale = reference.to(at::kFloat).abs().max().item<double>();
    EXPECT_LE(error, tolerance * std::max(1.0, scale)) << c10::toString(dtype) << ": max error " << error;
    // and after disable(), ATen's own kernels again: bit for bit
    EXPECT_TRUE(at::equal(block(w, tokens), reference));
  }
  triton_jit::set_stats_enabled(false);
}

uint64_t routed_to(const std::string& op, bool aten) {
  for (const auto& r : triton_jit::ops::stand_in_routes()) {
    if (r.op == op) return aten ? r.aten : r.ours;
  }
  ADD_FAILURE() << op << " is not a routed stand-in";
  return 0;
}

TEST(StandIn, ShapeClassesWhereOursIsSlowerRunAtensOwnKernels) {
  if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: stand-in tests run on the GPU machine";
  triton_jit::set_stats_enabled(true);
  auto o = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  at::manual_seed(0);
  const at::Tensor x = at::randn({16, 4096}, o), w_qkv = at::randn({6144, 4096}, o) * 0.02;
  const at::Tensor h = at::randn({8, 14336}, o), w_down = at::randn({4096, 14336}, o) * 0.02;
  const at::Tensor q = at::randn({32, 128, 128}, o), k = at::randn({32, 128, 128}, o);
  const at::Tensor logits = at::randn({300, 128256}, o);
  const at::Tensor mm_reference = at::mm(x, w_qkv.t());
  const at::Tensor down_reference = at::mm(h, w_down.t());
  const at::Tensor bmm_reference = at::bmm(q, k);
  const auto topk_reference = at::topk(logits, 1024);
  ASSERT_TRUE(triton_jit::ops::stand_in_routing());
  const StandInsEnabled on({"aten::mm", "aten::bmm", "aten::topk"}, /*routing=*/true);
  const uint64_t mm_aten = routed_to("aten::mm", true), mm_ours = routed_to("aten::mm", false);
  const uint64_t bmm_aten = routed_to("aten::bmm", true), topk_aten = routed_to("aten::topk", true);
  const uint64_t skinny_before = launches("matmul_skinny.py", "matmul_skinny_kernel");
  // A decode-sized qkv projection (cuBLAS as fast as ours) and attention scores: cuBLAS's, bit for bit.
  EXPECT_TRUE(at::equal(at::mm(x, w_qkv.t()), mm_reference));
  EXPECT_EQ(routed_to("aten::mm", true) - mm_aten, 1u);
  EXPECT_TRUE(at::equal(at::bmm(q, k), bmm_reference));
  EXPECT_EQ(routed_to("aten::bmm", true) - bmm_aten, 1u);
  // down's projection of 8 tokens: ours (0.95-0.98x cuBLAS's time on the H200).
  const at::Tensor down_ours = at::mm(h, w_down.t());
  EXPECT_EQ(routed_to("aten::mm", false) - mm_ours, 1u);
  EXPECT_EQ(launches("matmul_skinny.py", "matmul_skinny_kernel") - skinny_before, 1u);
  EXPECT_LE((down_ours.to(at::kFloat) - down_reference.to(at::kFloat)).abs().max().item<double>(),
            0.02 * down_reference.to(at::kFloat).abs().max().item<double>());
  // top-k beyond the radix select's k <= 64 over 300 rows of the vocabulary: ATen's (the whole-row
  // bound was measured up to 256 rows).
  const auto [values, indices] = at::topk(logits, 1024);
  EXPECT_TRUE(at::equal(values, std::get<0>(topk_reference)));
  EXPECT_TRUE(at::equal(indices, std::get<1>(topk_reference)));
  EXPECT_EQ(routed_to("aten::topk", true) - topk_aten, 1u);
  // Routing off: every call ours.
  triton_jit::ops::set_stand_in_routing(false);
  const uint64_t mm_ours_now = routed_to("aten::mm", false);
  const at::Tensor mm_ours_result = at::mm(x, w_qkv.t());
  EXPECT_EQ(routed_to("aten::mm", false) - mm_ours_now, 1u);
  EXPECT_EQ(launches("matmul_skinny.py", "matmul_skinny_kernel") - skinny_before, 2u);
  EXPECT_LE((mm_ours_result.to(at::kFloat) - mm_reference.to(at::kFloat)).abs().max().item<double>(),
            0.02 * mm_reference.to(at::kFloat).abs().max().item<double>());
  triton_jit::set_stats_enabled(false);
}

// Which kernel serves a batched 16-bit product (operators/matmul/matmul.cpp): attention's scores
// of 2048 rows or more and 128 columns or more take the persistent TMA kernel on sm_90 and later,
// smaller ones (and values of head dim 64) matmul.py; both agree with ATen, ragged edges included.
TEST(StandIn, BatchedProductsTakeTheKernelMeasuredFasterForTheirShape) {
  if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: stand-in tests run on the GPU machine";
  triton_jit::set_stats_enabled(true);
  auto o = at::TensorOptions().device(at::kCUDA).dtype(at::kBFloat16);
  at::manual_seed(0);
  const bool hopper = at::cuda::getCurrentDeviceProperties()->major >= 9;
  struct Case {
    int64_t batch, m, k, n;
    bool persistent;
  };
  // B is a transposed view (K-major), as attention's keys are.
  for (const Case c :
       {Case{3, 2056, 64, 1000, hopper}, Case{3, 512, 128, 512, false}, Case{2, 2048, 2048, 64, false}}) {
    const at::Tensor a = at::randn({c.batch, c.m, c.k}, o), b = at::randn({c.batch, c.n, c.k}, o).transpose(1, 2);
    const at::Tensor reference = at::bmm(a.to(at::kFloat), b.to(at::kFloat));
    const uint64_t tma_before = launches("matmul_tma.py", "matmul_tma_kernel");
    const uint64_t generic_before = launches("matmul.py", "matmul_kernel");
    at::Tensor ours;
    {
      const StandInsEnabled on({"aten::bmm"}, /*routing=*/false);
      ours = at::bmm(a, b);
    }
    const uint64_t tma = launches("matmul_tma.py", "matmul_tma_kernel") - tma_before;
    const uint64_t generic = launches("matmul.py", "matmul_kernel") - generic_before;
    const std::string shape =
        std::to_string(c.batch) + "x" + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n);
    // At least one launch of the chosen kernel (a first call may also tune it), none of the other.
    EXPECT_EQ(c.persistent ? generic : tma, 0u) << shape;
    EXPECT_GE(c.persistent ? tma : generic, 1u) << shape;
    EXPECT_LE((ours.to(at::kFloat) - reference).abs().max().item<double>(), 0.02 * reference.abs().max().item<double>())
        << shape;
  }
  triton_jit::set_stats_enabled(false);
}

// Top-k of k past 64 over rows of the vocabulary, 16 of them (stand_in_policy.cpp): ours, through
// the whole-row bound (one gather of candidates and one sort of them a call), not the rounds
// alone, which would give the same answer. A row of about ten distinct values (thousands of keys
// tied at its bound) overflows its candidate slots and is finished by the rounds; in bfloat16
// the other rows sort 32-bit words, one of them (its k-th and best of either sign) 64-bit ones.
// Every row agrees with ATen.
TEST(StandIn, TopkOfALargeKTakesTheWholeRowBound) {
  if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: stand-in tests run on the GPU machine";
  for (const auto dtype : {at::kFloat, at::kBFloat16}) {
    auto o = at::TensorOptions().device(at::kCUDA).dtype(dtype);
    at::manual_seed(0);
    at::Tensor logits = at::randn({16, 128256}, o);
    logits[3] = logits[3].round();
    logits[5] = logits[5] * 2.5 - 7;  // its k-th near -1
    logits[5][7] = 100;
    const auto [reference_values, reference_indices] = at::topk(logits, 1024);
    const StandInsEnabled on({"aten::topk"}, /*routing=*/true);
    (void)at::topk(logits, 1024);  // the first call may compile; the counted one below finds its variants
    triton_jit::set_stats_enabled(true);
    const uint64_t ours_before = routed_to("aten::topk", false);
    const uint64_t gather_before = launches("topk.py", "topk_rows_gather_kernel");
    const uint64_t bound_before = launches("topk.py", "topk_row_bound_kernel");
    const uint64_t sort_before = launches("topk.py", "topk_rows_sort_kernel");
    const auto [values, indices] = at::topk(logits, 1024);
    const std::string type = c10::toString(dtype);
    EXPECT_EQ(routed_to("aten::topk", false) - ours_before, 1u) << type;
    EXPECT_EQ(launches("topk.py", "topk_rows_gather_kernel") - gather_before, 1u) << type;
    EXPECT_EQ(launches("topk.py", "topk_row_bound_kernel") - bound_before, 1u) << type;
    EXPECT_EQ(launches("topk.py", "topk_rows_sort_kernel") - sort_before, 1u) << type;
    triton_jit::set_stats_enabled(false);
    EXPECT_TRUE(at::equal(values, reference_values)) << type;
    // Tied keys may come in another order than ATen's: each index must point at its value.
    EXPECT_TRUE(at::equal(logits.gather(1, indices), values)) << type;
    // Ties come by their first position: float32's random rows have none, so ATen's indices there.
    const at::Tensor tied = values.narrow(1, 1, 1023) == values.narrow(1, 0, 1023);
    EXPECT_FALSE((tied & (indices.narrow(1, 1, 1023) < indices.narrow(1, 0, 1023))).any().item<bool>()) << type;
    if (dtype == at::kFloat) EXPECT_TRUE(at::equal(indices.narrow(0, 0, 3), reference_indices.narrow(0, 0, 3)));
  }
}

TEST(StandIn, AnOpWithoutAStandInIsAClearError) {
  try {
    triton_jit::ops::enable({"aten::conv2d"});
    FAIL() << "no error";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("no stand-in for 'aten::conv2d'"), std::string::npos) << e.what();
  }
  EXPECT_GE(triton_jit::ops::standing_in().size(), 30u);
}
