// Any text as a triton_jit_aot manifest: a ManifestError naming where, or a manifest whose
// arguments all become slots; nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto m = triton_jit::aot::parse_manifest(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    for (const auto& k : m.kernels) {
      for (const auto& s : k.signatures) {
        auto slots = triton_jit::aot::to_slots(s);
        if (slots.size() != s.size()) __builtin_trap();
      }
    }
  } catch (const triton_jit::aot::ManifestError&) {
  }
  return 0;
}
