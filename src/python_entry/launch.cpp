// Note [Cost of a Python launch]
// A launch from Python is on the same budget as one from C++, less the interpreter's own call:
// - the Launcher is called through vectorcall, and `kernel[grid]` hands back the Kernel's one
//   Launcher when nobody else holds it, so a call with a tuple grid allocates nothing;
// - tensors are read from torch's C++ object (THPVariable_Unpack), never through attributes;
// - keyword names are matched by pointer first (CPython interns identifiers, and so do we);
// - a `lambda META: ...` grid gets a mapping that reads the call's arguments lazily, not a dict
//   filled with every parameter on every call.
// Everything else (encoding, the variant cache, decorators) is the C++ runtime's hot path.

#include "python_entry/launch.h"

#include <triton_jit/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "python_entry/binding.h"
#include "python_entry/errors.h"
#include "python_entry/grid.h"
#include "python_entry/redirect.h"

namespace triton_jit::python_entry {

PyTypeObject g_launcher_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

PyObject* variant_info_to_python(const triton_jit::VariantInfo& info) {
  PyObject* ir = PyDict_New();  // the texts kept with TRITON_JIT_KEEP_IR=1, by stage
  for (const auto& t : info.ir) {
    PyObject* text = ir ? PyUnicode_FromStringAndSize(t.text.data(), static_cast<Py_ssize_t>(t.text.size())) : nullptr;
    if (text == nullptr || PyDict_SetItemString(ir, std::string(t.stage).c_str(), text) != 0) {
      Py_XDECREF(text);
      Py_XDECREF(ir);
      return nullptr;
    }
    Py_DECREF(text);
  }
  if (ir == nullptr) return nullptr;
  return Py_BuildValue("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:N}", "kernel_name", info.kernel_name.c_str(),
                       "signature", info.signature.c_str(), "target", info.target.c_str(), "triton_version",
                       info.triton_version.c_str(), "num_warps", info.num_warps, "num_ctas", info.num_ctas,
                       "shared_memory", info.shared_memory, "n_regs", info.n_regs, "n_spills", info.n_spills,
                       "max_threads_per_block", info.max_threads_per_block, "ir", ir);
}

// Note [Globals changed at run time]
// Triton reads the globals a kernel uses (and the functions it calls use) when it first computes
// the kernel's cache key, and refuses every later launch once one of them holds another value:
// "Global variable X has changed since we compiled this kernel". A launch through this entry does
// the same with the same JITFunction's record (used_global_vals), so a program sees what Triton
// would show it. C++ callers are not checked: their kernels' modules are imported by the runtime,
// where no program code runs after the import. Nothing is persisted under a changed value either:
// the compile script reads such a global as computed, not pinned by its source
// (triton_jit_values.py), and a Python host checks a cached entry's values against its own
// (variant_builder.cpp, Note [Values computed at import]).
bool read_watched_globals(KernelObject* k) {
  PyObject* key = PyObject_GetAttrString(k->watched, "cache_key");  // fills used_global_vals
  if (key == nullptr) return false;
  Py_DECREF(key);
  PyObject* used = PyObject_GetAttrString(k->watched, "used_global_vals");
  if (used == nullptr || !PyDict_Check(used)) {
    Py_XDECREF(used);
    PyErr_Clear();  // a Triton without the record: nothing to check, as that Triton checks nothing
    k->globals = new std::vector<PyObject*>();
    return true;
  }
  auto globals = std::make_unique<std::vector<PyObject*>>();
  PyObject *item_key, *item_value;
  Py_ssize_t position = 0;
  while (PyDict_Next(used, &position, &item_key, &item_value)) {
    // {(name, id(globals)): (value, globals)}
    if (!PyTuple_Check(item_key) || PyTuple_GET_SIZE(item_key) < 1 || !PyTuple_Check(item_value) ||
        PyTuple_GET_SIZE(item_value) < 2 || !PyDict_Check(PyTuple_GET_ITEM(item_value, 1))) {
      continue;
    }
    for (PyObject* o :
         {PyTuple_GET_ITEM(item_value, 1), PyTuple_GET_ITEM(item_key, 0), PyTuple_GET_ITEM(item_value, 0)}) {
      Py_INCREF(o);
      globals->push_back(o);
    }
  }
  Py_DECREF(used);
  k->globals = globals.release();
  return true;
}

bool watched_globals_hold(KernelObject* k) {
  if (k->globals == nullptr && !read_watched_globals(k)) return false;
  const std::vector<PyObject*>& g = *k->globals;
  for (std::size_t i = 0; i < g.size(); i += 3) {
    PyObject* now = PyDict_GetItemWithError(g[i], g[i + 1]);  // borrowed
    if (now == g[i + 2]) [[likely]]
      continue;
    if (now == nullptr && PyErr_Occurred()) return false;
    const int differs = now == nullptr ? 1 : PyObject_RichCompareBool(now, g[i + 2], Py_NE);
    if (differs < 0) return false;
    if (differs == 1) {
      PyErr_Format(PyExc_RuntimeError, "Global variable %S has changed since we compiled this kernel, from %S to %S",
                   g[i + 1], g[i + 2], now != nullptr ? now : Py_None);
      return false;
    }
  }
  return true;
}

void launcher_dealloc(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_XDECREF(l->kernel);
  Py_XDECREF(l->grid);
  Py_XDECREF(l->triton);
  Py_XDECREF(l->redirect);
  Py_TYPE(self)->tp_free(self);
}

int launcher_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_VISIT(l->kernel);
  Py_VISIT(l->grid);
  Py_VISIT(l->triton);
  Py_VISIT(l->redirect);
  return 0;
}

int launcher_clear(PyObject* self) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  Py_CLEAR(l->kernel);
  Py_CLEAR(l->grid);
  Py_CLEAR(l->triton);
  Py_CLEAR(l->redirect);
  return 0;
}

void launcher_dealloc_gc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  launcher_dealloc(self);
}

}  // namespace

PyObject* run_call(KernelObject* k, PyObject* grid, PyObject* const* args, std::size_t nargs, PyObject* kwnames,
                   Mode mode, bool grid_keyword) {
  if (k->watched != nullptr && !watched_globals_hold(k)) return nullptr;
  try {
    BoundCall call;
    triton_jit::CompileOptions options;
    bind(k, args, nargs, kwnames, call, options, grid_keyword);
    if (grid_keyword) grid = call.grid == Py_None ? nullptr : call.grid;
    if (call.warmup && mode == Mode::kLaunch) mode = Mode::kWarmup;  // run(..., warmup=True)
    CallSlots slots;
    slots.warmup = mode == Mode::kWarmup;
    slots.tensors_whole = k->params->decorated;
    encode(k, call, slots);
    GridCall grid_call{k, grid, &call};
    if (grid == nullptr) {
      if (mode == Mode::kLaunch) {
        PyErr_Format(PyExc_TypeError, "%s: a launch needs a grid: kernel[grid](...) or kernel.run(..., grid=...)",
                     kernel_name(k));
        return nullptr;
      }
    } else if (PyTuple_Check(grid) || PyList_Check(grid)) {
      call.config.grid = grid_of_sequence(k, grid);
    } else if (PyCallable_Check(grid)) {
      call.config.grid_fn = call_grid;
      call.config.grid_data = &grid_call;
    } else {
      grid_of_sequence(k, grid);  // throws the message
    }
    if (mode != Mode::kWarmup) {
      call.config.stream = slots.device >= 0
                               ? triton_jit::torch_adapter::current_stream(static_cast<c10::DeviceIndex>(slots.device))
                               : triton_jit::torch_adapter::current_stream();
    }
    switch (mode) {
      case Mode::kLaunch:
        if (slots.nested) {
          k->function->launch_nested(call.config, slots.slots, slots.size);
        } else {
          k->function->launch(call.config, slots.slots, slots.size);
        }
        Py_RETURN_NONE;
      case Mode::kWarmup:
        return variant_info_to_python(slots.nested ? k->function->warmup_nested(call.config, slots.slots, slots.size)
                                                   : k->function->warmup(call.config, slots.slots, slots.size));
      case Mode::kPrepare:
        return variant_info_to_python(slots.nested ? k->function->prepare_nested(call.config, slots.slots, slots.size)
                                                   : k->function->prepare(call.config, slots.slots, slots.size));
    }
    Py_RETURN_NONE;
  } catch (...) {
    return set_python_error();
  }
}

PyObject* launcher_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* l = reinterpret_cast<LauncherObject*>(self);
  PyObject* result = run_call(l->kernel, l->grid, args, PyVectorcall_NARGS(nargsf), kwnames, Mode::kLaunch, false);
  if (result == nullptr && l->triton != nullptr) [[unlikely]]
    return fall_back_to_triton(l, args, nargsf, kwnames);
  return result;
}

void set_up_launcher_type() {
  g_launcher_type.tp_name = "triton_jit.Launcher";
  g_launcher_type.tp_basicsize = sizeof(LauncherObject);
  g_launcher_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  g_launcher_type.tp_doc = "kernel[grid]: called with the kernel's arguments, launches it.";
  g_launcher_type.tp_vectorcall_offset = offsetof(LauncherObject, vectorcall);
  g_launcher_type.tp_call = PyVectorcall_Call;
  g_launcher_type.tp_dealloc = launcher_dealloc_gc;
  g_launcher_type.tp_traverse = launcher_traverse;
  g_launcher_type.tp_clear = launcher_clear;
}

}  // namespace triton_jit::python_entry
