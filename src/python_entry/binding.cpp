#include "python_entry/binding.h"

#include <algorithm>
#include <memory>
#include <string>

#include "python_entry/errors.h"

namespace triton_jit::python_entry {

namespace {

LaunchOption option_of(PyObject* name) noexcept {
  for (const OptionName& o : g_options) {
    if (o.interned == name) return o.option;
  }
  // The options' names are interned, and so is a keyword written in the caller's source: an
  // interned name that is none of them by address is none of them (Note [Interned names]).
  if (PyUnicode_CHECK_INTERNED(name)) [[likely]]
    return LaunchOption::kNone;
  for (const OptionName& o : g_options) {
    if (PyUnicode_CompareWithASCIIString(name, o.text) == 0) return o.option;
  }
  return LaunchOption::kNone;
}

int as_option_int(const KernelObject* k, PyObject* name, PyObject* value) {
  if (!PyLong_Check(value) || value == Py_True || value == Py_False) throw_type_error(k, name, "must be an int", value);
  const int64_t v = as_int64(k, name, value, "must be an int");
  if (v < 0 || v > (1 << 20)) {
    PyErr_Format(PyExc_ValueError, "%s: %U must be from 0 to 2**20, got %lld", kernel_name(k), name,
                 static_cast<long long>(v));
    throw PythonErrorSet{};
  }
  return static_cast<int>(v);
}

// The options that select a variant's compile (num_warps, num_stages, num_ctas, maxnreg) from a
// keyword; false for any other name.
bool set_variant_option(const KernelObject* k, LaunchOption option, PyObject* name, PyObject* value,
                        LaunchConfig& config) {
  switch (option) {
    case LaunchOption::kNumWarps:
      config.num_warps = as_option_int(k, name, value);
      return true;
    case LaunchOption::kNumStages:
      config.num_stages = as_option_int(k, name, value);
      return true;
    case LaunchOption::kNumCtas:
      config.num_ctas = as_option_int(k, name, value);
      return true;
    case LaunchOption::kMaxnreg:
      config.maxnreg = value == Py_None ? 0 : as_option_int(k, name, value);
      return true;
    default:
      return false;
  }
}

// Python's literal of an option for CompileOptions::set.
void set_compile_option(const KernelObject* k, triton_jit::CompileOptions& options, PyObject* name, PyObject* value) {
  const char* key = PyUnicode_AsUTF8(name);
  if (key == nullptr) throw PythonErrorSet{};
  if (value == Py_True || value == Py_False) {
    options.set(key, value == Py_True);
  } else if (PyLong_Check(value)) {
    options.set(key, static_cast<long long>(as_int64(k, name, value, "must fit in 64 bits")));
  } else if (PyFloat_Check(value)) {
    options.set(key, PyFloat_AS_DOUBLE(value));
  } else if (PyUnicode_Check(value)) {
    options.set(key, std::string(PyUnicode_AsUTF8(value)));
  } else {
    PyErr_Format(PyExc_TypeError,
                 "%s: keyword argument '%U' is neither a parameter of the kernel nor a launch option; as a "
                 "compile option of the installed Triton it must be a bool, int, float or str, got %.100s",
                 kernel_name(k), name, Py_TYPE(value)->tp_name);
    throw PythonErrorSet{};
  }
}

}  // namespace

// Note [Interned names]
// Every keyword of a call is matched against the kernel's parameter names and the launch options,
// both interned when the Kernel and the module are made. CPython interns the keyword names a
// caller writes in its source, so they match by address; an interned name that matches none by
// address matches none, since two interned strings of one text are one object. Only a name built
// at run time (a **kwargs key made by code) is compared by text, as it was for every miss before.
Py_ssize_t param_index(const KernelObject* k, PyObject* name) noexcept {
  const Py_ssize_t n = PyTuple_GET_SIZE(k->names);
  // From the last: keywords name the trailing parameters (constexprs, options) far more often.
  for (Py_ssize_t i = n - 1; i >= 0; --i) {
    if (PyTuple_GET_ITEM(k->names, i) == name) return i;
  }
  if (PyUnicode_CHECK_INTERNED(name)) [[likely]]
    return -1;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyUnicode_Compare(PyTuple_GET_ITEM(k->names, i), name) == 0) return i;
  }
  PyErr_Clear();
  return -1;
}

void bind(const KernelObject* k, PyObject* const* args, std::size_t nargs, PyObject* kwnames, BoundCall& call,
          triton_jit::CompileOptions& storage, bool grid_keyword) {
  const std::vector<uint8_t>& user = k->params->user;
  if (nargs > user.size()) {
    PyErr_Format(PyExc_TypeError, "%s takes %zu arguments, got %zu", kernel_name(k), user.size(), nargs);
    throw PythonErrorSet{};
  }
  std::fill_n(call.given.begin(), PyTuple_GET_SIZE(k->names), nullptr);
  for (std::size_t i = 0; i < nargs; ++i) call.given[user[i]] = args[i];
  call.num_given = nargs;
  std::size_t num_bound = nargs;  // parameters given, by position or by name
  if (kwnames != nullptr) {
    const Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < nk; ++j) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, j);
      PyObject* value = args[nargs + static_cast<std::size_t>(j)];
      const Py_ssize_t index = param_index(k, name);
      if (index >= 0) {
        if (k->params->flags[static_cast<std::size_t>(index)].set_by_decorators) {
          // Triton's autotuner refuses it too; its heuristics would overwrite it.
          PyErr_Format(PyExc_ValueError,
                       "%s: argument '%U' is set by the kernel's @triton.autotune configs or @triton.heuristics; "
                       "leave it out",
                       kernel_name(k), name);
          throw PythonErrorSet{};
        }
        if (call.given[static_cast<std::size_t>(index)] != nullptr) {
          PyErr_Format(PyExc_TypeError, "%s: got multiple values for argument '%U'", kernel_name(k), name);
          throw PythonErrorSet{};
        }
        call.given[static_cast<std::size_t>(index)] = value;
        ++num_bound;
        const auto at = std::find(user.begin(), user.end(), static_cast<uint8_t>(index));
        call.num_given = std::max(call.num_given, static_cast<std::size_t>(at - user.begin()) + 1);
        // A parameter named like a launch option (Gluon's `num_warps: gl.constexpr`): Triton
        // builds the options from the same keywords, so the one value is both.
        if (k->params->flags[static_cast<std::size_t>(index)].named_like_option) {
          set_variant_option(k, option_of(name), name, value, call.config);
        }
        continue;
      }
      const LaunchOption option = option_of(name);
      if (set_variant_option(k, option, name, value, call.config)) continue;
      switch (option) {
        case LaunchOption::kNumWarps:
        case LaunchOption::kNumStages:
        case LaunchOption::kNumCtas:
        case LaunchOption::kMaxnreg:
          break;  // set above
        case LaunchOption::kEnableFpFusion:
          call.config.enable_fp_fusion = PyObject_IsTrue(value) == 1;
          break;
        case LaunchOption::kLaunchPdl:
          call.config.launch_pdl = PyObject_IsTrue(value) == 1;
          break;
        case LaunchOption::kLaunchCooperativeGrid:
          call.config.launch_cooperative_grid = PyObject_IsTrue(value) == 1;
          break;
        case LaunchOption::kGrid:
          if (grid_keyword) {
            call.grid = value;
            break;
          }
          set_compile_option(k, storage, name, value);
          call.options = &storage;
          break;
        case LaunchOption::kWarmup:
          if (grid_keyword) {
            call.warmup = PyObject_IsTrue(value) == 1;
            break;
          }
          [[fallthrough]];
        case LaunchOption::kNone:
          set_compile_option(k, storage, name, value);
          call.options = &storage;
          break;
      }
    }
  }
  // A parameter left out before one given takes its default, as Python fills it. None is left
  // out when as many were given as the last one's position.
  for (std::size_t u = 0; num_bound != call.num_given && u < call.num_given; ++u) {
    const std::size_t i = user[u];
    if (call.given[i] == nullptr && !k->params->flags[i].has_default) {
      PyErr_Format(PyExc_TypeError, "%s: missing argument '%U'", kernel_name(k), PyTuple_GET_ITEM(k->names, i));
      throw PythonErrorSet{};
    }
  }
  if (call.options != nullptr) call.config.compile_options = call.options;
}

void encode(const KernelObject* k, const BoundCall& call, CallSlots& out) {
  const uint8_t* user = k->params->user.data();
  for (std::size_t u = 0; u < call.num_given; ++u) {
    const std::size_t i = user[u];
    PyObject* value = call.given[i];
    int64_t small;
    if (value != nullptr && out.size < kMaxCallSlots && read_small_int(value, small)) [[likely]] {
      ArgSlot& s = *std::construct_at(&out.slots[out.size++]);  // Note [Integers read inline]
      s.kind = ArgKind::kInt;
      s.value.i = small;
      continue;
    }
    if (value == nullptr) {
      const ArgSlot& d = k->params->defaults[i];
      if (d.kind == ArgKind::kUnsupported) {
        PyErr_Format(PyExc_TypeError, "%s: argument '%U' must be passed: its default is %s", kernel_name(k),
                     PyTuple_GET_ITEM(k->names, i), d.value.s);
        throw PythonErrorSet{};
      }
      add_slot(out, d);
    } else {
      add_argument(k, PyTuple_GET_ITEM(k->names, i), value, out, k->params->flags[i].is_constexpr);
    }
  }
}

}  // namespace triton_jit::python_entry
