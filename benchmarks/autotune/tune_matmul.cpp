// Autotunes tests/kernels/gpu_decorated.py's matmul through triton_jit for each dtype and shape of
// compare.py, and prints one JSON line each: the chosen config, the first call's wall time (its
// compiles and benchmarks included) and the error against at::matmul.
//   tune_matmul <gpu_decorated.py>
#include <ATen/Context.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/randn.h>
#include <c10/cuda/CUDAFunctions.h>

#include <chrono>
#include <cstdio>

#include <triton_jit/torch.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tune_matmul <gpu_decorated.py>\n");
    return 2;
  }
  if (!triton_jit::cuda_available()) {
    std::printf("skipped: no GPU\n");
    return 0;
  }
  triton_jit::torch_adapter::install_scratch_allocator();
  auto& k = triton_jit::TritonJITFunction::get_instance(argv[1], "matmul_kernel");
  const int64_t shapes[][3] = {{4096, 4096, 4096}, {16, 4096, 4096}, {1000, 1000, 1000}, {8192, 1024, 2048}};
  for (auto dtype : {at::kHalf, at::kBFloat16}) {
    for (const auto& s : shapes) {
      const int64_t m = s[0], n = s[1], kk = s[2];
      at::manual_seed(0);
      auto options = at::TensorOptions().device(at::kCUDA).dtype(dtype);
      at::Tensor a = at::randn({m, kk}, options), b = at::randn({kk, n}, options), c = at::empty({m, n}, options);
      triton_jit::LaunchConfig config;
      config.stream = triton_jit::torch_adapter::current_stream();
      config.grid_fn = [](const triton_jit::LaunchMeta& meta, void*) {
        return triton_jit::Grid{
            triton_jit::cdiv(meta["M"], meta["BLOCK_M"]) * triton_jit::cdiv(meta["N"], meta["BLOCK_N"]), 1, 1};
      };
      c10::cuda::device_synchronize();
      const auto started = std::chrono::steady_clock::now();
      k(config, a, b, c, m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1));
      c10::cuda::device_synchronize();
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      auto choice = k.autotune_choice(config, a, b, c, m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                      c.stride(0), c.stride(1));
      auto want = at::matmul(a.to(at::kFloat), b.to(at::kFloat));
      const double error = ((c.to(at::kFloat) - want).norm() / want.norm()).item<double>();
      std::printf(
          "{\"dtype\": \"%s\", \"M\": %ld, \"N\": %ld, \"K\": %ld, \"config\": %d, \"ms\": %.5f, "
          "\"first_call_s\": %.3f, \"rel_error\": %.2e}\n",
          dtype == at::kHalf ? "float16" : "bfloat16", m, n, kk, choice ? choice->config : -1,
          choice ? choice->milliseconds : 0.0, seconds, error);
      std::fflush(stdout);
    }
  }
  return 0;
}
