#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "common/env.h"
#include "common/log.h"
#include "common/target.h"
#include "compiler/compiler_bridge.h"
#include "compiler/paths.h"
#include "triton_jit/errors.h"
#include "triton_jit/settings.h"

// Note [One interpreter per process]
// In a Python host (ops loaded with torch.ops.load_library), the interpreter's symbols are
// already global (often linked statically into the python3 executable): we load only the
// bridge and take the GIL. In a C++ host we load libpython with RTLD_GLOBAL first, then the
// bridge, which is built without a libpython link so that it never pulls in a second copy.

namespace triton_jit::detail {
namespace {

std::atomic<CompilerBridge*> g_bridge{nullptr};
std::mutex g_bridge_mutex;
std::atomic<bool> g_python_host{false};  // set with g_bridge: the interpreter was running before it

bool python_already_running() {
  using IsInitialized = int (*)();
  auto fn = reinterpret_cast<IsInitialized>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  return fn != nullptr && fn() != 0;
}

// Returns the libpython loaded, for messages.
std::string load_libpython(const std::string& python) {
  std::string path = env_or("TRITON_JIT_LIBPYTHON", "");
  if (path.empty()) path = libpython_for(python);
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* why = dlerror();
    // A bare soname is the fallback taken when the Python did not say where its libpython is.
    const std::string unanswered = path.find('/') == std::string::npos
                                       ? fmt::format(" ('{}' did not name its libpython: run it with {} to see why)",
                                                     python, (scripts_dir() / "triton_jit_libpython.py").string())
                                       : std::string();
    throw Error(fmt::format(
        "triton_jit: compiling needs Python, and libpython could not be loaded from '{}' ({}) for the Python '{}'{}; "
        "set TRITON_JIT_LIBPYTHON to the libpython3.X.so of the Python that has triton",
        path, why ? why : "unknown reason", python, unanswered));
  }
  return path;
}

// The Python that compiles must be an executable: an interpreter started from anything else finds
// no environment, and then says only that triton is missing.
void check_python_executable(const std::string& python) {
  if (python.empty()) return;
  const bool from_environment = std::getenv("TRITON_JIT_PYTHON") != nullptr;
  std::error_code error;
  const auto status = std::filesystem::status(python, error);
  std::string problem;
  if (!std::filesystem::exists(status)) {
    problem = python.find('~') != std::string::npos ? "does not exist ('~' is not expanded here: give the full path)"
                                                    : "does not exist";
  } else if (std::filesystem::is_directory(status)) {
    problem = "is a directory";
  } else if (access(python.c_str(), X_OK) != 0) {
    problem = "is not executable";
  }
  if (!problem.empty()) {
    throw Error(
        fmt::format("triton_jit: compiling needs Python, and {} '{}' {}; expected the python executable of an "
                    "environment that has triton (for a venv, <venv>/bin/python)",
                    from_environment ? "TRITON_JIT_PYTHON" : "the Python configured at build time", python, problem));
  }
}

// The target a module that asks Triton's driver at import is told, where there is no GPU; empty
// when TRITON_JIT_TARGET is malformed (the compile that needs it reports that).
std::string configured_target_name() {
  try {
    return target_name(default_target());
  } catch (const Error&) {
    return {};
  }
}

CompilerBridge* load_bridge() {
  const bool running = python_already_running();
  g_python_host.store(running, std::memory_order_relaxed);
  const std::string python = env_or("TRITON_JIT_PYTHON", configured_python());
  std::string libpython;
  if (!running) {
    check_python_executable(python);
    libpython = load_libpython(python);
  }
  // Installed: <libdir>/triton_jit/; in a build tree: beside the core.
  std::filesystem::path installed = library_dir() / "triton_jit" / "libtriton_jit_python.so";
  std::filesystem::path built = library_dir() / "libtriton_jit_python.so";
  std::string path =
      env_or("TRITON_JIT_BRIDGE_LIBRARY", (std::filesystem::exists(installed) ? installed : built).string());
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    throw Error(fmt::format("triton_jit: the compiler bridge '{}' could not be loaded ({})", path,
                            why ? why : "unknown reason"));
  }
  auto create =
      reinterpret_cast<decltype(&triton_jit_create_compiler_bridge)>(dlsym(lib, "triton_jit_create_compiler_bridge"));
  if (create == nullptr) throw Error(fmt::format("triton_jit: '{}' is not a triton_jit compiler bridge", path));
  BridgeConfig config{python, scripts_dir().string(), libpython, log_level() >= LogLevel::kDebug,
                      configured_target_name()};
  return create(&config);
}

}  // namespace

// Note [The GIL and the runtime's locks]
// Making the bridge imports the compile script, which takes the GIL; so do compiles, tuning and
// every call into Python. A Python thread that waited for one of our mutexes while holding the
// GIL would then deadlock with the thread that holds the mutex and waits for the GIL. So the
// order is fixed: our mutex first, the GIL second. Every lock that may be held across a call into
// Python (the bridge's, a function's, the registry's, the single-flight waits) is taken through
// run_without_gil, which lets the GIL go before it waits and takes it back after the work is done.
// Locks never held across Python (the log's, the settings', the entry memo's) need no such care.
CompilerBridge& compiler_bridge() {
  if (CompilerBridge* b = g_bridge.load(std::memory_order_acquire)) return *b;
  CompilerBridge* bridge = nullptr;
  run_without_gil([&] {
    std::lock_guard<std::mutex> lock(g_bridge_mutex);
    bridge = g_bridge.load(std::memory_order_relaxed);
    if (bridge != nullptr) return;
    bridge = load_bridge();  // never destroyed: the interpreter is never finalized
    g_bridge.store(bridge, std::memory_order_release);
  });
  return *bridge;
}

bool compiler_bridge_loaded() noexcept { return g_bridge.load(std::memory_order_acquire) != nullptr; }

bool python_host() noexcept {
  if (compiler_bridge_loaded()) return g_python_host.load(std::memory_order_relaxed);
  return python_already_running();  // not started by us: nothing of ours starts one without the bridge
}

void run_without_gil(const std::function<void()>& fn) {
  using GILStateCheck = int (*)();
  using SaveThread = void* (*)();
  using RestoreThread = void (*)(void*);
  static auto check = reinterpret_cast<GILStateCheck>(dlsym(RTLD_DEFAULT, "PyGILState_Check"));
  if (check == nullptr || !python_already_running() || check() == 0) {
    fn();
    return;
  }
  static auto save = reinterpret_cast<SaveThread>(dlsym(RTLD_DEFAULT, "PyEval_SaveThread"));
  static auto restore = reinterpret_cast<RestoreThread>(dlsym(RTLD_DEFAULT, "PyEval_RestoreThread"));
  void* state = save();
  struct Restore {
    RestoreThread restore;
    void* state;
    ~Restore() { restore(state); }
  } guard{restore, state};
  fn();
}

}  // namespace triton_jit::detail
