// Launches as inference servers make them: on several devices of one process, captured into CUDA
// graphs and replayed, and ordered against torch's work on streams and events. Every test skips,
// visibly, where its hardware is missing (no GPU, or one GPU for the two-device tests).
#include <gtest/gtest.h>

#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/Sleep.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <string>
#include <thread>
#include <vector>

#include <triton_jit/torch.h>

#include "../common/fresh_cache.h"  // keys tuned here are tuned in this process
#include "../common/test_paths.h"

using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

const std::string kKernels = triton_jit::test::kKernelsDir;

const TritonJITFunction& scale_add() {
  return TritonJITFunction::get_instance(kKernels + "/gpu_kernels.py", "scale_add");
}

at::TensorOptions on(int device) { return at::TensorOptions().device(at::Device(at::kCUDA, device)).dtype(at::kFloat); }

LaunchConfig config_for(int64_t n, int64_t block, c10::cuda::CUDAStream stream) {
  LaunchConfig c;
  c.stream = reinterpret_cast<triton_jit::Stream>(stream.stream());
  c.grid = {static_cast<unsigned>((n + block - 1) / block), 1, 1};
  c.num_warps = 4;
  c.num_stages = 3;
  return c;
}

// out = 2 x + y, checked against torch on the same device.
void expect_scale_add(const at::Tensor& x, const at::Tensor& y, const at::Tensor& out) {
  EXPECT_TRUE(at::allclose(out, x * 2 + y)) << "device " << out.device();
}

class Production : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: launch tests run on the GPU machine";
    triton_jit::torch_adapter::install_scratch_allocator();
  }
};

class TwoGpus : public Production {
 protected:
  void SetUp() override {
    Production::SetUp();
    if (IsSkipped()) return;
    if (c10::cuda::device_count() < 2) {
      GTEST_SKIP() << "one GPU: the two-device tests run on a machine with two (nvidia-h200-x2)";
    }
  }
};

}  // namespace

// ---- several devices ------------------------------------------------------------------------

TEST_F(TwoGpus, OneThreadLaunchesOnEachDeviceFromItsTensors) {
  c10::cuda::set_device(0);
  for (int device : {1, 0, 1}) {
    at::Tensor x = at::randn({100003}, on(device));
    at::Tensor y = at::randn({100003}, on(device));
    at::Tensor out = at::zeros_like(x);
    // The stream is the device's; the thread's current device stays 0 throughout.
    c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device);
    scale_add()(config_for(x.numel(), 1024, stream), x, y, out, 2.0, x.numel(), 1024);
    stream.synchronize();
    expect_scale_add(x, y, out);
    EXPECT_EQ(c10::cuda::current_device(), 0) << "a launch changed the thread's current device";
  }
}

TEST_F(TwoGpus, ThreadsLaunchOnBothDevicesAtOnce) {
  constexpr int kThreads = 8, kRounds = 50;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      const int device = t % 2;
      c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(1 - device));  // current device: the other one
      c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool(false, static_cast<c10::DeviceIndex>(device));
      for (int round = 0; round < kRounds; ++round) {
        at::Tensor x = at::randn({4096 + 17 * round}, on(device));
        at::Tensor y = at::randn({4096 + 17 * round}, on(device));
        at::Tensor out = at::empty_like(x);
        scale_add()(config_for(x.numel(), 512, stream), x, y, out, 2.0, x.numel(), 512);
        stream.synchronize();
        if (!at::allclose(out, x * 2 + y)) ++failures[t];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t << " (device " << t % 2 << ")";
}

TEST_F(TwoGpus, TensorsOnTwoDevicesAreAnError) {
  at::Tensor x = at::randn({1024}, on(0));
  at::Tensor y = at::randn({1024}, on(1));
  at::Tensor out = at::empty_like(x);
  try {
    scale_add()(config_for(1024, 1024, c10::cuda::getCurrentCUDAStream(0)), x, y, out, 2.0, 1024, 1024);
    ADD_FAILURE() << "tensors on devices 0 and 1 were launched together";
  } catch (const triton_jit::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scale_add"), std::string::npos) << what;
    EXPECT_NE(what.find("y_ptr"), std::string::npos) << what;
    EXPECT_NE(what.find("expected a CUDA tensor on device 0, got a tensor on CUDA device 1"), std::string::npos)
        << what;
  }
}

// A decorated kernel's memo keeps each device's calls apart, and mixing devices is still refused
// when the memo knows the call.
TEST_F(TwoGpus, DecoratedCallsOnEachDeviceAreRememberedApart) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "scale_tuned");
  auto config = [](int device) {
    LaunchConfig c;
    c.stream = reinterpret_cast<triton_jit::Stream>(c10::cuda::getCurrentCUDAStream(device).stream());
    c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
      return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
    };
    return c;
  };
  triton_jit::set_stats_enabled(true);
  const auto before = k.stats();
  for (int pass = 0; pass < 2; ++pass) {
    for (int device : {0, 1}) {
      for (int i = 0; i < 4; ++i) {  // the first of each four may miss (the other device's entry)
        at::Tensor x = at::randn({4000}, on(device));
        at::Tensor out = at::empty_like(x);
        k(config(device), x, out, x.numel(), 3.0f);
        c10::cuda::getCurrentCUDAStream(device).synchronize();
        EXPECT_TRUE(at::allclose(out, x * 3.0)) << "device " << device << ", call " << i;
      }
    }
  }
  const auto after = k.stats();
  triton_jit::set_stats_enabled(false);
  EXPECT_GE(after.remembered - before.remembered, 12u);
  at::Tensor x = at::randn({4000}, on(0));
  at::Tensor out = at::empty({4000}, on(1));
  try {
    k(config(0), x, out, 4000, 3.0f);
    ADD_FAILURE() << "tensors on devices 0 and 1 were launched together";
  } catch (const triton_jit::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scale_tuned: argument 1 'out_ptr' expected a CUDA tensor on device 0, got a tensor on CUDA "
                        "device 1"),
              std::string::npos)
        << what;
  }
}

// ---- CUDA graphs ----------------------------------------------------------------------------

TEST_F(Production, AtenCudaGraphReplaysCapturedLaunches) {
  at::Tensor x = at::randn({1 << 20}, on(0));
  at::Tensor y = at::randn({1 << 20}, on(0));
  at::Tensor out = at::zeros_like(x);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  const LaunchConfig c = config_for(x.numel(), 1024, stream);
  scale_add().prepare(c, x, y, out, 2.0, x.numel(), 1024);  // compiled and loaded ahead of the capture
  at::cuda::CUDAGraph graph;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin();
    scale_add()(c, x, y, out, 2.0, x.numel(), 1024);
    scale_add()(c, out, y, out, 2.0, x.numel(), 1024);  // reads what the first launch wrote
    graph.capture_end();
  }
  for (int replay = 0; replay < 3; ++replay) {
    x.normal_();
    graph.replay();
    c10::cuda::getCurrentCUDAStream().synchronize();
    EXPECT_TRUE(at::allclose(out, (x * 2 + y) * 2 + y)) << "replay " << replay;
  }
}

TEST_F(Production, RawStreamCaptureReplays) {
  at::Tensor x = at::randn({65536}, on(0));
  at::Tensor y = at::randn({65536}, on(0));
  at::Tensor out = at::zeros_like(x);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  const LaunchConfig c = config_for(x.numel(), 256, stream);
  scale_add().prepare(c, x, y, out, 2.0, x.numel(), 256);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream.stream(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  scale_add()(c, x, y, out, 2.0, x.numel(), 256);
  ASSERT_EQ(cudaStreamEndCapture(stream.stream(), &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  size_t nodes = 0;
  ASSERT_EQ(cudaGraphGetNodes(graph, nullptr, &nodes), cudaSuccess);
  EXPECT_EQ(nodes, 1u) << "one launch, one kernel node";
  for (int replay = 0; replay < 3; ++replay) {
    x.normal_();
    c10::cuda::getCurrentCUDAStream().synchronize();
    ASSERT_EQ(cudaGraphLaunch(exec, stream.stream()), cudaSuccess);
    stream.synchronize();
    expect_scale_add(x, y, out);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_F(Production, AVariantFirstLaunchedDuringCaptureCompilesLoadsAndReplays) {
  // BLOCK = 128 is launched nowhere else: its compile and module load happen inside the capture,
  // which loading in the relaxed capture mode keeps valid.
  at::Tensor x = at::randn({30000}, on(0));
  at::Tensor y = at::randn({30000}, on(0));
  at::Tensor out = at::zeros_like(x);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  at::cuda::CUDAGraph graph;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin();
    scale_add()(config_for(x.numel(), 128, stream), x, y, out, 2.0, x.numel(), 128);
    graph.capture_end();
  }
  graph.replay();
  c10::cuda::getCurrentCUDAStream().synchronize();
  expect_scale_add(x, y, out);
}

TEST_F(Production, GlobalScratchOfACapturedLaunchComesFromTheGraphPool) {
  // descriptor_double makes a device-side TMA descriptor in global scratch, which the allocator
  // hands out from the graph's private pool during the capture: still valid at every replay.
  auto& k = TritonJITFunction::get_instance(kKernels + "/gpu_kernels.py", "descriptor_double");
  at::Tensor x = at::randn({256, 512}, on(0));
  at::Tensor out = at::zeros_like(x);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  LaunchConfig c;
  c.stream = reinterpret_cast<triton_jit::Stream>(stream.stream());
  c.grid = {256 / 64, 512 / 64, 1};
  ASSERT_GT(k.prepare(c, x, out, 256, 512, 64, 64).global_scratch_size, 0);
  at::cuda::CUDAGraph graph;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin();
    k(c, x, out, 256, 512, 64, 64);
    graph.capture_end();
  }
  // Memory freed after the capture and allocated again must not be the graph's scratch.
  for (int i = 0; i < 4; ++i) at::randn({1 << 22}, on(0)).fill_(-1.0f);
  for (int replay = 0; replay < 3; ++replay) {
    x.normal_();
    graph.replay();
    c10::cuda::getCurrentCUDAStream().synchronize();
    EXPECT_TRUE(at::equal(out, x * 2)) << "replay " << replay;
  }
}

TEST_F(Production, TuningInsideACaptureIsAClearErrorAndPrepareTunesAhead) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "scale_tuned");
  const int64_t n = 12345 * 7;  // a key no other test tunes
  at::Tensor x = at::randn({n}, on(0));
  at::Tensor out = at::zeros_like(x);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  LaunchConfig c;
  c.stream = reinterpret_cast<triton_jit::Stream>(stream.stream());
  c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
    return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
  };
  {
    at::cuda::CUDAGraph graph;
    c10::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin();
    out.zero_();  // torch work in the same graph, which the failed launch must leave capturable
    std::string what;
    try {
      k(c, x, out, n, 3.0f);
    } catch (const triton_jit::Error& e) {
      what = e.what();
    }
    graph.capture_end();
    EXPECT_NE(what.find("capturing a CUDA graph"), std::string::npos) << "error: '" << what << "'";
    EXPECT_NE(what.find("n=" + std::to_string(n)), std::string::npos) << what;
  }
  k.prepare(c, x, out, n, 3.0f);  // tunes the key, compiles and loads, outside the capture
  ASSERT_TRUE(k.autotune_choice(c, x, out, n, 3.0f).has_value());
  at::cuda::CUDAGraph graph;
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin();
    k(c, x, out, n, 3.0f);
    graph.capture_end();
  }
  x.normal_();
  graph.replay();
  c10::cuda::getCurrentCUDAStream().synchronize();
  EXPECT_TRUE(at::allclose(out, x * 3.0));
}

// ---- streams and events ---------------------------------------------------------------------

TEST_F(Production, LaunchWaitsForTorchWorkQueuedBeforeItOnItsStream) {
  // The GPU is held busy on `stream`, then torch writes x there; launched on any other stream,
  // the kernel would read x before the write.
  at::Tensor x = at::zeros({1 << 20}, on(0));
  at::Tensor y = at::randn({1 << 20}, on(0));
  at::Tensor out = at::empty_like(x);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  scale_add().prepare(config_for(x.numel(), 1024, stream), x, y, out, 2.0, x.numel(), 1024);
  {
    c10::cuda::CUDAStreamGuard guard(stream);
    at::cuda::sleep(200 * 1000 * 1000);  // about 0.1 s of spinning
    x.fill_(1.0f);
    scale_add()(config_for(x.numel(), 1024, stream), x, y, out, 2.0, x.numel(), 1024);
  }
  stream.synchronize();
  EXPECT_TRUE(at::allclose(out, 2 + y));
}

TEST_F(Production, LaunchAfterAnEventWaitSeesTheOtherStreamsWrite) {
  at::Tensor x = at::zeros({1 << 20}, on(0));
  at::Tensor y = at::randn({1 << 20}, on(0));
  at::Tensor out = at::empty_like(x);
  c10::cuda::CUDAStream producer = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStream consumer = c10::cuda::getStreamFromPool();
  scale_add().prepare(config_for(x.numel(), 1024, consumer), x, y, out, 2.0, x.numel(), 1024);
  at::cuda::CUDAEvent written;
  {
    c10::cuda::CUDAStreamGuard guard(producer);
    at::cuda::sleep(200 * 1000 * 1000);
    x.fill_(5.0f);
    written.record(producer);
  }
  written.block(consumer);
  scale_add()(config_for(x.numel(), 1024, consumer), x, y, out, 2.0, x.numel(), 1024);
  // And torch's work after the launch, on the consumer stream, sees its result.
  at::Tensor doubled;
  {
    c10::cuda::CUDAStreamGuard guard(consumer);
    doubled = out * 2;
  }
  consumer.synchronize();
  EXPECT_TRUE(at::allclose(out, 10 + y));
  EXPECT_TRUE(at::allclose(doubled, (10 + y) * 2));
}

// Host-side TMA descriptors (Note [Tensor descriptor parameters]): a persistent matmul that reads
// A and B and writes C through tensor maps, against torch, in fp16 and bf16, on sizes that are
// and are not multiples of its blocks.
namespace {

const TritonJITFunction& tma_matmul() {
  return TritonJITFunction::get_instance(kKernels + "/tma_kernels.py", "matmul_tma_persistent");
}

int sm_count() {
  int count = 0;
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, c10::cuda::current_device());
  return count;
}

// C = A @ B^T through descriptors; B is (N, K).
void tma_matmul_into(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) {
  constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 64;
  const int64_t m = a.size(0), n = b.size(0), k = a.size(1);
  const auto a_desc = triton_jit::torch_adapter::tensor_descriptor(a, {kBlockM, kBlockK});
  const auto b_desc = triton_jit::torch_adapter::tensor_descriptor(b, {kBlockN, kBlockK});
  const auto c_desc = triton_jit::torch_adapter::tensor_descriptor(c, {kBlockM, kBlockN});
  const int sms = sm_count();
  const int64_t tiles = ((m + kBlockM - 1) / kBlockM) * ((n + kBlockN - 1) / kBlockN);
  LaunchConfig cfg;
  cfg.stream = triton_jit::torch_adapter::current_stream();
  cfg.grid = {static_cast<unsigned>(std::min<int64_t>(sms, tiles)), 1, 1};
  cfg.num_warps = 8;
  cfg.num_stages = 3;
  tma_matmul()(cfg, a_desc, b_desc, c_desc, m, n, k, kBlockM, kBlockN, kBlockK, 8, sms);
}

}  // namespace

TEST_F(Production, PersistentTmaMatmulMatchesTorch) {
  const int64_t shapes[][3] = {{1024, 1024, 1024}, {4096, 4096, 4096}, {1000, 1008, 1024}, {16, 4096, 2048}};
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    for (const auto& s : shapes) {
      at::manual_seed(0);
      const auto options = at::TensorOptions().device(at::kCUDA).dtype(dtype);
      at::Tensor a = at::randn({s[0], s[2]}, options), b = at::randn({s[1], s[2]}, options);
      at::Tensor c = at::full({s[0], s[1]}, 7.0, options);
      tma_matmul_into(a, b, c);
      const at::Tensor want = at::matmul(a.to(at::kFloat), b.to(at::kFloat).t());
      const double error = ((c.to(at::kFloat) - want).norm() / want.norm()).item<double>();
      std::printf("tma matmul %ldx%ldx%ld %s: relative error %.2e\n", s[0], s[1], s[2],
                  dtype == at::kHalf ? "fp16" : "bf16", error);
      EXPECT_LT(error, dtype == at::kHalf ? 2e-3 : 1e-2) << s[0] << "x" << s[1] << "x" << s[2];
    }
  }
}

TEST_F(Production, ATensorDescriptorOnTheCpuIsAClearError) {
  const auto cpu = at::zeros({128, 64}, at::TensorOptions().dtype(at::kHalf));
  const auto gpu = at::zeros({128, 64}, at::TensorOptions().device(at::kCUDA).dtype(at::kHalf));
  const auto& f = TritonJITFunction::get_instance(kKernels + "/tma_kernels.py", "copy_tiles");
  LaunchConfig cfg;
  cfg.grid = {2, 2, 1};
  try {
    f(cfg, triton_jit::torch_adapter::tensor_descriptor(gpu, {64, 32}),
      triton_jit::torch_adapter::tensor_descriptor(cpu, {64, 32}), 128, 64, 64, 32);
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("copy_tiles: argument 1 'out_desc' expected a CUDA tensor on device 0, got a "
                                         "CPU tensor"),
              std::string::npos)
        << e.what();
  }
}
