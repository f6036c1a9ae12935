#include "compiler/compiled_kernel.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/target.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

int cubin_sm(std::string_view image) noexcept {
  if (image.size() < 64) return -1;
  uint32_t flags = 0;
  std::memcpy(&flags, image.data() + 48, sizeof(flags));  // e_flags, little-endian like the host
  // EI_ABIVERSION 8 (CUDA 12.8 on, sm_100 and newer) moved the SM number up a byte.
  const auto abi_version = static_cast<unsigned char>(image[8]);
  return static_cast<int>(abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
}

int hsaco_gfx(std::string_view image) noexcept {
  if (image.size() < 64) return -1;
  uint32_t flags = 0;
  std::memcpy(&flags, image.data() + 48, sizeof(flags));
  // EF_AMDGPU_MACH (the low byte of e_flags) for the targets Triton's AMD backend builds.
  switch (flags & 0xff) {
    case 0x2f:
      return 0x908;
    case 0x3f:
      return 0x90a;
    case 0x40:
      return 0x940;
    case 0x4b:
      return 0x941;
    case 0x4c:
      return 0x942;
    case 0x4f:
      return 0x950;
    case 0x41:
      return 0x1100;
    case 0x44:
      return 0x1101;
    case 0x4a:
      return 0x1200;
    case 0x4e:
      return 0x1201;
    default:
      return 0;  // a machine this table does not name
  }
}

namespace {

using nlohmann::json;

[[noreturn]] void malformed(const std::string& kernel, const std::string& why) {
  throw CompileError(fmt::format("{}: malformed compile result: {}", kernel, why));
}

int int_field(const std::string& kernel, const json& j, const char* name, int fallback, int low, int high,
              bool required = false) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) {
    if (required) malformed(kernel, fmt::format("no '{}'", name));
    return fallback;
  }
  if (!it->is_number_integer()) malformed(kernel, fmt::format("'{}' is not an integer", name));
  const int64_t v = it->get<int64_t>();
  if (v < low || v > high) malformed(kernel, fmt::format("'{}' is {}, outside [{}, {}]", name, v, low, high));
  return static_cast<int>(v);
}

bool bool_field(const std::string& kernel, const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return false;
  if (!it->is_boolean()) malformed(kernel, fmt::format("'{}' is not a bool", name));
  return it->get<bool>();
}

std::string text_field(const std::string& kernel, const json& j, const char* name, bool required) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_string()) {
    if (required) malformed(kernel, fmt::format("no string '{}'", name));
    return "";
  }
  return it->get<std::string>();
}

// tensordesc_meta: null, or one entry per tensor descriptor parameter, null where the kernel
// reads that descriptor without TMA.
std::vector<impl::TensorMapLayout> tensor_map_layouts(const std::string& kernel, const json& j) {
  std::vector<impl::TensorMapLayout> out;
  auto it = j.find("tensordesc_meta");
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array() || it->size() > 64) malformed(kernel, "'tensordesc_meta' is not a list");
  for (const auto& e : *it) {
    impl::TensorMapLayout t;
    if (!e.is_null()) {
      if (!e.is_object()) malformed(kernel, "a 'tensordesc_meta' entry is not an object");
      t.tma = true;
      t.swizzle = int_field(kernel, e, "swizzle", 0, 0, 3, true);
      t.elem_size = int_field(kernel, e, "elem_size", 0, 1, 8, true);
      t.elem_type = int_field(kernel, e, "elem_type", 0, 0, 15, true);
      t.fp4_padded = bool_field(kernel, e, "fp4_padded");
      auto block = e.find("block_size");
      if (block == e.end() || !block->is_array() || block->empty() || block->size() > t.block.size()) {
        malformed(kernel, "a 'tensordesc_meta' entry has no block_size of rank 1 to 5");
      }
      t.rank = static_cast<int>(block->size());
      for (int k = 0; k < t.rank; ++k) {
        const auto& b = (*block)[static_cast<std::size_t>(k)];
        if (!b.is_number_integer() || b.get<int64_t>() < 1 || b.get<int64_t>() > 256) {
          malformed(kernel, "a 'tensordesc_meta' block_size is not from 1 to 256");
        }
        t.block[static_cast<std::size_t>(k)] = b.get<int>();
      }
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace

impl::KernelMetadata check_compiled(const std::string& kernel, std::string_view metadata_json, std::string_view binary,
                                    const Target& target) {
  json j = json::parse(metadata_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) malformed(kernel, "the metadata is not a JSON object");
  impl::KernelMetadata m;
  m.name = text_field(kernel, j, "name", true);
  if (m.name.empty() || m.name.size() > 1024) malformed(kernel, "an empty or overlong kernel name");
  m.num_warps = int_field(kernel, j, "num_warps", 4, 1, 32, true);
  m.num_ctas = int_field(kernel, j, "num_ctas", 1, 1, 16);
  constexpr int kMax = 1 << 30;
  m.shared = int_field(kernel, j, "shared", 0, 0, kMax);
  m.tmem_size = int_field(kernel, j, "tmem_size", 0, 0, kMax);
  m.global_scratch_size = int_field(kernel, j, "global_scratch_size", 0, 0, kMax);
  m.global_scratch_align = int_field(kernel, j, "global_scratch_align", 1, 1, 1 << 16);
  m.profile_scratch_size = int_field(kernel, j, "profile_scratch_size", 0, 0, kMax);
  m.profile_scratch_align = int_field(kernel, j, "profile_scratch_align", 1, 1, 1 << 16);
  m.scratch_params = int_field(kernel, j, "scratch_params", 2, 0, 2);
  m.launch_pdl = bool_field(kernel, j, "launch_pdl");
  m.launch_cooperative_grid = bool_field(kernel, j, "launch_cooperative_grid");
  m.arch = text_field(kernel, j, "arch", true);
  m.ptx_version = int_field(kernel, j, "ptx_version", 0, 0, 100000);
  m.triton_version = text_field(kernel, j, "triton_version", false);
  m.tensor_maps = tensor_map_layouts(kernel, j);
  m.descriptor_flags = int_field(kernel, j, "descriptor_flags", 1, 0, 2);
  // Triton 3.8's global sanitizer adds a parameter whose value (GSan's state) and the stream
  // synchronisation after each launch come from its Python runtime, which a C++ launch lacks.
  if (text_field(kernel, j, "instrumentation_mode", false).find("gsan") != std::string::npos) {
    throw CompileError(
        fmt::format("{}: compiled with instrumentation_mode='gsan' (Triton's global sanitizer), whose "
                    "launches need Triton's Python GSan runtime; triton_jit cannot launch it: compile "
                    "without it (run the kernel under Triton's Python runtime to sanitize it)",
                    kernel));
  }
  if (m.arch != arch_name(target)) {
    malformed(kernel, fmt::format("compiled for arch '{}', asked for {}", m.arch, arch_name(target)));
  }
  if (target.vendor == Vendor::kHip) {
    // An ELF64 code object (EI_CLASS 2) for EM_AMDGPU (224), for the gfx asked for.
    if (binary.size() < 64 ||
        std::memcmp(binary.data(),
                    "\x7f"
                    "ELF",
                    4) != 0 ||
        binary[4] != 2 || static_cast<unsigned char>(binary[18]) != 224 || binary[19] != 0) {
      malformed(kernel, "the binary is not an AMDGPU code object");
    }
    if (const int gfx = hsaco_gfx(binary); gfx != 0 && gfx != target.arch) {
      malformed(kernel, fmt::format("the code object holds code for gfx{:x}, asked for {}", gfx, arch_name(target)));
    }
    return m;
  }
  // Triton builds arch-specific code (sm_90a, sm_100a) from sm_90 on: it runs on that exact
  // capability only, which the backend's load check needs to know.
  if (target.arch_specific || target.arch >= 90) m.arch += 'a';
  // An ELF64 image (EI_CLASS 2) for EM_CUDA (190).
  if (binary.size() < 64 ||
      std::memcmp(binary.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      binary[4] != 2 || static_cast<unsigned char>(binary[18]) != 190 || binary[19] != 0) {
    malformed(kernel, "the binary is not a CUDA ELF image");
  }
  // The architecture the image holds code for, from its header, must be the one asked for: the
  // metadata is the compiler's word, the header is what the driver will load.
  if (const int sm = cubin_sm(binary); sm != target.arch) {
    malformed(kernel, fmt::format("the cubin holds code for sm_{}, asked for sm_{}", sm, target.arch));
  }
  return m;
}

}  // namespace triton_jit::detail
