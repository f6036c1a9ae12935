// What the tests read of the stand-in CUDA driver (tests/fake_cuda): its entry points, found in
// the library triton_jit loads (one instance per path, so the same state); test_paths.h says where.
#pragma once

#include <cstdint>

#include <dlfcn.h>

#include "../fake_cuda/fake_cuda.h"
#include "test_paths.h"

template <class Fn>
Fn* stand_in(const char* name) {
  static void* lib = dlopen(triton_jit::test::kFakeDriver, RTLD_NOW | RTLD_LOCAL);
  return reinterpret_cast<Fn*>(dlsym(lib, name));
}
inline FakeLaunch last_launch() { return stand_in<FakeLaunch()>("fake_cuda_last_launch")(); }
inline FakeTensorMap last_tensor_map() { return stand_in<FakeTensorMap()>("fake_cuda_last_tensor_map")(); }
inline uint64_t launch_count() { return stand_in<uint64_t()>("fake_cuda_launch_count")(); }
inline uint64_t fills() { return stand_in<uint64_t()>("fake_cuda_fill_count")(); }
inline uint64_t modules_loaded() { return stand_in<uint64_t()>("fake_cuda_modules_loaded")(); }
inline uint64_t modules_unloaded() { return stand_in<uint64_t()>("fake_cuda_modules_unloaded")(); }
// Records the first `params` kernel parameters of each launch (0: none).
inline void set_recording(bool on, int params) { stand_in<void(bool, int)>("fake_cuda_set_recording")(on, params); }
