#include "common/env.h"

#include <strings.h>
#include <cstdlib>
#include <cstring>

namespace triton_jit::detail {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

bool env_flag(const char* name) noexcept {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  for (const char* off : {"0", "off", "false", "no"}) {
    if (strcasecmp(v, off) == 0) return false;
  }
  return true;
}

}  // namespace triton_jit::detail
