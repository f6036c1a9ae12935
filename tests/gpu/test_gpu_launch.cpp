// Launch features on a real GPU, checked against PyTorch on fresh random inputs. Every test
// skips, visibly, on a machine without a GPU.
#include <gtest/gtest.h>

#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/allclose.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/full.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <fstream>
#include <string>
#include <thread>

#include <triton_jit/torch.h>

#include "../common/fresh_cache.h"
#include "../common/test_paths.h"

#include "../common/allocation_counter.h"
#include "common/ops.h"

using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

const std::string kKernels = triton_jit::test::kKernelsDir;

const TritonJITFunction& gpu_kernel(const char* name) {
  return TritonJITFunction::get_instance(kKernels + "/gpu_kernels.py", name);
}

class Gpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!triton_jit::cuda_available()) GTEST_SKIP() << "no GPU: launch tests run on the GPU machine";
    triton_jit::torch_adapter::install_scratch_allocator();
  }
  static at::TensorOptions cuda(at::ScalarType t = at::kFloat) {
    return at::TensorOptions().device(at::kCUDA).dtype(t);
  }
};

void expect_close(const at::Tensor& got, const at::Tensor& want, double tol) {
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.scalar_type(), want.scalar_type());
  double err = (got.to(at::kDouble) - want.to(at::kDouble)).abs().max().item<double>();
  double scale = std::max(1.0, want.to(at::kDouble).abs().max().item<double>());
  EXPECT_LE(err, tol * scale) << "max abs error " << err;
}

LaunchConfig grid_for(int64_t n, int64_t block) {
  LaunchConfig c;
  c.stream = triton_jit::torch_adapter::current_stream();
  c.grid = {static_cast<unsigned>((n + block - 1) / block), 1, 1};
  c.num_warps = 4;
  c.num_stages = 3;
  return c;
}

long resident_pages() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident;
}

}  // namespace

TEST_F(Gpu, AddBroadcastsAndPromotesLikeTorch) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    at::Tensor a = at::randn({257, 1000}, cuda(dtype));
    at::Tensor row = at::randn({1000}, cuda(dtype));
    at::Tensor col = at::randn({257, 1}, cuda(at::kFloat));
    expect_close(triton_jit::ops::add(a, row), at::add(a, row), 1e-2);
    expect_close(triton_jit::ops::add(a, col), at::add(a, col), 1e-5);
    expect_close(triton_jit::ops::add(a, c10::Scalar(3)), at::add(a, 3), 1e-2);
    expect_close(triton_jit::ops::add(a, c10::Scalar(0.25)), at::add(a, 0.25), 1e-2);
  }
  at::Tensor five = at::randn({2, 3, 1, 5, 7}, cuda());
  at::Tensor five_b = at::randn({3, 4, 1, 7}, cuda());
  expect_close(triton_jit::ops::add(five, five_b), at::add(five, five_b), 1e-6);  // rank 5: flattened path
  at::Tensor scalar_tensor = at::randn({}, cuda());
  expect_close(triton_jit::ops::add(scalar_tensor, five_b), at::add(scalar_tensor, five_b), 1e-6);
  at::Tensor i = at::randint(-100, 100, {4096}, cuda(at::kInt));
  expect_close(triton_jit::ops::add(i, i), at::add(i, i), 0);
}

TEST_F(Gpu, AddTakesNonContiguousInputsThroughStrides) {
  at::Tensor a = at::randn({512, 768}, cuda()).t();
  at::Tensor b = at::randn({768, 1024}, cuda()).slice(1, 0, 1024, 2);
  expect_close(triton_jit::ops::add(a, b), at::add(a, b), 1e-6);
}

TEST_F(Gpu, SumOverADimMatchesTorch) {
  for (auto dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    at::Tensor x = at::randn({33, 517, 9}, cuda(dtype));
    for (int64_t dim : {0, 1, 2, -1}) {
      for (bool keepdim : {false, true}) {
        double tol = dtype == at::kFloat ? 1e-5 : 1e-2;
        expect_close(triton_jit::ops::sum(x, {dim}, keepdim), at::sum(x, {dim}, keepdim), tol);
      }
    }
  }
}

TEST_F(Gpu, LaunchesOnANonDefaultStream) {
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard guard(stream);
  at::Tensor x = at::randn({1 << 20}, cuda());
  at::Tensor y = at::randn({1 << 20}, cuda());
  at::Tensor out = at::empty_like(x);
  LaunchConfig c = grid_for(x.numel(), 1024);
  ASSERT_EQ(c.stream, reinterpret_cast<triton_jit::Stream>(stream.stream()));
  gpu_kernel("scale_add")(c, x, y, out, 2.0, x.numel(), 1024);
  stream.synchronize();
  expect_close(out, x * 2 + y, 1e-6);
}

TEST_F(Gpu, ClusterLaunchWithTwoCtas) {
  at::Tensor x = at::randn({100000}, cuda());
  at::Tensor y = at::randn({100000}, cuda());
  at::Tensor out = at::empty_like(x);
  LaunchConfig c = grid_for(x.numel(), 1024);
  c.num_ctas = 2;
  auto info = gpu_kernel("scale_add").warmup(c, x, y, out, 0.5, x.numel(), 1024);
  EXPECT_EQ(info.num_ctas, 2);
  gpu_kernel("scale_add")(c, x, y, out, 0.5, x.numel(), 1024);
  expect_close(out, x * 0.5 + y, 1e-6);
}

TEST_F(Gpu, GlobalScratchComesFromTheAllocator) {
  at::Tensor x = at::randn({256, 512}, cuda());
  at::Tensor out = at::zeros_like(x);
  LaunchConfig c;
  c.stream = triton_jit::torch_adapter::current_stream();
  c.grid = {256 / 64, 512 / 64, 1};
  auto& k = gpu_kernel("descriptor_double");
  auto info = k.warmup(c, x, out, 256, 512, 64, 64);
  EXPECT_GT(info.global_scratch_size, 0);
  k(c, x, out, 256, 512, 64, 64);
  expect_close(out, x * 2, 0);

  triton_jit::ScratchAllocator* previous = triton_jit::set_scratch_allocator(nullptr);
  try {
    k(c, x, out, 256, 512, 64, 64);
    ADD_FAILURE() << "a kernel needing scratch launched without an allocator";
  } catch (const triton_jit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("no scratch allocator is set"), std::string::npos) << e.what();
  }
  triton_jit::set_scratch_allocator(previous);
}

TEST_F(Gpu, SharedMemoryAbove48KiB) {
  at::Tensor a = at::randn({512, 512}, cuda(at::kHalf));
  at::Tensor b = at::randn({512, 512}, cuda(at::kHalf));
  at::Tensor out = at::empty({512, 512}, cuda(at::kHalf));
  LaunchConfig c;
  c.stream = triton_jit::torch_adapter::current_stream();
  c.grid = {512 / 128, 512 / 128, 1};
  c.num_warps = 8;
  c.num_stages = 4;
  auto& k = gpu_kernel("matmul");
  auto info = k.warmup(c, a, b, out, 512, 512, 512, 512, 1, 512, 1, 512, 1, 128, 128, 64);
  EXPECT_GT(info.shared_memory, 49152);
  k(c, a, b, out, 512, 512, 512, 512, 1, 512, 1, 512, 1, 128, 128, 64);
  expect_close(out, at::matmul(a, b), 2e-2);
}

TEST_F(Gpu, SharedMemoryOverTheDeviceLimitIsAClearError) {
  at::Tensor a = at::randn({1024, 1024}, cuda());
  LaunchConfig c;
  c.grid = {1, 1, 1};
  c.num_warps = 8;
  c.num_stages = 6;
  try {
    gpu_kernel("matmul")(c, a, a, a, 1024, 1024, 1024, 1024, 1, 1024, 1, 1024, 1, 256, 256, 128);
    ADD_FAILURE() << "no error for a kernel over the shared memory limit";
  } catch (const triton_jit::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bytes of shared memory, over the"), std::string::npos) << e.what();
  }
}

TEST_F(Gpu, CooperativeAndProgrammaticDependentLaunches) {
  at::Tensor x = at::randn({8192}, cuda());
  at::Tensor y = at::randn({8192}, cuda());
  at::Tensor out = at::empty_like(x);
  LaunchConfig c = grid_for(x.numel(), 1024);
  c.launch_cooperative_grid = true;
  gpu_kernel("scale_add")(c, x, y, out, 3.0, x.numel(), 1024);
  expect_close(out, x * 3 + y, 1e-6);
  c.launch_cooperative_grid = false;
  c.launch_pdl = true;
  gpu_kernel("scale_add")(c, x, y, out, -1.0, x.numel(), 1024);
  expect_close(out, y - x, 1e-6);
}

TEST_F(Gpu, CpuTensorIsAClearError) {
  at::Tensor x = at::randn({16}, cuda());
  at::Tensor host = at::randn({16});
  try {
    gpu_kernel("scale_add")(grid_for(16, 1024), x, host, x, 1.0, 16, 1024);
    ADD_FAILURE() << "a CPU tensor was accepted";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_STREQ(e.what(), "scale_add: argument 1 'y_ptr' expected a CUDA tensor on device 0, got a CPU tensor");
  }
}

TEST_F(Gpu, EmptyGridLaunchesNothing) {
  at::Tensor x = at::randn({16}, cuda());
  LaunchConfig c = grid_for(16, 1024);
  c.grid = {0, 1, 1};
  EXPECT_NO_THROW(gpu_kernel("scale_add")(c, x, x, x, 1.0, 16, 1024));
}

TEST_F(Gpu, ThousandRelaunchesNeitherRecompileNorGrow) {
  at::Tensor x = at::randn({4096}, cuda());
  at::Tensor y = at::randn({4096}, cuda());
  at::Tensor out = at::empty_like(x);
  auto& k = gpu_kernel("scale_add");
  LaunchConfig c = grid_for(x.numel(), 1024);
  k(c, x, y, out, 1.5, x.numel(), 1024);
  c10::cuda::device_synchronize();
  auto compiles = k.stats().compiles;
  auto device_bytes = c10::cuda::CUDACachingAllocator::getDeviceStats(0).allocated_bytes[0].current;
  long pages = resident_pages();
  for (int i = 0; i < 1000; ++i) k(c, x, y, out, 1.5, x.numel(), 1024);
  c10::cuda::device_synchronize();
  EXPECT_EQ(k.stats().compiles, compiles);
  EXPECT_EQ(c10::cuda::CUDACachingAllocator::getDeviceStats(0).allocated_bytes[0].current, device_bytes);
  EXPECT_LE(resident_pages() - pages, 16) << "host memory grew over 1000 launches";
  expect_close(out, x * 1.5 + y, 1e-6);
}

TEST_F(Gpu, ManyThreadsManyVariantsAllCorrect) {
  constexpr int kThreads = 16;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
        c10::cuda::CUDAStreamGuard guard(stream);
        for (int iter = 0; iter < 20; ++iter) {
          int64_t n = 1000 + 16 * ((t + iter) % 4) + (iter % 2);  // several specializations
          auto dtype = (t + iter) % 3 == 0 ? at::kHalf : at::kFloat;
          at::Tensor x = at::randn({n}, cuda(dtype));
          at::Tensor y = at::randn({n}, cuda(dtype));
          at::Tensor s = triton_jit::ops::add(x, y);
          at::Tensor r = triton_jit::ops::sum(x.view({-1, 1}), 0, false);
          stream.synchronize();
          double tol = dtype == at::kHalf ? 1e-2 : 1e-5;
          if (!at::allclose(s.to(at::kFloat), (x + y).to(at::kFloat), tol, tol)) ++failures;
          if (!at::allclose(r.to(at::kFloat), x.to(at::kFloat).sum({0}), tol * 10, tol * 10)) ++failures;
        }
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// What used to reach the driver as CUDA_ERROR_INVALID_VALUE is refused before it, naming the
// kernel, the request and the kernel's limit on this device.
TEST_F(Gpu, ASharedMemoryRequestOverTheKernelsLimitIsRefusedBeforeTheDriver) {
  at::Tensor x = at::randn({16}, cuda());
  LaunchConfig c = grid_for(16, 1024);
  c.shared_memory = 1 << 30;
  try {
    gpu_kernel("scale_add")(c, x, x, x, 1.0, 16, 1024);
    ADD_FAILURE() << "an impossible launch did not fail";
  } catch (const triton_jit::ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scale_add: LaunchConfig::shared_memory asks for 1073741824 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("may take at most 49152"), std::string::npos) << what;
  }
  c.shared_memory = 0;
  gpu_kernel("scale_add")(c, x, x, x, 1.0, 16, 1024);  // and the function still launches
  c10::cuda::device_synchronize();
}

TEST_F(Gpu, NoHeapAllocationOnACacheHit) {
  if (!kAllocationCountingAvailable) GTEST_SKIP() << "allocation counting is off under sanitizers";
  at::Tensor x = at::randn({4096}, cuda());
  at::Tensor y = at::randn({4096}, cuda());
  at::Tensor out = at::empty_like(x);
  auto& k = gpu_kernel("scale_add");
  LaunchConfig c = grid_for(x.numel(), 1024);
  k(c, x, y, out, 2.0, x.numel(), 1024);
  long allocations;
  {
    CountAllocations counter;  // our code and the driver's, up to and through cuLaunchKernelEx
    for (int i = 0; i < 1000; ++i) k(c, x, y, out, 2.0, x.numel(), 1024);
    allocations = counter.count();
  }
  c10::cuda::device_synchronize();
  EXPECT_EQ(allocations, 0);
  expect_close(out, x * 2 + y, 1e-6);
}

TEST_F(Gpu, TupleArgumentsReachTheKernelElementByElement) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/parity_kernels.py", "tuples");
  for (int64_t n : {1000, 4096}) {
    at::Tensor x = at::randn({n}, cuda());
    at::Tensor out = at::full({n}, std::nan(""), cuda());
    LaunchConfig c = grid_for(n, 256);
    k(c, std::make_tuple(x, out), std::array<int64_t, 2>{n, n}, 3.0f, std::make_tuple(std::string_view("fast")), 256);
    expect_close(out, x * 3.0, 1e-6);
  }
}
