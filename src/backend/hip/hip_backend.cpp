// The HIP backend: code-object loading with its checks done once (architecture, shared memory,
// threads), the launch with Triton's AMD ABI (the kernel's parameters, then a global and a
// profile scratch pointer), device memory and copies, and do_bench timing for the autotuner.
#include "backend/hip/hip_backend.h"

#include <fmt/format.h>

#include <atomic>
#include <memory>
#include <vector>

#include "backend/do_bench.h"
#include "backend/hip/hip_driver.h"
#include "backend/scratch.h"
#include "common/settings.h"
#include "common/target.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail::hip {

struct HipBackend::Kernel {
  // Read on every launch, kept together.
  hipFunction_t function = nullptr;
  unsigned block_x = 256;
  unsigned shared = 0;
  uint64_t global_scratch_size = 0;
  uint64_t global_scratch_align = 1;
  uint64_t profile_scratch_size = 0;
  uint64_t profile_scratch_align = 1;
  // Load-time state.
  hipModule_t module = nullptr;
  int device = 0;
  std::string name;
  impl::KernelResources resources;
};

namespace {

int device_attribute(const Driver& d, hipDeviceAttribute_t attr, int device) {
  int value = 0;
  TRITON_JIT_HIP_CHECK(d.hipDeviceGetAttribute(&value, attr, device));
  return value;
}

// Makes `device` the calling thread's current device for its lifetime (HIP binds code objects
// and allocations to the current device).
class DeviceScope {
 public:
  DeviceScope(const Driver& d, int device) : d_(d) {
    TRITON_JIT_HIP_CHECK(d.hipGetDevice(&previous_));
    if (previous_ != device) TRITON_JIT_HIP_CHECK(d.hipSetDevice(device));
  }
  ~DeviceScope() {
    int now = previous_;
    d_.hipGetDevice(&now);
    if (now != previous_) d_.hipSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  const Driver& d_;
  int previous_ = 0;
};

// Module loading is "unsafe" during a stream capture in the global mode (see the CUDA backend).
class RelaxedCaptureMode {
 public:
  explicit RelaxedCaptureMode(const Driver& d) : d_(d) { d_.hipThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureMode() { d_.hipThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  const Driver& d_;
  hipStreamCaptureMode mode_ = hipStreamCaptureModeRelaxed;
};

std::string gcn_arch_name(const Driver& d, int device) {
  auto props = std::make_unique<hipDeviceProp_t>();
  TRITON_JIT_HIP_CHECK(d.hipGetDevicePropertiesR0600(props.get(), device));
  props->gcnArchName[sizeof(props->gcnArchName) - 1] = '\0';
  return props->gcnArchName;
}

[[noreturn]] __attribute__((noinline, cold)) void throw_grid(const HipBackend::Kernel& k, const LaunchConfig& c) {
  throw ValueError(
      fmt::format("{}: grid ({}, {}, {}) is over the device's limits: grid x at most 2147483647, y and z "
                  "at most 65535",
                  k.name, c.grid[0], c.grid[1], c.grid[2]));
}

}  // namespace

Target target_of_arch_name(const std::string& gcn_arch_name) noexcept {
  const std::string base = gcn_arch_name.substr(0, gcn_arch_name.find(':'));
  if (auto t = parse_target(base); t && t->vendor == Vendor::kHip) return *t;
  return Target{0, false, Vendor::kHip};
}

bool HipBackend::available() noexcept {
  const Driver& d = driver();
  if (!d.loaded) return false;
  int count = 0;
  return d.hipGetDeviceCount(&count) == hipSuccess && count > 0;
}

int HipBackend::current_device() {
  const Driver& d = require_driver();
  int device = 0;
  TRITON_JIT_HIP_CHECK(d.hipGetDevice(&device));
  return device;
}

Target HipBackend::device_target(int device) {
  const Driver& d = require_driver();
  const std::string arch = gcn_arch_name(d, device);
  const Target t = target_of_arch_name(arch);
  if (t.arch == 0) {
    throw DriverError(0, fmt::format("triton_jit: device {} reports architecture '{}', which is not a gfx name", device,
                                     arch.substr(0, 100)));
  }
  return t;
}

const HipBackend::Kernel* HipBackend::load(const impl::KernelImage& image, int device) {
  const Driver& d = require_driver();
  const impl::KernelMetadata& meta = *image.metadata;
  const Target device_arch = device_target(device);
  if (arch_name(device_arch) != meta.arch) {
    throw ValueError(fmt::format("{}: compiled for {}, which device {} ({}) cannot run", meta.name, meta.arch, device,
                                 arch_name(device_arch)));
  }
  const int shared_max = device_attribute(d, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
  if (meta.shared > shared_max) {
    throw ValueError(fmt::format("{}: needs {} bytes of shared memory, over the {} bytes device {} allows per block",
                                 meta.name, meta.shared, shared_max, device));
  }
  // A wavefront of 64 lanes on CDNA (gfx9), 32 on RDNA (gfx10 on), as the compiler built it.
  const unsigned wave = device_arch.arch >= 0x1000 ? 32u : 64u;
  const unsigned threads = wave * static_cast<unsigned>(meta.num_warps);
  const int max_threads = device_attribute(d, hipDeviceAttributeMaxThreadsPerBlock, device);
  if (static_cast<int>(threads) > max_threads) {
    throw ValueError(fmt::format("{}: needs {} threads per block ({} warps of {}), over the device's {}", meta.name,
                                 threads, meta.num_warps, wave, max_threads));
  }
  if (meta.num_ctas != 1) {
    throw ValueError(
        fmt::format("{}: num_ctas={} (clusters) is not launched by the HIP backend", meta.name, meta.num_ctas));
  }
  auto k = std::make_unique<Kernel>();
  k->name = meta.name;
  k->device = device;
  DeviceScope scope(d, device);
  RelaxedCaptureMode relaxed(d);
  TRITON_JIT_HIP_CHECK(d.hipModuleLoadData(&k->module, image.binary.data()));
  const hipError_t found = d.hipModuleGetFunction(&k->function, k->module, meta.name.c_str());
  if (found != hipSuccess) {
    d.hipModuleUnload(k->module);
    throw_driver_error("hipModuleGetFunction", found);
  }
  // As Triton's AMD loadBinary reads them; spills are the local memory in 4-byte words.
  int registers = 0;
  int local_bytes = 0;
  int function_max_threads = 0;
  const hipError_t read = [&] {
    hipError_t e = d.hipFuncGetAttribute(&registers, HIP_FUNC_ATTRIBUTE_NUM_REGS, k->function);
    if (e == hipSuccess) e = d.hipFuncGetAttribute(&local_bytes, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->function);
    if (e == hipSuccess) {
      e = d.hipFuncGetAttribute(&function_max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->function);
    }
    return e;
  }();
  if (read != hipSuccess) {
    d.hipModuleUnload(k->module);
    throw_driver_error("hipFuncGetAttribute", read);
  }
  k->resources = impl::KernelResources{registers, local_bytes / 4, function_max_threads};
  k->block_x = threads;
  k->shared = static_cast<unsigned>(meta.shared);
  k->global_scratch_size = static_cast<uint64_t>(meta.global_scratch_size);
  k->global_scratch_align = static_cast<uint64_t>(meta.global_scratch_align);
  k->profile_scratch_size = static_cast<uint64_t>(meta.profile_scratch_size);
  k->profile_scratch_align = static_cast<uint64_t>(meta.profile_scratch_align);
  return k.release();
}

impl::KernelResources HipBackend::resources(const Kernel& kernel) noexcept { return kernel.resources; }

void HipBackend::launch(const Kernel& k, const LaunchConfig& c, void** params, uint32_t num_params,
                        uint64_t* scratch_cells) {
  const uint64_t programs = uint64_t{c.grid[0]} * c.grid[1] * c.grid[2];
  if (programs == 0) return;  // an empty grid launches nothing, like Triton
  if (c.grid[0] > 0x7FFFFFFFu || c.grid[1] > 65535 || c.grid[2] > 65535) [[unlikely]]
    throw_grid(k, c);
  const Driver& d = driver();
  // Triton's AMD launcher passes a null global scratch pointer, then the profile scratch.
  scratch_cells[0] = 0;
  scratch_cells[1] = 0;
  params[num_params] = &scratch_cells[0];
  params[num_params + 1] = &scratch_cells[1];
  ScratchLease global_lease;
  ScratchLease profile_lease;
  if (k.global_scratch_size != 0) [[unlikely]] {
    lease_scratch(k.name, k.global_scratch_size * programs, k.global_scratch_align, c.stream, "global", global_lease,
                  scratch_cells[0]);
  }
  if (k.profile_scratch_size != 0) [[unlikely]] {
    lease_scratch(k.name, k.profile_scratch_size * programs, k.profile_scratch_align, c.stream, "profile",
                  profile_lease, scratch_cells[1]);
  }
  const unsigned shared = c.shared_memory >= 0 ? static_cast<unsigned>(c.shared_memory) : k.shared;
  const hipError_t r = d.hipModuleLaunchKernel(k.function, c.grid[0], c.grid[1], c.grid[2], k.block_x, 1, 1, shared,
                                               reinterpret_cast<hipStream_t>(c.stream), params, nullptr);
  if (r != hipSuccess) [[unlikely]]
    throw_driver_error("hipModuleLaunchKernel", r);
}

std::string HipBackend::device_name(int device) {
  const Driver& d = require_driver();
  char name[256] = {};
  TRITON_JIT_HIP_CHECK(d.hipDeviceGetName(name, sizeof(name) - 1, device));
  return name;
}

void* HipBackend::allocate(int device, std::size_t bytes) {
  const Driver& d = require_driver();
  DeviceScope scope(d, device);
  void* ptr = nullptr;
  TRITON_JIT_HIP_CHECK(d.hipMalloc(&ptr, bytes == 0 ? 1 : bytes));
  return ptr;
}

void HipBackend::release(int device, void* ptr) noexcept {
  const Driver& d = driver();
  if (!d.loaded || ptr == nullptr) return;
  try {
    DeviceScope scope(d, device);
    d.hipFree(ptr);
  } catch (...) {  // a device that cannot be made current: the memory goes with the process
  }
}

void HipBackend::fill_zero(void* ptr, std::size_t bytes, Stream stream) {
  const Driver& d = require_driver();
  TRITON_JIT_HIP_CHECK(d.hipMemsetD8Async(ptr, 0, bytes, reinterpret_cast<hipStream_t>(stream)));
}

void HipBackend::copy(void* destination, const void* source, std::size_t bytes, Stream stream) {
  const Driver& d = require_driver();
  TRITON_JIT_HIP_CHECK(
      d.hipMemcpyDtoDAsync(destination, const_cast<void*>(source), bytes, reinterpret_cast<hipStream_t>(stream)));
}

bool HipBackend::capturing(int device, Stream stream) {
  const Driver& d = require_driver();
  DeviceScope scope(d, device);
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  TRITON_JIT_HIP_CHECK(d.hipStreamIsCapturing(reinterpret_cast<hipStream_t>(stream), &status));
  return status != hipStreamCaptureStatusNone;
}

void HipBackend::synchronize(int device, Stream stream) {
  const Driver& d = require_driver();
  DeviceScope scope(d, device);
  TRITON_JIT_HIP_CHECK(d.hipStreamSynchronize(reinterpret_cast<hipStream_t>(stream)));
}

void HipBackend::upload(int device, void* destination, const void* host, std::size_t bytes) {
  const Driver& d = require_driver();
  DeviceScope scope(d, device);
  TRITON_JIT_HIP_CHECK(d.hipMemcpyHtoD(destination, host, bytes));
}

void HipBackend::download(int device, void* host, const void* source, std::size_t bytes) {
  const Driver& d = require_driver();
  DeviceScope scope(d, device);
  TRITON_JIT_HIP_CHECK(d.hipMemcpyDtoH(host, const_cast<void*>(source), bytes));
}

namespace {

// One benchmark's stream, events (destroyed with it) and L2 flush, for do_bench.
class BenchStream {
 public:
  using Event = hipEvent_t;
  BenchStream(const Driver& d, hipStream_t s, void* flush) : d_(d), s_(s), flush_(flush) {}
  ~BenchStream() {
    for (hipEvent_t e : events_) d_.hipEventDestroy(e);
  }
  BenchStream(const BenchStream&) = delete;
  BenchStream& operator=(const BenchStream&) = delete;
  hipEvent_t event() {
    hipEvent_t e = nullptr;
    TRITON_JIT_HIP_CHECK(d_.hipEventCreate(&e));
    events_.push_back(e);
    return e;
  }
  void record(hipEvent_t e) { TRITON_JIT_HIP_CHECK(d_.hipEventRecord(e, s_)); }
  void wait(hipEvent_t e) { TRITON_JIT_HIP_CHECK(d_.hipEventSynchronize(e)); }
  double milliseconds(hipEvent_t a, hipEvent_t b) {
    float ms = 0;
    TRITON_JIT_HIP_CHECK(d_.hipEventElapsedTime(&ms, a, b));
    return static_cast<double>(ms);
  }
  void finish() { TRITON_JIT_HIP_CHECK(d_.hipStreamSynchronize(s_)); }
  void flush_l2() { TRITON_JIT_HIP_CHECK(d_.hipMemsetD32Async(flush_, 0, kFlushBytes / 4, s_)); }

  static constexpr std::size_t kFlushBytes = std::size_t{256} << 20;  // as Triton's do_bench

 private:
  const Driver& d_;
  hipStream_t s_;
  void* flush_;
  std::vector<hipEvent_t> events_;
};

}  // namespace

std::array<double, 3> HipBackend::benchmark(int device, Stream stream, void (*run)(void*), void* context,
                                            double warmup_ms, double rep_ms) {
  const Driver& d = require_driver();
  DeviceScope scope(d, device);
  static std::atomic<void*> flush_buffers[64];  // per device, kept: see the CUDA backend
  if (device < 0 || device >= 64) throw ValueError(fmt::format("benchmark: device {} is out of range", device));
  void* flush = flush_buffers[device].load(std::memory_order_acquire);
  if (flush == nullptr) {
    TRITON_JIT_HIP_CHECK(d.hipMalloc(&flush, BenchStream::kFlushBytes));
    void* expected = nullptr;
    if (!flush_buffers[device].compare_exchange_strong(expected, flush)) {
      d.hipFree(flush);
      flush = expected;
    }
  }
  BenchStream bench(d, reinterpret_cast<hipStream_t>(stream), flush);
  return do_bench(bench, run, context, warmup_ms, rep_ms);
}

// Triton's AMD backend lowers tensor descriptors without a host-side tensor map (its launcher
// passes the base pointer, shape and strides); a variant whose metadata asks for one is refused.
void HipBackend::encode_tensor_map(void*, const impl::TensorMapRequest&) {
  throw Error("triton_jit: a host-side TMA tensor map (CUtensorMap) is a CUDA feature; the HIP backend has none");
}

}  // namespace triton_jit::detail::hip
