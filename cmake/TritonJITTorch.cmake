# libtorch for the build tree: Torch_DIR when given (a package build, whose Python need not have
# torch), else the torch of the Python environment that builds the library; found through the
# same module an installed package's consumers use.
if(NOT Torch_DIR)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE _torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _torch_status)
  if(NOT _torch_status EQUAL 0)
    message(FATAL_ERROR "torch is not installed for ${Python_EXECUTABLE}; install it (requirements.txt), set "
                        "Torch_DIR to <torch>/share/cmake/Torch, or configure with -DTRITON_JIT_BUILD_TORCH=OFF")
  endif()
  set(Torch_DIR "${_torch_prefix}/Torch")
endif()
include(TritonJITLibtorch)
if(NOT TRITON_JIT_LIBTORCH_FOUND)
  message(FATAL_ERROR "${TRITON_JIT_LIBTORCH_REASON}")
endif()
set(TRITON_JIT_TORCH_DIR "${TRITON_JIT_LIBTORCH_DIR}")
message(STATUS "triton_jit: torch from ${TRITON_JIT_TORCH_DIR}")
