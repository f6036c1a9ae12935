// A stand-in libcuda.so.1 for machines without a GPU: enough of the driver API for triton_jit
// to load a module and "launch" it, recording what each launch passed. The launch path then
// runs end to end on CPU (its parameters, its attributes, its allocations); nothing executes.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "fake_cuda.h"

namespace {

struct FakeContext {
  int device = 0;
};
FakeContext g_primary;
thread_local CUcontext t_current = nullptr;
std::mutex g_mutex;
FakeLaunch g_last;  // guarded by g_mutex
std::atomic<uint64_t> g_launches{0};
std::atomic<uint64_t> g_modules_loaded{0};
std::atomic<uint64_t> g_modules_unloaded{0};
char g_module_storage;
char g_function_storage;

CUresult fake_cuInit(unsigned) { return CUDA_SUCCESS; }
CUresult fake_cuDriverGetVersion(int* v) {
  *v = 13000;
  return CUDA_SUCCESS;
}
CUresult fake_cuGetErrorName(CUresult r, const char** s) {
  *s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult fake_cuGetErrorString(CUresult, const char** s) {
  *s = "fake driver error";
  return CUDA_SUCCESS;
}
CUresult fake_cuDeviceGet(CUdevice* d, int ordinal) {
  *d = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult fake_cuDeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult fake_cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "fake", len);
  return CUDA_SUCCESS;
}
// FAKE_CUDA_<NAME> environment variables override a reported limit, to test load-time checks.
int env_or(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

CUresult fake_cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *v = env_or("FAKE_CUDA_CC_MAJOR", 9);
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *v = env_or("FAKE_CUDA_CC_MINOR", 0);
      break;
    case static_cast<CUdevice_attribute>(150):  // oversized shared memory per block (compute capability 10.7)
      *v = env_or("FAKE_CUDA_OVERSIZED_SHARED", 0);
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *v = 232448;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *v = 1024;
      break;
    default:
      *v = 0;
  }
  return CUDA_SUCCESS;
}
CUresult fake_cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = reinterpret_cast<CUcontext>(&g_primary);
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxGetCurrent(CUcontext* c) {
  *c = t_current;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxSetCurrent(CUcontext c) {
  t_current = c;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxGetDevice(CUdevice* d) {
  if (t_current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxPushCurrent(CUcontext c) {
  t_current = c;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxPopCurrent(CUcontext* c) {
  *c = t_current;
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleLoadData(CUmodule* m, const void* image) {
  if (std::memcmp(image,
                  "\x7f"
                  "ELF",
                  4) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  *m = reinterpret_cast<CUmodule>(&g_module_storage);
  g_modules_loaded.fetch_add(1);
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleUnload(CUmodule) {
  g_modules_unloaded.fetch_add(1);
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleGetFunction(CUfunction* f, CUmodule, const char*) {
  *f = reinterpret_cast<CUfunction>(&g_function_storage);
  return CUDA_SUCCESS;
}
CUresult fake_cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction) {
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *v = env_or("FAKE_CUDA_FUNCTION_MAX_THREADS", 1024);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *v = env_or("FAKE_CUDA_FUNCTION_REGISTERS", 40);
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *v = env_or("FAKE_CUDA_FUNCTION_LOCAL_BYTES", 0);
      break;
    default:
      *v = 0;
  }
  return CUDA_SUCCESS;
}
std::atomic<int> g_shared_memory_mode{-1};
// Attribute 17 (the shared memory mode, newer than CUDA 13.0's cuda.h) is known when
// FAKE_CUDA_SHARED_MEMORY_MODE=1, as a driver that has it.
CUresult fake_cuFuncSetAttribute(CUfunction, CUfunction_attribute a, int value) {
  if (static_cast<int>(a) == 17) {
    if (env_or("FAKE_CUDA_SHARED_MEMORY_MODE", 0) == 0) return CUDA_ERROR_INVALID_VALUE;
    g_shared_memory_mode = value;
  }
  return CUDA_SUCCESS;
}
CUresult fake_cuFuncSetCacheConfig(CUfunction, CUfunc_cache) { return CUDA_SUCCESS; }
// Time on the stand-in device, in microseconds: every launch advances it by a duration that
// depends on its block size, so that autotuning has a fastest config to find. FAKE_CUDA_FAST_BLOCK
// (threads) names the block size that runs in 1 us; others take 5 us. Without it, a launch takes
// 1000 / threads us: more warps are faster.
std::atomic<uint64_t> g_clock_ns{0};
std::atomic<uint64_t> g_fills{0};
std::atomic<uint64_t> g_copies{0};

uint64_t launch_ns(unsigned threads) {
  const int fast = env_or("FAKE_CUDA_FAST_BLOCK", 0);
  if (fast != 0) return static_cast<unsigned>(fast) == threads ? 1000 : 5000;
  return 1000000 / (threads == 0 ? 1 : threads);
}

CUresult fake_cuEventCreate(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(new uint64_t(0));
  return CUDA_SUCCESS;
}
CUresult fake_cuEventRecord(CUevent e, CUstream) {
  *reinterpret_cast<uint64_t*>(e) = g_clock_ns.load();
  return CUDA_SUCCESS;
}
CUresult fake_cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult fake_cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  *ms = static_cast<float>(*reinterpret_cast<uint64_t*>(b) - *reinterpret_cast<uint64_t*>(a)) / 1e6f;
  return CUDA_SUCCESS;
}
CUresult fake_cuEventDestroy(CUevent e) {
  delete reinterpret_cast<uint64_t*>(e);
  return CUDA_SUCCESS;
}
CUresult fake_cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
// "Device" memory is host memory: the CPU tests pass host addresses as device pointers.
CUresult fake_cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  *p = reinterpret_cast<CUdeviceptr>(std::calloc(1, bytes));
  return *p != 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult fake_cuMemFree(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult fake_cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, CUstream) {
  std::memset(reinterpret_cast<void*>(p), v, n);
  g_fills.fetch_add(1);
  return CUDA_SUCCESS;
}
// The L2 flush of a benchmark fills 256 MB: counted as time, not performed.
CUresult fake_cuMemsetD32Async(CUdeviceptr, unsigned, size_t, CUstream) {
  g_clock_ns.fetch_add(100);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream) {
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
  g_copies.fetch_add(1);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t n) {
  std::memmove(reinterpret_cast<void*>(dst), src, n);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t n) {
  std::memmove(dst, reinterpret_cast<const void*>(src), n);
  return CUDA_SUCCESS;
}

// FAKE_CUDA_EVICT_KB: each launch writes that many KB of memory of its own, as the real driver's
// launch work does; it evicts what the caller read before, which is what makes extra memory on a
// hit path cost on a GPU machine (benchmarks of the hit path on CPU use it).
void evict_caches() {
  static const std::size_t bytes = static_cast<std::size_t>(env_or("FAKE_CUDA_EVICT_KB", 0)) * 1024;
  if (bytes == 0) return;
  static auto* memory = static_cast<volatile char*>(std::calloc(1, bytes));
  for (std::size_t i = 0; i < bytes; i += 64) memory[i] = static_cast<char>(memory[i] + 1);
}

CUresult fake_cuLaunchKernelEx(const CUlaunchConfig* c, CUfunction, void** params, void**) {
  evict_caches();
  if (c->sharedMemBytes > static_cast<unsigned>(std::max(232448, env_or("FAKE_CUDA_OVERSIZED_SHARED", 0)))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  g_launches.fetch_add(1, std::memory_order_relaxed);
  g_clock_ns.fetch_add(launch_ns(c->blockDimX));
  if (fake_cuda_record_launches()) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_last.grid[0] = c->gridDimX;
    g_last.grid[1] = c->gridDimY;
    g_last.grid[2] = c->gridDimZ;
    g_last.block_x = c->blockDimX;
    g_last.shared = c->sharedMemBytes;
    g_last.num_attrs = c->numAttrs;
    for (unsigned i = 0; i < c->numAttrs && i < 4; ++i) g_last.attr_ids[i] = c->attrs[i].id;
    for (int i = 0; i < fake_cuda_params_to_record(); ++i) std::memcpy(&g_last.params[i], params[i], 8);
  }
  return CUDA_SUCCESS;
}

FakeTensorMap g_tensor_map;  // guarded by g_mutex

CUresult fake_cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* base,
                                     const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                                     const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                     CUtensorMapFloatOOBfill fill) {
  if (rank < 1 || rank > 5 || reinterpret_cast<uintptr_t>(map) % 64 != 0 ||
      reinterpret_cast<uintptr_t>(base) % 16 != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  FakeTensorMap& t = g_tensor_map;
  t = FakeTensorMap{};
  t.elem_type = type;
  t.rank = rank;
  t.base = reinterpret_cast<uint64_t>(base);
  for (cuuint32_t i = 0; i < rank; ++i) {
    t.dims[i] = dims[i];
    t.box[i] = box[i];
    t.element_strides[i] = element_strides[i];
    if (i + 1 < rank) t.strides[i] = strides[i];
  }
  t.interleave = interleave;
  t.swizzle = swizzle;
  t.l2_promotion = l2;
  t.fill = fill;
  static uint64_t encoded = 0;
  t.encoded = ++encoded;
  std::memset(map, 0, sizeof(CUtensorMap));
  std::memcpy(reinterpret_cast<char*>(map), "TMAP", 4);
  std::memcpy(reinterpret_cast<char*>(map) + 8, &t.base, 8);
  std::memcpy(reinterpret_cast<char*>(map) + 16, &t.encoded, 8);
  return CUDA_SUCCESS;
}

CUresult fake_cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;  // the stand-in driver never captures
  return CUDA_SUCCESS;
}

CUresult fake_cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode*) { return CUDA_SUCCESS; }

struct Entry {
  const char* name;
  void* fn;
};
#define FAKE_ENTRY(name) \
  { #name, reinterpret_cast < void*>(&fake_##name) }
const Entry kEntries[] = {FAKE_ENTRY(cuInit),
                          FAKE_ENTRY(cuDriverGetVersion),
                          FAKE_ENTRY(cuGetErrorName),
                          FAKE_ENTRY(cuGetErrorString),
                          FAKE_ENTRY(cuDeviceGet),
                          FAKE_ENTRY(cuDeviceGetCount),
                          FAKE_ENTRY(cuDeviceGetName),
                          FAKE_ENTRY(cuDeviceGetAttribute),
                          FAKE_ENTRY(cuDevicePrimaryCtxRetain),
                          FAKE_ENTRY(cuCtxGetCurrent),
                          FAKE_ENTRY(cuCtxSetCurrent),
                          FAKE_ENTRY(cuCtxGetDevice),
                          FAKE_ENTRY(cuCtxPushCurrent),
                          FAKE_ENTRY(cuCtxPopCurrent),
                          FAKE_ENTRY(cuModuleLoadData),
                          FAKE_ENTRY(cuModuleUnload),
                          FAKE_ENTRY(cuModuleGetFunction),
                          FAKE_ENTRY(cuFuncGetAttribute),
                          FAKE_ENTRY(cuFuncSetAttribute),
                          FAKE_ENTRY(cuFuncSetCacheConfig),
                          FAKE_ENTRY(cuLaunchKernelEx),
                          FAKE_ENTRY(cuEventCreate),
                          FAKE_ENTRY(cuEventRecord),
                          FAKE_ENTRY(cuEventSynchronize),
                          FAKE_ENTRY(cuEventElapsedTime),
                          FAKE_ENTRY(cuEventDestroy),
                          FAKE_ENTRY(cuStreamSynchronize),
                          FAKE_ENTRY(cuMemAlloc),
                          FAKE_ENTRY(cuMemFree),
                          FAKE_ENTRY(cuMemsetD8Async),
                          FAKE_ENTRY(cuMemsetD32Async),
                          FAKE_ENTRY(cuMemcpyDtoDAsync),
                          FAKE_ENTRY(cuMemcpyHtoD),
                          FAKE_ENTRY(cuMemcpyDtoH),
                          FAKE_ENTRY(cuStreamIsCapturing),
                          FAKE_ENTRY(cuThreadExchangeStreamCaptureMode),
                          FAKE_ENTRY(cuTensorMapEncodeTiled)};

std::atomic<bool> g_record{true};
std::atomic<int> g_params_to_record{0};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t,
                                                                    CUdriverProcAddressQueryResult* status) {
  for (const auto& e : kEntries) {
    if (std::strcmp(e.name, symbol) == 0) {
      *pfn = e.fn;
      if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
      return CUDA_SUCCESS;
    }
  }
  *pfn = nullptr;
  if (status) *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_ERROR_NOT_FOUND;
}

__attribute__((visibility("default"))) FakeLaunch fake_cuda_last_launch() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_last;
}
__attribute__((visibility("default"))) uint64_t fake_cuda_launch_count() { return g_launches.load(); }
__attribute__((visibility("default"))) FakeTensorMap fake_cuda_last_tensor_map() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_tensor_map;
}
__attribute__((visibility("default"))) uint64_t fake_cuda_fill_count() { return g_fills.load(); }
__attribute__((visibility("default"))) int fake_cuda_shared_memory_mode() { return g_shared_memory_mode.load(); }
__attribute__((visibility("default"))) uint64_t fake_cuda_copy_count() { return g_copies.load(); }
__attribute__((visibility("default"))) uint64_t fake_cuda_modules_loaded() { return g_modules_loaded.load(); }
__attribute__((visibility("default"))) uint64_t fake_cuda_modules_unloaded() { return g_modules_unloaded.load(); }
__attribute__((visibility("default"))) void fake_cuda_set_recording(bool on, int params) {
  g_record = on;
  g_params_to_record = params;
}
bool fake_cuda_record_launches() { return g_record.load(std::memory_order_relaxed); }
int fake_cuda_params_to_record() { return g_params_to_record.load(std::memory_order_relaxed); }
}
