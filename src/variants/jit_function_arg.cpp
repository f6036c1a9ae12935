#include "triton_jit/jit_function_arg.h"

#include <fmt/format.h>

#include "cache/entry_store.h"
#include "common/hash.h"
#include "common/settings.h"
#include "triton_jit/errors.h"
#include "variants/function_identity.h"

namespace triton_jit {

JitFunctionArg::JitFunctionArg(std::string_view path, std::string_view name) {
  if (path.find('\0') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    throw ValueError(fmt::format("JitFunctionArg: the {} contains a NUL byte",
                                 path.find('\0') != std::string_view::npos ? "path" : "function name"));
  }
  detail::ResolvedFunction r;
  try {
    r = detail::resolve_function(path, name, detail::kernel_search_path());
  } catch (const LookupError& e) {
    throw LookupError(fmt::format("JitFunctionArg: {}", e.what()));
  }
  name_ = std::move(r.location.function);
  file_ = std::move(r.location.file);
  module_ = std::move(r.location.module);
  search_path_ = std::move(r.location.search_path);
  // Like Triton's cache_key, the key follows the function's text, not where the file lies: the
  // same file elsewhere (a bundle's machine) is the same variant, another file's function of the
  // same name is not. A module's file is found only by Python; its identity stands in for it.
  std::string keyed;
  if (!file_.empty()) {
    const std::string text = detail::source_digest(file_);
    if (text.empty()) throw LookupError(fmt::format("JitFunctionArg: '{}' cannot be read", file_));
    keyed = fmt::format("jit_function\n{}\n{}", r.id.portable, text);
    label_ = r.id.portable.substr(0, r.id.portable.rfind("::")) + ":" + name_;
  } else {
    keyed = fmt::format("jit_function\n{}", r.id.identity);
    label_ = module_ + ":" + name_;
  }
  const detail::Digest d = detail::digest(keyed);
  key_ = {d.high, d.low};
}

namespace {
std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}
}  // namespace

std::string JitFunctionArg::signature_token() const {
  // a module spec travels whole ("package.module:function") so that the token alone finds it
  const std::string where = file_.empty() ? module_ + ":" + name_ : file_;
  return fmt::format("@jit:{}:{}:{:016x}{:016x}", hex(where), hex(name_), key_[0], key_[1]);
}

}  // namespace triton_jit
