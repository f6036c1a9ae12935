// A process that resolves one variant and reports how: for the persistent-cache tests, which
// need fresh processes.
//   cache_probe <kernel.py|pkg.mod:fn> <function> [num_warps] [argument ...]
// An argument is "ptr" (an aligned fp32 pointer), "i:<integer>", "f:<float>", "s:<text>",
// "none" or "tuple:<n>" (a tuple of the next n arguments); without any, "scale" gets
// (ptr, ptr, f:2.0, i:256) and others (ptr, ptr, i:1000, i:128).
// Prints one JSON line: compiles in this process, whether libpython or the bridge got loaded,
// the cubin's size and the variant; on an error, the message on stderr and exit status 1.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

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
    std::fprintf(stderr, "usage: cache_probe <kernel> <function> [num_warps] [argument ...]\n");
    return 2;
  }
  try {
    auto& f = triton_jit::TritonJITFunction::get_instance(argv[1], argv[2]);
    alignas(16) static float host[1024];
    triton_jit::LaunchConfig config;
    config.num_warps = argc > 3 ? std::atoi(argv[3]) : 4;
    std::vector<std::string> texts;
    for (int i = 4; i < argc; ++i) texts.emplace_back(argv[i]);
    if (texts.empty()) {
      texts = f.name() == "scale" ? std::vector<std::string>{"ptr", "ptr", "f:2.0", "i:256"}
                                  : std::vector<std::string>{"ptr", "ptr", "i:1000", "i:128"};
    }
    triton_jit::ArgumentBuilder args;
    for (const auto& t : texts) {
      if (t == "ptr") {
        args.add(triton_jit::device_pointer(host, triton_jit::DType::kFloat32));
      } else if (t == "none") {
        args.add(std::nullopt);
      } else if (t.starts_with("i:")) {
        args.add(std::stoll(t.substr(2)));
      } else if (t.starts_with("f:")) {
        args.add(std::stod(t.substr(2)));
      } else if (t.starts_with("tuple:")) {
        args.begin_tuple(static_cast<uint32_t>(std::stoul(t.substr(6))));
      } else if (t.starts_with("s:")) {
        args.add(std::string_view(t).substr(2));
      } else {
        std::fprintf(stderr, "cache_probe: unknown argument '%s'\n", t.c_str());
        return 2;
      }
    }
    triton_jit::VariantInfo v = f.warmup(config, args);
    std::printf("{\"compiles\": %llu, \"libpython\": %s, \"bridge\": %s, \"cubin\": %zu, \"signature\": \"%s\"}\n",
                static_cast<unsigned long long>(f.stats().compiles), mapped("libpython") ? "true" : "false",
                mapped("libtriton_jit_python") ? "true" : "false", v.cubin.size(), v.signature.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cache_probe: %s\n", e.what());
    return 1;
  }
}
