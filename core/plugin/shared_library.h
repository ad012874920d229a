// RAII over one dlopen() handle.
#pragma once

#include <filesystem>
#include <string>

namespace dtb::core {

class SharedLibrary {
 public:
  // Loads `path` with RTLD_NOW | RTLD_LOCAL, so unresolved symbols fail here
  // rather than mid-run, and plugins cannot see each other's symbols; and
  // RTLD_NODELETE: the code stays mapped after the last handle closes, since
  // a plugin's threads, thread_local destructors or static-init allocations
  // (which LeakSanitizer would report once the module is gone) may outlive
  // its instances. The host still destroys every context before closing.
  // Throws PluginError with dlerror()'s text.
  explicit SharedLibrary(const std::filesystem::path& path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  // The address of `name`, or nullptr when the library does not define it.
  void* symbol(const std::string& name) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  void* handle_ = nullptr;
};

}  // namespace dtb::core
