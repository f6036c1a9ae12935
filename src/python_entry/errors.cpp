#include "python_entry/errors.h"

#include <exception>

#include <triton_jit/errors.h>

namespace triton_jit::python_entry {

PyObject* g_compile_error = nullptr;
PyObject* g_driver_error = nullptr;

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

}  // namespace triton_jit::python_entry
