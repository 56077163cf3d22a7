// An LD_PRELOAD shim for the power-loss suite (Tests/LarderTests/PowerLossTests.swift).
//
// It records, for one file only (the store's data file), every write (write, pwrite, pwrite64,
// writev, pwritev, pwritev64, pwritev2) and every call that asks the kernel to make writes
// durable (fsync, fdatasync, msync, sync_file_range), so that the tests can rebuild the states
// the file could be in after a power cut at any moment. Built by the tests with `cc -shared -fPIC`; not part of any
// product.
//
// Environment:
//   LARDER_SHIM_LOG          the log file to append records to (required; without it the shim
//                            only passes calls through)
//   LARDER_SHIM_FILE         the suffix that names the tracked file (default "data.mdb")
//   LARDER_SHIM_FAIL_SYNC_IF_EXISTS
//                            a path: while a file exists there, fsync and fdatasync of the
//                            tracked file fail with EIO (and are logged as failed)
//
// Log records (little-endian, one write(2) per record, appended with O_APPEND):
//   'W' u8 flags u64 offset u32 length bytes[length]
//        a completed write of `length` bytes at `offset`; flags bit 0: the fd was opened with
//        O_DSYNC/O_SYNC, so this write was durable when it returned
//   'S' u64 covered   a completed fsync/fdatasync: the first `covered` write records are durable
//   'F' u64 covered   an fsync/fdatasync that failed (nothing is known to be durable)
//   'R' u64 covered   sync_file_range (starts writeback; promises nothing about durability)
//   'M' u64 covered   msync while the tracked file was open (unsupported by the model)
//   'A' u64 n         written by the writer itself: commit n was acknowledged
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -2;                  // -2: not initialised yet; -1: logging off
static const char *suffix = "data.mdb";
static const char *fail_trigger = NULL;
static unsigned char tracked[MAX_FDS];   // 0: not tracked; 1: tracked; 2: tracked, O_DSYNC
static uint64_t writes_logged = 0;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static ssize_t (*real_pwritev2)(int, const struct iovec *, int, off_t, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_msync)(void *, size_t, int);
static int (*real_sync_file_range)(int, off64_t, off64_t, unsigned int);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_close)(int);

static void resolve(void) {
    if (real_write) return;
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
    real_pwritev64 = dlsym(RTLD_NEXT, "pwritev64");
    real_pwritev2 = dlsym(RTLD_NEXT, "pwritev2");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_msync = dlsym(RTLD_NEXT, "msync");
    real_sync_file_range = dlsym(RTLD_NEXT, "sync_file_range");
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_openat64 = dlsym(RTLD_NEXT, "openat64");
    real_close = dlsym(RTLD_NEXT, "close");
}

// Called with `lock` held.
static int logging(void) {
    if (log_fd == -2) {
        resolve();
        const char *path = getenv("LARDER_SHIM_LOG");
        const char *file = getenv("LARDER_SHIM_FILE");
        if (file && *file) suffix = file;
        fail_trigger = getenv("LARDER_SHIM_FAIL_SYNC_IF_EXISTS");
        log_fd = path ? real_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
    }
    return log_fd >= 0;
}

static int is_tracked(int fd) { return fd >= 0 && fd < MAX_FDS && tracked[fd]; }

static void append(const void *bytes, size_t count) {
    const char *p = bytes;
    while (count > 0) {
        ssize_t n = real_write(log_fd, p, count);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) abort();  // a lost record would make every later state wrong
        p += n;
        count -= (size_t)n;
    }
}

static void log_count(char tag, uint64_t covered) {
    unsigned char record[9];
    record[0] = (unsigned char)tag;
    memcpy(record + 1, &covered, 8);
    append(record, sizeof record);
}

// Logs a completed write of `total` bytes gathered from `iov` at `offset`. Called with `lock` held.
static void log_write_flags(int fd, off_t offset, const struct iovec *iov, int count, size_t total, int durable);
static void log_write(int fd, off_t offset, const struct iovec *iov, int count, size_t total) {
    log_write_flags(fd, offset, iov, count, total, tracked[fd] == 2);
}

static void log_write_flags(int fd, off_t offset, const struct iovec *iov, int count, size_t total, int durable) {
    (void)fd;
    size_t size = 1 + 1 + 8 + 4 + total;
    unsigned char *record = malloc(size);
    if (!record) abort();
    record[0] = 'W';
    record[1] = durable ? 1 : 0;
    uint64_t position = (uint64_t)offset;
    uint32_t length = (uint32_t)total;
    memcpy(record + 2, &position, 8);
    memcpy(record + 10, &length, 4);
    size_t at = 14, left = total;
    for (int i = 0; i < count && left > 0; i++) {
        size_t part = iov[i].iov_len < left ? iov[i].iov_len : left;
        memcpy(record + at, iov[i].iov_base, part);
        at += part;
        left -= part;
    }
    append(record, size);
    free(record);
    writes_logged++;
}

static void track(int fd, const char *path, int flags) {
    if (fd < 0 || fd >= MAX_FDS || !path) return;
    size_t length = strlen(path), wanted = strlen(suffix);
    int match = length >= wanted && strcmp(path + length - wanted, suffix) == 0;
    pthread_mutex_lock(&lock);
    if (logging()) tracked[fd] = match ? ((flags & O_DSYNC) ? 2 : 1) : 0;
    pthread_mutex_unlock(&lock);
}

#define OPEN_WRAPPER(name, real, ...)                                                 \
    int name(const char *path, int flags, ...) {                                      \
        resolve();                                                                    \
        mode_t mode = 0;                                                              \
        if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                  \
            va_list args;                                                             \
            va_start(args, flags);                                                    \
            mode = va_arg(args, mode_t);                                              \
            va_end(args);                                                             \
        }                                                                             \
        int fd = real(path, flags, mode);                                             \
        track(fd, path, flags);                                                       \
        return fd;                                                                    \
    }
OPEN_WRAPPER(open, real_open)
OPEN_WRAPPER(open64, real_open64)

#define OPENAT_WRAPPER(name, real)                                                    \
    int name(int dir, const char *path, int flags, ...) {                             \
        resolve();                                                                    \
        mode_t mode = 0;                                                              \
        if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                  \
            va_list args;                                                             \
            va_start(args, flags);                                                    \
            mode = va_arg(args, mode_t);                                              \
            va_end(args);                                                             \
        }                                                                             \
        int fd = real(dir, path, flags, mode);                                        \
        track(fd, path, flags);                                                       \
        return fd;                                                                    \
    }
OPENAT_WRAPPER(openat, real_openat)
OPENAT_WRAPPER(openat64, real_openat64)

int close(int fd) {
    resolve();
    pthread_mutex_lock(&lock);
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = 0;
    int rc = real_close(fd);
    pthread_mutex_unlock(&lock);
    return rc;
}

// The writes hold `lock` across the real call, so that the log's order is the order in which
// the writes happened (LMDB writes from one thread at a time anyway).
ssize_t write(int fd, const void *buffer, size_t count) {
    resolve();
    if (!is_tracked(fd)) return real_write(fd, buffer, count);
    pthread_mutex_lock(&lock);
    off_t offset = lseek(fd, 0, SEEK_CUR);
    ssize_t n = real_write(fd, buffer, count);
    if (n > 0) {
        struct iovec one = {(void *)buffer, (size_t)n};
        log_write(fd, offset, &one, 1, (size_t)n);
    }
    pthread_mutex_unlock(&lock);
    return n;
}

static ssize_t logged_pwrite(ssize_t (*real)(int, const void *, size_t, off_t), int fd, const void *buffer,
                             size_t count, off_t offset) {
    if (!is_tracked(fd)) return real(fd, buffer, count, offset);
    pthread_mutex_lock(&lock);
    ssize_t n = real(fd, buffer, count, offset);
    if (n > 0) {
        struct iovec one = {(void *)buffer, (size_t)n};
        log_write(fd, offset, &one, 1, (size_t)n);
    }
    pthread_mutex_unlock(&lock);
    return n;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    resolve();
    return logged_pwrite(real_pwrite, fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    resolve();
    return logged_pwrite(real_pwrite64, fd, buffer, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    resolve();
    if (!is_tracked(fd)) return real_writev(fd, iov, count);
    pthread_mutex_lock(&lock);
    off_t offset = lseek(fd, 0, SEEK_CUR);
    ssize_t n = real_writev(fd, iov, count);
    if (n > 0) log_write(fd, offset, iov, count, (size_t)n);
    pthread_mutex_unlock(&lock);
    return n;
}

static ssize_t logged_pwritev(ssize_t (*real)(int, const struct iovec *, int, off_t), int fd,
                              const struct iovec *iov, int count, off_t offset) {
    if (!is_tracked(fd)) return real(fd, iov, count, offset);
    pthread_mutex_lock(&lock);
    ssize_t n = real(fd, iov, count, offset);
    if (n > 0) log_write(fd, offset, iov, count, (size_t)n);
    pthread_mutex_unlock(&lock);
    return n;
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    resolve();
    return logged_pwritev(real_pwritev, fd, iov, count, offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off64_t offset) {
    resolve();
    return logged_pwritev(real_pwritev64, fd, iov, count, offset);
}

// pwritev2 with RWF_DSYNC or RWF_SYNC is durable when it returns; an offset of -1 means the
// file position.
ssize_t pwritev2(int fd, const struct iovec *iov, int count, off_t offset, int flags) {
    resolve();
    if (!is_tracked(fd)) return real_pwritev2(fd, iov, count, offset, flags);
    pthread_mutex_lock(&lock);
    off_t position = offset == -1 ? lseek(fd, 0, SEEK_CUR) : offset;
    ssize_t n = real_pwritev2(fd, iov, count, offset, flags);
    if (n > 0) log_write_flags(fd, position, iov, count, (size_t)n, tracked[fd] == 2 || (flags & (RWF_DSYNC | RWF_SYNC)));
    pthread_mutex_unlock(&lock);
    return n;
}

// A sync covers the writes that completed before it began: it counts them first, without holding
// `lock` during the (slow) real call, so a write that completes meanwhile is not counted.
static int logged_sync(int (*real)(int), int fd) {
    if (!is_tracked(fd)) return real(fd);
    pthread_mutex_lock(&lock);
    uint64_t covered = writes_logged;
    pthread_mutex_unlock(&lock);
    int rc;
    if (fail_trigger && access(fail_trigger, F_OK) == 0) {
        errno = EIO;
        rc = -1;
    } else {
        rc = real(fd);
    }
    int saved = errno;
    pthread_mutex_lock(&lock);
    log_count(rc == 0 ? 'S' : 'F', covered);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return rc;
}

int fsync(int fd) {
    resolve();
    return logged_sync(real_fsync, fd);
}

int fdatasync(int fd) {
    resolve();
    return logged_sync(real_fdatasync, fd);
}

int sync_file_range(int fd, off64_t offset, off64_t count, unsigned int flags) {
    resolve();
    int rc = real_sync_file_range(fd, offset, count, flags);
    if (is_tracked(fd)) {
        pthread_mutex_lock(&lock);
        log_count('R', writes_logged);
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

int msync(void *address, size_t length, int flags) {
    resolve();
    int rc = real_msync(address, length, flags);
    pthread_mutex_lock(&lock);
    int any = 0;
    for (int fd = 0; fd < MAX_FDS && !any; fd++) any = tracked[fd] != 0;
    if (any && logging()) log_count('M', writes_logged);
    pthread_mutex_unlock(&lock);
    return rc;
}
