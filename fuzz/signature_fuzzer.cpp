// Any text as a kernel description (a signature entry's payload): a triton_jit::Error or a
// signature whose invariants hold, nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "encoding/kernel_signature.h"
#include "triton_jit/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto sig = triton_jit::detail::parse_kernel_signature(std::string_view(reinterpret_cast<const char*>(data), size));
    if (sig.rules.size() != sig.params.size() || sig.num_required > sig.params.size()) __builtin_trap();
    for (const auto& p : sig.params) {
      if (p.has_default && p.default_error.empty() && p.default_value.kind == triton_jit::ArgKind::kString &&
          p.default_value.value.s == nullptr) {
        __builtin_trap();
      }
    }
  } catch (const triton_jit::Error&) {
  }
  return 0;
}
