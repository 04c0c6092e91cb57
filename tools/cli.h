// The `poolshim` command: run, audit, info. Each subcommand is a main-like function that gets its
// own name as argv[0] and the arguments after it (getopt_long style), and returns the process
// exit status.
#pragma once
#include <getopt.h>

#include <string>

namespace poolshim::cli {

// Exit statuses shared by every subcommand (documented in docs/poolshim-command.md and
// poolshim(1)).
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // audit: some pool copy is unreachable
constexpr int kExitUsage = 2;     // bad arguments, unreadable input, incomplete scan, no library
constexpr int kExitExecFailed = 127;

int run_main(int argc, char** argv);    // poolshim run [--threads N] [--log LEVEL] -- CMD ARGS...
int audit_main(int argc, char** argv);  // poolshim audit [--json] [--all] PATH... | --pid PID
int info_main(int argc, char** argv);   // poolshim info [--pools] [--json] [--pid PID]
// poolshim info --pools: every thread pool of process pid (0: this command's own), as a table or
// JSON (pools_cmd.cpp).
int info_pools(long pid, bool json);

// The libpoolshim.so that belongs to this command: next to it in the build tree
// (bin/../lib/libpoolshim.so) or in the installed layout (bin/../<libdir>/libpoolshim.so).
// Returns "" when none exists; *tried receives the candidate paths, one per line.
std::string find_library(std::string* tried);

// A path or other text for a terminal line: control bytes (a newline in a file name) become '?'.
std::string printable(const std::string& s);

// "a FIFO", "a character device", ... for a st_mode that is not a regular file or folder.
const char* file_type_text(unsigned mode);

// getopt_long for a subcommand, one call per option: restarts the scan at argv[1] on the first
// call (each subcommand is parsed once, after main's own scan) and never prints (opterr = 0):
// ':' is returned for a missing value and '?' for an unknown option, for the caller's message.
int next_option(int argc, char** argv, const char* shortopts, const option* longopts);

// Parses a process id (1..INT_MAX); false on anything else.
bool parse_pid(const char* text, long* out);

}  // namespace poolshim::cli
