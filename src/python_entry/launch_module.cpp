// triton_jit._launch: Triton kernels launched from Python through this runtime.
//
//   k = triton_jit.jit(add_kernel)              # or triton_jit.load("kernels/add.py", "add_kernel")
//   k[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_warps=4)
//   k[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, out, n)
//
// Kernel wraps one TritonJITFunction. Indexing it with a grid gives a Launcher, which is called as
// Triton's kernel[grid] is; the call turns its Python arguments into ArgSlots and hands them to
// TritonJITFunction::launch, which specialises, finds the variant and launches it exactly as a C++
// call would.
//
// Note [Cost of a Python launch]
// A launch from Python is on the same budget as one from C++, less the interpreter's own call:
// - the Launcher is called through vectorcall, and `kernel[grid]` hands back the Kernel's one
//   Launcher when nobody else holds it, so a call with a tuple grid allocates nothing;
// - tensors are read from torch's C++ object (THPVariable_Unpack), never through attributes;
// - keyword names are matched by pointer first (CPython interns identifiers, and so do we);
// - a `lambda META: ...` grid gets a mapping that reads the call's arguments lazily, not a dict
//   filled with every parameter on every call.
// Everything else (encoding, the variant cache, decorators) is the C++ runtime's hot path.
#include <Python.h>
// torch's Python object of a tensor, to read the at::Tensor without attribute lookups.
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>

#include <fmt/format.h>
#include <triton_jit/torch.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "common/limits.h"

namespace {

using triton_jit::ArgKind;
using triton_jit::ArgSlot;
using triton_jit::LaunchConfig;
using triton_jit::TritonJITFunction;

using triton_jit::detail::kMaxCallSlots;
using triton_jit::detail::kMaxDescriptors;
using triton_jit::detail::kMaxParams;
using triton_jit::detail::kMaxTupleDepth;

// A Python exception is already set; unwinds a C++ frame of ours (the grid function).
struct PythonErrorSet {};

// ---- error translation --------------------------------------------------------------------------

PyObject* g_compile_error = nullptr;  // triton_jit.CompileError
PyObject* g_driver_error = nullptr;   // triton_jit.DriverError

// Sets the Python exception that matches the C++ one in flight; returns nullptr for `return`.
PyObject* set_python_error() noexcept {
  try {
    throw;
  } catch (const PythonErrorSet&) {
  } catch (const triton_jit::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const triton_jit::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const triton_jit::LookupError& e) {
    PyErr_SetString(PyExc_LookupError, e.what());
  } catch (const triton_jit::CompileError& e) {
    PyErr_SetString(g_compile_error, e.what());
  } catch (const triton_jit::DriverError& e) {
    PyErr_SetString(g_driver_error, e.what());
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "triton_jit: unknown C++ exception");
  }
  return nullptr;
}

// ---- objects ------------------------------------------------------------------------------------

struct LauncherObject;

struct KernelObject {
  PyObject ob_base;  // PyObject_HEAD
  TritonJITFunction* function;
  PyObject* names;                 // tuple of the parameters' names (interned str)
  std::vector<ArgSlot>* defaults;  // per parameter; kNone where there is none
  std::vector<bool>* has_default;
  // The parameters a call passes, in order: all of them, less those the decorators set.
  std::vector<uint8_t>* user_params;
  std::vector<bool>* set_by_decorators;
  std::vector<bool>* constexpr_params;  // by parameter index: declared tl.constexpr
  LauncherObject* spare;                // handed out by kernel[grid] while nobody else holds it
  PyObject* meta;                       // the MetaObject grids read, reused likewise
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
};

// What a grid callable reads: the call's arguments by name, then what the decorators set, then
// num_warps, num_stages and num_ctas. Valid only during the call that created it.
struct MetaObject {
  PyObject ob_base;  // PyObject_HEAD
  KernelObject* kernel;
  PyObject* const* given;  // the Python object of each parameter the caller passed (null: none)
  const triton_jit::LaunchMeta* launch_meta;
};

PyTypeObject g_kernel_type = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject g_launcher_type = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject g_meta_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* g_tensor_descriptor_type = nullptr;  // triton.tools.tensor_descriptor.TensorDescriptor
PyObject* g_str_base = nullptr;
PyObject* g_str_shape = nullptr;
PyObject* g_str_strides = nullptr;
PyObject* g_str_block_shape = nullptr;
PyObject* g_str_padding = nullptr;
PyObject* g_str_round_f32_to_tf32 = nullptr;

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
OptionName g_options[] = {
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

const char* kernel_name(const KernelObject* k) { return k->function->name().c_str(); }

// ---- arguments ----------------------------------------------------------------------------------

// The slots of one call, on the caller's stack.
struct CallSlots {
  std::array<ArgSlot, kMaxCallSlots> slots;
  std::size_t size = 0;
  bool nested = false;
  std::array<triton_jit::TensorDescriptor, kMaxDescriptors> descriptors;
  std::size_t num_descriptors = 0;
  int device = -1;      // of the first CUDA tensor
  bool warmup = false;  // a warmup call: a torch dtype stands for a tensor of it, as Triton's MockTensor
  // The texts of constexpr expressions (str objects), alive until the call is done.
  std::array<PyObject*, 16> owned{};
  std::size_t num_owned = 0;
  CallSlots() = default;
  CallSlots(const CallSlots&) = delete;
  CallSlots& operator=(const CallSlots&) = delete;
  ~CallSlots() {
    for (std::size_t i = 0; i < num_owned; ++i) Py_DECREF(owned[i]);
  }
};

[[noreturn]] void throw_type_error(const KernelObject* k, PyObject* name, const char* what, PyObject* value) {
  PyErr_Format(PyExc_TypeError, "%s: argument '%U' %s, got %.100s", kernel_name(k), name, what,
               Py_TYPE(value)->tp_name);
  throw PythonErrorSet{};
}

bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(THPVariableClass) || THPVariable_Check(o);
}

int64_t as_int64(const KernelObject* k, PyObject* name, PyObject* value, const char* what) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    throw_type_error(k, name, what, value);
  }
  return v;
}

void add_slot(CallSlots& out, const ArgSlot& slot) {
  if (out.size == kMaxCallSlots) {
    throw triton_jit::ValueError(fmt::format("triton_jit: more than {} argument values in one call", kMaxCallSlots));
  }
  out.slots[out.size++] = slot;
}

void add_tensor_descriptor(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out) {
  if (out.num_descriptors == kMaxDescriptors)
    throw triton_jit::ValueError(
        fmt::format("{}: more than {} TensorDescriptor arguments in one call", kernel_name(k), kMaxDescriptors));
  triton_jit::TensorDescriptor& d = out.descriptors[out.num_descriptors++];
  PyObject* base = PyObject_GetAttr(value, g_str_base);
  PyObject* shape = base ? PyObject_GetAttr(value, g_str_shape) : nullptr;
  PyObject* strides = shape ? PyObject_GetAttr(value, g_str_strides) : nullptr;
  PyObject* block = strides ? PyObject_GetAttr(value, g_str_block_shape) : nullptr;
  PyObject* padding = block ? PyObject_GetAttr(value, g_str_padding) : nullptr;
  auto release = [&] {
    Py_XDECREF(base);
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(block);
    Py_XDECREF(padding);
  };
  if (padding == nullptr) {
    release();
    throw PythonErrorSet{};
  }
  if (!is_tensor(base)) {
    release();
    throw_type_error(k, name, "is a TensorDescriptor whose base must be a torch.Tensor", base);
  }
  const at::Tensor& t = THPVariable_Unpack(base);
  const ArgSlot tensor = triton_jit::to_slot(t);
  d.base = tensor.value.p;
  d.dtype = tensor.dtype;
  d.device = tensor.device;
  const Py_ssize_t rank = PySequence_Size(shape);
  d.rank = static_cast<int>(rank);
  bool ok = rank >= 1 && rank <= triton_jit::TensorDescriptor::kMaxRank && PySequence_Size(strides) == rank &&
            PySequence_Size(block) == rank;
  for (Py_ssize_t i = 0; ok && i < rank; ++i) {
    PyObject* s = PySequence_GetItem(shape, i);
    PyObject* st = PySequence_GetItem(strides, i);
    PyObject* b = PySequence_GetItem(block, i);
    ok = s && st && b;
    if (ok) {
      d.shape[static_cast<std::size_t>(i)] = PyLong_AsLongLong(s);
      d.strides[static_cast<std::size_t>(i)] = PyLong_AsLongLong(st);
      d.block_shape[static_cast<std::size_t>(i)] = static_cast<int32_t>(PyLong_AsLong(b));
      ok = !PyErr_Occurred();
    }
    Py_XDECREF(s);
    Py_XDECREF(st);
    Py_XDECREF(b);
  }
  if (!ok) {
    PyErr_Clear();
    release();
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%U' is a TensorDescriptor whose shape, strides and block_shape must be "
                 "sequences of 1 to 5 integers of one length",
                 kernel_name(k), name);
    throw PythonErrorSet{};
  }
  d.nan_padding = PyUnicode_Check(padding) && PyUnicode_CompareWithASCIIString(padding, "nan") == 0;
  PyObject* tf32 = PyObject_GetAttr(value, g_str_round_f32_to_tf32);  // Triton 3.8 and newer
  if (tf32 == nullptr) {
    PyErr_Clear();
  } else {
    d.round_f32_to_tf32 = PyObject_IsTrue(tf32) == 1;
    Py_DECREF(tf32);
  }
  PyObject* layout = PyObject_GetAttrString(value, "layout");  // Gluon's descriptors
  if (layout == nullptr) {
    PyErr_Clear();
  } else if (layout != Py_None) {
    PyObject* text = PyObject_Repr(layout);
    Py_DECREF(layout);
    if (text == nullptr || out.num_owned == out.owned.size()) {
      Py_XDECREF(text);
      release();
      if (text != nullptr) PyErr_Format(PyExc_ValueError, "%s: too many Gluon descriptors in one call", kernel_name(k));
      throw PythonErrorSet{};
    }
    out.owned[out.num_owned++] = text;
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (utf8 == nullptr) {
      release();
      throw PythonErrorSet{};
    }
    d.layout = std::string_view(utf8, static_cast<std::size_t>(size));
  } else {
    Py_DECREF(layout);
  }
  release();
  add_slot(out, triton_jit::to_slot(d));
}

// Python-side helpers of triton_jit.launch, for values of the slow path (found once).
PyObject* launch_helper(const char* name) {
  PyObject* module = PyImport_ImportModule("triton_jit.launch");
  if (module == nullptr) throw PythonErrorSet{};
  PyObject* helper = PyObject_GetAttrString(module, name);
  Py_DECREF(module);
  if (helper == nullptr) throw PythonErrorSet{};
  return helper;  // kept for the life of the process
}

// A class of an imported module, or nullptr when the module is not imported (then no value can
// be of it).
PyObject* imported_class(const char* module_name, const char* class_name) {
  PyObject* key = PyUnicode_FromString(module_name);
  if (key == nullptr) throw PythonErrorSet{};
  PyObject* module = PyImport_GetModule(key);
  Py_DECREF(key);
  if (module == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* cls = PyObject_GetAttrString(module, class_name);
  Py_DECREF(module);
  if (cls == nullptr) PyErr_Clear();
  return cls;  // a new reference, dropped by the caller
}

bool is_instance_of(PyObject* value, const char* module_name, const char* class_name) {
  PyObject* cls = imported_class(module_name, class_name);
  if (cls == nullptr) return false;
  const int found = PyObject_IsInstance(value, cls);
  Py_DECREF(cls);
  if (found < 0) throw PythonErrorSet{};
  return found == 1;
}

// A constexpr value that has no slot of its own (a dtype, a layout, an integer past 64 bits, what
// tl.constexpr() wraps for a plain parameter): the Python expression that makes it again, kept
// alive by the call (Note [Constexpr expressions]).
// The expressions of dtypes (triton.language's and torch's, each a singleton) seen so far: a
// library that passes X_dtype on every call pays one pointer compare per entry, not Python.
struct KnownExpression {
  PyObject* value;  // a strong reference: never freed, so never reused for another object
  std::string text;
};
std::vector<KnownExpression>& known_expressions() {
  static auto* known = [] {
    auto* v = new std::vector<KnownExpression>();
    v->reserve(64);  // never reallocated: a call's slots point into the texts
    return v;
  }();
  return *known;
}

bool add_known_expression(PyObject* value, CallSlots& out) {
  for (const KnownExpression& e : known_expressions()) {
    if (e.value == value) {
      add_slot(out, triton_jit::to_slot(triton_jit::constexpr_expression(e.text)));
      return true;
    }
  }
  return false;
}

void add_expression(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out) {
  if (add_known_expression(value, out)) return;
  static PyObject* expression_of = launch_helper("_constexpr_expression");
  PyObject* text = PyObject_CallOneArg(expression_of, value);
  if (text == nullptr) throw PythonErrorSet{};
  if (text == Py_None) {
    Py_DECREF(text);
    PyErr_Format(PyExc_TypeError,
                 "%s: argument '%U' is a %.100s, which Triton takes as a constexpr but has no expression that makes "
                 "it again (a dtype, an integer, an object whose repr rebuilds it); pass a value of those kinds",
                 kernel_name(k), name, Py_TYPE(value)->tp_name);
    throw PythonErrorSet{};
  }
  if (out.num_owned == out.owned.size()) {
    Py_DECREF(text);
    throw triton_jit::ValueError(
        fmt::format("{}: more than {} constexpr expressions in one call", kernel_name(k), out.owned.size()));
  }
  out.owned[out.num_owned++] = text;
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
  if (utf8 == nullptr) throw PythonErrorSet{};
  const std::string_view expression(utf8, static_cast<std::size_t>(size));
  if ((THPDtype_Check(value) || is_instance_of(value, "triton.language.core", "dtype")) &&
      known_expressions().size() < 64) {
    Py_INCREF(value);
    known_expressions().push_back({value, std::string(expression)});
  }
  add_slot(out, triton_jit::to_slot(triton_jit::constexpr_expression(expression)));
}

// A @triton.jit function passed as an argument: the runtime's JitFunctionArg of it, made once
// per function object (its file is read then) and kept for the life of the process.
void add_jit_function(PyObject* value, CallSlots& out) {
  static auto* made = new std::vector<std::pair<PyObject*, triton_jit::JitFunctionArg*>>();
  for (const auto& [fn, arg] : *made) {
    if (fn == value) {
      add_slot(out, triton_jit::to_slot(*arg));
      return;
    }
  }
  static PyObject* spec_of = launch_helper("_jit_function_spec");
  PyObject* spec = PyObject_CallOneArg(spec_of, value);
  if (spec == nullptr) throw PythonErrorSet{};
  const char* text = PyUnicode_AsUTF8(spec);
  if (text == nullptr) {
    Py_DECREF(spec);
    throw PythonErrorSet{};
  }
  auto* arg = new triton_jit::JitFunctionArg(text, "");
  Py_DECREF(spec);
  Py_INCREF(value);
  made->emplace_back(value, arg);
  add_slot(out, triton_jit::to_slot(*arg));
}

void add_tensor(PyObject* value, CallSlots& out) {
  const ArgSlot s = triton_jit::to_slot(THPVariable_Unpack(value));
  if (out.device < 0 && s.kind == ArgKind::kPointer && s.device >= 0) out.device = s.device;
  add_slot(out, s);
}

// Appends the slots of one argument, as Triton's Python runtime reads the same value.
// Note [Constexpr expressions]
// Triton takes any value for a constexpr parameter, and tl.constexpr(v) or a @triton.jit function
// for any parameter, which it then makes a constexpr. Values with a slot of their own (None,
// bools, ints, floats, strings, tuples of them) take it; a @triton.jit function becomes a
// JitFunctionArg; the rest (dtypes, layouts, integers past 64 bits) travel as the expression
// that makes them, which keys the variant and is evaluated in the kernel's module to compile.
// numpy scalars are their Python values for constexpr parameters. What Triton refuses for a plain
// parameter (a dtype, a numpy integer) is refused here too.
void add_argument(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out, bool is_constexpr,
                  int depth = 0) {
  if (Py_TYPE(value) == reinterpret_cast<PyTypeObject*>(THPVariableClass)) [[likely]] {
    add_tensor(value, out);
    return;
  }
  ArgSlot s;
  if (value == Py_None) {
    add_slot(out, s);
  } else if (value == Py_True || value == Py_False) {
    s.kind = ArgKind::kBool;
    s.value.i = value == Py_True;
    add_slot(out, s);
  } else if (PyLong_Check(value)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0) {
      s.kind = ArgKind::kInt;
      s.value.i = v;
    } else {
      const unsigned long long u = PyLong_AsUnsignedLongLong(value);
      if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        if (is_constexpr) {
          add_expression(k, name, value, out);
          return;
        }
        PyErr_Format(PyExc_OverflowError, "%s: argument '%U' is an integer that does not fit in 64 bits",
                     kernel_name(k), name);
        throw PythonErrorSet{};
      }
      s.kind = ArgKind::kUInt;
      s.value.u = u;
    }
    add_slot(out, s);
  } else if (PyFloat_Check(value)) {
    s.kind = ArgKind::kFloat;
    s.value.f = PyFloat_AS_DOUBLE(value);
    add_slot(out, s);
  } else if (PyUnicode_Check(value)) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value, &size);  // kept by the str, alive during the call
    if (text == nullptr) throw PythonErrorSet{};
    s.kind = ArgKind::kString;
    s.value.s = text;
    s.size = static_cast<uint32_t>(size);
    add_slot(out, s);
  } else if (PyTuple_Check(value)) {
    if (depth >= kMaxTupleDepth) {  // bounded before it recurses, whatever the tuple's nesting
      PyErr_Format(PyExc_ValueError, "%s: argument '%U' is a tuple nested deeper than %d levels", kernel_name(k), name,
                   kMaxTupleDepth);
      throw PythonErrorSet{};
    }
    s.kind = ArgKind::kTuple;
    s.size = static_cast<uint32_t>(PyTuple_GET_SIZE(value));
    out.nested = true;
    add_slot(out, s);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); ++i) {
      add_argument(k, name, PyTuple_GET_ITEM(value, i), out, is_constexpr, depth + 1);
    }
  } else if (THPVariable_Check(value)) {  // a subclass (nn.Parameter and others)
    add_tensor(value, out);
  } else if (g_tensor_descriptor_type != nullptr &&
             PyObject_TypeCheck(value, reinterpret_cast<PyTypeObject*>(g_tensor_descriptor_type))) {
    add_tensor_descriptor(k, name, value, out);
  } else if (is_constexpr && add_known_expression(value, out)) {
    // a dtype seen before
  } else if (is_instance_of(value, "triton.language.core", "constexpr")) {
    PyObject* inner = PyObject_GetAttrString(value, "value");
    if (inner == nullptr) throw PythonErrorSet{};
    try {
      if (is_constexpr) {
        add_argument(k, name, inner, out, true, depth);  // the value itself, as a constexpr
      } else {
        add_expression(k, name, inner, out);  // Triton makes the parameter a constexpr
      }
    } catch (...) {
      Py_DECREF(inner);
      throw;
    }
    Py_DECREF(inner);
  } else if (is_instance_of(value, "triton.experimental.gluon.nvidia.hopper", "TensorDescriptor")) {
    add_tensor_descriptor(k, name, value, out);  // Gluon's, with its layout
  } else if (is_instance_of(value, "triton.runtime.jit", "JITFunction")) {
    add_jit_function(value, out);
  } else if (is_constexpr && is_instance_of(value, "numpy", "generic")) {
    PyObject* item = PyObject_CallMethod(value, "item", nullptr);  // numpy's scalar as Python's
    if (item == nullptr) throw PythonErrorSet{};
    try {
      if (Py_TYPE(item) == Py_TYPE(value)) throw_type_error(k, name, "is a numpy value without a Python one", value);
      add_argument(k, name, item, out, true, depth);
    } catch (...) {
      Py_DECREF(item);
      throw;
    }
    Py_DECREF(item);
  } else if (is_constexpr) {
    add_expression(k, name, value, out);
  } else if (out.warmup && THPDtype_Check(value)) {
    // Triton's warmup takes a dtype for a tensor of it (MockTensor: address 0, so aligned).
    s.kind = ArgKind::kPointer;
    s.value.p = nullptr;
    s.device = triton_jit::kUnknownDevice;
    s.dtype = triton_jit::torch_adapter::to_dtype(reinterpret_cast<THPDtype*>(value)->scalar_type);
    if (s.dtype == triton_jit::DType::kInvalid) throw_type_error(k, name, "is a dtype Triton does not take", value);
    add_slot(out, s);
  } else {
    throw_type_error(k, name,
                     "must be a torch.Tensor, int, float, bool, None, tuple, "
                     "triton.tools.tensor_descriptor.TensorDescriptor, @triton.jit function or tl.constexpr (a str, "
                     "a dtype or another value only for a constexpr parameter)",
                     value);
  }
}

// A call's arguments by parameter, and its launch options.
struct BoundCall {
  std::array<PyObject*, kMaxParams> given{};  // borrowed; by parameter index
  std::size_t num_given = 0;                  // 1 + the position in user_params of the last parameter given
  LaunchConfig config;
  PyObject* grid = nullptr;  // run(grid=...)
  bool warmup = false;       // run(..., warmup=True)
  triton_jit::CompileOptions* options = nullptr;
};

Py_ssize_t param_index(const KernelObject* k, PyObject* name) noexcept {
  const Py_ssize_t n = PyTuple_GET_SIZE(k->names);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyTuple_GET_ITEM(k->names, i) == name) return i;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyUnicode_Compare(PyTuple_GET_ITEM(k->names, i), name) == 0) return i;
  }
  PyErr_Clear();
  return -1;
}

LaunchOption option_of(PyObject* name) noexcept {
  for (const OptionName& o : g_options) {
    if (o.interned == name) return o.option;
  }
  for (const OptionName& o : g_options) {
    if (PyUnicode_CompareWithASCIIString(name, o.text) == 0) return o.option;
  }
  return LaunchOption::kNone;
}

int as_option_int(const KernelObject* k, PyObject* name, PyObject* value) {
  if (!PyLong_Check(value) || value == Py_True || value == Py_False) throw_type_error(k, name, "must be an int", value);
  const int64_t v = as_int64(k, name, value, "must be an int");
  if (v < 0 || v > (1 << 20)) {
    PyErr_Format(PyExc_ValueError, "%s: %U must be from 0 to 2**20, got %lld", kernel_name(k), name,
                 static_cast<long long>(v));
    throw PythonErrorSet{};
  }
  return static_cast<int>(v);
}

// Python's literal of an option for CompileOptions::set.
void set_compile_option(const KernelObject* k, triton_jit::CompileOptions& options, PyObject* name, PyObject* value) {
  const char* key = PyUnicode_AsUTF8(name);
  if (key == nullptr) throw PythonErrorSet{};
  if (value == Py_True || value == Py_False) {
    options.set(key, value == Py_True);
  } else if (PyLong_Check(value)) {
    options.set(key, static_cast<long long>(as_int64(k, name, value, "must fit in 64 bits")));
  } else if (PyFloat_Check(value)) {
    options.set(key, PyFloat_AS_DOUBLE(value));
  } else if (PyUnicode_Check(value)) {
    options.set(key, std::string(PyUnicode_AsUTF8(value)));
  } else {
    PyErr_Format(PyExc_TypeError,
                 "%s: keyword argument '%U' is neither a parameter of the kernel nor a launch option; as a "
                 "compile option of the installed Triton it must be a bool, int, float or str, got %.100s",
                 kernel_name(k), name, Py_TYPE(value)->tp_name);
    throw PythonErrorSet{};
  }
}

// Binds positional and keyword arguments to parameters as Python binds a call to the kernel's
// signature; launch options go to the config, other names to compile options of the installed
// Triton (which refuses unknown ones when it compiles, as Triton does).
void bind(const KernelObject* k, PyObject* const* args, std::size_t nargs, PyObject* kwnames, BoundCall& call,
          triton_jit::CompileOptions& storage, bool grid_keyword) {
  const std::vector<uint8_t>& user = *k->user_params;
  if (nargs > user.size()) {
    PyErr_Format(PyExc_TypeError, "%s takes %zu arguments, got %zu", kernel_name(k), user.size(), nargs);
    throw PythonErrorSet{};
  }
  for (std::size_t i = 0; i < nargs; ++i) call.given[user[i]] = args[i];
  call.num_given = nargs;
  if (kwnames != nullptr) {
    const Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < nk; ++j) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, j);
      PyObject* value = args[nargs + static_cast<std::size_t>(j)];
      const Py_ssize_t index = param_index(k, name);
      if (index >= 0) {
        if ((*k->set_by_decorators)[static_cast<std::size_t>(index)]) {
          // Triton's autotuner refuses it too; its heuristics would overwrite it.
          PyErr_Format(PyExc_ValueError,
                       "%s: argument '%U' is set by the kernel's @triton.autotune configs or @triton.heuristics; "
                       "leave it out",
                       kernel_name(k), name);
          throw PythonErrorSet{};
        }
        if (call.given[static_cast<std::size_t>(index)] != nullptr) {
          PyErr_Format(PyExc_TypeError, "%s: got multiple values for argument '%U'", kernel_name(k), name);
          throw PythonErrorSet{};
        }
        call.given[static_cast<std::size_t>(index)] = value;
        const auto at = std::find(user.begin(), user.end(), static_cast<uint8_t>(index));
        call.num_given = std::max(call.num_given, static_cast<std::size_t>(at - user.begin()) + 1);
        // A parameter named like a launch option (Gluon's `num_warps: gl.constexpr`): Triton
        // builds the options from the same keywords, so the one value is both.
        switch (option_of(name)) {
          case LaunchOption::kNumWarps:
            call.config.num_warps = as_option_int(k, name, value);
            break;
          case LaunchOption::kNumStages:
            call.config.num_stages = as_option_int(k, name, value);
            break;
          case LaunchOption::kNumCtas:
            call.config.num_ctas = as_option_int(k, name, value);
            break;
          case LaunchOption::kMaxnreg:
            call.config.maxnreg = value == Py_None ? 0 : as_option_int(k, name, value);
            break;
          default:
            break;
        }
        continue;
      }
      switch (option_of(name)) {
        case LaunchOption::kNumWarps:
          call.config.num_warps = as_option_int(k, name, value);
          break;
        case LaunchOption::kNumStages:
          call.config.num_stages = as_option_int(k, name, value);
          break;
        case LaunchOption::kNumCtas:
          call.config.num_ctas = as_option_int(k, name, value);
          break;
        case LaunchOption::kMaxnreg:
          call.config.maxnreg = value == Py_None ? 0 : as_option_int(k, name, value);
          break;
        case LaunchOption::kEnableFpFusion:
          call.config.enable_fp_fusion = PyObject_IsTrue(value) == 1;
          break;
        case LaunchOption::kLaunchPdl:
          call.config.launch_pdl = PyObject_IsTrue(value) == 1;
          break;
        case LaunchOption::kLaunchCooperativeGrid:
          call.config.launch_cooperative_grid = PyObject_IsTrue(value) == 1;
          break;
        case LaunchOption::kGrid:
          if (grid_keyword) {
            call.grid = value;
            break;
          }
          set_compile_option(k, storage, name, value);
          call.options = &storage;
          break;
        case LaunchOption::kWarmup:
          if (grid_keyword) {
            call.warmup = PyObject_IsTrue(value) == 1;
            break;
          }
          [[fallthrough]];
        case LaunchOption::kNone:
          set_compile_option(k, storage, name, value);
          call.options = &storage;
          break;
      }
    }
  }
  // A parameter left out before one given takes its default, as Python fills it.
  for (std::size_t u = 0; u < call.num_given; ++u) {
    const std::size_t i = user[u];
    if (call.given[i] == nullptr && !(*k->has_default)[i]) {
      PyErr_Format(PyExc_TypeError, "%s: missing argument '%U'", kernel_name(k), PyTuple_GET_ITEM(k->names, i));
      throw PythonErrorSet{};
    }
  }
  if (call.options != nullptr) call.config.compile_options = call.options;
}

// The top-level slot each parameter's arguments start at, for a call with tuples.
void encode(const KernelObject* k, const BoundCall& call, CallSlots& out) {
  for (std::size_t u = 0; u < call.num_given; ++u) {
    const std::size_t i = (*k->user_params)[u];
    PyObject* value = call.given[i];
    if (value == nullptr) {
      const ArgSlot& d = (*k->defaults)[i];
      if (d.kind == ArgKind::kUnsupported) {
        PyErr_Format(PyExc_TypeError, "%s: argument '%U' must be passed: its default is %s", kernel_name(k),
                     PyTuple_GET_ITEM(k->names, i), d.value.s);
        throw PythonErrorSet{};
      }
      add_slot(out, d);
    } else {
      add_argument(k, PyTuple_GET_ITEM(k->names, i), value, out, (*k->constexpr_params)[i]);
    }
  }
}

// ---- grids --------------------------------------------------------------------------------------

PyObject* slot_to_python(const ArgSlot& s) {
  switch (s.kind) {
    case ArgKind::kBool:
      return PyBool_FromLong(static_cast<long>(s.value.i));
    case ArgKind::kInt:
      return PyLong_FromLongLong(s.value.i);
    case ArgKind::kUInt:
      return PyLong_FromUnsignedLongLong(s.value.u);
    case ArgKind::kFloat:
      return PyFloat_FromDouble(s.value.f);
    case ArgKind::kString:
      return PyUnicode_FromStringAndSize(s.value.s, s.size);
    default:
      Py_RETURN_NONE;
  }
}

PyObject* meta_lookup(MetaObject* m, PyObject* key, bool raise) {
  if (m->launch_meta == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "triton_jit: a grid's META is valid only while the grid is called");
    return nullptr;
  }
  if (!PyUnicode_Check(key)) {
    if (raise) PyErr_SetObject(PyExc_KeyError, key);
    return nullptr;
  }
  const Py_ssize_t index = param_index(m->kernel, key);
  if (index >= 0 && m->given[index] != nullptr) {
    Py_INCREF(m->given[index]);
    return m->given[index];
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(key, &size);
  if (text == nullptr) return nullptr;
  const std::string_view name(text, static_cast<std::size_t>(size));
  try {
    if (index < 0) {
      if (name == "num_warps" || name == "num_stages" || name == "num_ctas")
        return PyLong_FromLongLong((*m->launch_meta)[name]);
      if (raise) PyErr_SetObject(PyExc_KeyError, key);
      return nullptr;
    }
    const ArgSlot* s = m->launch_meta->argument(name);
    if (s == nullptr) {
      if (raise) PyErr_SetObject(PyExc_KeyError, key);
      return nullptr;
    }
    return slot_to_python(*s);
  } catch (...) {
    return set_python_error();
  }
}

PyObject* meta_subscript(PyObject* self, PyObject* key) {
  return meta_lookup(reinterpret_cast<MetaObject*>(self), key, true);
}

PyObject* meta_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 1 || nargs > 2) {
    PyErr_SetString(PyExc_TypeError, "get() takes a key and an optional default");
    return nullptr;
  }
  PyObject* v = meta_lookup(reinterpret_cast<MetaObject*>(self), args[0], false);
  if (v != nullptr || PyErr_Occurred()) return v;
  PyObject* fallback = nargs == 2 ? args[1] : Py_None;
  Py_INCREF(fallback);
  return fallback;
}

PyObject* meta_keys(PyObject* self, PyObject*) {
  auto* m = reinterpret_cast<MetaObject*>(self);
  const Py_ssize_t n = PyTuple_GET_SIZE(m->kernel->names);
  PyObject* keys = PyList_New(0);
  if (keys == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) PyList_Append(keys, PyTuple_GET_ITEM(m->kernel->names, i));
  for (const char* extra : {"num_warps", "num_stages", "num_ctas"}) {
    PyObject* s = PyUnicode_InternFromString(extra);
    PyList_Append(keys, s);
    Py_XDECREF(s);
  }
  return keys;
}

PyObject* meta_iter(PyObject* self) {
  PyObject* keys = meta_keys(self, nullptr);
  if (keys == nullptr) return nullptr;
  PyObject* it = PyObject_GetIter(keys);
  Py_DECREF(keys);
  return it;
}

PyObject* meta_items(PyObject* self, PyObject*) {
  PyObject* keys = meta_keys(self, nullptr);
  if (keys == nullptr) return nullptr;
  PyObject* items = PyList_New(0);
  for (Py_ssize_t i = 0; items != nullptr && i < PyList_GET_SIZE(keys); ++i) {
    PyObject* v = meta_lookup(reinterpret_cast<MetaObject*>(self), PyList_GET_ITEM(keys, i), false);
    if (v == nullptr) {
      if (PyErr_Occurred()) Py_CLEAR(items);
      continue;
    }
    PyObject* pair = PyTuple_Pack(2, PyList_GET_ITEM(keys, i), v);
    Py_DECREF(v);
    PyList_Append(items, pair);
    Py_XDECREF(pair);
  }
  Py_DECREF(keys);
  return items;
}

int meta_contains(PyObject* self, PyObject* key) {
  PyObject* v = meta_lookup(reinterpret_cast<MetaObject*>(self), key, false);
  if (v == nullptr) return PyErr_Occurred() ? -1 : 0;
  Py_DECREF(v);
  return 1;
}

Py_ssize_t meta_length(PyObject* self) {
  return PyTuple_GET_SIZE(reinterpret_cast<MetaObject*>(self)->kernel->names) + 3;
}

void meta_dealloc(PyObject* self) {
  Py_XDECREF(reinterpret_cast<MetaObject*>(self)->kernel);
  Py_TYPE(self)->tp_free(self);
}

PyMappingMethods g_meta_mapping = {meta_length, meta_subscript, nullptr};
PySequenceMethods g_meta_sequence = {};
PyMethodDef g_meta_methods[] = {
    {"get", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(meta_get)), METH_FASTCALL, nullptr},
    {"keys", meta_keys, METH_NOARGS, nullptr},
    {"items", meta_items, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

unsigned grid_dimension(const KernelObject* k, PyObject* v) {
  int overflow = 0;
  long long n = -1;
  if (PyLong_Check(v)) {
    n = PyLong_AsLongLongAndOverflow(v, &overflow);
  } else if (PyIndex_Check(v) && !PyBool_Check(v)) {  // numpy integers, as Triton's grid takes them
    PyObject* index = PyNumber_Index(v);
    if (index != nullptr) {
      n = PyLong_AsLongLongAndOverflow(index, &overflow);
      Py_DECREF(index);
    }
  }
  if (n < 0 || overflow != 0 || n > 0x7fffffffLL) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s: each grid dimension must be an int from 0 to 2**31-1, got %R", kernel_name(k),
                 v);
    throw PythonErrorSet{};
  }
  return static_cast<unsigned>(n);
}

triton_jit::Grid grid_of_sequence(const KernelObject* k, PyObject* grid) {
  triton_jit::Grid g{1, 1, 1};
  if (PyTuple_Check(grid) || PyList_Check(grid)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(grid);
    if (n >= 1 && n <= 3) {
      PyObject** items = PySequence_Fast_ITEMS(grid);
      for (Py_ssize_t i = 0; i < n; ++i) g[static_cast<std::size_t>(i)] = grid_dimension(k, items[i]);
      return g;
    }
  }
  PyErr_Format(PyExc_TypeError, "%s: the grid must be a tuple of 1 to 3 ints or a callable returning one, got %R",
               kernel_name(k), grid);
  throw PythonErrorSet{};
}

struct GridCall {
  KernelObject* kernel;
  PyObject* grid;
  const BoundCall* call;
};

triton_jit::Grid call_grid(const triton_jit::LaunchMeta& launch_meta, void* data) {
  auto* g = static_cast<GridCall*>(data);
  KernelObject* k = g->kernel;
  MetaObject* meta = reinterpret_cast<MetaObject*>(k->meta);
  if (meta == nullptr || Py_REFCNT(meta) != 1) {
    Py_XDECREF(k->meta);  // a grid kept the last one: it is invalid already, and stays the grid's
    meta = PyObject_GC_New(MetaObject, &g_meta_type);
    if (meta == nullptr) throw PythonErrorSet{};
    Py_INCREF(k);
    meta->kernel = k;
    meta->given = nullptr;
    meta->launch_meta = nullptr;
    PyObject_GC_Track(meta);
    k->meta = reinterpret_cast<PyObject*>(meta);
  }
  meta->given = g->call->given.data();
  meta->launch_meta = &launch_meta;
  // Held here too: a grid that launches this kernel again replaces the Kernel's reference.
  Py_INCREF(meta);
  PyObject* result = PyObject_CallOneArg(g->grid, reinterpret_cast<PyObject*>(meta));
  meta->launch_meta = nullptr;
  Py_DECREF(meta);
  if (result == nullptr) throw PythonErrorSet{};
  triton_jit::Grid grid;
  try {
    grid = grid_of_sequence(k, result);
  } catch (...) {
    Py_DECREF(result);
    throw;
  }
  Py_DECREF(result);
  return grid;
}

// ---- the launch ---------------------------------------------------------------------------------

enum class Mode : uint8_t { kLaunch, kWarmup, kPrepare };

PyObject* variant_info_to_python(const triton_jit::VariantInfo& info) {
  PyObject* ir = PyDict_New();  // the texts kept with triton_jit.set_keep_ir(True), by stage
  for (const auto& t : info.ir) {
    PyObject* text = ir ? PyUnicode_FromStringAndSize(t.text.data(), static_cast<Py_ssize_t>(t.text.size())) : nullptr;
    if (text == nullptr || PyDict_SetItemString(ir, std::string(t.stage).c_str(), text) != 0) {
      Py_XDECREF(text);
      Py_XDECREF(ir);
      return nullptr;
    }
    Py_DECREF(text);
  }
  if (ir == nullptr) return nullptr;
  return Py_BuildValue("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:N}", "kernel_name", info.kernel_name.c_str(),
                       "signature", info.signature.c_str(), "target", info.target.c_str(), "triton_version",
                       info.triton_version.c_str(), "num_warps", info.num_warps, "num_ctas", info.num_ctas,
                       "shared_memory", info.shared_memory, "n_regs", info.n_regs, "n_spills", info.n_spills,
                       "max_threads_per_block", info.max_threads_per_block, "ir", ir);
}

// Note [Globals changed at run time]
// Triton reads the globals a kernel uses (and the functions it calls use) when it first computes
// the kernel's cache key, and refuses every later launch once one of them holds another value:
// "Global variable X has changed since we compiled this kernel". A launch through this entry does
// the same with the same JITFunction's record (used_global_vals), so a program sees what Triton
// would show it. C++ callers are not checked: their kernels' modules are imported by the runtime,
// where no program code runs after the import. Nothing is persisted under a changed value either:
// the compile script reads such a global as computed, not pinned by its source
// (triton_jit_values.py), and a Python host checks a cached entry's values against its own
// (variant_builder.cpp, Note [Values computed at import]).
bool read_watched_globals(KernelObject* k) {
  PyObject* key = PyObject_GetAttrString(k->watched, "cache_key");  // fills used_global_vals
  if (key == nullptr) return false;
  Py_DECREF(key);
  PyObject* used = PyObject_GetAttrString(k->watched, "used_global_vals");
  if (used == nullptr || !PyDict_Check(used)) {
    Py_XDECREF(used);
    PyErr_Clear();  // a Triton without the record: nothing to check, as that Triton checks nothing
    k->globals = new std::vector<PyObject*>();
    return true;
  }
  auto globals = std::make_unique<std::vector<PyObject*>>();
  PyObject *item_key, *item_value;
  Py_ssize_t position = 0;
  while (PyDict_Next(used, &position, &item_key, &item_value)) {
    // {(name, id(globals)): (value, globals)}
    if (!PyTuple_Check(item_key) || PyTuple_GET_SIZE(item_key) < 1 || !PyTuple_Check(item_value) ||
        PyTuple_GET_SIZE(item_value) < 2 || !PyDict_Check(PyTuple_GET_ITEM(item_value, 1))) {
      continue;
    }
    for (PyObject* o :
         {PyTuple_GET_ITEM(item_value, 1), PyTuple_GET_ITEM(item_key, 0), PyTuple_GET_ITEM(item_value, 0)}) {
      Py_INCREF(o);
      globals->push_back(o);
    }
  }
  Py_DECREF(used);
  k->globals = globals.release();
  return true;
}

bool watched_globals_hold(KernelObject* k) {
  if (k->globals == nullptr && !read_watched_globals(k)) return false;
  const std::vector<PyObject*>& g = *k->globals;
  for (std::size_t i = 0; i < g.size(); i += 3) {
    PyObject* now = PyDict_GetItemWithError(g[i], g[i + 1]);  // borrowed
    if (now == g[i + 2]) [[likely]]
      continue;
    if (now == nullptr && PyErr_Occurred()) return false;
    const int differs = now == nullptr ? 1 : PyObject_RichCompareBool(now, g[i + 2], Py_NE);
    if (differs < 0) return false;
    if (differs == 1) {
      PyErr_Format(PyExc_RuntimeError, "Global variable %S has changed since we compiled this kernel, from %S to %S",
                   g[i + 1], g[i + 2], now != nullptr ? now : Py_None);
      return false;
    }
  }
  return true;
}

PyObject* run_call(KernelObject* k, PyObject* grid, PyObject* const* args, std::size_t nargs, PyObject* kwnames,
                   Mode mode, bool grid_keyword) {
  if (k->watched != nullptr && !watched_globals_hold(k)) return nullptr;
  try {
    BoundCall call;
    triton_jit::CompileOptions options;
    bind(k, args, nargs, kwnames, call, options, grid_keyword);
    if (grid_keyword) grid = call.grid == Py_None ? nullptr : call.grid;
    if (call.warmup && mode == Mode::kLaunch) mode = Mode::kWarmup;  // run(..., warmup=True)
    CallSlots slots;
    slots.warmup = mode == Mode::kWarmup;
    encode(k, call, slots);
    GridCall grid_call{k, grid, &call};
    if (grid == nullptr) {
      if (mode == Mode::kLaunch) {
        PyErr_Format(PyExc_TypeError, "%s: a launch needs a grid: kernel[grid](...) or kernel.run(..., grid=...)",
                     kernel_name(k));
        return nullptr;
      }
    } else if (PyTuple_Check(grid) || PyList_Check(grid)) {
      call.config.grid = grid_of_sequence(k, grid);
    } else if (PyCallable_Check(grid)) {
      call.config.grid_fn = call_grid;
      call.config.grid_data = &grid_call;
    } else {
      grid_of_sequence(k, grid);  // throws the message
    }
    if (mode != Mode::kWarmup) {
      call.config.stream = slots.device >= 0
                               ? triton_jit::torch_adapter::current_stream(static_cast<c10::DeviceIndex>(slots.device))
                               : triton_jit::torch_adapter::current_stream();
    }
    switch (mode) {
      case Mode::kLaunch:
        if (slots.nested) {
          k->function->launch_nested(call.config, slots.slots.data(), slots.size);
        } else {
          k->function->launch(call.config, slots.slots.data(), slots.size);
        }
        Py_RETURN_NONE;
      case Mode::kWarmup:
        return variant_info_to_python(slots.nested
                                          ? k->function->warmup_nested(call.config, slots.slots.data(), slots.size)
                                          : k->function->warmup(call.config, slots.slots.data(), slots.size));
      case Mode::kPrepare:
        return variant_info_to_python(slots.nested
                                          ? k->function->prepare_nested(call.config, slots.slots.data(), slots.size)
                                          : k->function->prepare(call.config, slots.slots.data(), slots.size));
    }
    Py_RETURN_NONE;
  } catch (...) {
    return set_python_error();
  }
}

PyObject* launcher_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  return run_call(l->kernel, l->grid, args, PyVectorcall_NARGS(nargsf), kwnames, Mode::kLaunch, false);
}

void launcher_dealloc(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_XDECREF(l->kernel);
  Py_XDECREF(l->grid);
  Py_TYPE(self)->tp_free(self);
}

// ---- Kernel -------------------------------------------------------------------------------------

PyObject* kernel_subscript(PyObject* self, PyObject* grid) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  LauncherObject* l = k->spare;
  if (l == nullptr || Py_REFCNT(l) != 1) {
    l = PyObject_GC_New(LauncherObject, &g_launcher_type);
    if (l == nullptr) return nullptr;
    l->vectorcall = launcher_vectorcall;
    Py_INCREF(k);
    l->kernel = k;
    l->grid = nullptr;
    PyObject_GC_Track(l);
    if (k->spare == nullptr) {
      k->spare = l;  // the Kernel's reference; a cycle Kernel -> Launcher -> Kernel, broken in dealloc
      Py_INCREF(l);
    }
  } else {
    Py_INCREF(l);
  }
  Py_INCREF(grid);
  Py_XSETREF(l->grid, grid);
  return reinterpret_cast<PyObject*>(l);
}

PyObject* kernel_run(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return run_call(reinterpret_cast<KernelObject*>(self), nullptr, args, static_cast<std::size_t>(nargs), kwnames,
                  Mode::kLaunch, true);
}
PyObject* kernel_warmup(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return run_call(reinterpret_cast<KernelObject*>(self), nullptr, args, static_cast<std::size_t>(nargs), kwnames,
                  Mode::kWarmup, true);
}
PyObject* kernel_prepare(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return run_call(reinterpret_cast<KernelObject*>(self), nullptr, args, static_cast<std::size_t>(nargs), kwnames,
                  Mode::kPrepare, true);
}

PyObject* kernel_stats(PyObject* self, PyObject*) {
  const triton_jit::FunctionStats s = reinterpret_cast<KernelObject*>(self)->function->stats();
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d,s:d}", "hits", static_cast<unsigned long long>(s.hits), "remembered",
                       static_cast<unsigned long long>(s.remembered), "variant_misses",
                       static_cast<unsigned long long>(s.variant_misses), "compiles",
                       static_cast<unsigned long long>(s.compiles), "tunings",
                       static_cast<unsigned long long>(s.tunings), "compile_seconds", s.compile_seconds, "load_seconds",
                       s.load_seconds);
}

PyObject* kernel_autotune_configs(PyObject* self, PyObject*) {
  try {
    const std::vector<std::string> configs = reinterpret_cast<KernelObject*>(self)->function->autotune_configs();
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(configs.size()));
    for (std::size_t i = 0; list != nullptr && i < configs.size(); ++i)
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyUnicode_FromString(configs[i].c_str()));
    return list;
  } catch (...) {
    return set_python_error();
  }
}

// _watch(jit_function): the program's own JITFunction of this kernel (Note [Globals changed at run time]).
PyObject* kernel_watch(PyObject* self, PyObject* fn) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  Py_INCREF(fn);
  Py_XSETREF(k->watched, fn);
  if (k->globals != nullptr) {
    for (PyObject* o : *k->globals) Py_DECREF(o);
    delete k->globals;
    k->globals = nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* kernel_get_name(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<KernelObject*>(self)->function->name().c_str());
}
PyObject* kernel_get_source_file(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<KernelObject*>(self)->function->source_file().c_str());
}
PyObject* kernel_get_arg_names(PyObject* self, void*) {
  PyObject* names = reinterpret_cast<KernelObject*>(self)->names;
  return PySequence_List(names);
}

PyObject* kernel_repr(PyObject* self) {
  const auto* k = reinterpret_cast<KernelObject*>(self);
  return PyUnicode_FromFormat("<triton_jit.Kernel %s from %s>", k->function->name().c_str(),
                              k->function->source_file().c_str());
}

// Kernel(spec, name): spec is a .py file or "package.module:function" (then name may be "").
int kernel_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  static const char* keywords[] = {"spec", "name", nullptr};
  const char* spec = nullptr;
  const char* name = "";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|s", const_cast<char**>(keywords), &spec, &name)) return -1;
  try {
    k->function = &TritonJITFunction::get_instance(spec, name);
    const std::vector<triton_jit::ParamInfo> params = k->function->params();
    if (params.size() > kMaxParams) {
      throw triton_jit::ValueError(fmt::format("{}: more than {} parameters", k->function->name(), kMaxParams));
    }
    PyObject* names = PyTuple_New(static_cast<Py_ssize_t>(params.size()));
    if (names == nullptr) return -1;
    auto defaults = std::make_unique<std::vector<ArgSlot>>();
    auto has_default = std::make_unique<std::vector<bool>>();
    auto user_params = std::make_unique<std::vector<uint8_t>>();
    auto set_by_decorators = std::make_unique<std::vector<bool>>();
    auto constexpr_params = std::make_unique<std::vector<bool>>();
    for (std::size_t i = 0; i < params.size(); ++i) {
      constexpr_params->push_back(params[i].kind == "constexpr");
      PyObject* s = PyUnicode_InternFromString(params[i].name.c_str());
      if (s == nullptr) {
        Py_DECREF(names);
        return -1;
      }
      PyTuple_SET_ITEM(names, static_cast<Py_ssize_t>(i), s);
      defaults->push_back(params[i].default_value);
      has_default->push_back(params[i].has_default);
      set_by_decorators->push_back(params[i].set_by_decorators);
      if (!params[i].set_by_decorators) user_params->push_back(static_cast<uint8_t>(i));
    }
    Py_XSETREF(k->names, names);
    delete k->defaults;
    delete k->has_default;
    k->defaults = defaults.release();
    k->has_default = has_default.release();
    delete k->user_params;
    delete k->set_by_decorators;
    k->user_params = user_params.release();
    k->set_by_decorators = set_by_decorators.release();
    delete k->constexpr_params;
    k->constexpr_params = constexpr_params.release();
    return 0;
  } catch (...) {
    set_python_error();
    return -1;
  }
}

PyObject* kernel_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self == nullptr) return nullptr;
  auto* k = reinterpret_cast<KernelObject*>(self);
  k->function = nullptr;
  k->names = PyTuple_New(0);
  k->defaults = new std::vector<ArgSlot>();
  k->has_default = new std::vector<bool>();
  k->user_params = new std::vector<uint8_t>();
  k->set_by_decorators = new std::vector<bool>();
  k->constexpr_params = new std::vector<bool>();
  k->spare = nullptr;
  k->meta = nullptr;
  k->weakrefs = nullptr;
  k->watched = nullptr;
  k->globals = nullptr;
  return self;
}

int kernel_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  Py_VISIT(k->spare);
  Py_VISIT(k->meta);
  Py_VISIT(k->watched);
  if (k->globals != nullptr) {
    for (PyObject* o : *k->globals) Py_VISIT(o);
  }
  return 0;
}

int kernel_clear(PyObject* self) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  Py_CLEAR(k->spare);
  Py_CLEAR(k->meta);
  Py_CLEAR(k->watched);
  if (k->globals != nullptr) {
    for (PyObject* o : *k->globals) Py_DECREF(o);
    delete k->globals;
    k->globals = nullptr;
  }
  return 0;
}

void kernel_dealloc(PyObject* self) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  PyObject_GC_UnTrack(self);
  if (k->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  kernel_clear(self);
  Py_XDECREF(k->names);
  delete k->defaults;
  delete k->has_default;
  delete k->user_params;
  delete k->set_by_decorators;
  delete k->constexpr_params;
  Py_TYPE(self)->tp_free(self);
}

int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_VISIT(l->kernel);
  Py_VISIT(l->grid);
  return 0;
}

int launcher_clear(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_CLEAR(l->kernel);
  Py_CLEAR(l->grid);
  return 0;
}

void launcher_dealloc_gc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  launcher_dealloc(self);
}

int meta_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<MetaObject*>(self)->kernel);
  return 0;
}

int meta_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<MetaObject*>(self)->kernel);
  return 0;
}

void meta_dealloc_gc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  meta_dealloc(self);
}

PyMappingMethods g_kernel_mapping = {nullptr, kernel_subscript, nullptr};

#define TJ_FASTCALL(f) reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(f))
PyMethodDef g_kernel_methods[] = {
    {"run", TJ_FASTCALL(kernel_run), METH_FASTCALL | METH_KEYWORDS,
     "run(*args, grid, **kwargs): kernel[grid](*args, **kwargs), as Triton's JITFunction.run."},
    {"warmup", TJ_FASTCALL(kernel_warmup), METH_FASTCALL | METH_KEYWORDS,
     "warmup(*args, grid=None, **kwargs): compiles the variant these arguments select, without a GPU and without "
     "launching; returns its description."},
    {"prepare", TJ_FASTCALL(kernel_prepare), METH_FASTCALL | METH_KEYWORDS,
     "prepare(*args, grid=None, **kwargs): everything a launch does but the launch (heuristics, tuning a new key, "
     "compile, load on the device), before a CUDA graph capture; returns the variant's description."},
    {"stats", kernel_stats, METH_NOARGS, "The function's counters (hits are counted while stats are enabled)."},
    {"autotune_configs", kernel_autotune_configs, METH_NOARGS, "The @triton.autotune configs as text."},
    {"_watch", kernel_watch, METH_O, "Checks the globals of this JITFunction at each call, as Triton does."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef g_kernel_getset[] = {
    {"__name__", kernel_get_name, nullptr, nullptr, nullptr},
    {"source_file", kernel_get_source_file, nullptr, nullptr, nullptr},
    {"arg_names", kernel_get_arg_names, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

bool ready_types() {
  g_kernel_type.tp_name = "triton_jit.Kernel";
  g_kernel_type.tp_basicsize = sizeof(KernelObject);
  g_kernel_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  g_kernel_type.tp_doc =
      "A Triton kernel launched through triton_jit's runtime: kernel[grid](*args, **kwargs), as Triton's.";
  g_kernel_type.tp_new = kernel_new;
  g_kernel_type.tp_init = kernel_init;
  g_kernel_type.tp_dealloc = kernel_dealloc;
  g_kernel_type.tp_traverse = kernel_traverse;
  g_kernel_type.tp_clear = kernel_clear;
  g_kernel_type.tp_as_mapping = &g_kernel_mapping;
  g_kernel_type.tp_methods = g_kernel_methods;
  g_kernel_type.tp_getset = g_kernel_getset;
  g_kernel_type.tp_repr = kernel_repr;
  g_kernel_type.tp_weaklistoffset = offsetof(KernelObject, weakrefs);

  g_launcher_type.tp_name = "triton_jit.Launcher";
  g_launcher_type.tp_basicsize = sizeof(LauncherObject);
  g_launcher_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  g_launcher_type.tp_doc = "kernel[grid]: called with the kernel's arguments, launches it.";
  g_launcher_type.tp_vectorcall_offset = offsetof(LauncherObject, vectorcall);
  g_launcher_type.tp_call = PyVectorcall_Call;
  g_launcher_type.tp_dealloc = launcher_dealloc_gc;
  g_launcher_type.tp_traverse = launcher_traverse;
  g_launcher_type.tp_clear = launcher_clear;

  g_meta_type.tp_name = "triton_jit.LaunchMeta";
  g_meta_type.tp_basicsize = sizeof(MetaObject);
  g_meta_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  g_meta_type.tp_doc = "A call's arguments by name, as a grid callable reads them (META).";
  g_meta_type.tp_as_mapping = &g_meta_mapping;
  g_meta_sequence.sq_contains = meta_contains;
  g_meta_type.tp_as_sequence = &g_meta_sequence;
  g_meta_type.tp_iter = meta_iter;
  g_meta_type.tp_methods = g_meta_methods;
  g_meta_type.tp_dealloc = meta_dealloc_gc;
  g_meta_type.tp_traverse = meta_traverse;
  g_meta_type.tp_clear = meta_clear;
  return PyType_Ready(&g_kernel_type) == 0 && PyType_Ready(&g_launcher_type) == 0 && PyType_Ready(&g_meta_type) == 0;
}

// The TensorDescriptor class of the Triton in this interpreter; absent in Tritons before 3.4.
void find_tensor_descriptor_type() {
  PyObject* module = PyImport_ImportModule("triton.tools.tensor_descriptor");
  if (module == nullptr) {
    PyErr_Clear();
    return;
  }
  g_tensor_descriptor_type = PyObject_GetAttrString(module, "TensorDescriptor");
  if (g_tensor_descriptor_type == nullptr) PyErr_Clear();
  Py_DECREF(module);
}

PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "_launch",
                        "Triton kernels launched from Python through triton_jit's runtime (see triton_jit.jit).", -1,
                        nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__launch() {
  if (!ready_types()) return nullptr;
  for (OptionName& o : g_options) o.interned = PyUnicode_InternFromString(o.text);
  g_str_base = PyUnicode_InternFromString("base");
  g_str_shape = PyUnicode_InternFromString("shape");
  g_str_strides = PyUnicode_InternFromString("strides");
  g_str_block_shape = PyUnicode_InternFromString("block_shape");
  g_str_padding = PyUnicode_InternFromString("padding");
  g_str_round_f32_to_tf32 = PyUnicode_InternFromString("round_f32_to_tf32");
  find_tensor_descriptor_type();
  // Triton's Python runtime makes users call triton.set_allocator before a kernel that needs global
  // scratch (TMA descriptors built on the device, Gluon's warp specialization); every such user hands
  // it torch's caching allocator. torch is loaded here already, so the entry takes that allocator
  // unless the embedding program set its own.
  if (triton_jit::scratch_allocator() == nullptr) triton_jit::torch_adapter::install_scratch_allocator();
  PyObject* m = PyModule_Create(&g_module);
  if (m == nullptr) return nullptr;
  g_compile_error = PyErr_NewExceptionWithDoc("triton_jit.CompileError", "Triton could not compile the kernel.",
                                              PyExc_RuntimeError, nullptr);
  g_driver_error = PyErr_NewExceptionWithDoc("triton_jit.DriverError", "The GPU driver refused a load or launch.",
                                             PyExc_RuntimeError, nullptr);
  Py_INCREF(&g_kernel_type);
  PyModule_AddObject(m, "Kernel", reinterpret_cast<PyObject*>(&g_kernel_type));
  Py_INCREF(&g_launcher_type);
  PyModule_AddObject(m, "Launcher", reinterpret_cast<PyObject*>(&g_launcher_type));
  Py_INCREF(&g_meta_type);
  PyModule_AddObject(m, "LaunchMeta", reinterpret_cast<PyObject*>(&g_meta_type));
  Py_INCREF(g_compile_error);
  PyModule_AddObject(m, "CompileError", g_compile_error);
  Py_INCREF(g_driver_error);
  PyModule_AddObject(m, "DriverError", g_driver_error);
  return m;
}
