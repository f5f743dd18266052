# vatkit_add_bake(<target> SOURCES <files...> [OUTPUT_DIR <dir>] [OPTIONS <args...>]
#                 [DEPENDS <files...>] [JOB_POOL <pool>] [ALL])
# Bakes glTF files into .vat.glb files as build steps: one custom command per source, running
# `vatkit bake <source> -o <OUTPUT_DIR>/<stem>.vat.glb <OPTIONS...>`, and a custom target <target>
# that depends on every output (built by default with ALL). The executable is the imported (or, in
# vatkit's own build tree, the built) target vatkit::vatkit.
#
# A bake runs again when, and only when, one of these is newer than its output: its source, the
# external buffers and images the source's last bake read (a .gltf's .bin files and textures: the
# bake writes them to a dependency file, `vatkit bake --depfile`, which the build tool reads), the
# vatkit executable (a rebuilt or reinstalled vatkit), the files named in DEPENDS, or this call's
# options file <CMAKE_CURRENT_BINARY_DIR>/<target>.vatkit-options, which holds OPTIONS and is
# rewritten at configure time only when they change (options are per call:
# changing them reruns every bake of the call).
#
# Parallelism: the commands are independent, so Ninja runs as many at once as its -j allows. So
# that N parallel bakes do not each start a thread per core, every bake gets `--threads 1` unless
# OPTIONS has its own --threads; a project that prefers fewer bakes with more threads each passes
# --threads N in OPTIONS and JOB_POOL <pool> (a Ninja job pool it defines in the JOB_POOLS global
# property; other generators ignore it). The output bytes do not depend on the thread count.
#
# SOURCES and DEPENDS relative to CMAKE_CURRENT_SOURCE_DIR; OUTPUT_DIR relative to
# CMAKE_CURRENT_BINARY_DIR (default: <CMAKE_CURRENT_BINARY_DIR>/<target>). Two sources of one call
# with the same stem are refused (their outputs would collide). The target's property
# VATKIT_BAKE_OUTPUTS lists the outputs (e.g. for install(FILES)).
# Policies as of the function's definition: depfile paths are rewritten for Ninja (CMP0116).
cmake_policy(PUSH)
cmake_policy(SET CMP0116 NEW)
function(vatkit_add_bake target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ALL" "OUTPUT_DIR;JOB_POOL" "SOURCES;OPTIONS;DEPENDS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "vatkit_add_bake(${target}): unknown arguments \"${arg_UNPARSED_ARGUMENTS}\"")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "vatkit_add_bake(${target}): no SOURCES")
  endif()
  if(NOT TARGET vatkit::vatkit)
    message(FATAL_ERROR "vatkit_add_bake(${target}): no vatkit::vatkit executable "
                        "(find_package(vatkit COMPONENTS tool) provides it)")
  endif()
  set(exe vatkit::vatkit)
  get_target_property(aliased vatkit::vatkit ALIASED_TARGET)
  if(aliased)
    set(exe ${aliased})  # COMMAND and DEPENDS resolve target names, not aliases
  endif()

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/${target})
  if(arg_OUTPUT_DIR)
    get_filename_component(out_dir "${arg_OUTPUT_DIR}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(options ${arg_OPTIONS})
  if(NOT options MATCHES "(^|;)--threads(;|=|$)")
    list(APPEND options --threads 1)
  endif()
  set(pool "")
  if(arg_JOB_POOL)
    set(pool JOB_POOL ${arg_JOB_POOL})
  endif()

  # The options file: written only when its content changes, so that its time moves only then.
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${target}.vatkit-options)
  set(content "${options}\n")
  set(old "")
  if(EXISTS ${stamp})
    file(READ ${stamp} old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE ${stamp} "${content}")
  endif()

  set(outputs "")
  set(stems "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(stem "${source}" NAME_WE)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "vatkit_add_bake(${target}): ${source}: another source of this call has "
                          "the stem \"${stem}\", and both would write ${out_dir}/${stem}.vat.glb")
    endif()
    list(APPEND stems ${stem})
    set(output ${out_dir}/${stem}.vat.glb)
    file(RELATIVE_PATH shown ${CMAKE_BINARY_DIR} ${output})
    add_custom_command(OUTPUT ${output}
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
                       COMMAND ${exe} bake ${source} -o ${output} --depfile ${output}.d ${options}
                       DEPENDS ${source} ${exe} ${stamp} ${arg_DEPENDS}
                       DEPFILE ${output}.d
                       ${pool}
                       COMMENT "Baking ${shown}"
                       VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  set(all "")
  if(arg_ALL)
    set(all ALL)
  endif()
  add_custom_target(${target} ${all} DEPENDS ${outputs})
  set_target_properties(${target} PROPERTIES VATKIT_BAKE_OUTPUTS "${outputs}")
endfunction()
cmake_policy(POP)
