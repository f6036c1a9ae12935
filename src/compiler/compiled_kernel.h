// What the compile script returns, checked before anything is loaded or persisted.
#pragma once

#include <string>
#include <string_view>

#include "triton_jit/impl/kernel_image.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// Parses and checks a compiled variant's metadata and binary for `target`: fields present with
// sane values, an ELF image for NVIDIA GPUs. Throws CompileError naming the kernel and the
// field; a cache entry that fails it is damaged.
impl::KernelMetadata check_compiled(const std::string& kernel, std::string_view metadata_json, std::string_view binary,
                                    const Target& target);

}  // namespace triton_jit::detail
