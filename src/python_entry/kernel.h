// The Kernel type: triton_jit.jit(fn) / load(path, name), indexed with a grid as Triton's
// kernel[grid], with run, warmup, prepare and what a program reads of a JITFunction.
#pragma once

namespace triton_jit::python_entry {

// Sets up the Kernel type, before PyType_Ready.
void set_up_kernel_type();

}  // namespace triton_jit::python_entry
