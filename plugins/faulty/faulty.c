/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `faulty` test driver plugin. It runs float32 ADD (same shapes, fused
 * activation NONE) and misbehaves as its settings say
 * ("plugin_settings": {"mode": "...", "delay_ms": N}):
 *
 *   none             correct results
 *   crash-in-prepare SIGSEGV (raised) while preparing
 *   crash-in-execute SIGSEGV while executing
 *   hang             never returns from execute
 *   wrong-outputs    every output element is off by +1
 *   slow             sleeps delay_ms (default 200) per execute, then correct
 *   error-in-prepare prepare returns -EIO (exercises FallbackSettings)
 *   error-in-execute execute returns -EIO
 *   error-at-node    prepare of a group holding node "node" (default 0)
 *                    fails with -ENOTSUP naming that node (driver ABI 3),
 *                    other groups prepare and run correctly
 *   escape           execute tries what a hostile driver would, and fails
 *                    with one line saying what was allowed: a socket, an
 *                    exec, and (the process that started it is taken for
 *                    acceld, "state_dir" for its state directory) writing
 *                    the state directory, weights/ and models/, opening
 *                    acceld.db, acceld's fds through /proc (and shrinking
 *                    its memfds), its memory, ptrace and signals, shrinking
 *                    a weights-cache file, uid 0, and any fd above
 *                    "handed_fds" (default 3). The message ends with
 *                    "; allowed: NAME, ... (or none); refused: NAME=ERRNO, ...".
 *
 * "device_lock": 1 makes the driver serialize on one device, as vendor
 * drivers do: its executes hold the device while they run (a hang holds
 * it for good) and its releases wait for it.
 *
 * Later work uses it to prove crash isolation and output validation.
 *
 * It is also the example of an out-of-tree plugin: it needs nothing but
 * the installed driver ABI (<accel/driver.h>) and libc, and builds with
 *   cc -std=c11 -Wall -Wextra -fPIC -shared -I<includedir> faulty.c
 * (tests/runtime/drivers/check-abi-header.sh does exactly that).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fork, pause, nanosleep, socket under -std=c11 */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <accel/driver.h>

#ifndef FAULTY_ABI_VERSION
#define FAULTY_ABI_VERSION RT_DRIVER_ABI_VERSION
#endif
#ifndef FAULTY_NAME
#define FAULTY_NAME "faulty"
#endif

typedef enum mode {
        MODE_NONE,
        MODE_CRASH_PREPARE,
        MODE_CRASH_EXECUTE,
        MODE_HANG,
        MODE_WRONG,
        MODE_SLOW,
        MODE_ERROR_PREPARE,
        MODE_ERROR_EXECUTE,
        MODE_ESCAPE,
        MODE_ERROR_NODE,
} mode_t_;

typedef struct prepared {
        mode_t_ mode;
        long delay_ms;
        char state_dir[1024];   /* escape: acceld's state directory, or "" */
        long handed;            /* escape: the highest fd the process was handed */
        int32_t *nodes;
        int32_t n_nodes;
        bool device_lock;       /* execute holds the device, release waits for it */
} prepared_t;

/* Executes with device_lock running now (in this process). */
static int device_users;

static void device_wait(void) {
        struct timespec ts = { 0, 10 * 1000000L };

        while (__atomic_load_n(&device_users, __ATOMIC_ACQUIRE) > 0)
                (void) nanosleep(&ts, NULL);
}

/* The string value of "key" in flat JSON text, copied into buf. */
static bool json_str(const char *json, const char *key, char *buf, size_t size) {
        char pat[64];
        snprintf(pat, sizeof(pat), "\"%s\"", key);
        const char *p = json ? strstr(json, pat) : NULL;
        if (!p)
                return false;
        p = strchr(p + strlen(pat), ':');
        if (!p)
                return false;
        p++;
        while (*p == ' ')
                p++;
        if (*p == '"') {
                /* JSON writers may escape '/' as "\/" (json-c does). */
                size_t n = 0;
                for (p++; *p && *p != '"' && n + 1 < size; p++)
                        if (!(p[0] == '\\' && p[1] == '/'))
                                buf[n++] = *p;
                buf[n] = 0;
                return true;
        }
        size_t n = 0;
        while (p[n] && p[n] != ',' && p[n] != '}' && n + 1 < size)
                n++;
        memcpy(buf, p, n);
        buf[n] = 0;
        return true;
}

/* ---- escape ---- */

/* What the escape tried: the allowed ones first, so that a short error
 * buffer (a benchmark candidate's) still holds them. */
typedef struct report {
        char allowed[512], refused[1024];
} report_t;

static void report_cat(char *buf, size_t size, const char *text) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s", len ? ", " : "", text);
}

static void report_add(report_t *rp, const char *name, int err) {
        char item[128];
        if (!err) {
                report_cat(rp->allowed, sizeof(rp->allowed), name);
                return;
        }
        snprintf(item, sizeof(item), "%s=%s", name, strerrorname_np(err) ? strerrorname_np(err) : "?");
        report_cat(rp->refused, sizeof(rp->refused), item);
}

/* Create a file (removed again when it worked): 0 or the errno. */
static int try_create(const char *dir, const char *name) {
        char path[4096 + 64];
        int fd;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
                return errno;
        close(fd);
        (void) unlink(path);
        return 0;
}

static int try_open(const char *path, int flags) {
        int fd = open(path, flags | O_CLOEXEC);
        if (fd < 0)
                return errno;
        close(fd);
        return 0;
}

/* acceld's fds through /proc: 0 when one opened (and its memfds are
 * shrunk, as the attack did), else the first errno. */
static int try_proc_fds(pid_t pid) {
        char path[64], target[256];
        DIR *d;
        struct dirent *de;
        int err = ENOENT;
        snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);
        d = opendir(path);
        if (!d)
                return errno;
        while ((de = readdir(d))) {
                char fpath[320];
                ssize_t n;
                int fd;
                if (de->d_name[0] == '.')
                        continue;
                snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
                n = readlink(fpath, target, sizeof(target) - 1);
                target[n > 0 ? n : 0] = 0;
                fd = open(fpath, O_RDWR | O_CLOEXEC);
                if (fd < 0) {
                        if (err == ENOENT)
                                err = errno;
                        continue;
                }
                err = 0;
                if (strncmp(target, "/memfd:", 7) == 0)
                        (void) ftruncate(fd, 0);
                close(fd);
        }
        closedir(d);
        return err;
}

/* A weights-cache file shrunk under acceld's mappings: 0 when one could
 * be opened for writing, else the errno (of the directory when it cannot
 * be listed). */
static int try_wcache_truncate(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        int err = ENOENT;
        if (!d)
                return errno;
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                char path[4096 + 256];
                int fd;
                if (len < 4 || strcmp(de->d_name + len - 4, ".acw") != 0)
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                fd = open(path, O_RDWR | O_CLOEXEC);
                if (fd < 0) {
                        err = errno;
                        continue;
                }
                err = ftruncate(fd, 4096) < 0 ? errno : 0;
                close(fd);
                if (!err)
                        break;
        }
        closedir(d);
        return err;
}

/* The fds open beyond 0..handed, with what they are: allowed, except the
 * weights-cache directory a host opens itself (read-only) and the request's
 * shared regions (memfds acceld hands with each execute). */
static void fds_report(report_t *rp, long handed) {
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        if (!d) {
                report_add(rp, "fd-list", errno);
                return;
        }
        while ((de = readdir(d))) {
                char path[320], target[256], item[300];
                ssize_t k;
                int fd = atoi(de->d_name);
                size_t len;
                if (de->d_name[0] == '.' || fd == dirfd(d) || fd <= handed)
                        continue;
                snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
                k = readlink(path, target, sizeof(target) - 1);
                target[k > 0 ? k : 0] = 0;
                len = strlen(target);
                if ((len >= 8 && strcmp(target + len - 8, "/weights") == 0) || strncmp(target, "/memfd:", 7) == 0)
                        continue;
                snprintf(item, sizeof(item), "fd %d (%s)", fd, target);
                report_add(rp, item, 0);
        }
        closedir(d);
}

static void escape_more(report_t *rp, const char *state, long handed) {
        pid_t acceld = getppid();
        char path[1100];
        int e;

        if (state[0]) {
                report_add(rp, "state-create", try_create(state, "escape"));
                snprintf(path, sizeof(path), "%s/weights", state);
                report_add(rp, "weights-create", try_create(path, "0123456789abcdef.acw"));
                report_add(rp, "weights-truncate", try_wcache_truncate(path));
                snprintf(path, sizeof(path), "%s/models", state);
                e = mkdir(path, 0700) == 0 ? 0 : errno;
                if (e == 0)
                        (void) rmdir(path);
                report_add(rp, "models-create", e == EEXIST ? try_create(path, "escape") : e);
                snprintf(path, sizeof(path), "%s/acceld.db", state);
                report_add(rp, "db-write", try_open(path, O_RDWR));
                report_add(rp, "db-read", try_open(path, O_RDONLY));
        }
        report_add(rp, "proc-fds", try_proc_fds(acceld));
        snprintf(path, sizeof(path), "/proc/%d/mem", (int) acceld);
        report_add(rp, "proc-mem", try_open(path, O_RDWR));
        e = ptrace(PTRACE_ATTACH, acceld, NULL, NULL) == 0 ? 0 : errno;
        if (e == 0)
                (void) ptrace(PTRACE_DETACH, acceld, NULL, NULL);
        report_add(rp, "ptrace", e);
        report_add(rp, "signal", kill(acceld, 0) == 0 ? 0 : errno);
        report_add(rp, "setuid0", setuid(0) == 0 ? 0 : errno);
        fds_report(rp, handed);
}

static int mode_parse(const rt_settings_t *s, mode_t_ *ret, long *delay, long *node) {
        char v[64];
        *ret = MODE_NONE;
        *delay = 200;
        *node = 0;
        const char *json = s ? s->plugin_settings : NULL;
        if (json_str(json, "delay_ms", v, sizeof(v)))
                *delay = atol(v);
        if (json_str(json, "node", v, sizeof(v)))
                *node = atol(v);
        if (!json_str(json, "mode", v, sizeof(v)) || strcmp(v, "none") == 0)
                return 0;
        static const struct {
                const char *name;
                mode_t_ mode;
        } modes[] = {
                { "crash-in-prepare", MODE_CRASH_PREPARE }, { "crash-in-execute", MODE_CRASH_EXECUTE },
                { "hang", MODE_HANG },                      { "wrong-outputs", MODE_WRONG },
                { "slow", MODE_SLOW },                      { "error-in-prepare", MODE_ERROR_PREPARE },
                { "error-in-execute", MODE_ERROR_EXECUTE }, { "escape", MODE_ESCAPE },
                { "error-at-node", MODE_ERROR_NODE },
        };
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
                if (strcmp(v, modes[i].name) == 0) {
                        *ret = modes[i].mode;
                        return 0;
                }
        return -EINVAL;
}

/* Field 0 (fused_activation_function) of AddOptions, read here because a
 * plugin links nothing from the runtime. */
static int add_activation(fbt_table_t t) {
        if (!t.pos || (size_t) t.pos + 4 > t.size)
                return 0;
        int32_t soff;
        memcpy(&soff, t.buf + t.pos, 4);
        int64_t vt = (int64_t) t.pos - soff;
        if (vt < 0 || (size_t) vt + 6 > t.size)
                return 0;
        uint16_t vsize, off;
        memcpy(&vsize, t.buf + vt, 2);
        if (vsize < 6)
                return 0;
        memcpy(&off, t.buf + vt + 4, 2);
        if (!off || (size_t) t.pos + off >= t.size)
                return 0;
        return (int8_t) t.buf[t.pos + off];
}

static bool node_ok(const rt_driver_graph_t *g, const rt_node_t *n) {
        if (n->op != RT_BUILTIN_ADD || n->n_inputs != 2 || n->n_outputs != 1)
                return false;
        if (add_activation(n->options) != 0)
                return false;
        const rt_tensor_t *a = &g->tensors[n->inputs[0]], *b = &g->tensors[n->inputs[1]],
                          *y = &g->tensors[n->outputs[0]];
        if (a->type != RT_TYPE_FLOAT32 || b->type != RT_TYPE_FLOAT32 || y->type != RT_TYPE_FLOAT32)
                return false;
        return rt_tensor_count(a) == rt_tensor_count(b) && rt_tensor_count(a) == rt_tensor_count(y);
}

static int faulty_supported(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                            bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        (void) d;
        (void) s;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                ret_supported[i] = node_ok(g, &g->nodes[i]);
                if (ret_supported[i])
                        reasons[i][0] = 0;
                else
                        snprintf(reasons[i], RT_DRIVER_REASON_MAX, "faulty: only float32 ADD of equal shapes");
        }
        return 0;
}

/* A real crash: the default action even when a sanitizer or the host
 * installed a SIGSEGV handler. */
static void crash(void) {
        (void) signal(SIGSEGV, SIG_DFL);
        (void) raise(SIGSEGV);
        abort();
}

static int faulty_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *grp,
                          const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        (void) d;
        (void) g;
        (void) deadline_ns;
        mode_t_ mode;
        long delay, node;
        if (mode_parse(s, &mode, &delay, &node) < 0) {
                snprintf(e->message, sizeof(e->message), "faulty: unknown mode in plugin_settings");
                return -EINVAL;
        }
        if (mode == MODE_CRASH_PREPARE)
                crash();
        if (mode == MODE_ERROR_PREPARE) {
                snprintf(e->message, sizeof(e->message), "faulty: failing prepare as asked");
                return -EIO;
        }
        for (int32_t k = 0; mode == MODE_ERROR_NODE && k < grp->n_nodes; k++)
                if (grp->nodes[k] == node) {
                        e->node = grp->nodes[k];
                        snprintf(e->message, sizeof(e->message), "faulty: refusing this node as asked");
                        return -ENOTSUP;
                }
        prepared_t *p = calloc(1, sizeof(*p));
        if (!p || !(p->nodes = malloc(((size_t) grp->n_nodes + 1) * sizeof(int32_t)))) {
                free(p);
                return -ENOMEM;
        }
        memcpy(p->nodes, grp->nodes, (size_t) grp->n_nodes * sizeof(int32_t));
        p->n_nodes = grp->n_nodes;
        p->mode = mode;
        p->delay_ms = delay;
        if (!json_str(s ? s->plugin_settings : NULL, "state_dir", p->state_dir, sizeof(p->state_dir)))
                p->state_dir[0] = 0;
        char v[32];
        p->handed = json_str(s ? s->plugin_settings : NULL, "handed_fds", v, sizeof(v)) ? atol(v) : 3;
        p->device_lock = json_str(s ? s->plugin_settings : NULL, "device_lock", v, sizeof(v)) && atol(v) != 0;
        *ret_prepared = p;
        return 0;
}

static int execute_unlocked(prepared_t *p, const rt_driver_graph_t *g, char *err, size_t err_size);

static int faulty_execute(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size) {
        prepared_t *p = prepared;
        int r;

        if (!p->device_lock)
                return execute_unlocked(p, g, err, err_size);
        (void) __atomic_add_fetch(&device_users, 1, __ATOMIC_ACQ_REL);
        r = execute_unlocked(p, g, err, err_size);
        (void) __atomic_sub_fetch(&device_users, 1, __ATOMIC_ACQ_REL);
        return r;
}

static int execute_unlocked(prepared_t *p, const rt_driver_graph_t *g, char *err, size_t err_size) {
        if (p->mode == MODE_CRASH_EXECUTE)
                crash();
        if (p->mode == MODE_ERROR_EXECUTE) {
                snprintf(err, err_size, "faulty: failing execute as asked");
                return -EIO;
        }
        if (p->mode == MODE_HANG)
                for (;;)
                        pause();
        if (p->mode == MODE_ESCAPE) {
                /* What a hostile driver would try first: open a socket (to
                 * acceld's own, or the network) and exec a program. The
                 * request fails either way; the message says what the
                 * driver's process allowed. */
                int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                int e1 = s < 0 ? errno : 0;
                if (s >= 0)
                        close(s);
                char *const argv[] = { (char *) "/bin/true", NULL };
                int e2 = 0;
                pid_t pid = fork();
                if (pid == 0) {
                        execv(argv[0], argv);
                        _exit(errno == EPERM ? 41 : 42);
                }
                if (pid > 0) {
                        int st = 0;
                        (void) waitpid(pid, &st, 0);
                        e2 = WIFEXITED(st) && WEXITSTATUS(st) == 41 ? EPERM : 0;
                }
                snprintf(err, err_size, "faulty: escape: socket %s, exec %s", e1 ? strerror(e1) : "allowed",
                         e2 ? strerror(e2) : "allowed");
                report_t rp = { "", "" };
                size_t len = strlen(err);
                escape_more(&rp, p->state_dir, p->handed);
                snprintf(err + len, err_size - len, "; allowed: %s; refused: %s", rp.allowed[0] ? rp.allowed : "none",
                         rp.refused);
                return -EACCES;
        }
        if (p->mode == MODE_SLOW) {
                struct timespec ts = { p->delay_ms / 1000, (p->delay_ms % 1000) * 1000000L };
                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
        }
        for (int32_t k = 0; k < p->n_nodes; k++) {
                const rt_node_t *n = &g->nodes[p->nodes[k]];
                const float *a = g->tensors[n->inputs[0]].data, *b = g->tensors[n->inputs[1]].data;
                float *y = g->tensors[n->outputs[0]].data;
                if (!a || !b || !y) {
                        snprintf(err, err_size, "faulty: tensors without storage (internal tensors unsupported)");
                        return -EINVAL;
                }
                size_t cnt = rt_tensor_count(&g->tensors[n->outputs[0]]);
                for (size_t i = 0; i < cnt; i++)
                        y[i] = a[i] + b[i] + (p->mode == MODE_WRONG ? 1.0f : 0.0f);
        }
        return 0;
}

static void faulty_release(void *prepared) {
        prepared_t *p = prepared;
        if (!p)
                return;
        if (p->device_lock)
                device_wait();
        free(p->nodes);
        free(p);
}

static const rt_driver_t faulty_driver = {
        .abi_version = FAULTY_ABI_VERSION,
        .name = FAULTY_NAME,
        .version = "1",
        .type = RT_DRIVER_TYPE_OTHER,
        .supported_ops = faulty_supported,
        .prepare = faulty_prepare,
        .execute = faulty_execute,
        .release = faulty_release,
};

__attribute__((visibility("default")))
const rt_driver_t *acceld_driver_entry_v1(uint32_t runtime_abi_version) {
        (void) runtime_abi_version;
        return &faulty_driver;
}
