#include "plugin/crash_report.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace dtb::core::crash {
namespace {

// Everything the handler reads lives in fixed storage, written before it is
// published (the counts and flags are the release points).
constexpr size_t kMaxRanges = 256;
constexpr size_t kLabelSize = 384;
struct CodeRange {
  uintptr_t begin = 0, end = 0;
  char label[kLabelSize] = {};
};
CodeRange ranges[kMaxRanges];
std::atomic<size_t> rangeCount{0};
std::mutex registering;

char loadingFile[1024] = {};
// The thread loading a plugin file, 0 when none: a crash on another thread
// meanwhile is not that file's.
std::atomic<pid_t> loadingThread{0};

int recordFd = -1;
char rankText[16] = {};
std::atomic<int> signalFd{-1};  // alsoReportSignalTo()

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr size_t kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);
struct sigaction previous[kSignalCount];
std::atomic<bool> installed{false};

// Signal-safe string building: bounded appends into a fixed buffer.
void append(char* line, size_t size, const char* text) {
  const size_t used = std::strlen(line);
  if (used + 1 >= size || text == nullptr) return;
  std::strncat(line, text, size - used - 1);
}

void writeAll(int fd, const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(fd, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

// "dtbench: <what>" on stderr; a worker also sends it as its error record
// (after a newline: a record cut short by the crash stays apart).
void report(const char* what) {
  writeAll(STDERR_FILENO, "dtbench: ");
  writeAll(STDERR_FILENO, what);
  writeAll(STDERR_FILENO, "\n");
  if (recordFd >= 0) {
    writeAll(recordFd, "\nerror ");
    writeAll(recordFd, rankText);
    writeAll(recordFd, " own ");
    writeAll(recordFd, what);
    writeAll(recordFd, "\n");
  }
}

const char* pluginAt(uintptr_t address) {
  const size_t count = rangeCount.load(std::memory_order_acquire);
  for (size_t i = 0; i < count; ++i) {
    if (address >= ranges[i].begin && address < ranges[i].end) return ranges[i].label;
  }
  return nullptr;
}

uintptr_t faultingInstruction(void* context) {
  if (context == nullptr) return 0;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

// The innermost plugin on the crashing thread's stack: the faulting
// instruction itself, else its callers (a plugin that passed libc a bad
// pointer crashes inside libc).
const char* crashingPlugin(void* context) {
  if (const char* plugin = pluginAt(faultingInstruction(context))) return plugin;
  void* frames[64];
  const int depth = backtrace(frames, 64);
  for (int i = 0; i < depth; ++i) {
    if (const char* plugin = pluginAt(reinterpret_cast<uintptr_t>(frames[i]))) return plugin;
  }
  return nullptr;
}

void onFatalSignal(int sig, siginfo_t* info, void* context) {
  size_t index = 0;
  while (index < kSignalCount && kSignals[index] != sig) ++index;
  char line[2048] = "crashed with SIG";
  const char* name = sigabbrev_np(sig);
  append(line, sizeof(line), name ? name : "?");
  bool named = false;
  if (loadingThread.load(std::memory_order_acquire) == gettid()) {
    append(line, sizeof(line), " while loading plugin file ");
    append(line, sizeof(line), loadingFile);
    append(line, sizeof(line), " (in its constructors or entry point)");
    named = true;
  } else if (const char* plugin = crashingPlugin(context)) {
    append(line, sizeof(line), " in ");
    append(line, sizeof(line), plugin);
    named = true;
  }
  if (named) report(line);  // a crash in dtbench itself keeps its usual report
  if (const int fd = signalFd.load(); fd >= 0) {
    writeAll(fd, "#crashed with SIG");
    writeAll(fd, name ? name : "?");
    writeAll(fd, "\n");
  }

  // Die as the process would have: the previous handler (a sanitizer's
  // report), or the default action once this handler returns.
  const struct sigaction& before = previous[index < kSignalCount ? index : 0];
  if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction != nullptr) {
    before.sa_sigaction(sig, info, context);
    return;
  }
  if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
    before.sa_handler(sig);
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);  // pending until we return (the signal is blocked in its handler)
}

// A plugin that calls exit() while it loads ends the process with its own
// code and no word: say which file it was.
void onExit() {
  if (loadingThread.load(std::memory_order_acquire) != gettid()) return;
  char line[1200] = "plugin file ";
  append(line, sizeof(line), loadingFile);
  append(line, sizeof(line), " called exit() while loading (in its constructors or entry point)");
  report(line);
}

// Where the handler runs when the stack itself overflowed.
alignas(16) char alternateStack[64 * 1024];

}  // namespace

void installHandlers(int fd, int rank) {
  recordFd = fd;
  rankText[0] = '\0';
  if (rank >= 0) {
    const std::string text = std::to_string(rank);
    std::strncpy(rankText, text.c_str(), sizeof(rankText) - 1);
  }
  if (installed.exchange(true)) return;
  void* warm[1];
  backtrace(warm, 1);  // loads the unwinder now: the first call may allocate
  stack_t stack{};
  stack.ss_sp = alternateStack;
  stack.ss_size = sizeof(alternateStack);
  sigaltstack(&stack, nullptr);
  for (size_t i = 0; i < kSignalCount; ++i) {
    struct sigaction action {};
    action.sa_sigaction = onFatalSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(kSignals[i], &action, &previous[i]);
  }
  std::atexit(onExit);
}

void alsoReportSignalTo(int fd) { signalFd.store(fd); }

void registerPluginCode(const void* anySymbol, const std::string& label) {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(anySymbol, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr)
    return;
  struct Search {
    ElfW(Addr) base;
    uintptr_t begin = UINTPTR_MAX, end = 0;
  } search{map->l_addr};
  dl_iterate_phdr(
      [](dl_phdr_info* object, size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        if (object->dlpi_addr != s.base) return 0;
        for (ElfW(Half) i = 0; i < object->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = object->dlpi_phdr[i];
          if (segment.p_type != PT_LOAD) continue;
          s.begin = std::min<uintptr_t>(s.begin, object->dlpi_addr + segment.p_vaddr);
          s.end = std::max<uintptr_t>(s.end, object->dlpi_addr + segment.p_vaddr + segment.p_memsz);
        }
        return 1;
      },
      &search);
  std::lock_guard lock(registering);  // loads on several threads; the handler reads without it
  if (search.end == 0 || pluginAt(search.begin) != nullptr) return;  // not found, or known already
  const size_t slot = rangeCount.load(std::memory_order_relaxed);
  if (slot >= kMaxRanges) return;
  CodeRange& range = ranges[slot];
  range.begin = search.begin;
  range.end = search.end;
  std::strncpy(range.label, label.c_str(), kLabelSize - 1);
  rangeCount.store(slot + 1, std::memory_order_release);
}

Loading::Loading(const std::filesystem::path& file) {
  std::strncpy(loadingFile, file.c_str(), sizeof(loadingFile) - 1);
  loadingThread.store(gettid(), std::memory_order_release);
}

Loading::~Loading() { loadingThread.store(0, std::memory_order_release); }

}  // namespace dtb::core::crash
