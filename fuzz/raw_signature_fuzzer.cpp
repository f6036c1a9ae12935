// Any text as launch_with_raw_args' signature for a five-parameter kernel (the last a constexpr,
// so strings are values too): a triton_jit::Error or a parse whose invariants hold, never a
// crash, however deep its tuples nest.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/limits.h"
#include "common/settings.h"
#include "encoding/kernel_signature.h"
#include "encoding/raw_signature.h"
#include "triton_jit/errors.h"
#include "variants/function_identity.h"

// A function token names a kernel by path; resolving it reads the disk, which is not what this
// target fuzzes. Every path here names a module's function, so JitFunctionArg keys it by name.
namespace triton_jit::detail {

std::vector<std::string> kernel_search_path() { return {}; }

ResolvedFunction resolve_function(std::string_view spec, std::string_view name, const std::vector<std::string>&) {
  ResolvedFunction r;
  r.location.module = std::string(spec);
  r.location.function = std::string(name);
  r.id.identity = "module:" + r.location.module + "::" + r.location.function;
  r.id.portable = r.id.identity;
  return r;
}

std::string source_digest(const std::string&) { return {}; }

}  // namespace triton_jit::detail

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
