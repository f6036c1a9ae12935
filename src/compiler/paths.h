// Where the library finds its parts at run time: relative to the real path of the loaded
// library once installed, the build tree otherwise. Environment variables override each.
#pragma once

#include <filesystem>
#include <string>

namespace triton_jit::detail {

// Directory holding libtriton_jit.so, symbolic links resolved (merged /usr: /lib -> /usr/lib).
std::filesystem::path library_dir();
// Directory holding triton_jit_compile.py: TRITON_JIT_SCRIPTS_DIR, <libdir>/../share/triton_jit/scripts, the source
// tree.
std::filesystem::path scripts_dir();
// The Python the build was configured with.
std::string configured_python();
// The shared libpython a C++ host loads to compile with `python`. A build tree's own Python uses
// the path found at configure time; otherwise (a package, a wheel, TRITON_JIT_PYTHON set) the
// interpreter is asked (triton_jit_libpython.py), falling back to the soname of the build's
// Python version for the system's loader to find.
std::string libpython_for(const std::string& python);

}  // namespace triton_jit::detail
