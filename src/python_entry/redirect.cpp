#include "python_entry/redirect.h"

namespace triton_jit::python_entry {

PyTypeObject g_redirect_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

// Note [install() in C]
// Every kernel[grid](...) of an unedited program passes here once install() ran, so this is a
// method descriptor called with (kernel, grid) by vectorcall, not a Python function: it finds the
// kernel's launcher by the object's address (Triton's kernels hash slowly), reads Triton's hooks
// straight from their owners, and hands out the runtime's own Launcher, marked with the Triton
// object so that a call the runtime refuses falls back to Triton's launch without a wrapper.
struct RedirectObject {
  PyObject ob_base;  // PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* original;   // the class's own __getitem__ before install()
  PyObject* served;     // {id(object): (object, Kernel or None: Triton's launch)}
  PyObject* serve;      // redirect._serve(object), at a kernel's first launch
  PyObject* fall_back;  // redirect._fall_back(object, grid, original, error, args, kwargs)
  PyObject* hooks;      // ((owner, name), ...): Triton's launch and compile hooks
  PyObject* chain;      // triton.knobs.HookChain (a hook set when it holds one), or None
};

PyObject* g_str_calls = nullptr;

// 1 when one of Triton's hooks is set, 0 when none is, -1 with an exception set.
int any_hook_set(const RedirectObject* r) {
  const Py_ssize_t n = PyTuple_GET_SIZE(r->hooks);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* pair = PyTuple_GET_ITEM(r->hooks, i);
    PyObject* hook = PyObject_GetAttr(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
    if (hook == nullptr) return -1;
    int set = hook != Py_None;
    if (set && reinterpret_cast<PyObject*>(Py_TYPE(hook)) == r->chain) {
      PyObject* calls = PyObject_GetAttr(hook, g_str_calls);
      set = calls == nullptr ? -1 : PyObject_IsTrue(calls);
      Py_XDECREF(calls);
    }
    Py_DECREF(hook);
    if (set != 0) return set;
  }
  return 0;
}

PyObject* redirect_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* r = reinterpret_cast<RedirectObject*>(self);
  if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != nullptr) {
    PyErr_SetString(PyExc_TypeError, "triton_jit: kernel.__getitem__ takes the kernel and a grid");
    return nullptr;
  }
  PyObject* triton = args[0];
  PyObject* grid = args[1];
  PyObject* key = PyLong_FromVoidPtr(triton);
  if (key == nullptr) return nullptr;
  PyObject* entry = PyDict_GetItemWithError(r->served, key);  // borrowed
  Py_DECREF(key);
  PyObject* kernel;
  if (entry != nullptr) [[likely]] {
    kernel = PyTuple_GET_ITEM(entry, 1);
    Py_INCREF(kernel);
  } else {
    if (PyErr_Occurred()) return nullptr;
    kernel = PyObject_CallOneArg(r->serve, triton);
    if (kernel == nullptr) return nullptr;
  }
  const int tritons = kernel == Py_None ? 1 : any_hook_set(r);
  if (tritons != 0) {
    Py_DECREF(kernel);
    return tritons < 0 ? nullptr : PyObject_CallFunctionObjArgs(r->original, triton, grid, nullptr);
  }
  PyObject* launcher = PyObject_GetItem(kernel, grid);
  Py_DECREF(kernel);
  if (launcher != nullptr && Py_TYPE(launcher) == &g_launcher_type) {
    auto* l = reinterpret_cast<LauncherObject*>(launcher);
    Py_INCREF(triton);
    Py_XSETREF(l->triton, triton);
    Py_INCREF(self);
    Py_XSETREF(l->redirect, self);
  }
  return launcher;
}

// As a class attribute: itself; from an instance (kernel.__getitem__): bound to it.
PyObject* redirect_get(PyObject* self, PyObject* instance, PyObject*) {
  if (instance == nullptr || instance == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, instance);
}

PyObject* redirect_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *original, *served, *serve, *fall_back, *hooks, *chain;
  static const char* keywords[] = {"original", "served", "serve", "fall_back", "hooks", "chain", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!OOO!O", const_cast<char**>(keywords), &original, &PyDict_Type,
                                   &served, &serve, &fall_back, &PyTuple_Type, &hooks, &chain)) {
    return nullptr;
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(hooks);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* pair = PyTuple_GET_ITEM(hooks, i);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 1))) {
      PyErr_SetString(PyExc_TypeError, "Redirect: hooks must be (owner, name) pairs");
      return nullptr;
    }
  }
  auto* r = PyObject_GC_New(RedirectObject, type);
  if (r == nullptr) return nullptr;
  r->vectorcall = redirect_vectorcall;
  PyObject** fields[] = {&r->original, &r->served, &r->serve, &r->fall_back, &r->hooks, &r->chain};
  PyObject* values[] = {original, served, serve, fall_back, hooks, chain};
  for (std::size_t i = 0; i < 6; ++i) {
    Py_INCREF(values[i]);
    *fields[i] = values[i];
  }
  PyObject_GC_Track(r);
  return reinterpret_cast<PyObject*>(r);
}

int redirect_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* r = reinterpret_cast<RedirectObject*>(self);
  Py_VISIT(r->original);
  Py_VISIT(r->served);
  Py_VISIT(r->serve);
  Py_VISIT(r->fall_back);
  Py_VISIT(r->hooks);
  Py_VISIT(r->chain);
  return 0;
}

int redirect_clear(PyObject* self) {
  auto* r = reinterpret_cast<RedirectObject*>(self);
  Py_CLEAR(r->original);
  Py_CLEAR(r->served);
  Py_CLEAR(r->serve);
  Py_CLEAR(r->fall_back);
  Py_CLEAR(r->hooks);
  Py_CLEAR(r->chain);
  return 0;
}

void redirect_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  redirect_clear(self);
  Py_TYPE(self)->tp_free(self);
}

PyObject* redirect_wrapped(PyObject* self, void*) {
  PyObject* original = reinterpret_cast<RedirectObject*>(self)->original;
  Py_INCREF(original);
  return original;
}

PyGetSetDef g_redirect_getset[] = {
    {"__wrapped__", redirect_wrapped, nullptr, "Triton's own __getitem__ of the class.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// The call's arguments as Python's *args and **kwargs.
bool as_args_and_kwargs(PyObject* const* args, size_t nargsf, PyObject* kwnames, PyObject*& tuple, PyObject*& dict) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  tuple = PyTuple_New(n);
  dict = PyDict_New();
  if (tuple == nullptr || dict == nullptr) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(tuple, i, args[i]);
  }
  const Py_ssize_t nk = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t j = 0; j < nk; ++j) {
    if (PyDict_SetItem(dict, PyTuple_GET_ITEM(kwnames, j), args[n + j]) != 0) return false;
  }
  return true;
}

}  // namespace

PyObject* fall_back_to_triton(LauncherObject* l, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyObject *type, *error, *traceback;
  PyErr_Fetch(&type, &error, &traceback);
  PyErr_NormalizeException(&type, &error, &traceback);
  if (traceback != nullptr && error != nullptr) PyException_SetTraceback(error, traceback);
  auto* r = reinterpret_cast<RedirectObject*>(l->redirect);
  PyObject* triton = l->triton;
  PyObject* grid = l->grid;
  Py_INCREF(r);  // the launcher may be handed out again while Triton's launch runs
  Py_INCREF(triton);
  Py_INCREF(grid);
  PyObject *tuple = nullptr, *dict = nullptr, *result = nullptr;
  if (as_args_and_kwargs(args, nargsf, kwnames, tuple, dict)) {
    result = PyObject_CallFunctionObjArgs(r->fall_back, triton, grid, r->original, error ? error : Py_None, tuple, dict,
                                          nullptr);
  }
  Py_XDECREF(tuple);
  Py_XDECREF(dict);
  Py_XDECREF(type);
  Py_XDECREF(error);
  Py_XDECREF(traceback);
  Py_DECREF(grid);
  Py_DECREF(triton);
  Py_DECREF(r);
  return result;
}

void set_up_redirect_type() {
  g_str_calls = PyUnicode_InternFromString("calls");
  g_redirect_type.tp_name = "triton_jit.Redirect";
  g_redirect_type.tp_basicsize = sizeof(RedirectObject);
  g_redirect_type.tp_flags =
      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR;
  g_redirect_type.tp_doc = "kernel[grid] of Triton's kernel classes once triton_jit.install() ran.";
  g_redirect_type.tp_new = redirect_new;
  g_redirect_type.tp_vectorcall_offset = offsetof(RedirectObject, vectorcall);
  g_redirect_type.tp_call = PyVectorcall_Call;
  g_redirect_type.tp_descr_get = redirect_get;
  g_redirect_type.tp_getset = g_redirect_getset;
  g_redirect_type.tp_traverse = redirect_traverse;
  g_redirect_type.tp_clear = redirect_clear;
  g_redirect_type.tp_dealloc = redirect_dealloc;
}

}  // namespace triton_jit::python_entry
