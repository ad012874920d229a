#include "plugin/loaded_plugin.h"

namespace dtb::core {

LoadedPlugin::LoadedPlugin(std::shared_ptr<SharedLibrary> library, PluginKind kind, unsigned entryMajor,
                           AnyDescriptor descriptor, std::vector<ParamSpec> params)
    : library_(std::move(library)),
      kind_(kind),
      entryMajor_(entryMajor),
      descriptor_(descriptor),
      params_(std::move(params)) {}

const dtb_plugin_header_t& LoadedPlugin::header() const {
  // Every descriptor starts with its header.
  return std::visit([](const auto& d) -> const dtb_plugin_header_t& { return d.header; }, descriptor_);
}

std::string LoadedPlugin::description() const { return header().description ? header().description : ""; }

std::string LoadedPlugin::abiVersion() const {
  const uint32_t v = header().abi_version;
  return std::to_string(DTB_ABI_VERSION_MAJOR(v)) + "." + std::to_string(DTB_ABI_VERSION_MINOR(v));
}

const ParamSpec* LoadedPlugin::findParam(const std::string& name) const {
  for (const ParamSpec& spec : params_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string LoadedPlugin::label() const { return std::string(kindName(kind_)) + " '" + name() + "'"; }

}  // namespace dtb::core
