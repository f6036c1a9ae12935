// The compiler bridge's implementation: the only code that includes pybind11 or takes the GIL.
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
  }

  std::string describe(const std::string& spec, const std::string& name,
                       const std::vector<std::string>& search_path) override {
    py::gil_scoped_acquire gil;
    try {
      return module_->attr("describe")(spec, name, search_path).cast<std::string>();
    } catch (py::error_already_set& e) {
      throw_translated(e, fmt::format("{}:{}", spec, name));
    }
  }

  CompiledBinary compile(const std::string& spec, const std::string& name, const std::vector<std::string>& search_path,
                         const std::string& request_json) override {
    py::gil_scoped_acquire gil;
    try {
      py::tuple result = module_->attr("compile")(spec, name, search_path, request_json);
      return CompiledBinary{result[0].cast<std::string>(), result[1].cast<std::string>()};
    } catch (py::error_already_set& e) {
      throw_translated(e, name);
    }
  }

 private:
  [[noreturn]] void throw_translated(py::error_already_set& e, const std::string& what) {
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
