# The define sets the exported shaders are generated for: every set vatkit::gl::decode_defines()
# can return, with the playback table (VAT_NO_INSTANCE_TABLE is left to engines that compile the
# GLSL themselves). Entries are ','-separated defines; a variant's file name is its defines in
# lower case without the VAT_ prefix, joined with '_' (VAT_RIG,VAT_Q16,VAT_EIGHT_INFLUENCES:
# rig_q16_eight_influences), so a renderer finds its file from decode_defines() alone.
set(VATKIT_SHADER_VARIANTS
  VAT_DELTA,VAT_F32
  VAT_DELTA,VAT_F32,VAT_NORMAL_PLANE
  VAT_DELTA,VAT_F32,VAT_TANGENT_PLANE
  VAT_DELTA,VAT_F32,VAT_NORMAL_PLANE,VAT_TANGENT_PLANE
  VAT_DELTA,VAT_F16
  VAT_DELTA,VAT_F16,VAT_NORMAL_PLANE
  VAT_DELTA,VAT_F16,VAT_TANGENT_PLANE
  VAT_DELTA,VAT_F16,VAT_NORMAL_PLANE,VAT_TANGENT_PLANE
  VAT_DELTA,VAT_Q16
  VAT_DELTA,VAT_Q16,VAT_TANGENT_PLANE
  VAT_RIG,VAT_F32
  VAT_RIG,VAT_F32,VAT_EIGHT_INFLUENCES
  VAT_RIG,VAT_F16
  VAT_RIG,VAT_F16,VAT_EIGHT_INFLUENCES
  VAT_RIG,VAT_Q16
  VAT_RIG,VAT_Q16,VAT_EIGHT_INFLUENCES)

# vatkit_shader_variant_name(OUT "VAT_RIG,VAT_Q16"): the file name stem of a variant.
function(vatkit_shader_variant_name out defines)
  string(REPLACE "VAT_" "" name "${defines}")
  string(REPLACE "," "_" name "${name}")
  string(TOLOWER "${name}" name)
  set(${out} "${name}" PARENT_SCOPE)
endfunction()

# The kinds of file generated per variant, by extension.
set(VATKIT_SHADER_EXPORT_KINDS spv hlsl metal json)
