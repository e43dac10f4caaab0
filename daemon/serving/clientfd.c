/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A client's model or buffer fd, taken safely (clientfd.h). Seals are
 * permanent once added, so "sealed, then sized" is a fact nothing can undo;
 * everything that is not such a memfd is copied under a size bound and a
 * deadline into a memfd acceld seals itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "clientfd.h"

#define CLIENTFD_CHUNK (1u << 20)
#define MODEL_SEALS (F_SEAL_SHRINK | F_SEAL_WRITE)
#define OWN_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

__attribute__((format(printf, 4, 5)))
static int fail(int r, char *err, size_t err_size, const char *fmt, ...) {
        if (err && err_size) {
                va_list ap;

                va_start(ap, fmt);
                (void) vsnprintf(err, err_size, fmt, ap);
                va_end(ap);
        }
        return r;
}

static int seals_of(int fd) {
        int seals = fcntl(fd, F_GET_SEALS);

        /* -EINVAL: not a memfd (nothing to seal). */
        return seals < 0 ? 0 : seals;
}

/* Milliseconds to `deadline_ns` for poll(), rounded up; 0 once passed. */
static int remaining_ms(uint64_t deadline_ns) {
        uint64_t now = acc_now_ns(), ms;

        if (now >= deadline_ns)
                return 0;
        ms = (deadline_ns - now + 999999) / 1000000;
        return ms > INT_MAX ? INT_MAX : (int) ms;
}

/*
 * One read from a pipe, socket or device that never blocks past the
 * deadline. RWF_NOWAIT makes the read itself non-blocking without touching
 * the client's file status flags (O_NONBLOCK is shared with the client);
 * where a file does not support it, poll() then read(). Returns the bytes
 * read, 0 at the end, -ETIMEDOUT or -errno.
 */
static ssize_t stream_read(int fd, void *buf, size_t n, uint64_t deadline_ns, bool *nowait) {
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t k;
                int ms;

                if (*nowait) {
                        k = preadv2(fd, &(struct iovec) { .iov_base = buf, .iov_len = n }, 1, -1, RWF_NOWAIT);
                        if (k >= 0)
                                return k;
                        if (errno == EINTR)
                                continue;
                        if (errno == EOPNOTSUPP || errno == ENOSYS)
                                *nowait = false;
                        else if (errno != EAGAIN)
                                return -errno;
                }
                ms = remaining_ms(deadline_ns);
                if (ms == 0)
                        return -ETIMEDOUT;
                k = poll(&p, 1, ms);
                if (k < 0 && errno != EINTR)
                        return -errno;
                if (k <= 0 || *nowait)
                        continue;
                /* Readable now; a second reader of the client's pipe could
                 * still drain it first, which only RWF_NOWAIT rules out. */
                k = read(fd, buf, n);
                if (k >= 0)
                        return k;
                if (errno != EINTR && errno != EAGAIN)
                        return -errno;
        }
}

static int write_all(int fd, const uint8_t *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -EIO;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

/* Everything that is not a sealed memfd: a bounded copy into our own. */
static int model_copy(int fd, bool regular, size_t max_bytes, uint64_t deadline_ns, int *ret_fd, size_t *ret_size,
                      char *err, size_t err_size) {
        _cleanup_close_ int own = memfd_create("acceld-model", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        _cleanup_free_ uint8_t *buf = malloc(CLIENTFD_CHUNK);
        bool nowait = true;
        uint64_t total = 0;
        int r;

        if (own < 0)
                return fail(-errno, err, err_size, "cannot create a memfd for the model: %s", strerror(errno));
        if (!buf)
                return -ENOMEM;
        for (;;) {
                /* One byte past the bound is enough to know it is too big. */
                uint64_t left = (uint64_t) max_bytes + 1 - total;
                size_t want = left < CLIENTFD_CHUNK ? (size_t) left : CLIENTFD_CHUNK;
                ssize_t n;

                if (acc_now_ns() >= deadline_ns)
                        n = -ETIMEDOUT;
                else if (regular) {
                        n = pread(fd, buf, want, (off_t) total);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                n = -errno;
                } else
                        n = stream_read(fd, buf, want, deadline_ns, &nowait);
                if (n == -ETIMEDOUT)
                        return fail(-ETIMEDOUT, err, err_size, "the model fd was not read to its end in time "
                                    "(%" PRIu64 " bytes read)", total);
                if (n < 0)
                        return fail((int) n, err, err_size, "cannot read the model fd: %s", strerror((int) -n));
                if (n == 0)
                        break;
                total += (uint64_t) n;
                if (total > max_bytes)
                        return fail(-EDQUOT, err, err_size, "the model fd holds more than max_model_bytes (%zu)",
                                    max_bytes);
                r = write_all(own, buf, (size_t) n);
                if (r < 0)
                        return fail(r, err, err_size, "cannot copy the model: %s", strerror(-r));
        }
        if (total == 0)
                return fail(-EINVAL, err, err_size, "the model file is empty");
        if (fcntl(own, F_ADD_SEALS, OWN_SEALS) < 0)
                return fail(-errno, err, err_size, "cannot seal the model's copy: %s", strerror(errno));
        *ret_fd = TAKE_FD(own);
        *ret_size = (size_t) total;
        return 0;
}

int daemon_clientfd_model(int fd, size_t max_bytes, uint64_t deadline_ns, int *ret_fd, size_t *ret_size,
                          char *err, size_t err_size) {
        uint64_t own_deadline = acc_now_ns() + (uint64_t) DAEMON_CLIENTFD_READ_MS * 1000000u;
        struct stat st;
        int dup_fd;

        if (fd < 0 || !ret_fd || !ret_size)
                return -EINVAL;
        if (fstat(fd, &st) < 0)
                return fail(-errno, err, err_size, "cannot stat the model fd: %s", strerror(errno));
        if (S_ISDIR(st.st_mode))
                return fail(-EINVAL, err, err_size, "the model fd is a directory");
        if (S_ISREG(st.st_mode) && (seals_of(fd) & MODEL_SEALS) == MODEL_SEALS) {
                /* Sealed: the size now is the size for good. */
                if (fstat(fd, &st) < 0)
                        return fail(-errno, err, err_size, "cannot stat the model fd: %s", strerror(errno));
                if (st.st_size <= 0)
                        return fail(-EINVAL, err, err_size, "the model file is empty");
                if ((uint64_t) st.st_size > max_bytes)
                        return fail(-EDQUOT, err, err_size, "model of %lld bytes exceeds max_model_bytes (%zu)",
                                    (long long) st.st_size, max_bytes);
                dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                if (dup_fd < 0)
                        return -errno;
                *ret_fd = dup_fd;
                *ret_size = (size_t) st.st_size;
                return 0;
        }
        /* A file's own size is only a hint (it can change while read), but
         * one that is already too big is refused without reading it. */
        if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > max_bytes)
                return fail(-EDQUOT, err, err_size, "model of %lld bytes exceeds max_model_bytes (%zu)",
                            (long long) st.st_size, max_bytes);
        if (deadline_ns == 0 || deadline_ns > own_deadline)
                deadline_ns = own_deadline;
        return model_copy(fd, S_ISREG(st.st_mode), max_bytes, deadline_ns, ret_fd, ret_size, err, err_size);
}

int daemon_clientfd_buffer(int fd, uint64_t max_bytes, size_t *ret_size, char *err, size_t err_size) {
        struct stat st;

        if (fd < 0 || !ret_size)
                return -EINVAL;
        if (fstat(fd, &st) < 0)
                return fail(-errno, err, err_size, "cannot stat the buffer fd: %s", strerror(errno));
        /* Seals before size: a memfd shrunk and then sealed between the two
         * would otherwise be mapped at its old, larger size. */
        if (!S_ISREG(st.st_mode) || !(seals_of(fd) & F_SEAL_SHRINK))
                return fail(-EINVAL, err, err_size, "the buffer must be a memfd sealed with F_SEAL_SHRINK");
        if (fstat(fd, &st) < 0)
                return fail(-errno, err, err_size, "cannot stat the buffer fd: %s", strerror(errno));
        if (st.st_size <= 0 || (uint64_t) st.st_size > max_bytes)
                return fail(-EINVAL, err, err_size, "the buffer must be a non-empty memfd of at most %" PRIu64 " bytes",
                            max_bytes);
        *ret_size = (size_t) st.st_size;
        return 0;
}
