// Runs the ops against ATen on a GPU; without one, compiles their kernels for device 0's default
// target (libtriton_jit's compile()) and says launching was skipped. Run it where the kernels
// are: they are found by relative path, as libtriton_jit finds them.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>

#include <cstdio>

#include "my_ops/ops.h"
#include "triton_jit/triton_jit_function.h"

int main() {
  try {
    if (c10::cuda::device_count() == 0) {
      my_ops::precompile(0);
      std::printf("compat consumer: kernels compiled; no GPU, launching was skipped\n");
      return 0;
    }
    int failures = 0;
    auto check = [&](const char* what, const at::Tensor& ours, const at::Tensor& reference) {
      const bool same = at::allclose(ours, reference, 1e-5, 1e-5);
      std::printf("%-34s %s\n", what, same ? "matches ATen" : "MISMATCH");
      failures += same ? 0 : 1;
    };
    auto options = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
    const at::Tensor a = at::randn({1000, 257}, options), b = at::randn({257}, options);
    check("add_tensor (broadcast)", my_ops::add_tensor(a, b), a + b);
    const at::Tensor x = at::randn({4096 * 3 + 5}, options), y = at::randn({4096 * 3 + 5}, options);
    check("axpy (raw launch)", my_ops::axpy(x, y, 0.5), 0.5 * x + y);
    const at::Tensor big = at::randn({1 << 20}, options), big_y = at::randn({1 << 20}, options);
    check("axpy (raw launch, n % 16 == 0)", my_ops::axpy(big, big_y, -2.0), -2.0 * big + big_y);
    check("activation leaky_relu (JIT fn)", my_ops::activation(x, "leaky_relu"), at::leaky_relu(x, 0.01));
    check("activation square (JIT fn)", my_ops::activation(x, "square"), x * x);
    auto op = c10::Dispatcher::singleton().findSchemaOrThrow("my_ops::add_tensor", "");
    check("my_ops::add_tensor (dispatcher)", op.typed<at::Tensor(const at::Tensor&, const at::Tensor&)>().call(a, b),
          a + b);
    std::printf("compat consumer: %d mismatches\n", failures);
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compat consumer: %s\n", e.what());
    return 1;
  }
}
