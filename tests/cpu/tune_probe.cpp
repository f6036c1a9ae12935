// A process that calls an autotuned kernel once and reports how its config was chosen: for the
// tests of tuning kept in the cache and in bundles, which need fresh processes. Runs on the
// stand-in driver (TRITON_JIT_CUDA_DRIVER) with host memory, or with "device" on a GPU.
// Usage: tune_probe <decorated_kernels.py> <n> [device]
// Prints one JSON line; on an error, the message on stderr and exit status 1.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <triton_jit/triton_jit.h>

namespace {

bool mapped(const char* needle) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const bool on_device = argc == 4 && std::string(argv[3]) == "device";
  if (argc != 3 && !on_device) {
    std::fprintf(stderr, "usage: tune_probe <decorated_kernels.py> <n> [device]\n");
    return 2;
  }
  try {
    auto& f = triton_jit::TritonJITFunction::get_instance(argv[1], "scale_tuned");
    alignas(64) static float x[8192];
    triton_jit::DeviceBuffer memory;
    if (on_device) memory = triton_jit::DeviceBuffer(sizeof(x));
    auto p =
        on_device ? memory.as(triton_jit::DType::kFloat32) : triton_jit::device_pointer(x, triton_jit::DType::kFloat32);
    const int n = std::atoi(argv[2]);
    triton_jit::LaunchConfig config;
    config.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
      return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
    };
    f(config, p, p, n, 2.0f);
    if (on_device) memory.download(x, 4);  // waits for the call
    auto choice = f.autotune_choice(config, p, p, n, 2.0f);
    std::printf("{\"tunings\": %llu, \"compiles\": %llu, \"config\": %d, \"source\": \"%s\", \"libpython\": %s}\n",
                static_cast<unsigned long long>(f.stats().tunings), static_cast<unsigned long long>(f.stats().compiles),
                choice ? choice->config : -1, choice ? choice->source.c_str() : "",
                mapped("libpython") ? "true" : "false");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tune_probe: %s\n", e.what());
    return 1;
  }
}
