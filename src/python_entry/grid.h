// The grid of a call: a tuple or list, or a callable of META (a LaunchMeta object that reads the
// call's arguments lazily, Note [Cost of a Python launch] in launch.cpp).
#pragma once

#include <Python.h>

#include "python_entry/binding.h"

namespace triton_jit::python_entry {

// A sequence of one to three grid dimensions. Throws (a TypeError set) for anything else.
triton_jit::Grid grid_of_sequence(const KernelObject* k, PyObject* grid);

// What the runtime's grid function gets: a callable grid of one call.
struct GridCall {
  KernelObject* kernel;
  PyObject* grid;
  const BoundCall* call;
};

// LaunchConfig::grid_fn of a callable grid: calls it with the call's META.
triton_jit::Grid call_grid(const triton_jit::LaunchMeta& launch_meta, void* data);

// Sets up the LaunchMeta type, before PyType_Ready.
void set_up_meta_type();

}  // namespace triton_jit::python_entry
