// VariantKey: the fixed-size binary identity of a compiled variant within one function.
//
// Word 0 holds the target and the compile options, word 1 the remaining options; then each
// parameter adds one word (type token, attribute, value kind) and constexpr-like parameters
// one more (the value's bits; a string's hash). Hashed once per call; compared word by word.
#pragma once

#include <cstdint>
#include <cstring>

namespace triton_jit::detail {

inline constexpr std::size_t kMaxParams = 128;
inline constexpr std::size_t kHeaderWords = 2;
inline constexpr std::size_t kMaxKeyWords = kHeaderWords + 2 * kMaxParams;

struct VariantKey {
  uint32_t size = 0;  // words in use
  uint64_t hash = 0;
  uint64_t words[kMaxKeyWords];

  void finish() noexcept {
    // Each word is mixed on its own and the products summed, so the multiplies pipeline instead
    // of forming one dependent chain (this runs on every call); a final mix spreads the bits.
    uint64_t h = 0x9E3779B97F4A7C15ull * (size + 1);
    for (uint32_t i = 0; i < size; ++i) h += (words[i] ^ (0xD6E8FEB86659FD93ull * (i + 1))) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    hash = h;
  }

  bool operator==(const VariantKey& other) const noexcept {
    return size == other.size && hash == other.hash && std::memcmp(words, other.words, size * sizeof(uint64_t)) == 0;
  }
};

// Parameter word layout.
enum class Attr : uint8_t { kNone = 0, kEmpty = 1, kDivisible16 = 2 };

constexpr uint64_t param_word(uint8_t token, Attr attr, uint8_t value_kind, uint32_t extra = 0) noexcept {
  return uint64_t{token} | (uint64_t{static_cast<uint8_t>(attr)} << 8) | (uint64_t{value_kind} << 16) |
         (uint64_t{extra} << 32);
}
constexpr uint8_t word_token(uint64_t w) noexcept { return static_cast<uint8_t>(w); }
constexpr Attr word_attr(uint64_t w) noexcept { return static_cast<Attr>(static_cast<uint8_t>(w >> 8)); }
constexpr uint8_t word_value_kind(uint64_t w) noexcept { return static_cast<uint8_t>(w >> 16); }

}  // namespace triton_jit::detail
