// A call of a kernel from Python: bound, encoded, its grid read, and handed to the runtime to
// launch, warm up or prepare. Note [Cost of a Python launch].
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>

#include "python_entry/objects.h"

namespace triton_jit::python_entry {

enum class Mode : uint8_t { kLaunch, kWarmup, kPrepare };

// `grid`: kernel[grid]'s, or null for kernel.run(...) (`grid_keyword`), which names it.
PyObject* run_call(KernelObject* k, PyObject* grid, PyObject* const* args, std::size_t nargs, PyObject* kwnames,
                   Mode mode, bool grid_keyword);

// A Launcher's call: kernel[grid](*args, **kwargs).
PyObject* launcher_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames);

// Sets up the Launcher type, before PyType_Ready.
void set_up_launcher_type();

}  // namespace triton_jit::python_entry
