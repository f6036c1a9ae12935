// A stand-in for libamdhip64 on machines without an AMD GPU: one device whose architecture is
// FAKE_HIP_ARCH (default gfx942:sramecc+:xnack-), code objects checked as AMDGPU ELF images,
// launches recorded (the first FAKE_HIP_PARAMS parameters' bytes), events that measure 5 us per
// launch. Enough for the backend's load, launch and tuning paths; the memory is the host's.
#include <hip/hip_runtime_api.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "fake_hip.h"

namespace {

struct Module {
  unsigned machine = 0;
  unsigned mach_flags = 0;
};

std::mutex g_mutex;
FakeHipLaunch g_last{};
std::atomic<uint64_t> g_launches{0};
std::atomic<unsigned> g_machine{0}, g_mach_flags{0};
thread_local int t_device = 0;
std::atomic<uint64_t> g_clock_us{0};  // advanced by launches, read by events

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

}  // namespace

extern "C" {

#define FAKE_EXPORT __attribute__((visibility("default")))

FAKE_EXPORT hipError_t hipInit(unsigned int) { return hipSuccess; }
FAKE_EXPORT const char* hipGetErrorName(hipError_t e) { return e == hipSuccess ? "hipSuccess" : "hipErrorFake"; }
FAKE_EXPORT const char* hipGetErrorString(hipError_t e) { return e == hipSuccess ? "no error" : "stand-in error"; }
FAKE_EXPORT hipError_t hipGetDeviceCount(int* count) {
  *count = 1;
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipGetDevice(int* device) {
  *device = t_device;
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipSetDevice(int device) {
  if (device != 0) return hipErrorInvalidDevice;
  t_device = device;
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int) {
  switch (attr) {
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
      *value = 65536;
      break;
    case hipDeviceAttributeMaxThreadsPerBlock:
      *value = 1024;
      break;
    default:
      *value = 0;
  }
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "Stand-in AMD Instinct", static_cast<std::size_t>(len));
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* props, int) {
  std::memset(props, 0, sizeof(*props));
  const char* arch = std::getenv("FAKE_HIP_ARCH");
  std::strncpy(props->gcnArchName, arch != nullptr ? arch : "gfx942:sramecc+:xnack-", sizeof(props->gcnArchName) - 1);
  std::strncpy(props->name, "Stand-in AMD Instinct", sizeof(props->name) - 1);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0)
    return hipErrorInvalidImage;
  auto* m = new Module();
  m->machine = bytes[18] | (bytes[19] << 8);
  std::memcpy(&m->mach_flags, bytes + 48, 4);
  g_machine = m->machine;
  g_mach_flags = m->mach_flags & 0xff;
  if (m->machine != 224) {
    delete m;
    return hipErrorInvalidImage;
  }
  *module = reinterpret_cast<hipModule_t>(m);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipModuleUnload(hipModule_t module) {
  delete reinterpret_cast<Module*>(module);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* name) {
  if (module == nullptr || name == nullptr || *name == '\0') return hipErrorNotFound;
  *function = reinterpret_cast<hipFunction_t>(new std::string(name));
  return hipSuccess;
}
// Registers, local memory and thread limit of every function: FAKE_HIP_REGISTERS (default 32),
// FAKE_HIP_LOCAL_BYTES (0) and 1024.
FAKE_EXPORT hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attribute, hipFunction_t function) {
  if (value == nullptr || function == nullptr) return hipErrorInvalidValue;
  switch (attribute) {
    case HIP_FUNC_ATTRIBUTE_NUM_REGS:
      *value = env_int("FAKE_HIP_REGISTERS", 32);
      return hipSuccess;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *value = env_int("FAKE_HIP_LOCAL_BYTES", 0);
      return hipSuccess;
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = 1024;
      return hipSuccess;
    default:
      return hipErrorInvalidValue;
  }
}
FAKE_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                             unsigned by, unsigned bz, unsigned shared, hipStream_t stream,
                                             void** params, void** extra) {
  if (f == nullptr || params == nullptr || extra != nullptr) return hipErrorInvalidValue;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_last = FakeHipLaunch{{gx, gy, gz}, {bx, by, bz}, shared, stream, {}, 0};
  const char* count = std::getenv("FAKE_HIP_PARAMS");  // how many the test's kernel declares
  const int n = count != nullptr ? std::atoi(count) : 0;
  for (int i = 0; i < n && i < 32; ++i) std::memcpy(&g_last.params[i], params[i], 8);
  g_last.num_params = n;
  g_launches.fetch_add(1);
  g_clock_us.fetch_add(5);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
FAKE_EXPORT hipError_t hipStreamIsCapturing(hipStream_t, hipStreamCaptureStatus* status) {
  *status = hipStreamCaptureStatusNone;
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode*) { return hipSuccess; }
FAKE_EXPORT hipError_t hipMalloc(void** ptr, size_t bytes) {
  *ptr = std::calloc(1, bytes);
  return *ptr != nullptr ? hipSuccess : hipErrorOutOfMemory;
}
FAKE_EXPORT hipError_t hipFree(void* ptr) {
  std::free(ptr);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count, hipStream_t) {
  std::memset(dst, value, count);
  return hipSuccess;
}
// Only do_bench's L2 flush (256 MB, per timed run) uses it: it takes time, it writes nothing.
FAKE_EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t, int, size_t, hipStream_t) {
  g_clock_us.fetch_add(1);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes, hipStream_t) {
  std::memmove(dst, src, bytes);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t bytes) {
  std::memcpy(dst, src, bytes);
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipEventCreate(hipEvent_t* event) {
  *event = reinterpret_cast<hipEvent_t>(new uint64_t(0));
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t) {
  *reinterpret_cast<uint64_t*>(event) = g_clock_us.load();
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
FAKE_EXPORT hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t end) {
  *ms = static_cast<float>(*reinterpret_cast<uint64_t*>(end) - *reinterpret_cast<uint64_t*>(start)) / 1000.0f;
  return hipSuccess;
}
FAKE_EXPORT hipError_t hipEventDestroy(hipEvent_t event) {
  delete reinterpret_cast<uint64_t*>(event);
  return hipSuccess;
}

FAKE_EXPORT FakeHipLaunch fake_hip_last_launch() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_last;
}
FAKE_EXPORT uint64_t fake_hip_launch_count() { return g_launches.load(); }
FAKE_EXPORT unsigned fake_hip_loaded_machine() { return g_machine.load(); }
FAKE_EXPORT unsigned fake_hip_loaded_mach_flags() { return g_mach_flags.load(); }

}  // extern "C"
