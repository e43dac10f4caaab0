/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integration-test harness: runs the real acceld (path from argv[1]) in a
 * temporary directory and cleans up after it. accelctl's path is argv[2].
 * Each test starts its own daemon inside Check's forked test process.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

typedef struct harness_daemon {
        pid_t pid;              /* 0 when not running */
        char dir[256];          /* temporary directory, removed by harness_cleanup */
        char sock[320];         /* dir/acceld.sock */
        char state[320];        /* dir/state (not created: acceld must create it) */
} harness_daemon_t;

/* Remember argv[1] (acceld) and argv[2] (accelctl). Exits 77 (skip) when
 * they are missing. */
void harness_init(int argc, char **argv);
const char *harness_acceld(void);
const char *harness_accelctl(void);

/* Make the temporary directory and fill the paths. Aborts the test on failure. */
void harness_prepare(harness_daemon_t *d);

/*
 * Start acceld with --socket d->sock --state-dir d->state --log-level debug
 * and, unless extra_args has its own --config, --config /dev/null; then
 * `extra_args` (NULL-terminated, may be NULL). `extra_env` ("K=V",
 * NULL-terminated, may be NULL) is put into the child's environment. With
 * listen_fd >= 0 the child gets it as fd 3 plus LISTEN_FDS=1 and
 * LISTEN_PID=<its own pid>, set after fork and before exec.
 */
void harness_start(harness_daemon_t *d, const char *const *extra_args, const char *const *extra_env,
                   int listen_fd);

/* Wait (up to 10 s) until `path` accepts a connection. Fails the test if
 * acceld exits first. */
void harness_wait_ready(harness_daemon_t *d, const char *path);

/* Convenience: prepare + start + wait on d->sock. */
void harness_up(harness_daemon_t *d);

/* The same with `args` (NULL-terminated, may be NULL); `gated` puts
 * ACCELD_TEST_GATE=<d->dir>/gate into its environment (acceld-test's
 * AcceldTestGate op blocks while that file is absent). */
void harness_up_with(harness_daemon_t *d, const char *const *args, bool gated);

/* SIGTERM and wait; fails the test unless acceld exits with status 0. */
void harness_stop(harness_daemon_t *d);

/* Start a stopped daemon again on the same directory (the state dir
 * survives) with `args`, and wait until it is ready. */
void harness_resume(harness_daemon_t *d, const char *const *args);

/* harness_stop() + harness_resume(). */
void harness_restart(harness_daemon_t *d, const char *const *args);

/* Send `sig` and wait (up to 15 s) for the exit; returns the wait status. */
int harness_signal_and_wait(harness_daemon_t *d, int sig);

/* Wait for acceld to exit by itself (up to 10 s); returns the wait status,
 * or -1 on timeout (the process is then killed). */
int harness_wait_exit(harness_daemon_t *d);

/* Kill a still-running acceld and remove the temporary directory. */
void harness_cleanup(harness_daemon_t *d);

/* A blocking connection to `path`; -errno on failure. */
int harness_connect(const char *path);

/* A listening AF_UNIX stream socket bound to `path`. Aborts on failure. */
int harness_listen(const char *path);

/* Write size bytes of data to d->dir/name; the path (malloc'ed) is returned.
 * Fails the test on error. */
char *harness_write_file(const harness_daemon_t *d, const char *name, const void *data, size_t size);

/*
 * Run `argv` (argv[0] a path), capturing stdout (up to 1 MiB, NUL
 * terminated, caller frees). Returns the wait status.
 */
int harness_run(const char *const *argv, char **ret_out);
