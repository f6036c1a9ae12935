// libtriton_jit_ops.so.0: the library a program loads by hand to get the operators
// (torch.ops.load_library from Python, dlopen from C++). It links nothing of torch. When it loads,
// it finds which torch the process has and loads, from its own directory, the operators built
// against that torch's minor version (libtriton_jit_ops-torch<major>.<minor>.so.0). The operators
// use that torch's C++ ABI: loaded directly under another torch they would stop in the dynamic
// linker on an undefined symbol, before any of our code runs. Here the error names both versions.
//
// A constructor cannot make dlopen fail, so a refusal is reported where its caller will see it:
// as Python's ImportError when the process runs Python (ctypes raises it as the cause of a
// SystemError, and torch.ops.load_library wraps that in OSError), else on stderr;
// triton_jit_ops_load_error() returns it either way.
//
// Note [A refused load leaves nothing loaded]
// dlopen has succeeded when the constructor refuses, and ctypes keeps the handle: a second
// torch.ops.load_library of the same path would get that handle back, run no constructor, and
// return with no operator registered, even after the missing operators were put in place. So in
// a Python process the refusal also queues two dlclose calls of this library (Py_AddPendingCall:
// the interpreter runs them after dlopen and ctypes have returned, so none of our code is on the
// stack): one for ctypes' reference, one for the reference taken here to name it. The retry then
// loads it afresh, and decides again.
#include <dirent.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef TRITON_JIT_OPS_BUILT_WITH_TORCH
#error "TRITON_JIT_OPS_BUILT_WITH_TORCH (the torch minor version the operators are built against) must be defined"
#endif

namespace {

constexpr const char* kLibrary = "libtriton_jit_ops.so.0";
constexpr const char* kOperatorsPrefix = "libtriton_jit_ops-torch";
constexpr const char* kOperatorsSuffix = ".so.0";

std::string& load_error() {
  static std::string error;
  return error;
}

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The directory of the libtorch_cpu.so this process has loaded, or "" when it has none.
std::string loaded_torch_lib_dir() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) -> int {
        const char* name = info->dlpi_name;
        if (name == nullptr) return 0;
        const char* base = std::strrchr(name, '/');
        base = base ? base + 1 : name;
        if (std::strncmp(base, "libtorch_cpu.so", 15) != 0) return 0;
        *static_cast<std::string*>(out) = directory_of(name);
        return 1;
      },
      &found);
  return found;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// torch's full version ("2.15.0+cu130"): pip's torch says it in torch/version.py, a libtorch zip in
// build-version, each one directory above lib/.
std::string torch_version(const std::string& torch_lib_dir, std::string& unreadable) {
  const std::string root = directory_of(torch_lib_dir);
  const std::string script = read_file(root + "/version.py");
  if (!script.empty()) unreadable = root + "/version.py";
  for (const char* key : {"__version__ = '", "__version__ = \""}) {
    auto at = script.find(key);
    if (at == std::string::npos) continue;
    at += std::strlen(key);
    auto end = script.find_first_of("'\"", at);
    if (end != std::string::npos) return script.substr(at, end - at);
  }
  if (!unreadable.empty()) return {};  // a version.py that says no version: not a libtorch zip either
  std::string version = read_file(root + "/build-version");
  while (!version.empty() && (version.back() == '\n' || version.back() == ' ')) version.pop_back();
  return version;
}

// "2.15.0+cu130" -> "2.15"; "" when it does not start with two dot-separated numbers.
std::string minor_version(const std::string& version) {
  auto first = version.find('.');
  if (first == std::string::npos || first == 0) return {};
  auto second = first + 1;
  while (second < version.size() && version[second] >= '0' && version[second] <= '9') ++second;
  if (second == first + 1) return {};
  return version.substr(0, second);
}

std::string own_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_dir), &info) == 0 || info.dli_fname == nullptr) return ".";
  return directory_of(info.dli_fname);
}

// The torch minor versions that operators beside this library are built for.
std::vector<std::string> available_builds(const std::string& dir) {
  std::vector<std::string> versions;
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return versions;
  const std::size_t prefix = std::strlen(kOperatorsPrefix), suffix = std::strlen(kOperatorsSuffix);
  while (dirent* entry = readdir(listing)) {
    std::string name = entry->d_name;
    if (name.size() > prefix + suffix && name.compare(0, prefix, kOperatorsPrefix) == 0 &&
        name.compare(name.size() - suffix, suffix, kOperatorsSuffix) == 0) {
      versions.push_back(name.substr(prefix, name.size() - prefix - suffix));
    }
  }
  closedir(listing);
  return versions;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

void unload_after_refusal();

void report(const std::string& message) {
  load_error() = message;
  using IsInitialized = int (*)();
  using GilEnsure = int (*)();
  using GilRelease = void (*)(int);
  using SetString = void (*)(void*, const char*);
  auto is_initialized = reinterpret_cast<IsInitialized>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  auto ensure = reinterpret_cast<GilEnsure>(dlsym(RTLD_DEFAULT, "PyGILState_Ensure"));
  auto release = reinterpret_cast<GilRelease>(dlsym(RTLD_DEFAULT, "PyGILState_Release"));
  auto set_string = reinterpret_cast<SetString>(dlsym(RTLD_DEFAULT, "PyErr_SetString"));
  auto import_error = static_cast<void**>(dlsym(RTLD_DEFAULT, "PyExc_ImportError"));
  if (is_initialized && ensure && release && set_string && import_error && is_initialized()) {
    int gil = ensure();
    set_string(*import_error, message.c_str());
    unload_after_refusal();
    release(gil);
    return;
  }
  std::fprintf(stderr, "%s\n", message.c_str());
}

void unload_after_refusal() {
  using AddPendingCall = int (*)(int (*)(void*), void*);
  auto add_pending_call = reinterpret_cast<AddPendingCall>(dlsym(RTLD_DEFAULT, "Py_AddPendingCall"));
  Dl_info info{};
  if (add_pending_call == nullptr || dladdr(reinterpret_cast<void*>(&unload_after_refusal), &info) == 0 ||
      info.dli_fname == nullptr) {
    return;
  }
  void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (self == nullptr) return;
  // dlclose lives in libc, not here: it is safe to run once this library is gone.
  auto close = reinterpret_cast<int (*)(void*)>(&dlclose);
  if (add_pending_call(close, self) == 0) add_pending_call(close, self);
}

void load_operators() {
  const std::string here = own_dir();
  const std::string torch_lib_dir = loaded_torch_lib_dir();
  std::string wanted = TRITON_JIT_OPS_BUILT_WITH_TORCH;  // no torch loaded yet: the operators' own finds it
  std::string found_version;
  if (!torch_lib_dir.empty()) {
    std::string unreadable;
    found_version = torch_version(torch_lib_dir, unreadable);
    wanted = minor_version(found_version);
    if (wanted.empty()) {
      report(std::string(kLibrary) + ": cannot tell which torch this process has: its libtorch_cpu.so in '" +
             torch_lib_dir + "' has " +
             (unreadable.empty()
                  ? std::string("no version.py or build-version one directory up (expected pip's "
                                "torch or a libtorch zip)")
                  : "a version.py ('" + unreadable + "') with no __version__ = '<major>.<minor>...' in it" +
                        (found_version.empty() ? "" : " (it says '" + found_version + "')")));
      return;
    }
  }
  const std::string operators = here + "/" + kOperatorsPrefix + wanted + kOperatorsSuffix;
  std::ifstream exists(operators);
  if (!exists) {
    auto builds = available_builds(here);
    const std::string needed = builds.empty() ? std::string(TRITON_JIT_OPS_BUILT_WITH_TORCH) : builds.front();
    const std::string built_for =
        builds.empty() ? std::string("no torch (no ") + kOperatorsPrefix + "*" + kOperatorsSuffix + " beside it)"
                       : "torch " + joined(builds);
    const std::string found = torch_lib_dir.empty()
                                  ? "this process has not loaded torch (import torch, or link libtorch, first)"
                                  : "this process has torch " + found_version + " (from '" + torch_lib_dir + "')";
    report(std::string(kLibrary) + " in '" + here + "' has operators built for " + built_for + ", and " + found +
           "; the operators need the C++ ABI of the torch minor version they were built against. Use torch " + needed +
           ".x (pip install 'torch==" + needed + ".*'), or a triton_jit built for torch " + wanted);
    return;
  }
  // Never closed: the operators stay registered with the dispatcher for the life of the process.
  if (dlopen(operators.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    const char* why = dlerror();
    report(
        std::string(kLibrary) + ": loading the operators for torch " + wanted +
        " failed: " + (why ? why : "(no reason given)") +
        (torch_lib_dir.empty() ? " (torch is not loaded in this process: import torch, or link libtorch, first)" : ""));
  }
}

__attribute__((constructor)) void load_at_open() {
  try {
    load_operators();
  } catch (const std::exception& e) {  // nothing may leave a constructor that dlopen runs
    report(std::string(kLibrary) + ": " + e.what());
  }
}

}  // namespace

// "" when the operators loaded; else why not, as reported when the library was opened.
extern "C" __attribute__((visibility("default"))) const char* triton_jit_ops_load_error() {
  return load_error().c_str();
}
