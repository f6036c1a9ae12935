// The persistent TMA matmul of tests/kernels/tma_kernels.py launched through triton_jit with
// host-side tensor descriptors, for benchmarks/tma/compare.py: per dtype and shape, one JSON line
// with the error against torch, the time per launch of 100 back-to-back launches (CUDA events)
// and the host time per call (descriptors built and launched, no synchronisation).
//   tma_matmul <tma_kernels.py>
#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/randn.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <triton_jit/torch.h>

namespace {

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 64, kGroupM = 8;

struct Matmul {
  const triton_jit::TritonJITFunction& kernel;
  int sms;
  void operator()(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) const {
    const int64_t m = a.size(0), n = b.size(0), k = a.size(1);
    const auto a_desc = triton_jit::torch_adapter::tensor_descriptor(a, {kBlockM, kBlockK});
    const auto b_desc = triton_jit::torch_adapter::tensor_descriptor(b, {kBlockN, kBlockK});
    const auto c_desc = triton_jit::torch_adapter::tensor_descriptor(c, {kBlockM, kBlockN});
    const int64_t tiles = ((m + kBlockM - 1) / kBlockM) * ((n + kBlockN - 1) / kBlockN);
    triton_jit::LaunchConfig cfg;
    cfg.stream = triton_jit::torch_adapter::current_stream();
    cfg.grid = {static_cast<unsigned>(std::min<int64_t>(sms, tiles)), 1, 1};
    cfg.num_warps = 8;
    cfg.num_stages = 3;
    kernel(cfg, a_desc, b_desc, c_desc, m, n, k, kBlockM, kBlockN, kBlockK, kGroupM, sms);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tma_matmul <tma_kernels.py>\n");
    return 2;
  }
  if (!triton_jit::cuda_available()) {
    std::printf("skipped: no GPU\n");
    return 0;
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const Matmul matmul{triton_jit::TritonJITFunction::get_instance(argv[1], "matmul_tma_persistent"), sms};
  const int64_t shapes[][3] = {
      {512, 512, 512}, {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1008, 1024}};
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    for (const auto& s : shapes) {
      at::manual_seed(0);
      const auto options = at::TensorOptions().device(at::kCUDA).dtype(dtype);
      at::Tensor a = at::randn({s[0], s[2]}, options), b = at::randn({s[1], s[2]}, options);
      at::Tensor c = at::empty({s[0], s[1]}, options);
      matmul(a, b, c);  // compiles and loads
      const at::Tensor want = at::matmul(a.to(at::kFloat), b.to(at::kFloat).t());
      const double error = ((c.to(at::kFloat) - want).norm() / want.norm()).item<double>();
      // GPU time per launch: 100 back-to-back launches between two events, median of 5.
      std::vector<double> per_launch;
      for (int r = 0; r < 5; ++r) {
        at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
        c10::cuda::device_synchronize();
        start.record();
        for (int i = 0; i < 100; ++i) matmul(a, b, c);
        end.record();
        end.synchronize();
        per_launch.push_back(start.elapsed_time(end) / 100.0);
      }
      std::sort(per_launch.begin(), per_launch.end());
      // Host time per call: descriptors made and the launch queued, 50 calls, median of 5.
      std::vector<double> host_us;
      for (int r = 0; r < 5; ++r) {
        c10::cuda::device_synchronize();
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 50; ++i) matmul(a, b, c);
        host_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
                          50);
      }
      std::sort(host_us.begin(), host_us.end());
      c10::cuda::device_synchronize();
      std::printf(
          "{\"dtype\": \"%s\", \"M\": %ld, \"N\": %ld, \"K\": %ld, \"ms\": %.5f, \"host_us\": %.2f, "
          "\"rel_error\": %.2e}\n",
          dtype == at::kHalf ? "float16" : "bfloat16", s[0], s[1], s[2], per_launch[2], host_us[2], error);
      std::fflush(stdout);
    }
  }
  return 0;
}
