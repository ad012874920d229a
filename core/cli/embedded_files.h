// Text files compiled into the dtbench binary (cmake/DtbenchEmbedFiles.cmake):
// the plugin scaffolds of `dtbench new` (tools/templates/). Embedded rather
// than installed beside the binary so that a dtbench run from the build tree,
// an install, or a copied binary writes the templates it was built with.
#pragma once

#include <span>

namespace dtb::cli {

struct EmbeddedFile {
  const char* path;  // relative to tools/templates/, e.g. "strategy/my_plugin.cpp"
  const char* text;
};

// Every file under tools/templates/, sorted by path.
std::span<const EmbeddedFile> scaffoldTemplates();

}  // namespace dtb::cli
