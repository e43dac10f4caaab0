/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Driver hosts: plugin drivers out of acceld's address space.
 *
 * Each plugin runs in its own `acceld --driver-host PLUGIN.so` child (own
 * process group, no new privileges, no core dumps, killed with acceld). In
 * acceld a proxy driver with the plugin's name stands in for it, so the
 * partitioner, the fallback chain and serving are unchanged: the proxy
 * forwards supported-ops queries, prepare, execute and release over a
 * socketpair (ipc/ framing, HostRequest/HostResponse), with the model and
 * a shared-memory tensor region passed as fds.
 *
 * A host that dies or does not answer within its bound (max_execution_ms,
 * the host watchdog) is killed; the call fails with -EOWNERDEAD
 * (DEAD_OBJECT on the wire) and a message naming the driver and the
 * signal, and the FallbackSettings decide as for any driver error. A
 * request's earlier deadline only ends its own wait (-ETIME): the shared
 * host finishes the call and its answer is dropped. The next call starts a new host, after an exponential back-off
 * when it keeps dying; prepared groups are prepared again in it on their
 * next execute, so clients keep their handles.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* argv[1] of a driver-host child. */
#define DAEMON_HOST_ARG "--driver-host"
/* Its argument for a built-in driver instead of a plugin path. */
#define DAEMON_HOST_BUILTIN "builtin:"

/* Entry of the child, from main() when argv[1] is DAEMON_HOST_ARG. */
int daemon_host_main(int argc, char **argv);

/*
 * Start a host for every loadable plugin (*.so) in `dir` and register a
 * proxy driver under each plugin's name. `max_call_ms` bounds one call into
 * a host (an execution's deadline, when the driver is given one, ends the
 * caller's wait sooner, not the call). Plugins that fail to load are logged and skipped. Returns
 * how many proxies were registered, or -errno.
 */
int daemon_hosts_start(const char *dir, uint64_t max_call_ms);

/* Move the built-in XNNPACK driver into a host too (isolate_drivers = all).
 * 0 or -errno (-ENODEV without XNNPACK). */
int daemon_hosts_start_xnnpack(void);

/* Bound this thread's calls into hosts by a request's deadline
 * (CLOCK_MONOTONIC ns; 0 = only max_execution_ms) until set again. */
void daemon_hosts_set_deadline(uint64_t deadline_ns);

/* Kill every host (acceld is stopping): calls in progress fail at once and
 * later ones fail without starting a host. Safe to call twice. */
void daemon_hosts_kill(void);

/* Free everything once no call can be in progress (after the workers
 * stopped). */
void daemon_hosts_free(void);

typedef struct daemon_host_stats {
        char name[64];
        int pid;                /* 0 when not running */
        unsigned starts;        /* hosts started, the first included */
        unsigned deaths;        /* crashes and kills */
        char last_death[192];   /* "" when none */
        uint64_t tensors_in_place;      /* group tensors the host used in place */
        uint64_t tensors_copied;        /* ... and those copied through its region */
} daemon_host_stats_t;

/* Whether `driver` runs in a host. */
bool daemon_hosts_owns(const char *driver);

/* How the last host of `driver` ended: the signal (SIGKILL when acceld
 * killed it) or 0, the exit status or -1. -ENOENT for no such host. */
int daemon_hosts_last_death(const char *driver, int *ret_signal, int *ret_exit);

/* Fill up to `max` entries; returns how many hosts there are. */
size_t daemon_hosts_stats(daemon_host_stats_t *ret, size_t max);
