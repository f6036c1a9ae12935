// The compiler bridge: the core's only door to Python. The implementation lives in a separate
// shared library (libtriton_jit_python.so, built like an extension module, without a libpython
// link) that is loaded on the first real compile; a process that never compiles never loads it.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace triton_jit::detail {

// Where a kernel is: a resolved file (real path) or a module spec, and the function's name.
struct KernelLocation {
  std::string file;    // real path, or "" when `module` names it
  std::string module;  // "package.module", or ""
  std::string function;
  std::vector<std::string> search_path;  // for module specs
};

// A source file and the exact text this process compiled from.
struct SourceText {
  std::string path;
  std::string text;
};

struct Described {
  std::string json;  // see describe() in triton_jit_compile.py
  std::vector<SourceText> sources;
  std::string values;  // what the kernel read that was computed at import (Provenance::values)
};

struct CompiledBinary {
  std::string binary;         // cubin bytes
  std::string metadata_json;  // see compile() in triton_jit_compile.py
  std::vector<SourceText> sources;
  std::vector<std::pair<std::string, std::string>> ir;  // (stage, text), when the request asked (keep_ir)
};

class CompilerBridge {
 public:
  virtual ~CompilerBridge() = default;
  // The static signature. Throws LookupError or CompileError.
  virtual Described describe(const KernelLocation& where) = 0;
  // The values the kernel reads that were computed when its modules were imported, as this
  // process imported them (Described::values, without describing). Throws LookupError or CompileError.
  virtual std::string imported_values(const KernelLocation& where) = 0;
  // In a Python host: the values the kernel reads now, when the program imported its module
  // itself; "" when it did not (Note [Globals changed at run time]). Throws as imported_values.
  virtual std::string host_values(const KernelLocation& where) = 0;
  // One variant. Throws CompileError with Triton's message and traceback.
  virtual CompiledBinary compile(const KernelLocation& where, const std::string& request_json) = 0;
  // A heuristic the compile script could not translate, called in Python with the call's
  // arguments (tagged JSON, one per parameter and option); its value, tagged. Throws Error.
  virtual std::string evaluate_heuristic(const KernelLocation& where, std::size_t decorator, const std::string& name,
                                         const std::string& arguments_json) = 0;
  // The configs an autotuner's prune_configs_by keeps for these arguments: JSON indices, best
  // first. Throws Error.
  virtual std::string prune_configs(const KernelLocation& where, std::size_t decorator,
                                    const std::string& arguments_json) = 0;
};

struct BridgeConfig {
  std::string python_executable;  // sets sys.prefix (a venv) when we start the interpreter
  std::string scripts_dir;        // where triton_jit_compile.py lives
  std::string libpython;          // the libpython loaded for it (for messages; empty if Python was running)
  bool tracebacks = false;        // a kernel module's import failure carries the Python traceback (debug log level)
  std::string target;             // what Triton's driver answers while a module imports without a GPU ("cuda:90")
};

// Loads the bridge (and libpython, in a process that has no interpreter yet) on first use.
// Thread-safe. Throws Error when Python or the bridge cannot be loaded.
CompilerBridge& compiler_bridge();

// Whether the bridge has been loaded in this process.
bool compiler_bridge_loaded() noexcept;

// Whether this process is a Python host: its interpreter was running before the runtime needed
// one (torch.ops.load_library, the Python entry), so the program's own Python code runs beside
// the kernels' modules. Starts nothing.
bool python_host() noexcept;

// Runs `fn` with the GIL released when the calling thread holds it (a Python host thread that
// waits for another thread's compile must not block it). Never loads Python.
void run_without_gil(const std::function<void()>& fn);

}  // namespace triton_jit::detail

// Exported by libtriton_jit_python.so.
extern "C" triton_jit::detail::CompilerBridge* triton_jit_create_compiler_bridge(
    const triton_jit::detail::BridgeConfig* config);
