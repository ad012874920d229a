#include "cli/new_command.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "build_info.h"
#include "cli/embedded_files.h"

namespace dtb::cli {
namespace {

namespace fs = std::filesystem;

// What a scaffold's compare.sql (templates/common/) asks of its plugin's
// runs against the reference's: a run_summary column of both, and the
// condition that passes.
struct Comparison {
  std::string_view expectation;  // the comment's second half
  std::string_view measure;      // the column, as the verdict names it
  std::string_view column;
  std::string_view digits;  // what ROUND keeps of it
  std::string_view passes;
};
// Strategies and backends must end with the reference's training loss.
constexpr Comparison kSameLoss = {
    "so both runs of the matrix end with the same training loss", "final training loss", "final_train_loss",
    "6", "ABS(mine.final_train_loss - base.final_train_loss) <= 1e-4 * (1 + ABS(base.final_train_loss))"};
// Models and datasets must learn: their scaffold's data has 4 classes.
constexpr Comparison kLearns = {
    "the test accuracy on its 4 classes is well above chance (0.25), as with {{reference}}", "test accuracy",
    "final_test_accuracy", "4", "mine.final_test_accuracy > 0.5"};

// Each kind, with the built-in plugin its scaffold's matrix is compared with
// and how; `why` opens the comparison's comment.
struct Kind {
  std::string_view name;
  std::string_view reference;
  const Comparison& comparison;
  std::string_view why;
};
constexpr std::array<Kind, 4> kKinds = {{
    {"strategy", "allreduce", kSameLoss, "my_plugin averages gradients as allreduce does"},
    {"backend", "gloo", kSameLoss,
     "Collectives are exact whatever carries them: my_plugin and gloo sum alike"},
    {"model", "linear", kLearns, "my_plugin learns"},
    {"dataset", "synthetic", kLearns, "A model learns my_plugin's data"},
}};

// The placeholders the templates use, chosen to be valid identifiers so the
// template sources read (and format) as the C++ they become.
constexpr std::string_view kNamePlaceholder = "my_plugin";
constexpr std::string_view kClassPlaceholder = "MyPlugin";

// What dtbench_add_plugin (cmake/DtbenchPlugin.cmake) accepts: the loader's
// lower_snake_case, starting with a letter since the name also becomes a
// CMake target and a C++ class.
bool validName(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// "my_sgd" -> "MySgd": the scaffold's class name.
std::string className(std::string_view name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
    } else {
      out += upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
      upper = false;
    }
  }
  return out;
}

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

const Kind& findKind(const std::string& kind) {
  for (const Kind& k : kKinds) {
    if (k.name == kind) return k;
  }
  throw std::invalid_argument("unknown plugin kind '" + kind + "'; one of strategy, backend, model, dataset");
}

// "0.1": what find_package(dtbench ...) asks of the install.
std::string majorMinor(const std::string& version) {
  const size_t second = version.find('.', version.find('.') + 1);
  return version.substr(0, second);
}

// The prefix this dtbench is installed in, when it is an install (a build
// tree has no package config to find).
std::optional<fs::path> installPrefix() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  const fs::path prefix = exe.parent_path().parent_path();
  if (fs::exists(prefix / DTBENCH_INSTALL_LIBDIR / "cmake" / "dtbench" / "dtbenchConfig.cmake", ec))
    return prefix;
  return std::nullopt;
}

void printNextSteps(const fs::path& dir, const std::string& name, const std::vector<ScaffoldFile>& files) {
  std::printf("created %s:\n", dir.c_str());
  for (const ScaffoldFile& f : files) std::printf("  %s\n", (dir / f.path).c_str());
  // An install knows its own prefix; from a build tree, the user installs first.
  const std::optional<fs::path> prefix = installPrefix();
  const std::string p = prefix ? prefix->string() : "P";
  if (!prefix) std::printf("install dtbench first (cmake --install <dtbench build> --prefix P), then ");
  std::printf(
      "build and test it:\n"
      "  cmake -S %s -B %s/build -G Ninja -DCMAKE_PREFIX_PATH=%s\n"
      "  cmake --build %s/build\n"
      "  ctest --test-dir %s/build --output-on-failure\n"
      "then edit %s.cpp (README.md says what each file is for)\n",
      dir.c_str(), dir.c_str(), p.c_str(), dir.c_str(), dir.c_str(), (dir / name).c_str());
}

}  // namespace

std::vector<ScaffoldFile> renderScaffold(const std::string& kind, const std::string& name) {
  const Kind& k = findKind(kind);
  if (!validName(name)) {
    throw std::invalid_argument(
        "plugin name '" + name +
        "' is not lower_snake_case (a letter, then letters, digits or '_', at most 64): "
        "dtbench loads plugins by such names, e.g. my_sgd");
  }
  if (name == k.reference) {
    throw std::invalid_argument("plugin name '" + name + "' is the built-in " + kind +
                                " the scaffold is compared with; choose another name");
  }
  // In this order: the kind's texts hold the other placeholders too.
  const std::string classFill = className(name);
  const std::string version = majorMinor(core::buildInfo().version);
  const std::pair<std::string_view, std::string_view> fills[] = {
      {"{{why}}", k.why},
      {"{{expectation}}", k.comparison.expectation},
      {"{{measure}}", k.comparison.measure},
      {"{{column}}", k.comparison.column},
      {"{{digits}}", k.comparison.digits},
      {"{{passes}}", k.comparison.passes},
      {kNamePlaceholder, name},
      {kClassPlaceholder, classFill},
      {"{{kind}}", kind},
      {"{{reference}}", k.reference},
      {"{{dtbench_version}}", version},
  };
  // Every kind's files, and the kind's own.
  const std::string folders[] = {"common/", kind + "/"};
  std::vector<ScaffoldFile> files;
  for (const EmbeddedFile& file : scaffoldTemplates()) {
    std::string_view path = file.path;
    const auto folder = std::find_if(std::begin(folders), std::end(folders),
                                     [&](const std::string& f) { return path.starts_with(f); });
    if (folder == std::end(folders)) continue;
    path.remove_prefix(folder->size());
    std::string text(file.text);
    for (const auto& [from, to] : fills) text = replaceAll(std::move(text), from, to);
    files.push_back({replaceAll(std::string(path), kNamePlaceholder, name), std::move(text)});
  }
  // Listed by name, wherever in tools/templates/ each came from.
  std::sort(files.begin(), files.end(),
            [](const ScaffoldFile& a, const ScaffoldFile& b) { return a.path < b.path; });
  return files;
}

void writeScaffold(const fs::path& dir, const std::vector<ScaffoldFile>& files) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      throw std::runtime_error(dir.string() + " exists and is not a folder; dtbench new writes a new folder");
    }
    if (!fs::is_empty(dir, ec)) {
      throw std::runtime_error(dir.string() +
                               " exists and is not empty; dtbench new never overwrites: "
                               "choose another --dir, or move that folder away");
    }
  }
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  for (const ScaffoldFile& f : files) {
    const fs::path path = dir / f.path;
    fs::create_directories(path.parent_path(), ec);
    // "x": fail rather than replace a file that appeared meanwhile.
    std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "wx"), std::fclose);
    if (!out || std::fwrite(f.text.data(), 1, f.text.size(), out.get()) != f.text.size()) {
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
    }
    if (std::fflush(out.get()) != 0)
      throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  }
}

void addNewCommand(CLI::App& app, GlobalOptions& global) {
  struct Options {
    std::string kind, name, dir;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "new",
      "Write a new plugin's folder: source on the C++ helpers, CMakeLists.txt (find_package(dtbench)),\n"
      "a matrix against the built-in plugin of its kind, and tests (check, run, compare in SQL)");
  cmd->add_option("kind", options->kind, "strategy, backend, model or dataset")->required();
  cmd->add_option("name", options->name, "The plugin's name, lower_snake_case (e.g. local_sgd)")->required();
  cmd->add_option("--dir", options->dir, "Folder to create (default: ./NAME); refused if it is not empty")
      ->type_name("DIR");
  cmd->allow_extras(false);
  cmd->callback([&global, options] {
    const fs::path dir = options->dir.empty() ? fs::path(options->name) : fs::path(options->dir);
    try {
      const std::vector<ScaffoldFile> files = renderScaffold(options->kind, options->name);
      writeScaffold(dir, files);
      printNextSteps(dir, options->name, files);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dtbench new: %s\n", e.what());
      global.exitCode = 1;
    }
  });
}

}  // namespace dtb::cli
