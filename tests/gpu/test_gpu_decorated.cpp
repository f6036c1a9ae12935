// Decorated kernels on a real GPU, called as they are written: an autotuned matmul (fp16, bf16;
// square, skinny and non-multiple shapes), a softmax whose BLOCK comes from a heuristic, an
// EVEN-style heuristic on divisible and non-divisible sizes, an accumulating kernel with
// reset_to_zero, and Hopper kernels whose config pre_hooks set descriptor block shapes (an
// attention forward, a persistent TMA matmul). Every result is checked against PyTorch on fresh random inputs.
#include <gtest/gtest.h>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/full_like.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randn_like.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <triton_jit/torch.h>

#include "../common/fresh_cache.h"
#include "../common/test_paths.h"

using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

const std::string kKernels = triton_jit::test::kKernelsDir;

class GpuDecorated : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: launch tests run on the GPU machine";
    triton_jit::torch_adapter::install_scratch_allocator();
  }
  static at::TensorOptions cuda(at::ScalarType t = at::kFloat) {
    return at::TensorOptions().device(at::kCUDA).dtype(t);
  }
};

double relative_error(const at::Tensor& got, const at::Tensor& want) {
  auto g = got.to(at::kDouble);
  auto w = want.to(at::kDouble);
  return ((g - w).norm() / w.norm().clamp_min(1e-30)).item<double>();
}

LaunchConfig on_current_stream() {
  LaunchConfig c;
  c.stream = triton_jit::torch_adapter::current_stream();
  return c;
}

at::Tensor triton_matmul(const at::Tensor& a, const at::Tensor& b) {
  static auto& k = TritonJITFunction::get_instance(kKernels + "/gpu_decorated.py", "matmul_kernel");
  const int64_t m = a.size(0), n = b.size(1), kk = a.size(1);
  at::Tensor c = at::empty({m, n}, a.options());
  LaunchConfig config = on_current_stream();
  config.grid_fn = [](const triton_jit::LaunchMeta& meta, void*) {
    return triton_jit::Grid{triton_jit::cdiv(meta["M"], meta["BLOCK_M"]) * triton_jit::cdiv(meta["N"], meta["BLOCK_N"]),
                            1, 1};
  };
  k(config, a, b, c, m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1));
  return c;
}

}  // namespace

TEST_F(GpuDecorated, AutotunedMatmulMatchesTorch) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/gpu_decorated.py", "matmul_kernel");
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    for (auto [m, n, kk] : {std::array<int64_t, 3>{1024, 1024, 1024}, {16, 4096, 4096}, {1000, 1000, 1000}}) {
      at::Tensor a = at::randn({m, kk}, cuda(dtype));
      at::Tensor b = at::randn({kk, n}, cuda(dtype));
      at::Tensor c = triton_matmul(a, b);
      const double err = relative_error(c, at::matmul(a.to(at::kFloat), b.to(at::kFloat)));
      EXPECT_LT(err, dtype == at::kHalf ? 2e-3 : 1e-2) << m << "x" << n << "x" << kk << " " << dtype;
      auto choice = k.autotune_choice(on_current_stream(), a, b, c, m, n, kk, a.stride(0), a.stride(1), b.stride(0),
                                      b.stride(1), c.stride(0), c.stride(1));
      ASSERT_TRUE(choice.has_value());
      std::printf("matmul %ldx%ldx%ld %s: config %d (%s), %.4f ms\n", m, n, kk, c10::toString(dtype), choice->config,
                  choice->text.c_str(), choice->milliseconds);
    }
  }
  EXPECT_EQ(k.stats().tunings, 6u);
}

TEST_F(GpuDecorated, SoftmaxBlockFromAHeuristic) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "row_softmax");
  for (int64_t cols : {1, 100, 1000, 3000, 4096}) {
    at::Tensor x = at::randn({257, cols}, cuda(at::kHalf));
    at::Tensor out = at::empty_like(x);
    LaunchConfig c = on_current_stream();
    c.grid = {257, 1, 1};
    k(c, x, out, cols, x.stride(0));
    EXPECT_LT(relative_error(out, at::softmax(x.to(at::kFloat), 1)), 2e-3) << cols;
  }
}

TEST_F(GpuDecorated, EvenHeuristicOnDivisibleAndOtherSizes) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "scale_tuned");
  for (int64_t n : {4096, 4000, 65536, 65537, 1}) {
    at::Tensor x = at::randn({n}, cuda());
    at::Tensor out = at::full({n}, std::nan(""), cuda());
    LaunchConfig c = on_current_stream();
    c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
      return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
    };
    k(c, x, out, n, 3.0f);
    EXPECT_TRUE(at::allclose(out, x * 3.0)) << n;
  }
}

TEST_F(GpuDecorated, ResetToZeroKeepsAnAccumulatingKernelRight) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "accumulate");
  for (int64_t n : {100000, 1 << 20}) {
    at::Tensor x = at::rand({n}, cuda());
    at::Tensor total = at::zeros({1}, cuda());
    LaunchConfig c = on_current_stream();
    c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
      return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
    };
    k(c, x, total, n);  // tunes: the kernel runs many times; the caller's total must not show it
    const double want = x.to(at::kDouble).sum().item<double>();
    EXPECT_NEAR(total.item<float>(), want, 1e-3 * want) << n;
    at::Tensor again = at::full({1}, 5.0f, cuda());
    k(c, x, again, n);  // tuned already: accumulates onto what is there, once
    EXPECT_NEAR(again.item<float>(), 5.0 + want, 1e-3 * want) << n;
  }
  EXPECT_EQ(k.stats().tunings, 2u);
}

// An optional tensor named by reset_to_zero may be left out (None): nothing to zero or save, as
// in Triton since #10295 and in fla's autotuner; the tensor given is still kept right.
TEST_F(GpuDecorated, ResetToZeroSkipsAnOptionalTensorLeftOut) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "accumulate_counting");
  const int64_t n = 100000;
  at::Tensor x = at::rand({n}, cuda());
  LaunchConfig c = on_current_stream();
  c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
    return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
  };
  const double want = x.to(at::kDouble).sum().item<double>();
  at::Tensor total = at::zeros({1}, cuda());
  k(c, x, total, std::nullopt, n);
  EXPECT_NEAR(total.item<float>(), want, 1e-3 * want);
  at::Tensor counted = at::zeros({1}, cuda());
  at::Tensor count = at::zeros({1}, cuda().dtype(at::kInt));
  k(c, x, counted, count, n);  // a new variant (COUNT), tuned with the count zeroed each run
  EXPECT_NEAR(counted.item<float>(), want, 1e-3 * want);
  EXPECT_GT(count.item<int>(), 0);
  EXPECT_LE(count.item<int>(), triton_jit::cdiv(n, 128));
}

// Note [Decorated call memo]: a repeated call launches the variant the memo kept, which is only
// right when the tensors' alignment is part of what it remembers. A view one element in is not
// 16-byte aligned: given the aligned variant's vector loads it would fault or read wrong data.
TEST_F(GpuDecorated, RepeatedCallsOnAlignedAndMisalignedViewsMatchTorch) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "scale_tuned");
  at::Tensor base = at::randn({8193}, cuda());
  at::Tensor aligned = base.narrow(0, 0, 8192), misaligned = base.narrow(0, 1, 8192);
  LaunchConfig c = on_current_stream();
  c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
    return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
  };
  triton_jit::set_stats_enabled(true);
  const auto before = k.stats();
  for (int i = 0; i < 12; ++i) {  // in runs of four (the two calls' entries may be the same one)
    const at::Tensor& x = i / 4 == 1 ? misaligned : aligned;
    at::Tensor out = at::full({8192}, std::nan(""), cuda());
    k(c, x, out, 8192, 3.0f);
    EXPECT_TRUE(at::allclose(out, x * 3.0)) << i;
  }
  const auto after = k.stats();
  triton_jit::set_stats_enabled(false);
  EXPECT_GE(after.remembered - before.remembered, 8u) << "the memo answered the repeated calls";
}

// Note [Config hooks]: Hopper kernels written as libraries write them, whose configs' pre_hooks
// give the caller's descriptors the block shapes they tile by; tuned from C++ and checked against
// torch for every config.
TEST_F(GpuDecorated, AttentionForwardWithDescriptorsTiledByAPreHookMatchesTorch) {
  auto& k =
      const_cast<TritonJITFunction&>(TritonJITFunction::get_instance(kKernels + "/gpu_hooked.py", "attention_forward"));
  struct Shape {
    int64_t batch, heads, n_ctx, head_dim;
    bool causal;
  };
  for (const Shape s : {Shape{2, 8, 1024, 64, false}, Shape{2, 8, 1024, 128, true}, Shape{1, 32, 4096, 128, true},
                        Shape{4, 4, 128, 128, false}}) {
    for (auto dtype : {at::kHalf, at::kBFloat16}) {
      at::Tensor q = at::randn({s.batch, s.heads, s.n_ctx, s.head_dim}, cuda(dtype));
      at::Tensor kk = at::randn_like(q);
      at::Tensor v = at::randn_like(q);
      at::Tensor o = at::full_like(q, std::numeric_limits<double>::quiet_NaN());
      const double sm_scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
      // Placeholder block shapes: the config's pre_hook sets them.
      auto dq = triton_jit::torch_adapter::tensor_descriptor(q.view({-1, s.head_dim}), {1, 1});
      auto dk = triton_jit::torch_adapter::tensor_descriptor(kk.view({-1, s.head_dim}), {1, 1});
      auto dv = triton_jit::torch_adapter::tensor_descriptor(v.view({-1, s.head_dim}), {1, 1});
      auto dout = triton_jit::torch_adapter::tensor_descriptor(o.view({-1, s.head_dim}), {1, 1});
      LaunchConfig config = on_current_stream();
      static int64_t programs_per_row;
      programs_per_row = s.batch * s.heads;
      config.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
        return triton_jit::Grid{static_cast<uint32_t>(triton_jit::cdiv(m["N_CTX"], m["BLOCK_M"])),
                                static_cast<uint32_t>(programs_per_row), 1};
      };
      at::Tensor want =
          at::scaled_dot_product_attention(q.to(at::kFloat), kk.to(at::kFloat), v.to(at::kFloat), {}, 0.0, s.causal);
      auto launch = [&] { k(config, sm_scale, dq, dk, dv, dout, s.n_ctx, s.head_dim, s.causal); };
      launch();
      auto choice = k.autotune_choice(config, sm_scale, dq, dk, dv, dout, s.n_ctx, s.head_dim, s.causal);
      ASSERT_TRUE(choice.has_value());
      const double tuned_error = relative_error(o, want);
      EXPECT_LT(tuned_error, dtype == at::kHalf ? 2e-3 : 1.5e-2) << s.n_ctx << " " << s.head_dim << " " << dtype;
      std::printf("attention %ldx%ldx%ldx%ld causal=%d %s: config %d (%s), %.4f ms, rel. error %.2e\n", s.batch,
                  s.heads, s.n_ctx, s.head_dim, s.causal, c10::toString(dtype), choice->config, choice->text.c_str(),
                  choice->milliseconds, tuned_error);
      for (int c = 0; c < 3; ++c) {  // every config, each with its own block shapes
        if (s.n_ctx < 128 && c > 0) continue;
        k.force_autotune_config(c);
        o.fill_(std::numeric_limits<double>::quiet_NaN());
        launch();
        EXPECT_LT(relative_error(o, want), dtype == at::kHalf ? 2e-3 : 1.5e-2) << "config " << c;
      }
      k.force_autotune_config(-1);
      EXPECT_EQ(dq.block_shape[0], 1);  // the caller's descriptor is left as it was
    }
  }
}

TEST_F(GpuDecorated, PersistentTmaMatmulAutotunedWithAPreHookMatchesTorch) {
  auto& k =
      const_cast<TritonJITFunction&>(TritonJITFunction::get_instance(kKernels + "/gpu_hooked.py", "matmul_tma_tuned"));
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  static int64_t num_sms;
  num_sms = sms;
  for (auto [m, n, kk] :
       {std::array<int64_t, 3>{4096, 4096, 4096}, {512, 6144, 4096}, {8192, 4096, 14336}, {1000, 1000, 1024}}) {
    for (auto dtype : {at::kHalf, at::kBFloat16}) {
      at::Tensor a = at::randn({m, kk}, cuda(dtype));
      at::Tensor b = at::randn({n, kk}, cuda(dtype));
      at::Tensor c = at::full({m, n}, std::numeric_limits<double>::quiet_NaN(), cuda(dtype));
      auto da = triton_jit::torch_adapter::tensor_descriptor(a, {1, 1});
      auto db = triton_jit::torch_adapter::tensor_descriptor(b, {1, 1});
      auto dc = triton_jit::torch_adapter::tensor_descriptor(c, {1, 1});
      LaunchConfig config = on_current_stream();
      config.grid_fn = [](const triton_jit::LaunchMeta& meta, void*) {
        const int64_t tiles =
            triton_jit::cdiv(meta["M"], meta["BLOCK_M"]) * triton_jit::cdiv(meta["N"], meta["BLOCK_N"]);
        return triton_jit::Grid{static_cast<uint32_t>(std::min(tiles, num_sms)), 1, 1};
      };
      k(config, da, db, dc, m, n, kk, num_sms);
      auto choice = k.autotune_choice(config, da, db, dc, m, n, kk, num_sms);
      ASSERT_TRUE(choice.has_value());
      const at::Tensor want = at::matmul(a.to(at::kFloat), b.to(at::kFloat).t());
      const double err = relative_error(c, want);
      EXPECT_LT(err, dtype == at::kHalf ? 2e-3 : 1e-2) << m << "x" << n << "x" << kk << " " << dtype;
      const double tflops = 2.0 * m * n * kk / (choice->milliseconds * 1e-3) / 1e12;
      std::printf("tma matmul %ldx%ldx%ld %s: config %d (%s), %.4f ms, %.0f TFLOP/s, rel. error %.2e\n", m, n, kk,
                  c10::toString(dtype), choice->config, choice->text.c_str(), choice->milliseconds, tflops, err);
    }
  }
}

// Activations passed as @triton.jit functions (triton_jit::JitFunctionArg): to a declared
// constexpr, to a plain parameter, and to an autotuned kernel keyed on the function whose
// heuristic picks the masked or unmasked body; repeats are served by the memo.
TEST_F(GpuDecorated, ActivationsPassedAsJitFunctionsMatchTorch) {
  static const triton_jit::JitFunctionArg relu(kKernels + "/activations.py", "relu");
  static const triton_jit::JitFunctionArg square(kKernels + "/activations.py", "square");
  static const triton_jit::JitFunctionArg leaky(kKernels + "/activations.py", "leaky");
  auto& apply = TritonJITFunction::get_instance(kKernels + "/jit_function_kernels.py", "apply");
  auto& plain = TritonJITFunction::get_instance(kKernels + "/jit_function_kernels.py", "apply_plain");
  auto& tuned = TritonJITFunction::get_instance(kKernels + "/jit_function_kernels.py", "apply_tuned");
  for (int64_t n : {int64_t{4096}, int64_t{5000}}) {
    const at::Tensor x = at::randn({n}, cuda());
    const at::Tensor expected_relu = at::relu(x), expected_square = x * x;
    const at::Tensor expected_leaky = at::where(x > 0, x, x * 0.125);
    LaunchConfig c = on_current_stream();
    c.grid = {static_cast<unsigned>((n + 255) / 256), 1, 1};
    at::Tensor out = at::empty_like(x);
    apply(c, x, out, n, relu, 256);
    EXPECT_TRUE(at::equal(out, expected_relu)) << n;
    apply(c, x, out, n, square, 256);
    EXPECT_TRUE(at::allclose(out, expected_square)) << n;
    plain(c, x, out, n, leaky, 256);
    EXPECT_TRUE(at::allclose(out, expected_leaky)) << n;
    LaunchConfig t = on_current_stream();
    t.grid_fn = [](const triton_jit::LaunchMeta& meta, void*) {
      return triton_jit::Grid{triton_jit::cdiv(meta["n"], meta["BLOCK"]), 1, 1};
    };
    triton_jit::set_stats_enabled(true);
    const auto remembered = tuned.stats().remembered;
    for (int repeat = 0; repeat < 3; ++repeat) {
      for (const auto& [fn, want] : {std::pair{&relu, &expected_relu}, std::pair{&leaky, &expected_leaky}}) {
        out.zero_();
        tuned(t, x, out, n, *fn);
        ASSERT_TRUE(at::allclose(*want, out)) << n << " " << fn->label() << " repeat " << repeat;
      }
    }
    triton_jit::set_stats_enabled(false);
    EXPECT_GE(tuned.stats().remembered, remembered + 4) << "repeats take the memo";
  }
}
