// triton_jit._launch: Triton kernels launched from Python through this runtime.
//
//   k = triton_jit.jit(add_kernel)              # or triton_jit.load("kernels/add.py", "add_kernel")
//   k[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024, num_warps=4)
//   k[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, out, n)
//
// Kernel wraps one TritonJITFunction. Indexing it with a grid gives a Launcher, which is called as
// Triton's kernel[grid] is; the call turns its Python arguments into ArgSlots and hands them to
// TritonJITFunction::launch, which specialises, finds the variant and launches it exactly as a C++
// call would. The files: module.cpp (this: the module and what it looks up at import), kernel.cpp
// (the Kernel type), launch.cpp (a call, to the runtime), binding.cpp (a call's arguments to
// parameters and options), arguments.cpp (one value to slots), grid.cpp (grids and META),
// errors.cpp (C++ exceptions as Python's), redirect.cpp (install()'s kernel[grid]).

#include <Python.h>

#include <triton_jit/torch.h>

#include "python_entry/errors.h"
#include "python_entry/grid.h"
#include "python_entry/kernel.h"
#include "python_entry/launch.h"
#include "python_entry/objects.h"
#include "python_entry/redirect.h"

namespace triton_jit::python_entry {

PyObject* g_tensor_descriptor_type = nullptr;
PyObject* g_str_base = nullptr;
PyObject* g_str_shape = nullptr;
PyObject* g_str_strides = nullptr;
PyObject* g_str_block_shape = nullptr;
PyObject* g_str_padding = nullptr;
PyObject* g_str_round_f32_to_tf32 = nullptr;
PyObject* g_str_data_ptr = nullptr;
PyObject* g_str_dtype = nullptr;

namespace {

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
}  // namespace triton_jit::python_entry

PyMODINIT_FUNC PyInit__launch() {
  using namespace triton_jit::python_entry;
  set_up_kernel_type();
  set_up_launcher_type();
  set_up_meta_type();
  set_up_redirect_type();
  if (PyType_Ready(&g_kernel_type) != 0 || PyType_Ready(&g_launcher_type) != 0 || PyType_Ready(&g_meta_type) != 0 ||
      PyType_Ready(&g_redirect_type) != 0)
    return nullptr;
  for (OptionName& o : g_options) o.interned = PyUnicode_InternFromString(o.text);
  g_str_base = PyUnicode_InternFromString("base");
  g_str_shape = PyUnicode_InternFromString("shape");
  g_str_strides = PyUnicode_InternFromString("strides");
  g_str_block_shape = PyUnicode_InternFromString("block_shape");
  g_str_padding = PyUnicode_InternFromString("padding");
  g_str_round_f32_to_tf32 = PyUnicode_InternFromString("round_f32_to_tf32");
  g_str_data_ptr = PyUnicode_InternFromString("data_ptr");
  g_str_dtype = PyUnicode_InternFromString("dtype");
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
  Py_INCREF(&g_redirect_type);
  PyModule_AddObject(m, "Redirect", reinterpret_cast<PyObject*>(&g_redirect_type));
  Py_INCREF(g_compile_error);
  PyModule_AddObject(m, "CompileError", g_compile_error);
  Py_INCREF(g_driver_error);
  PyModule_AddObject(m, "DriverError", g_driver_error);
  return m;
}
