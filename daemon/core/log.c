/* SPDX-License-Identifier: Apache-2.0 */
/* Journal or stderr logging for acceld. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "cleanup.h"
#include "log.h"

#define LOG_MAX_FIELDS 16
/* Rate limit: one call site logs at most LOG_BURST messages per
 * LOG_INTERVAL_NS; the rest are counted and reported as suppressed with
 * the first message of the next interval. Debug messages are not limited
 * (they are asked for). */
#define LOG_BURST 10u
#define LOG_INTERVAL_NS (10ull * 1000000000ull)
#define LOG_SITES 256u

typedef struct log_site {
        const char *file;       /* __FILE__ pointer and line identify the call site */
        int line;
        uint64_t start_ns;
        unsigned n;             /* logged in this interval */
        unsigned suppressed;
} log_site_t;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static log_site_t log_sites[LOG_SITES];

static int log_journal;
static int log_max_level = LOG_INFO;

static int stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return 0;
        if (fstat(STDERR_FILENO, &st) < 0)
                return 0;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void daemon_log_setup(daemon_log_target_t target, int max_level) {
        switch (target) {
        case DAEMON_LOG_TARGET_JOURNAL:
                /* sd_journal_send() silently drops messages when journald
                 * is not running: keep them on stderr instead. */
                log_journal = access("/run/systemd/journal/socket", F_OK) == 0;
                break;
        case DAEMON_LOG_TARGET_STDERR:
                log_journal = 0;
                break;
        default:
                log_journal = stderr_is_journal();
                break;
        }
        log_max_level = max_level;
}

int daemon_log_to_journal(void) {
        return log_journal;
}

static const char *level_name(int level) {
        static const char *const names[] = {
                "emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
        };

        return level >= 0 && level <= LOG_DEBUG ? names[level] : "?";
}

static uint64_t log_now_ns(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* Whether the call site file:line may log now; *ret_suppressed gets how
 * many of its messages were dropped since it last logged. */
static bool log_site_admit(const char *file, int line, unsigned *ret_suppressed) {
        uintptr_t h = ((uintptr_t) file >> 4) * 31u + (uintptr_t) line;
        log_site_t *site = &log_sites[h % LOG_SITES];
        uint64_t now = log_now_ns();
        bool ok;

        *ret_suppressed = 0;
        pthread_mutex_lock(&log_lock);
        if (site->file != file || site->line != line) {
                /* A new site (or a collision, whose count is lost). */
                *site = (log_site_t) { .file = file, .line = line, .start_ns = now };
        } else if (now - site->start_ns >= LOG_INTERVAL_NS) {
                *ret_suppressed = site->suppressed;
                site->start_ns = now;
                site->n = 0;
                site->suppressed = 0;
        }
        ok = site->n < LOG_BURST;
        if (ok)
                site->n++;
        else
                site->suppressed++;
        pthread_mutex_unlock(&log_lock);
        return ok;
}

int daemon_log_internal(int level, int error, const char *file, int line, const char *func,
                        const char *const *fields, const char *fmt, ...) {
        int saved_errno = errno, ret = error == 0 ? 0 : -abs(error);
        unsigned suppressed = 0;
        char msg[2048];
        size_t n0 = 0;
        va_list ap;

        if (level > log_max_level) {
                errno = saved_errno;
                return ret;
        }
        if (level < LOG_DEBUG && !log_site_admit(file, line, &suppressed)) {
                errno = saved_errno;
                return ret;
        }
        if (suppressed > 0)
                n0 = (size_t) snprintf(msg, sizeof(msg), "(%u similar messages suppressed) ", suppressed);
        va_start(ap, fmt);
        (void) vsnprintf(msg + n0, sizeof(msg) - n0, fmt, ap);
        va_end(ap);
        if (error != 0) {
                size_t n = strlen(msg);

                (void) snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(abs(error)));
        }

        if (log_journal) {
                struct iovec iov[LOG_MAX_FIELDS + 8];
                char b_msg[sizeof(msg) + 16], b_prio[16], b_file[256], b_line[32], b_func[128],
                        b_errno[32];
                size_t n = 0;

#define IOV_STR(s) iov[n++] = (struct iovec) { .iov_base = (void *) (s), .iov_len = strlen(s) }
                (void) snprintf(b_msg, sizeof(b_msg), "MESSAGE=%s", msg);
                (void) snprintf(b_prio, sizeof(b_prio), "PRIORITY=%d", level);
                (void) snprintf(b_file, sizeof(b_file), "CODE_FILE=%s", file);
                (void) snprintf(b_line, sizeof(b_line), "CODE_LINE=%d", line);
                (void) snprintf(b_func, sizeof(b_func), "CODE_FUNC=%s", func);
                IOV_STR(b_msg);
                IOV_STR(b_prio);
                IOV_STR("SYSLOG_IDENTIFIER=acceld");
                IOV_STR(b_file);
                IOV_STR(b_line);
                IOV_STR(b_func);
                if (error != 0) {
                        (void) snprintf(b_errno, sizeof(b_errno), "ERRNO=%d", abs(error));
                        IOV_STR(b_errno);
                }
                for (size_t i = 0; fields && fields[i] && i < LOG_MAX_FIELDS; i++)
                        IOV_STR(fields[i]);
#undef IOV_STR
                if (sd_journal_sendv(iov, (int) n) >= 0) {
                        errno = saved_errno;
                        return ret;
                }
                /* journald unreachable: fall through to stderr */
        }

        fprintf(stderr, "acceld: %s: %s", level_name(level), msg);
        if (fields && fields[0]) {
                fputs(" [", stderr);
                for (size_t i = 0; fields[i] && i < LOG_MAX_FIELDS; i++)
                        fprintf(stderr, "%s%s", i ? " " : "", fields[i]);
                fputc(']', stderr);
        }
        fputc('\n', stderr);
        errno = saved_errno;
        return ret;
}
