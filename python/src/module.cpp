// vatkit._core: the Python extension module behind the `vatkit` package (python/vatkit/__init__.py).
// It wraps the C++ library as it is: bake() is vatkit::bake over import_gltf (or the built-in
// sample), Vat.save is save_vat, load is load_vat, Vat.pose is decode_vertices at a clip's rows
// (what `vatkit pose FILE.vat.glb` prints), and _resolve_query answers one playback query line in
// the JSON form of `vatkit frame` (playback_json.h), so a Python dict means what the conformance
// vectors mean. Every vatkit::Error becomes a vatkit.Error exception carrying the ErrorCode's name
// (.code) and the one-line message (.message). The GIL is released while baking and decoding.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "playback_json.h"
#include "vatkit/bake.h"
#include "vatkit/decode.h"
#include "vatkit/import.h"
#include "vatkit/instance_table.h"
#include "vatkit/sample_character.h"
#include "vatkit/vat_file.h"
#include "vatkit/vat_write.h"

namespace py = pybind11;
using namespace vatkit;

namespace {

// vatkit.Error, created at import (a plain Exception subclass: .code and .message are set on
// each instance raised).
PyObject* g_error_type = nullptr;

// The enumerator's name, as the C++ spells it (result.h): what Error.code holds.
const char* code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Io: return "Io";
    case ErrorCode::Parse: return "Parse";
    case ErrorCode::InvalidGltf: return "InvalidGltf";
    case ErrorCode::Unsupported: return "Unsupported";
    case ErrorCode::Limit: return "Limit";
    case ErrorCode::Corrupt: return "Corrupt";
    case ErrorCode::Argument: return "Argument";
    case ErrorCode::Gl: return "Gl";
  }
  return "?";
}

// Thrown out of the bindings and turned into vatkit.Error by the translator registered below (a
// C++ exception, so that no Python object is touched while the GIL is released).
struct PyVatkitError {
  Error error;
};

template <class T>
T unwrap(Result<T>&& result) {
  if (!result) throw PyVatkitError{result.error()};
  return std::move(result).value();
}

void unwrap(Result<void>&& result) {
  if (!result) throw PyVatkitError{result.error()};
}

[[noreturn]] void argument_error(const std::string& what) {
  throw PyVatkitError{make_error(ErrorCode::Argument, "", what)};
}

// The value of enum E among `candidates` whose to_string is `word` (the library's own names:
// "auto" is the one word it has no to_string for).
template <class E>
E parse_word(const std::string& option, const std::string& word, std::initializer_list<E> candidates,
             std::string known = "") {
  for (E candidate : candidates) {
    if (word == to_string(candidate)) return candidate;
    if (!known.empty()) known += '|';
    known += to_string(candidate);
  }
  argument_error(option + " '" + word + "': expected " + known);
}

EncodingChoice encoding_choice(const std::string& word) {
  if (word == "auto") return EncodingChoice::Auto;
  return parse_word("encoding", word, {Encoding::Delta, Encoding::Rig}, "auto") == Encoding::Rig
             ? EncodingChoice::Rig
             : EncodingChoice::Delta;
}

py::dict defaults_dict(const ClipDefaults& d) {
  py::dict out;
  out["loop_mode"] = to_string(d.loop_mode);
  out["repetitions"] = d.repetitions;
  out["end_mode"] = to_string(d.end_mode);
  out["speed"] = d.speed;
  return out;
}

// `value` as a T, or vatkit.Error (Argument) naming `what` and the type expected (pybind11's own
// cast_error would surface as a bare RuntimeError).
template <typename T>
T typed(const py::handle& value, const std::string& what, const char* expected) {
  // A Python-type target (py::dict) would convert anything dict() accepts: ask for the type itself.
  bool ok = true;
  if constexpr (std::is_base_of_v<py::object, T>) ok = py::isinstance<T>(value);
  if (ok) {
    try {
      return value.cast<T>();
    } catch (const py::cast_error&) {
    }
  }
  argument_error(what + ": expected " + expected + ", got " +
                 std::string(py::str(py::type::of(value).attr("__name__"))));
}

ClipDefaults defaults_from(const std::string& clip, const py::handle& spec) {
  const std::string where = "clip_defaults['" + clip + "']";
  ClipDefaults out;
  for (auto [key, value] : typed<py::dict>(spec, where, "a dict")) {
    const auto name = typed<std::string>(key, where, "field names as str");
    const std::string field = where + "['" + name + "']";
    if (name == "loop_mode") {
      out.loop_mode = parse_word("loop_mode", typed<std::string>(value, field, "a str"),
                                 {LoopMode::Repeat, LoopMode::Once, LoopMode::PingPong});
    } else if (name == "repetitions") {
      out.repetitions = typed<int32_t>(value, field, "an int");
    } else if (name == "end_mode") {
      out.end_mode =
          parse_word("end_mode", typed<std::string>(value, field, "a str"), {EndMode::Clamp, EndMode::Rewind});
    } else if (name == "speed") {
      out.speed = typed<float>(value, field, "a number");
    } else {
      argument_error("clip_defaults: unknown field '" + name + "' (loop_mode, repetitions, end_mode, speed)");
    }
  }
  return out;
}

// A Vat shared between the Python objects that refer to it (its clips keep it alive).
using VatPtr = std::shared_ptr<Vat>;

// An (n, 3) float32 array owning a copy of `values`.
py::array_t<float> vec3_array(std::vector<glm::vec3>&& values) {
  auto* owned = new std::vector<glm::vec3>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<glm::vec3>*>(p); });
  const auto n = static_cast<py::ssize_t>(owned->size());
  return py::array_t<float>({n, py::ssize_t{3}}, {py::ssize_t{sizeof(glm::vec3)}, py::ssize_t{sizeof(float)}},
                            reinterpret_cast<const float*>(owned->data()), free_when_done);
}

int clip_index(const Vat& vat, const py::object& clip) {
  if (py::isinstance<py::str>(clip)) return unwrap(find_clip(vat, clip.cast<std::string>()));
  const auto index = clip.cast<int64_t>();
  if (index < 0 || index >= static_cast<int64_t>(vat.clips.size())) {
    throw PyVatkitError{make_error(ErrorCode::Argument, vat.source,
                                   "clip #" + std::to_string(index) + " out of range (the VAT has " +
                                       std::to_string(vat.clips.size()) + " clips)")};
  }
  return static_cast<int>(index);
}

// positions and normals of every vertex (merged ordering) at the clip's rows at `time`; the rest
// pose when `clip` is None.
py::tuple pose(const VatPtr& vat, const py::object& clip, double time) {
  const auto time_s = static_cast<float>(time);
  if (!std::isfinite(time) || !std::isfinite(time_s)) {
    throw PyVatkitError{make_error(ErrorCode::Argument, vat->source, "time must be a finite number of seconds")};
  }
  std::vector<glm::vec3> positions = vat->geometry.positions;
  std::vector<glm::vec3> normals = vat->geometry.normals;
  normals.resize(positions.size());
  if (!clip.is_none()) {
    const int index = clip_index(*vat, clip);
    py::gil_scoped_release release;
    decode_vertices(*vat, single(clip_rows_at(*vat, static_cast<uint32_t>(index), time_s)), 0, positions, normals);
  }
  return py::make_tuple(vec3_array(std::move(positions)), vec3_array(std::move(normals)));
}

void check_row(const InstanceTable& table, uint32_t index) {
  if (index >= table.size()) {
    argument_error("instance table row " + std::to_string(index) + " out of range (the table has " +
                   std::to_string(table.size()) + " rows)");
  }
}

struct Clip {
  VatPtr vat;
  uint32_t index = 0;
  const VatClip& get() const { return vat->clips[index]; }
};

VatPtr bake_file(const std::optional<std::string>& path, const std::string& encoding, const std::string& precision,
                 double fps, std::optional<double> max_error_mm, uint32_t lods, const std::vector<std::string>& clips,
                 const py::dict& clip_defaults, bool normals, bool tangents, uint32_t max_texture_size,
                 unsigned threads, bool measure, const std::vector<std::string>& allow_roots) {
  BakeOptions options;
  options.encoding = encoding_choice(encoding);
  options.precision = parse_word("precision", precision, {Precision::F32, Precision::F16, Precision::Q16});
  options.fps = static_cast<float>(fps);
  options.max_error_mm = max_error_mm ? static_cast<float>(*max_error_mm) : 0.0f;
  if (max_error_mm && !(*max_error_mm > 0.0)) argument_error("max_error_mm must be a positive number (or None)");
  options.lods = lods;
  options.clips = clips;
  for (auto [name, spec] : clip_defaults) {
    const auto clip = typed<std::string>(name, "clip_defaults", "clip names as str");
    options.clip_defaults.emplace_back(clip, defaults_from(clip, spec));
  }
  options.normals = normals;
  options.tangents = tangents;
  options.max_texture_size = max_texture_size;
  options.threads = threads;
  options.measure = measure;

  py::gil_scoped_release release;
  ImportOptions import_options;
  import_options.allowed_roots.assign(allow_roots.begin(), allow_roots.end());
  const Asset asset = unwrap(path ? import_gltf(*path, import_options) : load_sample_character());
  for (const auto& [name, defaults] : options.clip_defaults) {
    // A name the asset lacks is an error rather than silently ignored (as `vatkit bake --clip-defaults`).
    unwrap(find_clip(asset, name));
  }
  return std::make_shared<Vat>(unwrap(bake(asset, options)));
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "vatkit's C++ library (the vatkit package wraps it; docs/python.md)";

  g_error_type = PyErr_NewExceptionWithDoc("vatkit.Error",
                                           "A vatkit failure: .code is the ErrorCode's name ('Io', 'Parse', "
                                           "'InvalidGltf', 'Unsupported', 'Limit', 'Corrupt', 'Argument', 'Gl'), "
                                           ".message the one-line message naming the file and the reason.",
                                           PyExc_Exception, nullptr);
  m.add_object("Error", py::handle(g_error_type));
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const PyVatkitError& e) {
      py::object type = py::reinterpret_borrow<py::object>(g_error_type);
      py::object instance = type(e.error.message);
      instance.attr("code") = code_name(e.error.code);
      instance.attr("message") = e.error.message;
      PyErr_SetObject(g_error_type, instance.ptr());
    } catch (const BadResultAccess& e) {
      PyErr_SetString(g_error_type, e.what());
    }
  });

  py::class_<Clip>(m, "Clip", "One clip of a Vat (vat.h's VatClip), read-only")
      .def_property_readonly("name", [](const Clip& c) { return c.get().name; })
      .def_property_readonly("first_row", [](const Clip& c) { return c.get().first_row; })
      .def_property_readonly("rows", [](const Clip& c) { return c.get().rows; })
      .def_property_readonly("fps", [](const Clip& c) { return c.get().fps; })
      .def_property_readonly("duration", [](const Clip& c) { return c.get().duration_s; })
      .def_property_readonly("defaults", [](const Clip& c) { return defaults_dict(c.get().defaults); })
      .def_property_readonly("max_delta", [](const Clip& c) { return c.get().max_delta; })
      .def_property_readonly("events",
                             [](const Clip& c) {
                               py::list out;
                               for (const ClipEvent& e : c.get().events) out.append(py::make_tuple(e.name, e.time_s));
                               return out;
                             })
      .def_property_readonly("accuracy",
                             [](const Clip& c) -> py::object {
                               const std::optional<ClipAccuracy>& a = c.get().accuracy;
                               if (!a) return py::none();
                               py::dict out;
                               out["on_rows_max_mm"] = a->on_rows_max_mm;
                               out["on_rows_p99_mm"] = a->on_rows_p99_mm;
                               out["between_rows_max_mm"] = a->between_rows_max_mm;
                               out["between_rows_p99_mm"] = a->between_rows_p99_mm;
                               out["normal_max_deg"] = a->normal_max_deg;
                               return out;
                             })
      .def("__repr__", [](const Clip& c) {
        return "<vatkit.Clip '" + c.get().name + "' rows " + std::to_string(c.get().first_row) + "+" +
               std::to_string(c.get().rows) + ">";
      });

  py::class_<Vat, VatPtr>(m, "Vat", "A baked vertex animation texture (vat.h), immutable")
      .def_property_readonly("encoding", [](const Vat& v) { return to_string(v.encoding); })
      .def_property_readonly("precision", [](const Vat& v) { return to_string(v.precision); })
      .def_property_readonly("vertex_count", [](const Vat& v) { return v.geometry.vertex_count(); })
      .def_property_readonly("triangle_count", [](const Vat& v) { return v.geometry.indices.size() / 3; })
      .def_property_readonly("lod_count", [](const Vat& v) { return v.geometry.lods.size(); })
      .def_property_readonly("source", [](const Vat& v) { return v.source; })
      .def_property_readonly("clips",
                             [](const VatPtr& v) {
                               std::vector<Clip> clips;
                               for (uint32_t i = 0; i < v->clips.size(); ++i) clips.push_back({v, i});
                               return clips;
                             })
      .def_property_readonly("sources",
                             [](const Vat& v) {
                               py::list out;
                               for (const SourceRange& s : v.geometry.sources) {
                                 py::dict d;
                                 d["node"] = s.node;
                                 d["mesh"] = s.mesh;
                                 d["primitive"] = s.primitive;
                                 d["first_vertex"] = s.first_vertex;
                                 d["vertex_count"] = s.vertex_count;
                                 d["source_vertex_count"] = s.source_vertex_count;
                                 out.append(d);
                               }
                               return out;
                             })
      .def(
          "save",
          [](const Vat& v, const std::string& path) {
            py::gil_scoped_release release;
            unwrap(save_vat(v, path));
          },
          py::arg("path"), "Writes the .vat.glb (atomically)")
      .def(
          "to_bytes",
          [](const Vat& v) {
            std::vector<uint8_t> bytes;
            {
              py::gil_scoped_release release;
              bytes = unwrap(write_vat_glb(v));
            }
            return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
          },
          "The .vat.glb file's bytes")
      .def("pose", &pose, py::arg("clip") = py::none(), py::arg("time") = 0.0,
           "(positions, normals): (vertex_count, 3) float32 arrays at the clip (name, '#N' or index) and "
           "time, decoded as the GPU decodes them; the rest pose when clip is None")
      .def("__repr__", [](const Vat& v) {
        return "<vatkit.Vat " + std::string(to_string(v.encoding)) + " " + to_string(v.precision) + ", " +
               std::to_string(v.geometry.vertex_count()) + " vertices, " + std::to_string(v.clips.size()) + " clips>";
      });

  m.def(
      "load",
      [](const std::string& path) {
        py::gil_scoped_release release;
        return std::make_shared<Vat>(unwrap(load_vat(path)));
      },
      py::arg("path"), "Reads and validates a .vat.glb");

  m.def("bake", &bake_file, py::arg("path") = py::none(), py::kw_only(), py::arg("encoding") = "auto",
        py::arg("precision") = "f32", py::arg("fps") = 30.0, py::arg("max_error_mm") = py::none(),
        py::arg("lods") = BakeOptions{}.lods, py::arg("clips") = std::vector<std::string>{},
        py::arg("clip_defaults") = py::dict(), py::arg("normals") = true, py::arg("tangents") = true,
        py::arg("max_texture_size") = BakeOptions{}.max_texture_size, py::arg("threads") = 0u,
        py::arg("measure") = true, py::arg("allow_roots") = std::vector<std::string>{},
        "Bakes a glTF 2.0 file (the built-in sample character when path is None) into a Vat");

  // The instance table (instance_table.h): rows written from the JSON form of an instance (the
  // package's InstanceTable wraps this one with dicts), floats as a read-only NumPy view of the
  // upload buffer, valid until the next resize.
  py::class_<InstanceTable>(m, "_InstanceTable")
      .def(py::init<uint32_t, uint32_t>(), py::arg("count") = 0, py::arg("frame_rows") = 0)
      .def_property_readonly("size", &InstanceTable::size)
      .def("resize", &InstanceTable::resize)
      .def("set_query",
           [](InstanceTable& table, uint32_t index, const std::string& line, float now) {
             check_row(table, index);
             unwrap(set_instance(table, index, unwrap(parse_frame_query(line)).instance, now));
           })
      .def("control",  // the playback controls (instance_table.h): "pause", "resume", "turn_back"
           [](InstanceTable& table, uint32_t index, const std::string& name, float now) {
             check_row(table, index);
             if (name == "pause") return unwrap(pause(table, index, now));
             if (name == "resume") return unwrap(resume(table, index, now));
             if (name == "turn_back") return unwrap(turn_back(table, index, now));
             argument_error("unknown control '" + name + "' (pause, resume, turn_back)");
           })
      .def("resolve_json",
           [](const InstanceTable& table, uint32_t index, float time) {
             check_row(table, index);
             return frame_json(FrameAnswer{resolve(table, index, time), ends_at(table, index)});
           })
      .def_property_readonly("floats", [](py::object self) {
        const auto& table = self.cast<const InstanceTable&>();
        py::array_t<float> view({py::ssize_t{table.size()}, py::ssize_t{kInstanceTexels * 4}},
                                {py::ssize_t{sizeof(PackedInstance)}, py::ssize_t{sizeof(float)}},
                                table.floats().data(), self);
        py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        return view;
      });

  m.def("_resolve_query", [](const std::string& line) {
    FrameQuery query = unwrap(parse_frame_query(line));
    return frame_json(unwrap(run_frame_query(query)));
  });
}
