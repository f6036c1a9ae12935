// Kernels with @triton.autotune and @triton.heuristics called from C++ as they are written, on
// CPU: real Triton compiles, the stand-in driver (tests/fake_cuda) launching and timing (a launch
// whose block has FAKE_CUDA_FAST_BLOCK threads takes 1 us, others 5 us).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <dlfcn.h>

#include <triton_jit/compile_options.h>
#include <triton_jit/triton_jit.h>

#include "../common/allocation_counter.h"
#include "../common/error_of.h"
#include "../common/fresh_cache.h"
#include "../common/stand_in_driver.h"
#include "../common/test_paths.h"
#include "../fake_cuda/fake_cuda.h"

using triton_jit::device_pointer;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

// The variant each launch ran, as a launch hook sees it.
std::string g_launched;
void note_launch(const triton_jit::LaunchInfo& info, void*) { g_launched = info.signature; }
struct WatchLaunches {
  WatchLaunches() { triton_jit::set_launch_hooks(&note_launch, nullptr, nullptr); }
  ~WatchLaunches() { triton_jit::set_launch_hooks(nullptr, nullptr, nullptr); }
};
bool launched(const char* text) { return g_launched.find(text) != std::string::npos; }

const std::string kKernels = triton_jit::test::kKernelsDir;
alignas(64) float g_x[8192];
alignas(64) float g_out[8192];

const TritonJITFunction& kernel(const char* name) {
  return TritonJITFunction::get_instance(kKernels + "/decorated_kernels.py", name);
}

LaunchConfig grid_by_block() {
  LaunchConfig c;
  c.grid_fn = [](const triton_jit::LaunchMeta& m, void*) {
    return triton_jit::Grid{triton_jit::cdiv(m["n"], m["BLOCK"]), 1, 1};
  };
  return c;
}

struct FastBlock {  // which block size the stand-in device runs fastest, for one test
  explicit FastBlock(const char* threads) { setenv("FAKE_CUDA_FAST_BLOCK", threads, 1); }
  ~FastBlock() { unsetenv("FAKE_CUDA_FAST_BLOCK"); }
};

}  // namespace

TEST(Decorated, ACallPassesOnlyWhatNoDecoratorSetsAndTheFastestConfigIsKept) {
  FastBlock fast("256");  // config 2: num_warps=8
  auto& f = const_cast<TritonJITFunction&>(kernel("scale_tuned"));
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  EXPECT_FALSE(f.autotune_choice(LaunchConfig{}, x, out, 4096, 2.0f).has_value());
  f(grid_by_block(), x, out, 4096, 2.0f);
  auto choice = f.autotune_choice(LaunchConfig{}, x, out, 4096, 2.0f);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->config, 2);
  EXPECT_EQ(choice->text, "BLOCK=256, num_warps=8, num_stages=3");
  EXPECT_EQ(choice->source, "tuned");
  EXPECT_EQ(last_launch().block_x, 256u);
  EXPECT_EQ(last_launch().grid[0], 16u);  // cdiv(4096, 256), from the grid function
  EXPECT_EQ(f.stats().tunings, 1u);
  const auto compiles = f.stats().compiles;
  for (int i = 0; i < 10; ++i) f(grid_by_block(), x, out, 4096, 2.0f);
  EXPECT_EQ(f.stats().tunings, 1u);  // the key's choice is remembered
  EXPECT_EQ(f.stats().compiles, compiles);
  f(grid_by_block(), x, out, 1000, 2.0f);  // a new key
  EXPECT_EQ(f.stats().tunings, 2u);
}

TEST(Decorated, TheDecoratorsWarmupAndRepSetTheBenchmarksLength) {
  // do_bench runs a config for about `rep` ms: rep=5 is a twentieth of the default 100 ms.
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  auto launches = [&](const char* name, auto... constexprs) {
    const uint64_t before = stand_in<uint64_t()>("fake_cuda_launch_count")();
    kernel(name)(grid_by_block(), x, out, 3072, constexprs...);  // a key no other test uses
    return stand_in<uint64_t()>("fake_cuda_launch_count")() - before;
  };
  const uint64_t short_bench = launches("scale_short_bench");
  const uint64_t default_bench = launches("scale_tuned", 2.0f) / 2;  // four configs against two
  EXPECT_GT(short_bench, 2u);
  EXPECT_LT(short_bench * 5, default_bench) << short_bench << " launches against " << default_bench;
}

TEST(Decorated, HeuristicsInsideTheAutotunerSeeItsConfig) {
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  LaunchConfig c;
  const_cast<TritonJITFunction&>(f).force_autotune_config(1);  // BLOCK=128
  EXPECT_NE(f.warmup(c, x, out, 4096, 2.0f).signature.find("BLOCK=128, EVEN=True"), std::string::npos);
  EXPECT_NE(f.warmup(c, x, out, 4000, 2.0f).signature.find("BLOCK=128, EVEN=False"), std::string::npos);
  const_cast<TritonJITFunction&>(f).force_autotune_config(-1);
  EXPECT_THROW(const_cast<TritonJITFunction&>(f).force_autotune_config(4), triton_jit::ValueError);
  // -1 tunes again; any other negative index is out of range, not a second way of saying -1
  const std::string message = error_of([&] { const_cast<TritonJITFunction&>(f).force_autotune_config(-2); });
  EXPECT_NE(message.find("force_autotune_config(-2): expected -1 (tune again) or a config index from 0 to"),
            std::string::npos)
      << message;
}

TEST(Decorated, AHeuristicChoosesBlockAndWarps) {
  auto& f = kernel("row_softmax");
  auto x = device_pointer(g_x, DType::kFloat16);
  auto v = f.warmup(LaunchConfig{}, x, x, 1000, 1024);
  EXPECT_NE(v.signature.find("BLOCK=1024"), std::string::npos) << v.signature;
  EXPECT_EQ(v.num_warps, 4);
  v = f.warmup(LaunchConfig{}, x, x, 3000, 4096);
  EXPECT_NE(v.signature.find("BLOCK=4096"), std::string::npos) << v.signature;
  EXPECT_EQ(v.num_warps, 8);  // num_warps from the heuristic
  LaunchConfig c;
  c.grid = {64, 1, 1};
  f(c, x, x, 1000, 1024);
  EXPECT_EQ(last_launch().block_x, 128u);
}

TEST(Decorated, EveryParameterPassedBypassesTheDecorators) {
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  LaunchConfig c;
  c.num_warps = 2;
  auto v = f.warmup(c, x, x, 4096, 2.0f, 32, false);
  EXPECT_NE(v.signature.find("BLOCK=32, EVEN=False"), std::string::npos) << v.signature;
  EXPECT_EQ(v.num_warps, 2);
}

TEST(Decorated, AWrongCountNamesWhatTheDecoratorsSet) {
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  EXPECT_EQ(error_of([&] { f.warmup(LaunchConfig{}, x, x, 4096); }),
            "scale_tuned: expected 4 arguments (x_ptr, out_ptr, n, factor), got 3; BLOCK come from "
            "@triton.autotune and EVEN from @triton.heuristics (pass all 6 parameters to set them yourself)");
}

TEST(Decorated, ConcurrentFirstCallsWithOneKeyTuneOnce) {
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  constexpr int kThreads = 8;
  std::barrier start(kThreads);
  const auto before = f.stats().tunings;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      try {
        f(grid_by_block(), x, x, 2048, 1.0f);  // a key no other test uses
      } catch (...) {
        ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(f.stats().tunings, before + 1);
}

TEST(Decorated, TheKeyHoldsTheTensorDtypes) {
  auto& f = kernel("scale_tuned");
  const auto before = f.stats().tunings;
  f(grid_by_block(), device_pointer(g_x, DType::kFloat32), device_pointer(g_out, DType::kFloat32), 512, 1.0f);
  f(grid_by_block(), device_pointer(g_x, DType::kFloat16), device_pointer(g_out, DType::kFloat16), 512, 1.0f);
  f(grid_by_block(), device_pointer(g_x, DType::kFloat16), device_pointer(g_out, DType::kFloat16), 512, 1.0f);
  EXPECT_EQ(f.stats().tunings, before + 2);
}

TEST(Decorated, TuningLeavesTheCallersDataAsItWas) {
  auto& f = kernel("accumulate");
  static float total[4] = {42.0f, 0, 0, 0};
  auto x = device_pointer(g_x, DType::kFloat32);
  const auto fills_before = fills();
  f(grid_by_block(), x, device_pointer(total, DType::kFloat32, -2, sizeof(float)), 4096);
  EXPECT_GT(fills(), fills_before);  // zeroed before each benchmarked run, as reset_to_zero says
  EXPECT_EQ(total[0], 42.0f);        // and the caller's value put back before the real launch
  EXPECT_EQ(f.stats().tunings, 1u);
}

TEST(Decorated, ATensorToSaveWithoutASizeIsAClearError) {
  auto& f = kernel("accumulate");
  static float total[4];
  auto message = error_of(
      [&] { f(grid_by_block(), device_pointer(g_x, DType::kFloat32), device_pointer(total, DType::kFloat32), 999); });
  EXPECT_NE(message.find("accumulate: tuning must save argument 'total_ptr' (reset_to_zero), and its size is unknown"),
            std::string::npos)
      << message;
}

TEST(Decorated, AutotuneOffUsesTheFirstConfig) {
  triton_jit::set_autotune_enabled(false);
  auto& f = kernel("scale_tuned");
  const auto before = f.stats().tunings;
  f(grid_by_block(), device_pointer(g_x, DType::kFloat32), device_pointer(g_out, DType::kFloat32), 777, 1.0f);
  EXPECT_EQ(last_launch().block_x, 64u);  // config 0: num_warps=2
  EXPECT_EQ(f.stats().tunings, before);
  triton_jit::set_autotune_enabled(true);
}

TEST(Decorated, AnUntunedKeyOfflineIsAnErrorOrTheFallback) {
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  triton_jit::set_offline(true);
  auto message = error_of([&] { f(grid_by_block(), x, x, 333, 1.0f); });
  EXPECT_NE(message.find("scale_tuned: no tuned config for key (n=333, *fp32, *fp32) on fake, and tuning is "
                         "disabled (offline mode)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("TRITON_JIT_AUTOTUNE_FALLBACK"), std::string::npos);
  triton_jit::set_autotune_fallback(3);
  triton_jit::set_offline(false);
  f.warmup(LaunchConfig{}, x, x, 333, 1.0f);  // compile while online
  triton_jit::set_offline(true);
  f(grid_by_block(), x, x, 333, 1.0f);
  EXPECT_EQ(last_launch().block_x, 128u);  // config 3: BLOCK=512, num_warps=4
  triton_jit::set_autotune_fallback(-1);
  triton_jit::set_offline(false);
}

TEST(Decorated, PruneConfigsByRunsInPython) {
  auto& f = kernel("pruned");
  auto x = device_pointer(g_x, DType::kFloat32);
  f(grid_by_block(), x, x, 256);
  auto choice = f.autotune_choice(LaunchConfig{}, x, x, 256);
  ASSERT_TRUE(choice.has_value());
  EXPECT_NE(choice->config, 2);  // BLOCK=1024 is pruned for n=256
}

TEST(Decorated, AHeuristicOutsideTheSubsetRunsInPython) {
  auto& f = kernel("python_heuristic");
  auto x = device_pointer(g_x, DType::kFloat32);
  EXPECT_NE(f.warmup(LaunchConfig{}, x, x, 10).signature.find("BLOCK=256"), std::string::npos);  // (10 % 7 + 1) * 64
  triton_jit::set_offline(true);
  auto message = error_of([&] { f.warmup(LaunchConfig{}, x, x, 11); });
  EXPECT_NE(message.find("python_heuristic: heuristic 'BLOCK' needs Python"), std::string::npos) << message;
  triton_jit::set_offline(false);
}

TEST(Decorated, StringOperationsOnArgumentsAreComputedByPythonNotRefused) {
  auto& f = kernel("string_heuristics");
  auto x = device_pointer(g_x, DType::kFloat32);
  auto v = f.warmup(LaunchConfig{}, x, x, 100, std::string_view("relu"), std::string_view("_tagged"));
  EXPECT_NE(v.signature.find("TAGGED='relu_tagged'"), std::string::npos) << v.signature;
  EXPECT_NE(v.signature.find("LATE=True"), std::string::npos) << v.signature;
  v = f.warmup(LaunchConfig{}, x, x, 100, std::string_view("gelu"), std::string_view("h"));
  EXPECT_NE(v.signature.find("LATE=False"), std::string::npos) << v.signature;
  triton_jit::set_offline(true);
  auto message =
      error_of([&] { f.warmup(LaunchConfig{}, x, x, 100, std::string_view("silu"), std::string_view("x")); });
  EXPECT_NE(message.find("string_heuristics: heuristic 'TAGGED' needs Python ('+' of 'str' and 'str'), and Python is "
                         "not used in offline mode"),
            std::string::npos)
      << message;
  triton_jit::set_offline(false);
}

// Note [Decorated call memo]: a repeated call takes what the decorators set from the memo; it
// must be what they would set now, for every argument value, and after a config is forced.
TEST(DecoratedMemo, RepeatedCallsGetWhatTheDecoratorsWouldSet) {
  auto& f = const_cast<TritonJITFunction&>(kernel("scale_tuned"));
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  WatchLaunches watch;
  f.force_autotune_config(1);  // BLOCK=128, num_warps=4
  for (int i = 0; i < 40; ++i) {
    const int64_t n = i % 2 ? 4096 : 4000;
    f(grid_by_block(), x, out, n, 2.0f);
    EXPECT_EQ(last_launch().grid[0], (n + 127) / 128) << i;  // the grid function reads the remembered BLOCK
    EXPECT_EQ(last_launch().block_x, 128u);
    EXPECT_TRUE(launched(i % 2 ? "BLOCK=128, EVEN=True" : "BLOCK=128, EVEN=False")) << i << ": " << g_launched;
  }
  f.force_autotune_config(2);  // BLOCK=256, num_warps=8: remembered choices of config 1 must not answer
  f(grid_by_block(), x, out, 4096, 2.0f);
  EXPECT_EQ(last_launch().grid[0], 16u);
  EXPECT_EQ(last_launch().block_x, 256u);
  EXPECT_TRUE(launched("BLOCK=256, EVEN=True")) << g_launched;
  f.force_autotune_config(1);
  f(grid_by_block(), x, out, 4096, 2.0f);
  EXPECT_EQ(last_launch().block_x, 128u);
  f.force_autotune_config(-1);
  LaunchConfig warps;  // the caller's options are part of what is remembered
  warps.grid = {1, 1, 1};
  warps.num_warps = 2;
  f.force_autotune_config(3);  // BLOCK=512, num_warps=4, num_stages=2: the config's options win
  f(warps, x, out, 4096, 2.0f);
  f(warps, x, out, 4096, 2.0f);
  EXPECT_EQ(last_launch().block_x, 128u);
  f.force_autotune_config(-1);
}

TEST(DecoratedMemo, AParameterSetBetweenTheCallersIsPlacedRight) {
  auto& f = kernel("block_between");
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  WatchLaunches watch;
  set_recording(true, 3);
  LaunchConfig c;
  c.grid = {1, 1, 1};
  for (int i = 0; i < 6; ++i) {
    const int64_t n = i % 2 ? 100 : 5000;
    f(c, x, out, n);
    EXPECT_TRUE(launched(i % 2 ? "BLOCK=128" : "BLOCK=1024")) << i << ": " << g_launched;
    EXPECT_EQ(last_launch().params[0], reinterpret_cast<uint64_t>(g_x));
    EXPECT_EQ(last_launch().params[1], reinterpret_cast<uint64_t>(g_out));
    EXPECT_EQ(static_cast<int32_t>(last_launch().params[2]), n);
  }
  set_recording(true, 0);
}

// A string constexpr the caller passes is remembered by its text, not its address: calls with
// equal text in different buffers share an entry, calls with other text launch their own variant.
TEST(DecoratedMemo, CallsWithStringArgumentsAreRememberedByTheirText) {
  auto& f = const_cast<TritonJITFunction&>(kernel("activated"));
  auto x = device_pointer(g_x, DType::kFloat32, 0);
  auto out = device_pointer(g_out, DType::kFloat32, 0);
  WatchLaunches watch;
  f.force_autotune_config(0);
  triton_jit::set_stats_enabled(true);
  const auto before = f.stats();
  for (int i = 0; i < 12; ++i) {  // in runs of four, as above
    const bool relu = i / 4 != 1;
    const std::string activation = relu ? std::string("re") + "lu" : std::string();  // a new buffer each call
    f(grid_by_block(), x, out, 1000, activation);
    EXPECT_TRUE(launched(relu ? "ACTIVATION='relu'" : "ACTIVATION=''")) << i << ": " << g_launched;
  }
  const auto after = f.stats();
  triton_jit::set_stats_enabled(false);
  f.force_autotune_config(-1);
  EXPECT_EQ(after.hits - before.hits, 12u);
  EXPECT_GE(after.remembered - before.remembered, 9u) << "the memo answered the repeated calls";
}

// The memo keeps the variant a call launched, so what else selects a variant is part of what it
// remembers: a tensor's 16-byte alignment. A misaligned tensor must not get the aligned variant,
// and the checks the encoder makes still run.
TEST(DecoratedMemo, ARepeatedCallLaunchesTheVariantItsArgumentsSelect) {
  auto& f = const_cast<TritonJITFunction&>(kernel("scale_tuned"));
  auto aligned = device_pointer(g_x, DType::kFloat32, 0);
  auto misaligned = device_pointer(g_x + 1, DType::kFloat32, 0);
  auto out = device_pointer(g_out, DType::kFloat32, 0);
  WatchLaunches watch;
  f.force_autotune_config(1);  // BLOCK=128
  set_recording(true, 1);
  triton_jit::set_stats_enabled(true);
  const auto before = f.stats();
  // In runs of four: the two calls' entries may be the same one, each replacing the other.
  for (int i = 0; i < 12; ++i) {
    const bool off = i / 4 == 1;
    f(grid_by_block(), off ? misaligned : aligned, out, 4096, 2.0f);
    EXPECT_TRUE(launched(off ? "x_ptr: *fp32, " : "x_ptr: *fp32:16, ")) << i << ": " << g_launched;
    EXPECT_TRUE(launched("BLOCK=128, EVEN=True")) << i << ": " << g_launched;
    EXPECT_EQ(last_launch().params[0], reinterpret_cast<uint64_t>(off ? g_x + 1 : g_x)) << i;
  }
  const auto after = f.stats();
  triton_jit::set_stats_enabled(false);
  set_recording(true, 0);
  EXPECT_EQ(after.hits - before.hits, 12u);
  EXPECT_GE(after.remembered - before.remembered, 9u) << "the memo answered the repeated calls";

  auto elsewhere = device_pointer(g_out, DType::kFloat32, 1);
  const std::string message = error_of([&] { f(grid_by_block(), aligned, elsewhere, 4096, 2.0f); });
  EXPECT_NE(message.find("scale_tuned: argument 1 'out_ptr'"), std::string::npos) << message;
  EXPECT_NE(message.find("expected a CUDA tensor on device 0, got a tensor on CUDA device 1"), std::string::npos)
      << message;
  f.force_autotune_config(-1);
}

// Fused norms in real libraries take 38 parameters and more, most of them None or flags on a
// given call: such a call is remembered like a short one, and gets the same variant.
TEST(DecoratedMemo, ACallOfThirtyEightParametersIsRemembered) {
  auto& f = const_cast<TritonJITFunction&>(kernel("wide_norm_tuned"));
  auto x = device_pointer(g_x, DType::kFloat32, 0);
  auto y = device_pointer(g_out, DType::kFloat32, 0);
  auto w = device_pointer(g_x + 4096, DType::kFloat32, 0);
  auto stats_out = device_pointer(g_out + 4096, DType::kFloat32, 0);
  WatchLaunches watch;
  f.force_autotune_config(2);
  triton_jit::set_stats_enabled(true);
  const auto before = f.stats();
  std::string first;
  for (int i = 0; i < 12; ++i) {
    LaunchConfig c;
    c.grid = {4, 1, 1};
    f(c, x, y, w, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      nullptr, stats_out, 1024, 1024, 0, 0, 0, 0, 4, 1000, 1e-6f, 0.0f, 0, true, 1024, false, false, false, false,
      false, false, false, false, false);
    if (i == 0) first = g_launched;
    EXPECT_EQ(g_launched, first) << i;
  }
  const auto after = f.stats();
  triton_jit::set_stats_enabled(false);
  f.force_autotune_config(-1);
  EXPECT_NE(first.find("RESIDUAL=None"), std::string::npos) << first;
  EXPECT_NE(first.find("IS_RMS_NORM=True"), std::string::npos) << first;
  EXPECT_EQ(after.hits - before.hits, 12u);
  EXPECT_GE(after.remembered - before.remembered, 11u) << "the memo answered the repeated calls";
}

// Extra compile options are not packed into the memo's inputs, so a call with some keeps no
// variant there: it looks its variant up, and options changed in place select a new one.
TEST(DecoratedMemo, CallsWithCompileOptionsLookTheirVariantUp) {
  auto& f = const_cast<TritonJITFunction&>(kernel("scale_tuned"));
  auto x = device_pointer(g_x, DType::kFloat32, 0);
  auto out = device_pointer(g_out, DType::kFloat32, 0);
  f.force_autotune_config(1);
  triton_jit::CompileOptions options;
  options.set("sanitize_overflow", false);
  LaunchConfig c = grid_by_block();
  c.compile_options = &options;
  triton_jit::set_stats_enabled(true);
  f(c, x, out, 4096, 2.0f);
  const auto before = f.stats();
  f(c, x, out, 4096, 2.0f);
  f(c, x, out, 4096, 2.0f);
  auto after = f.stats();
  EXPECT_EQ(after.hits - before.hits, 2u);
  EXPECT_EQ(after.remembered, before.remembered) << "no variant is kept for calls with extra options";
  options.set("sanitize_overflow", true);  // the same object, other options: another variant
  f(c, x, out, 4096, 2.0f);
  after = f.stats();
  triton_jit::set_stats_enabled(false);
  EXPECT_EQ(after.compiles, before.compiles + 1);
  EXPECT_EQ(last_launch().block_x, 128u);
  f.force_autotune_config(-1);
}

// Entries are seqlocks: threads that keep replacing them (more keys than entries) while others
// read must each get what the decorators would set for their own call.
thread_local std::string t_launched;
void note_launch_here(const triton_jit::LaunchInfo& info, void*) { t_launched = info.signature; }

TEST(DecoratedMemo, ThreadsReplacingEntriesEachGetTheirOwnCallsValues) {
  auto& f = const_cast<TritonJITFunction&>(kernel("scale_tuned"));
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  f.force_autotune_config(1);  // BLOCK=128
  triton_jit::set_launch_hooks(&note_launch_here, nullptr, nullptr);
  constexpr int kThreads = 4, kCalls = 300, kSizes = 24;  // three times the memo's entries
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const int64_t n = 128 * (1 + (i * 7 + t) % kSizes) + ((i + t) % 2 ? 0 : 5);
        f(grid_by_block(), x, out, n, 2.0f);
        const bool even = t_launched.find(n % 128 == 0 ? "EVEN=True" : "EVEN=False") != std::string::npos;
        if (!even || t_launched.find("BLOCK=128") == std::string::npos) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  triton_jit::set_launch_hooks(nullptr, nullptr, nullptr);
  f.force_autotune_config(-1);
  EXPECT_EQ(wrong.load(), 0);
}

TEST(DecoratedMemo, ARepeatedDecoratedCallAllocatesNothing) {
  if (!kAllocationCountingAvailable) GTEST_SKIP() << "allocation counting is off under sanitizers";
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  f(grid_by_block(), x, out, 2048, 2.0f);  // tunes the key, compiles
  f(grid_by_block(), x, out, 2048, 2.0f);
  long allocations;
  {
    CountAllocations counter;
    for (int i = 0; i < 1000; ++i) f(grid_by_block(), x, out, 2048, 2.0f);
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0);
}

TEST(Decorated, ABadCompileThreadsSettingIsAnErrorNotAGuess) {
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  setenv("TRITON_JIT_COMPILE_THREADS", "many", 1);
  const std::string message = error_of([&] { f(grid_by_block(), x, x, 5 * 4096 + 64, 2.0f); });  // a new key
  unsetenv("TRITON_JIT_COMPILE_THREADS");
  EXPECT_EQ(message, "TRITON_JIT_COMPILE_THREADS='many': expected a positive number of threads");
}

int main(int argc, char** argv) {
  setenv("TRITON_JIT_CUDA_DRIVER", triton_jit::test::kFakeDriver, 1);
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

TEST(Decorated, ATupleArgumentGoesThroughTheDecoratorsToTheLaunch) {
  // Note [Decorators over tuples]. The prune reads the tuple (its length keeps BLOCK <= 128), so
  // the config the stand-in device runs fastest (BLOCK=512, 256 threads) is never timed.
  FastBlock fast("256");
  auto& f = kernel("pair_sum");
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  WatchLaunches watch;
  f(grid_by_block(), std::make_tuple(x, x), out, 4096);
  EXPECT_TRUE(launched("pair: (*fp32:16, *fp32:16), out_ptr: *fp32:16, n: i32:16")) << g_launched;
  EXPECT_TRUE(launched("EVEN=True")) << g_launched;
  EXPECT_FALSE(launched("BLOCK=512")) << g_launched;
  const auto v = f.warmup(LaunchConfig{}, std::make_tuple(x, x), out, 4000);
  EXPECT_NE(v.signature.find("EVEN=False"), std::string::npos) << v.signature;
  // From a raw signature too, as a generated launcher passes it.
  g_launched.clear();
  float* data = g_x;
  int32_t n = 4096;
  void* raw[] = {&data, &data, &data, &n};
  f.launch_with_raw_args(nullptr, 64, 1, 1, 4, 3, "(*fp32:16,*fp32:16),*fp32:16,i32:16", raw);
  EXPECT_TRUE(launched("pair: (*fp32:16, *fp32:16), out_ptr: *fp32:16, n: i32:16")) << g_launched;
  if (kAllocationCountingAvailable) {  // the decorators run on every such call, without allocating
    CountAllocations counter;
    for (int i = 0; i < 100; ++i) f(grid_by_block(), std::make_tuple(x, x), out, 4096);
    EXPECT_EQ(counter.count(), 0);
  }
  const std::string keyed = error_of([&] { kernel("pair_keyed")(grid_by_block(), std::make_tuple(x, x), out, 64); });
  EXPECT_NE(keyed.find("pair_keyed: @triton.autotune's key names 'pair', which is passed a tuple"), std::string::npos)
      << keyed;
}

TEST(Decorated, PrepareTunesCompilesAndLoadsWithoutTheCallsLaunch) {
  // What a CUDA graph capture needs beforehand: after prepare(), the call itself is a launch only.
  FastBlock fast("128");  // config 1
  auto& f = kernel("scale_tuned");
  auto x = device_pointer(g_x, DType::kFloat32);
  auto out = device_pointer(g_out, DType::kFloat32);
  const int64_t n = 3 * 4096 + 128;  // a key no other test tunes
  const auto tunings = f.stats().tunings;
  const triton_jit::VariantInfo info = f.prepare(grid_by_block(), x, out, n, 2.0f);
  EXPECT_EQ(f.stats().tunings, tunings + 1);
  auto choice = f.autotune_choice(LaunchConfig{}, x, out, n, 2.0f);
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->config, 1);
  EXPECT_NE(info.signature.find("fp32"), std::string::npos) << info.signature;
  const auto launches = stand_in<uint64_t()>("fake_cuda_launch_count")();
  const auto compiles = f.stats().compiles;
  f(grid_by_block(), x, out, n, 2.0f);
  EXPECT_EQ(stand_in<uint64_t()>("fake_cuda_launch_count")() - launches, 1u)
      << "the call after prepare() only launches";
  EXPECT_EQ(f.stats().compiles, compiles);
  EXPECT_EQ(f.stats().tunings, tunings + 1);
}
