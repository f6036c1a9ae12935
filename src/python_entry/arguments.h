// One Python argument as the slots the runtime reads, as Triton's Python runtime reads the same
// value (Note [Constexpr expressions] in arguments.cpp).
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>

#include "common/limits.h"
#include "python_entry/objects.h"

namespace triton_jit::python_entry {

using triton_jit::detail::kMaxCallSlots;
using triton_jit::detail::kMaxDescriptors;
using triton_jit::detail::kMaxParams;
using triton_jit::detail::kMaxTupleDepth;

// The slots of one call, on the caller's stack. The arrays are sized for the largest call and
// constructed only as they are filled (add_slot, add_tensor_descriptor), as the decorators'
// PreparedCall is: value-initializing 256 slots and 8 descriptors took 2,200 instructions a
// call, more than reading and encoding 16 arguments.
struct CallSlots {
  static constexpr std::size_t kMaxOwned = 16;
  CallSlots() noexcept {}
  union {
    ArgSlot slots[kMaxCallSlots];
  };
  std::size_t size = 0;
  bool nested = false;
  union {
    triton_jit::TensorDescriptor descriptors[kMaxDescriptors];
  };
  std::size_t num_descriptors = 0;
  int device = -1;            // of the first CUDA tensor
  bool warmup = false;        // a warmup call: a torch dtype stands for a tensor of it, as Triton's MockTensor
  bool tensors_whole = true;  // read each tensor's extent and layout too (Note [Tensors read lean])
  // The texts of constexpr expressions (str objects), alive until the call is done.
  PyObject* owned[kMaxOwned];
  std::size_t num_owned = 0;
  CallSlots(const CallSlots&) = delete;
  CallSlots& operator=(const CallSlots&) = delete;
  ~CallSlots() {
    for (std::size_t i = 0; i < num_owned; ++i) Py_DECREF(owned[i]);
  }
};

[[noreturn]] void throw_type_error(const KernelObject* k, PyObject* name, const char* what, PyObject* value);

// `value` as a 64-bit integer; else a TypeError "argument 'name' <what>".
int64_t as_int64(const KernelObject* k, PyObject* name, PyObject* value, const char* what);

void add_slot(CallSlots& out, const ArgSlot& slot);

// Note [Integers read inline]
// Most scalars a launch passes are ints that fit one digit of CPython's representation (sizes,
// strides, counts below 2**30). A call reads them in its own loop, without the kind dispatch of
// add_argument and without PyLong_AsLongLongAndOverflow, which were about half of what an integer
// argument cost (callgrind, docs/performance.md). bool is not an exact int, and a larger int takes
// add_argument's path, which reads it to the same slot.
inline bool read_small_int(PyObject* o, int64_t& v) noexcept {
  if (!PyLong_CheckExact(o)) return false;
#if PY_VERSION_HEX >= 0x030C0000
  auto* l = reinterpret_cast<PyLongObject*>(o);
  if (!PyUnstable_Long_IsCompact(l)) return false;
  v = static_cast<int64_t>(PyUnstable_Long_CompactValue(l));
#else
  const Py_ssize_t size = Py_SIZE(o);  // digits, with the sign; ob_digit[0] is allocated even for 0
  if (size < -1 || size > 1) return false;
  v = static_cast<int64_t>(size) * static_cast<int64_t>(reinterpret_cast<PyLongObject*>(o)->ob_digit[0]);
#endif
  return true;
}

// Appends the slots of the argument `name`; `is_constexpr`: the parameter is declared tl.constexpr.
void add_argument(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out, bool is_constexpr,
                  int depth = 0);

}  // namespace triton_jit::python_entry
