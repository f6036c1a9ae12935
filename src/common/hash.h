// The library's one hash, XXH3 from xxHash: 128 bits for identity and integrity (cache entries,
// kernel sources, function identities), 64 bits where a table only needs to spread keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triton_jit::detail {

struct Digest {
  uint64_t high = 0;
  uint64_t low = 0;
  bool operator==(const Digest&) const = default;
  std::string hex() const;  // 32 lowercase hex digits
};

Digest digest(std::string_view bytes) noexcept;
Digest digest(const void* data, std::size_t size) noexcept;
uint64_t hash64(const void* data, std::size_t size) noexcept;

// Digest of a sequence of parts, each length-prefixed so that ("ab", "c") and ("a", "bc") differ.
class Hasher {
 public:
  Hasher() noexcept;
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  Hasher& add(std::string_view part) noexcept;
  Digest finish() const noexcept;

 private:
  alignas(64) unsigned char state_[640];  // XXH3_state_t, kept opaque to keep xxhash.h out of this header
};

// The hex digest of a file's content, or "" when it cannot be read.
std::string hash_file(const std::string& path);

}  // namespace triton_jit::detail
