# render_openvat.gd: renders an imported OpenVAT mesh, posed by vatkit_openvat.shader, to PNG files
# and quits (the engine test's scene, tests/engine/godot_openvat.py; docs/godot.md). Arguments after
# `--`:
#   --mesh res://PATH.glb      the exported mesh, imported into this project (a PackedScene)
#   --texture FILE             OUT_vat.png (16-bit) or OUT_vat.exr
#   --sidecar FILE             OUT-remap_info.json
#   --clip NAME                the clip of the sidecar's animations table
#   --times T1,T2,...          clip times in seconds, one image each
#   --scene FILE.json          `vatkit render --scene-out`: image size, camera view and projection
#                              (a symmetric perspective), the first instance's world matrix
#   --out F1.png,F2.png,...    the images, one per time
# The material shows view-space normals (show_normals) on a black background in linear colour, as
# `vatkit render --shading normals` does. Exits 0 once every image is written, 1 on any error
# (printed as one line naming the file and the reason).
extends Node

# Loaded, not preloaded: with a const preload, Godot 3.2.3's editor (--editor --quit, the test's
# import step) reported "Couldn't fully preload the script" for this script.
var OpenVat = load("res://vatkit_openvat.gd")


func _ready():
	var code = yield(_run(), "completed")
	get_tree().quit(code)


func _run():
	yield(get_tree(), "idle_frame")
	var args = _arguments()
	for key in ["mesh", "texture", "sidecar", "clip", "times", "scene", "out"]:
		if not args.has(key):
			printerr("render_openvat: missing --%s" % key)
			return 1
	var times = Array(args["times"].split(","))
	var outputs = Array(args["out"].split(","))
	if times.size() != outputs.size():
		printerr("render_openvat: %d times but %d output files" % [times.size(), outputs.size()])
		return 1
	var scene = _read_json(args["scene"])
	var sidecar = OpenVat.read_sidecar(args["sidecar"])
	var texture = OpenVat.load_texture(args["texture"]) if sidecar else null
	var material = OpenVat.make_material(sidecar, texture, args["clip"]) if texture else null
	var packed = load(args["mesh"]) if scene else null
	if scene == null or material == null or packed == null:
		printerr("render_openvat: %s not loaded (the error above says why)" % ("the mesh" if scene and material else "an input"))
		return 1
	if not scene.has("instances") or scene["instances"].empty() or not scene.has("camera"):
		printerr("%s: no instances or no camera" % args["scene"])
		return 1
	var viewport = _viewport(scene)
	var camera = _camera(scene)
	if camera == null:
		return 1
	viewport.add_child(camera)
	var model = packed.instance()
	var meshes = _mesh_instances(model)
	if meshes.empty():
		printerr("%s: no MeshInstance in the imported scene" % args["mesh"])
		return 1
	model.transform = _transform(scene["instances"][0]["world"])
	for mesh in meshes:
		mesh.material_override = material
	material.set_shader_param("speed", 0.0)
	material.set_shader_param("show_normals", true)
	viewport.add_child(model)
	add_child(viewport)
	for k in range(times.size()):
		material.set_shader_param("clip_time", float(times[k]))
		yield(VisualServer, "frame_post_draw")
		yield(VisualServer, "frame_post_draw")
		var image = viewport.get_texture().get_data()
		image.flip_y()
		if image.save_png(outputs[k]) != OK:
			printerr("%s: cannot be written" % outputs[k])
			return 1
		print("render_openvat: %s at clip time %s -> %s" % [args["clip"], times[k], outputs[k]])
	return 0


# The options after `--`, as {name: value}.
func _arguments():
	var args = {}
	var list = OS.get_cmdline_args()
	var i = 0
	while i < list.size():
		if list[i].begins_with("--") and list[i] != "--" and i + 1 < list.size():
			args[list[i].substr(2, list[i].length() - 2)] = list[i + 1]
			i += 2
		else:
			i += 1
	return args


func _read_json(path):
	var bytes = OpenVat.read_bytes(path)
	if bytes == null:
		return null
	var parsed = JSON.parse(bytes.get_string_from_utf8())
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		printerr("%s: not a JSON object" % path)
		return null
	return parsed.result


# An offscreen viewport of the scene's size: 4x multisampling (vatkit render's default), linear
# output (no sRGB conversion: the normal colours are written as they are), black background.
func _viewport(scene):
	var viewport = Viewport.new()
	viewport.size = Vector2(scene["width"], scene["height"])
	viewport.msaa = Viewport.MSAA_4X
	viewport.keep_3d_linear = true
	viewport.render_target_update_mode = Viewport.UPDATE_ALWAYS
	var environment = Environment.new()
	environment.background_mode = Environment.BG_COLOR
	environment.background_color = Color(0, 0, 0)
	environment.ambient_light_color = Color(0, 0, 0)
	environment.ambient_light_energy = 0.0
	viewport.world = World.new()
	viewport.world.environment = environment
	return viewport


# A column-major 4x4 (the scene file's) as a Transform (its upper 3x4).
func _transform(m):
	var basis = Basis(Vector3(m[0], m[1], m[2]), Vector3(m[4], m[5], m[6]), Vector3(m[8], m[9], m[10]))
	return Transform(basis, Vector3(m[12], m[13], m[14]))


# The scene's camera: placed at the inverse of its view matrix, with the perspective its projection
# matrix describes (vertical field of view, near and far planes; OpenGL's clip space, as Godot's).
func _camera(scene):
	var p = scene["camera"]["projection"]
	if abs(p[8]) > 1e-6 or abs(p[9]) > 1e-6 or p[11] != -1.0:
		printerr("scene: camera.projection is not a symmetric perspective")
		return null
	var camera = Camera.new()
	camera.keep_aspect = Camera.KEEP_HEIGHT
	var fov = rad2deg(2.0 * atan(1.0 / p[5]))
	camera.set_perspective(fov, p[14] / (p[10] - 1.0), p[14] / (p[10] + 1.0))
	camera.transform = _transform(scene["camera"]["view"]).affine_inverse()
	camera.current = true
	return camera


func _mesh_instances(node):
	var found = []
	if node is MeshInstance:
		found.append(node)
	for child in node.get_children():
		found += _mesh_instances(child)
	return found
