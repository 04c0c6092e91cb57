// Scanner::scan_archive: wheels (zip) and other archives through libarchive, read as a stream.
// A member that starts with the ELF magic is spooled into an unlinked temporary file (blocks of
// zeros become holes, so a huge highly compressed member costs neither memory nor disk) and
// mapped for the reader: the process holds a 64 KiB buffer whatever the member's size. Nothing is
// extracted under the member's own name, so names like "../../x" write nowhere. libarchive is
// loaded on the first archive (archive_lib.h): without it, the archive is one failure line.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "archive_lib.h"
#include "audit_scan.h"
#include "elf/mapped_file.h"

namespace poolshim::cli {
namespace {

constexpr int64_t kMaxMemberSize = int64_t{4} << 30;  // members above 4 GiB are not judged
constexpr size_t kChunk = size_t{1} << 16;

struct ArchiveCloser {
  const ArchiveLib& la;
  archive* a;
  ~ArchiveCloser() { la.archive_read_free(a); }
};

// An anonymous temporary file in $TMPDIR (else /var/tmp, else /tmp), already unlinked.
int spool_file(std::string* error) {
  const char* dirs[] = {getenv("TMPDIR"), "/var/tmp", "/tmp"};
  for (const char* dir : dirs) {
    if (dir == nullptr || *dir == '\0') continue;
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    std::string templ = std::string(dir) + "/poolshim-audit-XXXXXX";
    fd = mkostemp(&templ[0], O_CLOEXEC);
    if (fd >= 0) {
      unlink(templ.c_str());
      return fd;
    }
    *error = std::string("no temporary file in ") + dir + ": " + strerror(errno);
  }
  return -1;
}

bool all_zero(const unsigned char* p, size_t n) {
  static const unsigned char kZeros[kChunk] = {};
  return memcmp(p, kZeros, n) == 0;
}

bool write_all(int fd, const unsigned char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// libarchive's message for a, never nullptr.
std::string error_of(const ArchiveLib& la, archive* a) {
  const char* s = la.archive_error_string(a);
  return s != nullptr ? s : "unknown error";
}

}  // namespace

void Scanner::scan_archive(const std::string& path) {
  const char* why = nullptr;
  const ArchiveLib* lib = archive_lib(&why);
  if (lib == nullptr) {
    fail(path, why);
    return;
  }
  const ArchiveLib& la = *lib;
  archive* a = la.archive_read_new();
  if (a == nullptr) {
    fail(path, "cannot read the archive: out of memory");
    return;
  }
  ArchiveCloser closer{la, a};
  la.archive_read_support_filter_all(a);
  la.archive_read_support_format_zip(a);
  la.archive_read_support_format_tar(a);
  la.archive_read_support_format_gnutar(a);
  if (la.archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK) {
    fail(path, std::string("cannot open the archive: ") + error_of(la, a));
    return;
  }
  ++stats_.archives;
  static unsigned char chunk[kChunk];
  archive_entry* entry = nullptr;
  while (true) {
    int rc = la.archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) {  // ARCHIVE_FAILED / ARCHIVE_FATAL: the rest cannot be trusted
      fail(path, std::string("archive unreadable from here on: ") + error_of(la, a));
      break;
    }
    if (la.archive_entry_filetype(entry) != AE_IFREG) continue;
    const char* name = la.archive_entry_pathname(entry);
    std::string display = path + "!" + (name != nullptr ? name : "?");
    ++stats_.files;
    la_ssize_t got = la.archive_read_data(a, chunk, kChunk);
    if (got < 0) {
      fail(display, std::string("cannot read the member: ") + error_of(la, a));
      if (rc == ARCHIVE_FATAL || la.archive_errno(a) == ARCHIVE_FATAL) break;
      continue;
    }
    if (got < 4 || memcmp(chunk, "\177ELF", 4) != 0) {
      tick();
      continue;  // not ELF: the rest of the member is skipped by the next header read
    }
    std::string error;
    int fd = spool_file(&error);
    if (fd < 0) {
      fail(display, "not judged: " + error);
      continue;
    }
    int64_t total = 0;
    bool ok = true;
    la_ssize_t n = got;
    while (n > 0) {
      const unsigned char* p = chunk;
      // Zeros become a hole: lseek past them instead of writing (ftruncate below sets the size).
      if (all_zero(p, static_cast<size_t>(n))) {
        ok = lseek(fd, n, SEEK_CUR) >= 0;
      } else {
        ok = write_all(fd, p, static_cast<size_t>(n));
      }
      if (!ok) {
        error = std::string("cannot spool the member: ") + strerror(errno);
        break;
      }
      total += n;
      if (total > kMaxMemberSize) {
        ok = false;
        error = "larger than 4 GiB; not judged";
        break;
      }
      n = la.archive_read_data(a, chunk, kChunk);
    }
    if (ok && n < 0) {
      ok = false;
      error = std::string("cannot read the member: ") + error_of(la, a);
    }
    if (ok && ftruncate(fd, total) != 0) {
      ok = false;
      error = std::string("cannot spool the member: ") + strerror(errno);
    }
    if (!ok) {
      close(fd);
      fail(display, error);
      tick();
      continue;
    }
    elf::MappedFile image;
    if (!image.map(fd, static_cast<size_t>(total))) {
      fail(display, std::string("cannot map the spooled member: ") + strerror(errno));
      continue;
    }
    judge_image(display, image.data(), image.size(), false);
    tick();
  }
}

}  // namespace poolshim::cli
