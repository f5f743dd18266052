// The Code of an Unreal material Custom node that plays vatkit's OpenVAT export: paste this whole
// file into the node's Code field. Output Type: CMOT Float 3 (the offset, for World Position
// Offset after a Transform Vector Local to World); Additional Outputs: Normal (CMOT Float 3, local).
// Inputs, named exactly so: VatTexture (a Texture Object: the node then also has VatTextureSampler,
// unused), AddressUV (TexCoord[1]), Frame, RemapMin, RemapMax, TextureSize (width, height), UnitScale
// (100 unless the import scale was changed). engines/unreal/README.md has the wiring. Unreal places
// the code inside a function, where no function may be defined: the decode lives in a local struct
// (member functions are allowed there) and is called through an instance of it.
struct VatkitOpenVatDecode
{
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
};
VatkitOpenVatDecode vatkit;
float3 vatkitOffset, vatkitNormal;
vatkit.vatkit_openvat_decode_blender(VatTexture, AddressUV, Frame, RemapMin, RemapMax, TextureSize, false,
                                     vatkitOffset, vatkitNormal);
Normal = vatkit.vatkit_openvat_blender_to_unreal(vatkitNormal, 1.0);
return vatkit.vatkit_openvat_blender_to_unreal(vatkitOffset, UnitScale);
