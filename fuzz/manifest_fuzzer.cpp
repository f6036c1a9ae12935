// Any text as a triton_jit_aot manifest: a ManifestError naming where, or a manifest whose
// arguments all become slots (a tuple its header and its elements') and whose grid expressions
// evaluate or raise ValueError; nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "manifest.h"

namespace {

std::size_t slot_count(const std::vector<triton_jit::aot::Argument>& arguments) {
  std::size_t n = 0;
  for (const auto& a : arguments) n += 1 + slot_count(a.elements);
  return n;
}

int64_t lookup(std::string_view name, const void*) {
  if (name == "missing") throw triton_jit::ValueError("no argument named missing");
  return static_cast<int64_t>(name.size()) * 37 - 100;  // negatives and zero too
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto m = triton_jit::aot::parse_manifest(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    alignas(16) static unsigned char memory[16];
    for (const auto& k : m.kernels) {
      for (const auto& s : k.signatures) {
        auto slots = triton_jit::aot::to_slots(s);
        if (slots.size() != slot_count(s)) __builtin_trap();
      }
      for (const auto& t : k.tunings) {
        std::vector<triton_jit::DevicePointer> tensors;
        for (const auto* a : triton_jit::aot::leaves(t.args)) {
          if (a->kind == triton_jit::aot::Argument::Kind::kTensor) {
            tensors.push_back(triton_jit::device_pointer(memory, a->dtype, 0, a->numel));
          }
        }
        if (triton_jit::aot::to_slots(t.args, tensors).size() != slot_count(t.args)) __builtin_trap();
        if (t.grid.empty() || t.grid.size() > 3) __builtin_trap();
        for (const auto& g : t.grid) {
          try {
            g.evaluate(&lookup, nullptr);
          } catch (const triton_jit::ValueError&) {
          }
        }
      }
    }
  } catch (const triton_jit::aot::ManifestError&) {
  }
  return 0;
}
