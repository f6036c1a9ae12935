// Compiles a kernel through an installed (or embedded) triton_jit and prints the variant; on a
// machine with a GPU the same call would launch it. An argument names the kernel's file in place
// of the source tree's (a deployment's path, where the file may not be).
#include <triton_jit/triton_jit.h>

#include <cstdio>

int main(int argc, char** argv) {
  try {
    auto& scale = triton_jit::TritonJITFunction::get_instance(argc > 1 ? argv[1] : CONSUMER_KERNEL, "scale");
    alignas(16) static float host[256];
    auto ptr = triton_jit::device_pointer(host, triton_jit::DType::kFloat32);
    triton_jit::LaunchConfig config;
    auto v = scale.warmup(config, ptr, ptr, 2.0f, 256);
    std::printf("variant: %s %s for %s, %zu-byte cubin, %d kernel parameters\n", v.kernel_name.c_str(),
                v.signature.c_str(), v.target.c_str(), v.cubin.size(), v.num_kernel_params);
    std::printf("triton_jit %s, backend %s\n", TRITON_JIT_VERSION, TRITON_JIT_BACKEND);
    return v.cubin.rfind(
               "\x7f"
               "ELF",
               0) == 0
               ? 0
               : 1;
  } catch (const triton_jit::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
