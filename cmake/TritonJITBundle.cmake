# triton_jit_embed_bundle(<target> <bundle directory>)
#
# Builds the variants of a bundle made by triton_jit_aot into <target>: at run time they are
# found before the disk cache and the compiler, so the program needs neither Python, Triton nor
# the kernel sources for them.
#
# triton_jit_add_bundle(<target> MANIFEST <manifest.json> [PYTHON <python with triton>]
#                       [DEPENDS <files>...])
#
# The same, with the bundle made at build time: triton_jit_aot compiles the manifest's variants
# (its "tune" calls are left out: a build machine need not have a GPU) and the result is built
# into <target>. Rebuilt when the manifest, a kernel file it names or a DEPENDS file changes.
# PYTHON (default: $ENV{TRITON_JIT_PYTHON} at build time, else the one triton_jit was built with)
# is the interpreter that has Triton.
set(_TRITON_JIT_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/TritonJITEmbedBundle.cmake")

function(triton_jit_embed_bundle target bundle_dir)
  get_filename_component(bundle_dir "${bundle_dir}" ABSOLUTE)
  file(GLOB _entries LIST_DIRECTORIES false "${bundle_dir}/*/signature" "${bundle_dir}/*/*.variant"
       "${bundle_dir}/*/*.tuning")
  if(NOT _entries)
    message(FATAL_ERROR "triton_jit_embed_bundle: no bundle entries under '${bundle_dir}' (made by triton_jit_aot?)")
  endif()
  set(_output "${CMAKE_CURRENT_BINARY_DIR}/${target}_triton_jit_bundle.cpp")
  add_custom_command(OUTPUT "${_output}"
    COMMAND ${CMAKE_COMMAND} -DBUNDLE_DIR=${bundle_dir} -DOUTPUT=${_output} -P "${_TRITON_JIT_EMBED_SCRIPT}"
    DEPENDS ${_entries} "${_TRITON_JIT_EMBED_SCRIPT}"
    COMMENT "Embedding the triton_jit bundle ${bundle_dir} into ${target}")
  target_sources(${target} PRIVATE "${_output}")
endfunction()

function(triton_jit_add_bundle target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MANIFEST;PYTHON" "DEPENDS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "triton_jit_add_bundle(${target}): unknown arguments '${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_MANIFEST)
    message(FATAL_ERROR "triton_jit_add_bundle(${target}): MANIFEST <manifest.json> is required")
  endif()
  if(NOT TARGET TritonJIT::aot)
    message(FATAL_ERROR "triton_jit_add_bundle(${target}): triton_jit_aot is not available; install it (Debian: "
                        "triton-jit-tools, RPM: triton-jit-tools) and ask for it: find_package(TritonJIT COMPONENTS aot)")
  endif()
  get_filename_component(manifest "${ARG_MANIFEST}" ABSOLUTE)
  if(NOT EXISTS "${manifest}")
    message(FATAL_ERROR "triton_jit_add_bundle(${target}): manifest '${manifest}' does not exist")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
  # The kernel files the manifest names, so that editing one rebuilds the bundle.
  file(READ "${manifest}" _text)
  get_filename_component(_manifest_dir "${manifest}" DIRECTORY)
  set(_kernels)
  string(JSON _count ERROR_VARIABLE _error LENGTH "${_text}" kernels)
  if(_error)
    message(FATAL_ERROR "triton_jit_add_bundle(${target}): ${manifest}: ${_error}")
  endif()
  if(_count GREATER 0)
    math(EXPR _last "${_count} - 1")
    foreach(i RANGE ${_last})
      string(JSON _kernel ERROR_VARIABLE _error GET "${_text}" kernels ${i} kernel)
      if(NOT _error AND _kernel MATCHES "\\.py$")
        get_filename_component(_kernel "${_kernel}" ABSOLUTE BASE_DIR "${_manifest_dir}")
        list(APPEND _kernels "${_kernel}")
      endif()
    endforeach()
  endif()
  set(_python_env)
  if(ARG_PYTHON)
    set(_python_env "TRITON_JIT_PYTHON=${ARG_PYTHON}")
  endif()
  set(_bundle "${CMAKE_CURRENT_BINARY_DIR}/${target}_triton_jit_bundle")
  set(_output "${CMAKE_CURRENT_BINARY_DIR}/${target}_triton_jit_bundle.cpp")
  add_custom_command(OUTPUT "${_output}"
    COMMAND ${CMAKE_COMMAND} -E rm -rf "${_bundle}"
    COMMAND ${CMAKE_COMMAND} -E env ${_python_env} $<TARGET_FILE:TritonJIT::aot> "${manifest}" -o "${_bundle}" --no-tune
    COMMAND ${CMAKE_COMMAND} -DBUNDLE_DIR=${_bundle} -DOUTPUT=${_output} -P "${_TRITON_JIT_EMBED_SCRIPT}"
    DEPENDS "${manifest}" ${_kernels} ${ARG_DEPENDS} TritonJIT::aot "${_TRITON_JIT_EMBED_SCRIPT}"
    COMMENT "Compiling the triton_jit bundle of ${manifest} into ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE "${_output}")
endfunction()
