// The compiler bridge's implementation: the only code that includes pybind11 or takes the GIL.
#include <pthread.h>
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "compiler/compiler_bridge.h"
#include "triton_jit/errors.h"

namespace py = pybind11;

namespace triton_jit::detail {
namespace {

// "3.12" from "3.12.3 (main, ...)" or "3.12.3.final.0"; empty when it is not a version.
std::string major_minor(std::string_view version) {
  const auto first = version.find('.');
  if (first == std::string_view::npos) return "";
  auto end = version.find_first_not_of("0123456789", first + 1);
  if (end == std::string_view::npos) end = version.size();
  return end > first + 1 ? std::string(version.substr(0, end)) : "";
}

// The Python version a virtual environment was made with (its pyvenv.cfg), or empty when the
// executable is not in one. Its site-packages suit that minor version only.
std::string venv_python_version(const std::string& executable) {
  namespace fs = std::filesystem;
  if (executable.empty()) return "";
  const fs::path bin = fs::path(executable).parent_path();
  for (const fs::path& cfg : {bin / "pyvenv.cfg", bin.parent_path() / "pyvenv.cfg"}) {
    std::ifstream in(cfg);
    for (std::string line; std::getline(in, line);) {
      const auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      auto trim = [](std::string text) {
        text.erase(0, text.find_first_not_of(" \t\r"));
        text.erase(text.find_last_not_of(" \t\r") + 1);
        return text;
      };
      const std::string key = trim(line.substr(0, eq));
      if (key == "version" || key == "version_info") return major_minor(trim(line.substr(eq + 1)));
    }
  }
  return "";
}

void start_interpreter(const BridgeConfig& config) {
  // Checked before the interpreter starts: a venv of another minor version would start, then
  // fail to import anything it holds with an error that says nothing of why.
  const std::string venv = venv_python_version(config.python_executable);
  const std::string running = major_minor(Py_GetVersion());
  if (!venv.empty() && !running.empty() && venv != running) {
    throw Error(fmt::format(
        "triton_jit: the Python '{}' (TRITON_JIT_PYTHON, or the one configured at build time) is a virtual "
        "environment of Python {}, but the libpython loaded is Python {}; its packages cannot load there. Make the "
        "environment with Python {}, or set TRITON_JIT_LIBPYTHON to the libpython{}.so of Python {}",
        config.python_executable, venv, running, running, venv, venv));
  }
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
// In the child the forking thread's state is then the interpreter's only one, and it is kept for
// good. Released, it would leave the interpreter with none, and the next thread state would reuse
// the one the interpreter made at start (the thread that started it may be gone in the child),
// which CPython 3.11 and 3.12 never reset: "init_threadstate: thread state already initialized".
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
  (void)PyGILState_Ensure();  // never released: pins this thread's state (see the note)
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

// A module the compile needs is missing: names the interpreter that looked for it (its
// executable, version and prefix) and the variable that points at another. Holds the GIL.
[[noreturn]] void throw_missing_module(py::error_already_set& e, const BridgeConfig& config) {
  std::string module = "?", executable = config.python_executable, version = "?", prefix = "?";
  try {
    module = py::str(e.value().attr("name")).cast<std::string>();
    py::module_ sys = py::module_::import("sys");
    version = major_minor(sys.attr("version").cast<std::string>());
    prefix = sys.attr("prefix").cast<std::string>();
    if (executable.empty()) executable = sys.attr("executable").cast<std::string>();
  } catch (...) {
  }
  const std::string where = fmt::format(
      "No module named '{}' in the Python that compiles kernels ('{}', Python {}, "
      "prefix '{}')",
      module, executable.empty() ? "(the default)" : executable, version, prefix);
  if (module == "triton" || module.starts_with("triton.") || module == "torch") {
    throw CompileError(
        fmt::format("triton_jit: {}; install it there (pip install {}), or set TRITON_JIT_PYTHON to the "
                    "python executable of an environment that has it (for a venv, <venv>/bin/python)",
                    where, module.substr(0, module.find('.'))));
  }
  // The standard library missing: the executable and the libpython are different installations.
  throw CompileError(
      fmt::format("triton_jit: {}: that Python's installation does not match the libpython loaded ('{}'); "
                  "set TRITON_JIT_LIBPYTHON to the libpython3.X.so of that installation, or "
                  "TRITON_JIT_PYTHON to the python of the libpython's own",
                  where, config.libpython.empty() ? "the one already in the process" : config.libpython));
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
      if (py::hasattr(*module_, "KernelImportError"))
        import_error_ = new py::object(module_->attr("KernelImportError"));
      tracebacks_ = config.tracebacks;
      if (py::hasattr(*module_, "set_compile_only_target")) module_->attr("set_compile_only_target")(config.target);
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_ModuleNotFoundError)) throw_missing_module(e, config);
      throw CompileError(fmt::format("triton_jit: cannot import the compile script from '{}' with Python '{}':\n{}",
                                     config.scripts_dir, config.python_executable, format_python_error(e)));
    }
    // Triton is imported now, not at the first compile, so that a Python without it is named
    // as the problem rather than surfacing as a failed compile.
    try {
      py::module_::import("triton");
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_ModuleNotFoundError)) throw_missing_module(e, config);
      throw CompileError(fmt::format("triton_jit: importing triton failed in Python '{}':\n{}",
                                     config.python_executable, format_python_error(e)));
    }
    // (A compile script of a test or a vendor may not have the check.)
    if (py::hasattr(*module_, "unsupported_triton")) {
      if (auto problem = module_->attr("unsupported_triton")().cast<std::string>(); !problem.empty()) {
        throw CompileError("triton_jit: " + problem);
      }
    }
    pthread_atfork(&before_fork, &after_fork_parent, &after_fork_child);
  }

  Described describe(const KernelLocation& where) override {
    py::gil_scoped_acquire gil;
    try {
      py::tuple result = module_->attr("describe")(where.file, where.module, where.function, where.search_path);
      return Described{result[0].cast<std::string>(), sources_of(result[1]),
                       result.size() > 2 ? result[2].cast<std::string>() : std::string("[]")};
    } catch (py::error_already_set& e) {
      throw_translated(e, where);
    } catch (const py::cast_error& e) {
      throw CompileError(
          fmt::format("{}: the compile script returned a malformed description ({})", where.function, e.what()));
    }
  }

  std::string imported_values(const KernelLocation& where) override { return values_of("imported_values", where); }
  std::string host_values(const KernelLocation& where) override { return values_of("host_values", where); }

  std::string values_of(const char* function, const KernelLocation& where) {
    py::gil_scoped_acquire gil;
    try {
      return module_->attr(function)(where.file, where.module, where.function, where.search_path).cast<std::string>();
    } catch (py::error_already_set& e) {
      throw_translated(e, where);
    } catch (const py::cast_error& e) {
      throw CompileError(
          fmt::format("{}: the compile script returned malformed values ({})", where.function, e.what()));
    }
  }

  CompiledBinary compile(const KernelLocation& where, const std::string& request_json) override {
    py::gil_scoped_acquire gil;
    try {
      py::tuple result =
          module_->attr("compile")(where.file, where.module, where.function, where.search_path, request_json);
      CompiledBinary out{result[0].cast<std::string>(), result[1].cast<std::string>(), sources_of(result[2]), {}};
      for (auto stage : result.size() > 3 ? py::list(result[3]) : py::list()) {
        auto pair = stage.cast<py::list>();
        out.ir.emplace_back(pair[0].cast<std::string>(), pair[1].cast<std::string>());
      }
      return out;
    } catch (py::error_already_set& e) {
      throw_translated(e, where);
    } catch (const py::cast_error& e) {
      throw CompileError(
          fmt::format("{}: the compile script returned a malformed result ({})", where.function, e.what()));
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
      return module_
          ->attr("prune_configs")(where.file, where.module, where.function, where.search_path, decorator,
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
    // A kernel module that fails at import: the file, the line and the exception in a few lines;
    // the traceback, mostly the import machinery's frames, at the debug log level.
    if (import_error_ != nullptr && e.matches(*import_error_)) {
      throw CompileError(
          fmt::format("{}: {}\n{}", what, py::str(e.value()).cast<std::string>(),
                      tracebacks_ ? format_python_error(e) : "(TRITON_JIT_LOG_LEVEL=debug adds the Python traceback)"));
    }
    throw CompileError(fmt::format("{}: {}\n{}", what, py::str(e.value()).cast<std::string>(), format_python_error(e)));
  }

  py::object* module_ = nullptr;
  py::object* lookup_error_ = nullptr;
  py::object* import_error_ = nullptr;
  bool tracebacks_ = false;
};

}  // namespace
}  // namespace triton_jit::detail

extern "C" __attribute__((visibility("default"))) triton_jit::detail::CompilerBridge* triton_jit_create_compiler_bridge(
    const triton_jit::detail::BridgeConfig* config) {
  return new triton_jit::detail::PythonBridge(*config);
}
