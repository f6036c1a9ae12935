// Any bytes as a compiled variant's metadata (read back from the cache or a bundle): the check
// accepts it or throws CompileError naming what is wrong; it never crashes or throws anything else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/target.h"
#include "compiler/compiled_kernel.h"
#include "triton_jit/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  // An ELF64 header for EM_CUDA; the sm the check reads from it does not matter here.
  std::string binary(64, '\0');
  binary.replace(0, 4,
                 "\x7f"
                 "ELF");
  binary[4] = 2;
  binary[18] = static_cast<char>(190);
  for (const char* target : {"cuda:90", "cuda:80", "hip:gfx942"}) {
    try {
      const auto metadata =
          triton_jit::detail::check_compiled("fuzzed", json, binary, *triton_jit::detail::parse_target(target));
      for (const auto& t : metadata.tensor_maps) {
        if (t.tma && (t.rank < 1 || t.rank > 5)) __builtin_trap();
      }
    } catch (const triton_jit::CompileError&) {
    }
  }
  return 0;
}
