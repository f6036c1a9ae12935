// What the stand-in HIP runtime (fake_libamdhip64.cpp) records, for the tests to read.
#pragma once

#include <cstdint>

struct FakeHipLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  void* stream;
  uint64_t params[32];  // the first 8 bytes of each parameter
  int num_params;       // as the loaded code object declares them
};

extern "C" {
FakeHipLaunch fake_hip_last_launch();
uint64_t fake_hip_launch_count();
// The e_machine and EF_AMDGPU_MACH of the last code object loaded.
unsigned fake_hip_loaded_machine();
unsigned fake_hip_loaded_mach_flags();
}
