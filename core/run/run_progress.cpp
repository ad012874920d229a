#include "run/run_progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "log/redact.h"

namespace dtb::core {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// "mm:ss", or "h:mm:ss" from an hour on; "--:--" for an unknown time.
std::string clockText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const int s = static_cast<int>(std::lround(seconds));
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof(text), "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof(text), "%02d:%02d", s / 60, s % 60);
  }
  return text;
}

}  // namespace

RunProgress::RunProgress(MatrixEta eta) : eta_(std::move(eta)), tty_(isatty(STDERR_FILENO)) {}

void RunProgress::beginRun(size_t index, const std::string& label, int epochs) {
  index_ = index;
  label_ = redactSecrets(label);  // a varying redis:// URL may be the label
  epochs_ = epochs;
  runStart_ = std::chrono::steady_clock::now();
}

std::string RunProgress::etaText(double fraction) const {
  const std::optional<double> left = eta_.remaining(index_, fraction, secondsSince(runStart_));
  return clockText(left.value_or(NAN));
}

void RunProgress::update(const Record& r) {
  const double fraction = r.steps > 0 ? (r.epoch - 1 + double(r.step) / r.steps) / epochs_ : 0;
  char line[512];
  std::snprintf(line, sizeof(line),
                "[run %zu/%zu] %s | epoch %d/%d step %lld/%lld | %.0f samples/s | matrix ETA %s", index_ + 1,
                eta_.size(), label_.c_str(), r.epoch, epochs_, static_cast<long long>(r.step),
                static_cast<long long>(r.steps), r.samplesPerSecond, etaText(fraction).c_str());
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line);
  } else if (r.step == r.steps) {
    std::fprintf(stderr, "%s\n", line);
  }
}

void RunProgress::note(const std::string& text) {
  std::fprintf(stderr, "%s[run %zu/%zu] %s: %s\n", tty_ ? "\r\033[K" : "", index_ + 1, eta_.size(),
               label_.c_str(), redactSecrets(text).c_str());
}

void RunProgress::endRun(const std::string& outcome, bool countsForEta) {
  const double seconds = secondsSince(runStart_);
  if (countsForEta) eta_.finished(index_, seconds);
  std::fprintf(stderr, "%s[run %zu/%zu] %s: %s (%s)\n", tty_ ? "\r\033[K" : "", index_ + 1, eta_.size(),
               label_.c_str(), redactSecrets(outcome).c_str(), clockText(seconds).c_str());
}

}  // namespace dtb::core
