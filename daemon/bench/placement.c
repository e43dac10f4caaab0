/* SPDX-License-Identifier: Apache-2.0 */
/* Placement: served or in the client's process (bench/placement.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cleanup.h"
#include "clock.h"
#include "host/host.h"
#include "placement.h"
#include "serving/models.h"
#include "serving/scheduler.h"

#define SERVED_WINDOW 64
/* Instances whose served compute is kept (the least recently noted one
 * gives way), and the samples kept of each. */
#define COMPUTE_INSTANCES 64
#define COMPUTE_WINDOW 16

typedef struct compute_entry {
        char *key;                              /* the instance key (owned), NULL: free */
        uint64_t v[COMPUTE_WINDOW];
        uint64_t n;
        uint64_t used;                          /* pl.tick at the latest note */
} compute_entry_t;

static struct {
        pthread_mutex_t mu;
        bench_placement_config_t cfg;
        int64_t socket_us;                      /* -1: not measured */
        uint64_t served[SERVED_WINDOW];         /* ring of the latest overheads */
        uint64_t n_served;
        uint64_t placed;
        compute_entry_t compute[COMPUTE_INSTANCES];
        uint64_t tick;
} pl = {
        .mu = PTHREAD_MUTEX_INITIALIZER,
        .cfg = { .max_compute_us = BENCH_PLACEMENT_DEFAULT_MAX_US,
                 .max_overhead = BENCH_PLACEMENT_DEFAULT_MAX_OVERHEAD },
        .socket_us = -1,
};

void bench_placement_configure(const bench_placement_config_t *c) {
        pthread_mutex_lock(&pl.mu);
        pl.cfg = *c;
        pthread_mutex_unlock(&pl.mu);
}

void bench_placement_get_config(bench_placement_config_t *ret) {
        pthread_mutex_lock(&pl.mu);
        *ret = pl.cfg;
        pthread_mutex_unlock(&pl.mu);
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

        return (x > y) - (x < y);
}

/* The helper of bench_placement_measure_pings(): answers each 64-byte
 * message with one of its own; a message whose first byte is 1 is
 * answered after `delay_ns` of busy work, as a lane or a worker answers
 * after the model's compute. */
typedef struct echo {
        int fd;
        uint64_t delay_ns;
        uint64_t busy_answers;          /* read after the join */
} echo_t;

static void *echo_main(void *userdata) {
        echo_t *e = userdata;
        char buf[64];

        for (;;) {
                ssize_t n = read(e->fd, buf, sizeof(buf));

                if (n <= 0)
                        break;
                if (buf[0] == 1) {
                        uint64_t until = acc_now_ns() + e->delay_ns;

                        while (acc_now_ns() < until)
                                ;
                        e->busy_answers++;
                }
                if (write(e->fd, buf, (size_t) n) != n)
                        break;
        }
        return NULL;
}

/* The median of `count` pings, in microseconds; those of `delayed` ones
 * less the echo's busy time. *ret_min_raw_ns: the shortest ping, busy
 * time included. */
static int64_t pings_median(int fd, int64_t *v, size_t count, uint64_t delay_ns, bool delayed,
                            uint64_t *ret_min_raw_ns) {
        char buf[64] = { 0 };
        size_t n = 0;
        uint64_t min = UINT64_MAX;

        buf[0] = delayed ? 1 : 0;
        for (; n < count; n++) {
                uint64_t t0 = acc_now_ns(), took;

                if (write(fd, buf, sizeof(buf)) != (ssize_t) sizeof(buf) ||
                    read(fd, buf, sizeof(buf)) != (ssize_t) sizeof(buf))
                        return -EIO;
                took = acc_now_ns() - t0;
                if (took < min)
                        min = took;
                v[n] = (int64_t) took - (delayed ? (int64_t) delay_ns : 0);
        }
        qsort(v, n, sizeof(v[0]), cmp_i64);
        *ret_min_raw_ns = min;
        return v[n / 2] < 0 ? 0 : (v[n / 2] + 500) / 1000;
}

/* Two measures of the kernel's part of a round trip: back-to-back pings,
 * and pings the echo answers after a millisecond of work. The second is
 * what a served model of about that size pays on a machine whose idle
 * CPU halts while the client waits: the client's wake-up from a halted
 * vCPU (50-140 us on this project's 2-vCPU VM, where back-to-back pings
 * measured 28-34 us and placement then served models over lanes that
 * ran 1.4x native's time). The larger of the two is kept. */
int64_t bench_placement_measure_pings(uint64_t delay_ns, bench_placement_pings_t *ret) {
        int64_t v[BENCH_PLACEMENT_PINGS], quick, delayed = -1;
        uint64_t min_quick = 0, min_delayed = 0;
        echo_t e = { .delay_ns = delay_ns };
        pthread_t th;
        int sv[2], r = 0;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        e.fd = sv[1];
        r = -pthread_create(&th, NULL, echo_main, &e);
        if (r < 0) {
                (void) close(sv[0]);
                (void) close(sv[1]);
                return r;
        }
        quick = pings_median(sv[0], v, BENCH_PLACEMENT_PINGS, delay_ns, false, &min_quick);
        if (quick >= 0)
                delayed = pings_median(sv[0], v, BENCH_PLACEMENT_DELAYED_PINGS, delay_ns, true, &min_delayed);
        (void) shutdown(sv[0], SHUT_RDWR);
        (void) pthread_join(th, NULL);
        (void) close(sv[0]);
        (void) close(sv[1]);
        if (quick < 0 || delayed < 0)
                return quick < 0 ? quick : delayed;
        if (ret)
                *ret = (bench_placement_pings_t) {
                        .quick_us = quick,
                        .delayed_us = delayed,
                        .delayed_min_raw_us = (int64_t) (min_delayed / 1000),
                        .busy_answers = e.busy_answers,
                };
        if (delayed > quick)
                quick = delayed;
        pthread_mutex_lock(&pl.mu);
        pl.socket_us = quick;
        pthread_mutex_unlock(&pl.mu);
        return quick;
}

int64_t bench_placement_measure(void) {
        return bench_placement_measure_pings(BENCH_PLACEMENT_DELAY_NS, NULL);
}

void bench_placement_note_served(uint64_t overhead_us) {
        pthread_mutex_lock(&pl.mu);
        pl.served[pl.n_served % SERVED_WINDOW] = overhead_us;
        pl.n_served++;
        pthread_mutex_unlock(&pl.mu);
}

void bench_placement_note_compute(const char *instance_key, uint64_t compute_us) {
        compute_entry_t *e = NULL, *lru = NULL;

        if (!instance_key)
                return;
        pthread_mutex_lock(&pl.mu);
        for (size_t i = 0; i < COMPUTE_INSTANCES && !e; i++) {
                compute_entry_t *x = &pl.compute[i];

                if (x->key && strcmp(x->key, instance_key) == 0)
                        e = x;
                else if (!lru || !x->key || (lru->key && x->used < lru->used))
                        lru = x;
        }
        if (!e) {
                char *k = strdup(instance_key);

                if (!k) {
                        pthread_mutex_unlock(&pl.mu);
                        return;
                }
                e = lru;
                free(e->key);
                *e = (compute_entry_t) { .key = k };
        }
        e->v[e->n % COMPUTE_WINDOW] = compute_us;
        e->n++;
        e->used = ++pl.tick;
        pthread_mutex_unlock(&pl.mu);
}

int64_t bench_placement_served_compute_us(const char *instance_key, size_t *ret_n) {
        uint64_t v[COMPUTE_WINDOW];
        size_t n = 0, min;

        if (instance_key) {
                pthread_mutex_lock(&pl.mu);
                for (size_t i = 0; i < COMPUTE_INSTANCES; i++) {
                        const compute_entry_t *x = &pl.compute[i];

                        if (x->key && strcmp(x->key, instance_key) == 0) {
                                n = x->n < COMPUTE_WINDOW ? (size_t) x->n : COMPUTE_WINDOW;
                                memcpy(v, x->v, n * sizeof(v[0]));
                                break;
                        }
                }
                pthread_mutex_unlock(&pl.mu);
        }
        if (ret_n)
                *ret_n = n;
        pthread_mutex_lock(&pl.mu);
        min = pl.cfg.min_served;
        pthread_mutex_unlock(&pl.mu);
        if (min == 0 || n < min)
                return -1;
        qsort(v, n, sizeof(v[0]), cmp_u64);
        return (int64_t) v[n / 2];
}

void bench_placement_note_placed(void) {
        pthread_mutex_lock(&pl.mu);
        pl.placed++;
        pthread_mutex_unlock(&pl.mu);
}

void bench_placement_status(bench_placement_status_t *ret) {
        uint64_t v[SERVED_WINDOW];
        size_t n;

        pthread_mutex_lock(&pl.mu);
        n = pl.n_served < SERVED_WINDOW ? (size_t) pl.n_served : SERVED_WINDOW;
        memcpy(v, pl.served, n * sizeof(v[0]));
        *ret = (bench_placement_status_t) {
                .socket_us = pl.socket_us,
                .served_overhead_us = -1,
                .served_samples = pl.n_served,
                .placed_in_client = pl.placed,
        };
        pthread_mutex_unlock(&pl.mu);
        if (n > 0) {
                qsort(v, n, sizeof(v[0]), cmp_u64);
                ret->served_overhead_us = (int64_t) v[n / 2];
        }
        /* The kernel's part (two messages, two wake-ups) and acceld's own
         * (decode, scheduling, the worker's hand-back, encode). */
        ret->round_trip_us = ret->socket_us < 0 ? -1
                                                : ret->socket_us + (ret->served_overhead_us > 0 ? ret->served_overhead_us : 0);
}

static bool placement_decide(const rt_settings_t *s, int64_t compute_us, const char *not_eligible, char *why,
                             size_t why_size);

bool bench_placement_decide(const rt_settings_t *s, int64_t compute_us, const char *not_eligible, char *why,
                            size_t why_size) {
        return bench_placement_decide_from(s, compute_us, NULL, not_eligible, why, why_size);
}

bool bench_placement_decide_from(const rt_settings_t *s, int64_t compute_us, const char *compute_from,
                                 const char *not_eligible, char *why, size_t why_size) {
        bool client = placement_decide(s, compute_us, not_eligible, why, why_size);
        size_t len = strlen(why);

        if (compute_from && compute_us >= 0 && len < why_size)
                (void) snprintf(why + len, why_size - len, "; compute: %s", compute_from);
        return client;
}

static bool placement_decide(const rt_settings_t *s, int64_t compute_us, const char *not_eligible, char *why,
                             size_t why_size) {
        bench_placement_config_t cfg;
        bench_placement_status_t st;
        int32_t threads;
        unsigned cpus;

        bench_placement_get_config(&cfg);
        bench_placement_status(&st);
        if (cfg.max_compute_us == 0) {
                (void) snprintf(why, why_size, "daemon: placement is off (client_placement_max_us = 0)");
                return false;
        }
        if (not_eligible && not_eligible[0]) {
                (void) snprintf(why, why_size, "daemon: %s", not_eligible);
                return false;
        }
        if (s && s->delegate != RT_DELEGATE_NONE && s->delegate != RT_DELEGATE_XNNPACK) {
                (void) snprintf(why, why_size, "daemon: the setting runs on %s, which only acceld has",
                                rt_settings_driver_name(s));
                return false;
        }
        if (s && s->delegate == RT_DELEGATE_XNNPACK && cfg.hosts_xnnpack) {
                (void) snprintf(why, why_size, "daemon: XNNPACK runs in a driver host (isolate_drivers = all)");
                return false;
        }
        if (compute_us < 0) {
                (void) snprintf(why, why_size,
                                "daemon: no measured compute time for this setting (no benchmark decision, fewer "
                                "than client_placement_min_served = %u served executions)", cfg.min_served);
                return false;
        }
        if (st.round_trip_us < 0) {
                (void) snprintf(why, why_size, "daemon: this machine's round trip is not measured yet");
                return false;
        }
        if ((uint64_t) compute_us > cfg.max_compute_us) {
                (void) snprintf(why, why_size,
                                "daemon: compute %lld us is over client_placement_max_us (%llu); round trip %lld us",
                                (long long) compute_us, (unsigned long long) cfg.max_compute_us,
                                (long long) st.round_trip_us);
                return false;
        }
        threads = s ? rt_settings_num_threads(s, 1) : 1;
        cpus = daemon_cpu_budget();
        if (threads > 0 && (unsigned) threads >= cpus) {
                /* Served, such a setting's threads hold every CPU acceld
                 * may use when its answer is ready (the caller, and pool
                 * workers that spin for the next operator or invoke), so
                 * the client waiting for it wakes onto a CPU one of them
                 * holds, or takes one from the computation with its wait:
                 * 270-550 us per invoke for hand landmark at 2 threads on
                 * this 2-vCPU VM against a 43 us ping estimate, which never
                 * sees that contention (docs/architecture.md,
                 * "Placement"). In the client the same threads run with
                 * nobody to wake. */
                (void) snprintf(why, why_size,
                                "client: compute %lld us on %d threads, as many as the %u CPU%s acceld may use: a "
                                "served answer waits for a CPU its threads hold (round trip %lld us with one idle): "
                                "runs in the client",
                                (long long) compute_us, (int) threads, cpus, cpus == 1 ? "" : "s",
                                (long long) st.round_trip_us);
                return true;
        }
        if ((double) st.round_trip_us <= cfg.max_overhead * (double) compute_us) {
                (void) snprintf(why, why_size,
                                "daemon: compute %lld us, round trip %lld us: within %g%% of compute, served",
                                (long long) compute_us, (long long) st.round_trip_us, cfg.max_overhead * 100);
                return false;
        }
        (void) snprintf(why, why_size,
                        "client: compute %lld us, round trip %lld us (over %g%% of compute): runs in the client",
                        (long long) compute_us, (long long) st.round_trip_us, cfg.max_overhead * 100);
        return true;
}

void bench_placement_instance_check(const struct daemon_instance *inst, char *why, size_t why_size) {
        /* A stateful model qualifies: placed, its state is the client's
         * own interpreter's, and ResetVariables makes it fresh as acceld
         * does (client/local.c; docs/architecture.md "Placement"). */
        why[0] = 0;
        for (size_t k = 0; k < inst->n_partitions; k++) {
                const char *d = inst->partitions[k].driver ? inst->partitions[k].driver : "";

                if (strcmp(d, "reference") != 0 && strcmp(d, "xnnpack") != 0) {
                        (void) snprintf(why, why_size, "%d nodes run on driver %s, which only acceld has",
                                        (int) inst->partitions[k].nodes, d[0] ? d : "(none)");
                        return;
                }
                if (daemon_hosts_owns(d)) {
                        (void) snprintf(why, why_size, "%d nodes run on %s in a driver host",
                                        (int) inst->partitions[k].nodes, d);
                        return;
                }
        }
}

int bench_placement_from_json(const char *json, bool *ret_daemon, bool *ret_only, char *why, size_t why_size) {
        json_object *root, *v;
        const char *p;
        int r = 0;

        *ret_daemon = *ret_only = false;
        if (!json || !json[0])
                return 0;
        root = json_tokener_parse(json);
        if (!root)
                return 0;       /* the settings parser reports it */
        if (json_object_is_type(root, json_type_object) && json_object_object_get_ex(root, "placement", &v)) {
                p = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
                if (strcasecmp(p, "daemon") == 0)
                        *ret_daemon = true;
                else if (strcasecmp(p, "auto") != 0) {
                        (void) snprintf(why, why_size, "placement: expected \"auto\" or \"daemon\"");
                        r = -EINVAL;
                }
                *ret_only = json_object_object_length(root) == 1;
        }
        json_object_put(root);
        return r;
}
