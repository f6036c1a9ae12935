// Reads what the tests check in a cubin: ELF header, machine, symbols and the kernel's
// parameter count from its .nv.info section (EIATTR_KPARAM_INFO entries).
#pragma once

#include <elf.h>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cubin {

inline constexpr uint16_t kMachineCuda = 190;  // EM_CUDA

inline bool is_elf64(std::string_view image) {
  return image.size() > sizeof(Elf64_Ehdr) && std::memcmp(image.data(), ELFMAG, SELFMAG) == 0 &&
         image[EI_CLASS] == ELFCLASS64;
}

inline const Elf64_Ehdr& header(std::string_view image) { return *reinterpret_cast<const Elf64_Ehdr*>(image.data()); }

// The section named `name`, or an empty view.
inline std::string_view section(std::string_view image, std::string_view name) {
  const auto& eh = header(image);
  const auto* sections = reinterpret_cast<const Elf64_Shdr*>(image.data() + eh.e_shoff);
  const char* names = image.data() + sections[eh.e_shstrndx].sh_offset;
  for (int i = 0; i < eh.e_shnum; ++i) {
    if (name == names + sections[i].sh_name) {
      return image.substr(sections[i].sh_offset, sections[i].sh_size);
    }
  }
  return {};
}

inline bool has_symbol(std::string_view image, std::string_view symbol) {
  std::string_view strtab = section(image, ".strtab");
  std::string needle(symbol);
  needle.push_back('\0');
  return strtab.find(needle) != std::string_view::npos;
}

// Counts EIATTR_KPARAM_INFO (0x17) entries: one per kernel parameter. Entries are a format
// byte, an attribute byte and, for EIFMT_SVAL (0x04), a 16-bit size and that many bytes;
// other formats carry a 16-bit value.
inline int kernel_param_count(std::string_view image, std::string_view kernel) {
  std::string_view info = section(image, std::string(".nv.info.") + std::string(kernel));
  int count = 0;
  std::size_t pos = 0;
  while (pos + 4 <= info.size()) {
    auto format = static_cast<uint8_t>(info[pos]);
    auto attribute = static_cast<uint8_t>(info[pos + 1]);
    uint16_t value;
    std::memcpy(&value, info.data() + pos + 2, 2);
    pos += 4;
    if (format == 0x04) pos += value;
    if (attribute == 0x17) ++count;
  }
  return count;
}

// The SM number the image holds code for: e_flags' low byte, or the byte above it from
// EI_ABIVERSION 8 on (CUDA 12.8's layout, used for sm_100 and newer).
inline int sm(std::string_view image) {
  const auto& eh = header(image);
  return static_cast<int>(eh.e_ident[EI_ABIVERSION] >= 8 ? (eh.e_flags >> 8) & 0xff : eh.e_flags & 0xff);
}

}  // namespace cubin
