// Compiling real kernels through the embedded interpreter, with no GPU: static signatures,
// cubins for sm_90, the variant cache, and every error a user can make.
#include <gtest/gtest.h>

#include <algorithm>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>

#include <triton_jit/triton_jit.h>

#include "../common/fresh_cache.h"
#include "../common/test_paths.h"

#include "../common/error_of.h"
#include "cubin_inspect.h"

using triton_jit::device_pointer;
using triton_jit::DType;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

namespace {

const std::string kKernels = triton_jit::test::kKernelsDir;

std::string kernel(const char* file) { return kKernels + "/" + file; }

// Host addresses stand in for device pointers: warmup reads only their alignment.
alignas(64) float g_buffer[1024];
auto aligned_f32() { return device_pointer(g_buffer, DType::kFloat32); }
auto misaligned_f32() { return device_pointer(g_buffer + 1, DType::kFloat32); }

LaunchConfig sm90() {
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
  LaunchConfig c;
  c.num_warps = 4;
  c.num_stages = 3;
  return c;
}

void expect_cubin(const triton_jit::VariantInfo& v) {
  ASSERT_TRUE(cubin::is_elf64(v.cubin));
  EXPECT_EQ(cubin::header(v.cubin).e_machine, cubin::kMachineCuda);
  EXPECT_TRUE(cubin::has_symbol(v.cubin, v.kernel_name)) << v.kernel_name;
  EXPECT_EQ(cubin::kernel_param_count(v.cubin, v.kernel_name), v.num_kernel_params) << v.signature;
  EXPECT_EQ(v.target, "cuda:90");
}

}  // namespace

TEST(StaticSignature, ReadsKindsAnnotationsAndDefaults) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "annotated");
  auto params = f.params();
  ASSERT_EQ(params.size(), 11u);
  EXPECT_EQ(params[2].annotation, "i64");
  EXPECT_EQ(params[3].annotation, "u32");
  // Triton 3.3 specialises on integer annotations only; pointer, float and bool ones from 3.4 on.
  auto& probe = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  const std::string version =
      probe.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), 4096, 256).triton_version;
  if (!version.starts_with("3.3.")) {
    EXPECT_EQ(params[0].annotation, "*fp32");
    EXPECT_EQ(params[5].annotation, "fp16");
    EXPECT_EQ(params[6].annotation, "u1");
  }
  EXPECT_EQ(params[7].kind, "constexpr");
  EXPECT_TRUE(params[7].has_default);
  EXPECT_FALSE(params[6].has_default);

  auto& ns = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "no_specialize");
  auto nsp = ns.params();
  EXPECT_EQ(nsp[0].kind, "do_not_specialize_on_alignment");
  EXPECT_EQ(nsp[2].kind, "do_not_specialize");
  EXPECT_EQ(nsp[3].kind, "do_not_specialize_on_alignment");
  EXPECT_EQ(nsp[1].kind, "specialized");
}

TEST(StaticSignature, UnwrapsAutotuneAndHeuristics) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "tuned");
  EXPECT_EQ(f.name(), "tuned");
  EXPECT_EQ(f.params().size(), 5u);
  // The single autotune config supplies num_warps=8 when the call leaves it at 0.
  LaunchConfig c = sm90();
  c.num_warps = 0;
  c.num_stages = 0;
  auto v = f.warmup(c, aligned_f32(), aligned_f32(), 4096, 256, true);
  EXPECT_EQ(v.num_warps, 8);
  expect_cubin(v);
}

// Options of the installed Triton by name: part of the variant (equal options in another object
// find it again), checked by that Triton when the variant compiles.
TEST(CompileOptions, SelectTheVariantAndAreCheckedByTheInstalledTriton) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  LaunchConfig c = sm90();
  auto plain = f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 512);
  const auto compiles = f.stats().compiles;
  const auto unchecked = triton_jit::CompileOptions().set("sanitize_overflow", false).set("ptx_version", 84);
  c.compile_options = &unchecked;
  auto v = f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 512);
  EXPECT_EQ(f.stats().compiles, compiles + 1);
  EXPECT_EQ(v.signature, plain.signature);
  const auto same = triton_jit::CompileOptions().set("ptx_version", 84).set("sanitize_overflow", false);
  EXPECT_EQ(same.digest(), unchecked.digest());
  EXPECT_EQ(same.text(), "ptx_version=84, sanitize_overflow=False");
  c.compile_options = &same;
  EXPECT_EQ(f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 512).cubin, v.cubin);
  EXPECT_EQ(f.stats().compiles, compiles + 1);
  const auto empty = triton_jit::CompileOptions();
  c.compile_options = &empty;  // no options: the plain variant
  EXPECT_EQ(f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 512).cubin, plain.cubin);
  EXPECT_EQ(f.stats().compiles, compiles + 1);

  const auto unknown = triton_jit::CompileOptions().set("no_such_option", 1);
  c.compile_options = &unknown;
  try {
    f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 512);
    ADD_FAILURE() << "an option the installed Triton does not have compiled";
  } catch (const triton_jit::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("compile option 'no_such_option' (compile_options) is not an option of the "
                                         "installed Triton 3."),
              std::string::npos)
        << e.what();
  }
  const auto wrong_type = triton_jit::CompileOptions().set("sanitize_overflow", "no");
  c.compile_options = &wrong_type;
  EXPECT_THROW(f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 512), triton_jit::CompileError);
  EXPECT_THROW(triton_jit::CompileOptions().set("num_warps", 8), triton_jit::ValueError);
  EXPECT_THROW(triton_jit::CompileOptions().set("not a name", 8), triton_jit::ValueError);
}

// Every NVIDIA target compiles without a GPU, and the cubin's header names its architecture.
class Targets : public ::testing::TestWithParam<const char*> {};

TEST_P(Targets, CompileForTheirArchitectureWithoutAGpu) {
  const std::string target = std::string("cuda:") + GetParam();
  setenv("TRITON_JIT_TARGET", target.c_str(), 1);
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  LaunchConfig c;
  c.num_warps = 4;
  auto v = f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 256);
  setenv("TRITON_JIT_TARGET", "cuda:90", 1);
  EXPECT_EQ(v.target, target);
  ASSERT_TRUE(cubin::is_elf64(v.cubin));
  EXPECT_EQ(cubin::header(v.cubin).e_machine, cubin::kMachineCuda);
  // The library checked the same header when it accepted the compile (check_compiled).
  EXPECT_EQ(cubin::sm(v.cubin), std::atoi(GetParam())) << target;
}

INSTANTIATE_TEST_SUITE_P(Cuda, Targets, ::testing::Values("80", "86", "89", "90", "90a", "100", "100a", "120"),
                         [](const auto& info) { return std::string("sm_") + info.param; });

TEST(StaticSignature, PackageModuleSpecAndRelativeImports) {
  triton_jit::add_kernel_search_path(kKernels);
  auto& by_module = TritonJITFunction::get_instance("pkg.scale:scale_kernel", "");
  auto v = by_module.warmup(sm90(), aligned_f32(), aligned_f32(), 1000, 128);
  expect_cubin(v);
  auto& by_relative_path = TritonJITFunction::get_instance("pkg/scale.py", "scale_kernel");
  expect_cubin(by_relative_path.warmup(sm90(), aligned_f32(), aligned_f32(), 1000, 128));
}

TEST(Compile, ParityKernelsBecomeSm90Cubins) {
  auto& pointwise = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  expect_cubin(pointwise.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), 4096, 1024));
  expect_cubin(pointwise.warmup(sm90(), misaligned_f32(), aligned_f32(), aligned_f32(), int64_t{1} << 40, 256));

  auto& row_sum = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "row_sum");
  expect_cubin(row_sum.warmup(sm90(), aligned_f32(), aligned_f32(), 1024, 1000, 1024));

  auto& matmul = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "matmul");
  auto f16 = device_pointer(g_buffer, DType::kFloat16);
  expect_cubin(matmul.warmup(sm90(), f16, f16, f16, 512, 512, 512, 512, 1, 1, 512, 512, 1, 64, 64, 32));

  auto& no_spec = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "no_specialize");
  expect_cubin(no_spec.warmup(sm90(), aligned_f32(), aligned_f32(), 1, 16, 2.0, 128));

  auto& annotated = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "annotated");
  auto v = annotated.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 7u, 2, 0.5, true);  // trailing defaults
  expect_cubin(v);
  EXPECT_NE(v.signature.find("MODE='fast'"), std::string::npos) << v.signature;
  EXPECT_NE(v.signature.find("n: i64:16"), std::string::npos) << v.signature;

  auto& bias = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "optional_bias");
  expect_cubin(bias.warmup(sm90(), aligned_f32(), std::nullopt, aligned_f32(), 4096, 0.5, true, false, 128));
  expect_cubin(bias.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), 4096, 0.5, false, true, 128));
}

TEST(VariantCache, SameVariantDoesNotRecompile) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "row_sum");
  f.warmup(sm90(), aligned_f32(), aligned_f32(), 2048, 1000, 512);
  auto before = f.stats().compiles;
  for (int i = 0; i < 5; ++i) f.warmup(sm90(), aligned_f32(), aligned_f32(), 4096 + 16 * i, 999, 512);
  EXPECT_EQ(f.stats().compiles, before);
}

TEST(VariantCache, ChangedOptionOrSpecializationRecompiles) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "row_sum");
  f.warmup(sm90(), aligned_f32(), aligned_f32(), 2048, 1000, 256);
  auto before = f.stats().compiles;
  LaunchConfig eight = sm90();
  eight.num_warps = 8;
  EXPECT_EQ(f.warmup(eight, aligned_f32(), aligned_f32(), 2048, 1000, 256).num_warps, 8);
  f.warmup(sm90(), misaligned_f32(), aligned_f32(), 2048, 1000, 256);  // pointer alignment changed
  f.warmup(sm90(), aligned_f32(), aligned_f32(), 2047, 1000, 256);     // divisibility of an int changed
  EXPECT_EQ(f.stats().compiles, before + 3);
}

TEST(Errors, MissingFile) {
  auto message = error_of([] { TritonJITFunction::get_instance(kernel("no_such_file.py"), "k"); });
  EXPECT_NE(message.find("no_such_file.py' not found"), std::string::npos) << message;
  EXPECT_THROW(TritonJITFunction::get_instance(kernel("no_such_file.py"), "k"), triton_jit::LookupError);
}

TEST(Errors, APathWithANulByteIsRefusedNotCutAtTheNul) {
  const std::string path = kernel("parity_kernels.py") + std::string("\0junk", 5);
  const std::string message = error_of([&] { TritonJITFunction::get_instance(path, "pointwise"); });
  EXPECT_NE(message.find("get_instance: the path contains a NUL byte"), std::string::npos) << message;
  EXPECT_THROW(TritonJITFunction::get_instance(kernel("parity_kernels.py"), std::string("add\0x", 5)),
               triton_jit::ValueError);
}

TEST(Errors, MissingFunction) {
  auto message = error_of([] { TritonJITFunction::get_instance(kernel("parity_kernels.py"), "nope"); });
  EXPECT_NE(message.find("has no function 'nope'"), std::string::npos) << message;
}

TEST(Errors, NotAJitFunction) {
  auto message = error_of([] { TritonJITFunction::get_instance(kernel("parity_kernels.py"), "not_a_kernel"); });
  EXPECT_NE(message.find("'not_a_kernel' is not a Triton JIT function"), std::string::npos) << message;
}

// An import failure is reported as one: the file, the line, the exception, in a few lines; the
// Python traceback comes at the debug log level only.
TEST(Errors, ASyntaxErrorNamesTheFileAndTheLine) {
  const std::string message = error_of([] { TritonJITFunction::get_instance(kernel("broken_syntax.py"), "broken"); });
  EXPECT_NE(message.find("broken: importing '" + kernel("broken_syntax.py") + "' failed at line 7: SyntaxError: "),
            std::string::npos)
      << message;
  const char* level = std::getenv("TRITON_JIT_LOG_LEVEL");
  if (level == nullptr || std::string(level) != "debug") {
    EXPECT_EQ(message.find("Traceback"), std::string::npos) << message;
    EXPECT_NE(message.find("TRITON_JIT_LOG_LEVEL=debug adds the Python traceback"), std::string::npos) << message;
  }
}

TEST(Errors, AnExceptionAtImportNamesTheFileTheLineAndTheException) {
  std::string message;
  try {
    TritonJITFunction::get_instance(kernel("fails_at_import.py"), "never_reached");
  } catch (const triton_jit::CompileError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("never_reached: importing '" + kernel("fails_at_import.py") +
                         "' failed at line 7: KeyError: 'large'\n    DEFAULT_BLOCK = BLOCKS[\"large\"]"),
            std::string::npos)
      << message;
  const char* level = std::getenv("TRITON_JIT_LOG_LEVEL");
  if (level != nullptr && std::string(level) == "debug") {
    EXPECT_NE(message.find("Traceback"), std::string::npos) << message;
  } else {
    EXPECT_LT(std::count(message.begin(), message.end(), '\n'), 4) << message;
  }
}

// Note: modules that ask Triton's driver at import (the target, the device) load and warm up on a
// machine without a GPU: the driver answers with the configured target (TRITON_JIT_TARGET).
TEST(CompileOnly, AModuleThatAsksTheDriverAtImportGetsTheConfiguredTarget) {
  if (triton_jit::cuda_available()) GTEST_SKIP() << "a machine without a GPU tells what the driver answers then";
  const auto& f = TritonJITFunction::get_instance(kernel("asks_the_driver.py"), "scaled_by_target");
  EXPECT_EQ(f.autotune_configs().size(), 2u);  // is_hopper() held for cuda:90
  alignas(16) static float x[256];
  triton_jit::LaunchConfig c;
  c.grid = {1, 1, 1};
  const auto info = f.warmup(c, triton_jit::device_pointer(x, triton_jit::DType::kFloat32),
                             triton_jit::device_pointer(x, triton_jit::DType::kFloat32), 256);
  EXPECT_NE(info.signature.find("BLOCK=128"), std::string::npos) << info.signature;
  EXPECT_EQ(info.target, "cuda:90");
}

TEST(CompileOnly, WhatTheDriverCannotAnswerWithoutAGpuIsNamed) {
  if (triton_jit::cuda_available()) GTEST_SKIP() << "a machine without a GPU tells what the driver answers then";
  const std::string message =
      error_of([] { TritonJITFunction::get_instance(kernel("asks_for_properties.py"), "one_per_sm"); });
  EXPECT_NE(message.find("failed at line 6: RuntimeError: the kernel module asks Triton's driver for 'utils' while it "
                         "is imported, and this machine has no GPU"),
            std::string::npos)
      << message;
}

// A library that asks torch.cuda at import (fla's hardware probe) cannot be imported without a GPU;
// the error names the library's own line, not torch's that raised, and what to do.
TEST(CompileOnly, ALibraryAskingTorchCudaAtImportIsNamedAtItsOwnLine) {
  if (triton_jit::cuda_available()) GTEST_SKIP() << "a machine without a GPU tells what the import meets then";
  const std::string message =
      error_of([] { TritonJITFunction::get_instance(kernel("pkg/by_capability.py"), "fill_by_capability"); });
  EXPECT_NE(message.find("failed at line 5 of '" + kernel("pkg/device_probe.py") + "'"), std::string::npos) << message;
  EXPECT_NE(message.find("asks torch.cuda about the GPU while it is imported, and this machine has none"),
            std::string::npos)
      << message;
}

TEST(Errors, TritonCompileErrorReachesTheException) {
  auto& f = TritonJITFunction::get_instance(kernel("compile_error.py"), "bad_block");
  std::string message;
  try {
    f.warmup(sm90(), aligned_f32(), 100, 100);
  } catch (const triton_jit::CompileError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("bad_block: Triton failed to compile"), std::string::npos) << message;
  EXPECT_NE(message.find("BLOCK=100"), std::string::npos) << message;
  EXPECT_NE(message.find("power of 2"), std::string::npos) << message;
}

TEST(Errors, WrongArgumentCount) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  auto message = error_of([&] { f.warmup(sm90(), aligned_f32(), aligned_f32(), 16); });
  EXPECT_NE(message.find("pointwise: expected 5 arguments (x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE), got 3"),
            std::string::npos)
      << message;
  auto& a = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "annotated");
  message = error_of([&] { a.warmup(sm90(), aligned_f32(), aligned_f32(), 4096); });
  EXPECT_NE(message.find("annotated: expected 7 to 11 arguments"), std::string::npos) << message;
}

TEST(Errors, WrongArgumentType) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  EXPECT_THROW(f.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), "n", 1024), triton_jit::TypeError);
  auto message = error_of([&] { f.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), "n", 1024); });
  EXPECT_NE(message.find("pointwise: argument 3 'n_elements' got a string"), std::string::npos) << message;
  message = error_of([&] { f.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), 16, aligned_f32()); });
  EXPECT_NE(message.find("argument 4 'BLOCK_SIZE' is a constexpr"), std::string::npos) << message;
  auto& a = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "annotated");
  message = error_of([&] { a.warmup(sm90(), aligned_f32(), aligned_f32(), 1.5, 7u, 2, 0.5, true); });
  EXPECT_NE(message.find("argument 2 'n' expected an integer or bool for type i64, got a float"), std::string::npos)
      << message;
  message = error_of([&] { a.warmup(sm90(), aligned_f32(), aligned_f32(), 16, -1, 2, 0.5, true); });
  EXPECT_NE(message.find("argument 3 'count' value -1 does not fit the parameter type u32"), std::string::npos)
      << message;
}

TEST(Errors, UnsupportedDtype) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  triton_jit::ArgumentBuilder args;
  triton_jit::ArgSlot complex_tensor;
  complex_tensor.kind = triton_jit::ArgKind::kUnsupported;
  complex_tensor.value.s = "ComplexFloat";
  args.add(aligned_f32()).add_slot(complex_tensor).add(aligned_f32()).add(16).add(1024);
  auto message = error_of([&] { f.warmup(sm90(), args.data(), args.size()); });
  EXPECT_NE(message.find("pointwise: argument 1 'y_ptr' has dtype ComplexFloat, which Triton does not accept"),
            std::string::npos)
      << message;
}

TEST(Errors, LaunchWithoutDriverSaysSo) {
  if (triton_jit::cuda_available()) GTEST_SKIP() << "a CUDA driver is present; this checks machines without one";
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  try {
    f(nullptr, 1, 1, 1, 4, 3, aligned_f32(), aligned_f32(), aligned_f32(), 16, 1024);
    FAIL() << "launch without a driver did not throw";
  } catch (const triton_jit::DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA driver"), std::string::npos) << e.what();
  }
}

TEST(ArgumentBuilder, BuildsTheSameVariantAsTheVariadicCall) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  auto direct = f.warmup(sm90(), aligned_f32(), aligned_f32(), aligned_f32(), 4096, 1024);
  triton_jit::ArgumentBuilder args;
  args.add(aligned_f32()).add(aligned_f32()).add(aligned_f32()).add(int64_t{4096}).add(1024);
  auto built = f.warmup(sm90(), args.data(), args.size());
  EXPECT_EQ(direct.signature, built.signature);
  EXPECT_EQ(direct.cubin, built.cubin);
}

TEST(Errors, NumCtasTritonCannotBuildNamesWhatItAccepts) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  LaunchConfig c = sm90();
  c.num_ctas = 3;
  auto message = error_of([&] { f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 1024); });
  EXPECT_EQ(message, "pointwise: num_ctas must be 1, 2, 4, 8 or 16 (a thread-block cluster Triton can build), got 3");
  EXPECT_THROW(f.warmup(c, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 1024), triton_jit::ValueError);
}

TEST(Errors, ConstexprStringThatIsNotUtf8IsATypeError) {
  auto& a = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "annotated");
  const std::string not_utf8 = "fa\xffst";
  try {
    a.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 7u, 2.0, 0.5, true, 128, not_utf8);
    FAIL() << "no error";
  } catch (const triton_jit::TypeError& e) {
    EXPECT_STREQ(e.what(), "annotated: argument 8 'MODE' is a constexpr string that is not valid UTF-8");
  }
}

TEST(Errors, EveryErrorDerivesFromTritonJitError) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "pointwise");
  LaunchConfig bad = sm90();
  bad.num_warps = 3;
  EXPECT_THROW(f.warmup(bad, aligned_f32(), aligned_f32(), aligned_f32(), 4096, 1024), triton_jit::Error);
  EXPECT_THROW(TritonJITFunction::get_instance(kernel("no_such_file.py"), "k"), triton_jit::Error);
  EXPECT_THROW(TritonJITFunction::get_instance(kernel("parity_kernels.py"), ""), triton_jit::Error);
  EXPECT_THROW(TritonJITFunction::get_instance(kernel("broken_syntax.py"), "broken"), triton_jit::Error);
  EXPECT_THROW(f.warmup(sm90(), aligned_f32()), triton_jit::Error);
}

// Defect 9: a fork() while another thread compiles must leave the child able to compile the same
// variant (the compile it inherited has no thread in the child) instead of waiting forever.
TEST(Fork, ChildCompilesAfreshWhatTheParentWasCompiling) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // Neither sanitizer runtime supports a child of a multithreaded fork() that goes on to start
  // threads (Triton's compile does): GCC 12's AddressSanitizer does not hold its allocator's lock
  // across fork(), and ThreadSanitizer's own locks can be held by a thread the child no longer
  // has, so the child can deadlock inside the runtime. The plain build runs this test.
  GTEST_SKIP() << "a sanitizer runtime cannot fork a multithreaded process that compiles in the child";
#endif
  auto& f = TritonJITFunction::get_instance(kernel("slow_compile.py"), "slow");
  const auto misses = f.stats().variant_misses;
  // A salt Triton's own cache has never seen, so that the compile is real (seconds).
  const int64_t salt = static_cast<int64_t>(std::chrono::steady_clock::now().time_since_epoch().count() ^ getpid());
  std::thread compiling([&] { f.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 130, 256, salt); });
  while (f.stats().variant_misses == misses) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside Triton's compile by now
  const bool in_flight = f.stats().compiles == 0;
  pid_t child = fork();
  if (child == 0) {
    int status = 1;
    try {
      triton_jit::set_cache_dir("");  // compile, do not find the parent's result on disk
      auto v = f.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 130, 256, salt);
      status = v.cubin.empty() ? 2 : 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
      status = 3;
    }
    _exit(status);
  }
  ASSERT_GT(child, 0);
  int status = -1;
  for (int waited = 0; waited < 3000; ++waited) {  // up to 300 s
    if (waitpid(child, &status, WNOHANG) == child) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    ADD_FAILURE() << "the child hung on the variant its parent was compiling";
  } else {
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  compiling.join();
  EXPECT_TRUE(in_flight) << "the compile finished before the fork; the test proved nothing";
  EXPECT_EQ(f.stats().compiles, 1u);
}

namespace {

// Runs `body` in a forked child and says how it ended: "exit N", "signal N" or "hung".
template <class Body>
std::string run_in_child(Body body, int timeout_s) {
  pid_t child = fork();
  if (child == 0) _exit(body());
  if (child < 0) return "fork failed";
  int status = -1;
  for (int waited = 0; waited < timeout_s * 10; ++waited) {
    if (waitpid(child, &status, WNOHANG) == child) {
      return WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                               : "signal " + std::to_string(WTERMSIG(status));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
  return "hung";
}

// A compile the child must do itself: a salt no run has used, and no disk cache.
int compile_in_child() {
  try {
    triton_jit::set_cache_dir("");
    auto& f = TritonJITFunction::get_instance(kernel("slow_compile.py"), "slow");
    const int64_t salt = static_cast<int64_t>(std::chrono::steady_clock::now().time_since_epoch().count() ^ getpid());
    auto v = f.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 2, 256, salt);
    return v.cubin.empty() ? 2 : 0;
  } catch (const triton_jit::Error& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
    return 3;  // a clear error is acceptable; an abort is not
  }
}

}  // namespace

// Issue: a fork() while another thread was inside Python importing a kernel module left a child
// that aborted ("init_threadstate: thread state already initialized") the first time it needed
// Python, and so did a fork inside that child.
TEST(Fork, ChildOfAForkDuringAnImportCompilesAndForksAgain) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer runtime cannot fork a multithreaded process that compiles in the child";
#endif
  std::atomic<bool> imported{false};
  std::thread importing([&] {
    auto& f = TritonJITFunction::get_instance(kernel("slow_import.py"), "copy");
    f.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 256);
    imported = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(800));  // inside the module's import
  const bool in_import = !imported;
  const std::string child = run_in_child(
      [] {
        const int first = compile_in_child();
        if (first != 0) return first;
        try {  // the module whose import the fork interrupted: imported afresh in the child
          auto& f = TritonJITFunction::get_instance(kernel("slow_import.py"), "copy");
          if (f.warmup(sm90(), aligned_f32(), aligned_f32(), 4096, 256).cubin.empty()) return 5;
        } catch (const triton_jit::Error& e) {
          std::fprintf(stderr, "child: %s\n", e.what());
          return 6;
        }
        const std::string grandchild = run_in_child([] { return compile_in_child(); }, 240);
        if (grandchild != "exit 0") std::fprintf(stderr, "grandchild: %s\n", grandchild.c_str());
        return grandchild == "exit 0" ? 0 : 4;
      },
      300);
  importing.join();
  EXPECT_TRUE(in_import) << "the import finished before the fork; the test proved nothing";
  EXPECT_EQ(child, "exit 0");
}

TEST(Compile, TupleArgumentsAreSpecialisedElementByElement) {
  auto& f = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "tuples");
  auto v = f.warmup(sm90(), std::make_tuple(aligned_f32(), misaligned_f32()), std::array<int64_t, 2>{16, 1}, 2.0f,
                    std::make_tuple(std::string_view("fast"), 3, std::make_tuple(std::nullopt)), 128);
  EXPECT_EQ(v.signature, "ptrs: (*fp32:16, *fp32), sizes: (i32:16, 1), scale: fp32, OPTS=(tuple), BLOCK=128");
  expect_cubin(v);  // the cubin takes the flattened elements that are not constexpr
  // 3 + 1 flattened elements, then the scratch pointers this Triton declares (1 before 3.5, 2 since).
  EXPECT_TRUE(v.num_kernel_params == 3 + 1 + 1 || v.num_kernel_params == 3 + 1 + 2) << v.num_kernel_params;
  const auto compiles = f.stats().compiles;
  auto again = f.warmup(sm90(), std::make_tuple(aligned_f32(), misaligned_f32()), std::array<int64_t, 2>{16, 1}, 2.0f,
                        std::make_tuple(std::string_view("fast"), 3, std::make_tuple(std::nullopt)), 128);
  EXPECT_EQ(again.cubin, v.cubin);
  EXPECT_EQ(f.stats().compiles, compiles);
  // Another constexpr tuple, or an element with another specialisation, is another variant.
  f.warmup(sm90(), std::make_tuple(aligned_f32(), misaligned_f32()), std::array<int64_t, 2>{16, 1}, 2.0f,
           std::make_tuple(std::string_view("exact"), 3, std::make_tuple(std::nullopt)), 128);
  f.warmup(sm90(), std::make_tuple(aligned_f32(), aligned_f32()), std::array<int64_t, 2>{16, 1}, 2.0f,
           std::make_tuple(std::string_view("exact"), 3, std::make_tuple(std::nullopt)), 128);
  EXPECT_EQ(f.stats().compiles, compiles + 2);
  triton_jit::ArgumentBuilder built;
  built.add(std::make_tuple(aligned_f32(), misaligned_f32())).begin_tuple(2).add(16).add(1).add(2.0f);
  built.add(std::make_tuple(std::string_view("fast"), 3, std::make_tuple(std::nullopt))).add(128);
  EXPECT_EQ(f.warmup(sm90(), built).cubin, v.cubin);
}

// A @triton.jit function passed as an argument (triton_jit/jit_function_arg.h): a constexpr
// of the variant, keyed by the function, whatever the parameter's declaration.
TEST(JitFunctionArguments, EachFunctionIsAVariantOfItsOwnAndTheSameOneIsFound) {
  auto& f = TritonJITFunction::get_instance(kernel("jit_function_kernels.py"), "apply");
  const triton_jit::JitFunctionArg relu(kernel("activations.py"), "relu");
  const triton_jit::JitFunctionArg square(kernel("activations.py"), "square");
  LaunchConfig c = sm90();
  const auto compiles = f.stats().compiles;
  const auto a = f.warmup(c, aligned_f32(), aligned_f32(), 4096, relu, 256);
  const auto b = f.warmup(c, aligned_f32(), aligned_f32(), 4096, square, 256);
  EXPECT_EQ(f.stats().compiles, compiles + 2);
  EXPECT_NE(a.cubin, b.cubin);
  EXPECT_NE(a.signature.find("ACT=activations.py:relu"), std::string::npos) << a.signature;
  EXPECT_NE(b.signature.find("ACT=activations.py:square"), std::string::npos) << b.signature;
  // Another object naming the same function is the same variant, from memory.
  const triton_jit::JitFunctionArg relu_again(kernel("activations.py"), "relu");
  EXPECT_EQ(relu_again.key(), relu.key());
  EXPECT_EQ(f.warmup(c, aligned_f32(), aligned_f32(), 4096, relu_again, 256).cubin.data(), a.cubin.data());
  EXPECT_EQ(f.stats().compiles, compiles + 2);
  EXPECT_EQ(relu.label(), "activations.py:relu");
}

TEST(JitFunctionArguments, APlainParameterTakesItAsAConstexprAsTritonDoes) {
  const triton_jit::JitFunctionArg relu(kernel("activations.py"), "relu");
  LaunchConfig c = sm90();
  const auto declared = TritonJITFunction::get_instance(kernel("jit_function_kernels.py"), "apply")
                            .warmup(c, aligned_f32(), aligned_f32(), 4096, relu, 256);
  const auto plain = TritonJITFunction::get_instance(kernel("jit_function_kernels.py"), "apply_plain")
                         .warmup(c, aligned_f32(), aligned_f32(), 4096, relu, 256);
  EXPECT_EQ(plain.num_kernel_params, declared.num_kernel_params) << "the function is not a kernel parameter";
  EXPECT_NE(plain.signature.find("act=activations.py:relu"), std::string::npos) << plain.signature;
}

TEST(JitFunctionArguments, BadOnesAreClearErrors) {
  EXPECT_NE(error_of([] {
              triton_jit::JitFunctionArg(kernel("no_such_file.py"), "relu");
            }).find("JitFunctionArg: relu: kernel file"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              triton_jit::JitFunctionArg(std::string_view("activations.py\0x", 16), "relu");
            }).find("JitFunctionArg: the path contains a NUL byte"),
            std::string::npos);
  const triton_jit::JitFunctionArg relu(kernel("activations.py"), "relu");
  auto& tuples = TritonJITFunction::get_instance(kernel("parity_kernels.py"), "tuples");
  const std::string in_tuple = error_of([&] {
    tuples.warmup(sm90(), std::make_tuple(aligned_f32()), std::make_tuple(16), 1.0f, std::make_tuple(relu), 64);
  });
  EXPECT_NE(in_tuple.find("holds a @triton.jit function in a tuple"), std::string::npos) << in_tuple;
  // A function the file does not define fails its first compile, naming it.
  const triton_jit::JitFunctionArg missing(kernel("activations.py"), "no_such_activation");
  auto& apply = TritonJITFunction::get_instance(kernel("jit_function_kernels.py"), "apply");
  const std::string compile = error_of([&] { apply.warmup(sm90(), aligned_f32(), aligned_f32(), 64, missing, 64); });
  EXPECT_NE(compile.find("no_such_activation"), std::string::npos) << compile;
}
