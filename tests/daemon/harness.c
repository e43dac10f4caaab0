/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "harness.h"

static const char *acceld_path, *accelctl_path;

void harness_init(int argc, char **argv) {
        if (argc < 3) {
                fprintf(stderr, "usage: %s ACCELD ACCELCTL (meson passes both)\n", argv[0]);
                exit(77);
        }
        acceld_path = argv[1];
        accelctl_path = argv[2];
}

const char *harness_acceld(void) {
        return acceld_path;
}

const char *harness_accelctl(void) {
        return accelctl_path;
}

static void sleep_ms(long ms) {
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

void harness_prepare(harness_daemon_t *d) {
        const char *tmp = getenv("TMPDIR");

        memset(d, 0, sizeof(*d));
        (void) snprintf(d->dir, sizeof(d->dir), "%s/acceld-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        ck_assert_ptr_nonnull(mkdtemp(d->dir));
        (void) snprintf(d->sock, sizeof(d->sock), "%s/acceld.sock", d->dir);
        (void) snprintf(d->state, sizeof(d->state), "%s/state", d->dir);
}

void harness_start(harness_daemon_t *d, const char *const *extra_args, const char *const *extra_env,
                   int listen_fd) {
        const char *argv[64];
        size_t n = 0;
        bool has_config = false;
        pid_t pid;

        argv[n++] = acceld_path;
        argv[n++] = "--socket";
        argv[n++] = d->sock;
        argv[n++] = "--state-dir";
        argv[n++] = d->state;
        argv[n++] = "--log-level";
        argv[n++] = "debug";
        argv[n++] = "--log-target";
        argv[n++] = "stderr";
        for (size_t i = 0; extra_args && extra_args[i]; i++)
                if (strcmp(extra_args[i], "--config") == 0)
                        has_config = true;
        if (!has_config) {
                argv[n++] = "--config";
                argv[n++] = "/dev/null";
        }
        for (size_t i = 0; extra_args && extra_args[i] && n + 1 < 64; i++)
                argv[n++] = extra_args[i];
        argv[n] = NULL;

        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                char buf[32];

                /* Never outlive a test that timed out or crashed. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                /* What a service manager would hand us, and nothing else. */
                (void) unsetenv("NOTIFY_SOCKET");
                (void) unsetenv("LISTEN_FDS");
                (void) unsetenv("LISTEN_PID");
                (void) unsetenv("WATCHDOG_USEC");
                (void) unsetenv("WATCHDOG_PID");
                (void) unsetenv("JOURNAL_STREAM");
                for (size_t i = 0; extra_env && extra_env[i]; i++)
                        (void) putenv((char *) extra_env[i]);
                if (listen_fd >= 0) {
                        if (listen_fd != 3) {
                                if (dup2(listen_fd, 3) < 0)
                                        _exit(126);
                                (void) close(listen_fd);
                        } else
                                (void) fcntl(3, F_SETFD, 0);
                        (void) snprintf(buf, sizeof(buf), "%d", (int) getpid());
                        (void) setenv("LISTEN_FDS", "1", 1);
                        (void) setenv("LISTEN_PID", buf, 1);
                }
                execv(acceld_path, (char *const *) argv);
                _exit(127);
        }
        d->pid = pid;
}

void harness_wait_ready(harness_daemon_t *d, const char *path) {
        for (int i = 0; i < 500; i++) {
                int status, fd;

                ck_assert_msg(waitpid(d->pid, &status, WNOHANG) == 0,
                              "acceld exited before answering (status 0x%x)", status);
                fd = harness_connect(path);
                if (fd >= 0) {
                        (void) close(fd);
                        return;
                }
                sleep_ms(20);
        }
        ck_abort_msg("acceld did not listen on %s within 10 s", path);
}

void harness_up(harness_daemon_t *d) {
        harness_up_with(d, NULL, false);
}

void harness_up_with(harness_daemon_t *d, const char *const *args, bool gated) {
        char gate[400];
        const char *env[2] = { gate, NULL };

        harness_prepare(d);
        (void) snprintf(gate, sizeof(gate), "ACCELD_TEST_GATE=%s/gate", d->dir);
        harness_start(d, args, gated ? env : NULL, -1);
        harness_wait_ready(d, d->sock);
}

void harness_stop(harness_daemon_t *d) {
        int st = harness_signal_and_wait(d, SIGTERM);

        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "acceld exit status %d", st);
}

void harness_resume(harness_daemon_t *d, const char *const *args) {
        harness_start(d, args, NULL, -1);
        harness_wait_ready(d, d->sock);
}

void harness_restart(harness_daemon_t *d, const char *const *args) {
        harness_stop(d);
        harness_resume(d, args);
}

static int wait_timeout(pid_t pid, int ms) {
        int status;

        for (int waited = 0; waited < ms; waited += 10) {
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return status;
                if (r < 0)
                        return -1;
                sleep_ms(10);
        }
        return -1;
}

int harness_signal_and_wait(harness_daemon_t *d, int sig) {
        int status;

        ck_assert_int_gt(d->pid, 0);
        ck_assert_int_eq(kill(d->pid, sig), 0);
        status = wait_timeout(d->pid, 15000);
        if (status == -1) {
                (void) kill(d->pid, SIGKILL);
                (void) waitpid(d->pid, NULL, 0);
        }
        d->pid = 0;
        return status;
}

int harness_wait_exit(harness_daemon_t *d) {
        int status = wait_timeout(d->pid, 10000);

        if (status == -1) {
                (void) kill(d->pid, SIGKILL);
                (void) waitpid(d->pid, NULL, 0);
        }
        d->pid = 0;
        return status;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        (void) remove(path);
        return 0;
}

void harness_cleanup(harness_daemon_t *d) {
        if (d->pid > 0) {
                (void) kill(d->pid, SIGKILL);
                (void) waitpid(d->pid, NULL, 0);
                d->pid = 0;
        }
        if (d->dir[0])
                (void) nftw(d->dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
        d->dir[0] = '\0';
}

static socklen_t fill_addr(struct sockaddr_un *sa, const char *path) {
        memset(sa, 0, sizeof(*sa));
        sa->sun_family = AF_UNIX;
        (void) snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
        return (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(sa->sun_path) + 1);
}

int harness_connect(const char *path) {
        struct sockaddr_un sa;
        socklen_t len = fill_addr(&sa, path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &sa, len) < 0) {
                int r = -errno;

                (void) close(fd);
                return r;
        }
        return fd;
}

int harness_listen(const char *path) {
        struct sockaddr_un sa;
        socklen_t len = fill_addr(&sa, path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, len), 0);
        ck_assert_int_eq(listen(fd, 16), 0);
        return fd;
}

int harness_run(const char *const *argv, char **ret_out) {
        size_t cap = 1 << 20, len = 0;
        char *out = malloc(cap + 1);
        int p[2], status;
        pid_t pid;

        ck_assert_ptr_nonnull(out);
        ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                (void) dup2(p[1], STDOUT_FILENO);
                execv(argv[0], (char *const *) argv);
                _exit(127);
        }
        (void) close(p[1]);
        for (;;) {
                ssize_t n = read(p[0], out + len, cap - len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t) n;
                if (len == cap)
                        break;
        }
        (void) close(p[0]);
        out[len] = '\0';
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        *ret_out = out;
        return status;
}

char *harness_write_file(const harness_daemon_t *d, const char *name, const void *data, size_t size) {
        char *path = NULL;
        FILE *f;

        ck_assert_int_ge(asprintf(&path, "%s/%s", d->dir, name), 0);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(data, 1, size, f), size);
        ck_assert_int_eq(fclose(f), 0);
        return path;
}
