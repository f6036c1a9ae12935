// triton_jit/export.h: the one export macro of the shared library.
//
// Everything is hidden by default (-fvisibility=hidden); TRITON_JIT_API marks the exported
// functions and classes. Exception classes are always exported so that catch clauses in
// other libraries see the same type_info.
#pragma once

#if defined(_WIN32)
#define TRITON_JIT_API
#else
#define TRITON_JIT_API __attribute__((visibility("default")))
#endif
