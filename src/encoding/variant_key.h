// VariantKey: the fixed-size binary identity of a compiled variant within one function.
//
// Word 0 holds the target and the compile options, word 1 the remaining options. Then each
// parameter takes 16 bits (its type token, its attribute and the kind of a constexpr value),
// four to a word, and each constexpr-like parameter one more word after those (the value's bits;
// a string's 128-bit digest takes two). Hashed once per call (XXH3, only to spread keys in the
// table: keys are compared word by word). Small on purpose: a launch touches it twice, right
// after the driver has evicted much of the cache.
#pragma once

#include <cstdint>
#include <cstring>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "common/limits.h"

namespace triton_jit::detail {

inline constexpr std::size_t kHeaderWords = 2;
inline constexpr std::size_t kMaxKeyWords = kHeaderWords + kMaxParams / 4 + 2 * kMaxParams;

struct VariantKey {
  uint32_t size = 0;  // words in use
  uint64_t hash = 0;
  uint64_t words[kMaxKeyWords];

  void finish() noexcept { hash = XXH3_64bits(words, size * sizeof(uint64_t)); }

  bool operator==(const VariantKey& other) const noexcept {
    return size == other.size && hash == other.hash && std::memcmp(words, other.words, size * sizeof(uint64_t)) == 0;
  }
};

// Parameter entry layout: token in the low byte, attribute and value kind in the high byte.
enum class Attr : uint8_t { kNone = 0, kEmpty = 1, kDivisible16 = 2 };

constexpr uint16_t param_entry(uint8_t token, Attr attr, uint8_t value_kind = 0) noexcept {
  return static_cast<uint16_t>(token | ((static_cast<unsigned>(attr) | (value_kind << 2)) << 8));
}
constexpr uint8_t entry_token(uint16_t e) noexcept { return static_cast<uint8_t>(e); }
constexpr Attr entry_attr(uint16_t e) noexcept { return static_cast<Attr>((e >> 8) & 3); }
constexpr uint8_t entry_value_kind(uint16_t e) noexcept { return static_cast<uint8_t>(e >> 10); }
constexpr uint32_t param_words(std::size_t num_params) noexcept { return static_cast<uint32_t>((num_params + 3) / 4); }

// The 16-bit entry of parameter i.
inline uint16_t key_entry(const VariantKey& key, std::size_t i) noexcept {
  uint64_t word = key.words[kHeaderWords + i / 4];
  return static_cast<uint16_t>(word >> (16 * (i % 4)));
}

}  // namespace triton_jit::detail
