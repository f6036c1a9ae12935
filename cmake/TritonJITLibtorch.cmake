# libtorch for TritonJIT::torch and TritonJIT::ops, found where the consumer points: Torch_DIR
# (set by an earlier find_package(Torch), by -DTorch_DIR or in the environment) or
# CMAKE_PREFIX_PATH (pip's torch: python -c "import torch; print(torch.utils.cmake_prefix_path)").
# Defines the imported target triton_jit_libtorch with only the libraries the adapter and the
# operators use: Torch's own CMake package also configures CUDA compilation, which we do not
# need. Sets TRITON_JIT_LIBTORCH_FOUND, and TRITON_JIT_LIBTORCH_REASON when it is false (also when
# TRITON_JIT_TORCH_BUILT_WITH names another torch minor version than the one found), and
# TRITON_JIT_LIBTORCH_VERSION ("2.11").
if(TARGET triton_jit_libtorch)
  set(TRITON_JIT_LIBTORCH_FOUND TRUE)
  return()
endif()
set(TRITON_JIT_LIBTORCH_FOUND FALSE)
set(_tj_candidates)
foreach(dir ${Torch_DIR} $ENV{Torch_DIR})
  list(APPEND _tj_candidates "${dir}")
endforeach()
string(REPLACE ":" ";" _tj_env_prefixes "$ENV{CMAKE_PREFIX_PATH}")
foreach(prefix ${CMAKE_PREFIX_PATH} ${_tj_env_prefixes})
  list(APPEND _tj_candidates "${prefix}/share/cmake/Torch" "${prefix}/Torch" "${prefix}")
endforeach()
set(_tj_torch_root "")
foreach(dir ${_tj_candidates})
  if(EXISTS "${dir}/TorchConfig.cmake")
    get_filename_component(_tj_root "${dir}/../../.." ABSOLUTE)
    if(EXISTS "${_tj_root}/include/ATen/core/Tensor.h")
      set(_tj_torch_root "${_tj_root}")
      break()
    endif()
  endif()
endforeach()
if(NOT _tj_torch_root)
  string(CONCAT TRITON_JIT_LIBTORCH_REASON
      "libtorch not found: set Torch_DIR to <torch>/share/cmake/Torch, or add torch's CMake prefix to "
      "CMAKE_PREFIX_PATH (for pip's torch: python -c \"import torch; print(torch.utils.cmake_prefix_path)\"; "
      "for a libtorch zip: its directory)")
  return()
endif()
# Which torch it is, from its headers (torch/headeronly/version.h since 2.10, the C++ API's before).
set(_tj_torch_version "")
foreach(header "${_tj_torch_root}/include/torch/headeronly/version.h"
               "${_tj_torch_root}/include/torch/csrc/api/include/torch/version.h")
  if(NOT _tj_torch_version AND EXISTS "${header}")
    file(STRINGS "${header}" _tj_lines REGEX "#define TORCH_VERSION_(MAJOR|MINOR) +[0-9]+")
    if(_tj_lines MATCHES "MAJOR +([0-9]+)")
      set(_tj_major "${CMAKE_MATCH_1}")
      if(_tj_lines MATCHES "MINOR +([0-9]+)")
        set(_tj_torch_version "${_tj_major}.${CMAKE_MATCH_1}")
      endif()
    endif()
  endif()
endforeach()
# An installed adapter and operators are compiled against one torch minor version's C++ ABI; with
# another their libraries would fail at load on an undefined symbol.
if(TRITON_JIT_TORCH_BUILT_WITH AND _tj_torch_version AND NOT _tj_torch_version VERSION_EQUAL TRITON_JIT_TORCH_BUILT_WITH)
  string(CONCAT TRITON_JIT_LIBTORCH_REASON
      "libtorch at '${_tj_torch_root}' is torch ${_tj_torch_version}, but the installed adapter and operators were "
      "built against torch ${TRITON_JIT_TORCH_BUILT_WITH} (a C++ ABI of its own): point CMAKE_PREFIX_PATH or Torch_DIR "
      "at a torch ${TRITON_JIT_TORCH_BUILT_WITH}.x, or use packages built for torch ${_tj_torch_version}")
  return()
endif()
set(_tj_torch_libs)
foreach(lib c10 c10_cuda torch_cpu torch_cuda torch)
  find_library(_tj_torch_lib_${lib} NAMES ${lib} PATHS "${_tj_torch_root}/lib" NO_DEFAULT_PATH NO_CACHE)
  if(NOT _tj_torch_lib_${lib})
    set(TRITON_JIT_LIBTORCH_REASON "libtorch at '${_tj_torch_root}' has no lib${lib}.so (a CUDA build of torch is needed)")
    return()
  endif()
  list(APPEND _tj_torch_libs "${_tj_torch_lib_${lib}}")
endforeach()
# No CUDA toolkit is needed: the installed headers include ATen's core and torch/library.h, which
# include none of CUDA's. We never call FindCUDAToolkit, which some CMake versions fail on a
# pip-installed nvcc; a project that found a toolkit itself (ours does, for the backend) gets its
# include directories here.
add_library(triton_jit_libtorch INTERFACE IMPORTED GLOBAL)
target_include_directories(triton_jit_libtorch SYSTEM INTERFACE "${_tj_torch_root}/include"
                           "${_tj_torch_root}/include/torch/csrc/api/include")
# A consumer that includes c10/cuda's headers itself (libtriton_jit's users do, for the current
# stream) needs the CUDA runtime's headers: those that came with its torch (pip's nvidia packages),
# else a toolkit's found without FindCUDAToolkit. None found is no error: our headers need none.
# (pip's runtime headers lack crt/, which nvcc's package brings: a directory needs both.)
set(_tj_cuda_include "")
if(CUDAToolkit_FOUND)
  set(_tj_cuda_include ${CUDAToolkit_INCLUDE_DIRS})
else()
  foreach(dir "${_tj_torch_root}/../nvidia/cu13/include" "${_tj_torch_root}/../nvidia/cuda_runtime/include"
              "$ENV{CUDA_HOME}/include" "$ENV{CUDA_PATH}/include" /usr/local/cuda/include)
    if(EXISTS "${dir}/cuda_runtime_api.h" AND EXISTS "${dir}/crt/host_defines.h")
      get_filename_component(_tj_cuda_include "${dir}" ABSOLUTE)
      break()
    endif()
  endforeach()
endif()
if(_tj_cuda_include)
  target_include_directories(triton_jit_libtorch SYSTEM INTERFACE ${_tj_cuda_include})
endif()
# The CUDA runtime that torch's inline CUDA helpers call is torch's own (pip's nvidia packages,
# or bundled in a libtorch zip), not the toolkit's: that could be another major version. Without
# either, libtorch_cuda brings its own at load.
file(GLOB _tj_cudart "${_tj_torch_root}/../nvidia/*/lib/libcudart.so.*" "${_tj_torch_root}/lib/libcudart*.so*")
if(_tj_cudart)
  list(GET _tj_cudart 0 _tj_cudart)
elseif(TARGET CUDA::cudart)
  set(_tj_cudart CUDA::cudart)
else()
  set(_tj_cudart "")
endif()
target_link_libraries(triton_jit_libtorch INTERFACE ${_tj_torch_libs} ${_tj_cudart})
# torch_cuda registers ATen's CUDA kernels when it loads; nothing references it by symbol, so
# --as-needed would drop it.
target_link_options(triton_jit_libtorch INTERFACE "LINKER:--no-as-needed")
# torch's libraries find CUDA's in the Python environment through their own RPATH; the linker
# needs the same directories to check them.
file(GLOB _tj_nvidia_dirs LIST_DIRECTORIES true "${_tj_torch_root}/../nvidia/*/lib" "${_tj_torch_root}/../nvidia/*/*/lib")
foreach(dir ${_tj_nvidia_dirs} ${CUDAToolkit_LIBRARY_DIR})  # (empty without a toolkit)
  target_link_options(triton_jit_libtorch INTERFACE "LINKER:-rpath-link,${dir}")
endforeach()
set_target_properties(triton_jit_libtorch PROPERTIES INTERFACE_LINK_DIRECTORIES "${_tj_torch_root}/lib")
set(TRITON_JIT_LIBTORCH_DIR "${_tj_torch_root}")
set(TRITON_JIT_LIBTORCH_VERSION "${_tj_torch_version}")
set(TRITON_JIT_LIBTORCH_FOUND TRUE)
