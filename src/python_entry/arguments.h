// One Python argument as the slots the runtime reads, as Triton's Python runtime reads the same
// value (Note [Constexpr expressions] in arguments.cpp).
#pragma once

#include <Python.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/limits.h"
#include "python_entry/objects.h"

namespace triton_jit::python_entry {

using triton_jit::detail::kMaxCallSlots;
using triton_jit::detail::kMaxDescriptors;
using triton_jit::detail::kMaxParams;
using triton_jit::detail::kMaxTupleDepth;

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

[[noreturn]] void throw_type_error(const KernelObject* k, PyObject* name, const char* what, PyObject* value);

// `value` as a 64-bit integer; else a TypeError "argument 'name' <what>".
int64_t as_int64(const KernelObject* k, PyObject* name, PyObject* value, const char* what);

void add_slot(CallSlots& out, const ArgSlot& slot);

// Appends the slots of the argument `name`; `is_constexpr`: the parameter is declared tl.constexpr.
void add_argument(const KernelObject* k, PyObject* name, PyObject* value, CallSlots& out, bool is_constexpr,
                  int depth = 0);

}  // namespace triton_jit::python_entry
