// poolshim audit [--json] [--all] PATH... | --pid PID
// Judges every ELF module found and prints, per module that carries a thread-pool surface,
// whether a preload of libpoolshim.so reaches it. Exit status: 0 all reachable, 1 some copy
// unreachable, 2 usage error or unreadable input.
#include <cxxabi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "audit_scan.h"
#include "cli.h"

namespace poolshim::cli {
namespace {

const char kAuditHelp[] =
    "usage: poolshim audit [--json] [--all] PATH...\n"
    "       poolshim audit [--json] [--all] --pid PID\n"
    "\n"
    "Tells, before running anything, which modules carry their own thread pool (the ExecuTorch\n"
    "thread-pool ABI, pthreadpool) and whether LD_PRELOAD=libpoolshim.so can redirect it.\n"
    "PATH may be an ELF file, a folder (searched recursively) or a wheel / zip / tar archive\n"
    "(members are read in memory). --pid judges the modules mapped by a running process.\n"
    "\n"
    "  --json      one JSON document on stdout instead of the table\n"
    "  --all       list every ELF file, also those without a pool surface\n"
    "  --pid PID   audit the process PID (from /proc/PID/maps)\n"
    "  -h, --help  this text\n"
    "\n"
    "verdicts: redirected   the module's calls reach the preloaded shim (one shared pool)\n"
    "          unreachable  it keeps a private copy; the reason says why (hidden copy, protected\n"
    "                       visibility, -Bsymbolic, bound locally, main executable, static)\n"
    "          -            the module carries no copy of that surface\n"
    "A stripped module's hidden copy leaves no trace and reads as '-'.\n"
    "\n"
    "exit status: 0 every pool copy found is reachable; 1 some copy is unreachable;\n"
    "2 usage error or an input that could not be read.\n";

std::string demangle(const char* name) {
  if (name == nullptr || *name == '\0') return "";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d != nullptr ? d : name;
  free(d);
  return out;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 bytes pass through
        }
    }
  }
  return out + "\"";
}

const char* cell(const AuditEntry& e, elf::Surface s) {
  if (!e.readable) return "error";
  if (e.verdict.provider) return "provider";
  const elf::SurfaceVerdict& v = e.verdict.surface[s];
  return v.verdict == elf::Verdict::absent ? "-" : elf::verdict_text(v.verdict);
}

bool has_unused_copy(const AuditEntry& e) {
  for (const elf::SurfaceVerdict& v : e.verdict.surface)
    if (v.unused_copy) return true;
  return false;
}

bool listed(const AuditEntry& e, bool all) {
  return all || !e.readable || e.verdict.provider || e.verdict.carries_surface() || has_unused_copy(e);
}

// "hidden copy of executorch::extension::threadpool::get_threadpool()"; both surfaces when both
// are unreachable.
std::string why(const AuditEntry& e) {
  std::string out;
  for (unsigned k = 0; k < elf::kSurfaceCount; ++k) {
    const elf::SurfaceVerdict& v = e.verdict.surface[k];
    if (v.verdict != elf::Verdict::unreachable) continue;
    if (!out.empty()) out += "; ";
    out += std::string(elf::surface_name(static_cast<elf::Surface>(k))) + ": " + elf::reason_text(v.reason);
    if (v.symbol[0] != '\0') out += " [" + demangle(v.symbol) + "]";
  }
  return out;
}

void print_table(const std::vector<AuditEntry>& entries, const ScanStats& st, bool all, size_t unreachable) {
  size_t shown = 0, surfaces = 0;
  for (const AuditEntry& e : entries) {
    if (e.verdict.carries_surface()) ++surfaces;
    if (!listed(e, all)) continue;
    if (shown++ == 0) printf("%-12s %-12s %s\n", "EXECUTORCH", "PTHREADPOOL", "MODULE");
    std::string line = e.path;
    if (e.verdict.provider) line += " (poolshim: provides the shared pool)";
    std::string reason = why(e);
    if (!reason.empty()) line += "\n" + std::string(26, ' ') + "  unreachable: " + reason;
    for (unsigned k = 0; k < elf::kSurfaceCount; ++k)
      if (e.verdict.surface[k].unused_copy)
        line += "\n" + std::string(26, ' ') + "  note: " + elf::surface_name(static_cast<elf::Surface>(k)) +
                ": the module never calls its own copy (it only serves other modules)";
    if (!e.error.empty()) line += "\n" + std::string(26, ' ') + "  " + (e.readable ? "incomplete: " : "not read: ") + e.error;
    printf("%-12s %-12s %s\n", cell(e, elf::kExecutorch), cell(e, elf::kPthreadpool), line.c_str());
  }
  printf("%zu file%s scanned (%zu ELF, %zu archive%s): %zu with a thread-pool surface, %zu unreachable\n",
         st.files, st.files == 1 ? "" : "s", st.elf_files, st.archives, st.archives == 1 ? "" : "s",
         surfaces, unreachable);
}

void print_json(const std::vector<AuditEntry>& entries, const ScanStats& st, bool all, size_t unreachable, int status) {
  printf("{\n  \"version\": 1,\n  \"files\": %zu,\n  \"elf_files\": %zu,\n  \"archives\": %zu,\n"
         "  \"errors\": %zu,\n  \"unreachable\": %zu,\n  \"exit_status\": %d,\n  \"modules\": [",
         st.files, st.elf_files, st.archives, st.errors, unreachable, status);
  bool first = true;
  for (const AuditEntry& e : entries) {
    if (!listed(e, all)) continue;
    printf("%s\n    {\"path\": %s, \"soname\": %s, \"kind\": %s, \"main_executable\": %s, "
           "\"provider\": %s, \"stripped\": %s, \"readable\": %s, \"problems\": %s",
           first ? "" : ",", json_string(e.path).c_str(), json_string(e.soname).c_str(),
           json_string(elf::kind_text(e.verdict.kind)).c_str(), e.verdict.main_executable ? "true" : "false",
           e.verdict.provider ? "true" : "false", e.verdict.stripped ? "true" : "false",
           e.readable ? "true" : "false", json_string(e.error).c_str());
    first = false;
    for (unsigned k = 0; k < elf::kSurfaceCount; ++k) {
      const elf::SurfaceVerdict& v = e.verdict.surface[k];
      printf(", %s: {\"verdict\": %s, \"reason\": %s, \"symbol\": %s, \"unused_copy\": %s}",
             json_string(elf::surface_name(static_cast<elf::Surface>(k))).c_str(),
             json_string(elf::verdict_text(v.verdict)).c_str(), json_string(elf::reason_text(v.reason)).c_str(),
             json_string(demangle(v.symbol)).c_str(), v.unused_copy ? "true" : "false");
    }
    printf("}");
  }
  printf("%s]\n}\n", first ? "" : "\n  ");
}

int usage_error(const std::string& msg) {
  fprintf(stderr, "poolshim audit: %s\n(see poolshim audit --help)\n", msg.c_str());
  return kExitUsage;
}

}  // namespace

int audit_main(int argc, char** argv) {
  bool json = false, all = false;
  long pid = 0;
  std::vector<std::string> paths;
  bool options_done = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (!options_done && a == "--") options_done = true;
    else if (!options_done && (a == "-h" || a == "--help")) {
      fputs(kAuditHelp, stdout);
      return kExitOk;
    } else if (!options_done && a == "--json") json = true;
    else if (!options_done && a == "--all") all = true;
    else if (!options_done && (a == "--pid" || a.rfind("--pid=", 0) == 0)) {
      std::string v = a == "--pid" ? (i + 1 < argc ? argv[++i] : "") : a.substr(6);
      char* end = nullptr;
      pid = strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || pid <= 0) return usage_error("--pid wants a process id, not '" + v + "'");
    } else if (!options_done && a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option " + a);
    } else {
      paths.push_back(a);
    }
  }
  if (pid != 0 && !paths.empty()) return usage_error("give either PATH... or --pid, not both");
  if (pid == 0 && paths.empty()) return usage_error("nothing to audit: give PATH... or --pid PID");

  // A progress line on a terminal, once the scan is long enough to need one.
  bool tty = isatty(STDERR_FILENO) == 1;
  bool progress_shown = false;
  Scanner scanner([&](const ScanStats& s) {
    if (!tty || s.files < 50 || s.files % 25 != 0) return;
    fprintf(stderr, "\rpoolshim audit: %zu files scanned, %zu ELF", s.files, s.elf_files);
    progress_shown = true;
  });
  if (pid != 0) scanner.scan_pid(pid);
  for (const std::string& p : paths) scanner.scan_path(p);
  if (progress_shown) fprintf(stderr, "\r\033[K");

  size_t unreachable = 0;
  for (const AuditEntry& e : scanner.entries())
    if (e.verdict.any_unreachable()) ++unreachable;
  int status = scanner.stats().errors > 0 ? kExitUsage : unreachable > 0 ? kExitFindings : kExitOk;
  if (json) print_json(scanner.entries(), scanner.stats(), all, unreachable, status);
  else print_table(scanner.entries(), scanner.stats(), all, unreachable);
  return status;
}

}  // namespace poolshim::cli
