// What the compile script returns, checked before anything is loaded or persisted.
#pragma once

#include <string>
#include <string_view>

#include "triton_jit/impl/kernel_image.h"
#include "triton_jit/launch_config.h"

namespace triton_jit::detail {

// The SM number in a CUDA ELF image's header (80 for sm_80, 100 for sm_100a), -1 when too short.
int cubin_sm(std::string_view image) noexcept;
// The gfx architecture of an AMDGPU code object as a target's arch (0x942), from EF_AMDGPU_MACH;
// 0 for a machine not in the table, -1 for a truncated image.
int hsaco_gfx(std::string_view image) noexcept;

// Parses and checks a compiled variant's metadata and binary for `target`: fields present with
// sane values, an ELF image for NVIDIA GPUs holding code for the target's SM. Throws
// CompileError naming the kernel and the field; a cache entry that fails it is damaged.
impl::KernelMetadata check_compiled(const std::string& kernel, std::string_view metadata_json, std::string_view binary,
                                    const Target& target);

}  // namespace triton_jit::detail
