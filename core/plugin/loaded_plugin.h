// A plugin library that passed every check: its library handle, its
// descriptor (in the host's layout) and its declared parameters.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "plugin/descriptor.h"
#include "plugin/param_spec.h"
#include "plugin/plugin_kind.h"
#include "plugin/shared_library.h"

namespace dtb::core {

class LoadedPlugin {
 public:
  LoadedPlugin(std::shared_ptr<SharedLibrary> library, PluginKind kind, unsigned entryMajor,
               AnyDescriptor descriptor, std::vector<ParamSpec> params);

  PluginKind kind() const { return kind_; }
  const std::filesystem::path& path() const { return library_->path(); }
  const dtb_plugin_header_t& header() const;
  std::string name() const { return header().name; }
  std::string version() const { return header().version; }
  std::string description() const;
  // The ABI version the plugin was built with, e.g. "1.0".
  std::string abiVersion() const;
  // The ABI major of the entry symbol the host found.
  unsigned entryMajor() const { return entryMajor_; }
  const std::vector<ParamSpec>& params() const { return params_; }
  const ParamSpec* findParam(const std::string& name) const;

  // "strategy 'zero'", for messages.
  std::string label() const;

  // The descriptor of this kind, e.g. descriptor<dtb_strategy_plugin_v1_t>().
  template <typename Descriptor>
  const Descriptor& descriptor() const {
    return std::get<Descriptor>(descriptor_);
  }

 private:
  std::shared_ptr<SharedLibrary> library_;
  PluginKind kind_;
  unsigned entryMajor_;
  AnyDescriptor descriptor_;
  std::vector<ParamSpec> params_;
};

}  // namespace dtb::core
