/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service manager protocol: READY=1 once acceld listens, STATUS= lines,
 * STOPPING=1 on shutdown, and WATCHDOG=1 from a uv_timer at half of
 * WATCHDOG_USEC when the manager enabled the watchdog. Without
 * NOTIFY_SOCKET every call is a no-op. Loop thread only.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

typedef struct daemon_notify {
        uv_timer_t watchdog;
        uint64_t watchdog_usec;         /* 0: no watchdog */
        bool timer_open;
} daemon_notify_t;

/* Start the watchdog timer if WATCHDOG_USEC (and WATCHDOG_PID, if set)
 * ask for it. Returns 0 or a negative errno from libuv. */
int daemon_notify_start(daemon_notify_t *n, uv_loop_t *loop);
/* Close the watchdog timer (its close callback needs the loop to run). */
void daemon_notify_stop(daemon_notify_t *n);

/* READY=1 plus STATUS=status. */
void daemon_notify_ready(const char *status);
/* STATUS=... only. */
void daemon_notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* STOPPING=1 plus STATUS=status. */
void daemon_notify_stopping(const char *status);
