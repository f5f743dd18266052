// `vatkit export`: the targets, one file each (export_<target>.cpp), behind one command
// (cmd_export.cpp). A target reads the input named by ExportOptions (a glTF file, a .vat.glb, or
// the built-in sample), writes the other runtime's own files through OutputFiles (committed only
// when everything succeeded), and prints a short report of what it wrote.
#pragma once

#include <string>
#include <vector>

#include "cli.h"

namespace vatkit::cli {

struct ExportOptions {
  std::string file;                      // input; empty: the built-in sample
  std::string target;                    // one of kExportTargets' names
  std::string output;                    // output path; empty: the target's default beside the input
  std::vector<std::string> allow_roots;  // --allow-root, for glTF inputs
  double fps = 0.0;                      // --fps: rows per second of animation; 0: the target's default
  std::string image;                     // --image (openvat): "png16", "exr16"; empty: png16
};

struct ExportTarget {
  const char* name;
  const char* help;  // one line for `vatkit export --help`
  Result<void> (*run)(const ExportOptions&);
};

Result<void> export_babylon(const ExportOptions& options);
Result<void> export_three_vat(const ExportOptions& options);
Result<void> export_openvat(const ExportOptions& options);

inline constexpr ExportTarget kExportTargets[] = {
    {"babylon",
     "Babylon.js BakedVertexAnimationManager: the JSON of serializeBakedVertexDataToJSON plus a clip manifest",
     export_babylon},
    {"three-vat", "three-vat's glTF file with its THREEVAT_vat extension (format version 3)", export_three_vat},
    {"openvat",
     "OpenVAT's engine files: OUT_vat.png (16-bit, packed normals), OUT.glb (mesh, address in TEXCOORD_1), "
     "OUT-remap_info.json",
     export_openvat},
};

}  // namespace vatkit::cli
