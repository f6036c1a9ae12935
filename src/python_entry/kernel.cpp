#include "python_entry/kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "common/limits.h"
#include "python_entry/errors.h"
#include "python_entry/launch.h"

namespace triton_jit::python_entry {

using triton_jit::detail::kMaxParams;

PyTypeObject g_kernel_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

PyObject* kernel_subscript(PyObject* self, PyObject* grid) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  LauncherObject* l = k->spare;
  if (l == nullptr || Py_REFCNT(l) != 1) {
    l = PyObject_GC_New(LauncherObject, &g_launcher_type);
    if (l == nullptr) return nullptr;
    l->vectorcall = launcher_vectorcall;
    Py_INCREF(k);
    l->kernel = k;
    l->grid = nullptr;
    l->triton = nullptr;
    l->redirect = nullptr;
    PyObject_GC_Track(l);
    if (k->spare == nullptr) {
      k->spare = l;  // the Kernel's reference; a cycle Kernel -> Launcher -> Kernel, broken in dealloc
      Py_INCREF(l);
    }
  } else {
    Py_INCREF(l);
    Py_CLEAR(l->triton);  // handed out by install()'s kernel[grid] before: not this time
    Py_CLEAR(l->redirect);
  }
  Py_INCREF(grid);
  Py_XSETREF(l->grid, grid);
  return reinterpret_cast<PyObject*>(l);
}

PyObject* kernel_run(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return run_call(reinterpret_cast<KernelObject*>(self), nullptr, args, static_cast<std::size_t>(nargs), kwnames,
                  Mode::kLaunch, true);
}
PyObject* kernel_warmup(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return run_call(reinterpret_cast<KernelObject*>(self), nullptr, args, static_cast<std::size_t>(nargs), kwnames,
                  Mode::kWarmup, true);
}
PyObject* kernel_prepare(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return run_call(reinterpret_cast<KernelObject*>(self), nullptr, args, static_cast<std::size_t>(nargs), kwnames,
                  Mode::kPrepare, true);
}

PyObject* kernel_stats(PyObject* self, PyObject*) {
  const triton_jit::FunctionStats s = reinterpret_cast<KernelObject*>(self)->function->stats();
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d,s:d}", "hits", static_cast<unsigned long long>(s.hits), "remembered",
                       static_cast<unsigned long long>(s.remembered), "variant_misses",
                       static_cast<unsigned long long>(s.variant_misses), "compiles",
                       static_cast<unsigned long long>(s.compiles), "tunings",
                       static_cast<unsigned long long>(s.tunings), "compile_seconds", s.compile_seconds, "load_seconds",
                       s.load_seconds);
}

PyObject* kernel_autotune_configs(PyObject* self, PyObject*) {
  try {
    const std::vector<std::string> configs = reinterpret_cast<KernelObject*>(self)->function->autotune_configs();
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(configs.size()));
    for (std::size_t i = 0; list != nullptr && i < configs.size(); ++i)
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), PyUnicode_FromString(configs[i].c_str()));
    return list;
  } catch (...) {
    return set_python_error();
  }
}

// _watch(jit_function): the program's own JITFunction of this kernel (Note [Globals changed at run time]).
PyObject* kernel_watch(PyObject* self, PyObject* fn) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  Py_INCREF(fn);
  Py_XSETREF(k->watched, fn);
  if (k->globals != nullptr) {
    for (PyObject* o : *k->globals) Py_DECREF(o);
    delete k->globals;
    k->globals = nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* kernel_get_name(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<KernelObject*>(self)->function->name().c_str());
}
PyObject* kernel_get_source_file(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<KernelObject*>(self)->function->source_file().c_str());
}
PyObject* kernel_get_arg_names(PyObject* self, void*) {
  PyObject* names = reinterpret_cast<KernelObject*>(self)->names;
  return PySequence_List(names);
}

PyObject* kernel_repr(PyObject* self) {
  const auto* k = reinterpret_cast<KernelObject*>(self);
  return PyUnicode_FromFormat("<triton_jit.Kernel %s from %s>", k->function->name().c_str(),
                              k->function->source_file().c_str());
}

// Kernel(spec, name): spec is a .py file or "package.module:function" (then name may be "").
int kernel_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  static const char* keywords[] = {"spec", "name", nullptr};
  const char* spec = nullptr;
  const char* name = "";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|s", const_cast<char**>(keywords), &spec, &name)) return -1;
  try {
    k->function = &TritonJITFunction::get_instance(spec, name);
    const std::vector<triton_jit::ParamInfo> params = k->function->params();
    if (params.size() > kMaxParams) {
      throw triton_jit::ValueError(fmt::format("{}: more than {} parameters", k->function->name(), kMaxParams));
    }
    PyObject* names = PyTuple_New(static_cast<Py_ssize_t>(params.size()));
    if (names == nullptr) return -1;
    auto read = std::make_unique<KernelParams>();
    for (std::size_t i = 0; i < params.size(); ++i) {
      PyObject* s = PyUnicode_InternFromString(params[i].name.c_str());
      if (s == nullptr) {
        Py_DECREF(names);
        return -1;
      }
      PyTuple_SET_ITEM(names, static_cast<Py_ssize_t>(i), s);
      read->defaults.push_back(params[i].default_value);
      const bool named_like_option = std::any_of(std::begin(g_options), std::end(g_options),
                                                 [&](const OptionName& o) { return params[i].name == o.text; });
      read->flags.push_back(
          {params[i].has_default, params[i].set_by_decorators, params[i].kind == "constexpr", named_like_option});
      if (!params[i].set_by_decorators) read->user.push_back(static_cast<uint8_t>(i));
      read->decorated = read->decorated || params[i].set_by_decorators;
    }
    // An autotuner whose configs set only options sets no parameter.
    read->decorated = read->decorated || !k->function->autotune_configs().empty();
    Py_XSETREF(k->names, names);
    delete k->params;
    k->params = read.release();
    return 0;
  } catch (...) {
    set_python_error();
    return -1;
  }
}

PyObject* kernel_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self == nullptr) return nullptr;
  auto* k = reinterpret_cast<KernelObject*>(self);
  k->function = nullptr;
  k->names = PyTuple_New(0);
  k->params = new KernelParams();
  k->spare = nullptr;
  k->meta = nullptr;
  k->weakrefs = nullptr;
  k->watched = nullptr;
  k->globals = nullptr;
  return self;
}

int kernel_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  Py_VISIT(k->spare);
  Py_VISIT(k->meta);
  Py_VISIT(k->watched);
  if (k->globals != nullptr) {
    for (PyObject* o : *k->globals) Py_VISIT(o);
  }
  return 0;
}

int kernel_clear(PyObject* self) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  Py_CLEAR(k->spare);
  Py_CLEAR(k->meta);
  Py_CLEAR(k->watched);
  if (k->globals != nullptr) {
    for (PyObject* o : *k->globals) Py_DECREF(o);
    delete k->globals;
    k->globals = nullptr;
  }
  return 0;
}

void kernel_dealloc(PyObject* self) {
  auto* k = reinterpret_cast<KernelObject*>(self);
  PyObject_GC_UnTrack(self);
  if (k->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  kernel_clear(self);
  Py_XDECREF(k->names);
  delete k->params;
  Py_TYPE(self)->tp_free(self);
}

PyMappingMethods g_kernel_mapping = {nullptr, kernel_subscript, nullptr};

#define TJ_FASTCALL(f) reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(f))
PyMethodDef g_kernel_methods[] = {
    {"run", TJ_FASTCALL(kernel_run), METH_FASTCALL | METH_KEYWORDS,
     "run(*args, grid, **kwargs): kernel[grid](*args, **kwargs), as Triton's JITFunction.run."},
    {"warmup", TJ_FASTCALL(kernel_warmup), METH_FASTCALL | METH_KEYWORDS,
     "warmup(*args, grid=None, **kwargs): compiles the variant these arguments select, without a GPU and without "
     "launching; returns its description."},
    {"prepare", TJ_FASTCALL(kernel_prepare), METH_FASTCALL | METH_KEYWORDS,
     "prepare(*args, grid=None, **kwargs): everything a launch does but the launch (heuristics, tuning a new key, "
     "compile, load on the device), before a CUDA graph capture; returns the variant's description."},
    {"stats", kernel_stats, METH_NOARGS, "The function's counters (hits are counted while stats are enabled)."},
    {"autotune_configs", kernel_autotune_configs, METH_NOARGS, "The @triton.autotune configs as text."},
    {"_watch", kernel_watch, METH_O, "Checks the globals of this JITFunction at each call, as Triton does."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef g_kernel_getset[] = {
    {"__name__", kernel_get_name, nullptr, nullptr, nullptr},
    {"source_file", kernel_get_source_file, nullptr, nullptr, nullptr},
    {"arg_names", kernel_get_arg_names, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

void set_up_kernel_type() {
  g_kernel_type.tp_name = "triton_jit.Kernel";
  g_kernel_type.tp_basicsize = sizeof(KernelObject);
  g_kernel_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  g_kernel_type.tp_doc =
      "A Triton kernel launched through triton_jit's runtime: kernel[grid](*args, **kwargs), as Triton's.";
  g_kernel_type.tp_new = kernel_new;
  g_kernel_type.tp_init = kernel_init;
  g_kernel_type.tp_dealloc = kernel_dealloc;
  g_kernel_type.tp_traverse = kernel_traverse;
  g_kernel_type.tp_clear = kernel_clear;
  g_kernel_type.tp_as_mapping = &g_kernel_mapping;
  g_kernel_type.tp_methods = g_kernel_methods;
  g_kernel_type.tp_getset = g_kernel_getset;
  g_kernel_type.tp_repr = kernel_repr;
  g_kernel_type.tp_weaklistoffset = offsetof(KernelObject, weakrefs);
}

}  // namespace triton_jit::python_entry
