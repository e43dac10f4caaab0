/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's logging. Under systemd (JOURNAL_STREAM names our stderr, or
 * log_target=journal) every message goes to the journal through
 * sd_journal_send() with structured fields: MESSAGE, PRIORITY,
 * SYSLOG_IDENTIFIER, CODE_FILE/CODE_LINE/CODE_FUNC, plus the caller's own
 * fields (CLIENT_ID=, REQUEST_ID=, ERRNO= ...). Otherwise a line goes to
 * stderr: "acceld: <level>: message [KEY=value ...]".
 *
 * Only the daemon logs (library modules return errors). Main thread only;
 * the worker threads of later issues must hand messages to the loop.
 */
#pragma once

#include <stdint.h>
#include <syslog.h>

#include "daemon-config.h"

/*
 * Choose the target and the lowest priority logged. AUTO picks the journal
 * when JOURNAL_STREAM matches stderr's device:inode (systemd's rule for
 * "our stderr is connected to the journal"). Never fails.
 */
void daemon_log_setup(daemon_log_target_t target, int max_level);

/* True if messages currently go to the journal. */
int daemon_log_to_journal(void);

/*
 * Log one message. `fields` is a NULL-terminated list of "KEY=value"
 * strings (may be NULL). Returns -abs(error) when error != 0, else 0, so
 * callers can write `return log_error_errno(r, ...)`.
 */
int daemon_log_internal(int level, int error, const char *file, int line, const char *func,
                        const char *const *fields, const char *fmt, ...)
        __attribute__((format(printf, 7, 8)));

#define DLOG_FIELDS(...) ((const char *const[]) { __VA_ARGS__, NULL })

#define log_full(level, fields, ...) \
        daemon_log_internal(level, 0, __FILE__, __LINE__, __func__, fields, __VA_ARGS__)
#define log_full_errno(level, error, fields, ...) \
        daemon_log_internal(level, error, __FILE__, __LINE__, __func__, fields, __VA_ARGS__)

#define log_debug(...)   log_full(LOG_DEBUG, NULL, __VA_ARGS__)
#define log_info(...)    log_full(LOG_INFO, NULL, __VA_ARGS__)
#define log_notice(...)  log_full(LOG_NOTICE, NULL, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, NULL, __VA_ARGS__)
#define log_error(...)   log_full(LOG_ERR, NULL, __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, error, NULL, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, error, NULL, __VA_ARGS__)
