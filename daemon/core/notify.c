/* SPDX-License-Identifier: Apache-2.0 */
/* sd_notify and the watchdog timer. */
#include <stdarg.h>
#include <stdio.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "notify.h"

static void watchdog_cb(uv_timer_t *t) {
        (void) sd_notify(0, "WATCHDOG=1");
}

int daemon_notify_start(daemon_notify_t *n, uv_loop_t *loop) {
        uint64_t usec = 0;
        int r;

        *n = (daemon_notify_t) {};
        r = sd_watchdog_enabled(0, &usec);
        if (r <= 0 || usec == 0)
                return 0;
        r = uv_timer_init(loop, &n->watchdog);
        if (r < 0)
                return r;
        n->timer_open = true;
        n->watchdog_usec = usec;
        /* Half the interval, as sd_watchdog_enabled(3) recommends; at
         * least 1 ms so a tiny WATCHDOG_USEC cannot spin the loop. */
        uint64_t ms = usec / 2000 ? usec / 2000 : 1;
        r = uv_timer_start(&n->watchdog, watchdog_cb, 0, ms);
        if (r < 0)
                return r;
        log_debug("watchdog enabled, pinging every %llu ms", (unsigned long long) ms);
        return 0;
}

void daemon_notify_stop(daemon_notify_t *n) {
        if (!n->timer_open)
                return;
        n->timer_open = false;
        (void) uv_timer_stop(&n->watchdog);
        uv_close((uv_handle_t *) &n->watchdog, NULL);
}

void daemon_notify_ready(const char *status) {
        (void) sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void daemon_notify_status(const char *fmt, ...) {
        char buf[512];
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        (void) sd_notifyf(0, "STATUS=%s", buf);
}

void daemon_notify_stopping(const char *status) {
        (void) sd_notifyf(0, "STOPPING=1\nSTATUS=%s", status);
}
