# triton_jit_embed_bundle(<target> <bundle directory>)
#
# Builds the variants of a bundle made by triton_jit_aot into <target>: at run time they are
# found before the disk cache and the compiler, so the program needs neither Python, Triton nor
# the kernel sources for them.
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
