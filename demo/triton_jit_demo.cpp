// triton_jit_demo: runs some of the operator library's ops and checks them against PyTorch.
//
// With a GPU: each operator on fresh random inputs, compared with ATen, in a table of
// (op, shape, dtype, max error, time per call). Without one: compiles the operators' variants
// for the default target (cuda:90) and says that launching was skipped.
// Exit code 0 when every check passes, 1 on any mismatch or error.
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/rms_norm.h>
#include <ATen/ops/silu.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/sum.h>
#include <c10/cuda/CUDAFunctions.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>

#include <triton_jit/torch.h>

#include "common/ops.h"

namespace {

struct Case {
  std::string op;
  std::string shape;
  at::ScalarType dtype;
  std::function<at::Tensor()> ours;
  std::function<at::Tensor()> reference;
};

double tolerance(at::ScalarType dtype) { return dtype == at::kFloat ? 1e-5 : dtype == at::kHalf ? 2e-3 : 1.6e-2; }

double time_per_call_us(const std::function<at::Tensor()>& fn) {
  for (int i = 0; i < 10; ++i) fn();
  c10::cuda::device_synchronize();
  constexpr int kCalls = 200;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) fn();
  c10::cuda::device_synchronize();
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::micro>(elapsed).count() / kCalls;
}

int run_on_gpu() {
  auto options = [](at::ScalarType t) { return at::TensorOptions().device(at::kCUDA).dtype(t); };
  std::vector<Case> cases;
  for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    const char* name = c10::toString(dtype);
    at::Tensor a = at::randn({512, 1024}, options(dtype));
    at::Tensor row = at::randn({1024}, options(dtype));
    at::Tensor col = at::randn({512, 1}, options(at::kFloat));
    at::Tensor strided = at::randn({1024, 512}, options(dtype)).t();
    cases.push_back({"add", "512x1024 + 1024", dtype, [=] { return triton_jit::ops::add(a, row); },
                     [=] { return at::add(a, row); }});
    cases.push_back({"add", fmt::format("512x1024 + 512x1 (fp32)"), dtype, [=] { return triton_jit::ops::add(a, col); },
                     [=] { return at::add(a, col); }});
    cases.push_back({"add", "strided 512x1024 + 512x1024", dtype, [=] { return triton_jit::ops::add(strided, a); },
                     [=] { return at::add(strided, a); }});
    cases.push_back({"add", "512x1024 + 2.5", dtype, [=] { return triton_jit::ops::add(a, c10::Scalar(2.5)); },
                     [=] { return at::add(a, 2.5); }});
    cases.push_back({"sum", "512x1024, dim=1", dtype, [=] { return triton_jit::ops::sum(a, {1}, false); },
                     [=] { return at::sum(a, {1}, false); }});
    cases.push_back({"sum", "512x1024, dim=0, keepdim", dtype, [=] { return triton_jit::ops::sum(a, {0}, true); },
                     [=] { return at::sum(a, {0}, true); }});
    at::Tensor w = at::randn({1024}, options(dtype));
    at::Tensor b = at::randn({1024, 768}, options(dtype)) / 32;
    cases.push_back({"softmax", "512x1024, dim=-1", dtype, [=] { return triton_jit::ops::softmax(a, -1); },
                     [=] { return at::softmax(a, -1); }});
    cases.push_back({"rms_norm", "512x1024, weight", dtype,
                     [=] { return triton_jit::ops::rms_norm(a, {1024}, w, 1e-6); },
                     [=] { return at::rms_norm(a, {1024}, w, 1e-6); }});
    cases.push_back({"silu_and_mul", "512x1024 -> 512x512", dtype, [=] { return triton_jit::ops::silu_and_mul(a); },
                     [=] { return at::silu(a.narrow(1, 0, 512)) * a.narrow(1, 512, 512); }});
    cases.push_back(
        {"mm", "512x1024 @ 1024x768", dtype, [=] { return triton_jit::ops::mm(a, b); }, [=] { return at::mm(a, b); }});
    (void)name;
  }
  int failures = 0;
  std::printf("%-12s %-30s %-9s %-12s %-10s %s\n", "op", "shape", "dtype", "max error", "us/call", "result");
  for (const auto& c : cases) {
    at::Tensor ours = c.ours();
    at::Tensor ref = c.reference();
    bool same_meta = ours.sizes() == ref.sizes() && ours.scalar_type() == ref.scalar_type();
    double err = same_meta ? (ours.to(at::kDouble) - ref.to(at::kDouble)).abs().max().item<double>() : INFINITY;
    double scale = std::max(1.0, ref.to(at::kDouble).abs().max().item<double>());
    bool ok = same_meta && std::isfinite(err) && err <= tolerance(ours.scalar_type()) * scale;
    failures += ok ? 0 : 1;
    std::printf("%-12s %-30s %-9s %-12.3g %-10.2f %s\n", c.op.c_str(), c.shape.c_str(), c10::toString(c.dtype), err,
                time_per_call_us(c.ours), ok ? "ok" : "MISMATCH");
  }
  std::printf("%zu checks, %d mismatches\n", cases.size(), failures);
  return failures == 0 ? 0 : 1;
}

int compile_only() {
  std::printf("No GPU present: compiling the operators for %s; launching skipped.\n",
              fmt::format("cuda:{}", triton_jit::default_target().arch).c_str());
  std::printf("%-20s %-9s %-8s %-7s %-6s %s\n", "kernel", "dtype", "target", "shared", "params", "signature");
  for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    for (const auto& v : triton_jit::ops::warmup(dtype)) {
      std::printf("%-20s %-9s %-8s %-7d %-6d %s\n", v.kernel_name.c_str(), c10::toString(dtype), v.target.c_str(),
                  v.shared_memory, v.num_kernel_params, v.signature.c_str());
    }
  }
  std::printf("Launching skipped: no GPU is present.\n");
  return 0;
}

}  // namespace

bool libpython_loaded() {
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  char line[4096];
  bool found = false;
  while (!found && std::fgets(line, sizeof(line), maps) != nullptr) found = std::strstr(line, "libpython") != nullptr;
  std::fclose(maps);
  return found;
}

int main() {
  try {
    int status = triton_jit::cuda_available() ? run_on_gpu() : compile_only();
    std::printf("libpython loaded: %s\n", libpython_loaded() ? "yes" : "no");
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "triton_jit_demo: %s\n", e.what());
    return 1;
  }
}
