#include "test_paths.h"

namespace triton_jit::test {

const char* const kKernelsDir = TRITON_JIT_TEST_KERNELS;
#ifdef TRITON_JIT_FAKE_DRIVER
const char* const kFakeDriver = TRITON_JIT_FAKE_DRIVER;
#else
const char* const kFakeDriver = "";
#endif
#ifdef TRITON_JIT_FAKE_HIP
const char* const kFakeHip = TRITON_JIT_FAKE_HIP;
#else
const char* const kFakeHip = "";
#endif
const char* const kBridge = TRITON_JIT_BRIDGE;

}  // namespace triton_jit::test
