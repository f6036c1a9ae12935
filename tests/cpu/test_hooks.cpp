// Config hooks and prunes of @triton.autotune from C++ (Note [Config hooks]): descriptors given
// the block shape each config tiles by, tensors zeroed or copied into before a launch, hooks
// outside what runs without Python refused at load with their line, and prune_configs_by
// functions that read keyword arguments. Real Triton compiles for sm_90; the stand-in driver
// (tests/fake_cuda) launches, times and performs memsets and copies on host memory.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <dlfcn.h>

#include <triton_jit/triton_jit.h>

#include "../common/error_of.h"
#include "../common/stand_in_driver.h"
#include "../common/test_paths.h"
#include "../fake_cuda/fake_cuda.h"

using triton_jit::device_pointer;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

std::string g_launched;
void note_launch(const triton_jit::LaunchInfo& info, void*) { g_launched = info.signature; }
struct WatchLaunches {
  WatchLaunches() { triton_jit::set_launch_hooks(&note_launch, nullptr, nullptr); }
  ~WatchLaunches() { triton_jit::set_launch_hooks(nullptr, nullptr, nullptr); }
};

const std::string kKernels = triton_jit::test::kKernelsDir;
const TritonJITFunction& kernel(const char* name) {
  return TritonJITFunction::get_instance(kKernels + "/hooked_kernels.py", name);
}

alignas(128) uint16_t g_src[64 * 32];
alignas(128) uint16_t g_dst[64 * 32];
alignas(64) float g_x[1024];
alignas(64) float g_total[4];
alignas(64) int32_t g_count[4];

LaunchConfig by_block(const char* rows_name) {
  LaunchConfig c;
  c.grid_data = const_cast<char*>(rows_name);
  c.grid_fn = [](const triton_jit::LaunchMeta& m, void* name) {
    return triton_jit::Grid{triton_jit::cdiv(m[static_cast<const char*>(name)], m["BLOCK"]), 1, 1};
  };
  return c;
}

}  // namespace

TEST(ConfigHooks, APreHookGivesTheDescriptorsTheBlockShapeOfEachConfig) {
  auto& f = const_cast<TritonJITFunction&>(kernel("tiled_scale"));
  // The caller's block shape is a placeholder: every config's pre_hook sets its own.
  auto src =
      triton_jit::tensor_descriptor(g_src, DType::kFloat16, triton_jit::kUnknownDevice, {64, 32}, {32, 1}, {1, 1});
  auto dst =
      triton_jit::tensor_descriptor(g_dst, DType::kFloat16, triton_jit::kUnknownDevice, {64, 32}, {32, 1}, {1, 1});
  WatchLaunches watch;
  const int rows[] = {16, 32, 64};
  for (int config = 0; config < 3; ++config) {
    f.force_autotune_config(config);
    const std::string block = std::to_string(rows[config]);
    const auto info = f.warmup(by_block("rows"), src, dst, 64, 2.0f, 32, false);
    EXPECT_NE(info.signature.find("src: tensordesc<fp16[" + block + ", 32]>, dst: tensordesc<fp16[" + block + ", 32]>"),
              std::string::npos)
        << info.signature;
    f(by_block("rows"), src, dst, 64, 2.0f, 32, false);
    EXPECT_NE(g_launched.find("tensordesc<fp16[" + block + ", 32]>"), std::string::npos) << g_launched;
    const FakeTensorMap m = last_tensor_map();  // dst's: box innermost first
    EXPECT_EQ(m.box[0], 32u);
    EXPECT_EQ(m.box[1], static_cast<uint32_t>(rows[config]));
  }
  // The branch of the hook follows the arguments: a transposed destination tiles [WIDTH, BLOCK].
  f.force_autotune_config(1);
  EXPECT_NE(f.warmup(by_block("rows"), src, dst, 64, 2.0f, 32, true).signature.find("dst: tensordesc<fp16[32, 32]>"),
            std::string::npos);
  auto wide =
      triton_jit::tensor_descriptor(g_dst, DType::kFloat16, triton_jit::kUnknownDevice, {32, 64}, {64, 1}, {1, 1});
  f.force_autotune_config(2);
  EXPECT_NE(f.warmup(by_block("rows"), src, wide, 64, 2.0f, 32, true).signature.find("dst: tensordesc<fp16[32, 64]>"),
            std::string::npos);
  f.force_autotune_config(-1);
  // The caller's descriptors are left as they were.
  EXPECT_EQ(src.block_shape[0], 1);
  EXPECT_EQ(dst.block_shape[1], 1);
  // Tuning tries each config with its own block shapes and keeps one.
  f(by_block("rows"), src, dst, 64, 2.0f, 32, false);
  auto choice = f.autotune_choice(by_block("rows"), src, dst, 64, 2.0f, 32, false);
  ASSERT_TRUE(choice.has_value());
  EXPECT_GE(choice->config, 0);
  EXPECT_NE(g_launched.find("tensordesc<fp16[" + std::to_string(rows[choice->config]) + ", 32]>"), std::string::npos)
      << g_launched;
}

TEST(ConfigHooks, AHookThatSetsTheBlockShapeOfATensorIsAnErrorNamingIt) {
  auto& f = const_cast<TritonJITFunction&>(kernel("tiled_scale"));
  f.force_autotune_config(0);
  auto bad_rank = triton_jit::tensor_descriptor(g_src, DType::kFloat16, triton_jit::kUnknownDevice, {2048}, {1}, {1});
  auto dst =
      triton_jit::tensor_descriptor(g_dst, DType::kFloat16, triton_jit::kUnknownDevice, {64, 32}, {32, 1}, {1, 1});
  EXPECT_EQ(error_of([&] { f.warmup(by_block("rows"), bad_rank, dst, 64, 2.0f, 32, false); }),
            "tiled_scale: configs[0].pre_hook sets a block_shape of 2 dimensions on argument 'src', a descriptor of "
            "rank 1");
  f.force_autotune_config(-1);
}

// Names as Python binds them: a default argument shadows the module's global of the same name,
// and a name a loop rebinds holds its last iteration's value after the loop.
TEST(ConfigHooks, AHooksNamesHoldWhatPythonWouldBindThem) {
  auto& f = kernel("tiled_after_a_loop");
  auto src =
      triton_jit::tensor_descriptor(g_src, DType::kFloat16, triton_jit::kUnknownDevice, {64, 32}, {32, 1}, {1, 1});
  auto dst =
      triton_jit::tensor_descriptor(g_dst, DType::kFloat16, triton_jit::kUnknownDevice, {64, 32}, {32, 1}, {1, 1});
  const auto info = f.warmup(by_block("rows"), src, dst, 64);
  EXPECT_NE(info.signature.find("src: tensordesc<fp16[16, 32]>, dst: tensordesc<fp16[16, 32]>"), std::string::npos)
      << info.signature;
}

TEST(ConfigHooks, APreHookZeroesItsTensorsBeforeEveryLaunchAndTuningLeavesThemAsTheyWere) {
  auto& f = const_cast<TritonJITFunction&>(kernel("accumulate"));
  auto x = device_pointer(g_x, DType::kFloat32, triton_jit::kUnknownDevice, sizeof(g_x));
  auto total = device_pointer(g_total, DType::kFloat32, triton_jit::kUnknownDevice, sizeof(g_total));
  auto count = device_pointer(g_count, DType::kInt32, triton_jit::kUnknownDevice, sizeof(g_count));
  // Tuning runs each config with its hook, and then puts the tensors back as the caller left
  // them; the real launch's hook then zeroes them (the stand-in kernel itself writes nothing).
  g_total[0] = 5.0f;
  g_count[0] = 7;
  f(by_block("n"), x, total, count, 1000);
  EXPECT_EQ(g_total[0], 0.0f);
  EXPECT_EQ(g_count[0], 0);
  for (int config = 0; config < 2; ++config) {
    f.force_autotune_config(config);
    g_total[3] = 1.0f;
    g_count[3] = 1;
    f(by_block("n"), x, total, count, 1000);
    EXPECT_EQ(g_total[3], 0.0f) << config;
    EXPECT_EQ(g_count[3], 0) << config;
    // The hook skips an argument that is None, as its comprehension's `if` says.
    g_total[1] = 2.0f;
    f(by_block("n"), x, total, std::nullopt, 1000);
    EXPECT_EQ(g_total[1], 0.0f);
  }
  // prepare() and warmup() compile; they write nothing.
  g_total[2] = 3.0f;
  f.warmup(by_block("n"), x, total, count, 1000);
  (void)f.prepare(by_block("n"), x, total, count, 1000);
  EXPECT_EQ(g_total[2], 3.0f);
  f.force_autotune_config(-1);
  // A tensor whose size is unknown cannot be zeroed: the message says what to pass.
  const std::string message =
      error_of([&] { f(by_block("n"), x, device_pointer(g_total, DType::kFloat32), count, 1000); });
  EXPECT_EQ(
      message.rfind("accumulate: configs[0].pre_hook calls zero_() on argument 'total', whose size is unknown", 0), 0u)
      << message;
}

TEST(ConfigHooks, APreHookCopiesBetweenArguments) {
  auto& f = kernel("starts_from_copy");
  alignas(64) static float keep[64], out[64];
  for (int i = 0; i < 64; ++i) keep[i] = static_cast<float>(i);
  std::memset(out, 0, sizeof(out));
  f(by_block("n"), device_pointer(g_x, DType::kFloat32), device_pointer(keep, DType::kFloat32, -2, sizeof(keep)),
    device_pointer(out, DType::kFloat32, -2, sizeof(out)), 64);
  EXPECT_EQ(out[63], 63.0f);
}

// A tensor type of a user's own, as torch's is seen: pointer, dtype, extent and layout bits.
struct ViewOf {
  void* data;
  DType dtype;
  uint64_t bytes;
  uint32_t layout;
};

template <>
struct triton_jit::ArgTraits<ViewOf> {
  static triton_jit::ArgSlot to_slot(const ViewOf& v) noexcept {
    triton_jit::ArgSlot s;
    s.kind = triton_jit::ArgKind::kPointer;
    s.value.p = v.data;
    s.dtype = v.dtype;
    s.extent = v.bytes;
    s.size = v.layout;
    return s;
  }
};

constexpr uint32_t kRowMajor(uint32_t shape) {
  return triton_jit::kLayoutKnown | triton_jit::kLayoutDense | triton_jit::kLayoutContiguous |
         shape << triton_jit::kLayoutShapeShift;
}

// Note [Hooks write only their tensor]: what bytes cannot do as torch does is refused, naming the
// argument, and nothing is written.
TEST(ConfigHooks, AHookNeverWritesOutsideItsTensorOrConvertsByBytes) {
  auto& zeroing = const_cast<TritonJITFunction&>(kernel("accumulate"));
  auto x = device_pointer(g_x, DType::kFloat32, triton_jit::kUnknownDevice, sizeof(g_x));
  auto count = device_pointer(g_count, DType::kInt32, triton_jit::kUnknownDevice, sizeof(g_count));
  // total[::2] of four floats: it spans 12 bytes, and total[1] is the caller's.
  g_total[1] = 42.0f;
  const ViewOf every_other{g_total, DType::kFloat32, 12,
                           triton_jit::kLayoutKnown | 2u << triton_jit::kLayoutShapeShift};
  zeroing.force_autotune_config(0);
  EXPECT_EQ(error_of([&] { zeroing(by_block("n"), x, every_other, count, 1000); }),
            "accumulate: configs[0].pre_hook calls zero_() on argument 'total', a strided view whose elements do not "
            "fill the memory it spans; writing that span would change the elements between them. Pass a contiguous "
            "tensor (.contiguous() is a copy: the kernel must write into the tensor the caller reads)");
  EXPECT_EQ(g_total[1], 42.0f);
  // A transposed (dense) tensor's span is all its elements: zeroing it is right.
  const ViewOf transposed{g_total, DType::kFloat32, sizeof(g_total),
                          triton_jit::kLayoutKnown | triton_jit::kLayoutDense | 7u << triton_jit::kLayoutShapeShift};
  zeroing(by_block("n"), x, transposed, count, 1000);
  EXPECT_EQ(g_total[1], 0.0f);
  zeroing.force_autotune_config(-1);

  auto& copying = kernel("starts_from_copy");
  alignas(64) static float keep[64], out[64];
  alignas(64) static int32_t keep_ints[64];
  for (int i = 0; i < 64; ++i) keep_ints[i] = i;
  std::memset(out, 0, sizeof(out));
  auto x64 = device_pointer(g_x, DType::kFloat32);
  const ViewOf out_64{out, DType::kFloat32, sizeof(out), kRowMajor(64)};
  // int32 into float32: torch converts each element; bytes would make denormals of them.
  EXPECT_EQ(
      error_of([&] {
        copying(by_block("n"), x64, ViewOf{keep_ints, DType::kInt32, sizeof(keep_ints), kRowMajor(64)}, out_64, 64);
      }),
      "starts_from_copy: configs[0].pre_hook copies argument 'keep_ptr' (i32) into argument 'out_ptr' (fp32): "
      "torch's copy_ converts each element, a translated hook copies bytes, so their dtypes must be the same");
  // As many bytes in another shape ([8, 8] into [64]): torch raises.
  const std::string other_shape =
      "starts_from_copy: configs[0].pre_hook copies argument 'keep_ptr' into argument "
      "'out_ptr', which differ in shape, size or layout; a translated hook copies only "
      "between contiguous tensors of one shape (torch's copy_ would broadcast or raise)";
  EXPECT_EQ(error_of([&] {
              copying(by_block("n"), x64, ViewOf{keep, DType::kFloat32, sizeof(keep), kRowMajor(88)}, out_64, 64);
            }),
            other_shape);
  // Fewer bytes from raw pointers: torch would raise on the sizes.
  EXPECT_EQ(error_of([&] {
              copying(by_block("n"), x64, device_pointer(keep, DType::kFloat32, -2, 128),
                      device_pointer(out, DType::kFloat32, -2, sizeof(out)), 64);
            }),
            other_shape);
  // A strided view as the destination.
  EXPECT_NE(error_of([&] {
              copying(by_block("n"), x64, ViewOf{keep, DType::kFloat32, sizeof(keep), kRowMajor(64)},
                      ViewOf{out, DType::kFloat32, sizeof(out), triton_jit::kLayoutKnown}, 64);
            }).find("calls copy_() on argument 'out_ptr', a strided view"),
            std::string::npos);
  for (float v : out) EXPECT_EQ(v, 0.0f);
}

TEST(ConfigHooks, AHookOutsideWhatRunsWithoutPythonIsRefusedAtLoadWithItsLine) {
  const std::string message = error_of([] { kernel("hook_that_prints"); });
  EXPECT_NE(message.find("hook_that_prints: its @triton.autotune runs Python code that triton_jit cannot run around "
                         "C++ launches: configs[0].pre_hook '_logs' ("),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("hooked_kernels.py:62) cannot run without Python: line 64, `print('tuning', block)`"),
            std::string::npos)
      << message;
}

TEST(PruneConfigsBy, PrunesAndPerformanceModelsReadTheCallsArgumentsByKeyword) {
  auto& f = kernel("pruned_by_keywords");
  LaunchConfig grid;
  grid.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
    return triton_jit::Grid{triton_jit::cdiv(m["N_CTX"], m["BLOCK_M"]), 1, 1};
  };
  alignas(64) static float x[256];
  auto p = device_pointer(x, DType::kFloat32, -2, sizeof(x));
  // N_CTX = 40: the prune keeps BLOCK_M 16 and 32; with STAGE 3 only 32.
  f(grid, p, 40, 1);
  auto choice = f.autotune_choice(grid, p, 40, 1);
  ASSERT_TRUE(choice.has_value());
  EXPECT_TRUE(choice->config == 0 || choice->config == 1) << choice->config;
  f(grid, p, 41, 3);
  choice = f.autotune_choice(grid, p, 41, 3);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->config, 1);
  // N_CTX = 200: all four fit; the performance model keeps its top 2 (BLOCK_M 128 and 64).
  f(grid, p, 200, 1);
  choice = f.autotune_choice(grid, p, 200, 1);
  ASSERT_TRUE(choice.has_value());
  EXPECT_TRUE(choice->config == 2 || choice->config == 3) << choice->config;
}

int main(int argc, char** argv) {
  setenv("TRITON_JIT_CUDA_DRIVER", triton_jit::test::kFakeDriver, 1);
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
