#include "python_entry/arguments.h"

// torch's Python object of a tensor, to read the at::Tensor without attribute lookups.
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>

#include <fmt/format.h>
#include <triton_jit/torch.h>

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "python_entry/errors.h"

namespace triton_jit::python_entry {

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
  std::construct_at(&out.slots[out.size++], slot);
}

namespace {

void add_tensor_descriptor(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out) {
  if (out.num_descriptors == kMaxDescriptors)
    throw triton_jit::ValueError(
        fmt::format("{}: more than {} TensorDescriptor arguments in one call", kernel_name(k), kMaxDescriptors));
  triton_jit::TensorDescriptor& d = *std::construct_at(&out.descriptors[out.num_descriptors++]);
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
    if (text == nullptr || out.num_owned == CallSlots::kMaxOwned) {
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
  if (out.num_owned == CallSlots::kMaxOwned) {
    Py_DECREF(text);
    throw triton_jit::ValueError(
        fmt::format("{}: more than {} constexpr expressions in one call", kernel_name(k), CallSlots::kMaxOwned));
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

// Any other object with data_ptr() and a torch dtype, which Triton's binder takes for a pointer
// as it takes a tensor (FlagGems hands its pointwise kernels a StridedBuffer over a tensor's
// storage): its address, on whatever device is current, its layout unknown. False when the
// object has no data_ptr.
bool add_pointer_like(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out) {
  PyObject* method = PyObject_GetAttr(value, g_str_data_ptr);
  if (method == nullptr) {
    PyErr_Clear();
    return false;
  }
  PyObject* address = PyObject_CallNoArgs(method);
  Py_DECREF(method);
  if (address == nullptr) throw PythonErrorSet{};
  const unsigned long long pointer = PyLong_Check(address) ? PyLong_AsUnsignedLongLong(address) : 0;
  const bool bad_address = !PyLong_Check(address) || PyErr_Occurred();
  Py_DECREF(address);
  if (bad_address) {
    PyErr_Clear();
    throw_type_error(k, name, "has a data_ptr() that must return an address (an int)", value);
  }
  PyObject* dtype = PyObject_GetAttr(value, g_str_dtype);
  if (dtype == nullptr) PyErr_Clear();
  const triton_jit::DType type =
      dtype != nullptr && THPDtype_Check(dtype)
          ? triton_jit::torch_adapter::to_dtype(reinterpret_cast<THPDtype*>(dtype)->scalar_type)
          : triton_jit::DType::kInvalid;
  Py_XDECREF(dtype);
  if (type == triton_jit::DType::kInvalid)
    throw_type_error(k, name, "has data_ptr() but no dtype that is a torch.dtype Triton takes", value);
  ArgSlot s;
  s.kind = ArgKind::kPointer;
  s.value.p = reinterpret_cast<const void*>(static_cast<uintptr_t>(pointer));
  s.device = triton_jit::kUnknownDevice;
  s.dtype = type;
  add_slot(out, s);
  return true;
}

// Note [Namedtuples]
// Triton keeps a namedtuple argument's type, and a kernel reads its fields by name (p.scale), so
// the names are part of what compiles. Its kTuple slot carries "Name:field,field": the variant
// key holds the text's digest and the compile request the text, from which the compile script
// makes a namedtuple type of those names (the code depends on them, not on the type's identity).
// The text is made once per type and the type kept alive with it, so a freed type's address can
// never name another's fields. A tuple subclass without _fields is a tuple, as Triton takes it.
struct NamedtupleType {
  PyTypeObject* type;
  std::string names;  // empty: not a namedtuple
};

const NamedtupleType& namedtuple_type(const KernelObject* k, PyObject* name, PyObject* value) {
  static std::deque<NamedtupleType> known;  // the GIL guards it; a deque keeps each text in place
  PyTypeObject* type = Py_TYPE(value);
  for (const NamedtupleType& t : known) {
    if (t.type == type) return t;
  }
  std::string names;
  PyObject* fields = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "_fields");
  if (fields == nullptr) {
    PyErr_Clear();
  } else {
    PyObject* type_name = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__name__");
    const char* text = type_name != nullptr && PyUnicode_Check(type_name) ? PyUnicode_AsUTF8(type_name) : nullptr;
    bool valid = text != nullptr && std::string_view(text).find_first_of(":,") == std::string_view::npos &&
                 PyTuple_Check(fields);
    if (valid) names = std::string(text) + ":";
    for (Py_ssize_t i = 0; valid && i < PyTuple_GET_SIZE(fields); ++i) {
      PyObject* field = PyTuple_GET_ITEM(fields, i);
      const char* field_text = PyUnicode_Check(field) ? PyUnicode_AsUTF8(field) : nullptr;
      valid = field_text != nullptr && PyUnicode_IsIdentifier(field) == 1;
      if (valid) names += (i > 0 ? "," : "") + std::string(field_text);
    }
    valid = valid && PyTuple_GET_SIZE(fields) == PyTuple_GET_SIZE(value);
    Py_XDECREF(type_name);
    Py_DECREF(fields);
    PyErr_Clear();
    if (!valid) throw_type_error(k, name, "is a namedtuple whose type's name or _fields are not identifiers", value);
  }
  Py_INCREF(type);
  return known.emplace_back(NamedtupleType{type, std::move(names)});
}

// Note [Tensors read lean]
// A tensor's slot carries its extent and a digest of its layout for the decorators alone: the
// autotuner saves and restores tensors by extent, and the memo of decorated calls and the hooks'
// copies compare layouts. Reading them walked the sizes and strides, more than half of what a
// tensor argument cost. A call of a kernel without decorators reads the address, dtype and
// device, all that the encoder reads (an extent of 0 is "unknown", as from a raw pointer).
ArgSlot lean_tensor_slot(const at::Tensor& t) {
  if (!t.defined()) return ArgSlot{};
  ArgSlot s;
  s.dtype = triton_jit::torch_adapter::to_dtype(t.scalar_type());
  if (s.dtype == triton_jit::DType::kInvalid) [[unlikely]]
    return triton_jit::to_slot(t);  // which names the dtype
  s.kind = ArgKind::kPointer;
  s.value.p = t.data_ptr();
  const c10::Device device = t.device();
  s.device = device.is_cuda()  ? static_cast<int16_t>(device.index())
             : device.is_cpu() ? triton_jit::kHostDevice
                               : triton_jit::kOtherDevice;
  return s;
}

void add_tensor(PyObject* value, CallSlots& out) {
  const at::Tensor& t = THPVariable_Unpack(value);
  const ArgSlot s = out.tensors_whole ? triton_jit::to_slot(t) : lean_tensor_slot(t);
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
}  // namespace

void add_argument(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out, bool is_constexpr,
                  int depth) {
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
    if (!PyTuple_CheckExact(value)) [[unlikely]] {
      const NamedtupleType& type = namedtuple_type(k, name, value);
      if (!type.names.empty()) {
        s.value.s = type.names.data();
        s.extent = type.names.size();
      }
    }
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
  } else if (add_pointer_like(k, name, value, out)) {
    // a buffer of a library's own kind
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
                     "must be a torch.Tensor (or an object with data_ptr() and dtype), int, float, bool, None, tuple, "
                     "triton.tools.tensor_descriptor.TensorDescriptor, @triton.jit function or tl.constexpr (a str, "
                     "a dtype or another value only for a constexpr parameter)",
                     value);
  }
}

}  // namespace triton_jit::python_entry
