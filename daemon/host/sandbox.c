/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox of driver hosts and benchmark workers (sandbox.h). The order
 * in daemon_sandbox_enter() matters: fds first (nothing later may use an
 * inherited one), then the mount namespace (it needs the privilege the
 * identity step gives up), then the identity, then no_new_privs and the
 * seccomp filter, which also forbids undoing the mounts.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <seccomp.h>

#include "sandbox.h"

/* <linux/mount.h> clashes with glibc's <sys/mount.h>: the two values and
 * the struct mount_setattr(2) takes. */
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x00000002
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* <sanitizer/common_interface_defs.h> */
void __sanitizer_set_report_fd(void *fd);
#endif
/* LeakSanitizer checks at exit from a tracer task that ptraces this
 * process: under ASan the child stays dumpable and may call ptrace (acceld
 * itself stays out of reach: another uid, or non-dumpable). */
#ifdef __SANITIZE_ADDRESS__
#define SANDBOX_DUMPABLE 1
#else
#define SANDBOX_DUMPABLE 0
#endif

typedef struct sandbox_mount_attr {
        uint64_t attr_set, attr_clr, propagation, userns_fd;
} sandbox_mount_attr_t;

static int fail(int r, char *err, size_t err_size, const char *what) {
        snprintf(err, err_size, "%s: %s", what, strerror(-r));
        return r;
}

/* ---- acceld's side ---- */

int daemon_sandbox_init(const char *state_dir, const char *weights_dir) {
        if (!state_dir || !state_dir[0])
                return -EINVAL;
        /* Same-uid processes (a host in a user namespace keeps acceld's
         * uid) can no longer open /proc/<acceld>/fd/... or attach to it. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                return -errno;
        if (weights_dir && weights_dir[0] && mkdir(weights_dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        if (setenv(DAEMON_SANDBOX_ENV_STATE, state_dir, 1) < 0 ||
            setenv(DAEMON_SANDBOX_ENV_WEIGHTS, weights_dir ? weights_dir : "", 1) < 0)
                return -errno;
        if (geteuid() == 0) {
                /* Looked up once here: NSS (nss-systemd's dlopen) in every
                 * child would cost tens of milliseconds per start. */
                const struct passwd *pw = getpwnam(DAEMON_SANDBOX_USER);
                char ids[64];

                (void) snprintf(ids, sizeof(ids), "%u:%u",
                                pw ? (unsigned) pw->pw_uid : DAEMON_SANDBOX_FALLBACK_ID,
                                pw ? (unsigned) pw->pw_gid : DAEMON_SANDBOX_FALLBACK_ID);
                if (setenv(DAEMON_SANDBOX_ENV_IDS, ids, 1) < 0)
                        return -errno;
        }
        return 0;
}

daemon_sandbox_mode_t daemon_sandbox_mode(void) {
        return geteuid() == 0 ? DAEMON_SANDBOX_UID : DAEMON_SANDBOX_USERNS;
}

/* ---- fds ---- */

static int close_from_to(unsigned lo, unsigned hi) {
        if (lo > hi)
                return 0;
        return syscall(SYS_close_range, lo, hi, 0) < 0 ? -errno : 0;
}

/* Close every fd not in keep (any order, duplicates allowed). */
static int fds_close_others(const int *keep, size_t n_keep) {
        int sorted[16];
        unsigned lo = 0;
        size_t n = 0;
        int r;

        if (n_keep > sizeof(sorted) / sizeof(sorted[0]))
                return -E2BIG;
        for (size_t i = 0; i < n_keep; i++) {
                size_t j = n;
                if (keep[i] < 0)
                        continue;
                while (j > 0 && sorted[j - 1] > keep[i]) {
                        sorted[j] = sorted[j - 1];
                        j--;
                }
                sorted[j] = keep[i];
                n++;
        }
        for (size_t i = 0; i < n; i++) {
                if ((unsigned) sorted[i] > lo && (r = close_from_to(lo, (unsigned) sorted[i] - 1)) < 0)
                        return r;
                if ((unsigned) sorted[i] + 1 > lo)
                        lo = (unsigned) sorted[i] + 1;
        }
        return close_from_to(lo, ~0u);
}

/* ---- the file system the child sees ---- */

static int file_write(const char *path, const char *text) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        ssize_t n;
        int r = 0;

        if (fd < 0)
                return -errno;
        n = write(fd, text, strlen(text));
        if (n < 0)
                r = -errno;
        else if ((size_t) n != strlen(text))
                r = -EIO;
        (void) close(fd);
        return r;
}

/* mkdir -p of `path`'s components below `top` (which exists). */
static int dirs_make(const char *top, const char *path) {
        char buf[4096];
        size_t n = strlen(top);

        if (snprintf(buf, sizeof(buf), "%s", path) >= (int) sizeof(buf))
                return -ENAMETOOLONG;
        for (char *s = buf + n + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = 0;
                if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        return mkdir(buf, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/*
 * In a new mount namespace (the caller made one): every mount read-only
 * and nosuid, acceld's state directory replaced by an empty tmpfs in which
 * only the weights cache directory (when it exists) is bound back, so the
 * database, the stored models and the cache's key are not there at all.
 * Mounts stay private: nothing propagates back to acceld's namespace.
 */
static int view_make(char *err, size_t err_size) {
        const char *state = getenv(DAEMON_SANDBOX_ENV_STATE), *weights = getenv(DAEMON_SANDBOX_ENV_WEIGHTS);
        sandbox_mount_attr_t attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID };
        size_t n_state = state ? strlen(state) : 0;
        bool bind = false;
        int wfd = -1, r = 0;
        char src[64];

        if (!state || state[0] != '/') {
                snprintf(err, err_size, "no state directory in $%s (the child was not started by acceld)",
                         DAEMON_SANDBOX_ENV_STATE);
                return -EINVAL;
        }
        if (weights && strncmp(weights, state, n_state) == 0 && weights[n_state] == '/') {
                wfd = open(weights, O_PATH | O_DIRECTORY | O_CLOEXEC);
                bind = wfd >= 0;
        }
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                r = fail(-errno, err, err_size, "making the mounts private");
                goto out;
        }
        if (mount("acceld-sandbox", state, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=64k") < 0) {
                r = fail(-errno, err, err_size, "hiding the state directory");
                goto out;
        }
        if (bind) {
                (void) snprintf(src, sizeof(src), "/proc/self/fd/%d", wfd);
                if ((r = dirs_make(state, weights)) < 0) {
                        r = fail(r, err, err_size, "the weights cache mount point");
                        goto out;
                }
                if (mount(src, weights, NULL, MS_BIND, NULL) < 0) {
                        r = fail(-errno, err, err_size, "binding the weights cache");
                        goto out;
                }
        }
        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr)) < 0)
                r = fail(-errno, err, err_size, "making the file system read-only");
out:
        if (wfd >= 0)
                (void) close(wfd);
        return r;
}

/* ---- identity ---- */

/* acceld is root: a private mount namespace, then acceld-driver (or
 * nobody), which ends every capability. */
static int identity_drop_uid(char *err, size_t err_size) {
        const char *ids = getenv(DAEMON_SANDBOX_ENV_IDS);
        unsigned u = DAEMON_SANDBOX_FALLBACK_ID, g = DAEMON_SANDBOX_FALLBACK_ID;
        uid_t uid;
        gid_t gid;
        int r;

        if (ids && sscanf(ids, "%u:%u", &u, &g) != 2) {
                snprintf(err, err_size, "$%s is not uid:gid", DAEMON_SANDBOX_ENV_IDS);
                return -EINVAL;
        }
        uid = (uid_t) u;
        gid = (gid_t) g;
        if (uid == 0 || gid == 0) {
                snprintf(err, err_size, "user %s is root", DAEMON_SANDBOX_USER);
                return -EPERM;
        }
        if (unshare(CLONE_NEWNS) < 0)
                return fail(-errno, err, err_size, "unshare(CLONE_NEWNS)");
        if ((r = view_make(err, err_size)) < 0)
                return r;
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                return fail(-errno, err, err_size, "dropping to the driver user");
        if (setresuid(0, 0, 0) == 0) {
                snprintf(err, err_size, "could take uid 0 back");
                return -EPERM;
        }
        return 0;
}

/* acceld is unprivileged: a user namespace, only to own the mount
 * namespace the view needs (the kernel still sees acceld's uid: that is
 * why the view, not the uid, keeps the child out of the state directory),
 * then no capability at all. */
static int identity_userns(char *err, size_t err_size) {
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct none[2] = { { 0 } };
        uid_t uid = geteuid();
        gid_t gid = getegid();
        char map[64];
        int r;

        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                return fail(-errno, err, err_size, "unshare(CLONE_NEWUSER | CLONE_NEWNS)");
        (void) snprintf(map, sizeof(map), "%u %u 1\n", (unsigned) uid, (unsigned) uid);
        if ((r = file_write("/proc/self/setgroups", "deny\n")) < 0 ||
            (r = file_write("/proc/self/uid_map", map)) < 0)
                return fail(r, err, err_size, "mapping the user namespace");
        (void) snprintf(map, sizeof(map), "%u %u 1\n", (unsigned) gid, (unsigned) gid);
        if ((r = file_write("/proc/self/gid_map", map)) < 0)
                return fail(r, err, err_size, "mapping the user namespace");
        if ((r = view_make(err, err_size)) < 0)
                return r;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 ||
            syscall(SYS_capset, &hdr, none) < 0)
                return fail(-errno, err, err_size, "dropping the namespace's capabilities");
        return 0;
}

/* ---- seccomp ---- */

/*
 * A denylist, not an allowlist (docs/architecture.md says why: a real
 * accelerator driver needs its device's ioctls, mmaps and threads, which no
 * list of ours can foresee). Refused with EPERM, so a driver that tries
 * gets an error, not a kill:
 * new sockets (acceld's own socket), exec, debugging and reading other
 * processes, signals to any process but this one, namespaces and mounts
 * (which would undo the view), kernel modules, BPF, perf, keyrings,
 * io_uring (its requests bypass this filter), and handles that reopen
 * files by inode.
 */
static int filter_load(void) {
        static const int denied[] = {
                SCMP_SYS(socket),            SCMP_SYS(socketpair),        SCMP_SYS(execve),
                SCMP_SYS(execveat),          SCMP_SYS(ptrace),            SCMP_SYS(process_vm_readv),
                SCMP_SYS(process_vm_writev), SCMP_SYS(kcmp),              SCMP_SYS(pidfd_getfd),
                SCMP_SYS(pidfd_send_signal), SCMP_SYS(tkill),             SCMP_SYS(mount),
                SCMP_SYS(umount2),           SCMP_SYS(pivot_root),        SCMP_SYS(chroot),
                SCMP_SYS(setns),             SCMP_SYS(unshare),           SCMP_SYS(mount_setattr),
                SCMP_SYS(move_mount),        SCMP_SYS(open_tree),         SCMP_SYS(fsopen),
                SCMP_SYS(fsconfig),          SCMP_SYS(fsmount),           SCMP_SYS(fspick),
                SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at), SCMP_SYS(reboot),
                SCMP_SYS(kexec_load),        SCMP_SYS(kexec_file_load),   SCMP_SYS(init_module),
                SCMP_SYS(finit_module),      SCMP_SYS(delete_module),     SCMP_SYS(bpf),
                SCMP_SYS(perf_event_open),   SCMP_SYS(keyctl),            SCMP_SYS(add_key),
                SCMP_SYS(request_key),       SCMP_SYS(swapon),            SCMP_SYS(swapoff),
                SCMP_SYS(userfaultfd),       SCMP_SYS(io_uring_setup),    SCMP_SYS(io_uring_enter),
                SCMP_SYS(io_uring_register), SCMP_SYS(acct),              SCMP_SYS(quotactl),
        };
        /* Namespace flags clone() must not carry. */
        static const uint64_t ns_flags[] = {
                CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
        };
        /* Signals: to this process only (abort(), raise(), pthread_kill()). */
        static const int signalling[] = {
                SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo),
        };
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        uint64_t self = (uint64_t) getpid();
        int r = 0;

        if (!ctx)
                return -ENOMEM;
        for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]) && r == 0; i++)
                if (!SANDBOX_DUMPABLE || denied[i] != SCMP_SYS(ptrace))
                        r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
        for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]) && r == 0; i++)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
        /* clone3's flags sit in memory a filter cannot read: ENOSYS makes
         * glibc fall back to clone(), whose flags it can. */
        if (r == 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        for (size_t i = 0; i < sizeof(signalling) / sizeof(signalling[0]) && r == 0; i++)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), signalling[i], 1,
                                     SCMP_A0(SCMP_CMP_NE, self));
        if (r == 0)
                r = seccomp_load(ctx);
        seccomp_release(ctx);
        return r;
}

/* ---- the child ---- */

int daemon_sandbox_enter(const int *keep, size_t n_keep, char *err, size_t err_size) {
        pid_t parent = getppid();
        int r = fds_close_others(keep, n_keep);

        if (r < 0)
                return fail(r, err, err_size, "closing the fds not handed over");
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        /* A sanitizer's log_path is no longer writable here (read-only
         * view, another uid): its reports go to stderr, acceld's. */
        __sanitizer_set_report_fd((void *) (intptr_t) 2);
#endif
        if (daemon_sandbox_mode() == DAEMON_SANDBOX_UID)
                r = identity_drop_uid(err, err_size);
        else
                r = identity_userns(err, err_size);
        if (r < 0)
                return r;
        /* A change of credentials clears the parent-death signal the
         * spawner set: without it again a host would outlive acceld (and
         * keep acceld's stderr open). acceld may have died meanwhile. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                return fail(-errno, err, err_size, "prctl(PR_SET_PDEATHSIG)");
        if (getppid() != parent)
                return fail(-ESRCH, err, err_size, "acceld exited while the sandbox was set up");
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, SANDBOX_DUMPABLE, 0, 0, 0) < 0)
                return fail(-errno, err, err_size, "prctl");
        r = filter_load();
        if (r < 0)
                return fail(r, err, err_size, "loading the seccomp filter");
        return 0;
}
