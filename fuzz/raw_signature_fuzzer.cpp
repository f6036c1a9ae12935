// Any text as launch_with_raw_args' signature for a five-parameter kernel (the last a constexpr,
// so strings are values too): a triton_jit::Error or a parse whose invariants hold, never a
// crash, however deep its tuples nest.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/limits.h"
#include "encoding/kernel_signature.h"
#include "encoding/raw_signature.h"
#include "triton_jit/errors.h"

namespace {

const triton_jit::detail::KernelSignature& kernel() {
  static const auto* sig = new triton_jit::detail::KernelSignature(triton_jit::detail::parse_kernel_signature(R"({
    "name": "pointwise", "file": "pointwise.py", "debug": false, "triton_version": "3.6.0", "triton_dir": "",
    "autotune": null, "heuristics": [], "params": [
      {"name": "x_ptr", "kind": "specialized", "do_not_specialize": false, "do_not_specialize_on_alignment": false,
       "annotation": "", "is_const": false},
      {"name": "y_ptr", "kind": "specialized", "do_not_specialize": false, "do_not_specialize_on_alignment": false,
       "annotation": "", "is_const": false},
      {"name": "out_ptr", "kind": "specialized", "do_not_specialize": false, "do_not_specialize_on_alignment": false,
       "annotation": "", "is_const": false},
      {"name": "n", "kind": "specialized", "do_not_specialize": false, "do_not_specialize_on_alignment": false,
       "annotation": "", "is_const": false},
      {"name": "BLOCK", "kind": "constexpr", "do_not_specialize": false, "do_not_specialize_on_alignment": false,
       "annotation": "constexpr", "is_const": false}]})"));
  return *sig;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto parsed =
        triton_jit::detail::parse_raw_signature(std::string_view(reinterpret_cast<const char*>(data), size), kernel());
    if (parsed.params.size() > triton_jit::detail::kMaxRawSlots) __builtin_trap();
  } catch (const triton_jit::Error&) {
  }
  return 0;
}
