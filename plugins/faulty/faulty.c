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
 *   escape           execute tries a socket and an exec, and fails saying
 *                    whether they were allowed
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
#include <errno.h>
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
        int32_t *nodes;
        int32_t n_nodes;
} prepared_t;

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
                p++;
                size_t n = 0;
                while (p[n] && p[n] != '"' && n + 1 < size)
                        n++;
                memcpy(buf, p, n);
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
        *ret_prepared = p;
        return 0;
}

static int faulty_execute(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size) {
        prepared_t *p = prepared;
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
