/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Serving's share of the quarantine the mini-benchmark keeps: every death
 * of a driver host during a served request is an ERROR BenchmarkEvent in
 * SQLite, keyed like a benchmark candidate's (model, settings key, driver
 * version), and a combination with two or more ERROR events (from either)
 * is no longer prepared on that driver until the model or the driver
 * version changes.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "models.h"
#include "cleanup.h"
#include "driver.h"
#include "host/host.h"
#include "log.h"
#include "quarantine.h"
#include "serving.h"

#define QUARANTINE_ERRORS 2

typedef struct q_args {
        const char *sha256, *key, *driver_version;
        const uint8_t *blob;
        size_t size;
        const char *message;    /* the failure in words, or NULL */
} q_args_t;

static int count_job(store_db_t *db, void *userdata) {
        q_args_t *a = userdata;
        /* Serving's own failures and the operators' runs: a tenant's
         * benchmark errors never quarantine a driver for everyone. */
        return store_event_count_errors_for(db, a->sha256, a->key, a->driver_version, 0);
}

static int insert_job(store_db_t *db, void *userdata) {
        q_args_t *a = userdata;
        int64_t id = 0;
        int r = store_event_insert(db, a->sha256, a->key, a->driver_version, a->blob, a->size, &id);
        return r < 0 || !a->message ? r : store_event_set_message(db, id, a->message);
}

/* The hosted driver `s` names, or NULL when it does not name one. */
static const rt_driver_t *hosted_driver(const rt_settings_t *s) {
        const char *name = rt_settings_driver_name(s);
        return name && daemon_hosts_owns(name) ? rt_driver_find(name) : NULL;
}

int daemon_quarantine_admit(const char *sha256, const rt_settings_t *s, char *why, size_t why_size) {
        const rt_driver_t *d = hosted_driver(s);
        _cleanup_free_ char *key = NULL;
        char dv[192];
        int n;

        if (!d)
                return 0;
        if (daemon_settings_store_key(s, &key) < 0)
                return 0;
        (void) snprintf(dv, sizeof(dv), "%s=%s", d->name, d->version ? d->version : "");
        q_args_t a = { .sha256 = sha256, .key = key, .driver_version = dv };
        n = daemon_storage_call(count_job, &a);
        if (n < QUARANTINE_ERRORS)
                return 0;   /* includes a store that is unavailable: nothing to go by */
        if (s->fallback_on_compilation_error || s->fallback_on_execution_error) {
                (void) snprintf(why, why_size, "driver %s is quarantined for this model and these settings "
                                               "(%d failures); ran on the CPU", dv, n);
                return 1;
        }
        (void) snprintf(why, why_size, "driver %s is quarantined for this model and these settings: it failed "
                                       "%d times (see accelctl events); it is tried again when the model or the "
                                       "driver version changes", dv, n);
        return -ENODEV;
}

void daemon_quarantine_record(const char *sha256, const rt_settings_t *s, bool during_prepare) {
        Tflite__Proto__BenchmarkEvent ev = TFLITE__PROTO__BENCHMARK_EVENT__INIT;
        Tflite__Proto__BenchmarkError er = TFLITE__PROTO__BENCHMARK_ERROR__INIT;
        Tflite__Proto__TFLiteSettings *ts = NULL;
        const rt_driver_t *d = hosted_driver(s);
        _cleanup_free_ char *key = NULL;
        _cleanup_free_ uint8_t *blob = NULL;
        size_t size;
        int sig = 0, code = -1, r;
        char dv[192];

        if (!d || daemon_settings_store_key(s, &key) < 0)
                return;
        (void) daemon_hosts_last_death(d->name, &sig, &code);
        er.has_stage = 1;
        er.stage = during_prepare ? TFLITE__PROTO__BENCHMARK_STAGE__INITIALIZATION
                                  : TFLITE__PROTO__BENCHMARK_STAGE__INFERENCE;
        if (sig > 0) {
                er.has_signal = 1;
                er.signal = sig;
        }
        if (code >= 0) {
                er.has_exit_code = 1;
                er.exit_code = code;
        }
        if (rt_settings_to_proto(s, &ts) == 0)
                ev.tflite_settings = ts;
        ev.has_event_type = 1;
        ev.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR;
        ev.error = &er;
        ev.has_boottime_us = 1;
        ev.boottime_us = acc_clock_us(CLOCK_BOOTTIME);
        ev.has_wallclock_us = 1;
        ev.wallclock_us = acc_clock_us(CLOCK_REALTIME);
        size = tflite__proto__benchmark_event__get_packed_size(&ev);
        blob = malloc(size ? size : 1);
        if (blob) {
                (void) tflite__proto__benchmark_event__pack(&ev, blob);
                (void) snprintf(dv, sizeof(dv), "%s=%s", d->name, d->version ? d->version : "");
                char msg[256];
                if (sig > 0)
                        (void) snprintf(msg, sizeof(msg), "driver %s died with signal %d (%s) during %s in serving",
                                        d->name, sig, strsignal(sig), during_prepare ? "prepare" : "execute");
                else
                        (void) snprintf(msg, sizeof(msg), "driver %s failed (exit %d) during %s in serving", d->name,
                                        code, during_prepare ? "prepare" : "execute");
                q_args_t a = { .sha256 = sha256, .key = key, .driver_version = dv, .blob = blob, .size = size,
                               .message = msg };
                r = daemon_storage_call(insert_job, &a);
                if (r < 0 && r != -ENODEV)
                        log_warning("cannot record the failure of driver %s on model %s: %s", d->name, sha256,
                                    strerror(-r));
        }
        if (ts)
                tflite__proto__tflite_settings__free_unpacked(ts, NULL);
}
