#include "plugin/shared_library.h"

#include <dlfcn.h>

#include "plugin/plugin_error.h"

namespace dtb::core {

SharedLibrary::SharedLibrary(const std::filesystem::path& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw PluginError(path, std::string("cannot load: ") + (why ? why : "dlopen failed"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* SharedLibrary::symbol(const std::string& name) const {
  dlerror();  // clear, so a stale error is not mistaken for this lookup's
  return dlsym(handle_, name.c_str());
}

}  // namespace dtb::core
