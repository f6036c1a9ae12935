// FunctionState::resolve: a call's compile options, checked once per miss (and on every hit of a
// call whose decorators chose them).
#include "variants/function_state.h"

#include <fmt/format.h>

#include "triton_jit/compile_options.h"
#include "triton_jit/errors.h"

namespace triton_jit::detail {

namespace {

[[noreturn]] __attribute__((noinline, cold)) void throw_option(const std::string& kernel, const std::string& what) {
  throw ValueError(fmt::format("{}: {}", kernel, what));
}

}  // namespace

ResolvedOptions FunctionState::resolve(const LaunchConfig& given, Target target,
                                       const LaunchDefaults* decorated) const {
  LaunchDefaults c{given.num_warps, given.num_stages, given.num_ctas, given.maxnreg};
  if (decorated != nullptr) c = *decorated;
  ResolvedOptions o;
  o.arch = target.arch;
  o.arch_specific = target.arch_specific;
  o.vendor = target.vendor;
  o.num_warps = option_or_default(c.num_warps, sig.defaults.num_warps, 4);
  o.num_stages = option_or_default(c.num_stages, sig.defaults.num_stages, 3);
  o.num_ctas = option_or_default(c.num_ctas, sig.defaults.num_ctas, 1);
  o.maxnreg = option_or_default(c.maxnreg, sig.defaults.maxnreg, 0);
  o.enable_fp_fusion = given.enable_fp_fusion;
  o.launch_pdl = given.launch_pdl;
  o.launch_cooperative_grid = given.launch_cooperative_grid;
  if (given.compile_options != nullptr && given.compile_options->has_call_fields()) [[unlikely]] {
    throw ValueError(fmt::format(
        "{}: LaunchConfig::compile_options has num_warps, num_stages or extra set; with a LaunchConfig, num_warps and "
        "num_stages are the config's fields and other options are CompileOptions::set() (those three are read by the "
        "call f(stream, gx, gy, gz, options, args...))",
        sig.name));
  }
  if (given.compile_options != nullptr && !given.compile_options->empty()) {
    o.extra = given.compile_options;
    o.extra_digest = given.compile_options->digest();
  }
  if (c.num_warps < 0 || o.num_warps > 32 || (o.num_warps & (o.num_warps - 1)) != 0) [[unlikely]] {
    throw_option(sig.name, fmt::format("num_warps must be a power of two from 1 to 32, got {}", c.num_warps));
  }
  if (c.num_ctas < 0 || o.num_ctas > 16 || (o.num_ctas & (o.num_ctas - 1)) != 0) [[unlikely]] {
    throw_option(sig.name, fmt::format("num_ctas must be 1, 2, 4, 8 or 16 (a thread-block cluster Triton can build), "
                                       "got {}",
                                       c.num_ctas));
  }
  if (o.num_ctas > 1 && o.vendor == Vendor::kCuda && o.arch < 90) [[unlikely]] {
    throw_option(sig.name, fmt::format("num_ctas={} needs sm_90 or newer (thread-block clusters); the target is sm_{}",
                                       o.num_ctas, o.arch));
  }
  if (c.num_stages < 0 || o.num_stages > 64) [[unlikely]] {
    throw_option(sig.name,
                 fmt::format("num_stages must be from 1 to 64 (0: the kernel's default), got {}", c.num_stages));
  }
  if (c.maxnreg < 0 || c.maxnreg > 255 || (o.maxnreg != 0 && o.maxnreg < 16)) [[unlikely]] {
    throw_option(sig.name, fmt::format("maxnreg must be 0 (no limit) or from 16 to 255, got {}", c.maxnreg));
  }
  return o;
}

}  // namespace triton_jit::detail
