// The Python objects of triton_jit._launch (Kernel, Launcher, LaunchMeta), the launch options a
// call may name, and the names the entry looks up once at import.
#pragma once

#include <Python.h>

#include <triton_jit/triton_jit.h>

#include <cstdint>
#include <vector>

namespace triton_jit::python_entry {

using triton_jit::ArgKind;
using triton_jit::ArgSlot;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

struct LauncherObject;

// What binding a call needs of each parameter, read once from the function's signature.
struct ParamFlags {
  bool has_default = false;
  bool set_by_decorators = false;
  bool is_constexpr = false;       // declared tl.constexpr
  bool named_like_option = false;  // num_warps, num_stages, ... (Gluon's `num_warps: gl.constexpr`)
};
struct KernelParams {
  std::vector<ArgSlot> defaults;  // per parameter; kNone where there is none
  std::vector<ParamFlags> flags;  // per parameter
  // The parameters a call passes, in order: all of them, less those the decorators set.
  std::vector<uint8_t> user;
  // @triton.autotune or @triton.heuristics: its calls read tensors whole (Note [Tensors read lean]).
  bool decorated = false;
};

struct KernelObject {
  PyObject ob_base;  // PyObject_HEAD
  TritonJITFunction* function;
  PyObject* names;  // tuple of the parameters' names (interned str)
  KernelParams* params;
  LauncherObject* spare;  // handed out by kernel[grid] while nobody else holds it
  PyObject* meta;         // the MetaObject grids read, reused likewise
  PyObject* weakrefs;
  // The program's own JITFunction of this kernel (triton_jit.jit, or load() of a module the
  // program imported), whose globals a launch checks as Triton's does; nullptr when the program
  // holds none (the runtime imported the module itself, so nothing else can change them).
  PyObject* watched;
  // Its used globals, read at the first call: (globals dict, name, value) triples, owned.
  std::vector<PyObject*>* globals;
};

struct LauncherObject {
  PyObject ob_base;  // PyObject_HEAD
  vectorcallfunc vectorcall;
  KernelObject* kernel;
  PyObject* grid;
  // Set when install()'s kernel[grid] handed it out (redirect.cpp): Triton's kernel object and the
  // redirect, whose Triton launch takes a call this runtime refuses. Null otherwise.
  PyObject* triton;
  PyObject* redirect;
};

// What a grid callable reads: the call's arguments by name, then what the decorators set, then
// num_warps, num_stages and num_ctas. Valid only during the call that created it.
struct MetaObject {
  PyObject ob_base;  // PyObject_HEAD
  KernelObject* kernel;
  PyObject* const* given;  // the Python object of each parameter the caller passed (null: none)
  const triton_jit::LaunchMeta* launch_meta;
};

extern PyTypeObject g_kernel_type;
extern PyTypeObject g_launcher_type;
extern PyTypeObject g_meta_type;
extern PyTypeObject g_redirect_type;

// Looked up or interned once, at import (module.cpp).
extern PyObject* g_tensor_descriptor_type;  // triton.tools.tensor_descriptor.TensorDescriptor; null before 3.4
extern PyObject* g_str_base;
extern PyObject* g_str_shape;
extern PyObject* g_str_strides;
extern PyObject* g_str_block_shape;
extern PyObject* g_str_padding;
extern PyObject* g_str_round_f32_to_tf32;
extern PyObject* g_str_data_ptr;
extern PyObject* g_str_dtype;

enum class LaunchOption : uint8_t {
  kNone,
  kNumWarps,
  kNumStages,
  kNumCtas,
  kMaxnreg,
  kEnableFpFusion,
  kLaunchPdl,
  kLaunchCooperativeGrid,
  kGrid,    // run(..., grid=...) only
  kWarmup,  // run(..., warmup=...) only, as Triton's JITFunction.run takes it
};
struct OptionName {
  const char* text;
  LaunchOption option;
  PyObject* interned;
};
inline OptionName g_options[] = {
    // interned at import (module.cpp)
    {"num_warps", LaunchOption::kNumWarps, nullptr},
    {"num_stages", LaunchOption::kNumStages, nullptr},
    {"num_ctas", LaunchOption::kNumCtas, nullptr},
    {"maxnreg", LaunchOption::kMaxnreg, nullptr},
    {"enable_fp_fusion", LaunchOption::kEnableFpFusion, nullptr},
    {"launch_pdl", LaunchOption::kLaunchPdl, nullptr},
    {"launch_cooperative_grid", LaunchOption::kLaunchCooperativeGrid, nullptr},
    {"grid", LaunchOption::kGrid, nullptr},
    {"warmup", LaunchOption::kWarmup, nullptr},
};

inline const char* kernel_name(const KernelObject* k) { return k->function->name().c_str(); }

}  // namespace triton_jit::python_entry
