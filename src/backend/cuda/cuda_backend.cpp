// The CUDA backend: module loading with every check done once (shared memory, threads, registers,
// architecture), the launch, device memory and copies, and do_bench-style timing for the
// autotuner. Longer than 400 lines because it is the whole of one backend policy
// (impl/backend_policy.h); the driver table is in cuda_driver.cpp.
#include "backend/cuda/cuda_backend.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "backend/cuda/cuda_driver.h"
#include "backend/do_bench.h"
#include "backend/scratch.h"
#include "common/settings.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail::cuda {

struct CudaBackend::Kernel {
  // Read on every launch, kept together.
  CUfunction function = nullptr;
  unsigned block_x = 128;
  unsigned num_ctas = 1;
  unsigned shared = 0;
  unsigned max_dynamic_shared = 0;  // what a launch may ask for (LaunchConfig::shared_memory)
  unsigned num_attrs = 0;
  uint64_t global_scratch_size = 0;
  uint64_t profile_scratch_size = 0;
  uint64_t global_scratch_align = 1;
  uint64_t profile_scratch_align = 1;
  CUlaunchAttribute attrs[5]{};
  // Load-time state.
  CUmodule module = nullptr;
  CUcontext context = nullptr;
  int device = 0;
  std::string name;
  impl::KernelResources resources;
};

namespace {

// Oversized shared memory, as Triton 3.8's launcher names it (newer than the cuda.h of CUDA 13.0).
constexpr auto kMaxOversizedSharedMemoryPerBlock = static_cast<CUdevice_attribute>(150);
constexpr auto kFuncSharedMemoryMode = static_cast<CUfunction_attribute>(17);
constexpr auto kLaunchSharedMemoryMode = static_cast<CUlaunchAttributeID>(18);
constexpr int kAllowOversizedSharedMemory = 3;
constexpr int kOversizedSharedMemory = 228 * 1024;  // above this, each launch asks for the mode

// Whether `version` ("3.8.0", "3.10.1+git...") is at least major.minor.
bool triton_at_least(const std::string& version, int major, int minor) {
  int v_major = 0, v_minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &v_major, &v_minor) != 2) return false;
  return v_major > major || (v_major == major && v_minor >= minor);
}

int device_attribute(const Driver& d, CUdevice_attribute attr, CUdevice device) {
  int value = 0;
  TRITON_JIT_CU_CHECK(d.cuDeviceGetAttribute(&value, attr, device));
  return value;
}

// The context a launch on `device` uses: the current one if it belongs to the device, else the
// device's primary context (made current, as the CUDA runtime would).
CUcontext context_for(const Driver& d, int device) {
  CUcontext current = nullptr;
  TRITON_JIT_CU_CHECK(d.cuCtxGetCurrent(&current));
  if (current != nullptr) {
    CUdevice current_device;
    TRITON_JIT_CU_CHECK(d.cuCtxGetDevice(&current_device));
    if (current_device == device) return current;
  }
  CUdevice dev;
  TRITON_JIT_CU_CHECK(d.cuDeviceGet(&dev, device));
  CUcontext primary = nullptr;
  TRITON_JIT_CU_CHECK(d.cuDevicePrimaryCtxRetain(&primary, dev));
  if (current == nullptr) TRITON_JIT_CU_CHECK(d.cuCtxSetCurrent(primary));
  return primary;
}

// Makes the device's context current for its lifetime (pushing it when another one is).
class ContextScope {
 public:
  ContextScope(const Driver& d, int device) : d_(d) {
    CUcontext wanted = context_for(d, device);
    CUcontext current = nullptr;
    TRITON_JIT_CU_CHECK(d.cuCtxGetCurrent(&current));
    if (current != wanted) {
      TRITON_JIT_CU_CHECK(d.cuCtxPushCurrent(wanted));
      pushed_ = true;
    }
  }
  ~ContextScope() {
    CUcontext ignored;
    if (pushed_) d_.cuCtxPopCurrent(&ignored);
  }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  const Driver& d_;
  bool pushed_ = false;
};

// Loading a module is an "unsafe" call for a stream capture in the global or thread-local mode:
// made while this thread's work is being captured into a CUDA graph, it would invalidate the
// capture. In the relaxed mode the load runs; it queues no work on any stream, so the graph
// being captured is not changed by it.
class RelaxedCaptureMode {
 public:
  explicit RelaxedCaptureMode(const Driver& d) : d_(d) { d_.cuThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureMode() { d_.cuThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  const Driver& d_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

}  // namespace

bool arch_runs_on(const std::string& arch, int major, int minor) noexcept {
  if (arch.empty()) return false;
  bool specific = arch.back() == 'a' || arch.back() == 'f';
  int value = std::atoi(arch.c_str());
  int arch_major = value / 10;
  int arch_minor = value % 10;
  if (arch_major != major) return false;
  return specific ? arch_minor == minor : arch_minor <= minor;
}

bool CudaBackend::available() noexcept {
  const Driver& d = driver();
  if (!d.loaded) return false;
  int count = 0;
  return d.cuDeviceGetCount(&count) == CUDA_SUCCESS && count > 0;
}

int CudaBackend::current_device() {
  const Driver& d = require_driver();
  CUdevice device;
  CUresult r = d.cuCtxGetDevice(&device);
  if (r == CUDA_SUCCESS) [[likely]]
    return device;
  if (r != CUDA_ERROR_INVALID_CONTEXT) throw_driver_error("cuCtxGetDevice", r);
  context_for(d, 0);  // no context yet: device 0's primary context, as the runtime API does
  return 0;
}

Target CudaBackend::device_target(int device) {
  const Driver& d = require_driver();
  CUdevice dev;
  TRITON_JIT_CU_CHECK(d.cuDeviceGet(&dev, device));
  int major = device_attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  int minor = device_attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  return Target{major * 10 + minor, false};
}

const CudaBackend::Kernel* CudaBackend::load(const impl::KernelImage& image, int device) {
  const Driver& d = require_driver();
  const impl::KernelMetadata& meta = *image.metadata;
  CUdevice dev;
  TRITON_JIT_CU_CHECK(d.cuDeviceGet(&dev, device));
  int major = device_attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  int minor = device_attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (!arch_runs_on(meta.arch, major, minor)) {
    throw ValueError(fmt::format("{}: compiled for sm_{}, which device {} (compute capability {}.{}) cannot run",
                                 meta.name, meta.arch, device, major, minor));
  }
  int shared_optin = device_attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
  // Kernels from Triton 3.8 on may use more than the opt-in limit where the device allows
  // oversized shared memory (compute capability 10.7), as that Triton's launcher does.
  const bool oversized_protocol = triton_at_least(meta.triton_version, 3, 8);
  int shared_limit = shared_optin;
  if (oversized_protocol && major == 10 && minor == 7) {
    shared_limit = device_attribute(d, kMaxOversizedSharedMemoryPerBlock, dev);
  }
  if (meta.shared > shared_limit) {
    throw ValueError(fmt::format("{}: needs {} bytes of shared memory, over the {} bytes device {} allows per block",
                                 meta.name, meta.shared, shared_limit, device));
  }
  int max_threads = device_attribute(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
  unsigned threads = 32u * static_cast<unsigned>(meta.num_warps);
  if (static_cast<int>(threads) > max_threads) {
    throw ValueError(fmt::format("{}: needs {} threads per block ({} warps), over the device's {}", meta.name, threads,
                                 meta.num_warps, max_threads));
  }

  auto k = std::unique_ptr<Kernel>(new Kernel());
  k->name = meta.name;
  k->device = device;
  k->context = context_for(d, device);
  ContextScope scope(d, device);
  RelaxedCaptureMode relaxed(d);

  TRITON_JIT_CU_CHECK(d.cuModuleLoadData(&k->module, image.binary.data()));
  // Unloaded again if any check below fails; kept once the kernel is returned.
  struct UnloadGuard {
    const Driver& d;
    CUmodule module;
    bool armed = true;
    ~UnloadGuard() {
      if (armed) d.cuModuleUnload(module);
    }
  } unload_guard{d, k->module};
  TRITON_JIT_CU_CHECK(d.cuModuleGetFunction(&k->function, k->module, meta.name.c_str()));
  int function_max_threads = 0;
  TRITON_JIT_CU_CHECK(
      d.cuFuncGetAttribute(&function_max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->function));
  // As Triton's loadBinary reads them; spills are the local memory in 4-byte words.
  int registers = 0;
  int local_bytes = 0;
  TRITON_JIT_CU_CHECK(d.cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k->function));
  TRITON_JIT_CU_CHECK(d.cuFuncGetAttribute(&local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->function));
  k->resources = impl::KernelResources{registers, local_bytes / 4, function_max_threads};
  if (static_cast<int>(threads) > function_max_threads) {
    throw ValueError(fmt::format("{}: launches {} threads per block, but its registers allow only {}", meta.name,
                                 threads, function_max_threads));
  }
  // Shared memory above the 48 KB default needs an opt-in, once per function (Triton's loadBinary
  // does the same). Triton 3.8's asks for the oversized mode first, and falls back to the
  // opt-in where the driver does not know that attribute.
  const bool oversized_mode =
      meta.shared > 49152 && oversized_protocol &&
      d.cuFuncSetAttribute(k->function, kFuncSharedMemoryMode, kAllowOversizedSharedMemory) == CUDA_SUCCESS;
  int shared_static = 0;
  TRITON_JIT_CU_CHECK(d.cuFuncGetAttribute(&shared_static, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->function));
  // Without the opt-in a launch may ask for the 48 KB default, less what the function holds statically.
  int max_dynamic = std::max(0, 49152 - shared_static);
  if (meta.shared > 49152 && !oversized_mode) {
    TRITON_JIT_CU_CHECK(d.cuFuncSetCacheConfig(k->function, CU_FUNC_CACHE_PREFER_SHARED));
    TRITON_JIT_CU_CHECK(d.cuFuncSetAttribute(k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             shared_optin - shared_static));
    max_dynamic = shared_optin - shared_static;
  } else if (oversized_mode) {
    max_dynamic = shared_limit - shared_static;
  }
  k->max_dynamic_shared = static_cast<unsigned>(std::max(max_dynamic, meta.shared));
  if (meta.num_ctas == 16) {
    TRITON_JIT_CU_CHECK(d.cuFuncSetAttribute(k->function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
  }

  k->block_x = threads;
  k->num_ctas = static_cast<unsigned>(meta.num_ctas);
  k->shared = static_cast<unsigned>(meta.shared);
  k->global_scratch_size = static_cast<uint64_t>(meta.global_scratch_size);
  k->global_scratch_align = static_cast<uint64_t>(meta.global_scratch_align);
  k->profile_scratch_size = static_cast<uint64_t>(meta.profile_scratch_size);
  k->profile_scratch_align = static_cast<uint64_t>(meta.profile_scratch_align);
  if (oversized_protocol && meta.shared > kOversizedSharedMemory) {
    CUlaunchAttribute& a = k->attrs[k->num_attrs++];
    a.id = kLaunchSharedMemoryMode;
    const int mode = kAllowOversizedSharedMemory;
    std::memcpy(&a.value, &mode, sizeof(mode));
  }
  if (meta.launch_pdl) {
    CUlaunchAttribute& a = k->attrs[k->num_attrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  if (meta.launch_cooperative_grid) {
    CUlaunchAttribute& a = k->attrs[k->num_attrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    a.value.cooperative = 1;
  }
  if (meta.num_ctas != 1) {
    CUlaunchAttribute& cluster = k->attrs[k->num_attrs++];
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = static_cast<unsigned>(meta.num_ctas);
    cluster.value.clusterDim.y = 1;
    cluster.value.clusterDim.z = 1;
    CUlaunchAttribute& policy = k->attrs[k->num_attrs++];
    policy.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    policy.value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  }
  unload_guard.armed = false;
  return k.release();
}

namespace {

[[noreturn]] __attribute__((noinline, cold)) void throw_shared(const CudaBackend::Kernel& k, const LaunchConfig& c) {
  throw ValueError(
      fmt::format("{}: LaunchConfig::shared_memory asks for {} bytes of dynamic shared memory; on device {} "
                  "this kernel may take at most {} (it needs {})",
                  k.name, c.shared_memory, k.device, k.max_dynamic_shared, k.shared));
}

[[noreturn]] __attribute__((noinline, cold)) void throw_grid(const CudaBackend::Kernel& k, const LaunchConfig& c) {
  throw ValueError(
      fmt::format("{}: grid ({}, {}, {}) with num_ctas={} is over the device's limits: grid x times "
                  "num_ctas at most 2147483647, grid y and z at most 65535",
                  k.name, c.grid[0], c.grid[1], c.grid[2], k.num_ctas));
}

}  // namespace

namespace {

bool is_default_stream(CUstream s) { return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD; }

__attribute__((noinline, cold)) void launch_in_kernel_context(const Driver& d, const CudaBackend::Kernel& k,
                                                              const CUlaunchConfig& config, void** params) {
  ContextScope scope(d, k.device);
  CUresult r = d.cuLaunchKernelEx(&config, k.function, params, nullptr);
  if (r != CUDA_SUCCESS) throw_driver_error("cuLaunchKernelEx", r);
}

}  // namespace

impl::KernelResources CudaBackend::resources(const Kernel& kernel) noexcept { return kernel.resources; }

void CudaBackend::launch(const Kernel& k, const LaunchConfig& c, void** params, uint32_t num_params,
                         uint64_t* scratch_cells) {
  const uint64_t programs = uint64_t{c.grid[0]} * c.grid[1] * c.grid[2];
  if (programs == 0) return;  // an empty grid launches nothing, like Triton
  if (uint64_t{c.grid[0]} * k.num_ctas > 0x7FFFFFFFu || c.grid[1] > 65535 || c.grid[2] > 65535) [[unlikely]] {
    throw_grid(k, c);
  }
  if (c.shared_memory > static_cast<int64_t>(k.max_dynamic_shared)) [[unlikely]]
    throw_shared(k, c);
  const Driver& d = driver();

  scratch_cells[0] = 0;
  scratch_cells[1] = 0;
  params[num_params] = &scratch_cells[0];
  params[num_params + 1] = &scratch_cells[1];
  ScratchLease global_lease;
  ScratchLease profile_lease;
  if (k.global_scratch_size != 0) [[unlikely]] {
    lease_scratch(k.name, k.global_scratch_size * programs * k.num_ctas, k.global_scratch_align, c.stream, "global",
                  global_lease, scratch_cells[0]);
  }
  if (k.profile_scratch_size != 0) [[unlikely]] {
    lease_scratch(k.name, k.profile_scratch_size * programs * k.num_ctas, k.profile_scratch_align, c.stream, "profile",
                  profile_lease, scratch_cells[1]);
  }

  CUlaunchConfig config;
  config.gridDimX = c.grid[0] * k.num_ctas;
  config.gridDimY = c.grid[1];
  config.gridDimZ = c.grid[2];
  config.blockDimX = k.block_x;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = c.shared_memory >= 0 ? static_cast<unsigned>(c.shared_memory) : k.shared;
  config.hStream = reinterpret_cast<CUstream>(c.stream);
  config.attrs = const_cast<CUlaunchAttribute*>(k.attrs);
  config.numAttrs = k.num_attrs;
  if (is_default_stream(config.hStream)) {
    // The default stream is the current context's: from a thread whose current device is another
    // one, the launch needs the kernel's context (the device of its tensors) made current.
    CUcontext current = nullptr;
    d.cuCtxGetCurrent(&current);
    if (current != k.context) [[unlikely]]
      return launch_in_kernel_context(d, k, config, params);
  }
  CUresult r = d.cuLaunchKernelEx(&config, k.function, params, nullptr);
  if (r != CUDA_SUCCESS) [[unlikely]]
    throw_driver_error("cuLaunchKernelEx", r);
}

std::string CudaBackend::device_name(int device) {
  const Driver& d = require_driver();
  CUdevice dev;
  TRITON_JIT_CU_CHECK(d.cuDeviceGet(&dev, device));
  char name[256] = {};
  TRITON_JIT_CU_CHECK(d.cuDeviceGetName(name, sizeof(name) - 1, dev));
  return name;
}

void* CudaBackend::allocate(int device, std::size_t bytes) {
  const Driver& d = require_driver();
  ContextScope scope(d, device);
  CUdeviceptr ptr = 0;
  TRITON_JIT_CU_CHECK(d.cuMemAlloc(&ptr, bytes == 0 ? 1 : bytes));
  return reinterpret_cast<void*>(ptr);
}

void CudaBackend::release(int device, void* ptr) noexcept {
  const Driver& d = driver();
  if (!d.loaded || ptr == nullptr) return;
  try {
    ContextScope scope(d, device);
    d.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  } catch (...) {  // a context that cannot be made current: the memory goes with the process
  }
}

void CudaBackend::fill_zero(void* ptr, std::size_t bytes, Stream stream) {
  const Driver& d = require_driver();
  TRITON_JIT_CU_CHECK(
      d.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(ptr), 0, bytes, reinterpret_cast<CUstream>(stream)));
}

void CudaBackend::copy(void* destination, const void* source, std::size_t bytes, Stream stream) {
  const Driver& d = require_driver();
  TRITON_JIT_CU_CHECK(d.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(destination),
                                          reinterpret_cast<CUdeviceptr>(source), bytes,
                                          reinterpret_cast<CUstream>(stream)));
}

bool CudaBackend::capturing(int device, Stream stream) {
  const Driver& d = require_driver();
  ContextScope scope(d, device);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  TRITON_JIT_CU_CHECK(d.cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &status));
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

void CudaBackend::synchronize(int device, Stream stream) {
  const Driver& d = require_driver();
  ContextScope scope(d, device);
  TRITON_JIT_CU_CHECK(d.cuStreamSynchronize(reinterpret_cast<CUstream>(stream)));
}

void CudaBackend::upload(int device, void* destination, const void* host, std::size_t bytes) {
  const Driver& d = require_driver();
  ContextScope scope(d, device);
  TRITON_JIT_CU_CHECK(d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(destination), host, bytes));
}

void CudaBackend::download(int device, void* host, const void* source, std::size_t bytes) {
  const Driver& d = require_driver();
  ContextScope scope(d, device);
  TRITON_JIT_CU_CHECK(d.cuMemcpyDtoH(host, reinterpret_cast<CUdeviceptr>(source), bytes));
}

namespace {

// Timing events, kept per device across benchmarks: tuning a key times thousands of runs per
// config, and creating and destroying an event each time cost ~10 ms per config.
class EventPool {
 public:
  std::vector<CUevent> take(std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t from = free_.size() - std::min(n, free_.size());
    std::vector<CUevent> out(free_.begin() + static_cast<std::ptrdiff_t>(from), free_.end());
    free_.resize(from);
    return out;
  }
  void give(std::vector<CUevent>& events) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.insert(free_.end(), events.begin(), events.end());
    events.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<CUevent> free_;  // guarded by mutex_
};

EventPool& event_pool(int device) {
  static auto* pools = new EventPool[64];  // never destroyed: events outlive static destruction order
  return pools[device];
}

// One benchmark's stream, events (back to the device's pool with it) and L2 flush, for do_bench.
class BenchStream {
 public:
  using Event = CUevent;
  BenchStream(const Driver& d, int device, CUstream s, CUdeviceptr flush)
      : d_(d), pool_(event_pool(device)), s_(s), flush_(flush) {}
  ~BenchStream() {
    events_.insert(events_.end(), spare_.begin(), spare_.end());
    pool_.give(events_);
  }
  BenchStream(const BenchStream&) = delete;
  BenchStream& operator=(const BenchStream&) = delete;
  CUevent event() {
    if (spare_.empty()) spare_ = pool_.take(256);
    CUevent e = nullptr;
    if (!spare_.empty()) {
      e = spare_.back();
      spare_.pop_back();
    } else {
      TRITON_JIT_CU_CHECK(d_.cuEventCreate(&e, CU_EVENT_DEFAULT));
    }
    events_.push_back(e);
    return e;
  }
  void record(CUevent e) { TRITON_JIT_CU_CHECK(d_.cuEventRecord(e, s_)); }
  void wait(CUevent e) { TRITON_JIT_CU_CHECK(d_.cuEventSynchronize(e)); }
  double milliseconds(CUevent a, CUevent b) {
    float ms = 0;
    TRITON_JIT_CU_CHECK(d_.cuEventElapsedTime(&ms, a, b));
    return static_cast<double>(ms);
  }
  void finish() { TRITON_JIT_CU_CHECK(d_.cuStreamSynchronize(s_)); }
  void flush_l2() { TRITON_JIT_CU_CHECK(d_.cuMemsetD32Async(flush_, 0, kFlushBytes / 4, s_)); }

  static constexpr std::size_t kFlushBytes = std::size_t{256} << 20;  // Triton's get_empty_cache_for_benchmark

 private:
  const Driver& d_;
  EventPool& pool_;
  CUstream s_;
  CUdeviceptr flush_;
  std::vector<CUevent> events_;  // handed out by this benchmark
  std::vector<CUevent> spare_;   // taken from the pool, not handed out yet
};

}  // namespace

std::array<double, 3> CudaBackend::benchmark(int device, Stream stream, void (*run)(void*), void* context,
                                             double warmup_ms, double rep_ms) {
  const Driver& d = require_driver();
  ContextScope scope(d, device);
  // Kept per device once made, as PyTorch's caching allocator keeps Triton's: a tuning session
  // benchmarks many configs, and each allocation and free of 256 MB synchronises the device.
  static std::atomic<CUdeviceptr> flush_buffers[64];
  if (device < 0 || device >= 64) throw ValueError(fmt::format("benchmark: device {} is out of range", device));
  CUdeviceptr flush = flush_buffers[device].load(std::memory_order_acquire);
  if (flush == 0) {
    TRITON_JIT_CU_CHECK(d.cuMemAlloc(&flush, BenchStream::kFlushBytes));
    CUdeviceptr expected = 0;
    if (!flush_buffers[device].compare_exchange_strong(expected, flush)) {
      d.cuMemFree(flush);
      flush = expected;
    }
  }
  BenchStream bench(d, device, reinterpret_cast<CUstream>(stream), flush);
  return do_bench(bench, run, context, warmup_ms, rep_ms);
}

void CudaBackend::encode_tensor_map(void* map, const impl::TensorMapRequest& r) {
  const Driver& d = require_driver();
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  const CUresult result = d.cuTensorMapEncodeTiled(
      static_cast<CUtensorMap*>(map), static_cast<CUtensorMapDataType>(r.elem_type), static_cast<cuuint32_t>(r.rank),
      const_cast<void*>(r.base), r.dims.data(), r.byte_strides.data(), r.box.data(), element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, static_cast<CUtensorMapSwizzle>(r.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      r.nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) [[unlikely]]
    throw_driver_error("cuTensorMapEncodeTiled", result);
}

}  // namespace triton_jit::detail::cuda
