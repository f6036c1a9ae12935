// Any bytes as a cache or bundle entry: parsing reports damage, it never throws or crashes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cache/entry_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  if (auto v = triton_jit::detail::parse_variant(bytes, error)) {
    // What parses must serialise to something that parses to the same.
    auto again = triton_jit::detail::parse_variant(triton_jit::detail::serialize_variant(*v), error);
    if (!again || again->binary != v->binary || again->key != v->key) __builtin_trap();
  }
  triton_jit::detail::parse_signature(bytes, error);
  (void)triton_jit::detail::entry_kind(bytes);
  return 0;
}
