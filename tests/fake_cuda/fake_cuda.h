// The fake driver's test hooks (see fake_libcuda.cpp).
#pragma once

#include <cstdint>

struct FakeLaunch {
  unsigned grid[3];
  unsigned block_x;
  unsigned shared;
  unsigned num_attrs;
  int attr_ids[4];
  uint64_t params[32];  // the first bytes of each parameter
};

// The arguments of the last cuTensorMapEncodeTiled; the map it wrote holds "TMAP", the base and
// the call's number.
struct FakeTensorMap {
  int elem_type;
  unsigned rank;
  uint64_t base;
  uint64_t dims[5];
  uint64_t strides[4];
  unsigned box[5];
  unsigned element_strides[5];
  int interleave;
  int swizzle;
  int l2_promotion;
  int fill;
  uint64_t encoded;  // calls so far
};

// Exported by the stand-in driver; tests reach them with dlsym.
extern "C" {
FakeLaunch fake_cuda_last_launch();
uint64_t fake_cuda_launch_count();
FakeTensorMap fake_cuda_last_tensor_map();
uint64_t fake_cuda_modules_loaded();
uint64_t fake_cuda_fill_count();
int fake_cuda_shared_memory_mode();  // the last value set for the shared memory mode (-1: never)
uint64_t fake_cuda_copy_count();
uint64_t fake_cuda_modules_unloaded();
void fake_cuda_set_recording(bool on, int params);
bool fake_cuda_record_launches();
int fake_cuda_params_to_record();
}
