// The same through TritonJIT::torch, with at::Tensor arguments.
#include <ATen/ops/empty.h>
#include <triton_jit/torch.h>

#include <cstdio>

int main() {
  auto& scale = triton_jit::TritonJITFunction::get_instance(CONSUMER_KERNEL, "scale");
  at::Tensor x = at::empty({256}, at::kHalf);
  auto v = scale.warmup(triton_jit::LaunchConfig{}, x, x, c10::Scalar(2.0), x.numel());
  std::printf("variant: %s %s\n", v.kernel_name.c_str(), v.signature.c_str());
  return 0;
}
