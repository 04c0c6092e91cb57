// Small helpers shared by the subcommands (cli.h, json_out.h).
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>

#include "cli.h"
#include "json_out.h"

namespace poolshim::cli {

const char* file_type_text(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFDIR: return "a folder";
    case S_IFLNK: return "a symbolic link";
  }
  return "not a regular file";
}

std::string printable(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

int next_option(int argc, char** argv, const char* shortopts, const option* longopts) {
  static char** started = nullptr;  // the argv of the scan in progress
  if (started != argv) {
    started = argv;
    optind = 1;
    opterr = 0;
  }
  return getopt_long(argc, argv, shortopts, longopts, nullptr);
}

bool parse_pid(const char* text, long* out) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  long v = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v <= 0 || v > INT_MAX) return false;
  *out = v;
  return true;
}

void print_json(const Json& j) {
  std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  fwrite(text.data(), 1, text.size(), stdout);
  fputc('\n', stdout);
}

}  // namespace poolshim::cli
