/* SPDX-License-Identifier: Apache-2.0 */
/* Temporary users and groups for multi-tenant tests (harness-users.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness-users.h"

static const char *const tool_dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };

static struct {
        pid_t creator;                  /* the process that made them: the only one that removes them */
        char group[32];
        gid_t gid;
        bool has_group;
        harness_user_t users[HARNESS_USERS_MAX];
        size_t n_users;
        bool hooked;
} state;

/* The full path of an administration tool, or NULL. */
static const char *tool_path(const char *name, char *buf, size_t size) {
        for (size_t i = 0; i < sizeof(tool_dirs) / sizeof(tool_dirs[0]); i++) {
                (void) snprintf(buf, size, "%s/%s", tool_dirs[i], name);
                if (access(buf, X_OK) == 0)
                        return buf;
        }
        return NULL;
}

/* Run a tool (argv[0] a bare name) with its output silenced; its exit
 * status, or -1. Only fork, execve and waitpid: safe from the signal
 * handler below. */
static int tool_run(char *const *argv) {
        char path[128];
        pid_t pid;
        int st;

        if (!tool_path(argv[0], path, sizeof(path)))
                return -1;
        pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                static char *const env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null >= 0) {
                        (void) dup2(null, 1);
                        (void) dup2(null, 2);
                }
                execve(path, argv, env);
                _exit(127);
        }
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool harness_users_available(char *why, size_t why_size) {
        static const char *const tools[] = { "useradd", "userdel", "groupadd", "groupdel" };
        char buf[128];

        if (geteuid() != 0) {
                if (why)
                        (void) snprintf(why, why_size, "needs root to create temporary users");
                return false;
        }
        for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
                if (!tool_path(tools[i], buf, sizeof(buf))) {
                        if (why)
                                (void) snprintf(why, why_size, "%s is not installed", tools[i]);
                        return false;
                }
        return true;
}

void harness_users_remove_all(void) {
        if (state.creator != getpid())
                return;
        for (size_t i = state.n_users; i-- > 0;) {
                char *argv[] = { "userdel", state.users[i].name, NULL };

                (void) tool_run(argv);
        }
        state.n_users = 0;
        if (state.has_group) {
                char *argv[] = { "groupdel", state.group, NULL };

                (void) tool_run(argv);
                state.has_group = false;
        }
}

static void on_signal(int sig) {
        harness_users_remove_all();
        (void) signal(sig, SIG_DFL);
        (void) raise(sig);
}

static void hook(void) {
        static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

        if (state.hooked)
                return;
        state.hooked = true;
        state.creator = getpid();
        (void) atexit(harness_users_remove_all);
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
                struct sigaction sa = { .sa_handler = on_signal };

                (void) sigemptyset(&sa.sa_mask);
                (void) sigaction(sigs[i], &sa, NULL);
        }
}

gid_t harness_users_group(void) {
        struct group *gr;

        if (state.has_group)
                return state.gid;
        if (state.hooked && state.creator != getpid()) {
                errno = EPERM;
                return (gid_t) -1;
        }
        hook();
        (void) snprintf(state.group, sizeof(state.group), "acctg%ld", (long) getpid());
        {
                char *argv[] = { "groupadd", "-r", state.group, NULL };

                if (tool_run(argv) != 0) {
                        errno = EIO;
                        return (gid_t) -1;
                }
        }
        state.has_group = true;
        gr = getgrnam(state.group);
        if (!gr) {
                errno = ENOENT;
                return (gid_t) -1;
        }
        state.gid = gr->gr_gid;
        return state.gid;
}

int harness_user_create(harness_user_t *u, const char *tag) {
        harness_user_t x = { 0 };
        struct passwd *pw;
        gid_t gid;

        if (!u || !tag || !tag[0] || strlen(tag) > 12)
                return -EINVAL;
        for (const char *c = tag; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
                        return -EINVAL;
        if (state.n_users >= HARNESS_USERS_MAX)
                return -ENOSPC;
        gid = harness_users_group();
        if (gid == (gid_t) -1)
                return -errno;
        (void) snprintf(x.name, sizeof(x.name), "acct%ld-%s", (long) getpid(), tag);
        for (size_t i = 0; i < state.n_users; i++)
                if (strcmp(state.users[i].name, x.name) == 0)
                        return -EEXIST;
        {
                char *argv[] = { "useradd", "-r", "-M", "-s", "/usr/sbin/nologin", "-g", state.group, x.name, NULL };

                if (tool_run(argv) != 0)
                        return -EIO;
        }
        /* Registered before the lookup, so a failure below still removes it. */
        state.users[state.n_users++] = x;
        pw = getpwnam(x.name);
        if (!pw)
                return -ENOENT;
        x.uid = pw->pw_uid;
        x.gid = gid;
        state.users[state.n_users - 1] = x;
        *u = x;
        return 0;
}

int harness_run_as(const harness_user_t *u, harness_as_fn fn, void *arg, void *out, size_t out_size,
                   size_t *ret_out_size) {
        int p[2], st;
        size_t got = 0;
        pid_t pid;

        if (!u || !fn || (!out && out_size > 0))
                return -1;
        if (pipe2(p, O_CLOEXEC) < 0)
                return -1;
        pid = fork();
        if (pid < 0) {
                (void) close(p[0]);
                (void) close(p[1]);
                return -1;
        }
        if (pid == 0) {
                size_t off = 0;
                int r;

                (void) close(p[0]);
                if (setgroups(1, &u->gid) < 0 || setgid(u->gid) < 0 || setuid(u->uid) < 0)
                        _exit(255);
                if (getuid() != u->uid || geteuid() != u->uid || getegid() != u->gid || setuid(0) == 0)
                        _exit(255);
                r = fn(arg, out, out_size);
                while (off < out_size) {
                        ssize_t n = write(p[1], (char *) out + off, out_size - off);

                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0)
                                break;
                        off += (size_t) n;
                }
                /* Not exit(): the parent's atexit handlers (the users'
                 * removal among them) belong to the parent. */
                _exit(r & 0xff);
        }
        (void) close(p[1]);
        while (got < out_size) {
                ssize_t n = read(p[0], (char *) out + got, out_size - got);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                got += (size_t) n;
        }
        (void) close(p[0]);
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -1;
        if (ret_out_size)
                *ret_out_size = got;
        if (!WIFEXITED(st) || WEXITSTATUS(st) == 255)
                return -1;
        return WEXITSTATUS(st);
}
