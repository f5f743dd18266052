# The decode chunk exported for other APIs (gl/cmake/export_shaders.cmake, docs/shaders.md):
# generates every variant into WORK_DIR (glslang, spirv-val and SPIRV-Cross stop it on any error),
# then checks what an engine relies on against expectations written from the chunk's interface
# (its header and docs/rendering.md), not from the generator:
#   - the variants are exactly the define sets vatkit::gl::decode_defines() can return;
#   - per variant, the SPIR-V's resources (SPIRV-Cross's reflection): the samplers the defines
#     call for and no others, at DecodeUnits' bindings, with their sampler types; the uniform
#     block at binding 6 with its members at the documented offsets; the vertex inputs;
#   - the HLSL and Metal name the entry point, the same resources at the same registers/indices
#     and the chunk's entry points; the HLSL is compiled again, by glslang's HLSL front end, to
#     SPIR-V that spirv-val accepts (the only HLSL compiler Debian has);
#   - a define set the chunk refuses makes the generator fail, naming the variant.
#   cmake -DGLSLANG=... (the tools, as gl/CMakeLists.txt passes them) -DSOURCE_DIR=<gl/shaders>
#         -DWORK_DIR=... -P shader_chunks.cmake
cmake_minimum_required(VERSION 3.20)  # string(JSON), IN_LIST
file(REMOVE_RECURSE ${WORK_DIR})
set(OUTPUT_DIR ${WORK_DIR})
include(${SOURCE_DIR}/../cmake/export_shaders.cmake)

set(failures "")
# expect(message <if() condition>...): records `message` where the condition is false. The
# condition names variables rather than quoting values (a macro's arguments are substituted).
macro(expect message)
  if(NOT (${ARGN}))
    string(REPLACE ";" " " line "${message}")
    list(APPEND failures "${line}")
  endif()
endmacro()

# reflected(OUT json "<path;to;array>" field...): one entry per element of the JSON array, its
# fields joined with ':' (SPIRV-Cross's reflection: {"name": "u_vat_slots", "binding": 3, ...}
# gives u_vat_slots:3 for fields name binding).
function(reflected out json path)
  set(entries "")
  string(JSON count ERROR_VARIABLE missing LENGTH "${json}" ${path})
  if(missing)
    set(count 0)
  endif()
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      set(entry "")
      foreach(field IN LISTS ARGN)
        string(JSON value GET "${json}" ${path} ${i} ${field})
        list(APPEND entry ${value})
      endforeach()
      list(JOIN entry ":" entry)
      list(APPEND entries ${entry})
    endforeach()
  endif()
  set(${out} ${entries} PARENT_SCOPE)
endfunction()

# decode_defines(): the encoding, the precision, then a delta's planes (a q16 delta has no Normal
# plane: its normals ride in the Position plane's w, and files with one are refused) or a rig's
# second set of influences.
set(expected_sets "")
foreach(precision F32 F16 Q16)
  foreach(normal "" ",VAT_NORMAL_PLANE")
    if(precision STREQUAL "Q16" AND normal)
      continue()
    endif()
    foreach(tangent "" ",VAT_TANGENT_PLANE")
      list(APPEND expected_sets "VAT_DELTA,VAT_${precision}${normal}${tangent}")
    endforeach()
  endforeach()
  foreach(eight "" ",VAT_EIGHT_INFLUENCES")
    list(APPEND expected_sets "VAT_RIG,VAT_${precision}${eight}")
  endforeach()
endforeach()
set(generated_sets ${VATKIT_SHADER_VARIANTS})
list(SORT expected_sets)
list(SORT generated_sets)
expect("variants: expected the 16 define sets of decode_defines(), got ${generated_sets}"
       expected_sets STREQUAL generated_sets)

# Each sampler's binding: its texture unit in vatkit::gl::DecodeUnits (gl/include/vatkit/gl/decode_glsl.h).
set(unit_u_vat_position 0)
set(unit_u_vat_normal 1)
set(unit_u_vat_tangent 2)
set(unit_u_vat_slots 3)
set(unit_u_vat_row_ranges 4)
set(unit_u_vat_instances 5)
set(all_samplers u_vat_position u_vat_normal u_vat_tangent u_vat_slots u_vat_row_ranges u_vat_instances)

foreach(variant IN LISTS VATKIT_SHADER_VARIANTS)
  vatkit_shader_variant_name(name "${variant}")
  string(REPLACE "," ";" defines "${variant}")
  set(stem ${WORK_DIR}/${name})

  # What the chunk's header says this define set declares.
  set(planes "")  # samplers with an ivec2 layout, in the chunk's declaration order
  if("VAT_DELTA" IN_LIST defines)
    list(APPEND planes u_vat_position)
    if("VAT_NORMAL_PLANE" IN_LIST defines AND NOT "VAT_Q16" IN_LIST defines)
      list(APPEND planes u_vat_normal)
    endif()
    if("VAT_TANGENT_PLANE" IN_LIST defines)
      list(APPEND planes u_vat_tangent)
    endif()
  else()
    list(APPEND planes u_vat_slots)
  endif()
  set(samplers ${planes})
  if("VAT_Q16" IN_LIST defines)
    list(APPEND samplers u_vat_row_ranges)
  endif()
  list(APPEND samplers u_vat_instances)
  set(absent ${all_samplers})
  list(REMOVE_ITEM absent ${samplers})
  set(functions vat_resolve_instance vat_resolve vat_decode vat_decode_tangent)
  if("VAT_RIG" IN_LIST defines)
    list(APPEND functions vat_slot_matrix vat_skin_matrix vat_decode_skinned)
  endif()
  if("VAT_Q16" IN_LIST defines)
    list(APPEND functions vat_row_ranges)
  endif()
  set(inputs a_position:0 a_normal:1 a_texcoord0:2 a_tangent:4 a_world:9 a_logical_instance:13)
  if("VAT_RIG" IN_LIST defines)
    list(APPEND inputs a_slots0:5 a_weights0:6)
    if("VAT_EIGHT_INFLUENCES" IN_LIST defines)
      list(APPEND inputs a_slots1:7 a_weights1:8)
    endif()
  else()
    list(APPEND inputs a_vat_vertex:14)  # the texel address, _VAT_VERTEX
  endif()

  foreach(kind spv hlsl metal json)
    file(SIZE ${stem}.${kind} size)
    expect("${name}.${kind}: ${size} bytes" size GREATER 1000)
  endforeach()
  file(READ ${stem}.spv magic LIMIT 4 HEX)
  set(spirv_magic 03022307)  # 0x07230203, little-endian
  expect("${name}.spv: no SPIR-V magic number (${magic})" magic STREQUAL spirv_magic)

  # The reflection: samplers, block, inputs.
  file(READ ${stem}.json json)
  set(want_textures "")
  foreach(sampler IN LISTS samplers)
    set(type sampler2D)
    if(sampler STREQUAL "u_vat_instances")
      set(type samplerBuffer)
    elseif("VAT_Q16" IN_LIST defines AND NOT sampler STREQUAL "u_vat_row_ranges")
      set(type usampler2D)
    endif()
    list(APPEND want_textures ${sampler}:${type}:0:${unit_${sampler}})
  endforeach()
  reflected(textures "${json}" textures name type set binding)
  list(SORT textures)
  list(SORT want_textures)
  expect("${name}.spv: textures (name:type:set:binding) ${textures}, expected ${want_textures}"
         textures STREQUAL want_textures)

  reflected(ubos "${json}" ubos name set binding)
  set(want_ubos VatUniforms:0:6)
  expect("${name}.spv: uniform blocks (name:set:binding) ${ubos}, expected ${want_ubos}" ubos STREQUAL want_ubos)
  string(JSON block_type GET "${json}" ubos 0 type)
  set(want_members u_view_projection:0 u_vat_time:64)
  set(offset 72)
  foreach(plane IN LISTS planes)
    list(APPEND want_members ${plane}_layout:${offset})
    math(EXPR offset "${offset} + 8")
  endforeach()
  reflected(members "${json}" "types;${block_type};members" name offset)
  expect("${name}.spv: VatUniforms members (name:offset) ${members}, expected ${want_members}"
         members STREQUAL want_members)

  reflected(found "${json}" inputs name location)
  list(SORT found)
  list(SORT inputs)
  expect("${name}.spv: vertex inputs ${found}, expected ${inputs}" found STREQUAL inputs)

  # The translations. Delta reads its texel address as an attribute, never the vertex index.
  set(hlsl_address "float a_vat_vertex : TEXCOORD14;")
  set(metal_address "float a_vat_vertex [[attribute(14)]];")
  if("VAT_RIG" IN_LIST defines)
    set(hlsl_address "")
    set(metal_address "")
  endif()
  file(READ ${stem}.hlsl hlsl)
  file(READ ${stem}.metal metal)
  foreach(needle "SPIRV_Cross_Output main(SPIRV_Cross_Input stage_input)" "cbuffer VatUniforms : register(b6)"
                 "float vat_u_vat_time : packoffset(c4);" "float4 a_world_3 : TEXCOORD12;"
                 "int a_logical_instance : TEXCOORD13;" ${hlsl_address})
    string(FIND "${hlsl}" "${needle}" at)
    expect("${name}.hlsl: no `${needle}`" at GREATER -1)
  endforeach()
  if(NOT "VAT_RIG" IN_LIST defines)
    string(FIND "${hlsl}" "SV_VertexID" at)
    expect("${name}.hlsl: reads SV_VertexID, the delta must address texels by a_vat_vertex" at EQUAL -1)
  endif()
  foreach(needle "vertex main0_out main0(main0_in in [[stage_in]], constant VatUniforms& vat [[buffer(6)]]"
                 "float u_vat_time;" "int a_logical_instance [[attribute(13)]];" ${metal_address})
    string(FIND "${metal}" "${needle}" at)
    expect("${name}.metal: no `${needle}`" at GREATER -1)
  endforeach()
  foreach(sampler IN LISTS samplers)
    set(unit ${unit_${sampler}})
    if(sampler STREQUAL "u_vat_instances")
      set(hlsl_decl "Buffer<float4> ${sampler} : register(t${unit});")
      set(msl_decl "texture_buffer<float> ${sampler} [[texture(${unit})]]")
    elseif("VAT_Q16" IN_LIST defines AND NOT sampler STREQUAL "u_vat_row_ranges")
      set(hlsl_decl "Texture2D<uint4> ${sampler} : register(t${unit});")
      set(msl_decl "texture2d<uint> ${sampler} [[texture(${unit})]]")
    else()
      set(hlsl_decl "Texture2D<float4> ${sampler} : register(t${unit});")
      set(msl_decl "texture2d<float> ${sampler} [[texture(${unit})]]")
    endif()
    string(FIND "${hlsl}" "${hlsl_decl}" at)
    expect("${name}.hlsl: no `${hlsl_decl}`" at GREATER -1)
    string(FIND "${metal}" "${msl_decl}" at)
    expect("${name}.metal: no `${msl_decl}`" at GREATER -1)
  endforeach()
  foreach(sampler IN LISTS absent)
    foreach(kind hlsl metal)
      string(REGEX MATCH "${sampler}[^_]" hit "${${kind}}")
      expect("${name}.${kind}: declares ${sampler}, which its defines leave out" NOT hit)
    endforeach()
  endforeach()
  foreach(function IN LISTS functions)
    foreach(kind hlsl metal)
      string(REGEX MATCH "[ \n]${function}\\(" hit "${${kind}}")
      expect("${name}.${kind}: no function ${function}" hit)
    endforeach()
  endforeach()

  # The HLSL through a second compiler: glslang's HLSL front end, then spirv-val.
  run(${name} ${GLSLANG} -D -V -S vert -e main --quiet -o ${stem}.from_hlsl.spv ${stem}.hlsl)
  run(${name} ${SPIRV_VAL} --target-env vulkan1.0 ${stem}.from_hlsl.spv)
endforeach()

# A define set the chunk refuses (no precision): the generator must fail and name the variant.
execute_process(COMMAND ${CMAKE_COMMAND} -DGLSLANG=${GLSLANG} -DSPIRV_AS=${SPIRV_AS} -DSPIRV_DIS=${SPIRV_DIS}
                        -DSPIRV_VAL=${SPIRV_VAL} -DSPIRV_CROSS=${SPIRV_CROSS} -DSOURCE_DIR=${SOURCE_DIR}
                        -DOUTPUT_DIR=${WORK_DIR}/refused -DVARIANTS=VAT_DELTA
                        -P ${SOURCE_DIR}/../cmake/export_shaders.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(FIND "${out}" "export_shaders: delta:" named)
string(FIND "${out}" "define VAT_F32, VAT_F16 or VAT_Q16" reason)
expect("the generator accepted VAT_DELTA without a precision, or failed without naming it (${rc}):\n${out}"
       NOT rc EQUAL 0 AND named GREATER -1 AND reason GREATER -1)

list(LENGTH VATKIT_SHADER_VARIANTS n)
if(failures)
  list(JOIN failures "\n  " lines)
  message(FATAL_ERROR "shader_chunks: ${n} variants, failures:\n  ${lines}")
endif()
message(STATUS "shader_chunks: ${n} variants compiled, validated, translated and checked")
