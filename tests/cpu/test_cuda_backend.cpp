// The CUDA backend's decisions that need no GPU.
#include <gtest/gtest.h>

#include "backend/cuda/cuda_backend.h"

using triton_jit::detail::cuda::arch_runs_on;

TEST(CudaBackend, CubinArchMustMatchTheDeviceMajorAndNotBeNewer) {
  EXPECT_TRUE(arch_runs_on("90", 9, 0));
  EXPECT_TRUE(arch_runs_on("80", 8, 6));   // sm_80 code runs on sm_86
  EXPECT_FALSE(arch_runs_on("86", 8, 0));  // but not the other way round
  EXPECT_FALSE(arch_runs_on("80", 9, 0));  // nor across major versions
  EXPECT_FALSE(arch_runs_on("100", 9, 0));
}

TEST(CudaBackend, ArchSpecificTargetsRunOnlyOnTheirOwnCapability) {
  EXPECT_TRUE(arch_runs_on("90a", 9, 0));
  EXPECT_FALSE(arch_runs_on("90a", 9, 1));
  EXPECT_FALSE(arch_runs_on("100a", 10, 3));
  EXPECT_FALSE(arch_runs_on("", 9, 0));
}
