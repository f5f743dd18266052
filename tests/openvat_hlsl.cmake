# The engine decoders of engines/ run (docs/engines.md, "What was verified"): each variant of
# tests/engines/openvat_harness.hlsl, a vertex shader around one engine file, is compiled by
# glslang's HLSL front end to SPIR-V, validated by spirv-val and translated by SPIRV-Cross to GLSL
# 4.30 (inputs and outputs renamed by location to the names the test feeds and captures); then
# the test binary's OpenVatHlsl tests run that GLSL on vatkit's OpenVAT export of Fox
# (tests/test_gl_openvat_hlsl.cpp). Any tool's failure fails the test (COMMAND_ERROR_IS_FATAL),
# after the variant's name and the tool's output.
#   cmake -DGLSLANG=... -DSPIRV_VAL=... -DSPIRV_CROSS=... (gl/CMakeLists.txt's tool arguments)
#         -DSOURCE_DIR=<repository> -DWORK_DIR=... -DTESTS=<vatkit_tests> -P openvat_hlsl.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# Unreal compiles a Custom node's code inside a function, where the node file defines a struct
# with member functions. glslang rejects member functions of a struct defined inside a function
# (it reports recursion, or crashes), so the harness gets the struct at file scope and the rest of
# the node's code inside its function: the file split at the line that makes the struct's instance.
file(READ ${SOURCE_DIR}/engines/unreal/VatkitOpenVatCustomNode.hlsl node)
string(FIND "${node}" "\nVatkitOpenVatDecode vatkit;" split)
if(split EQUAL -1)
  message(FATAL_ERROR "openvat_hlsl: engines/unreal/VatkitOpenVatCustomNode.hlsl: no 'VatkitOpenVatDecode vatkit;' line")
endif()
string(SUBSTRING "${node}" 0 ${split} node_struct)
string(SUBSTRING "${node}" ${split} -1 node_code)
file(WRITE ${WORK_DIR}/openvat_node_struct.hlsl "${node_struct}\n")
file(WRITE ${WORK_DIR}/openvat_node_code.hlsl "${node_code}")

set(harness ${SOURCE_DIR}/tests/engines/openvat_harness.hlsl)
foreach(variant core unity unity_bare unreal_ush unreal_node)
  string(TOUPPER ${variant} define)
  set(stem ${WORK_DIR}/${variant})
  message(STATUS "openvat_hlsl: ${variant}")
  execute_process(COMMAND_ERROR_IS_FATAL ANY
    COMMAND ${GLSLANG} -D -V -S vert -e main --auto-map-locations -DVARIANT_${define} -I${SOURCE_DIR}/engines
            -I${WORK_DIR} -o ${stem}.spv ${harness})
  execute_process(COMMAND_ERROR_IS_FATAL ANY COMMAND ${SPIRV_VAL} ${stem}.spv)
  execute_process(COMMAND_ERROR_IS_FATAL ANY
    COMMAND ${SPIRV_CROSS} ${stem}.spv --version 430 --no-es --output ${stem}.vert.glsl
            --rename-interface-variable in 0 a_rest --rename-interface-variable in 1 a_address
            --rename-interface-variable out 0 v_position --rename-interface-variable out 1 v_normal)
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E env VATKIT_OPENVAT_GLSL_DIR=${WORK_DIR} ${TESTS} --gtest_filter=OpenVatHlsl.*
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR out MATCHES "SKIPPED")
  message(FATAL_ERROR "openvat_hlsl: the OpenVatHlsl tests failed or skipped (${rc})")
endif()
