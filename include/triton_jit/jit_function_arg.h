// triton_jit/jit_function_arg.h: a @triton.jit function passed to a kernel as an argument.
//
//   static const triton_jit::JitFunctionArg gelu("activations.py", "gelu");
//   apply(stream, grid, 1, 1, 4, 3, x, out, n, gelu, 1024);   // def apply(..., ACT: tl.constexpr, ...)
//
// Triton makes such an argument a constexpr of the kernel, whatever the parameter's annotation,
// and keys the variant by the function's source: each function passed is a variant of its own.
// Here the key is a digest of the function's name and its file's text (a module spec's name and
// the module), computed once when the object is made; editing a file the function depends on
// makes the stored variants stale, as for the kernel's own sources. Make the object once (it
// reads the file) and keep it; a call reads only its digest.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "triton_jit/arguments.h"
#include "triton_jit/export.h"

namespace triton_jit {

class TRITON_JIT_API JitFunctionArg {
 public:
  // path: a .py file (absolute, or relative to the kernel search path, as get_instance takes
  // it) or "package.module:function" (then name may be empty). Throws LookupError when the file
  // does not exist; a function the file does not define is an error of the first compile.
  JitFunctionArg(std::string_view path, std::string_view name);

  const std::string& name() const noexcept { return name_; }
  const std::string& file() const noexcept { return file_; }      // real path, or "" for a module spec
  const std::string& module() const noexcept { return module_; }  // "package.module", or ""
  const std::vector<std::string>& search_path() const noexcept { return search_path_; }
  // "activations.py:gelu": how messages and variant signatures name it.
  const std::string& label() const noexcept { return label_; }
  // The 128 bits that key variants.
  const std::array<uint64_t, 2>& key() const noexcept { return key_; }

  // libtriton_jit's accessors: the file (or module spec) and the function's name, and the token
  // that stands for this function in a raw-launch signature (launch_with_raw_args):
  // "@jit:<path, hex>:<name, hex>:<key, hex>".
  const std::string& module_path() const noexcept { return file_.empty() ? module_ : file_; }
  const std::string& function_name() const noexcept { return name_; }
  std::string signature_token() const;

 private:
  std::string name_;
  std::string file_;
  std::string module_;
  std::vector<std::string> search_path_;
  std::string label_;
  std::array<uint64_t, 2> key_{};
};

template <>
struct ArgTraits<JitFunctionArg> {
  static ArgSlot to_slot(const JitFunctionArg& f) noexcept {
    ArgSlot s;
    s.kind = ArgKind::kJitFunction;
    s.value.p = &f;
    return s;
  }
};

}  // namespace triton_jit
