/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Real unprivileged users for tests that need more than one tenant (CI
 * runs as root): a temporary group and temporary system users in it,
 * created with groupadd/useradd under names unique to this test process
 * and removed with userdel/groupdel at exit (also after a failed
 * assertion, and on SIGTERM/SIGINT/SIGHUP such as a meson timeout), plus a
 * way to run a function as one of them in a forked child.
 *
 * Create the users in main() (or an unchecked fixture), before Check
 * forks the tests: only the process that created them removes them, so
 * test children exiting do not.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define HARNESS_USERS_MAX 8

typedef struct harness_user {
        char name[32];          /* "acct<pid>-<tag>" (useradd's 32-byte limit) */
        uid_t uid;
        gid_t gid;              /* primary group: harness_users_group() */
} harness_user_t;

/*
 * Whether temporary users can be made here: running as root, with
 * useradd, userdel, groupadd and groupdel present. When false, `why`
 * (may be NULL) says what is missing, for the test's SKIP message.
 */
bool harness_users_available(char *why, size_t why_size);

/*
 * The temporary group of this process ("acctg<pid>"), created on the first
 * call: every harness user has it as its primary (and only) group, so a
 * socket or directory chowned to it is what a group of clients may reach.
 * Returns its gid, or (gid_t) -1 with errno set.
 */
gid_t harness_users_group(void);

/*
 * Create the user "acct<pid>-<tag>" (tag: a few [a-z0-9] characters) with
 * `useradd -r -M -s /usr/sbin/nologin -g <group>`. Returns 0 and fills *u,
 * or -errno (-EEXIST for a tag used twice, -EIO when useradd failed).
 */
int harness_user_create(harness_user_t *u, const char *tag);

/* Remove every user and the group this process created (idempotent;
 * registered with atexit() and the signal handlers by the first create). */
void harness_users_remove_all(void);

/*
 * Run fn(arg, out, out_size) as `u` in a forked child: setgroups() to its
 * one group, setgid(), setuid() (and a check that root cannot be regained).
 * The child sends `out` (up to out_size bytes, which fn fills; may be NULL
 * with size 0) back through a pipe and exits with fn's return value.
 * Check assertions inside fn fail the calling test as usual.
 * Returns fn's return value (0..255), or -1 when the child did not exit
 * normally or could not change its identity; *ret_out_size (may be NULL)
 * receives the number of bytes fn's child sent.
 */
typedef int (*harness_as_fn)(void *arg, void *out, size_t out_size);
int harness_run_as(const harness_user_t *u, harness_as_fn fn, void *arg, void *out, size_t out_size,
                   size_t *ret_out_size);
