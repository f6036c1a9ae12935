#include "python_entry/grid.h"

#include <string_view>

#include "python_entry/errors.h"

namespace triton_jit::python_entry {

PyTypeObject g_meta_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

PyObject* slot_to_python(const ArgSlot& s) {
  switch (s.kind) {
    case ArgKind::kBool:
      return PyBool_FromLong(static_cast<long>(s.value.i));
    case ArgKind::kInt:
      return PyLong_FromLongLong(s.value.i);
    case ArgKind::kUInt:
      return PyLong_FromUnsignedLongLong(s.value.u);
    case ArgKind::kFloat:
      return PyFloat_FromDouble(s.value.f);
    case ArgKind::kString:
      return PyUnicode_FromStringAndSize(s.value.s, s.size);
    default:
      Py_RETURN_NONE;
  }
}

PyObject* meta_lookup(MetaObject* m, PyObject* key, bool raise) {
  if (m->launch_meta == nullptr) {
    PyErr_SetString(PyExc_RuntimeError, "triton_jit: a grid's META is valid only while the grid is called");
    return nullptr;
  }
  if (!PyUnicode_Check(key)) {
    if (raise) PyErr_SetObject(PyExc_KeyError, key);
    return nullptr;
  }
  const Py_ssize_t index = param_index(m->kernel, key);
  if (index >= 0 && m->given[index] != nullptr) {
    Py_INCREF(m->given[index]);
    return m->given[index];
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(key, &size);
  if (text == nullptr) return nullptr;
  const std::string_view name(text, static_cast<std::size_t>(size));
  try {
    if (index < 0) {
      if (name == "num_warps" || name == "num_stages" || name == "num_ctas")
        return PyLong_FromLongLong((*m->launch_meta)[name]);
      if (raise) PyErr_SetObject(PyExc_KeyError, key);
      return nullptr;
    }
    const ArgSlot* s = m->launch_meta->argument(name);
    if (s == nullptr) {
      if (raise) PyErr_SetObject(PyExc_KeyError, key);
      return nullptr;
    }
    return slot_to_python(*s);
  } catch (...) {
    return set_python_error();
  }
}

PyObject* meta_subscript(PyObject* self, PyObject* key) {
  return meta_lookup(reinterpret_cast<MetaObject*>(self), key, true);
}

PyObject* meta_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 1 || nargs > 2) {
    PyErr_SetString(PyExc_TypeError, "get() takes a key and an optional default");
    return nullptr;
  }
  PyObject* v = meta_lookup(reinterpret_cast<MetaObject*>(self), args[0], false);
  if (v != nullptr || PyErr_Occurred()) return v;
  PyObject* fallback = nargs == 2 ? args[1] : Py_None;
  Py_INCREF(fallback);
  return fallback;
}

PyObject* meta_keys(PyObject* self, PyObject*) {
  auto* m = reinterpret_cast<MetaObject*>(self);
  const Py_ssize_t n = PyTuple_GET_SIZE(m->kernel->names);
  PyObject* keys = PyList_New(0);
  if (keys == nullptr) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) PyList_Append(keys, PyTuple_GET_ITEM(m->kernel->names, i));
  for (const char* extra : {"num_warps", "num_stages", "num_ctas"}) {
    PyObject* s = PyUnicode_InternFromString(extra);
    PyList_Append(keys, s);
    Py_XDECREF(s);
  }
  return keys;
}

PyObject* meta_iter(PyObject* self) {
  PyObject* keys = meta_keys(self, nullptr);
  if (keys == nullptr) return nullptr;
  PyObject* it = PyObject_GetIter(keys);
  Py_DECREF(keys);
  return it;
}

PyObject* meta_items(PyObject* self, PyObject*) {
  PyObject* keys = meta_keys(self, nullptr);
  if (keys == nullptr) return nullptr;
  PyObject* items = PyList_New(0);
  for (Py_ssize_t i = 0; items != nullptr && i < PyList_GET_SIZE(keys); ++i) {
    PyObject* v = meta_lookup(reinterpret_cast<MetaObject*>(self), PyList_GET_ITEM(keys, i), false);
    if (v == nullptr) {
      if (PyErr_Occurred()) Py_CLEAR(items);
      continue;
    }
    PyObject* pair = PyTuple_Pack(2, PyList_GET_ITEM(keys, i), v);
    Py_DECREF(v);
    PyList_Append(items, pair);
    Py_XDECREF(pair);
  }
  Py_DECREF(keys);
  return items;
}

int meta_contains(PyObject* self, PyObject* key) {
  PyObject* v = meta_lookup(reinterpret_cast<MetaObject*>(self), key, false);
  if (v == nullptr) return PyErr_Occurred() ? -1 : 0;
  Py_DECREF(v);
  return 1;
}

Py_ssize_t meta_length(PyObject* self) {
  return PyTuple_GET_SIZE(reinterpret_cast<MetaObject*>(self)->kernel->names) + 3;
}

void meta_dealloc(PyObject* self) {
  Py_XDECREF(reinterpret_cast<MetaObject*>(self)->kernel);
  Py_TYPE(self)->tp_free(self);
}

PyMappingMethods g_meta_mapping = {meta_length, meta_subscript, nullptr};
PySequenceMethods g_meta_sequence = {};
PyMethodDef g_meta_methods[] = {
    {"get", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(meta_get)), METH_FASTCALL, nullptr},
    {"keys", meta_keys, METH_NOARGS, nullptr},
    {"items", meta_items, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

int meta_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<MetaObject*>(self)->kernel);
  return 0;
}

int meta_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<MetaObject*>(self)->kernel);
  return 0;
}

void meta_dealloc_gc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  meta_dealloc(self);
}

unsigned grid_dimension(const KernelObject* k, PyObject* v) {
  int overflow = 0;
  long long n = -1;
  if (PyLong_Check(v)) {
    n = PyLong_AsLongLongAndOverflow(v, &overflow);
  } else if (PyIndex_Check(v) && !PyBool_Check(v)) {  // numpy integers, as Triton's grid takes them
    PyObject* index = PyNumber_Index(v);
    if (index != nullptr) {
      n = PyLong_AsLongLongAndOverflow(index, &overflow);
      Py_DECREF(index);
    }
  }
  if (n < 0 || overflow != 0 || n > 0x7fffffffLL) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s: each grid dimension must be an int from 0 to 2**31-1, got %R", kernel_name(k),
                 v);
    throw PythonErrorSet{};
  }
  return static_cast<unsigned>(n);
}

}  // namespace

triton_jit::Grid grid_of_sequence(const KernelObject* k, PyObject* grid) {
  triton_jit::Grid g{1, 1, 1};
  if (PyTuple_Check(grid) || PyList_Check(grid)) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(grid);
    if (n >= 1 && n <= 3) {
      PyObject** items = PySequence_Fast_ITEMS(grid);
      for (Py_ssize_t i = 0; i < n; ++i) g[static_cast<std::size_t>(i)] = grid_dimension(k, items[i]);
      return g;
    }
  }
  PyErr_Format(PyExc_TypeError, "%s: the grid must be a tuple of 1 to 3 ints or a callable returning one, got %R",
               kernel_name(k), grid);
  throw PythonErrorSet{};
}

triton_jit::Grid call_grid(const triton_jit::LaunchMeta& launch_meta, void* data) {
  auto* g = static_cast<GridCall*>(data);
  KernelObject* k = g->kernel;
  MetaObject* meta = reinterpret_cast<MetaObject*>(k->meta);
  if (meta == nullptr || Py_REFCNT(meta) != 1) {
    Py_XDECREF(k->meta);  // a grid kept the last one: it is invalid already, and stays the grid's
    meta = PyObject_GC_New(MetaObject, &g_meta_type);
    if (meta == nullptr) throw PythonErrorSet{};
    Py_INCREF(k);
    meta->kernel = k;
    meta->given = nullptr;
    meta->launch_meta = nullptr;
    PyObject_GC_Track(meta);
    k->meta = reinterpret_cast<PyObject*>(meta);
  }
  meta->given = g->call->given.data();
  meta->launch_meta = &launch_meta;
  // Held here too: a grid that launches this kernel again replaces the Kernel's reference.
  Py_INCREF(meta);
  PyObject* result = PyObject_CallOneArg(g->grid, reinterpret_cast<PyObject*>(meta));
  meta->launch_meta = nullptr;
  Py_DECREF(meta);
  if (result == nullptr) throw PythonErrorSet{};
  triton_jit::Grid grid;
  try {
    grid = grid_of_sequence(k, result);
  } catch (...) {
    Py_DECREF(result);
    throw;
  }
  Py_DECREF(result);
  return grid;
}

void set_up_meta_type() {
  g_meta_type.tp_name = "triton_jit.LaunchMeta";
  g_meta_type.tp_basicsize = sizeof(MetaObject);
  g_meta_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  g_meta_type.tp_doc = "A call's arguments by name, as a grid callable reads them (META).";
  g_meta_type.tp_as_mapping = &g_meta_mapping;
  g_meta_sequence.sq_contains = meta_contains;
  g_meta_type.tp_as_sequence = &g_meta_sequence;
  g_meta_type.tp_iter = meta_iter;
  g_meta_type.tp_methods = g_meta_methods;
  g_meta_type.tp_dealloc = meta_dealloc_gc;
  g_meta_type.tp_traverse = meta_traverse;
  g_meta_type.tp_clear = meta_clear;
}

}  // namespace triton_jit::python_entry
