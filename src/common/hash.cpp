#include "common/hash.h"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <new>

namespace triton_jit::detail {

static_assert(sizeof(XXH3_state_t) <= 640, "Hasher::state_ is too small for this xxHash");

std::string Digest::hex() const {
  char text[33];
  std::snprintf(text, sizeof(text), "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

Digest digest(const void* data, std::size_t size) noexcept {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return Digest{h.high64, h.low64};
}

Digest digest(std::string_view bytes) noexcept { return digest(bytes.data(), bytes.size()); }

uint64_t hash64(const void* data, std::size_t size) noexcept { return XXH3_64bits(data, size); }

Hasher::Hasher() noexcept {
  auto* state = new (state_) XXH3_state_t;
  XXH3_128bits_reset(state);
}

Hasher::~Hasher() { reinterpret_cast<XXH3_state_t*>(state_)->~XXH3_state_t(); }

Hasher& Hasher::add(std::string_view part) noexcept {
  auto* state = reinterpret_cast<XXH3_state_t*>(state_);
  const uint64_t size = part.size();
  XXH3_128bits_update(state, &size, sizeof(size));
  XXH3_128bits_update(state, part.data(), part.size());
  return *this;
}

Digest Hasher::finish() const noexcept {
  XXH128_hash_t h = XXH3_128bits_digest(reinterpret_cast<const XXH3_state_t*>(state_));
  return Digest{h.high64, h.low64};
}

std::string hash_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return "";
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  char buffer[1 << 16];
  bool ok = true;
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      ok = false;
      break;
    }
    XXH3_128bits_update(&state, buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (!ok) return "";
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return Digest{h.high64, h.low64}.hex();
}

}  // namespace triton_jit::detail
