#include "plugin/shared_library.h"

#include <dlfcn.h>

#include "plugin/plugin_error.h"

namespace dtb::core {

SharedLibrary::SharedLibrary(const std::filesystem::path& path) : path_(path) {
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle_ == nullptr) {
    const char* error = dlerror();
    std::string why = error ? error : "dlopen failed";
    // dlerror() often starts with the path again; PluginError already names it.
    const std::string prefix = path.string() + ": ";
    if (why.starts_with(prefix)) why.erase(0, prefix.size());
    throw PluginError(path, "cannot load: " + why);
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
