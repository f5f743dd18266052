# The C interface tests' inputs (tests/c_api/), made by the build's CLI in WORK_DIR: the built-in
# sample character baked twice at 10 fps, without levels of detail or measurement (quick), walk's
# defaults set so that an instance's overrides are told apart from them, and one event, walk's
# "step" at 0.2 s (the sample carries no other):
#   delta.vat.glb  delta, f32;   rig.vat.glb  rig, f32
# and, as `vatkit pose` decodes them (the expectations, independent of the C layer):
#   delta_walk.json  delta, walk at 0.115 s;  delta_idle.json  delta, idle at 1.23 s
#   rig_walk.json    rig, walk at 0.115 s
# Variables: VATKIT_CLI, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
endfunction()

foreach(encoding delta rig)
  run(${VATKIT_CLI} bake -o ${WORK_DIR}/${encoding}.vat.glb --encoding ${encoding} --precision f32 --fps 10
      --lods 0 --no-measure --clip-defaults walk=pingpong,rewind,repetitions=3,speed=1.5 --event walk=step@0.2
      --no-source-events)
endforeach()
run(${VATKIT_CLI} pose ${WORK_DIR}/delta.vat.glb --clip walk --time 0.115 -o ${WORK_DIR}/delta_walk.json)
run(${VATKIT_CLI} pose ${WORK_DIR}/delta.vat.glb --clip idle --time 1.23 -o ${WORK_DIR}/delta_idle.json)
run(${VATKIT_CLI} pose ${WORK_DIR}/rig.vat.glb --clip walk --time 0.115 -o ${WORK_DIR}/rig_walk.json)
