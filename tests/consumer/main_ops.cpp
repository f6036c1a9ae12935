// The operators through TritonJIT::ops: a Meta call through the dispatcher (no GPU needed) and
// the list of ATen ops they can stand in for.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/empty.h>
#include <triton_jit/ops.h>

#include <cstdio>

int main() {
  const auto stand_ins = triton_jit::ops::standing_in();  // also keeps the library linked
  auto mm = c10::Dispatcher::singleton()
                .findSchemaOrThrow("triton_jit::mm", "")
                .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
  at::Tensor a = at::empty({8, 16}, at::TensorOptions().dtype(at::kHalf).device(at::kMeta));
  at::Tensor b = at::empty({16, 4}, at::TensorOptions().dtype(at::kHalf).device(at::kMeta));
  at::Tensor out = mm.call(a, b);
  std::printf("triton_jit::mm on meta: [%lld, %lld] %s; %zu ATen ops can be routed here\n",
              static_cast<long long>(out.size(0)), static_cast<long long>(out.size(1)),
              c10::toString(out.scalar_type()), stand_ins.size());
  return out.size(0) == 8 && out.size(1) == 4 && out.scalar_type() == at::kHalf ? 0 : 1;
}
