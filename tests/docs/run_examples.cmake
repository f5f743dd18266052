# ctest docs_examples: runs the documentation's C++ examples (tests/docs/extract_examples.py made
# them one program) in a fresh folder holding the files they open, and checks what they write.
#   cmake -DVATKIT=... -DEXAMPLES=... -DASSETS=... -DWORK_DIR=... -P run_examples.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: exit ${rc}\n${out}${err}")
  endif()
  message(STATUS "${out}")
endfunction()
# The files the examples name: the sample baked (sample.vat.glb, crowd.vat.glb), RobotExpressive
# baked (robot.vat.glb: its Walking and Death), Fox.glb.
run(${VATKIT} bake --lods 1 --no-measure -o sample.vat.glb)
file(COPY_FILE ${WORK_DIR}/sample.vat.glb ${WORK_DIR}/crowd.vat.glb)
run(${VATKIT} bake ${ASSETS}/threejs/RobotExpressive.glb --lods 0 --no-measure -o robot.vat.glb)
file(COPY_FILE ${ASSETS}/khronos/Fox.glb ${WORK_DIR}/Fox.glb)
# Under the sanitizers without the leak check: the examples open GL contexts, and eglTerminate makes
# Mesa unload its driver, leaving blocks LeakSanitizer can only attribute to the unloaded module
# (tests/components.cmake, tests/cli_test_support.h). vatkit's GL code is leak-checked by the GL
# tests of vatkit_tests.
run(${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0:alloc_dealloc_mismatch=0 ${EXAMPLES})
foreach(png frame.png crowd.png)
  if(NOT EXISTS ${WORK_DIR}/${png})
    message(FATAL_ERROR "the examples did not write ${png}")
  endif()
endforeach()
