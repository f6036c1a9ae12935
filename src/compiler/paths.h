// Where the library finds its parts at run time: relative to the real path of the loaded
// library once installed, the build tree otherwise. Environment variables override each.
#pragma once

#include <filesystem>
#include <string>

namespace triton_jit::detail {

// Directory holding libtriton_jit.so, symbolic links resolved (merged /usr: /lib -> /usr/lib).
std::filesystem::path library_dir();
// Directory holding triton_jit_compile.py: TRITON_JIT_SCRIPTS_DIR, <libdir>/../share/triton_jit/scripts, the source tree.
std::filesystem::path scripts_dir();
// The Python the build was configured with, and its libpython.
std::string configured_python();
std::string configured_libpython();

}  // namespace triton_jit::detail
