// The whole launch path on CPU, against the stand-in driver in tests/fake_cuda: the parameters
// and launch configuration that reach cuLaunchKernelEx, no heap allocation on a cache hit, and
// concurrent first calls compiling once.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <triton_jit/triton_jit.h>

#include "../common/fresh_cache.h"
#include "../common/test_paths.h"

#include <cuda.h>

#include <dlfcn.h>

#include "../fake_cuda/fake_cuda.h"

using triton_jit::device_pointer;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

#include "../common/allocation_counter.h"
#include "../common/stand_in_driver.h"

namespace {

const std::string kKernels = triton_jit::test::kKernelsDir;
alignas(64) float g_buffer[4096];

const TritonJITFunction& pointwise() {
  return TritonJITFunction::get_instance(kKernels + "/parity_kernels.py", "pointwise");
}

LaunchConfig config(unsigned blocks) {
  LaunchConfig c;
  c.grid = {blocks, 1, 1};
  c.num_warps = 4;
  c.num_stages = 3;
  return c;
}

}  // namespace

TEST(LaunchPath, PassesEncodedParametersAndConfigurationToTheDriver) {
  set_recording(true, 6);
  auto x = device_pointer(g_buffer, DType::kFloat32);
  auto y = device_pointer(g_buffer + 1024, DType::kFloat32);
  auto out = device_pointer(g_buffer + 2048, DType::kFloat32);
  pointwise()(nullptr, 4, 1, 1, 4, 3, x, y, out, int64_t{4000}, 1024);
  FakeLaunch l = last_launch();
  EXPECT_EQ(l.grid[0], 4u);
  EXPECT_EQ(l.block_x, 128u);
  EXPECT_EQ(l.num_attrs, 0u);
  EXPECT_EQ(l.params[0], reinterpret_cast<uint64_t>(g_buffer));
  EXPECT_EQ(l.params[1], reinterpret_cast<uint64_t>(g_buffer + 1024));
  EXPECT_EQ(l.params[2], reinterpret_cast<uint64_t>(g_buffer + 2048));
  EXPECT_EQ(static_cast<uint32_t>(l.params[3]), 4000u);  // an i32, whatever the C++ width
  EXPECT_EQ(l.params[4], 0u);                            // global scratch: none needed
  EXPECT_EQ(l.params[5], 0u);                            // profile scratch
}

TEST(LaunchPath, ClusterCooperativeAndPdlBecomeLaunchAttributes) {
  set_recording(true, 0);
  LaunchConfig c = config(3);
  c.num_ctas = 2;
  c.launch_pdl = true;
  c.launch_cooperative_grid = true;
  auto p = device_pointer(g_buffer, DType::kFloat32);
  pointwise()(c, p, p, p, 4096, 1024);
  FakeLaunch l = last_launch();
  EXPECT_EQ(l.grid[0], 6u);  // grid x times num_ctas
  ASSERT_EQ(l.num_attrs, 4u);
  EXPECT_EQ(l.attr_ids[0], CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  EXPECT_EQ(l.attr_ids[1], CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
  EXPECT_EQ(l.attr_ids[2], CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  EXPECT_EQ(l.attr_ids[3], CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
}

TEST(LaunchPath, EmptyGridLaunchesNothing) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  pointwise()(config(1), p, p, p, 4096, 1024);
  uint64_t before = launch_count();
  pointwise()(config(0), p, p, p, 4096, 1024);
  EXPECT_EQ(launch_count(), before);
}

TEST(HitPath, NoHeapAllocationOnACacheHit) {
  if (!kAllocationCountingAvailable) GTEST_SKIP() << "allocation counting is off under sanitizers";
  set_recording(false, 0);
  auto p = device_pointer(g_buffer, DType::kFloat32);
  const auto& f = pointwise();
  f(config(8), p, p, p, 8192, 1024);  // compiles and loads
  uint64_t launches = launch_count();
  triton_jit::ArgumentBuilder built(5);
  built.add(p).add(p).add(p).add(8192).add(1024);
  long allocations;
  {
    CountAllocations counter;
    for (int i = 0; i < 1000; ++i) f(config(8), p, p, p, 8192 + 16 * (i % 8), 1024);
    for (int i = 0; i < 1000; ++i) f.launch(config(8), built);
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(launch_count(), launches + 2000);
  set_recording(true, 0);
}

TEST(SingleFlight, ConcurrentFirstCallsCompileOnce) {
  const auto& f = pointwise();
  auto p = device_pointer(g_buffer, DType::kFloat32);
  constexpr int kThreads = 8;
  std::barrier start(kThreads);
  std::atomic<int> errors{0};
  auto compiles = f.stats().compiles;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      try {
        f(config(2), p, p, p, 2048, 128);  // a variant no other test uses
      } catch (...) {
        ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(f.stats().compiles, compiles + 1);
}

TEST(SingleFlight, DifferentKeysCompileIndependently) {
  const auto& f = pointwise();
  auto p = device_pointer(g_buffer, DType::kFloat32);
  constexpr int kThreads = 4;
  std::barrier start(kThreads);
  auto compiles = f.stats().compiles;
  std::vector<std::thread> threads;
  constexpr int kBlocks[kThreads] = {16, 32, 64, 256};  // four variants no other test uses
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      f(config(2), p, p, p, 2048, kBlocks[t]);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(f.stats().compiles, compiles + 4);
}

TEST(LoadChecks, ThreadsBeyondWhatTheFunctionAllowsAreAClearErrorAndTheModuleIsUnloaded) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  LaunchConfig c = config(1);
  c.num_warps = 8;  // 256 threads; the function "allows" 128
  setenv("FAKE_CUDA_FUNCTION_MAX_THREADS", "128", 1);
  const uint64_t loaded = modules_loaded();
  const uint64_t unloaded = modules_unloaded();
  try {
    pointwise()(c, p, p, p, 4096, 512);
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_STREQ(e.what(), "pointwise: launches 256 threads per block, but its registers allow only 128");
  }
  unsetenv("FAKE_CUDA_FUNCTION_MAX_THREADS");
  EXPECT_EQ(modules_loaded(), loaded + 1);
  EXPECT_EQ(modules_unloaded(), unloaded + 1);  // a failed load leaks no module
}

TEST(VariantReport, RegistersSpillsAndThreadsAreTheDriversOnceLoaded) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  LaunchConfig c = config(1);
  c.num_warps = 2;  // a variant no other test loads
  setenv("FAKE_CUDA_FUNCTION_REGISTERS", "72", 1);
  setenv("FAKE_CUDA_FUNCTION_LOCAL_BYTES", "24", 1);
  const triton_jit::VariantInfo compiled = pointwise().warmup(c, p, p, p, 4096, 512);
  EXPECT_EQ(compiled.n_regs, -1) << "not loaded yet";
  EXPECT_EQ(compiled.n_spills, -1);
  const triton_jit::VariantInfo loaded = pointwise().prepare(c, p, p, p, 4096, 512);
  unsetenv("FAKE_CUDA_FUNCTION_REGISTERS");
  unsetenv("FAKE_CUDA_FUNCTION_LOCAL_BYTES");
  EXPECT_EQ(loaded.n_regs, 72);
  EXPECT_EQ(loaded.n_spills, 6) << "local memory in 4-byte words, as Triton counts spills";
  EXPECT_EQ(loaded.max_threads_per_block, 1024);
  // The image is the variant's own, not a copy per result.
  EXPECT_EQ(loaded.cubin.data(), compiled.cubin.data());
  EXPECT_EQ(pointwise().warmup(c, p, p, p, 4096, 512).n_regs, 72) << "warmup reports a variant loaded since";
}

TEST(LaunchChecks, ASharedMemoryOverrideBeyondWhatTheKernelMayTakeIsAClearError) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  LaunchConfig c = config(1);
  c.shared_memory = 1 << 30;
  const uint64_t before = launch_count();
  try {
    pointwise()(c, p, p, p, 4096, 1024);
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ValueError& e) {
    const std::string what = e.what();
    EXPECT_EQ(
        what.rfind("pointwise: LaunchConfig::shared_memory asks for 1073741824 bytes of dynamic shared memory; on "
                   "device 0 this kernel may take at most 49152 (it needs ",
                   0),
        0u)
        << what;
  }
  EXPECT_EQ(launch_count(), before);
  c.shared_memory = 4096;  // within the default: launched
  pointwise()(c, p, p, p, 4096, 1024);
  EXPECT_EQ(launch_count(), before + 1);
}

TEST(LaunchChecks, GridTimesNumCtasBeyondTheDriverLimitIsAClearError) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  LaunchConfig c = config((1u << 30) + 1);
  c.num_ctas = 2;  // 2^31 + 2 blocks in x: would wrap to 2 in the driver's 32-bit gridDimX
  const uint64_t before = launch_count();
  try {
    pointwise()(c, p, p, p, 4096, 1024);
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("grid (1073741825, 1, 1) with num_ctas=2 is over the device's limits"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("2147483647"), std::string::npos);
  }
  c = config(1);
  c.grid[1] = 70000;
  EXPECT_THROW(pointwise()(c, p, p, p, 4096, 1024), triton_jit::ValueError);
  EXPECT_EQ(launch_count(), before);
}

TEST(LaunchChecks, WarmupOnADeviceBeyondWhatIsSupportedIsAClearError) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  unsetenv("TRITON_JIT_TARGET");  // so that warmup asks the device
  LaunchConfig c = config(1);
  c.device = 200;
  try {
    pointwise().warmup(c, p, p, p, 4096, 1024);
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_STREQ(e.what(), "pointwise: device 200 is not a device triton_jit can launch on (0 to 63)");
  }
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
}

TEST(LoadChecks, CubinForAnotherArchitectureIsAClearError) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  pointwise()(config(1), p, p, p, 4096, 1024);  // the device's target (sm_90) is known from here on
  setenv("FAKE_CUDA_CC_MAJOR", "8", 1);         // the same device now says 8.0
  try {
    pointwise()(config(1), p, p, p, 4096, 2048);  // a new variant, compiled for sm_90, loaded on "8.0"
    ADD_FAILURE() << "no error";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_STREQ(e.what(), "pointwise: compiled for sm_90a, which device 0 (compute capability 8.0) cannot run");
  }
  unsetenv("FAKE_CUDA_CC_MAJOR");
}

namespace {
struct HookLog {
  std::atomic<int> enters{0};
  std::atomic<int> exits{0};
  std::string last_kernel;
};
void on_enter(const triton_jit::LaunchInfo& info, void* user) {
  auto* log = static_cast<HookLog*>(user);
  log->enters++;
  log->last_kernel = info.kernel_name;
}
void on_exit(const triton_jit::LaunchInfo&, void* user) { static_cast<HookLog*>(user)->exits++; }
}  // namespace

TEST(Observability, LaunchHooksSeeEveryLaunchUntilRemoved) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  HookLog log;
  triton_jit::set_launch_hooks(&on_enter, &on_exit, &log);
  for (int i = 0; i < 3; ++i) pointwise()(config(4), p, p, p, 4096, 1024);
  triton_jit::set_launch_hooks(nullptr, nullptr, nullptr);
  pointwise()(config(4), p, p, p, 4096, 1024);
  EXPECT_EQ(log.enters.load(), 3);
  EXPECT_EQ(log.exits.load(), 3);
  EXPECT_EQ(log.last_kernel, "pointwise");
}

TEST(Observability, StatsCountHitsOnlyWhileEnabled) {
  auto p = device_pointer(g_buffer, DType::kFloat32);
  const auto& f = pointwise();
  f(config(4), p, p, p, 4096, 1024);
  auto before = f.stats();
  triton_jit::set_stats_enabled(true);
  for (int i = 0; i < 5; ++i) f(config(4), p, p, p, 4096, 1024);
  triton_jit::set_stats_enabled(false);
  f(config(4), p, p, p, 4096, 1024);
  auto after = f.stats();
  EXPECT_EQ(after.hits - before.hits, 5u);
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_GT(after.compile_seconds, 0.0);
}

// Note [Tensor descriptor parameters]: on sm_90 the compiler reads both descriptors through TMA,
// so each becomes a tensor map, then its shape (i32) and strides (i64).
TEST(TensorDescriptors, BecomeTensorMapsWithTheirShapesAndStrides) {
  const auto& f = TritonJITFunction::get_instance(kKernels + "/tma_kernels.py", "copy_tiles");
  using triton_jit::DType;
  auto in = triton_jit::tensor_descriptor(g_buffer, DType::kFloat16, triton_jit::kUnknownDevice, {128, 64}, {64, 1},
                                          {64, 32});
  auto out = triton_jit::tensor_descriptor(g_buffer + 2048, DType::kFloat16, triton_jit::kUnknownDevice, {100, 64},
                                           {64, 1}, {64, 32}, /*nan_padding=*/true);
  LaunchConfig c;
  c.grid = {2, 2, 1};
  const auto info = f.warmup(c, in, out, 128, 64, 64, 32);
  EXPECT_NE(info.signature.find("in_desc: tensordesc<fp16[64, 32]>, out_desc: tensordesc<fp16[64, 32]>"),
            std::string::npos)
      << info.signature;
  EXPECT_EQ(info.num_kernel_params, 2 * (1 + 2 + 2) + 2 + 2);  // map, shape, strides; M, N; scratch
  set_recording(true, 14);
  f(c, in, out, 128, 64, 64, 32);
  const FakeLaunch l = last_launch();
  EXPECT_EQ(std::memcmp(&l.params[0], "TMAP", 4), 0);  // the first parameter is a tensor map
  EXPECT_EQ(static_cast<int32_t>(l.params[1]), 128);
  EXPECT_EQ(static_cast<int32_t>(l.params[2]), 64);
  EXPECT_EQ(l.params[3], 64u);
  EXPECT_EQ(l.params[4], 1u);
  EXPECT_EQ(std::memcmp(&l.params[5], "TMAP", 4), 0);
  EXPECT_EQ(static_cast<int32_t>(l.params[6]), 100);
  EXPECT_EQ(static_cast<int32_t>(l.params[10]), 128);  // M
  EXPECT_EQ(static_cast<int32_t>(l.params[11]), 64);   // N
  const FakeTensorMap m = last_tensor_map();           // out's: dimensions innermost first, strides in bytes
  EXPECT_EQ(m.base, reinterpret_cast<uint64_t>(g_buffer + 2048));
  EXPECT_EQ(m.elem_type, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(m.rank, 2u);
  EXPECT_EQ(m.dims[0], 64u);
  EXPECT_EQ(m.dims[1], 100u);
  EXPECT_EQ(m.strides[0], 128u);
  EXPECT_EQ(m.box[0], 32u);
  EXPECT_EQ(m.box[1], 64u);
  EXPECT_EQ(m.element_strides[0], 1u);
  EXPECT_EQ(m.l2_promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  EXPECT_EQ(m.fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  EXPECT_EQ(m.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  set_recording(true, 0);
}

TEST(TensorDescriptors, AnotherBlockShapeIsAnotherVariantAndBadOnesAreRefused) {
  const auto& f = TritonJITFunction::get_instance(kKernels + "/tma_kernels.py", "copy_tiles");
  using triton_jit::DType;
  LaunchConfig c;
  auto d = [](std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides,
              std::initializer_list<int32_t> block, const void* base = g_buffer) {
    return triton_jit::tensor_descriptor(base, DType::kFloat16, triton_jit::kUnknownDevice, shape, strides, block);
  };
  auto a = d({128, 64}, {64, 1}, {64, 32});
  auto b = d({128, 64}, {64, 1}, {32, 32});
  EXPECT_NE(f.warmup(c, b, b, 128, 64, 32, 32).signature.find("tensordesc<fp16[32, 32]>"), std::string::npos);
  auto message = [&](const triton_jit::TensorDescriptor& bad) {
    try {
      f(c, bad, a, 128, 64, 64, 32);
    } catch (const triton_jit::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(
      message(d({128, 64}, {64, 1}, {64, 48})),
      "copy_tiles: argument 0 'in_desc' is a tensor descriptor with block_shape[1] = 48; TMA blocks are powers of "
      "two up to 256");
  EXPECT_EQ(message(d({128, 60}, {60, 1}, {64, 32})),
            "copy_tiles: argument 0 'in_desc' is a tensor descriptor with strides[0] = 60 (120 bytes); strides must be "
            "16-byte multiples");
  EXPECT_EQ(
      message(d({128, 64}, {128, 2}, {64, 32})),
      "copy_tiles: argument 0 'in_desc' is a tensor descriptor whose last dimension is not contiguous (stride 1)");
  EXPECT_EQ(message(d({128, 64}, {64, 1}, {64, 32}, reinterpret_cast<const char*>(g_buffer) + 8)),
            "copy_tiles: argument 0 'in_desc' is a tensor descriptor whose base is not 16-byte aligned");
  // limits the driver would only report as an error code: checked before it
  EXPECT_EQ(message(d({int64_t{1} << 40, 64}, {64, 1}, {64, 32})),
            "copy_tiles: argument 0 'in_desc' is a tensor descriptor with shape[0] = 1099511627776; the kernel takes "
            "each dimension as an i32, at most 2147483647");
  EXPECT_EQ(
      message(d({128, 64}, {int64_t{1} << 40, 1}, {64, 32})),
      "copy_tiles: argument 0 'in_desc' is a tensor descriptor with strides[0] = 1099511627776; a TMA stride must "
      "be below 2^40 bytes");
  EXPECT_EQ(
      message(d({128, 64, 1}, {64, 1}, {64, 32})),
      "copy_tiles: argument 0 'in_desc' is a tensor descriptor whose shape, strides and block shape must have one "
      "rank, from 1 to 5");
}

int main(int argc, char** argv) {
  setenv("TRITON_JIT_CUDA_DRIVER", triton_jit::test::kFakeDriver, 1);
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
