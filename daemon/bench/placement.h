/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Placement: whether a prepared model runs in acceld (served: one request
 * round trip per invoke) or in the client's own process (libaccel runs
 * acceld's runtime with the settings acceld chose), as Android NNAPI runs
 * its CPU path inside the app and sends work to a driver service only when
 * that pays (docs/architecture.md, "Placement").
 *
 * acceld decides, from two measurements:
 *   compute     the chosen setting's median inference time, from its
 *               mini-benchmark (the decision's END event; the median of its
 *               round medians when it was confirmed in rounds); for
 *               settings no decision covers (the client's own settings,
 *               or no benchmark yet), the median compute of the
 *               instance's latest served executions, once there are
 *               min_served of them (config client_placement_min_served;
 *               0, the default: such settings are always served);
 *   round trip  this machine's cost of one request: a socket ping-pong
 *               between two threads, measured after each mini-benchmark,
 *               plus the median in-daemon overhead of served Execute
 *               requests (receipt to reply, minus compute).
 * A model runs in the client when its setting has as many threads as the
 * CPUs acceld may use (daemon_cpu_budget(): served, its threads hold every
 * CPU when the answer is ready, a cost the round trip never sees), or when
 * the round trip is more than
 * max_overhead (client_placement_max_overhead) of its compute; and its
 * compute is at most max_compute_us (config client_placement_max_us; 0 =
 * placement off; the default, 10 ms, is where this machine's socket round
 * trip of about 100 us falls to 1% of compute: above it only a round trip
 * of over 300 us, a loaded machine's, would move a model out of acceld,
 * which shares its weights, CPU budget and isolation), and
 * only when every group of its plan runs on a built-in driver in acceld's
 * process (no plugin driver, no driver host: the client has neither).
 * Thread-safe: the loop notes served requests, the storage thread and the
 * scheduler's workers decide.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings.h"

struct daemon_instance;

typedef struct bench_placement_config {
        uint64_t max_compute_us;        /* 0: placement off */
        double max_overhead;            /* fraction of compute */
        bool hosts_xnnpack;             /* isolate_drivers = all: XNNPACK runs in a host */
        uint32_t min_served;            /* served executions before settings no decision covers
                                         * are placed; 0: never */
} bench_placement_config_t;

/* The defaults of the two config keys. */
#define BENCH_PLACEMENT_DEFAULT_MAX_US 10000
/* The default of client_placement_min_served: settings no decision
 * covers stay served (docs/architecture.md, "Placement"). */
#define BENCH_PLACEMENT_DEFAULT_MIN_SERVED 0
#define BENCH_PLACEMENT_DEFAULT_MAX_OVERHEAD 0.01

void bench_placement_configure(const bench_placement_config_t *c);
void bench_placement_get_config(bench_placement_config_t *ret);

/* Measure the socket round trip now and keep it: the larger of the
 * median of 200 back-to-back ping-pongs between this thread and a helper
 * and the median of 40 that the helper answers after 1 ms of busy work
 * (less that work; about 45 ms in all). Returns it in microseconds, or a
 * negative errno. */
int64_t bench_placement_measure(void);

#define BENCH_PLACEMENT_PINGS 200
#define BENCH_PLACEMENT_DELAYED_PINGS 40
#define BENCH_PLACEMENT_DELAY_NS 1000000ull

typedef struct bench_placement_pings {
        int64_t quick_us;               /* median of the back-to-back pings */
        int64_t delayed_us;             /* median of the delayed ones, less the busy work */
        int64_t delayed_min_raw_us;     /* the shortest delayed one, busy work included */
        uint64_t busy_answers;          /* answers the helper gave after busy work */
} bench_placement_pings_t;

/* bench_placement_measure() with the delayed pings' busy work lasting
 * delay_ns; *ret (may be NULL) receives both medians. Returns (and keeps)
 * the larger. */
int64_t bench_placement_measure_pings(uint64_t delay_ns, bench_placement_pings_t *ret);

/* A served Execute: its in-daemon overhead (receipt to reply, minus
 * compute). Called on the loop; cheap. */
void bench_placement_note_served(uint64_t overhead_us);

/* A served execution (one, not a batch) of instance `instance_key`
 * ("<sha256>|<settings key>", daemon_instance_t.key) computed in
 * compute_us. Any thread; cheap (a new instance allocates its entry). */
void bench_placement_note_compute(const char *instance_key, uint64_t compute_us);

/* The median compute of the latest (at most 16) served executions of
 * instance_key, or -1 with fewer than the configured min_served (or
 * min_served 0); *ret_n
 * (may be NULL) receives how many it is from. */
int64_t bench_placement_served_compute_us(const char *instance_key, size_t *ret_n);

/* Note a prepare answered with placement CLIENT (GetStatus counts them). */
void bench_placement_note_placed(void);

typedef struct bench_placement_status {
        int64_t socket_us;              /* -1: not measured yet */
        int64_t served_overhead_us;     /* -1: no served request yet */
        uint64_t served_samples;
        int64_t round_trip_us;          /* the estimate decisions use, -1: none */
        uint64_t placed_in_client;
} bench_placement_status_t;

void bench_placement_status(bench_placement_status_t *ret);

/*
 * Decide for a model whose chosen setting `s` computes in compute_us (-1:
 * unknown). `not_eligible` (may be NULL or "") is why the model cannot run
 * in the client whatever its timing (plugin driver, driver host, forced
 * by the settings). Writes "client: compute 6 us, round trip 80 us ..." or
 * "daemon: ..." into why and returns true for the client.
 */
bool bench_placement_decide(const rt_settings_t *s, int64_t compute_us, const char *not_eligible, char *why,
                            size_t why_size);

/* The same, saying where compute_us comes from ("the median of 8 served
 * executions"; NULL: the benchmark decision) in why. */
bool bench_placement_decide_from(const rt_settings_t *s, int64_t compute_us, const char *compute_from,
                                 const char *not_eligible, char *why, size_t why_size);

/* Why instance `inst` cannot run in a client ("" when it can): a group on
 * a plugin driver or in a driver host. */
void bench_placement_instance_check(const struct daemon_instance *inst, char *why, size_t why_size);

/*
 * The "placement" key of a PrepareModel settings JSON: *ret_daemon is true
 * for "daemon" (the model is always served), *ret_only when it is the only
 * key (the rest is the daemon's choice, as with no settings). Returns 0,
 * -EINVAL (a placement that is not "auto" or "daemon", with why).
 */
int bench_placement_from_json(const char *json, bool *ret_daemon, bool *ret_only, char *why, size_t why_size);
