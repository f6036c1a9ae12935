// Host time per launch on a GPU: raw cuLaunchKernelEx of the same cubin (the floor), our call in
// both forms, our operator through the dispatcher against at::add, and launches per second
// from several threads. Prints "skipped: no GPU" and exits 0 on machines without one.
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/randn.h>
#include <benchmark/benchmark.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <triton_jit/torch.h>

#include "common/ops.h"

namespace {

using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

constexpr int64_t kN = 1024;
constexpr int kSyncEvery = 512;

// The raw driver, loaded at run time like the library's, so this builds and exits cleanly
// on machines without one.
struct Driver {
  decltype(&::cuModuleLoadData) module_load_data;
  decltype(&::cuModuleGetFunction) module_get_function;
  decltype(&::cuLaunchKernelEx) launch_kernel_ex;
  decltype(&::cuStreamSynchronize) stream_synchronize;
};

const Driver& driver() {
  static const Driver d = [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) throw std::runtime_error("libcuda.so.1 not found");
    return Driver{reinterpret_cast<decltype(&::cuModuleLoadData)>(dlsym(lib, "cuModuleLoadData")),
                  reinterpret_cast<decltype(&::cuModuleGetFunction)>(dlsym(lib, "cuModuleGetFunction")),
                  reinterpret_cast<decltype(&::cuLaunchKernelEx)>(dlsym(lib, "cuLaunchKernelEx")),
                  reinterpret_cast<decltype(&::cuStreamSynchronize)>(dlsym(lib, "cuStreamSynchronize"))};
  }();
  return d;
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + " failed");
}

const TritonJITFunction& kernel(const char* name) {
  return TritonJITFunction::get_instance(TRITON_JIT_BENCH_KERNELS, name);
}

struct Inputs {
  at::Tensor x = at::randn({kN}, at::device(at::kCUDA));
  at::Tensor y = at::randn({kN}, at::device(at::kCUDA));
  at::Tensor out = at::empty({kN}, at::device(at::kCUDA));
};

Inputs& inputs() {
  static auto* in = new Inputs();
  return *in;
}

// The cubin our call launches, loaded and launched with the bare driver API.
struct RawKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  unsigned block_x = 0;
  int num_params = 0;
};

RawKernel load_raw(const triton_jit::VariantInfo& v) {
  RawKernel r;
  check(driver().module_load_data(&r.module, v.cubin.data()), "cuModuleLoadData");
  check(driver().module_get_function(&r.function, r.module, v.kernel_name.c_str()), "cuModuleGetFunction");
  r.block_x = 32u * static_cast<unsigned>(v.num_warps);
  r.num_params = v.num_kernel_params;
  return r;
}

void sync_now(benchmark::State& state, CUstream stream) {
  state.PauseTiming();
  driver().stream_synchronize(stream);
  state.ResumeTiming();
}

LaunchConfig one_block(CUstream stream) {
  LaunchConfig c;
  c.stream = stream;
  c.grid = {1, 1, 1};
  c.num_warps = 4;
  c.num_stages = 3;
  return c;
}

CUstream thread_stream() {
  // Each benchmark thread launches on a stream of its own, as a serving thread would.
  thread_local c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  return stream.stream();
}

void raw_launch_loop(benchmark::State& state, const RawKernel& k, void** params) {
  CUstream stream = thread_stream();
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = k.block_x;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  int i = 0;
  for (auto _ : state) {
    check(driver().launch_kernel_ex(&config, k.function, params, nullptr), "cuLaunchKernelEx");
    if (++i % kSyncEvery == 0) sync_now(state, stream);
  }
  driver().stream_synchronize(stream);
  state.SetItemsProcessed(state.iterations());
}

void BM_RawDriver_Add(benchmark::State& state) {
  auto& in = inputs();
  static RawKernel k = load_raw(kernel("add_small").warmup(one_block(nullptr), in.x, in.y, in.out, kN, 1024));
  CUdeviceptr x = reinterpret_cast<CUdeviceptr>(in.x.data_ptr()), y = reinterpret_cast<CUdeviceptr>(in.y.data_ptr()),
              out = reinterpret_cast<CUdeviceptr>(in.out.data_ptr()), scratch = 0;
  int32_t n = kN;
  void* params[] = {&x, &y, &out, &n, &scratch, &scratch};
  raw_launch_loop(state, k, params);
}

void BM_TritonJIT_Add_StreamGridForm(benchmark::State& state) {
  auto& in = inputs();
  const auto& k = kernel("add_small");
  CUstream stream = thread_stream();
  int i = 0;
  for (auto _ : state) {
    k(stream, 1, 1, 1, 4, 3, in.x, in.y, in.out, kN, 1024);
    if (++i % kSyncEvery == 0) sync_now(state, stream);
  }
  driver().stream_synchronize(stream);
  state.SetItemsProcessed(state.iterations());
}

void BM_TritonJIT_Add_LaunchConfigForm(benchmark::State& state) {
  auto& in = inputs();
  const auto& k = kernel("add_small");
  CUstream stream = thread_stream();
  LaunchConfig c = one_block(stream);
  int i = 0;
  for (auto _ : state) {
    k(c, in.x, in.y, in.out, kN, 1024);
    if (++i % kSyncEvery == 0) sync_now(state, stream);
  }
  driver().stream_synchronize(stream);
  state.SetItemsProcessed(state.iterations());
}

void BM_RawDriver_16Args(benchmark::State& state) {
  auto& in = inputs();
  static RawKernel k =
      load_raw(kernel("add_many")
                   .warmup(one_block(nullptr), in.x, in.y, in.out, kN, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1024));
  CUdeviceptr x = reinterpret_cast<CUdeviceptr>(in.x.data_ptr()), y = reinterpret_cast<CUdeviceptr>(in.y.data_ptr()),
              out = reinterpret_cast<CUdeviceptr>(in.out.data_ptr()), scratch = 0;
  int32_t n = kN, a[12] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  void* params[] = {&x,    &y,    &out,  &n,    &a[0], &a[1],  &a[2],  &a[3],    &a[4],
                    &a[5], &a[6], &a[7], &a[8], &a[9], &a[10], &a[11], &scratch, &scratch};
  raw_launch_loop(state, k, params);
}

void BM_TritonJIT_16Args(benchmark::State& state) {
  auto& in = inputs();
  const auto& k = kernel("add_many");
  CUstream stream = thread_stream();
  LaunchConfig c = one_block(stream);
  int i = 0;
  for (auto _ : state) {
    k(c, in.x, in.y, in.out, kN, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1024);
    if (++i % kSyncEvery == 0) sync_now(state, stream);
  }
  driver().stream_synchronize(stream);
  state.SetItemsProcessed(state.iterations());
}

void BM_Op_ThroughDispatcher(benchmark::State& state) {
  auto& in = inputs();
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("triton_jit::add", "Tensor")
                       .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const c10::Scalar&)>();
  CUstream stream = c10::cuda::getCurrentCUDAStream().stream();
  const c10::Scalar alpha(1);
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(op.call(in.x, in.y, alpha));
    if (++i % kSyncEvery == 0) sync_now(state, stream);
  }
  driver().stream_synchronize(stream);
  state.SetItemsProcessed(state.iterations());
}

void BM_AtAdd(benchmark::State& state) {
  auto& in = inputs();
  CUstream stream = c10::cuda::getCurrentCUDAStream().stream();
  int i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::add(in.x, in.y));
    if (++i % kSyncEvery == 0) sync_now(state, stream);
  }
  driver().stream_synchronize(stream);
  state.SetItemsProcessed(state.iterations());
}

// Note [Paired timing]
// Separate benchmark runs drift by more than the difference we look for (VM noise, clocks).
// Here each round times a batch of raw launches and a batch of ours back to back, on one stream,
// and the difference is taken per round; the median over rounds is robust to that drift.
template <class Fn>
double batch_ns(Fn&& launch, CUstream stream) {
  constexpr int kBatch = 256;
  driver().stream_synchronize(stream);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kBatch; ++i) launch();
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::nano>(elapsed).count() / kBatch;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void paired_comparison() {
  auto& in = inputs();
  CUstream stream = thread_stream();
  LaunchConfig c = one_block(stream);
  const auto& small = kernel("add_small");
  const auto& many = kernel("add_many");
  static RawKernel raw_small = load_raw(small.warmup(c, in.x, in.y, in.out, kN, 1024));
  static RawKernel raw_many =
      load_raw(many.warmup(c, in.x, in.y, in.out, kN, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1024));
  CUdeviceptr x = reinterpret_cast<CUdeviceptr>(in.x.data_ptr()), y = reinterpret_cast<CUdeviceptr>(in.y.data_ptr()),
              out = reinterpret_cast<CUdeviceptr>(in.out.data_ptr()), scratch = 0;
  int32_t n = kN, a[12] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  void* small_params[] = {&x, &y, &out, &n, &scratch, &scratch};
  void* many_params[] = {&x,    &y,    &out,  &n,    &a[0], &a[1],  &a[2],  &a[3],    &a[4],
                         &a[5], &a[6], &a[7], &a[8], &a[9], &a[10], &a[11], &scratch, &scratch};
  CUlaunchConfig config{};
  config.gridDimX = config.gridDimY = config.gridDimZ = 1;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  auto raw = [&](const RawKernel& k, void** params) {
    config.blockDimX = k.block_x;
    check(driver().launch_kernel_ex(&config, k.function, params, nullptr), "cuLaunchKernelEx");
  };
  std::vector<double> raw2, ours2, ours2_stream, diff2, raw16, ours16, diff16;
  for (int round = 0; round < 200; ++round) {
    double r = batch_ns([&] { raw(raw_small, small_params); }, stream);
    double o = batch_ns([&] { small(c, in.x, in.y, in.out, kN, 1024); }, stream);
    double os = batch_ns([&] { small(stream, 1, 1, 1, 4, 3, in.x, in.y, in.out, kN, 1024); }, stream);
    double r16 = batch_ns([&] { raw(raw_many, many_params); }, stream);
    double o16 =
        batch_ns([&] { many(c, in.x, in.y, in.out, kN, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1024); }, stream);
    raw2.push_back(r);
    ours2.push_back(o);
    ours2_stream.push_back(os);
    diff2.push_back(o - r);
    raw16.push_back(r16);
    ours16.push_back(o16);
    diff16.push_back(o16 - r16);
  }
  driver().stream_synchronize(stream);
  auto range = [](const std::vector<double>& v) {
    return std::make_pair(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
  };
  std::printf("\nPaired timing, host ns per launch (200 rounds of 256 launches; median [min, max])\n");
  auto row = [&](const char* name, const std::vector<double>& v) {
    auto [lo, hi] = range(v);
    std::printf("  %-46s %8.0f [%6.0f, %6.0f]\n", name, median(v), lo, hi);
  };
  row("raw cuLaunchKernelEx, add (4 args)", raw2);
  row("triton_jit f(LaunchConfig, ...), add", ours2);
  row("triton_jit f(stream, grid, ...), add", ours2_stream);
  row("raw cuLaunchKernelEx, 16 args", raw16);
  row("triton_jit f(LaunchConfig, ...), 16 args", ours16);
  std::printf("  ours - raw, add:     median %+.0f ns (target <= +300)\n", median(diff2));
  std::printf("  ours - raw, 16 args: median %+.0f ns (target <= +300)\n", median(diff16));
}

// A hit on a kernel with @triton.autotune and @triton.heuristics (its key tuned: the chosen config
// from the lock-free table, EVEN from its program) against a hit on the same kernel undecorated,
// with BLOCK and EVEN passed (Note [Paired timing]).
void paired_decorated() {
  auto& in = inputs();
  CUstream stream = thread_stream();
  LaunchConfig c = one_block(stream);
  const auto& tuned = kernel("add_tuned");
  const auto& untuned = kernel("add_untuned");
  tuned(c, in.x, in.y, in.out, kN);  // tunes n=1024
  auto choice = tuned.autotune_choice(c, in.x, in.y, in.out, kN);
  if (!choice) throw std::runtime_error("add_tuned was not tuned");
  static const int64_t kBlocks[] = {1024, 512, 256, 128};
  const int64_t block = kBlocks[choice->config];
  LaunchConfig plain = c;
  plain.num_warps = 4;
  untuned(plain, in.x, in.y, in.out, kN, block, kN % block == 0);
  // The same kernel with a string constexpr the caller passes: the memo keys it by its text.
  const auto& with_string = kernel("add_tuned_op");
  with_string(c, in.x, in.y, in.out, kN, "add");
  std::vector<double> decorated, undecorated, diff, stringed, string_diff;
  for (int round = 0; round < 200; ++round) {
    double d = batch_ns([&] { tuned(c, in.x, in.y, in.out, kN); }, stream);
    double u = batch_ns([&] { untuned(plain, in.x, in.y, in.out, kN, block, kN % block == 0); }, stream);
    double s = batch_ns([&] { with_string(c, in.x, in.y, in.out, kN, "add"); }, stream);
    decorated.push_back(d);
    undecorated.push_back(u);
    diff.push_back(d - u);
    stringed.push_back(s);
    string_diff.push_back(s - u);
  }
  driver().stream_synchronize(stream);
  std::printf("\nDecorated hit, host ns per launch (200 rounds of 256 launches; median)\n");
  std::printf("  %-46s %8.0f\n", "add_tuned (autotune + heuristics), tuned key", median(decorated));
  std::printf("  %-46s %8.0f\n", "add_untuned, BLOCK and EVEN passed", median(undecorated));
  std::printf("  %-46s %8.0f\n", "add_tuned_op, string constexpr OP='add'", median(stringed));
  std::printf("  decorated - undecorated: median %+.0f ns (target <= +50); chosen config %d (%s)\n", median(diff),
              choice->config, choice->text.c_str());
  std::printf("  with a string - undecorated: median %+.0f ns (target <= +50)\n", median(string_diff));
}

// Launches per second from `threads` threads, each on its own stream, alternating phases of raw
// launches and of ours (Note [Paired timing]); the median over the phases of each.
void paired_threads(int threads) {
  auto& in = inputs();
  const auto& small = kernel("add_small");
  static RawKernel raw_small = load_raw(small.warmup(one_block(nullptr), in.x, in.y, in.out, kN, 1024));
  constexpr int kPhases = 10;
  constexpr auto kPhaseLength = std::chrono::milliseconds(100);
  std::vector<double> raw_rate, ours_rate;
  for (int phase = 0; phase < 2 * kPhases; ++phase) {
    const bool ours = phase % 2 == 1;
    std::atomic<long> launches{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        c10::cuda::CUDAGuard device_guard(0);
        CUstream stream = thread_stream();
        LaunchConfig c = one_block(stream);
        CUdeviceptr x = reinterpret_cast<CUdeviceptr>(in.x.data_ptr()),
                    y = reinterpret_cast<CUdeviceptr>(in.y.data_ptr()),
                    out = reinterpret_cast<CUdeviceptr>(in.out.data_ptr()), scratch = 0;
        int32_t n = kN;
        void* params[] = {&x, &y, &out, &n, &scratch, &scratch};
        CUlaunchConfig config{};
        config.gridDimX = config.gridDimY = config.gridDimZ = 1;
        config.blockDimX = raw_small.block_x;
        config.blockDimY = config.blockDimZ = 1;
        config.hStream = stream;
        long count = 0;
        while (!stop.load(std::memory_order_relaxed)) {
          for (int i = 0; i < 64; ++i) {
            if (ours) {
              small(c, in.x, in.y, in.out, kN, 1024);
            } else {
              check(driver().launch_kernel_ex(&config, raw_small.function, params, nullptr), "cuLaunchKernelEx");
            }
          }
          count += 64;
          driver().stream_synchronize(stream);
        }
        launches += count;
      });
    }
    auto start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(kPhaseLength);
    stop = true;
    for (auto& t : pool) t.join();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    (ours ? ours_rate : raw_rate).push_back(static_cast<double>(launches.load()) / seconds);
  }
  double raw_median = median(raw_rate), ours_median = median(ours_rate);
  std::printf("  %d thread%s: raw %7.0fk/s  triton_jit %7.0fk/s  ratio %.2f (target >= 0.90)\n", threads,
              threads == 1 ? " " : "s", raw_median / 1e3, ours_median / 1e3, ours_median / raw_median);
}

void register_all() {
  auto with_stats = [](benchmark::internal::Benchmark* b) {
    b->Repetitions(15)
        ->ReportAggregatesOnly(true)
        ->MinTime(0.2)
        ->UseRealTime()
        ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
        ->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
  };
  with_stats(benchmark::RegisterBenchmark("raw cuLaunchKernelEx, add n=1024", BM_RawDriver_Add));
  with_stats(benchmark::RegisterBenchmark("triton_jit f(stream, grid, ...), add", BM_TritonJIT_Add_StreamGridForm));
  with_stats(benchmark::RegisterBenchmark("triton_jit f(LaunchConfig, ...), add", BM_TritonJIT_Add_LaunchConfigForm));
  with_stats(benchmark::RegisterBenchmark("raw cuLaunchKernelEx, 16 args", BM_RawDriver_16Args));
  with_stats(benchmark::RegisterBenchmark("triton_jit f(LaunchConfig, ...), 16 args", BM_TritonJIT_16Args));
  with_stats(benchmark::RegisterBenchmark("triton_jit::add via dispatcher (C++)", BM_Op_ThroughDispatcher));
  with_stats(benchmark::RegisterBenchmark("at::add (C++)", BM_AtAdd));
}

}  // namespace

int main(int argc, char** argv) {
  if (!triton_jit::cuda_available()) {
    std::printf("launch_benchmark: skipped: no GPU on this machine\n");
    return 0;
  }
  triton_jit::torch_adapter::install_scratch_allocator();
  c10::cuda::set_device(0);
  inputs();
  // Warm every variant and the raw modules before timing.
  kernel("add_small")(one_block(nullptr), inputs().x, inputs().y, inputs().out, kN, 1024);
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  paired_comparison();
  paired_decorated();
  std::printf("\nLaunches per second from several threads, alternating phases (median of 10 each)\n");
  for (int threads : {1, 2, 4, 8}) paired_threads(threads);
  return 0;
}
