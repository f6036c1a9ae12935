# Finds the Python that compiles kernels (it must have triton) and what the build takes from it:
# its headers, pybind11, and the path of its libpython, which a C++ host loads before the bridge.
if(NOT TRITON_JIT_PYTHON AND DEFINED ENV{TRITON_JIT_PYTHON})
  set(TRITON_JIT_PYTHON "$ENV{TRITON_JIT_PYTHON}" CACHE FILEPATH "" FORCE)
endif()
if(NOT TRITON_JIT_PYTHON AND EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  set(TRITON_JIT_PYTHON "${PROJECT_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH "" FORCE)
endif()
if(TRITON_JIT_PYTHON)
  set(Python_EXECUTABLE "${TRITON_JIT_PYTHON}")
endif()
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)

execute_process(
  COMMAND "${Python_EXECUTABLE}" -S "${PROJECT_SOURCE_DIR}/src/compiler/python/triton_jit_libpython.py"
  OUTPUT_VARIABLE TRITON_JIT_LIBPYTHON OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _libpython_status)
if(NOT _libpython_status EQUAL 0)
  message(FATAL_ERROR "No shared libpython found for ${Python_EXECUTABLE}: a C++ host needs one to compile kernels "
                      "(on Debian and Ubuntu it comes with python3-dev)")
endif()

execute_process(COMMAND "${Python_EXECUTABLE}" -c "import pybind11; print(pybind11.get_cmake_dir())"
                OUTPUT_VARIABLE _pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _pybind11_status)
if(NOT _pybind11_status EQUAL 0)
  message(FATAL_ERROR "pybind11 is not installed for ${Python_EXECUTABLE} (see requirements.txt)")
endif()
find_package(pybind11 CONFIG REQUIRED PATHS "${_pybind11_dir}" NO_DEFAULT_PATH)
message(STATUS "triton_jit: Python ${Python_EXECUTABLE}, libpython ${TRITON_JIT_LIBPYTHON}")
