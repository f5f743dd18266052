# vatkit_openvat.gd: loads `vatkit export --to openvat` files into a Godot 3 project at run time
# and makes the material that plays them with vatkit_openvat.shader (docs/godot.md). Load it by
# path (it declares no class_name, so it needs no editor class cache):
#
#   var OpenVat = load("res://vatkit_openvat.gd")
#   var sidecar = OpenVat.read_sidecar("/data/fox-remap_info.json")
#   var texture = OpenVat.load_texture("/data/fox_vat.png")
#   var material = OpenVat.make_material(sidecar, texture, "Walk")
#   $Fox/openvat.material_override = material   # the imported fox.glb's MeshInstance
#
# Every function reports a failure as one error line naming the file and the reason
# (push_error) and returns null: nothing half-made.
extends Reference

const SHADER = preload("res://vatkit_openvat.shader")
const PNG_SIGNATURE = PoolByteArray([137, 80, 78, 71, 13, 10, 26, 10])


# The sidecar (OUT-remap_info.json) as a Dictionary, checked to have os-remap and animations.
static func read_sidecar(path):
	var bytes = read_bytes(path)
	if bytes == null:
		return null
	var parsed = JSON.parse(bytes.get_string_from_utf8())
	if parsed.error != OK:
		return _fail(path, "not JSON (line %d: %s)" % [parsed.error_line, parsed.error_string])
	var doc = parsed.result
	if typeof(doc) != TYPE_DICTIONARY or not doc.has("os-remap") or not doc.has("animations"):
		return _fail(path, "no \"os-remap\" and \"animations\": not an OpenVAT sidecar")
	return doc


# The VAT texture as an ImageTexture with flags 0 (no mipmaps, no filtering, no repeat, no sRGB
# conversion). A 16-bit RGB PNG is read here into 32-bit floats, keeping its 16 bits (Godot 3.2's
# Image.load keeps 8); an .exr (half floats) goes through Image.load, which keeps them.
static func load_texture(path):
	var image
	if path.get_extension().to_lower() == "png":
		image = _read_png16(path)
	else:
		image = Image.new()
		if image.load(path) != OK:
			return _fail(path, "Image.load cannot read it")
	if image == null:
		return null
	var texture = ImageTexture.new()
	texture.create_from_image(image, 0)
	return texture


# A ShaderMaterial of vatkit_openvat.shader playing clip_name of the sidecar on texture, from its
# start at speed 1 (set clip_time and speed to pose it).
static func make_material(sidecar, texture, clip_name):
	var material = ShaderMaterial.new()
	material.shader = SHADER
	var remap = sidecar["os-remap"]
	material.set_shader_param("vat_texture", texture)
	material.set_shader_param("remap_min", _vector(remap["Min"]))
	material.set_shader_param("remap_max", _vector(remap["Max"]))
	if set_clip(material, sidecar, clip_name) == null:
		return null
	return material


# Points material at another clip of the sidecar's animations table (returns null when it has none
# of that name).
static func set_clip(material, sidecar, clip_name):
	var clips = sidecar["animations"]
	if not clips.has(clip_name):
		return _fail("sidecar", "no clip \"%s\" (clips: %s)" % [clip_name, PoolStringArray(clips.keys()).join(", ")])
	var clip = clips[clip_name]
	material.set_shader_param("start_frame", float(clip["startFrame"]))
	material.set_shader_param("end_frame", float(clip["endFrame"]))
	material.set_shader_param("framerate", float(clip["framerate"]))
	material.set_shader_param("looping", bool(clip["looping"]))
	return material


# A whole file's bytes (null, reported, when it cannot be opened).
static func read_bytes(path):
	var file = File.new()
	if file.open(path, File.READ) != OK:
		return _fail(path, "cannot be opened")
	var bytes = file.get_buffer(file.get_len())
	file.close()
	return bytes


static func _vector(values):
	return Vector3(values[0], values[1], values[2])


static func _fail(path, reason):
	push_error("%s: %s" % [path, reason])
	return null


# A 16-bit RGB, non-interlaced PNG (what vatkit writes) as an Image of FORMAT_RGBF, each sample
# divided by 65535. Rows that are all zero (the texture's unused rows) are not converted.
static func _read_png16(path):
	var data = read_bytes(path)
	if data == null:
		return null
	if data.size() < 8 or data.subarray(0, 7) != PNG_SIGNATURE:
		return _fail(path, "not a PNG")
	var header = null
	var idat = PoolByteArray()
	var stream = StreamPeerBuffer.new()
	stream.data_array = data
	stream.big_endian = true
	stream.seek(8)
	while stream.get_position() + 8 <= data.size():
		var length = stream.get_u32()
		var kind = stream.get_string(4)
		var start = stream.get_position()
		if start + length + 4 > data.size():
			return _fail(path, "chunk %s runs past the end of the file" % kind)
		if kind == "IHDR" and length >= 13:
			header = data.subarray(start, start + 12)
		elif kind == "IDAT" and length > 0:
			idat.append_array(data.subarray(start, start + length - 1))
		elif kind == "IEND":
			break
		stream.seek(start + length + 4)
	if header == null:
		return _fail(path, "no IHDR chunk")
	var h = StreamPeerBuffer.new()
	h.data_array = header
	h.big_endian = true
	var width = h.get_u32()
	var height = h.get_u32()
	if header[8] != 16 or header[9] != 2 or header[12] != 0:
		return _fail(path, "not a 16-bit RGB non-interlaced PNG (bit depth %d, colour type %d): export with vatkit's png16" % [header[8], header[9]])
	var stride = width * 6
	var raw = idat.decompress(height * (stride + 1), File.COMPRESSION_DEFLATE)
	if raw.size() != height * (stride + 1):
		return _fail(path, "image data does not inflate to %d x %d texels" % [width, height])
	return _png16_texels(path, raw, width, height)


# The inflated rows (a filter byte and 6 bytes a texel each) as an FORMAT_RGBF Image (12 bytes a
# texel, little-endian floats).
static func _png16_texels(path, raw, width, height):
	var stride = width * 6
	var zero_line = _zeros(stride)
	var zero_floats = _zeros(width * 12)
	var previous = zero_line
	var out = StreamPeerBuffer.new()
	out.big_endian = false
	for y in range(height):
		var kind = raw[y * (stride + 1)]
		var line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1) - 1)
		if kind > 4:
			return _fail(path, "row %d has PNG filter %d" % [y, kind])
		if kind != 0:
			line = _unfilter(line, previous, kind)
		previous = line
		if line == zero_line:
			out.put_data(zero_floats)
			continue
		for i in range(width * 3):
			out.put_float((line[2 * i] * 256 + line[2 * i + 1]) / 65535.0)
	var image = Image.new()
	image.create_from_data(width, height, false, Image.FORMAT_RGBF, out.data_array)
	return image


# count zero bytes (Image.create fills its data with zeros).
static func _zeros(count):
	var image = Image.new()
	image.create(count, 1, false, Image.FORMAT_L8)
	return image.get_data()


# One PNG row with its filter undone (PNG 1.2, section 6: filters 1 Sub, 2 Up, 3 Average, 4 Paeth,
# 6 bytes a pixel), given the row above unfiltered.
static func _unfilter(line, previous, kind):
	var bpp = 6
	for i in range(line.size()):
		var a = line[i - bpp] if i >= bpp else 0
		var b = previous[i]
		var c = previous[i - bpp] if i >= bpp else 0
		var add = 0
		if kind == 1:
			add = a
		elif kind == 2:
			add = b
		elif kind == 3:
			add = (a + b) / 2
		else:
			var p = a + b - c
			var pa = abs(p - a)
			var pb = abs(p - b)
			var pc = abs(p - c)
			add = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
		line[i] = (line[i] + add) & 255
	return line
