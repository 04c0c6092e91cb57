// Logging that cannot hurt the host process (see log.h). Lines are formatted into a stack buffer
// and written with one write(2), so concurrent lines never interleave and nothing allocates.
#include "diag/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

#include "base/no_cancel.h"
#include "base/text.h"

namespace poolshim::diag {
namespace {

constexpr int kMaxLines = 2000;  // a runaway loop must not flood the host's stderr

// The sink: stderr, or the log file once open_sink (under g_sink_once) opened it; back to stderr
// for good if the file cannot be written. Never closed: a writer may still hold the old value.
std::atomic<int> g_fd{STDERR_FILENO};
pthread_once_t g_sink_once = PTHREAD_ONCE_INIT;
// Counters: relaxed atomics; only their approximate value matters.
std::atomic<int> g_lines{0};
// A log call made while formatting or writing a line (e.g. from a signal handler or an
// interposed write) is dropped instead of recursing.
thread_local bool t_in_log = false;

enum class Wrote { ok, dropped, failed };

// One bounded attempt per line: EINTR is retried, a pipe that is full (EAGAIN: the sink is
// O_NONBLOCK) drops the line rather than stall the host, any other error is reported.
Wrote write_all(int fd, const char* buf, size_t len) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Wrote::dropped;
    if (n <= 0) return Wrote::failed;
    buf += n;
    len -= static_cast<size_t>(n);
  }
  return Wrote::ok;
}

void write_stderr_warning(const char* what, int err);

// Writes one line to the sink. A log file that fails (disk full, /dev/full, I/O error) is given
// up once: one warning on stderr, this line and the later ones go to stderr. A failing stderr is
// not retried: the line is lost, and nothing loops.
void write_line(const char* buf, size_t len) {
  int fd = g_fd.load(std::memory_order_acquire);
  if (write_all(fd, buf, len) != Wrote::failed || fd == STDERR_FILENO) return;
  int err = errno;
  if (g_fd.compare_exchange_strong(fd, STDERR_FILENO, std::memory_order_acq_rel))
    write_stderr_warning("write to", err);
  write_all(STDERR_FILENO, buf, len);
}

enum class Sink { log, stderr_only };

// Formats "poolshim: <prefix><text>\n" into one buffer and writes it with one write(2): to the
// log's sink, or (warnings written even with logging off) straight to stderr, where a user who
// asked for no log still looks.
void emit(Sink sink, const char* prefix, const char* fmt, va_list ap) {
  char buf[1024];
  int saved_errno = errno;
  base::Text text(buf, sizeof buf - 1);  // truncated or not, room kept for the newline
  text.append("poolshim: ").append(prefix).vappendf(fmt, ap);
  buf[text.size()] = '\n';
  if (sink == Sink::log)
    write_line(buf, text.size() + 1);
  else
    write_all(STDERR_FILENO, buf, text.size() + 1);
  errno = saved_errno;
}

void warn_to_stderr(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_to_stderr(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(Sink::stderr_only, "warning: ", fmt, ap);
  va_end(ap);
}

void write_stderr_warning(const char* what, int err) {
  warn_to_stderr("cannot %s POOLSHIM_LOG_FILE (%s); logging to stderr", what, strerror(err));
}

void open_sink() {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  const config::Options& o = config::options();
  if (o.log_file == nullptr) return;
  // O_NOFOLLOW: a log path must not be redirected through a planted symlink.
  // O_NONBLOCK: opening a FIFO that has no reader fails with ENXIO instead of waiting for one,
  // and writing to a full pipe drops the line instead of stalling the host (write_all). It is
  // kept on: for a regular file or a device it changes nothing.
  int fd =
      open(o.log_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) {
    write_stderr_warning("open", errno);
    return;
  }
  g_fd.store(fd, std::memory_order_release);
}

// The settings, with config/'s bad-value lines written once before anything else is.
const config::Options& settings() {
  const config::Options& o = config::options();
  if (o.problem_count > 0 && !t_in_log && claim_once(LogSite::config_problems)) {
    t_in_log = true;
    for (size_t i = 0; i < o.problem_count; ++i) warn_to_stderr("%s", o.problems[i].line);
    t_in_log = false;
  }
  return o;
}

void vlog(LogLevel level, const char* fmt, va_list ap) {
  t_in_log = true;
  pthread_once(&g_sink_once, open_sink);
  int line = g_lines.fetch_add(1, std::memory_order_relaxed);
  if (line < kMaxLines)
    emit(Sink::log, level == LogLevel::warn ? "warning: " : "", fmt, ap);
  else if (line == kMaxLines)
    write_line("poolshim: further log lines suppressed\n", 39);
  t_in_log = false;
}

}  // namespace

bool log_enabled(LogLevel level) {
  return level != LogLevel::off &&
         static_cast<int>(settings().log_level) >= static_cast<int>(level);
}

void log(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level) || t_in_log) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(level, fmt, ap);
  va_end(ap);
}

void log_once(LogSite site, LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level) || t_in_log || !claim_once(site)) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(level, fmt, ap);
  va_end(ap);
}

void warn_once(LogSite site, const char* fmt, ...) {
  settings();  // config/'s lines first
  if (t_in_log || !claim_once(site)) return;
  t_in_log = true;
  va_list ap;
  va_start(ap, fmt);
  emit(Sink::stderr_only, "warning: ", fmt, ap);
  va_end(ap);
  t_in_log = false;
}

}  // namespace poolshim::diag
