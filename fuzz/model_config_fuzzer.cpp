// Any bytes as a model's config.json for triton_jit_llama (--config): the reader returns shapes
// the decoder can run, with finite rotation frequencies, or throws std::invalid_argument naming the
// field; nothing else.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto m =
        triton_jit::demo::model_from_config(std::string_view(reinterpret_cast<const char*>(data), size), "fuzzed");
    if (m.hidden < 1 || m.heads < 1 || m.kv_heads < 1 || m.heads % m.kv_heads != 0 || m.mlp < 1 || m.vocab < 1 ||
        (m.head_dim != 64 && m.head_dim != 128 && m.head_dim != 256) || !(m.rope_theta > 0) || !(m.rms_norm_eps > 0))
      __builtin_trap();
    for (double f : triton_jit::demo::rope_inverse_frequencies(m)) {
      if (!std::isfinite(f) || f < 0) __builtin_trap();  // a rotation table of NaNs would pass unnoticed
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
