// The compiler bridge's implementation: the only code that includes pybind11 or takes the GIL.
#include <pthread.h>
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include "compiler/compiler_bridge.h"
#include "triton_jit/errors.h"

namespace py = pybind11;

namespace triton_jit::detail {
namespace {

void start_interpreter(const BridgeConfig& config) {
  PyConfig py_config;
  PyConfig_InitPythonConfig(&py_config);
  py_config.install_signal_handlers = 0;  // the host owns its signals
  py_config.parse_argv = 0;
  // Starting from the configured executable lets Python find its prefix and a venv's pyvenv.cfg.
  if (!config.python_executable.empty()) {
    PyStatus status = PyConfig_SetBytesString(&py_config, &py_config.program_name, config.python_executable.c_str());
    if (PyStatus_Exception(status)) {
      PyConfig_Clear(&py_config);
      throw Error("triton_jit: could not configure the embedded Python interpreter");
    }
  }
  PyStatus status = Py_InitializeFromConfig(&py_config);
  PyConfig_Clear(&py_config);
  if (PyStatus_Exception(status)) {
    throw Error(fmt::format("triton_jit: the embedded Python interpreter failed to start: {}",
                            status.err_msg ? status.err_msg : "unknown error"));
  }
  // The thread that started Python holds the GIL; release it so that every caller, this
  // thread included, takes it through gil_scoped_acquire.
  PyEval_SaveThread();
}

// Note [Fork and the interpreter]
// A fork() while another thread runs Python (a compile) leaves the child with a GIL held by a
// thread that does not exist there, and the import lock too. Like os.fork(), we take the GIL
// and the import lock before the fork (PyOS_BeforeFork) and let the interpreter rebuild its
// thread state in the child (PyOS_AfterFork_Child), so that the child can compile afresh. A
// thread that forks while holding the GIL is a Python thread using os.fork(), which does this
// itself. These handlers are registered after the core's, so they run before the core locks
// its own mutexes (no thread holds those while it waits for the GIL).
thread_local PyGILState_STATE t_fork_gil;
thread_local bool t_fork_prepared = false;

void before_fork() {
  if (!Py_IsInitialized() || PyGILState_Check()) return;
  t_fork_gil = PyGILState_Ensure();
  PyOS_BeforeFork();
  t_fork_prepared = true;
}
void after_fork_parent() {
  if (!t_fork_prepared) return;
  t_fork_prepared = false;
  PyOS_AfterFork_Parent();
  PyGILState_Release(t_fork_gil);
}
void after_fork_child() {
  if (!t_fork_prepared) return;
  t_fork_prepared = false;
  PyOS_AfterFork_Child();
  PyGILState_Release(t_fork_gil);
}

std::string format_python_error(py::error_already_set& e) {
  try {
    py::module_ traceback = py::module_::import("traceback");
    py::list lines = traceback.attr("format_exception")(e.type(), e.value(), e.trace());
    std::string text;
    for (auto line : lines) text += line.cast<std::string>();
    return text;
  } catch (...) {
    return e.what();
  }
}

std::vector<SourceText> sources_of(const py::handle& list) {
  std::vector<SourceText> out;
  for (auto item : list) {
    auto pair = item.cast<py::tuple>();
    out.push_back(SourceText{pair[0].cast<std::string>(), pair[1].cast<py::bytes>()});
  }
  return out;
}

class PythonBridge final : public CompilerBridge {
 public:
  explicit PythonBridge(const BridgeConfig& config) {
    if (!Py_IsInitialized()) start_interpreter(config);
    py::gil_scoped_acquire gil;
    try {
      py::module_ sys = py::module_::import("sys");
      sys.attr("path").attr("insert")(0, config.scripts_dir);
      // Leaked on purpose: destroying a Python object at exit needs a GIL nobody may hold then.
      module_ = new py::object(py::module_::import("triton_jit_compile"));
      lookup_error_ = new py::object(module_->attr("KernelLookupError"));
    } catch (py::error_already_set& e) {
      throw CompileError(fmt::format("triton_jit: cannot import the compile script from '{}' with Python '{}':\n{}",
                                     config.scripts_dir, config.python_executable, format_python_error(e)));
    }
    pthread_atfork(&before_fork, &after_fork_parent, &after_fork_child);
  }

  Described describe(const KernelLocation& where) override {
    py::gil_scoped_acquire gil;
    try {
      py::tuple result = module_->attr("describe")(where.file, where.module, where.function, where.search_path);
      return Described{result[0].cast<std::string>(), sources_of(result[1])};
    } catch (py::error_already_set& e) {
      throw_translated(e, where);
    } catch (const py::cast_error& e) {
      throw CompileError(fmt::format("{}: the compile script returned a malformed description ({})", where.function,
                                     e.what()));
    }
  }

  CompiledBinary compile(const KernelLocation& where, const std::string& request_json) override {
    py::gil_scoped_acquire gil;
    try {
      py::tuple result =
          module_->attr("compile")(where.file, where.module, where.function, where.search_path, request_json);
      return CompiledBinary{result[0].cast<std::string>(), result[1].cast<std::string>(), sources_of(result[2])};
    } catch (py::error_already_set& e) {
      throw_translated(e, where);
    } catch (const py::cast_error& e) {
      throw CompileError(fmt::format("{}: the compile script returned a malformed result ({})", where.function,
                                     e.what()));
    }
  }

  std::string evaluate_heuristic(const KernelLocation& where, std::size_t decorator, const std::string& name,
                                 const std::string& arguments_json) override {
    py::gil_scoped_acquire gil;
    try {
      return module_
          ->attr("evaluate_heuristic")(where.file, where.module, where.function, where.search_path, decorator, name,
                                       arguments_json)
          .cast<std::string>();
    } catch (py::error_already_set& e) {
      throw Error(fmt::format("{}: heuristic '{}' failed in Python: {}", where.function, name,
                              py::str(e.value()).cast<std::string>()));
    }
  }

  std::string prune_configs(const KernelLocation& where, std::size_t decorator,
                            const std::string& arguments_json) override {
    py::gil_scoped_acquire gil;
    try {
      return module_->attr("prune_configs")(where.file, where.module, where.function, where.search_path, decorator,
                                            arguments_json)
          .cast<std::string>();
    } catch (py::error_already_set& e) {
      throw Error(fmt::format("{}: prune_configs_by failed in Python: {}\n{}", where.function,
                              py::str(e.value()).cast<std::string>(), format_python_error(e)));
    }
  }

 private:
  [[noreturn]] void throw_translated(py::error_already_set& e, const KernelLocation& where) {
    const std::string what = where.function.empty() ? (where.file.empty() ? where.module : where.file) : where.function;
    if (e.matches(*lookup_error_)) {
      throw LookupError(fmt::format("{}: {}", what, py::str(e.value()).cast<std::string>()));
    }
    throw CompileError(fmt::format("{}: {}\n{}", what, py::str(e.value()).cast<std::string>(), format_python_error(e)));
  }

  py::object* module_ = nullptr;
  py::object* lookup_error_ = nullptr;
};

}  // namespace
}  // namespace triton_jit::detail

extern "C" __attribute__((visibility("default"))) triton_jit::detail::CompilerBridge* triton_jit_create_compiler_bridge(
    const triton_jit::detail::BridgeConfig* config) {
  return new triton_jit::detail::PythonBridge(*config);
}
