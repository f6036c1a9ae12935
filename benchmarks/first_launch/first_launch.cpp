// Measures, in a fresh process, the time from main() to the first kernel launched and finished,
// and checks the result. The CUDA context is made first and timed apart: every CUDA program pays
// it, whatever launches its kernels. Prints one JSON line.
// Usage: first_launch <kernel.py>   (the kernel: scale(x_ptr, out_ptr, factor, n, BLOCK))
#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <triton_jit/triton_jit.h>

namespace {

struct Driver {
  decltype(&::cuInit) init;
  decltype(&::cuDeviceGet) device_get;
  decltype(&::cuDevicePrimaryCtxRetain) retain;
  decltype(&::cuCtxSetCurrent) set_current;
  decltype(&::cuMemAlloc_v2) alloc;
  decltype(&::cuMemcpyHtoD_v2) to_device;
  decltype(&::cuMemcpyDtoH_v2) to_host;
  decltype(&::cuCtxSynchronize) synchronize;
};

template <class T>
T symbol(void* lib, const char* name) {
  return reinterpret_cast<T>(dlsym(lib, name));
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

bool mapped(const char* needle) {
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  char line[4096];
  bool found = false;
  while (maps != nullptr && !found && std::fgets(line, sizeof(line), maps) != nullptr)
    found = std::strstr(line, needle);
  if (maps != nullptr) std::fclose(maps);
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  auto start = std::chrono::steady_clock::now();
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr || argc < 2) {
    std::printf("{\"error\": \"needs a GPU and a kernel path\"}\n");
    return 1;
  }
  Driver d{symbol<decltype(Driver::init)>(lib, "cuInit"),
           symbol<decltype(Driver::device_get)>(lib, "cuDeviceGet"),
           symbol<decltype(Driver::retain)>(lib, "cuDevicePrimaryCtxRetain"),
           symbol<decltype(Driver::set_current)>(lib, "cuCtxSetCurrent"),
           symbol<decltype(Driver::alloc)>(lib, "cuMemAlloc_v2"),
           symbol<decltype(Driver::to_device)>(lib, "cuMemcpyHtoD_v2"),
           symbol<decltype(Driver::to_host)>(lib, "cuMemcpyDtoH_v2"),
           symbol<decltype(Driver::synchronize)>(lib, "cuCtxSynchronize")};
  CUdevice device;
  CUcontext context;
  d.init(0);
  d.device_get(&device, 0);
  d.retain(&context, device);
  d.set_current(context);
  constexpr int kN = 256;
  CUdeviceptr x, out;
  d.alloc(&x, kN * sizeof(float));
  d.alloc(&out, kN * sizeof(float));
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i);
  d.to_device(x, host.data(), kN * sizeof(float));
  d.synchronize();
  const double context_ms = ms_since(start);

  auto first = std::chrono::steady_clock::now();
  auto& scale = triton_jit::TritonJITFunction::get_instance(argv[1], "scale");
  triton_jit::LaunchConfig config;
  config.grid = {1, 1, 1};
  scale(config, triton_jit::device_pointer(reinterpret_cast<void*>(x), triton_jit::DType::kFloat32, 0),
        triton_jit::device_pointer(reinterpret_cast<void*>(out), triton_jit::DType::kFloat32, 0), 2.0f, kN);
  d.synchronize();
  const double first_launch_ms = ms_since(first);

  std::vector<float> result(kN);
  d.to_host(result.data(), out, kN * sizeof(float));
  bool correct = true;
  for (int i = 0; i < kN; ++i) correct = correct && result[i] == 2.0f * static_cast<float>(i);
  std::printf(
      "{\"context_ms\": %.1f, \"first_launch_ms\": %.1f, \"correct\": %s, \"libpython\": %s, \"compiles\": %llu}\n",
      context_ms, first_launch_ms, correct ? "true" : "false", mapped("libpython") ? "true" : "false",
      static_cast<unsigned long long>(scale.stats().compiles));
  return correct ? 0 : 1;
}
