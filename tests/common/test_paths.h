// Where the tests find what the build made beside them: the test kernels, the stand-in drivers
// and the compiler bridge. Defined in test_paths.cpp, the one unit compiled with these absolute
// paths, so that the suites themselves compile the same in every clone (and hit the compiler
// cache from another one).
#pragma once

namespace triton_jit::test {

extern const char* const kKernelsDir;  // tests/kernels
extern const char* const kFakeDriver;  // the stand-in libcuda (tests/fake_cuda); "" in the HIP build
extern const char* const kFakeHip;     // the stand-in libamdhip64 (tests/fake_hip); "" in the CUDA build
extern const char* const kBridge;      // the compiler bridge built beside the tests

}  // namespace triton_jit::test
