// libtriton_jit's call forms on CPU, against the stand-in driver: raw launches with a signature
// text reach the driver with the same parameters a typed call sends, claims the values contradict
// and malformed texts are errors naming the parameter, compile(signature, ...) builds the variant a
// raw launch then uses, and the CompileOptions call form takes its num_warps and extra options.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include <triton_jit/backend_config.h>
#include <triton_jit/jit_utils.h>
#include <triton_jit/triton_jit.h>

#include "../common/allocation_counter.h"
#include "../common/fresh_cache.h"
#include "../common/stand_in_driver.h"
#include "../common/test_paths.h"

using triton_jit::device_pointer;
using triton_jit::DType;
using triton_jit::TritonJITFunction;

namespace {

const std::string kKernels = triton_jit::test::kKernelsDir;
alignas(64) float g_buffer[4096];

const TritonJITFunction& pointwise() {
  return TritonJITFunction::get_instance(kKernels + "/parity_kernels.py", "pointwise");
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const triton_jit::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(RawLaunch, ReachesTheDriverWithTheParametersOfTheTypedCall) {
  set_recording(true, 6);
  float* x = g_buffer;
  float* y = g_buffer + 1024;
  float* out = g_buffer + 2048;
  int64_t n = 4000;
  void* scratch = nullptr;
  void* args[] = {&x, &y, &out, &n, &scratch, &scratch};
  const CUstream stream = nullptr;
  pointwise().launch_with_raw_args(stream, 4, 1, 1, 4, 3, "*fp32:16,*fp32:16,*fp32:16,i64,1024", args, 6);
  const FakeLaunch raw = last_launch();
  pointwise()(nullptr, 4, 1, 1, 4, 3, device_pointer(x, DType::kFloat32), device_pointer(y, DType::kFloat32),
              device_pointer(out, DType::kFloat32), n, 1024);
  const FakeLaunch typed = last_launch();
  EXPECT_EQ(raw.block_x, typed.block_x);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(raw.params[i], typed.params[i]) << "parameter " << i;
  EXPECT_EQ(static_cast<uint32_t>(raw.params[3]), 4000u) << "an i64 that fits is an i32, as in Triton's Python";
  EXPECT_EQ(raw.grid[0], 4u);
}

TEST(RawLaunch, TheTextIsParsedOnceAndAHitAllocatesNothing) {
  if (!kAllocationCountingAvailable) GTEST_SKIP() << "allocation counting is off under sanitizers";
  set_recording(false, 0);
  float* p = g_buffer;
  int32_t n = 8192;
  void* args[] = {&p, &p, &p, &n};
  const std::string signature = "*fp32:16,*fp32:16,*fp32:16,i32:16,512";
  const TritonJITFunction& f = pointwise();
  f.launch_with_raw_args(nullptr, 8, 1, 1, 4, 3, signature, args);  // parses, compiles, loads
  const uint64_t launches = launch_count();
  long allocations;
  {
    CountAllocations counter;
    for (int i = 0; i < 1000; ++i) f.launch_with_raw_args(nullptr, 8, 1, 1, 4, 3, signature, args);
    allocations = counter.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(launch_count(), launches + 1000);
  set_recording(true, 0);
}

TEST(RawLaunch, AClaimTheValueContradictsIsAnErrorNamingTheParameter) {
  float* p = g_buffer;
  float* odd = g_buffer + 1;  // 4-byte aligned only
  int32_t n = 4001;
  void* args[] = {&p, &p, &odd, &n};
  const std::string misaligned = error_of(
      [&] { pointwise().launch_with_raw_args(nullptr, 1, 1, 1, 4, 3, "*fp32:16,*fp32:16,*fp32:16,i32,1024", args); });
  EXPECT_EQ(misaligned.rfind("pointwise: launch_with_raw_args: parameter 2 ('out_ptr'): the signature "
                             "'*fp32:16,*fp32:16,*fp32:16,i32,1024' claims 16-byte alignment, but the pointer is 0x",
                             0),
            0u)
      << misaligned;
  void* args2[] = {&p, &p, &p, &n};
  const std::string message = error_of(
      [&] { pointwise().launch_with_raw_args(nullptr, 1, 1, 1, 4, 3, "*fp32,*fp32,*fp32,i32:16,1024", args2); });
  EXPECT_NE(message.find("parameter 3 ('n_elements')"), std::string::npos) << message;
  EXPECT_NE(message.find("claims divisibility by 16, but the value is 4001"), std::string::npos) << message;
}

TEST(RawLaunch, MalformedSignaturesAndCountsAreErrors) {
  float* p = g_buffer;
  int32_t n = 16;
  void* args[] = {&p, &p, &p, &n};
  auto raw = [&](const char* signature, std::size_t num_args = 0, void** given = nullptr) {
    return error_of(
        [&] { pointwise().launch_with_raw_args(nullptr, 1, 1, 1, 4, 3, signature, given ? given : args, num_args); });
  };
  EXPECT_NE(raw("*fp32,*fp32,*fp32,i32,1024,7").find("the signature has 6 parameters, the kernel takes at most 5"),
            std::string::npos);
  EXPECT_NE(raw("*fp32,*fp32,*fp32,i33,1024").find("parameter 3 ('n_elements') of the signature is 'i33': not a type"),
            std::string::npos);
  EXPECT_NE(raw("*fp32,*fp32,(*fp32,i32,1024").find("unbalanced parentheses"), std::string::npos);
  // Nesting is bounded before the parser recurses: 40,000 levels once overflowed the stack.
  for (std::size_t levels : {17u, 40000u}) {
    const std::string deep = "*fp32,*fp32,*fp32," + std::string(levels, '(') + "1" + std::string(levels, ')') + ",1024";
    EXPECT_NE(raw(deep.c_str()).find("tuples nest deeper than 16 levels"), std::string::npos) << levels;
  }
  std::string wide = "*fp32,*fp32,*fp32,(";
  for (int i = 0; i < 200; ++i) wide += "1,";
  wide += "1),1024";
  EXPECT_NE(raw(wide.c_str()).find("more than 128 values with its tuples' elements"), std::string::npos);
  EXPECT_NE(raw("*fp32,*fp32,*fp32,fp16,1024").find("a 16- or 8-bit float scalar cannot be passed"), std::string::npos);
  EXPECT_NE(raw("*fp32:1,*fp32,*fp32,i32,1024").find("a pointer cannot be specialised to 1"), std::string::npos);
  EXPECT_NE(raw("*fp32,*fp32,*fp32,i32,1024", 7)
                .find("takes 4 values (and up to 2 scratch pointers after them), but "
                      "num_args is 7"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              pointwise().launch_with_raw_args(nullptr, 1, 1, 1, 4, 3, "*fp32,*fp32,*fp32,i32,1024", nullptr);
            }).find("args is null, but the signature"),
            std::string::npos);
}

TEST(RawLaunch, ConstexprsTheTextFixesAndTheOneSpecialisationPassNothing) {
  set_recording(true, 5);
  float* p = g_buffer;
  void* args[] = {&p, &p, &p};  // n_elements is ":1", BLOCK_SIZE the text's 256
  pointwise().launch_with_raw_args(nullptr, 1, 1, 1, 4, 3, "*fp32:16,*fp32:16,*fp32:16,i32:1,256", args, 3);
  const FakeLaunch l = last_launch();
  EXPECT_EQ(l.params[0], reinterpret_cast<uint64_t>(p));
  EXPECT_EQ(l.params[3], 0u) << "n_elements == 1 is a constexpr: the next parameter is the global scratch pointer";
}

TEST(RawLaunch, CompileBuildsTheVariantARawLaunchThenUses) {
  const std::string signature = "*fp32:16,*fp32:16,*fp32:16,i64,128";
  const triton_jit::VariantInfo info = pointwise().compile(signature, 2, 3, 0);
  EXPECT_NE(info.signature.find("n_elements: i32, BLOCK_SIZE=128"), std::string::npos) << info.signature;
  EXPECT_EQ(info.num_warps, 2);
  const uint64_t compiles = pointwise().stats().compiles;
  float* p = g_buffer;
  int64_t n = 1001;  // neither 1 nor a multiple of 16, as compile() assumed
  void* args[] = {&p, &p, &p, &n};
  pointwise().launch_with_raw_args(nullptr, 1, 1, 1, 2, 3, signature, args);
  EXPECT_EQ(pointwise().stats().compiles, compiles) << "the launch found compile()'s variant";
}

TEST(RawLaunch, AJitFunctionTokenPassesTheFunction) {
  const auto& apply = TritonJITFunction::get_instance(kKernels + "/jit_function_kernels.py", "apply");
  static const triton_jit::JitFunctionArg relu(kKernels + "/activations.py", "relu");
  EXPECT_EQ(relu.function_name(), "relu");
  EXPECT_EQ(relu.module_path(), relu.file());
  float* p = g_buffer;
  int32_t n = 4096;
  void* args[] = {&p, &p, &n};
  const std::string signature = "*fp32:16,*fp32:16,i32:16," + relu.signature_token() + ",1024";
  const triton_jit::VariantInfo info = apply.compile(signature, 4, 3, 0);
  EXPECT_NE(info.signature.find("relu"), std::string::npos) << info.signature;
  apply.launch_with_raw_args(nullptr, 4, 1, 1, 4, 3, signature, args);
  EXPECT_EQ(apply.stats().compiles, 1u);
}

TEST(CompileOptionsCallForm, TakesNumWarpsAndTheExtraOptions) {
  set_recording(true, 0);
  auto p = device_pointer(g_buffer, DType::kFloat32);
  triton_jit::CompileOptions options;
  options.num_warps = 2;
  options.num_stages = 2;
  pointwise()(nullptr, 1, 1, 1, options, p, p, p, 4096, 64);
  EXPECT_EQ(last_launch().block_x, 64u);
  options.extra["enable_fp_fusion"] = "false";  // a LaunchConfig field: a variant of its own
  const uint64_t compiles = pointwise().stats().compiles;
  pointwise()(nullptr, 1, 1, 1, options, p, p, p, 4096, 64);
  EXPECT_EQ(pointwise().stats().compiles, compiles + 1);
  options.extra["not_an_option_of_triton"] = "1";
  const std::string message = error_of([&] { pointwise()(nullptr, 1, 1, 1, options, p, p, p, 4096, 64); });
  EXPECT_NE(message.find("not_an_option_of_triton"), std::string::npos) << message;
  options.extra.erase("not_an_option_of_triton");
  options.extra["num_ctas"] = "three";
  EXPECT_EQ(error_of([&] { pointwise()(nullptr, 1, 1, 1, options, p, p, p, 4096, 64); }),
            "CompileOptions::extra: 'num_ctas' must be a non-negative integer, got 'three'");
  triton_jit::LaunchConfig c;
  c.compile_options = &options;
  EXPECT_NE(error_of([&] { pointwise()(c, p, p, p, 4096, 64); }).find("LaunchConfig::compile_options has num_warps"),
            std::string::npos);
}

TEST(JitUtils, SignatureHelpersSpellWhatLibtritonJitSpelled) {
  EXPECT_STREQ(triton_jit::spec(int64_t{32}), ":16");
  EXPECT_STREQ(triton_jit::spec(1), ":1");
  EXPECT_STREQ(triton_jit::spec(7u), "");
  EXPECT_STREQ(triton_jit::triton_type<int64_t>::name, "i64");
  EXPECT_STREQ(triton_jit::triton_type<const float&>::name, "fp32");
  EXPECT_STREQ(triton_jit::triton_type<bool>::name, "i1");
  EXPECT_EQ(triton_jit::join_sig(std::vector<std::string>{"*fp32:16", "i32", "1024"}), "*fp32:16,i32,1024");
  EXPECT_EQ(triton_jit::get_next_multiple_of(13, 8), 16);
  static_assert(std::is_same_v<triton_jit::DefaultStreamType, CUstream>);
}

int main(int argc, char** argv) {
  setenv("TRITON_JIT_CUDA_DRIVER", triton_jit::test::kFakeDriver, 1);
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
