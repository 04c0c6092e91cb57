// The `poolshim` command: run, audit, info. Each subcommand is a main-like function that gets
// the arguments after its name and returns the process exit status.
#pragma once
#include <string>

namespace poolshim::cli {

// Exit statuses shared by every subcommand (documented in docs/poolshim-command.md).
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;   // audit: some pool copy is unreachable
constexpr int kExitUsage = 2;      // bad arguments, unreadable input, library not found
constexpr int kExitExecFailed = 127;

int run_main(int argc, char** argv);    // poolshim run [--threads N] [--log LEVEL] -- CMD ARGS...
int audit_main(int argc, char** argv);  // poolshim audit [--json] [--all] PATH... | --pid PID
int info_main(int argc, char** argv);   // poolshim info

// The libpoolshim.so that belongs to this command: next to it in the build tree
// (bin/../lib/libpoolshim.so) or in the installed layout (bin/../<libdir>/libpoolshim.so).
// Returns "" when none exists; *tried receives the candidate paths, one per line.
std::string find_library(std::string* tried);

}  // namespace poolshim::cli
