// What Triton 3.8's launcher does that older ones did not, against the stand-in driver. Shared
// memory above the opt-in limit: on a compute capability 10.7 device that allows oversized shared
// memory, a kernel from Triton 3.8 sets the function's shared memory mode at load and every
// launch over 228 KB asks for the mode; kernels of older Tritons keep the opt-in path and its
// limit. And a kernel built with its global sanitizer (GSan) is refused with the reason.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "../common/stand_in_driver.h"
#include "../common/test_paths.h"
#include "../fake_cuda/fake_cuda.h"
#include "backend/cuda/cuda_backend.h"
#include "compiler/compiled_kernel.h"
#include "triton_jit/errors.h"

using triton_jit::detail::cuda::CudaBackend;

namespace {

const bool kDriver = [] {
  setenv("TRITON_JIT_CUDA_DRIVER", triton_jit::test::kFakeDriver, 1);
  setenv("FAKE_CUDA_CC_MAJOR", "10", 1);
  setenv("FAKE_CUDA_CC_MINOR", "7", 1);
  setenv("FAKE_CUDA_OVERSIZED_SHARED", "262144", 1);
  return true;
}();

triton_jit::impl::KernelMetadata metadata(const char* triton_version, int shared) {
  triton_jit::impl::KernelMetadata m;
  m.name = "big_tile";
  m.arch = "107a";
  m.num_warps = 4;
  m.shared = shared;
  m.triton_version = triton_version;
  return m;
}

const std::string kImage = std::string(
                               "\x7f"
                               "ELF",
                               4) +
                           std::string(60, '\0');

struct DriverKnowsTheMode {
  DriverKnowsTheMode() { setenv("FAKE_CUDA_SHARED_MEMORY_MODE", "1", 1); }
  ~DriverKnowsTheMode() { unsetenv("FAKE_CUDA_SHARED_MEMORY_MODE"); }
};

}  // namespace

TEST(OversizedSharedMemory, ATriton38KernelOverTheOptInLimitLoadsAndLaunchesWithTheMode) {
  DriverKnowsTheMode known;
  const auto meta = metadata("3.8.0", 240 * 1024);
  const CudaBackend::Kernel* k = CudaBackend::load(triton_jit::impl::KernelImage{kImage, &meta}, 0);
  EXPECT_EQ(stand_in<int()>("fake_cuda_shared_memory_mode")(), 3) << "ALLOW_OVERSIZED_SHARED_MEMORY set at load";
  triton_jit::LaunchConfig c;
  c.grid = {2, 1, 1};
  void* params[4] = {};
  uint64_t cells[2] = {};
  CudaBackend::launch(*k, c, params, 0, cells);
  const FakeLaunch launch = last_launch();
  EXPECT_EQ(launch.shared, 240u * 1024u);
  ASSERT_EQ(launch.num_attrs, 1u);
  EXPECT_EQ(launch.attr_ids[0], 18) << "CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE";
}

TEST(OversizedSharedMemory, AnOlderTritonsKernelKeepsTheOptInLimit) {
  const auto meta = metadata("3.6.0", 240 * 1024);
  try {
    CudaBackend::load(triton_jit::impl::KernelImage{kImage, &meta}, 0);
    ADD_FAILURE() << "a Triton 3.6 kernel over the opt-in limit was loaded";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("over the 232448 bytes device 0 allows"), std::string::npos) << e.what();
  }
}

TEST(OversizedSharedMemory, WithoutTheModeInTheDriverTheOptInPathIsUsed) {
  const auto meta = metadata("3.8.0", 100 * 1024);  // over 48 KB, under the opt-in limit
  const int before = stand_in<int()>("fake_cuda_shared_memory_mode")();
  const CudaBackend::Kernel* k = CudaBackend::load(triton_jit::impl::KernelImage{kImage, &meta}, 0);
  EXPECT_EQ(stand_in<int()>("fake_cuda_shared_memory_mode")(), before) << "the driver refused the attribute";
  triton_jit::LaunchConfig c;
  c.grid = {1, 1, 1};
  void* params[4] = {};
  uint64_t cells[2] = {};
  CudaBackend::launch(*k, c, params, 0, cells);
  EXPECT_EQ(last_launch().num_attrs, 0u) << "no mode asked for at 100 KB";
}

TEST(Sanitizer, AKernelBuiltWithGSanIsRefusedWithTheReason) {
  const std::string json = R"({"name": "k", "num_warps": 4, "arch": "90", "shared": 0,
                               "instrumentation_mode": "gsan", "triton_version": "3.8.0"})";
  try {
    triton_jit::detail::check_compiled("k", json, kImage, triton_jit::Target{90, false});
    ADD_FAILURE() << "a GSan kernel was accepted";
  } catch (const triton_jit::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("instrumentation_mode='gsan'"), std::string::npos) << e.what();
  }
}
