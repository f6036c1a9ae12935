// The stand-ins' routing rules (operators/common/stand_in_policy.h) at the LLM shapes they were
// measured on: each class that measured slower than ATen on the H200 goes back to ATen, each class
// that measured faster stays ours.
#include <gtest/gtest.h>

#include "common/stand_in_policy.h"
#include "topk/topk_row_bound.h"

namespace {
using triton_jit::ops::MatmulShape;
using triton_jit::ops::Route;
using triton_jit::ops::RowShape;
using triton_jit::ops::TopkRowBound;
constexpr int64_t kVocab = 128256;
}  // namespace

TEST(StandInPolicy, SixteenBitLinearLayersStayOursOnlyInTheClassesMeasuredFasterThanCublas) {
  for (int64_t m : {1, 16, 64, 512, 2048}) {
    EXPECT_EQ(route_matmul(MatmulShape{1, m, 6144, 4096, 2}), Route::kAten) << "qkv, M = " << m;
    EXPECT_EQ(route_matmul(MatmulShape{1, m, 28672, 4096, 2}), Route::kAten) << "gate_up, M = " << m;
  }
  for (int64_t m : {1, 8, 16, 32, 64}) EXPECT_EQ(route_matmul(MatmulShape{1, m, 4096, 14336, 2}), Route::kOurs) << m;
  for (int64_t m : {128, 512}) EXPECT_EQ(route_matmul(MatmulShape{1, m, 4096, 14336, 2}), Route::kAten) << m;
  EXPECT_EQ(route_matmul(MatmulShape{1, 64, 4096, 4096, 2}), Route::kAten);  // o at 64 rows, split: 1.11x
  for (int64_t m : {1, 16, 64, 512, 2048}) EXPECT_EQ(route_matmul(MatmulShape{1, m, kVocab, 4096, 2}), Route::kOurs);
  EXPECT_EQ(route_matmul(MatmulShape{1, 128, kVocab, 4096, 2}), Route::kAten);  // lm_head, too few tiles
  EXPECT_EQ(route_matmul(MatmulShape{1, 8192, 4096, 4096, 2}), Route::kOurs);   // o at a long prefill
  EXPECT_EQ(route_matmul(MatmulShape{1, 8192, 28672, 4096, 2}), Route::kAten);  // gate_up there: parity
  EXPECT_EQ(route_matmul(MatmulShape{1, 16, kVocab, 4096, 4}), Route::kAten);   // float32
  EXPECT_EQ(route_matmul(MatmulShape{4, 16, kVocab, 4096, 2}), Route::kAten);   // batched
  EXPECT_EQ(route_matmul(MatmulShape{32, 2048, 2048, 128, 2}), Route::kAten);   // attention scores
  EXPECT_EQ(route_matmul(MatmulShape{32, 128, 128, 128, 2}), Route::kAten);
}

TEST(StandInPolicy, SelectionsOverTheVocabularyFollowTheirMeasuredClasses) {
  EXPECT_EQ(route_topk(RowShape{1, kVocab, 4}, 50), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{16, kVocab, 2}, 50), Route::kOurs);
  // a large k: the whole-row bound for 32- and 16-bit floats up to 256 rows; int32 and more rows
  // ATen's
  EXPECT_EQ(route_topk(RowShape{1, kVocab, 4, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{16, kVocab, 4, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{256, kVocab, 4, true}, 100), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{257, kVocab, 4, true}, 1024), Route::kAten);
  EXPECT_EQ(route_topk(RowShape{16, kVocab, 2, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{256, kVocab, 2, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{1, kVocab, 2, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{8, kVocab, 2, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{1, kVocab, 8, true}, 1024), Route::kAten);  // 64-bit: not the bound's
  EXPECT_EQ(route_topk(RowShape{257, kVocab, 2, true}, 1024), Route::kAten);
  EXPECT_EQ(route_topk(RowShape{16, kVocab, 4, false}, 1024), Route::kAten);
  EXPECT_EQ(route_topk(RowShape{16, 30000, 4, true}, 1024), Route::kAten);
  EXPECT_EQ(route_topk(RowShape{16, 524289, 4, true}, 1024), Route::kAten);  // past the bound's longest row
  // The policy routes by the kernel's own limits: their ends are ours, one key past them ATen's.
  EXPECT_EQ(route_topk(RowShape{16, TopkRowBound::kLongestRow, 4, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{16, TopkRowBound::kShortestRow, 4, true}, 1024), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{16, TopkRowBound::kShortestRow - 1, 4, true}, 1024), Route::kAten);
  EXPECT_EQ(route_topk(RowShape{256, kVocab, 4}, 50), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{4096, kVocab, 2}, 50), Route::kOurs);
  EXPECT_EQ(route_topk(RowShape{4096, 4096, 4}, 50), Route::kAten);  // many short rows: not measured
  EXPECT_EQ(route_topk(RowShape{4096, kVocab, 4}, 65), Route::kAten);
  EXPECT_EQ(route_topk(RowShape{1, kVocab, 8}, 50), Route::kAten);  // 64-bit: selection, not radix
  EXPECT_EQ(route_softmax(RowShape{16, kVocab, 4}), Route::kOurs);
  EXPECT_EQ(route_softmax(RowShape{4096, kVocab, 4}), Route::kOurs);
  EXPECT_EQ(route_softmax(RowShape{8192, 8192, 2}), Route::kOurs);
  EXPECT_EQ(route_index_reduction(RowShape{16, kVocab, 4}), Route::kOurs);
  EXPECT_EQ(route_index_reduction(RowShape{4096, kVocab, 4}), Route::kOurs);
  EXPECT_EQ(route_index_reduction(RowShape{8192, 8192, 2}), Route::kOurs);
  EXPECT_EQ(route_amax(RowShape{1, kVocab, 4}), Route::kOurs);
  EXPECT_EQ(route_amax(RowShape{256, kVocab, 4}), Route::kOurs);
  EXPECT_EQ(route_amax(RowShape{4096, kVocab, 4}), Route::kAten);
  EXPECT_EQ(route_amax(RowShape{8192, 8192, 2}), Route::kAten);
  EXPECT_EQ(route_amax(RowShape{1024, 4096, 2}), Route::kOurs);
}

TEST(StandInPolicy, PointwiseClassesThatMeasuredSlowerGoToAten) {
  EXPECT_EQ(triton_jit::ops::route_cat(), Route::kAten);
  EXPECT_EQ(triton_jit::ops::route_tanh(), Route::kAten);
  EXPECT_EQ(triton_jit::ops::route_elementwise(1024), Route::kOurs);
  EXPECT_EQ(triton_jit::ops::route_elementwise(2048 * 4096), Route::kAten);  // a residual add at prefill
  EXPECT_EQ(triton_jit::ops::route_elementwise(16 * 4096), Route::kOurs);    // and at decode
}
