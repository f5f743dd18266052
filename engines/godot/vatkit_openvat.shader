// vatkit_openvat.shader: plays a `vatkit export --to openvat` bake (docs/godot.md) on the mesh it
// exported, in Godot 3's GLES3 renderer. Per vertex, vertex() reads the vertex's offset and normal
// from the VAT texture at the vertex's UV2 address (the mesh's TEXCOORD_1), at two consecutive
// frame rows of the clip, and blends them; fragment() is a plain albedo surface, lit by the scene.
//
// Contract (docs/openvat.md has the convention):
// - vat_texture: the exported texture, positions in the top half and packed normals (n * 0.5 + 0.5)
//   in the bottom half, values in [0, 1]. Read at texel centres from mipmap level 0 (textureLod),
//   so filtering and mipmaps do not change a value; it must hold the values unchanged: no sRGB
//   conversion and no 8-bit truncation (Image.load truncates a 16-bit PNG to 8 bits in Godot 3.2:
//   vatkit_openvat.gd's load_texture keeps 16 bits). Not texelFetch: on Godot 3.2.3 with Mesa, an
//   8-bit texture created with flags 0 came back altered through texelFetch (as if sRGB-decoded)
//   and unaltered through textureLod (docs/godot.md).
// - remap_min, remap_max: the sidecar's "os-remap" Min and Max (Blender axes, as the texels).
// - start_frame, end_frame, framerate, looping: one clip of the sidecar's "animations" table
//   (texture rows, inclusive; rows a second; whether it repeats).
// - The clip time is clip_time + TIME * speed seconds: speed 1 plays the clip in real time, speed 0
//   holds the pose at clip_time. A looping clip wraps at its duration (end - start) / framerate,
//   a non-looping one holds its last row after it and its first row before 0.
// - The mesh must keep UV2 to texel precision: import the .glb with "Compress" off (half floats
//   miss the texel centre of textures wider than 1024).
shader_type spatial;

uniform sampler2D vat_texture : hint_black;
uniform vec3 remap_min = vec3(0.0);
uniform vec3 remap_max = vec3(1.0);
uniform float start_frame = 0.0;
uniform float end_frame = 0.0;
uniform float framerate = 30.0;
uniform bool looping = true;
uniform float clip_time = 0.0;
uniform float speed = 1.0;
uniform vec4 albedo : hint_color = vec4(1.0);
// Shows the surface normal as colour (n * 0.5 + 0.5 in view space, emitted): for checking a bake
// against `vatkit render --shading normals` in a scene with no lights and a black environment.
uniform bool show_normals = false;

// The clip's row position at clip time t: 0 at start_frame, rows (end_frame - start_frame) at its
// last row.
float clip_row(float rows, float t) {
	float duration = framerate > 0.0 ? rows / framerate : 0.0;
	if (duration <= 0.0) {
		return 0.0;
	}
	t = looping ? t - floor(t / duration) * duration : clamp(t, 0.0, duration);
	return clamp(t * framerate, 0.0, rows);
}

// Blender's z-up offset or normal (x, y, z) in the mesh's glTF y-up axes.
vec3 from_blender(vec3 v) {
	return vec3(v.x, v.z, -v.y);
}

// The texel at t (from the top left) of a texture of the given size.
vec3 texel_at(ivec2 t, ivec2 size) {
	return textureLod(vat_texture, (vec2(t) + 0.5) / vec2(size), 0.0).rgb;
}

void vertex() {
	ivec2 size = textureSize(vat_texture, 0);
	ivec2 texel = ivec2(floor(UV2 * vec2(size)));
	float rows = max(end_frame - start_frame, 0.0);
	float x = clip_row(rows, clip_time + TIME * speed);
	int row = int(floor(x));
	int next = min(row + 1, int(rows));
	float blend = x - float(row);
	ivec2 a = texel + ivec2(0, int(start_frame) + row);
	ivec2 b = texel + ivec2(0, int(start_frame) + next);
	ivec2 half_down = ivec2(0, size.y / 2);
	vec3 offset = mix(texel_at(a, size), texel_at(b, size), blend);
	vec3 normal = mix(texel_at(a + half_down, size), texel_at(b + half_down, size), blend);
	VERTEX += from_blender(remap_min + offset * (remap_max - remap_min));
	NORMAL = normalize(from_blender(normal * 2.0 - 1.0));
}

void fragment() {
	if (show_normals) {
		ALBEDO = vec3(0.0);
		EMISSION = normalize(NORMAL) * 0.5 + 0.5;
	} else {
		ALBEDO = albedo.rgb;
	}
}
