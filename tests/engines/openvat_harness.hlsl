// A vertex shader around the engine files of engines/ (docs/engines.md), for
// tests/test_gl_openvat_hlsl.cpp: glslang's HLSL front end compiles it to SPIR-V, SPIRV-Cross
// translates that to GLSL, and the test runs the GLSL on the vertices of vatkit's OpenVAT export
// (tests/openvat_hlsl.cmake does the first two steps). One define picks what is wrapped:
//   VARIANT_CORE         engines/hlsl/vatkit_openvat_decode.hlsl itself, glTF axes; u_flags.x
//                        selects the bottom-up texture rows (the texture uploaded so)
//   VARIANT_UNITY        engines/unity/VatkitOpenVat.hlsl's VatkitOpenVat_float through a stand-in
//                        for Unity's UnityTexture2D (its documented members), Unity's axes
//   VARIANT_UNITY_BARE   the same file's VatkitOpenVatBare_float, included as a hand-written
//                        shader without UnityTexture2D does
//   VARIANT_UNREAL_USH   engines/unreal/VatkitOpenVat.ush's VatkitOpenVatUnreal, Unreal's axes
//   VARIANT_UNREAL_NODE  engines/unreal/VatkitOpenVatCustomNode.hlsl's code inside a function
//                        shaped as Unreal generates a Custom node's (inputs as parameters,
//                        additional outputs inout; its struct at file scope), Unreal's axes
// Every variant takes the frame from the clip table the way its engine file offers (u_clip:
// startFrame, endFrame, framerate, looping; u_time: seconds into the clip).
#if defined(VARIANT_CORE)
#include "hlsl/vatkit_openvat_decode.hlsl"
#elif defined(VARIANT_UNITY)
struct UnityTexture2D {
    Texture2D tex;
    SamplerState samplerstate;
    float4 texelSize;
    float4 scaleTranslate;
};
#include "unity/VatkitOpenVat.hlsl"
#elif defined(VARIANT_UNITY_BARE)
#define VATKIT_OPENVAT_NO_UNITY_TEXTURE2D  // as a hand-written shader without Texture.hlsl
#include "unity/VatkitOpenVat.hlsl"
#elif defined(VARIANT_UNREAL_USH)
#include "unreal/VatkitOpenVat.ush"
#elif defined(VARIANT_UNREAL_NODE)
#include "unreal/VatkitOpenVat.ush"  // the clip frame only
// The node's struct at file scope, its code in the function (tests/openvat_hlsl.cmake says why).
#include "openvat_node_struct.hlsl"
float3 CustomExpression0(Texture2D VatTexture, SamplerState VatTextureSampler, float2 AddressUV, float Frame,
                         float3 RemapMin, float3 RemapMax, float2 TextureSize, float UnitScale, inout float3 Normal)
{
#include "openvat_node_code.hlsl"
}
#endif

Texture2D<float4> u_vat : register(t0);
SamplerState u_sampler : register(s0);
cbuffer Params : register(b0) {
    float4 u_min;
    float4 u_max;
    float4 u_size;   // width, height
    float4 u_clip;   // startFrame, endFrame, framerate, looping
    float4 u_flags;  // time, bottom-up rows (core), unit scale (Unreal)
};

struct VsIn {
    float3 rest : POSITION;
    float2 address : TEXCOORD1;
};
struct VsOut {
    float4 clip : SV_Position;
    float3 position : TEXCOORD0;
    float3 normal : TEXCOORD1;
};

VsOut main(VsIn i)
{
    VsOut o;
    const float time = u_flags.x;
#if defined(VARIANT_CORE)
    const float frame = vatkit_openvat_clip_frame(time, u_clip.x, u_clip.y, u_clip.z, u_clip.w > 0.5);
    float3 offset, normal;
    vatkit_openvat_decode_blender(u_vat, i.address, frame, u_min.xyz, u_max.xyz, u_size.xy, u_flags.y > 0.5,
                                  offset, normal);
    o.position = i.rest + vatkit_openvat_blender_to_gltf(offset);
    o.normal = vatkit_openvat_blender_to_gltf(normal);
#elif defined(VARIANT_UNITY) || defined(VARIANT_UNITY_BARE)
    float frame;
    VatkitOpenVatClipFrame_float(time, u_clip.x, u_clip.y, u_clip.z, u_clip.w, frame);
#if defined(VARIANT_UNITY)
    UnityTexture2D vatTexture;
    vatTexture.tex = u_vat;
    vatTexture.samplerstate = u_sampler;
    vatTexture.texelSize = float4(1.0 / u_size.xy, u_size.xy);
    vatTexture.scaleTranslate = float4(1.0, 1.0, 0.0, 0.0);
    VatkitOpenVat_float(vatTexture, i.address, frame, u_min.xyz, u_max.xyz, i.rest, o.position, o.normal);
#else
    VatkitOpenVatBare_float(u_vat, u_size.xy, i.address, frame, u_min.xyz, u_max.xyz, i.rest, o.position, o.normal);
#endif
#elif defined(VARIANT_UNREAL_USH) || defined(VARIANT_UNREAL_NODE)
    const float frame = VatkitOpenVatUnrealClipFrame(time, u_clip.x, u_clip.y, u_clip.z, u_clip.w);
#if defined(VARIANT_UNREAL_USH)
    const float3 offset = VatkitOpenVatUnreal(u_vat, i.address, frame, u_min.xyz, u_max.xyz, u_size.xy, u_flags.z,
                                              o.normal);
#else
    o.normal = float3(0.0, 0.0, 0.0);
    const float3 offset = CustomExpression0(u_vat, u_sampler, i.address, frame, u_min.xyz, u_max.xyz, u_size.xy,
                                            u_flags.z, o.normal);
#endif
    o.position = i.rest + offset;
#endif
    o.clip = float4(o.position, 1.0);
    return o;
}
