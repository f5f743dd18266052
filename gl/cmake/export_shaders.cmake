# Generates the exported decode shaders (docs/shaders.md): for every variant of
# gl/shaders/export/variants.cmake, the wrapper gl/shaders/export/vat_decode_export.vert compiled
# to Vulkan SPIR-V by glslang, validated by spirv-val, and translated by SPIRV-Cross to HLSL
# (shader model 5.0), Metal Shading Language (2.1) and a JSON reflection of the resources:
#   OUTPUT_DIR/<variant>.spv .hlsl .metal .json
# Any tool's failure stops the script with the variant, the command and the tool's output.
# Run by the build (gl/CMakeLists.txt, where the tools are found) and by the shader_chunks test.
#
#   cmake -DGLSLANG=... -DSPIRV_AS=... -DSPIRV_DIS=... -DSPIRV_VAL=... -DSPIRV_CROSS=...
#         -DSOURCE_DIR=<gl/shaders> -DOUTPUT_DIR=... [-DVARIANTS=a|b] -P export_shaders.cmake
# VARIANTS ('|'-separated define sets) limits the run to those variants.
include(${SOURCE_DIR}/export/variants.cmake)
if(DEFINED VARIANTS)
  string(REPLACE "|" ";" VATKIT_SHADER_VARIANTS "${VARIANTS}")
endif()
file(MAKE_DIRECTORY ${OUTPUT_DIR})

# The sampler bindings (descriptor set 0), one per sampler whatever the variant: the texture units
# of vatkit::gl::DecodeUnits. The uniform block takes binding 6 (glslang's --sdub below).
set(bindings u_vat_position=0 u_vat_normal=1 u_vat_tangent=2 u_vat_slots=3 u_vat_row_ranges=4 u_vat_instances=5)

function(run variant)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "export_shaders: ${variant}: ${command} failed (${rc}):\n${out}")
  endif()
endfunction()

foreach(variant IN LISTS VATKIT_SHADER_VARIANTS)
  vatkit_shader_variant_name(name "${variant}")
  string(REPLACE "," ";" defines "${variant}")
  list(TRANSFORM defines PREPEND "-D")
  set(stem ${OUTPUT_DIR}/${name})
  # -R: default-block uniforms allowed, gathered into the block VatUniforms; --amb gives the
  # samplers provisional bindings, renumbered below. No -g: names are kept (OpName), no source.
  run(${name} ${GLSLANG} -V -R --amb --sdub VatUniforms 0 6 ${defines} -S vert --quiet
      -o ${stem}.glslang.spv ${SOURCE_DIR}/export/vat_decode_export.vert)
  # glslang cannot bind loose samplers by name (its --resource-set-binding sets only their
  # descriptor set here), so the bindings are rewritten in the disassembly and reassembled. The
  # block's instance, anonymous, is named `vat`, so that the translations name its members
  # vat_u_... (HLSL) and vat.u_... (MSL) instead of by an id that changes with the variant.
  run(${name} ${SPIRV_DIS} ${stem}.glslang.spv -o ${stem}.spvasm)
  file(READ ${stem}.spvasm text)
  foreach(binding IN LISTS bindings)
    string(REPLACE "=" ";" binding "${binding}")
    list(GET binding 0 sampler)
    list(GET binding 1 slot)
    string(REGEX REPLACE "(OpDecorate %${sampler} Binding )[0-9]+" "\\1${slot}" text "${text}")
  endforeach()
  if(NOT text MATCHES "\n *(%[A-Za-z0-9_]+) = OpVariable %_ptr_Uniform_VatUniforms Uniform")
    message(FATAL_ERROR "export_shaders: ${name}: no VatUniforms block in ${stem}.spvasm")
  endif()
  string(REPLACE "OpName ${CMAKE_MATCH_1} \"\"" "OpName ${CMAKE_MATCH_1} \"vat\"" text "${text}")
  file(WRITE ${stem}.spvasm "${text}")
  run(${name} ${SPIRV_AS} --target-env vulkan1.0 ${stem}.spvasm -o ${stem}.spv)
  file(REMOVE ${stem}.glslang.spv ${stem}.spvasm)
  run(${name} ${SPIRV_VAL} --target-env vulkan1.0 ${stem}.spv)
  # Matrix inputs flattened: a_world's columns are TEXCOORD9..12, every input TEXCOORD<location>.
  run(${name} ${SPIRV_CROSS} ${stem}.spv --hlsl --shader-model 50 --hlsl-flatten-matrix-vertex-input-semantics
      --output ${stem}.hlsl)
  run(${name} ${SPIRV_CROSS} ${stem}.spv --msl --msl-version 20100 --msl-texture-buffer-native
      --msl-decoration-binding --output ${stem}.metal)
  run(${name} ${SPIRV_CROSS} ${stem}.spv --reflect --output ${stem}.json)
endforeach()
