// A process that resolves one variant and reports how: for the persistent-cache tests, which
// need fresh processes. Usage: cache_probe <kernel.py|pkg.mod:fn> <function> [num_warps]
// Prints one JSON line: compiles in this process, whether libpython or the bridge got loaded.
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
  if (argc < 3) {
    std::fprintf(stderr, "usage: cache_probe <kernel> <function> [num_warps]\n");
    return 2;
  }
  try {
    auto& f = triton_jit::TritonJITFunction::get_instance(argv[1], argv[2]);
    alignas(16) static float host[1024];
    auto p = triton_jit::device_pointer(host, triton_jit::DType::kFloat32);
    triton_jit::LaunchConfig config;
    config.num_warps = argc > 3 ? std::atoi(argv[3]) : 4;
    triton_jit::VariantInfo v = f.name() == "scale" ? f.warmup(config, p, p, 2.0f, 256)
                                                    : f.warmup(config, p, p, 1000, 128);
    std::printf("{\"compiles\": %llu, \"libpython\": %s, \"bridge\": %s, \"cubin\": %zu, \"signature\": \"%s\"}\n",
                static_cast<unsigned long long>(f.stats().compiles), mapped("libpython") ? "true" : "false",
                mapped("libtriton_jit_python") ? "true" : "false", v.cubin.size(), v.signature.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cache_probe: %s\n", e.what());
    return 1;
  }
}
