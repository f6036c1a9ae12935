// Which top-k calls the whole-row bound serves (topk.cpp's run_topk_row_bound), without torch, so
// that the stand-in policy (common/stand_in_policy.cpp) routes by the very limits the kernel has.
#pragma once

#include <cstdint>

namespace triton_jit::ops {

// Group maxima of this many keys at least, and no more than this many maxima a row, whose k-th
// largest one program finds. A group's keys are loaded in an unrolled loop, so groups stop at
// kLargestGroup (rows up to 512k keys); longer rows keep the rounds.
struct TopkRowBound {
  static constexpr int64_t kGroup = 16;
  static constexpr int64_t kLargestGroup = 64;
  static constexpr int64_t kMaxima = 8192;
  // Rows shorter than this were not measured faster than the rounds (docs/performance.md).
  static constexpr int64_t kShortestRow = 65536;
  static constexpr int64_t kLongestRow = kMaxima * kLargestGroup;

  // Floating types (whose keys never take the value the maxima start from) of 32 bits or less, k
  // past what a chunk's own bound serves (64), rows in the measured range and with k maxima or more.
  static constexpr bool serves(bool floating, int64_t element_size, int64_t length, int64_t k) {
    return floating && element_size <= 4 && k > 64 && length >= kShortestRow && length <= kLongestRow &&
           (length + kGroup - 1) / kGroup >= k;
  }
};

}  // namespace triton_jit::ops
