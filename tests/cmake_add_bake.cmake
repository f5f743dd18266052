# vatkit_add_bake from outside: the tool component installed on its own into a scratch prefix, and
# a consumer project (no compiler, nothing found but vatkit) that bakes two assets, built with
# Ninja. Checks, from what Ninja reports it ran ("Baking <output>" per bake):
#   first build: both bakes, at the same time (their .ninja_log intervals overlap);
#   second build: nothing; reconfigure with the same options, build: nothing;
#   one source touched: only its bake; the vatkit executable touched (a reinstall): both;
#   OPTIONS changed (reconfigure): both, and `vatkit info` then reports the new precision on each
#   output (before: f32, the default; after: q16).
#
# Variables (from tests/CMakeLists.txt): VATKIT_BINARY_DIR, WORK_DIR, NINJA, FOX (a .glb to bake).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(src ${WORK_DIR}/consumer)
set(build ${WORK_DIR}/build)
set(vatkit ${prefix}/bin/vatkit)

function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

run(out ${CMAKE_COMMAND} --install ${VATKIT_BINARY_DIR} --prefix ${prefix} --component tool)
file(MAKE_DIRECTORY ${src})
run(out ${vatkit} sample -o ${src}/sample.glb)
file(COPY ${FOX} DESTINATION ${src})
get_filename_component(fox_name ${FOX} NAME)
get_filename_component(fox_stem ${FOX} NAME_WE)
file(WRITE ${src}/CMakeLists.txt "cmake_minimum_required(VERSION 3.22)
project(consumer NONE)
find_package(vatkit REQUIRED COMPONENTS tool)
set_property(GLOBAL PROPERTY JOB_POOLS bakes=2)
vatkit_add_bake(assets ALL SOURCES sample.glb ${fox_name} OUTPUT_DIR baked JOB_POOL bakes
                OPTIONS --lods 0 --no-measure \${BAKE_OPTIONS})
")
set(outputs ${build}/baked/sample.vat.glb ${build}/baked/${fox_stem}.vat.glb)

# Nothing of the system is searched: the tool component must need nothing but itself.
function(configure)
  run(out ${CMAKE_COMMAND} -S ${src} -B ${build} -G Ninja -DCMAKE_MAKE_PROGRAM=${NINJA}
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF
      -DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF ${ARGN})
endfunction()

# build(step expected...): builds with Ninja; the bakes it ran must be exactly `expected`.
function(build step)
  run(out ${NINJA} -C ${build} -j 2)
  string(REGEX MATCHALL "Baking baked/[A-Za-z0-9_]+\\.vat\\.glb" ran "${out}")
  list(TRANSFORM ran REPLACE "^Baking baked/" "")
  list(SORT ran)
  set(expected ${ARGN})
  list(SORT expected)
  if(NOT "${ran}" STREQUAL "${expected}")
    message(FATAL_ERROR "${step}: expected the bakes [${expected}], Ninja ran [${ran}]:\n${out}")
  endif()
  message(STATUS "${step}: ran [${ran}]")
endfunction()

# precision(expected): every output is a valid .vat.glb of this precision.
function(precision expected)
  foreach(output ${outputs})
    run(out ${vatkit} info --json ${output})
    string(JSON got GET "${out}" precision)
    if(NOT got STREQUAL expected)
      message(FATAL_ERROR "${output}: precision ${got}, expected ${expected}")
    endif()
  endforeach()
endfunction()

configure()
build("first build" sample.vat.glb ${fox_stem}.vat.glb)
# Both bakes at once: the second began before the first ended (.ninja_log: start end mtime output hash).
file(STRINGS ${build}/.ninja_log log REGEX "\tbaked/[^\t]+\\.vat\\.glb\t")
list(LENGTH log n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR ".ninja_log has ${n} bakes, expected 2: ${log}")
endif()
list(GET log 0 first)
list(GET log 1 second)
string(REGEX MATCH "^([0-9]+)\t([0-9]+)" _ "${first}")
set(first_end ${CMAKE_MATCH_2})
string(REGEX MATCH "^([0-9]+)\t([0-9]+)" _ "${second}")
if(NOT CMAKE_MATCH_1 LESS first_end)
  message(FATAL_ERROR "the bakes ran one after the other, not in parallel:\n${first}\n${second}")
endif()
precision(f32)

build("second build")
configure()
build("reconfigured, same options")
file(TOUCH ${src}/${fox_name})
build("${fox_name} touched" ${fox_stem}.vat.glb)
file(TOUCH ${vatkit})
build("vatkit touched" sample.vat.glb ${fox_stem}.vat.glb)
configure(-DBAKE_OPTIONS=--precision=q16)
build("options changed" sample.vat.glb ${fox_stem}.vat.glb)
precision(q16)
build("after the options change")
