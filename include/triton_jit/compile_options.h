// triton_jit/compile_options.h: compile options of the installed Triton that LaunchConfig has no
// field for (newer Tritons add them: clc, min_shared_mem, ptx_options, ...), by name.
//
//   static const triton_jit::CompileOptions fast_math =
//       triton_jit::CompileOptions().set("enable_reflect_ftz", false).set("ptx_options", "--use_fast_math");
//   triton_jit::LaunchConfig cfg;
//   cfg.compile_options = &fast_math;  // must outlive the calls that use it
//
// The options are part of the variant: two calls with different options use different variants,
// and equal options (in any object) the same one. The installed Triton validates them when a
// variant compiles: an option it does not have, or a value of the wrong type, is a CompileError
// naming the option and the Triton version. Building one allocates; launching with one does not
// (its digest is computed by set()).
//
// libtriton_jit's form, for code written against it: num_warps, num_stages and `extra` (options
// by name as text) are read by the call f(stream, gx, gy, gz, options, args...), which sets each
// entry of `extra` as Python reads its literal (True/False, an integer, a float, else a string);
// that call allocates when `extra` is not empty. LaunchConfig::compile_options refuses an object
// with those fields set: there num_warps and num_stages are the config's, other options set().
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "triton_jit/export.h"

namespace triton_jit {

struct LaunchConfig;

class TRITON_JIT_API CompileOptions {
 public:
  using Value = std::variant<bool, int64_t, double, std::string>;

  // Sets (or replaces) one option. Throws ValueError for a name that is not a Python identifier
  // or that LaunchConfig has a field for (num_warps, num_stages, num_ctas, maxnreg,
  // enable_fp_fusion, launch_pdl, launch_cooperative_grid): those are set there.
  // One overload per C++ type, so that `false` stays a bool and `3` an integer.
  CompileOptions& set(std::string_view name, bool value) { return put(name, Value(value)); }
  CompileOptions& set(std::string_view name, int value) { return put(name, Value(int64_t{value})); }
  CompileOptions& set(std::string_view name, long value) { return put(name, Value(int64_t{value})); }
  CompileOptions& set(std::string_view name, long long value) { return put(name, Value(int64_t{value})); }
  CompileOptions& set(std::string_view name, double value) { return put(name, Value(value)); }
  CompileOptions& set(std::string_view name, const char* value) { return put(name, Value(std::string(value))); }
  CompileOptions& set(std::string_view name, std::string value) { return put(name, Value(std::move(value))); }

  // Sorted by name.
  const std::vector<std::pair<std::string, Value>>& items() const noexcept { return items_; }
  bool empty() const noexcept { return items_.empty(); }
  // Identifies the options in a variant key; 0 when there are none.
  uint64_t digest() const noexcept { return digest_; }
  // "ptx_options='--use_fast_math', enable_reflect_ftz=False", as Python would write them.
  std::string text() const;

  // libtriton_jit's fields (see above); 0 is the kernel's default.
  int num_warps = 0;
  int num_stages = 0;
  std::map<std::string, std::string> extra;
  // Whether any of them is set.
  bool has_call_fields() const noexcept { return num_warps != 0 || num_stages != 0 || !extra.empty(); }
  // What the libtriton_jit call form launches with: num_warps, num_stages and the entries of
  // `extra` that are LaunchConfig fields (num_ctas, maxnreg, enable_fp_fusion, launch_pdl,
  // launch_cooperative_grid) go to `config`; returned are these options plus the other entries,
  // set() as Python literals. Throws ValueError naming an entry set() refuses or a field's value
  // that is not a number or bool.
  CompileOptions for_call(LaunchConfig& config) const;

 private:
  CompileOptions& put(std::string_view name, Value value);

  std::vector<std::pair<std::string, Value>> items_;
  uint64_t digest_ = 0;
};

}  // namespace triton_jit
