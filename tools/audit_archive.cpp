// Scanner::scan_archive: wheels (zip) and other archives through libarchive. Each member that
// starts with the ELF magic is read into memory and judged there; nothing is extracted to disk.
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "audit_scan.h"

namespace poolshim::cli {
namespace {

constexpr int64_t kMaxMemberSize = int64_t{4} << 30;  // members above 4 GiB are skipped

struct ArchiveCloser {
  archive* a;
  ~ArchiveCloser() { archive_read_free(a); }
};

}  // namespace

bool Scanner::scan_archive(const std::string& path) {
  archive* a = archive_read_new();
  if (a == nullptr) return false;
  ArchiveCloser closer{a};
  archive_read_support_filter_all(a);
  archive_read_support_format_zip(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_gnutar(a);
  if (archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK) {
    fprintf(stderr, "poolshim audit: cannot open archive %s: %s\n", path.c_str(), archive_error_string(a));
    ++stats_.errors;
    return false;
  }
  ++stats_.archives;
  bool ok = true;
  std::vector<unsigned char> buf;
  archive_entry* entry = nullptr;
  while (true) {
    int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) {  // ARCHIVE_FAILED / ARCHIVE_FATAL: the rest cannot be trusted
      fprintf(stderr, "poolshim audit: %s: %s\n", path.c_str(), archive_error_string(a));
      ++stats_.errors;
      ok = false;
      break;
    }
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    const char* name = archive_entry_pathname(entry);
    std::string display = path + "!" + (name != nullptr ? name : "?");
    ++stats_.files;
    // Read the first bytes; only ELF members are read whole.
    unsigned char head[4];
    la_ssize_t got = archive_read_data(a, head, sizeof head);
    if (got == 4 && memcmp(head, "\177ELF", 4) == 0) {
      int64_t size = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : -1;
      if (size > kMaxMemberSize) {
        fprintf(stderr, "poolshim audit: %s: larger than 4 GiB; skipped\n", display.c_str());
        continue;
      }
      buf.assign(head, head + 4);
      if (size > 0) buf.reserve(static_cast<size_t>(size));
      unsigned char chunk[1 << 16];
      la_ssize_t n;
      while ((n = archive_read_data(a, chunk, sizeof chunk)) > 0) {
        buf.insert(buf.end(), chunk, chunk + n);
        if (static_cast<int64_t>(buf.size()) > kMaxMemberSize) break;
      }
      if (n < 0) {
        fprintf(stderr, "poolshim audit: %s: %s\n", display.c_str(), archive_error_string(a));
        ++stats_.errors;
        ok = false;
      }
      judge_image(display, buf.data(), buf.size(), false);
    } else if (got < 0) {
      fprintf(stderr, "poolshim audit: %s: %s\n", display.c_str(), archive_error_string(a));
      ++stats_.errors;
      ok = false;
    }
    tick();
  }
  return ok;
}

}  // namespace poolshim::cli
