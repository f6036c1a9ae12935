// The HIP backend policy on CPU (TRITON_JIT_BACKEND=hip): real Triton compiles for hip:gfx942 and
// hip:gfx90a through the bridge, the stand-in runtime (tests/fake_hip) loads and launches. Checks
// what reaches the runtime: the code object's machine, grid, block (a wavefront of 64 lanes per
// warp), shared memory and the parameters with Triton's two scratch pointers after them.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <triton_jit/triton_jit.h>

#include "../common/fresh_cache.h"
#include "../common/test_paths.h"
#include "../fake_hip/fake_hip.h"
#include "backend/active_backend.h"
#include "common/target.h"
#include "compiler/compiled_kernel.h"

using triton_jit::device_pointer;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

// The stand-in runtime, chosen before the library first looks for one; the bridge from the build
// tree (this binary holds the core's objects, so the library's own location is not the lib dir).
const bool kRuntime = [] {
  setenv("TRITON_JIT_HIP_RUNTIME", triton_jit::test::kFakeHip, 1);
  setenv("TRITON_JIT_BRIDGE_LIBRARY", triton_jit::test::kBridge, 0);
  return true;
}();

template <class Fn>
Fn* hook(const char* name) {
  static void* lib = dlopen(triton_jit::test::kFakeHip, RTLD_NOW | RTLD_LOCAL);
  return reinterpret_cast<Fn*>(dlsym(lib, name));
}

const std::string kKernels = triton_jit::test::kKernelsDir;
alignas(64) float g_x[4096];
alignas(64) float g_y[4096];
alignas(64) float g_out[4096];

struct Params {
  explicit Params(const char* n) { setenv("FAKE_HIP_PARAMS", n, 1); }
  ~Params() { unsetenv("FAKE_HIP_PARAMS"); }
};

}  // namespace

TEST(HipBackend, TheDeviceTargetIsItsGfxName) {
  ASSERT_TRUE(triton_jit::cuda_available()) << "the stand-in runtime did not load";
  EXPECT_EQ(triton_jit::detail::target_name(triton_jit::detail::ActiveBackend::device_target(0)), "hip:gfx942");
  EXPECT_EQ(triton_jit::detail::hip::target_of_arch_name("gfx90a:sramecc+:xnack-").arch, 0x90a);
  EXPECT_EQ(triton_jit::detail::hip::target_of_arch_name("sm_90").arch, 0);
  EXPECT_EQ(triton_jit::detail::ActiveBackend::device_name(0), "Stand-in AMD Instinct");
}

TEST(HipBackend, ALaunchPassesTheParametersThenTwoScratchPointers) {
  Params params("7");  // x, y, out, alpha, n; global and profile scratch
  auto& k = TritonJITFunction::get_instance(kKernels + "/gpu_kernels.py", "scale_add");
  for (int i = 0; i < 4096; ++i) g_x[i] = static_cast<float>(i);
  LaunchConfig c;
  c.grid = {4, 1, 1};
  c.num_warps = 4;
  const auto before = hook<uint64_t()>("fake_hip_launch_count")();
  k(c, device_pointer(g_x, DType::kFloat32), device_pointer(g_y, DType::kFloat32),
    device_pointer(g_out, DType::kFloat32), 2.5f, 1000, 256);
  ASSERT_EQ(hook<uint64_t()>("fake_hip_launch_count")() - before, 1u);
  const FakeHipLaunch launch = hook<FakeHipLaunch()>("fake_hip_last_launch")();
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 1u);
  EXPECT_EQ(launch.block[0], 256u) << "4 warps of a 64-lane wavefront";
  EXPECT_EQ(launch.block[1], 1u);
  EXPECT_EQ(launch.params[0], reinterpret_cast<uint64_t>(g_x));
  EXPECT_EQ(launch.params[1], reinterpret_cast<uint64_t>(g_y));
  EXPECT_EQ(launch.params[2], reinterpret_cast<uint64_t>(g_out));
  float alpha = 0;
  std::memcpy(&alpha, &launch.params[3], sizeof(alpha));
  EXPECT_EQ(alpha, 2.5f);
  EXPECT_EQ(static_cast<int32_t>(launch.params[4]), 1000);
  EXPECT_EQ(launch.params[5], 0u) << "global scratch: null, as Triton's AMD launcher passes it";
  EXPECT_EQ(launch.params[6], 0u) << "profile scratch: none asked for";
  EXPECT_EQ(hook<unsigned()>("fake_hip_loaded_machine")(), 224u) << "EM_AMDGPU";
  EXPECT_EQ(hook<unsigned()>("fake_hip_loaded_mach_flags")(), 0x4cu) << "EF_AMDGPU_MACH_AMDGCN_GFX942";
  // What the runtime reported of the loaded function, as Triton's AMD loadBinary reads it.
  setenv("FAKE_HIP_REGISTERS", "48", 1);
  setenv("FAKE_HIP_LOCAL_BYTES", "16", 1);
  const triton_jit::VariantInfo info =
      k.prepare(c, device_pointer(g_x, DType::kFloat32), device_pointer(g_y, DType::kFloat32),
                device_pointer(g_out, DType::kFloat32), 2.5f, 1000, 128);
  unsetenv("FAKE_HIP_REGISTERS");
  unsetenv("FAKE_HIP_LOCAL_BYTES");
  EXPECT_EQ(info.n_regs, 48);
  EXPECT_EQ(info.n_spills, 4);
  EXPECT_EQ(info.max_threads_per_block, 1024);
}

TEST(HipBackend, BothTargetsCompileToCodeObjectsOfTheirArchitecture) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/gpu_kernels.py", "scale_add");
  LaunchConfig c;
  c.num_warps = 4;
  for (const char* target : {"hip:gfx942", "hip:gfx90a"}) {
    setenv("TRITON_JIT_TARGET", target, 1);
    const triton_jit::VariantInfo info =
        k.warmup(c, device_pointer(g_x, DType::kFloat32), device_pointer(g_y, DType::kFloat32),
                 device_pointer(g_out, DType::kFloat32), 1.0f, 1000, 128);
    unsetenv("TRITON_JIT_TARGET");
    EXPECT_EQ(info.target, target);
    ASSERT_GT(info.cubin.size(), 64u);
    EXPECT_EQ(static_cast<unsigned char>(info.cubin[18]), 224) << target << ": not an AMDGPU ELF image";
    const int gfx = triton_jit::detail::hsaco_gfx(info.cubin);
    EXPECT_EQ(triton_jit::detail::arch_name(triton_jit::Target{gfx, false, triton_jit::Vendor::kHip}),
              std::string(target).substr(4));
  }
}

TEST(HipBackend, ACodeObjectForAnotherGfxIsRefusedAtLoad) {
  triton_jit::impl::KernelMetadata meta;
  meta.name = "k";
  meta.arch = "gfx90a";
  const std::string image(64, '\0');
  try {
    triton_jit::detail::ActiveBackend::load(triton_jit::impl::KernelImage{image, &meta}, 0);
    ADD_FAILURE() << "a gfx90a code object was loaded on a gfx942 device";
  } catch (const triton_jit::ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("compiled for gfx90a, which device 0 (gfx942) cannot run"), std::string::npos)
        << e.what();
  }
}

TEST(HipBackend, AnAutotunedKernelTunesThroughTheHipBenchmark) {
  auto& k = TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", "scale_tuned");
  LaunchConfig c;
  c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
    return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
  };
  k(c, device_pointer(g_x, DType::kFloat32), device_pointer(g_out, DType::kFloat32), 4096, 2.0f);
  auto choice =
      k.autotune_choice(c, device_pointer(g_x, DType::kFloat32), device_pointer(g_out, DType::kFloat32), 4096, 2.0f);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->source, "tuned");
  EXPECT_GT(choice->milliseconds, 0.0);
  EXPECT_EQ(k.stats().tunings, 1u);
}
