# libtorch as the Python environment provides it, as one imported target. We take only the
# libraries the adapter and operators use instead of Torch's CMake package, which also
# configures CUDA compilation we do not need.
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c "import os, torch; print(os.path.dirname(torch.__file__))"
  OUTPUT_VARIABLE TRITON_JIT_TORCH_DIR OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _torch_status)
if(NOT _torch_status EQUAL 0)
  message(FATAL_ERROR "torch is not installed for ${Python_EXECUTABLE}; install it (requirements.txt) or "
                      "configure with -DTRITON_JIT_BUILD_TORCH=OFF")
endif()
add_library(triton_jit_libtorch INTERFACE IMPORTED)
set(_torch_libs)
foreach(lib c10 c10_cuda torch_cpu torch_cuda torch)
  find_library(_torch_lib_${lib} NAMES ${lib} PATHS "${TRITON_JIT_TORCH_DIR}/lib" NO_DEFAULT_PATH REQUIRED)
  list(APPEND _torch_libs "${_torch_lib_${lib}}")
endforeach()
target_include_directories(triton_jit_libtorch SYSTEM INTERFACE
  "${TRITON_JIT_TORCH_DIR}/include" "${TRITON_JIT_TORCH_DIR}/include/torch/csrc/api/include" ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(triton_jit_libtorch INTERFACE ${_torch_libs} CUDA::cudart)
# torch_cuda registers the CUDA kernels of ATen when it loads; nothing references it by symbol,
# so --as-needed would drop it.
target_link_options(triton_jit_libtorch INTERFACE "LINKER:--no-as-needed")
# torch's libraries find CUDA's in the Python environment through their own RPATH; the linker
# needs the same directories to check them.
file(GLOB _nvidia_lib_dirs LIST_DIRECTORIES true "${TRITON_JIT_TORCH_DIR}/../nvidia/*/lib")
foreach(dir ${_nvidia_lib_dirs} ${CUDAToolkit_LIBRARY_DIR})
  target_link_options(triton_jit_libtorch INTERFACE "LINKER:-rpath-link,${dir}")
endforeach()
set_target_properties(triton_jit_libtorch PROPERTIES INTERFACE_LINK_DIRECTORIES "${TRITON_JIT_TORCH_DIR}/lib")
message(STATUS "triton_jit: torch from ${TRITON_JIT_TORCH_DIR}")
