// VatkitOpenVat.hlsl: plays vatkit's OpenVAT export (`vatkit export FILE --to openvat`) in Unity,
// from a Shader Graph Custom Function node (Type File, this file as Source) or from a hand-written
// shader (#include it). engines/unity/README.md says how to wire it; docs/engines.md what was
// verified and what was not.
//
// Functions (Shader Graph adds the _float / _half suffix to the node's Name):
//   VatkitOpenVat      Name "VatkitOpenVat": the texture as a Texture 2D port (UnityTexture2D,
//                      Shader Graph 10.3 and later); its size comes from the texture itself.
//   VatkitOpenVatBare  Name "VatkitOpenVatBare": the texture as a bare Texture2D (a port marked
//                      Bare, or a hand-written shader) plus its size in texels.
//   VatkitOpenVatClipFrame  the texture frame of a clip of the sidecar's "animations" table at a time.
// Inputs: AddressUV = the mesh's UV1 (glTF TEXCOORD_1, as Unity's glTF importers hand it over:
// v flipped to Unity's bottom-left origin); Frame = texture frame (fractional frames blend two);
// RemapMin / RemapMax = the sidecar's "os-remap" Min and Max; RestPosition = the vertex's object
// space position (Position node, Object). Outputs: object-space Position and Normal, for the
// master stack's vertex Position and Normal (both Object space).
// Assumes the texture is stored by Unity as Unity stores every texture (image's bottom row first)
// and the mesh was imported by UnityGLTF or glTFast (x negated); see vatkit_openvat_blender_to_unity.
// Needs Texture2D.Load: not on GLES2.
#ifndef VATKIT_OPENVAT_INCLUDED
#define VATKIT_OPENVAT_INCLUDED

// BEGIN vatkit_openvat_decode.hlsl (pasted by engines/generate.cmake: edit engines/hlsl/vatkit_openvat_decode.hlsl, not this copy)
// vatkit_openvat_decode.hlsl: the one decode of vatkit's OpenVAT export (docs/openvat.md has the
// files, docs/engines.md the engine wiring). Plain HLSL (shader model 4.0 or later: Texture2D.Load),
// no engine macro, so that every engine file can carry it unchanged: engines/generate.cmake pastes
// this file between the markers of engines/unity/VatkitOpenVat.hlsl, engines/unreal/VatkitOpenVat.ush
// and engines/unreal/VatkitOpenVatCustomNode.hlsl, and the engines_generated test fails when a
// pasted copy differs. Edit this file, then run `cmake -P engines/generate.cmake`.
//
// The texture (W x H texels, H even): the top half holds positions, the bottom half normals. In
// image rows counted from the top (the PNG's first row is row 0), vertex i's texel for texture
// frame f is column i % W, row (i / W) * F + f (F frames); its normal is H / 2 rows further down.
// A position texel holds (offset - Min) / (Max - Min) per channel, a normal texel n * 0.5 + 0.5;
// both in Blender's axes (z up). The mesh's second texture coordinate set (glTF TEXCOORD_1) holds
// the centre of the vertex's frame-0 texel: u = (i % W + 0.5) / W, v = ((i / W) * F + 0.5) / H.
//
// Reading: texels are fetched with Load (no filtering, no mip, no sampler), so the texture's import
// settings cannot blur frames or vertices into each other; the two frames around a fractional
// frame are blended here.

// The texel at image column x, image row y (from the top). bottomUp: the engine stores the texture
// with the image's last row first (Unity), so Load's row 0 is the image's bottom row.
float4 vatkit_openvat_load(Texture2D<float4> vat, int x, int y, int height, bool bottomUp)
{
    return vat.Load(int3(x, bottomUp ? height - 1 - y : y, 0));
}

// The vertex's offset from its rest position and its normal at texture frame `frame` (fractional
// frames blend floor(frame) and floor(frame) + 1 linearly; the normal is normalized after the
// blend), in Blender's axes (the texel values' own).
//   addressUV:   the vertex's TEXCOORD_1 in image orientation (v = 0 at the image's top row); an
//                engine whose importer flips v (Unity: v' = 1 - v) passes float2(u, 1 - v').
//   frame:       texture frame, 0 .. F - 1 (the sidecar's startFrame .. endFrame for a clip).
//                At frame == endFrame the next frame's weight is 0, so no clamp is needed.
//   remapMin/Max: the sidecar's "os-remap" Min and Max.
//   textureSize: W, H in texels.
void vatkit_openvat_decode_blender(Texture2D<float4> vat, float2 addressUV, float frame, float3 remapMin,
                                   float3 remapMax, float2 textureSize, bool bottomUp,
                                   out float3 offset, out float3 normal)
{
    // The address is a texel centre: floor lands on the texel whatever the float rounding.
    const int x = int(floor(addressUV.x * textureSize.x));
    const int height = int(textureSize.y);
    const float first = floor(frame);
    const float mixNext = frame - first;
    const int row = int(floor(addressUV.y * textureSize.y)) + int(first);
    const int normalRows = height / 2;
    const float3 p0 = vatkit_openvat_load(vat, x, row, height, bottomUp).rgb;
    const float3 p1 = vatkit_openvat_load(vat, x, row + 1, height, bottomUp).rgb;
    const float3 n0 = vatkit_openvat_load(vat, x, row + normalRows, height, bottomUp).rgb;
    const float3 n1 = vatkit_openvat_load(vat, x, row + 1 + normalRows, height, bottomUp).rgb;
    offset = remapMin + lerp(p0, p1, mixNext) * (remapMax - remapMin);
    const float3 n = lerp(n0, n1, mixNext) * 2.0 - 1.0;
    const float length2 = dot(n, n);
    normal = length2 > 0.0 ? n * rsqrt(length2) : float3(0.0, 0.0, 1.0);
}

// Blender's axes (right-handed, z up) to glTF's (right-handed, y up): the axes of the exported
// mesh as written.
float3 vatkit_openvat_blender_to_gltf(float3 v)
{
    return float3(v.x, v.z, -v.y);
}

// Blender's axes to a Unity mesh's object space as Unity's glTF importers build it (UnityGLTF and
// glTFast turn glTF's right-handed axes into Unity's left-handed ones by negating x): glTF's
// (x, y, z) becomes (-x, y, z).
float3 vatkit_openvat_blender_to_unity(float3 v)
{
    return float3(-v.x, v.z, -v.y);
}

// Blender's axes to an Unreal mesh's local space as Unreal's glTF import builds it (its GLTFCore
// turns glTF's (x, y, z) into (x, z, y): left-handed, z up), then times unitScale (glTF metres to
// the import's units: 100 for centimetres at the default import scale). A mirror: normals take it
// unscaled.
float3 vatkit_openvat_blender_to_unreal(float3 v, float unitScale)
{
    return float3(v.x, -v.y, v.z) * unitScale;
}

// The texture frame a clip of the sidecar's "animations" table shows `timeSeconds` after it
// started: startFrame + t * framerate, t wrapped to the clip's duration (endFrame - startFrame) /
// framerate when looping, held at the end otherwise. framerate 0 (a one-frame clip) gives
// startFrame. vatkit plays a clip's rows the same way (its decode's clip_rows_at).
float vatkit_openvat_clip_frame(float timeSeconds, float startFrame, float endFrame, float framerate, bool looping)
{
    const float span = endFrame - startFrame;
    if (framerate <= 0.0 || span <= 0.0) return startFrame;
    float x = max(timeSeconds, 0.0) * framerate;
    if (looping) x -= span * floor(x / span);
    return startFrame + min(x, span);
}
// END vatkit_openvat_decode.hlsl

void VatkitOpenVatBare_float(Texture2D VatTexture, float2 TextureSize, float2 AddressUV, float Frame,
                             float3 RemapMin, float3 RemapMax, float3 RestPosition,
                             out float3 Position, out float3 Normal)
{
    float3 offset, normal;
    // Unity's importers flip v (v' = 1 - v) and Unity stores the image bottom row first: both undone.
    vatkit_openvat_decode_blender(VatTexture, float2(AddressUV.x, 1.0 - AddressUV.y), Frame, RemapMin, RemapMax,
                                  TextureSize, true, offset, normal);
    Position = RestPosition + vatkit_openvat_blender_to_unity(offset);
    Normal = vatkit_openvat_blender_to_unity(normal);
}

// Half precision graphs: these forms exist so that such graphs compile; the decode itself runs in
// float. Where half is a real 16-bit float (mobile GPUs), a half address cannot tell texels apart
// in textures 1024 or more wide (11 significant bits) and half positions are coarser than the
// texture's 16 bits: set the node's precision to Single.
void VatkitOpenVatBare_half(Texture2D VatTexture, half2 TextureSize, half2 AddressUV, half Frame,
                            half3 RemapMin, half3 RemapMax, half3 RestPosition,
                            out half3 Position, out half3 Normal)
{
    float3 position, normal;
    VatkitOpenVatBare_float(VatTexture, TextureSize, AddressUV, Frame, RemapMin, RemapMax, RestPosition,
                            position, normal);
    Position = half3(position);
    Normal = half3(normal);
}

// Shader Graph 10.3 and later pass a Texture 2D port as UnityTexture2D (defined by the Core render
// pipeline's Texture.hlsl, which every Shader Graph includes). A hand-written shader without it
// defines VATKIT_OPENVAT_NO_UNITY_TEXTURE2D before including this file and calls the Bare form.
#ifndef VATKIT_OPENVAT_NO_UNITY_TEXTURE2D
void VatkitOpenVat_float(UnityTexture2D VatTexture, float2 AddressUV, float Frame, float3 RemapMin, float3 RemapMax,
                         float3 RestPosition, out float3 Position, out float3 Normal)
{
    // texelSize is (1 / width, 1 / height, width, height).
    VatkitOpenVatBare_float(VatTexture.tex, VatTexture.texelSize.zw, AddressUV, Frame, RemapMin, RemapMax,
                            RestPosition, Position, Normal);
}

void VatkitOpenVat_half(UnityTexture2D VatTexture, half2 AddressUV, half Frame, half3 RemapMin, half3 RemapMax,
                        half3 RestPosition, out half3 Position, out half3 Normal)
{
    float3 position, normal;
    VatkitOpenVatBare_float(VatTexture.tex, VatTexture.texelSize.zw, AddressUV, Frame, RemapMin, RemapMax,
                            RestPosition, position, normal);
    Position = half3(position);
    Normal = half3(normal);
}
#endif

// Time (seconds since the clip started: the Time node's Time minus a start time) to the texture
// frame of the clip StartFrame .. EndFrame, Framerate and Looping (0 or 1) from the sidecar.
void VatkitOpenVatClipFrame_float(float Time, float StartFrame, float EndFrame, float Framerate, float Looping,
                                  out float Frame)
{
    Frame = vatkit_openvat_clip_frame(Time, StartFrame, EndFrame, Framerate, Looping > 0.5);
}

void VatkitOpenVatClipFrame_half(half Time, half StartFrame, half EndFrame, half Framerate, half Looping,
                                 out half Frame)
{
    Frame = half(vatkit_openvat_clip_frame(Time, StartFrame, EndFrame, Framerate, Looping > 0.5));
}

#endif  // VATKIT_OPENVAT_INCLUDED
