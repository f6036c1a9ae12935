// The manifest triton_jit_aot compiles: which kernels, with which options and argument types.
//
//   {"target": "cuda:90",
//    "kernels": [{"kernel": "scale.py", "function": "scale",
//                 "options": {"num_warps": 4, "num_stages": 3},
//                 "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16", 256],
//                                ["*fp16", "*fp16", "fp32", "i32", 256]]}]}
//
// Top level: "target" (optional, default cuda:90; cuda:<arch>[a]) and "kernels" (required).
// A kernel: "kernel" (a .py file, relative to the manifest, or "package.module:function"),
// "function" (required for files), "options" (optional) and "signatures" (required, each a
// list with one entry per argument the C++ call would pass).
// Options: num_warps (1, 2, 4, 8, 16, 32), num_stages (1 to 64), num_ctas (1, 2, 4, 8, 16),
// maxnreg (0 or 16 to 255), enable_fp_fusion, launch_pdl, launch_cooperative_grid (booleans),
// compile_options (other options of the installed Triton by name: CompileOptions).
// An argument is a Triton type: "*fp16" a pointer ("*k..." to const; ":16" when 16-byte
// aligned), "i32", "i64", "u64" (":16" when divisible by 16), "fp32", "u1"; or a value for a
// constexpr or to specialise on: a number, true/false, null, or a string that is not a type
// ({"str": "..."} for one that looks like a type). A tuple argument is a list of arguments, each
// element as above or a tuple itself (16 deep at most): [["*fp32:16", "*fp32:16"], ["i32", "i32:16"]]
// for `ptrs, sizes` that the kernel indexes; a constexpr tuple is a list of values, [1, 2]. One
// call holds at most 256 values, the tuples' elements included.
//
// A kernel with @triton.autotune may also list calls to tune on a GPU ("signatures" is then
// optional): triton_jit_aot runs each as a real call, which tunes its key, and the chosen config
// goes into the bundle with its variant.
//   "tune": [{"args": [{"tensor": "fp16", "numel": 16777216}, {"tensor": "fp16", "shape": [4096, 4096]},
//                      {"tensor": "fp16", "numel": 16777216, "fill": "zero"}, 4096, 4096, 4096],
//             "grid": ["cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", 1, 1]}]
// "args" are the call's arguments, as a C++ caller passes them (the parameters the decorators
// set left out): a tensor is device memory of "numel" elements or of a "shape", filled with
// values in [-1, 1) ("fill": "random", the default; integers in [0, 16)) or zeros; other values
// are as in a signature, types excepted; a tuple may hold tensors. "grid" is one to three
// dimensions, each an integer or an expression (grid_expression.h); "options" (optional) as for
// the kernel.
// Unknown keys and values out of range are errors naming the file, the entry and the key.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <triton_jit/triton_jit.h>

#include "grid_expression.h"

namespace triton_jit::aot {

class ManifestError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Argument {
  enum class Kind { kNone, kBool, kInt, kUInt, kFloat, kString, kPointer, kScalarType, kTensor, kTuple };
  Kind kind = Kind::kNone;
  DType dtype = DType::kInvalid;  // kPointer, kScalarType, kTensor
  uint64_t numel = 0;             // kTensor
  bool random = true;             // kTensor: random values, else zeros
  bool aligned = false;           // kPointer, kScalarType: the ":16" suffix
  bool is_const = false;          // kPointer: "*k..."
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string text;                // kString
  std::vector<Argument> elements;  // kTuple
};

// The arguments in call order with each tuple replaced by its elements (depth first): the order
// in which tensor arguments take their memory.
std::vector<const Argument*> leaves(const std::vector<Argument>& arguments);

struct Tuning {
  std::string where;  // "kernels[2].tune[0]", for messages
  LaunchConfig options;
  std::vector<Argument> args;
  std::vector<GridExpression> grid;  // one to three dimensions
};

struct Kernel {
  std::string where;  // "kernels[2]", for messages
  std::string kernel;
  std::string function;
  LaunchConfig options;
  std::vector<std::vector<Argument>> signatures;
  std::vector<Tuning> tunings;
};

struct Manifest {
  Target target;
  std::vector<Kernel> kernels;
  // What the kernels' and tunings' LaunchConfig::compile_options point to.
  std::vector<std::unique_ptr<CompileOptions>> compile_options;
};

// Parses and validates; throws ManifestError "<file>: <where>: <what>".
Manifest parse_manifest(std::string_view text, const std::string& file);

// The call's argument slots (nested() when it holds a tuple); strings point into `arguments`,
// which must outlive them. Tensor arguments take `tensors` in leaves() order (tensors.h makes them).
ArgumentBuilder to_slots(const std::vector<Argument>& arguments, const std::vector<DevicePointer>& tensors = {});

}  // namespace triton_jit::aot
