// install()'s kernel[grid] for Triton's kernel classes, the hot part of an unedited program's
// launch (python/triton_jit/redirect.py says what is served and what is left to Triton's launch).
#pragma once

#include <Python.h>

#include <cstddef>

#include "python_entry/objects.h"

namespace triton_jit::python_entry {

// A call of a launcher install() handed out, which this runtime refused (its exception is set):
// redirect._fall_back decides by the exception whether Triton's launch takes it.
PyObject* fall_back_to_triton(LauncherObject* l, PyObject* const* args, size_t nargsf, PyObject* kwnames);

// Sets up the Redirect type, before PyType_Ready.
void set_up_redirect_type();

}  // namespace triton_jit::python_entry
