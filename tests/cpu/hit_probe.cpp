// The host cost of cache hits on the stand-in driver, paired as benchmarks/launch_benchmark.cpp
// pairs them on a GPU (Note [Paired timing] there): a raw cuLaunchKernelEx, a plain hit, and a hit
// on a kernel with @triton.autotune and @triton.heuristics against the same kernel undecorated.
// With FAKE_CUDA_EVICT_KB set, each launch evicts the caller's data as the real driver's does,
// which is where the extra memory a hit reads shows up. A development tool: it prints, it does
// not judge (timing targets live in the GPU benchmarks).
// Usage: hit_probe <bench_kernels.py> [rounds] [only: raw, plain, many, decorated or undecorated]
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <triton_jit/triton_jit.h>

namespace {

using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Fn>
double batch_ns(Fn&& launch) {
  constexpr int kBatch = 256;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kBatch; ++i) launch();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kBatch;
}

using LaunchEx = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);

LaunchEx raw_launch(const char* driver) {
  void* lib = dlopen(driver, RTLD_NOW | RTLD_LOCAL);
  using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto get = lib ? reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2")) : nullptr;
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  if (get == nullptr || get("cuLaunchKernelEx", &fn, 12000, 0, &status) != CUDA_SUCCESS) return nullptr;
  return reinterpret_cast<LaunchEx>(fn);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: hit_probe <bench_kernels.py> [rounds]\n");
    return 2;
  }
  const char* driver = std::getenv("TRITON_JIT_CUDA_DRIVER");
  if (driver == nullptr) {
    std::fprintf(stderr, "hit_probe: set TRITON_JIT_CUDA_DRIVER to the stand-in driver\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
  const std::string only = argc > 3 ? argv[3] : "";  // one kind of call alone, for cache simulators
  auto runs = [&](const char* kind) { return only.empty() || only == kind; };
  try {
    alignas(64) static float x[4096], y[4096], out[4096];
    auto px = triton_jit::device_pointer(x, DType::kFloat32), py = triton_jit::device_pointer(y, DType::kFloat32),
         pout = triton_jit::device_pointer(out, DType::kFloat32);
    constexpr int n = 1024;
    const auto& small = TritonJITFunction::get_instance(argv[1], "add_small");
    const auto& tuned = TritonJITFunction::get_instance(argv[1], "add_tuned");
    const auto& untuned = TritonJITFunction::get_instance(argv[1], "add_untuned");
    const auto& many = TritonJITFunction::get_instance(argv[1], "add_many");
    LaunchConfig c;
    c.num_warps = 4;
    small(c, px, py, pout, n, 1024);
    many(c, px, py, pout, n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1024);
    tuned(c, px, py, pout, n);
    const auto choice = tuned.autotune_choice(c, px, py, pout, n);
    static const int64_t kBlocks[] = {1024, 512, 256, 128};
    const int64_t block = kBlocks[choice ? choice->config : 0];
    untuned(c, px, py, pout, n, block, n % block == 0);

    LaunchEx raw = raw_launch(driver);
    CUlaunchConfig rc{};
    rc.gridDimX = rc.gridDimY = rc.gridDimZ = rc.blockDimY = rc.blockDimZ = 1;
    rc.blockDimX = 128;
    void* xp = x;
    void* yp = y;
    void* op = out;
    int32_t nn = n;
    void* scratch = nullptr;
    void* params[] = {&xp, &yp, &op, &nn, &scratch, &scratch};

    std::vector<double> r, plain, wide, dec, und, plain_minus_raw, dec_minus_und;
    for (int round = 0; round < rounds; ++round) {
      const double a = raw && runs("raw") ? batch_ns([&] { raw(&rc, nullptr, params, nullptr); }) : 0;
      const double b = runs("plain") ? batch_ns([&] { small(c, px, py, pout, n, 1024); }) : 0;
      const double m =
          runs("many") ? batch_ns([&] { many(c, px, py, pout, n, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1024); }) : 0;
      const double d = runs("decorated") ? batch_ns([&] { tuned(c, px, py, pout, n); }) : 0;
      const double u = runs("undecorated") ? batch_ns([&] { untuned(c, px, py, pout, n, block, n % block == 0); }) : 0;
      r.push_back(a);
      plain.push_back(b);
      wide.push_back(m);
      dec.push_back(d);
      und.push_back(u);
      plain_minus_raw.push_back(b - a);
      dec_minus_und.push_back(d - u);
    }
    std::printf("host ns per launch on the stand-in driver (evicting %s KB per launch; %d rounds of 256; median)\n",
                std::getenv("FAKE_CUDA_EVICT_KB") ? std::getenv("FAKE_CUDA_EVICT_KB") : "0", rounds);
    std::printf("  raw cuLaunchKernelEx                 %8.1f\n", median(r));
    std::printf("  plain hit (add_small)                %8.1f   hit - raw %+7.1f\n", median(plain),
                median(plain_minus_raw));
    std::printf("  plain hit, 16 arguments (add_many)   %8.1f\n", median(wide));
    std::printf("  decorated hit (add_tuned)            %8.1f\n", median(dec));
    std::printf("  undecorated, BLOCK and EVEN passed   %8.1f   decorated - undecorated %+7.1f\n", median(und),
                median(dec_minus_und));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
