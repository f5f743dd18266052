// vatkit/gl/decode_glsl.h: the VAT decode shader chunk, for renderers of one's own.
//
// The chunk (gl/shaders/vat_decode.glsl, also installed under share/vatkit/shaders/) is the GLSL
// transcription of the runtime's decode (decode.h) and playback resolve (playback.h): give it the VAT's
// planes as textures and an instance's packed playback row, call vat_resolve_instance() (or
// vat_resolve() on a row you fetched yourself) and vat_decode(), and you get the object-space
// position and normal the CPU mirror (mirror.h) computes. It contains no `main`, no vertex
// attributes and no `#version` line: put it after your own `#version` and the defines below, then
// your vertex shader. docs/rendering.md shows a complete vertex shader.
//
// What it does NOT do: upload anything, bind textures, or place the vertex in the world (the
// instance's world matrix is yours). vatkit::gl::VatGpu (vat_gpu.h) does the uploads and the
// uniforms when you use vatkit's GL objects; without it, upload the planes as documented in
// docs/rendering.md ("The decode chunk in your own renderer"). Needs no GL context; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vatkit/vat.h"

namespace vatkit::gl {

// The chunk's text (GLSL 4.50 core; it also compiles as GLSL ES 3.20, and without the playback
// table, VAT_NO_INSTANCE_TABLE, as GLSL ES 3.00).
std::string_view decode_glsl();

// The defines the chunk needs for `vat` ("VAT_DELTA", "VAT_Q16", "VAT_NORMAL_PLANE", ...), one
// per entry, without "#define". ProgramDesc::defines takes them as they are.
std::vector<std::string> decode_defines(const Vat& vat);

// "#define X\n" for each of decode_defines(vat), then decode_glsl(): the text to put after your
// "#version" line and before your vertex shader.
std::string decode_prelude(const Vat& vat);

// The texture units vatkit's own renderer (crowd.h) binds the chunk's samplers to. A renderer of
// one's own may use any units: set the sampler uniforms to match (VatGpu::set_decode_uniforms
// takes the units to use).
struct DecodeUnits {
  int position = 0;    // u_vat_position (delta)
  int normal = 1;      // u_vat_normal (delta f32/f16 with normals)
  int tangent = 2;     // u_vat_tangent (delta with tangents)
  int slots = 3;       // u_vat_slots (rig)
  int row_ranges = 4;  // u_vat_row_ranges (q16)
  int instances = 5;   // u_vat_instances (the playback table, a buffer texture)
};

}  // namespace vatkit::gl
