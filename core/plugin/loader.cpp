#include "plugin/loader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

#include "log/log.h"
#include "plugin/crash_report.h"
#include "plugin/isolated_call.h"
#include "plugin/plugin_error.h"

namespace dtb::core {
namespace fs = std::filesystem;

namespace {

// How many ABI majors past ours we look for, to tell "too new" from "not a
// plugin" in the error.
constexpr unsigned kFutureMajorsProbed = 8;

// How long a plugin may take to load in the child that tries it: 10 s, or
// DTBENCH_PLUGIN_LOAD_TIMEOUT seconds (a plugin that initialises a GPU
// runtime may need more; the tests, less).
std::chrono::milliseconds tryLimit() {
  const char* given = std::getenv("DTBENCH_PLUGIN_LOAD_TIMEOUT");
  if (given == nullptr || *given == '\0') return std::chrono::seconds(10);
  char* end = nullptr;
  const double seconds = std::strtod(given, &end);
  if (*end != '\0' || !(seconds > 0) || seconds > 3600) {
    throw std::invalid_argument(std::string("DTBENCH_PLUGIN_LOAD_TIMEOUT='") + given +
                                "': expected seconds, more than 0 and at most 3600");
  }
  return std::chrono::milliseconds(std::llround(seconds * 1000.0));
}

std::string abiText(uint32_t version) {
  return std::to_string(DTB_ABI_VERSION_MAJOR(version)) + "." +
         std::to_string(DTB_ABI_VERSION_MINOR(version));
}

bool validPluginName(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* c = name; *c; ++c) {
    if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_')) return false;
  }
  return true;
}

std::string supportedMajors() {
  if (kOldestAbiMajor == kNewestAbiMajor) return "ABI v" + std::to_string(kNewestAbiMajor) + " only";
  return "ABI v" + std::to_string(kOldestAbiMajor) + " to v" + std::to_string(kNewestAbiMajor);
}

std::string abiKindText(uint32_t kind) {
  for (PluginKind k : allPluginKinds()) {
    if (toAbiKind(k) == static_cast<dtb_plugin_kind_t>(kind)) {
      return std::to_string(kind) + " (" + std::string(kindName(k)) + ")";
    }
  }
  return std::to_string(kind) + " (no such kind)";
}

// The entry point the host can use, newest ABI first.
struct Entry {
  unsigned major;
  std::string symbol;
  const void* address;  // the entry function: where the plugin's code is
  const void* descriptor;
};

std::optional<Entry> probeEntry(const SharedLibrary& library, PluginKind kind) {
  for (unsigned major = kNewestAbiMajor; major >= kOldestAbiMajor; --major) {
    std::string symbol = entrySymbol(kind, major);
    if (void* address = library.symbol(symbol)) {
      using EntryFn = const void* (*)();
      const void* descriptor = reinterpret_cast<EntryFn>(address)();
      return Entry{major, symbol, address, descriptor};
    }
  }
  return std::nullopt;
}

// Explains why no usable entry symbol was found.
[[noreturn]] void failWithoutEntry(const SharedLibrary& library, PluginKind kind) {
  for (unsigned major = kNewestAbiMajor + 1; major <= kNewestAbiMajor + kFutureMajorsProbed; ++major) {
    std::string symbol = entrySymbol(kind, major);
    if (library.symbol(symbol) != nullptr) {
      throw PluginError(library.path(), "built for plugin ABI v" + std::to_string(major) + " (exports " +
                                            symbol + "); this dtbench supports " + supportedMajors() +
                                            ": rebuild the plugin against these headers or upgrade dtbench");
    }
  }
  for (PluginKind other : allPluginKinds()) {
    if (other == kind) continue;
    for (unsigned major = kOldestAbiMajor; major <= kNewestAbiMajor; ++major) {
      std::string symbol = entrySymbol(other, major);
      if (library.symbol(symbol) != nullptr) {
        throw PluginError(library.path(), "is a " + std::string(kindName(other)) + " plugin (exports " +
                                              symbol + "), not a " + std::string(kindName(kind)) + " plugin");
      }
    }
  }
  throw PluginError(library.path(), "no entry symbol '" + entrySymbol(kind, kNewestAbiMajor) +
                                        "': not a dtbench " + std::string(kindName(kind)) +
                                        " plugin (or the symbol is not exported: mark it DTB_EXPORT)");
}

void checkHeader(const fs::path& file, PluginKind kind, const Entry& entry) {
  if (entry.descriptor == nullptr) throw PluginError(file, entry.symbol + "() returned NULL");
  const auto& header = *static_cast<const dtb_plugin_header_t*>(entry.descriptor);
  const size_t minimum = minimumDescriptorSize(kind);
  if (header.struct_size < minimum) {
    throw PluginError(file, "descriptor struct_size is " + std::to_string(header.struct_size) + " bytes; a " +
                                std::string(kindName(kind)) + " descriptor of ABI " +
                                std::to_string(entry.major) + ".0 has at least " + std::to_string(minimum) +
                                ": rebuild against dtbench's headers");
  }
  if (DTB_ABI_VERSION_MAJOR(header.abi_version) != entry.major) {
    throw PluginError(file, "descriptor declares ABI " + abiText(header.abi_version) +
                                " but is exported as " + entry.symbol + " (ABI v" +
                                std::to_string(entry.major) + ")");
  }
  if (header.kind != toAbiKind(kind)) {
    throw PluginError(file, "descriptor kind is " + abiKindText(header.kind) + ", expected " +
                                abiKindText(toAbiKind(kind)));
  }
  if (!validPluginName(header.name)) {
    throw PluginError(file, "descriptor name must be lower_snake_case, got '" +
                                std::string(header.name ? header.name : "(null)") + "'");
  }
  if (header.version == nullptr || *header.version == '\0') {
    throw PluginError(file, "descriptor has no version string");
  }
}

}  // namespace

PluginLoader::PluginLoader(SearchPath path, Isolation isolation)
    : path_(std::move(path)), isolation_(isolation) {}

std::shared_ptr<const LoadedPlugin> PluginLoader::load(PluginKind kind, std::string_view spec) const {
  if (spec.find('/') != std::string_view::npos) return loadFile(kind, fs::path(spec));
  const bool isFileName = spec.ends_with(".so");
  std::optional<fs::path> file = isFileName ? path_.findFile(spec) : path_.find(kind, spec);
  if (!file) {
    std::string searched;
    for (const fs::path& dir : path_.dirs()) searched += (searched.empty() ? "" : ":") + dir.string();
    const std::string fileName = isFileName ? std::string(spec) : pluginFileName(kind, spec);
    throw PluginError(fileName, "no such " + std::string(kindName(kind)) + " plugin on the plugin path (" +
                                    (searched.empty() ? "empty" : searched) +
                                    "); see `dtbench plugins --kind " + std::string(kindName(kind)) +
                                    "`, or set DTBENCH_PLUGIN_PATH");
  }
  return loadFile(kind, *file);
}

std::shared_ptr<const LoadedPlugin> PluginLoader::loadFile(PluginKind kind, const fs::path& file) const {
  std::error_code ec;
  if (!fs::exists(file, ec)) throw PluginError(file, "no such file");
  const fs::path real = refuseUnsafePath(file);  // before any of its code runs, in a child or here
  if (isolation_ == Isolation::kTryInChildFirst) {
    const IsolatedOutcome tried = runIsolated(
        [&] {
          try {
            loadHere(kind, real);
            return std::string();
          } catch (const PluginError& e) {
            return e.cause();
          }
        },
        tryLimit());
    if (!tried.completed) {
      throw PluginError(file,
                        tried.death + " while loading (in its constructors or entry point); not loaded");
    }
    if (!tried.result.empty()) throw PluginError(file, tried.result);
  }
  return loadHere(kind, real);
}

std::shared_ptr<const LoadedPlugin> PluginLoader::loadHere(PluginKind kind, const fs::path& file) const {
  const crash::Loading loading(file);  // a crash or exit() from here on names the file
  auto library = std::make_shared<SharedLibrary>(file);
  std::optional<Entry> entry = probeEntry(*library, kind);
  if (!entry) failWithoutEntry(*library, kind);
  checkHeader(file, kind, *entry);

  AnyDescriptor descriptor;
  std::vector<ParamSpec> params;
  try {
    descriptor = adaptDescriptor(kind, entry->major, entry->descriptor);
    const auto& header = *static_cast<const dtb_plugin_header_t*>(entry->descriptor);
    params = readParamSpecs(header.params, header.param_count);
  } catch (const std::invalid_argument& e) {
    throw PluginError(file, std::string("invalid descriptor: ") + e.what());
  }
  auto plugin = std::make_shared<const LoadedPlugin>(std::move(library), kind, entry->major, descriptor,
                                                     std::move(params));

  if (auto expected = nameFromFileName(kind, file.filename().string());
      expected && *expected != plugin->name()) {
    throw PluginError(file, "descriptor names the plugin '" + plugin->name() + "' but the file name says '" +
                                *expected + "'");
  }
  crash::registerPluginCode(entry->address,
                            plugin->label() + " (" + fs::absolute(file).lexically_normal().string() + ")");
  log(DTB_LOG_INFO, "loader",
      "loaded " + plugin->label() + " " + plugin->version() + " (ABI " + plugin->abiVersion() + ") from " +
          fs::absolute(file).lexically_normal().string());
  return plugin;
}

std::vector<PluginLoader::Found> PluginLoader::discover(std::optional<PluginKind> onlyKind) const {
  std::vector<Found> found;
  for (PluginKind kind : allPluginKinds()) {
    if (onlyKind && kind != *onlyKind) continue;
    std::set<std::string> names;
    for (const fs::path& dir : path_.dirs()) {
      std::vector<fs::path> files;
      std::error_code ec;
      for (const auto& item : fs::directory_iterator(dir, ec)) {
        if (nameFromFileName(kind, item.path().filename().string())) files.push_back(item.path());
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& file : files) {
        Found entry{kind, file, nullptr, "", false};
        entry.shadowed = !names.insert(*nameFromFileName(kind, file.filename().string())).second;
        try {
          entry.plugin = loadFile(kind, file);
        } catch (const PluginError& e) {
          entry.error = e.cause();
        }
        found.push_back(std::move(entry));
      }
    }
  }
  return found;
}

}  // namespace dtb::core
