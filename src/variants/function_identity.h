// Which kernel a get_instance(path, name) call means, resolved before anything is compiled:
// its file (search path, working directory, symbolic links resolved) or module, and the
// identity under which the cache keeps it.
#pragma once

#include <string_view>
#include <vector>

#include "cache/entry_store.h"
#include "compiler/compiler_bridge.h"

namespace triton_jit::detail {

struct ResolvedFunction {
  FunctionIdentity id;
  KernelLocation location;
};

// spec: a .py file (absolute, or relative to the search path and then the working directory),
// or "package.module:function" (then `name` may be empty). A file that does not exist is still
// resolved when a bundle holds the function under the file's name; otherwise LookupError naming
// what was searched, as when no function name is given.
ResolvedFunction resolve_function(std::string_view spec, std::string_view name,
                                  const std::vector<std::string>& search_path);

}  // namespace triton_jit::detail
