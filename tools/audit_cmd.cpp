// poolshim audit [--json] [--all] PATH... | --pid PID
// Judges every ELF module found and prints, per module that carries, serves or calls a
// thread-pool surface (and every other runtime's pool), what a preload of libpoolshim.so does for
// it. Exit status: 0 all reachable, 1 some copy unreachable, 2 usage error or an incomplete scan.
#include <cxxabi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "audit_rows.h"
#include "audit_scan.h"
#include "cli.h"
#include "json_out.h"
#include "poolshim/version.h"

namespace poolshim::cli {
namespace {

const char kAuditHelp[] =
    "usage: poolshim audit [--json] [--all] PATH...\n"
    "       poolshim audit [--json] [--all] --pid PID\n"
    "\n"
    "Tells, before running anything, which modules carry their own thread pool (the ExecuTorch\n"
    "thread-pool ABI, pthreadpool, a copy of OpenMP's libgomp ABI or LLVM's linked in) and\n"
    "whether LD_PRELOAD=libpoolshim.so can redirect it, which modules call those pools (clients,\n"
    "by libgomp's ABI or LLVM's __kmpc one) and where their calls go, and which other runtimes'\n"
    "pools (OpenMP, OpenBLAS, MKL, oneTBB) share the CPU without being merged.\n"
    "PATH may be an ELF file, a folder (searched recursively) or a wheel / zip / tar archive\n"
    "(read as a stream; nothing is extracted). --pid judges the modules mapped by a running\n"
    "process, and first says whether libpoolshim is loaded in it.\n"
    "\n"
    "  --json      one JSON document on stdout instead of the table\n"
    "  --all       list every ELF file, also those without a pool surface\n"
    "  --pid PID   audit the process PID (from /proc/PID/maps)\n"
    "  -h, --help  this text\n"
    "\n"
    "verdicts: redirected   the module's calls reach the preloaded shim (one shared pool)\n"
    "          reachable    (--pid, shim not loaded) a preload would redirect it; today it\n"
    "                       runs its own pool\n"
    "          unreachable  it keeps a private copy; the reason says why (hidden copy, protected\n"
    "                       visibility, -Bsymbolic, bound locally, main executable, static)\n"
    "          client       it calls the surface without defining it; the note says where the\n"
    "                       calls go\n"
    "          -            the module carries no copy of that surface and does not call it\n"
    "A stripped module's hidden copy leaves no trace and reads as '-'.\n"
    "\n"
    "exit status: 0 every pool copy found is reachable; 1 some copy is unreachable;\n"
    "2 usage error, or the scan is incomplete (an input not read or read only in part, a\n"
    "process that exited during the scan); the reason is printed, and listed in --json.\n";

std::string demangle(const char* name) {
  if (name == nullptr || *name == '\0') return "";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d != nullptr ? d : name;
  free(d);
  return out;
}

// "hidden copy of executorch::extension::threadpool::get_threadpool()"; both surfaces when both
// are unreachable.
std::string why(const AuditEntry& e) {
  std::string out;
  for (unsigned k = 0; k < reach::kSurfaceCount; ++k) {
    const reach::SurfaceVerdict& v = e.verdict.surface[k];
    if (v.verdict != reach::Verdict::unreachable) continue;
    if (!out.empty()) out += "; ";
    out += std::string(reach::surface_name(static_cast<reach::Surface>(k))) + ": " +
           reach::reason_text(v.reason);
    if (v.symbol[0] != '\0') out += " [" + demangle(v.symbol) + "]";
  }
  return out;
}

const char* const kIndent = "                                          ";

std::string runtime_note(const AuditEntry& e, const ProcessFacts* proc) {
  std::string out = std::string(e.runtime->name) +
                    ": its own thread pool beside the shared one (not merged); bounded by " +
                    e.runtime->env_var;
  if (strcmp(e.runtime->prefix, "libgomp") == 0) {
    // The shim exports libgomp's host ABI (docs/openmp.md): the copy's clients reach it.
    out +=
        "; under the preload its clients' OpenMP calls reach the shim, which runs their regions "
        "on the shared pool (POOLSHIM_OPENMP=forward: forwards them to libgomp)";
    if (report::is_renamed_libgomp(e.path.c_str()))
      out +=
          "; a renamed copy of libgomp: its clients' versioned GOMP_*/omp_* references bind to "
          "the shim all the same (the dynamic linker matches the version, not the file)";
  }
  if (e.kmpc.runtime && !e.verdict.provider)
    out +=
        "; under the preload its clients' __kmpc_* calls enter the shim and come back to it "
        "(POOLSHIM_KMPC=shim: the shim runs them on the shared pool when every loaded module's "
        "__kmpc calls are ones it runs natively)";
  if (proc == nullptr) return out;
  for (const ProcessFacts::RuntimeEnv& v : proc->env) {
    if (v.var != e.runtime->env_var) continue;
    if (!v.readable)
      out += " (its environment is not readable)";
    else
      out += v.set ? " (=" + printable(v.value) + " in this process)"
                   : " (unset in this process: one thread per CPU)";
  }
  return out;
}

void print_table(const std::vector<AuditEntry>& entries, const ScanStats& st, bool all,
                 const RowCounts& c, const ProcessFacts* proc) {
  if (proc != nullptr) {
    if (proc->shim_loaded)
      printf("process %ld: libpoolshim is loaded (%s); verdicts are what happens in this process\n",
             proc->pid, printable(proc->shim_path).c_str());
    else
      printf(
          "process %ld: libpoolshim is NOT loaded; every pool below runs on its own. Verdicts say "
          "what a\n"
          "preload (poolshim run, LD_PRELOAD) would do\n",
          proc->pid);
  }
  size_t shown = 0;
  for (const AuditEntry& e : entries) {
    if (!row_listed(e, all)) continue;
    if (shown++ == 0)
      printf("%-13s %-13s %-13s %s\n", "EXECUTORCH", "PTHREADPOOL", "OPENMP", "MODULE");
    std::string line = printable(e.path);
    if (e.verdict.provider) line += " (poolshim: provides the shared pool)";
    std::string reason = why(e);
    if (!reason.empty()) line += "\n" + std::string(kIndent) + "unreachable: " + reason;
    for (unsigned k = 0; k < reach::kSurfaceCount; ++k) {
      if (e.verdict.surface[k].unused_copy)
        line += "\n" + std::string(kIndent) +
                "note: " + reach::surface_name(static_cast<reach::Surface>(k)) +
                ": the module never calls its own copy (it only serves other modules)";
      if (e.client_of(k)) line += "\n" + std::string(kIndent) + client_effect(e, k, proc);
    }
    if (e.runtime != nullptr) line += "\n" + std::string(kIndent) + runtime_note(e, proc);
    if (!e.error.empty())
      line += "\n" + std::string(kIndent) + (e.readable ? "incomplete: " : "not read: ") + e.error;
    printf("%-13s %-13s %-13s %s\n", surface_cell(e, reach::kExecutorch, proc).c_str(),
           surface_cell(e, reach::kPthreadpool, proc).c_str(),
           surface_cell(e, reach::kOpenmp, proc).c_str(), line.c_str());
  }
  printf(
      "%zu file%s scanned (%zu ELF, %zu archive%s); %zu listed: %zu with their own pool copy (%zu "
      "unreachable), "
      "%zu unused cop%s, %zu client%s, %zu other runtime%s, %zu provider, %zu not read",
      st.files, st.files == 1 ? "" : "s", st.elf_files, st.archives, st.archives == 1 ? "" : "s",
      c.listed, c.own_copy, c.own_copy_unreachable, c.unused_copy, c.unused_copy == 1 ? "y" : "ies",
      c.client, c.client == 1 ? "" : "s", c.runtime, c.runtime == 1 ? "" : "s", c.provider,
      c.not_read);
  if (all) printf(", %zu other", c.other);
  printf("\n");
  if (!st.failures.empty())
    printf(
        "INCOMPLETE: %zu input%s not read or read only in part (listed on stderr); exit status 2\n",
        st.failures.size(), st.failures.size() == 1 ? "" : "s");
}

Json module_json(const AuditEntry& e, const ProcessFacts* proc) {
  Json m;
  m["path"] = e.path;
  m["row"] = row_kind_text(row_kind(e));
  m["soname"] = e.soname;
  m["kind"] = elf::kind_text(e.verdict.kind);
  m["main_executable"] = e.verdict.main_executable;
  m["provider"] = e.verdict.provider;
  m["stripped"] = e.verdict.stripped;
  m["readable"] = e.readable;
  m["problems"] = e.error;
  for (unsigned k = 0; k < reach::kSurfaceCount; ++k) {
    const reach::SurfaceVerdict& v = e.verdict.surface[k];
    Json s;
    s["verdict"] = reach::verdict_text(v.verdict);
    s["cell"] = surface_cell(e, k, proc);
    s["reason"] = reach::reason_text(v.reason);
    s["symbol"] = demangle(v.symbol);
    s["unused_copy"] = v.unused_copy;
    s["client"] = e.client_of(k);
    s["client_calls"] = e.client_of(k) ? client_effect(e, k, proc) : "";
    m[reach::surface_name(static_cast<reach::Surface>(k))] = s;
  }
  m["kmpc"] = {{"client", e.kmpc_client()},
               {"runtime", e.kmpc.runtime && !e.verdict.provider},
               {"blocks_native", e.kmpc.blocks_native.empty() || e.verdict.provider
                                     ? Json(nullptr)
                                     : Json(e.kmpc.blocks_native)}};
  if (e.runtime != nullptr) {
    m["runtime"] = {{"name", e.runtime->name},
                    {"env_var", e.runtime->env_var},
                    {"note", runtime_note(e, proc)}};
  } else {
    m["runtime"] = nullptr;
  }
  return m;
}

void print_json_doc(const std::vector<AuditEntry>& entries, const ScanStats& st, bool all,
                    const RowCounts& c, int status, const ProcessFacts* proc) {
  Json j;
  j["version"] = 2;
  j["poolshim_version"] = POOLSHIM_VERSION_STRING;
  j["files"] = st.files;
  j["elf_files"] = st.elf_files;
  j["archives"] = st.archives;
  j["errors"] = st.failures.size();
  j["complete"] = st.failures.empty();
  Json failures = Json::array();
  for (const Failure& f : st.failures) failures.push_back({{"path", f.path}, {"reason", f.reason}});
  j["incomplete"] = failures;
  j["unreachable"] = c.unreachable;
  j["counts"] = {{"listed", c.listed},
                 {"own_copy", c.own_copy},
                 {"own_copy_unreachable", c.own_copy_unreachable},
                 {"unused_copy", c.unused_copy},
                 {"client", c.client},
                 {"other_runtime", c.runtime},
                 {"provider", c.provider},
                 {"not_read", c.not_read},
                 {"other", c.other}};
  j["exit_status"] = status;
  if (proc != nullptr) {
    Json p;
    p["pid"] = proc->pid;
    p["exe"] = proc->exe;
    p["shim_loaded"] = proc->shim_loaded;
    p["shim_path"] = proc->shim_path;
    p["exited_during_scan"] = proc->exited;
    p["threads"] = proc->threads;
    Json env = Json::object();
    for (const ProcessFacts::RuntimeEnv& v : proc->env)
      env[v.var] = !v.readable ? Json("unreadable") : v.set ? Json(v.value) : Json(nullptr);
    p["runtime_env"] = env;
    j["process"] = p;
  } else {
    j["process"] = nullptr;
  }
  Json mods = Json::array();
  for (const AuditEntry& e : entries)
    if (row_listed(e, all)) mods.push_back(module_json(e, proc));
  j["modules"] = mods;
  print_json(j);
}

int usage_error(const std::string& msg) {
  fprintf(stderr, "poolshim audit: %s\n(see poolshim audit --help)\n", msg.c_str());
  return kExitUsage;
}

}  // namespace

int audit_main(int argc, char** argv) {
  bool json = false, all = false;
  long pid = 0;
  static const option kOptions[] = {{"json", no_argument, nullptr, 'j'},
                                    {"all", no_argument, nullptr, 'a'},
                                    {"pid", required_argument, nullptr, 'p'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = next_option(argc, argv, ":h", kOptions)) != -1) {
    switch (c) {
      case 'j': json = true; break;
      case 'a': all = true; break;
      case 'p':
        if (!parse_pid(optarg, &pid))
          return usage_error(std::string("--pid wants a process id, not '") + optarg + "'");
        break;
      case 'h': fputs(kAuditHelp, stdout); return kExitOk;
      case ':': return usage_error(std::string("option ") + argv[optind - 1] + " wants a value");
      default: return usage_error(std::string("unknown option ") + argv[optind - 1]);
    }
  }
  std::vector<std::string> paths(argv + optind, argv + argc);
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

  const ProcessFacts* proc = pid != 0 ? &scanner.process() : nullptr;
  RowCounts counts = count_rows(scanner.entries(), all);
  int status = !scanner.stats().failures.empty() ? kExitUsage
               : counts.unreachable > 0          ? kExitFindings
                                                 : kExitOk;
  if (json)
    print_json_doc(scanner.entries(), scanner.stats(), all, counts, status, proc);
  else
    print_table(scanner.entries(), scanner.stats(), all, counts, proc);
  return status;
}

}  // namespace poolshim::cli
