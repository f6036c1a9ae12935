// C++ exceptions of the runtime as Python's, at the entry's edges.
#pragma once

#include <Python.h>

namespace triton_jit::python_entry {

// A Python exception is already set; unwinds a C++ frame of ours (the grid function).
struct PythonErrorSet {};

extern PyObject* g_compile_error;  // triton_jit.CompileError
extern PyObject* g_driver_error;   // triton_jit.DriverError

// Sets the Python exception that matches the C++ one in flight; returns nullptr for `return`.
PyObject* set_python_error() noexcept;

}  // namespace triton_jit::python_entry
