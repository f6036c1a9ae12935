// A Python call bound to the kernel's parameters as Python binds it, its launch options read, and
// its arguments encoded as slots.
#pragma once

#include <Python.h>

#include <array>
#include <cstddef>

#include "python_entry/arguments.h"

namespace triton_jit::python_entry {

// A call's arguments by parameter, and its launch options.
struct BoundCall {
  // Borrowed; by parameter index. bind() clears the kernel's own parameters only: a whole clear of
  // kMaxParams pointers cost more than binding a 4-argument call.
  std::array<PyObject*, kMaxParams> given;
  std::size_t num_given = 0;  // 1 + the position in params->user of the last parameter given
  LaunchConfig config;
  PyObject* grid = nullptr;  // run(grid=...)
  bool warmup = false;       // run(..., warmup=True)
  triton_jit::CompileOptions* options = nullptr;
};

// The index of the parameter `name`, or -1.
Py_ssize_t param_index(const KernelObject* k, PyObject* name) noexcept;

// Binds positional and keyword arguments to parameters as Python binds a call to the kernel's
// signature; launch options go to the config, other names to compile options of the installed
// Triton (which refuses unknown ones when it compiles, as Triton does). `grid_keyword`: the call
// is kernel.run(...), which takes grid= and warmup=.
void bind(const KernelObject* k, PyObject* const* args, std::size_t nargs, PyObject* kwnames, BoundCall& call,
          triton_jit::CompileOptions& storage, bool grid_keyword);

// The slots of the bound call's arguments, in parameter order, defaults filled in.
void encode(const KernelObject* k, const BoundCall& call, CallSlots& out);

}  // namespace triton_jit::python_entry
