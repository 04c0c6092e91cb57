// idle_host: a C++ program that does nothing pool-related, for measuring what merely loading
// libpoolshim.so costs (scripts/bench.sh runs it with and without LD_PRELOAD). It prints, from
// /proc/self/status, the resident memory and the thread count of this process, as
//   rss_kib=<VmRSS> threads=<Threads>
// It links libstdc++ (std::string below), like any C++ host, so the comparison isolates the shim's
// own pages rather than the C++ runtime the shim also needs (scripts/bench.sh measures a C host,
// /bin/sh, separately).
#include <cstdio>
#include <cstdlib>
#include <string>

int main() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 1;
  std::string rss = "?", threads = "?";
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long value = 0;
    if (std::sscanf(line, "VmRSS: %lu", &value) == 1) rss = std::to_string(value);
    if (std::sscanf(line, "Threads: %lu", &value) == 1) threads = std::to_string(value);
  }
  std::fclose(f);
  std::printf("rss_kib=%s threads=%s\n", rss.c_str(), threads.c_str());
  return 0;
}
