/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox of acceld's children that run foreign code: driver hosts
 * (host-main.c) and benchmark workers (bench/worker.c). Such a child runs
 * with less than acceld has (docs/architecture.md, "The sandbox of driver
 * hosts and benchmark workers"):
 *
 *   - another identity: when acceld runs as root, the child drops to the
 *     user "acceld-driver" (packaging/sysusers.d; "nobody", 65534, when
 *     absent); when acceld runs unprivileged, the child enters a new user
 *     and mount namespace in which the whole file system is read-only and
 *     acceld's state directory is an empty tmpfs holding only the weights
 *     cache, bound read-only. Either way it can neither write the state
 *     directory nor open acceld.db, and it keeps no capability.
 *   - only the fds it was handed: every other one is closed.
 *   - no new privileges, not dumpable (neither acceld nor a sibling can be
 *     read through /proc), and a seccomp filter (sandbox_filter_load()).
 *
 * acceld itself calls daemon_sandbox_init() once at start-up; it makes
 * acceld non-dumpable, so that no process of its uid can open
 * /proc/<acceld>/fd/... or ptrace it, and tells the children (through the
 * environment, before any thread exists) which directory to hide.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The user hosts and workers run as when acceld runs as root. */
#define DAEMON_SANDBOX_USER "acceld-driver"
/* Its fallback when that user does not exist. */
#define DAEMON_SANDBOX_FALLBACK_ID 65534
/* Environment of the children: acceld's state directory, and its weights
 * cache directory (empty when the cache is off). */
#define DAEMON_SANDBOX_ENV_STATE "ACCELD_SANDBOX_STATE_DIR"
#define DAEMON_SANDBOX_ENV_WEIGHTS "ACCELD_SANDBOX_WEIGHTS_DIR"
/* ... and, when acceld is root, "uid:gid" of DAEMON_SANDBOX_USER (looked up
 * once by acceld; the fallback when absent). */
#define DAEMON_SANDBOX_ENV_IDS "ACCELD_SANDBOX_IDS"

typedef enum daemon_sandbox_mode {
        DAEMON_SANDBOX_UID,             /* acceld is root: another uid */
        DAEMON_SANDBOX_USERNS,          /* acceld is not: user + mount namespace */
        _DAEMON_SANDBOX_MAX,
} daemon_sandbox_mode_t;

/*
 * acceld, at start-up, from the main thread before any other thread or
 * child exists: make acceld non-dumpable and export `state_dir`,
 * `weights_dir` (NULL: no weights cache) and, when acceld is root, the
 * driver user's ids to the children; the weights
 * directory is created (0700) when missing, so that a child started
 * before the first model can already bind it. 0 or -errno.
 */
int daemon_sandbox_init(const char *state_dir, const char *weights_dir);

/*
 * A child, right after exec and before any plugin code (its constructors
 * included) runs: close every fd but keep[0..n_keep), take the identity
 * described above, set no_new_privs and non-dumpable, load the seccomp
 * filter. On failure the child must exit: the message in err says which
 * step failed. 0 or -errno.
 */
int daemon_sandbox_enter(const int *keep, size_t n_keep, char *err, size_t err_size);

/* The mode daemon_sandbox_enter() took, or would take, in this process. */
daemon_sandbox_mode_t daemon_sandbox_mode(void);
