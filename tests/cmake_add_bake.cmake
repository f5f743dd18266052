# vatkit_add_bake from outside: the tool component installed on its own into a scratch prefix, and
# a consumer project (no compiler, nothing found but vatkit) that bakes two assets, built with
# Ninja: the sample character (sample.glb) and FOX as a .gltf with an external buffer (Fox.gltf,
# Fox.bin). Checks, from what Ninja reports it ran ("Baking <output>" per bake):
#   first build: both bakes, at the same time (their .ninja_log intervals overlap); their
#   dependency files name Fox.gltf and Fox.bin, and sample.glb alone;
#   second build: nothing; reconfigure with the same options, build: nothing;
#   sample.glb touched: only its bake; Fox.bin touched (known from the bake's depfile): only Fox's;
#   the vatkit executable touched (a reinstall): both;
#   OPTIONS changed (reconfigure): both, and `vatkit info` then reports the new precision on each
#   output (before: f32, the default; after: q16).
#
# Variables (from tests/CMakeLists.txt): VATKIT_BINARY_DIR, WORK_DIR, NINJA, FOX (Khronos' Fox.glb).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(src "${WORK_DIR}/the consumer")  # a space: the depfile escapes it
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

# Fox.gltf: FOX's JSON chunk, its buffer the whole of a copy of FOX (Fox.bin), every bufferView
# moved past the GLB's 20 header bytes, the JSON and the BIN chunk's 8-byte header.
file(READ ${FOX} le OFFSET 12 LIMIT 4 HEX)  # the JSON chunk's length, little-endian
string(REGEX REPLACE "(..)(..)(..)(..)" "\\4\\3\\2\\1" be "${le}")
math(EXPR json_length "0x${be}")
file(READ ${FOX} json OFFSET 20 LIMIT ${json_length})
math(EXPR bin_start "20 + ${json_length} + 8")
string(JSON views LENGTH "${json}" bufferViews)
math(EXPR last "${views} - 1")
foreach(i RANGE ${last})
  string(JSON offset ERROR_VARIABLE missing GET "${json}" bufferViews ${i} byteOffset)
  if(missing)
    set(offset 0)
  endif()
  math(EXPR offset "${offset} + ${bin_start}")
  string(JSON json SET "${json}" bufferViews ${i} byteOffset ${offset})
endforeach()
file(SIZE ${FOX} fox_size)
string(JSON json SET "${json}" buffers 0 "{\"uri\": \"Fox.bin\", \"byteLength\": ${fox_size}}")
file(WRITE ${src}/Fox.gltf "${json}")
file(COPY_FILE ${FOX} ${src}/Fox.bin)
set(fox_name Fox.gltf)
set(fox_stem Fox)
file(WRITE ${src}/CMakeLists.txt "cmake_minimum_required(VERSION 3.22)
project(consumer NONE)
find_package(vatkit REQUIRED COMPONENTS tool)
set_property(GLOBAL PROPERTY JOB_POOLS bakes=2)
vatkit_add_bake(assets ALL SOURCES sample.glb ${fox_name} OUTPUT_DIR baked JOB_POOL bakes
                OPTIONS --lods 0 --no-measure --encoding delta \${BAKE_OPTIONS})
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

# precision(expected): every output is a valid .vat.glb of this precision (the bakes ask for the delta
# encoding: Auto may keep a rig at a finer precision than asked, docs/encodings.md).
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
# The dependency files: Fox.gltf's names its external buffer, sample.glb's nothing but itself.
string(REPLACE " " "\\ " escaped_src "${src}")
file(REAL_PATH ${src} real_src)  # the bake names external files by their canonical paths
string(REPLACE " " "\\ " escaped_real_src "${real_src}")
file(READ ${build}/baked/Fox.vat.glb.d fox_deps)
file(READ ${build}/baked/sample.vat.glb.d sample_deps)
if(NOT fox_deps STREQUAL "${build}/baked/Fox.vat.glb: ${escaped_src}/Fox.gltf \\\n  ${escaped_real_src}/Fox.bin\n"
   OR NOT sample_deps STREQUAL "${build}/baked/sample.vat.glb: ${escaped_src}/sample.glb\n")
  message(FATAL_ERROR "unexpected dependency files:\n${fox_deps}${sample_deps}")
endif()

build("second build")
configure()
build("reconfigured, same options")
file(TOUCH ${src}/sample.glb)
build("sample.glb touched" sample.vat.glb)
file(TOUCH ${src}/Fox.bin)
build("Fox.bin touched" Fox.vat.glb)
file(TOUCH ${vatkit})
build("vatkit touched" sample.vat.glb ${fox_stem}.vat.glb)
configure(-DBAKE_OPTIONS=--precision=q16)
build("options changed" sample.vat.glb ${fox_stem}.vat.glb)
precision(q16)
build("after the options change")
