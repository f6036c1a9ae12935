# The backend policy compiled into the library (TRITON_JIT_BACKEND): its sources, and what they
# need to build. CUDA: cuda.h from the CUDA toolkit. HIP: hip_runtime_api.h from the HIP headers
# every Triton wheel ships for its AMD launcher (no ROCm needed to build; the runtime library,
# libamdhip64, is loaded when the first kernel is). Neither build depends on the other's.
if(TRITON_JIT_BACKEND STREQUAL "hip")
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
            "import os, triton; print(os.path.join(os.path.dirname(triton.__file__), 'backends', 'amd', 'include'))"
    OUTPUT_VARIABLE _tj_hip_include OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _tj_no_triton ERROR_QUIET)
  set(TRITON_JIT_HIP_INCLUDE_DIR "${_tj_hip_include}" CACHE PATH "Directory holding hip/hip_runtime_api.h")
  if(NOT EXISTS "${TRITON_JIT_HIP_INCLUDE_DIR}/hip/hip_runtime_api.h")
    message(FATAL_ERROR "TRITON_JIT_BACKEND=hip: hip/hip_runtime_api.h not found under '${TRITON_JIT_HIP_INCLUDE_DIR}' "
                        "(Triton's AMD backend of ${Python_EXECUTABLE}); set TRITON_JIT_HIP_INCLUDE_DIR to ROCm's include")
  endif()
  set(TRITON_JIT_BACKEND_SOURCES src/backend/hip/hip_driver.cpp src/backend/hip/hip_backend.cpp src/backend/scratch.cpp)
  set(TRITON_JIT_BACKEND_INCLUDE_DIRS "${TRITON_JIT_HIP_INCLUDE_DIR}")
  set(TRITON_JIT_DEFAULT_TARGET "hip:gfx942")
  if(TRITON_JIT_BUILD_TORCH)
    message(STATUS "triton_jit: TRITON_JIT_BACKEND=hip builds the core, the bridge and triton_jit_aot; the torch parts "
                   "are built with the CUDA backend")
    set(TRITON_JIT_BUILD_TORCH OFF)
  endif()
  set(TRITON_JIT_BUILD_BENCHMARKS OFF)
else()
  set(TRITON_JIT_BACKEND_SOURCES src/backend/cuda/cuda_driver.cpp src/backend/cuda/cuda_backend.cpp src/backend/scratch.cpp)
  set(TRITON_JIT_BACKEND_INCLUDE_DIRS ${CUDAToolkit_INCLUDE_DIRS})
  set(TRITON_JIT_DEFAULT_TARGET "cuda:90")
endif()
message(STATUS "triton_jit: backend ${TRITON_JIT_BACKEND}, default target ${TRITON_JIT_DEFAULT_TARGET}")
