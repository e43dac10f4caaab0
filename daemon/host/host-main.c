/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver-host child: loads one plugin and answers HostRequests on fd 3
 * until acceld closes it. Each PREPARE builds its own copy of the model's
 * primary graph at the shapes acceld sent, so the plugin sees the same
 * rt_driver_graph_t it would see in-process; group inputs and outputs are
 * copied between that graph and the shared region acceld passed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings.h"
#include "executor.h"
#include "fold.h"
#include "graph.h"
#include "host.h"
#include "ipc.h"
#include "plugin.h"
#include "resolver.h"
#include "sandbox.h"

#define HOST_FD 3

typedef struct prepared {
        uint64_t id;
        rt_model_t *model;
        rt_exec_t *exec;
        rt_settings_t settings;
        int32_t *nodes, *inputs, *outputs;
        int32_t n_nodes, n_inputs, n_outputs;
        uint64_t *offsets;      /* n_inputs + n_outputs */
        size_t *slot_len;       /* per io: bytes from its slot to the next one */
        bool *bound;            /* per io: the executor takes a caller buffer for it */
        uint8_t **cur;          /* per io: the buffer it is bound to now */
        uint8_t *region;
        size_t region_size;
        void *handle;           /* the driver's */
        rt_wcache_blob_t *weights;      /* folded weights the graph points into */
        rt_weights_hook_t hook;
        struct prepared *next;
} prepared_t;

/* A shared region of acceld's, mapped here once (EXECUTE's new_regions). */
typedef struct mapped {
        uint64_t id;
        uint8_t *base;
        size_t size;
} mapped_t;

typedef struct host {
        const rt_driver_t *driver;
        prepared_t *prepared;
        mapped_t *maps;
        size_t n_maps, cap_maps;
        uint64_t next_id;
        rt_wcache_t *wcache;    /* opened at the first request naming one */
} host_t;

static rt_driver_graph_t graph_of(rt_exec_t *e) {
        rt_graph_t *g = rt_exec_graph(e);
        return (rt_driver_graph_t) {
                .model = g->model, .tensors = g->tensors, .n_tensors = g->n_tensors,
                .nodes = g->nodes, .n_nodes = g->n_nodes, .weights = rt_exec_weights(e),
        };
}

/* The weights cache the request names (acceld's), or NULL. Read-only: only
 * acceld writes it (wcache.h); what the host folds that acceld has not
 * stays in the host's memory. Under a dropped uid the directory cannot be
 * opened at all, and the host folds everything itself. */
static rt_wcache_t *host_wcache(host_t *h, const Acceld__HostRequest *rq) {
        if (!rq->weights_dir || !rq->weights_dir[0] || !rq->model_key || !rq->model_key[0])
                return NULL;
        if (!h->wcache && rt_wcache_open_readonly(rq->weights_dir, &h->wcache) < 0)
                h->wcache = NULL;
        return h->wcache && strcmp(rt_wcache_dir(h->wcache), rq->weights_dir) == 0 ? h->wcache : NULL;
}

/* The model's primary graph at the shapes acceld's interpreter has, with
 * its weights folded as acceld folded them (through the same cache when
 * there is one: the same file, mapped). */
static int graph_build(host_t *h, int model_fd, const Acceld__HostRequest *rq, rt_model_t **ret_model,
                       rt_exec_t **ret_exec, rt_wcache_blob_t **ret_weights, rt_weights_hook_t *hook, char *err,
                       size_t err_size) {
        rt_model_t *m = NULL;
        rt_exec_t *e = NULL;
        rt_wcache_t *c = host_wcache(h, rq);
        int r = rt_model_load_fd(model_fd, &m, err, err_size);
        if (r < 0)
                return r;
        r = rt_exec_new(m, 0, rt_resolver_builtins(), &e, err, err_size);
        if (r < 0)
                goto fail;
        for (size_t i = 0; i < rq->n_shapes; i++) {
                const Acceld__HostTensorShape *s = rq->shapes[i];
                r = rt_exec_resize_tensor(e, s->tensor, (int32_t) s->n_dims, s->dims);
                if (r < 0) {
                        snprintf(err, err_size, "tensor %d: %s", s->tensor, rt_exec_error(e));
                        goto fail;
                }
        }
        r = rt_fold_weights(e, c, c ? rq->model_key : NULL, 0, ret_weights);
        if (r < 0) {
                snprintf(err, err_size, "%s", rt_exec_error(e));
                goto fail;
        }
        if (c && rt_weights_hook_init(hook, c, rq->model_key) == 0)
                rt_exec_set_weights(e, &hook->pub);
        r = rt_exec_allocate(e);
        if (r < 0) {
                snprintf(err, err_size, "%s", rt_exec_error(e));
                goto fail;
        }
        *ret_model = m;
        *ret_exec = e;
        return 0;
fail:
        rt_exec_free(e);
        *ret_weights = rt_wcache_blob_unref(*ret_weights);
        rt_model_free(m);
        return r;
}

static void prepared_free(const rt_driver_t *d, prepared_t *p) {
        if (!p)
                return;
        if (p->handle)
                d->release(p->handle);
        if (p->region)
                (void) munmap(p->region, p->region_size);
        rt_exec_free(p->exec);
        rt_wcache_blob_unref(p->weights);
        rt_model_free(p->model);
        rt_settings_done(&p->settings);
        free(p->nodes);
        free(p->inputs);
        free(p->outputs);
        free(p->offsets);
        free(p->slot_len);
        free(p->cur);
        free(p->bound);
        free(p);
}

static int32_t *ints_dup(const int32_t *v, size_t n) {
        int32_t *c = malloc((n ? n : 1) * sizeof(*c));
        if (c && n)
                memcpy(c, v, n * sizeof(*c));
        return c;
}

/* Every group tensor's slot lies inside the region. */
static int region_check(const prepared_t *p, char *err, size_t err_size) {
        rt_graph_t *g = rt_exec_graph(p->exec);
        for (int32_t i = 0; i < p->n_inputs + p->n_outputs; i++) {
                int32_t t = i < p->n_inputs ? p->inputs[i] : p->outputs[i - p->n_inputs];
                bool ovf = false;
                size_t bytes;
                if (t < 0 || t >= g->n_tensors) {
                        snprintf(err, err_size, "group tensor %d out of range", t);
                        return -EINVAL;
                }
                bytes = rt_graph_tensor_bytes(&g->tensors[t], &ovf);
                if (ovf || p->offsets[i] > p->region_size || bytes > p->region_size - p->offsets[i]) {
                        snprintf(err, err_size, "tensor %d does not fit the shared region", t);
                        return -EINVAL;
                }
        }
        return 0;
}

static int do_prepare(host_t *h, const Acceld__HostRequest *rq, const int *fds, Acceld__HostResponse *out,
                      char *err, size_t err_size) {
        rt_driver_error_t e = { .node = -1 };
        prepared_t *p = calloc(1, sizeof(*p));
        int r;

        if (!p)
                return -ENOMEM;
        rt_settings_init(&p->settings);
        if (rq->n_offsets != rq->n_inputs + rq->n_outputs || !rq->has_region_size) {
                snprintf(err, err_size, "malformed PREPARE");
                r = -EPROTO;
                goto fail;
        }
        r = rt_settings_parse_proto(rq->settings.data, rq->settings.len, &p->settings, NULL, 0);
        if (r < 0) {
                snprintf(err, err_size, "the settings do not decode");
                goto fail;
        }
        r = graph_build(h, fds[0], rq, &p->model, &p->exec, &p->weights, &p->hook, err, err_size);
        if (r < 0)
                goto fail;
        p->nodes = ints_dup(rq->nodes, rq->n_nodes);
        p->inputs = ints_dup(rq->inputs, rq->n_inputs);
        p->outputs = ints_dup(rq->outputs, rq->n_outputs);
        p->offsets = malloc((rq->n_offsets ? rq->n_offsets : 1) * sizeof(*p->offsets));
        if (!p->nodes || !p->inputs || !p->outputs || !p->offsets) {
                r = -ENOMEM;
                goto fail;
        }
        memcpy(p->offsets, rq->offsets, rq->n_offsets * sizeof(*p->offsets));
        p->n_nodes = (int32_t) rq->n_nodes;
        p->n_inputs = (int32_t) rq->n_inputs;
        p->n_outputs = (int32_t) rq->n_outputs;
        p->region_size = rq->region_size;
        if (p->region_size) {
                p->region = mmap(NULL, p->region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
                if (p->region == MAP_FAILED) {
                        p->region = NULL;
                        r = -errno;
                        snprintf(err, err_size, "cannot map the shared region: %s", strerror(-r));
                        goto fail;
                }
        }
        r = region_check(p, err, err_size);
        if (r < 0)
                goto fail;
        p->bound = calloc((size_t) (p->n_inputs + p->n_outputs) + 1, sizeof(*p->bound));
        p->slot_len = calloc((size_t) (p->n_inputs + p->n_outputs) + 1, sizeof(*p->slot_len));
        p->cur = calloc((size_t) (p->n_inputs + p->n_outputs) + 1, sizeof(*p->cur));
        if (!p->bound || !p->slot_len || !p->cur) {
                r = -ENOMEM;
                goto fail;
        }
        for (int32_t i = 0; i < p->n_inputs + p->n_outputs; i++) {
                int32_t t = i < p->n_inputs ? p->inputs[i] : p->outputs[i - p->n_inputs];
                uint64_t end = i + 1 < p->n_inputs + p->n_outputs ? p->offsets[i + 1] : p->region_size;
                /* Bind where the executor allows it (not constants, variables
                 * or dynamic tensors); the rest is copied at each execute. */
                p->slot_len[i] = end - p->offsets[i];
                if (rt_exec_set_tensor_buffer(p->exec, t, p->region + p->offsets[i], p->slot_len[i]) == 0) {
                        p->bound[i] = true;
                        p->cur[i] = p->region + p->offsets[i];
                }
        }
        if (rt_exec_needs_allocate(p->exec) && rt_exec_allocate(p->exec) < 0) {
                snprintf(err, err_size, "%s", rt_exec_error(p->exec));
                r = -EINVAL;
                goto fail;
        }
        rt_driver_graph_t g = graph_of(p->exec);
        rt_driver_group_t grp = {
                .nodes = p->nodes, .n_nodes = p->n_nodes,
                .inputs = p->inputs, .n_inputs = p->n_inputs,
                .outputs = p->outputs, .n_outputs = p->n_outputs,
        };
        r = h->driver->prepare(h->driver, &g, &grp, &p->settings, 0, &p->handle, &e);
        if (r < 0) {
                /* The driver's reason, and its node as data (acceld checks
                 * that it is one of the group's). */
                e.message[sizeof(e.message) - 1] = 0;
                snprintf(err, err_size, "%s", e.message);
                if (e.node >= 0) {
                        out->has_error_node = 1;
                        out->error_node = e.node;
                }
                goto fail;
        }
        p->id = ++h->next_id;
        p->next = h->prepared;
        h->prepared = p;
        out->has_prepared = 1;
        out->prepared = p->id;
        return 0;
fail:
        prepared_free(h->driver, p);
        return r;
}

static prepared_t *prepared_find(host_t *h, uint64_t id, prepared_t ***ret_link) {
        for (prepared_t **l = &h->prepared; *l; l = &(*l)->next)
                if ((*l)->id == id) {
                        if (ret_link)
                                *ret_link = l;
                        return *l;
                }
        return NULL;
}

/* ---- execute ---- */

static mapped_t *map_find(host_t *h, uint64_t id) {
        for (size_t i = 0; i < h->n_maps; i++)
                if (h->maps[i].id == id)
                        return &h->maps[i];
        return NULL;
}

/* Unmap what acceld forgot, map what it sent. */
static int maps_update(host_t *h, const Acceld__HostRequest *rq, const int *fds, size_t n_fds, char *err,
                       size_t err_size) {
        for (size_t k = 0; k < rq->n_forget_regions; k++) {
                mapped_t *m = map_find(h, rq->forget_regions[k]);
                if (!m)
                        continue;
                (void) munmap(m->base, m->size);
                *m = h->maps[--h->n_maps];
        }
        if (rq->n_new_regions != n_fds) {
                snprintf(err, err_size, "EXECUTE names %zu new regions and carries %zu fds", rq->n_new_regions,
                         n_fds);
                return -EPROTO;
        }
        for (size_t k = 0; k < n_fds; k++) {
                struct stat st;
                void *base;
                if (map_find(h, rq->new_regions[k]))
                        continue;
                if (fstat(fds[k], &st) < 0 || st.st_size <= 0) {
                        snprintf(err, err_size, "shared region %llu: cannot size it",
                                 (unsigned long long) rq->new_regions[k]);
                        return -EINVAL;
                }
                if (h->n_maps == h->cap_maps) {
                        size_t cap = h->cap_maps ? h->cap_maps * 2 : 16;
                        mapped_t *v = realloc(h->maps, cap * sizeof(*v));
                        if (!v)
                                return -ENOMEM;
                        h->maps = v;
                        h->cap_maps = cap;
                }
                base = mmap(NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[k], 0);
                if (base == MAP_FAILED) {
                        int r = -errno;
                        snprintf(err, err_size, "shared region %llu: cannot map it: %s",
                                 (unsigned long long) rq->new_regions[k], strerror(-r));
                        return r;
                }
                h->maps[h->n_maps++] = (mapped_t) { rq->new_regions[k], base, (size_t) st.st_size };
        }
        return 0;
}

/* Where group tensor i is this time: its slot, or a place in a shared
 * region (checked against the mapping); *ret_len = bytes from there on. */
static int io_source(host_t *h, const prepared_t *p, const Acceld__HostRequest *rq, int32_t i, size_t bytes,
                     uint8_t **ret, size_t *ret_len, char *err, size_t err_size) {
        uint64_t id = (size_t) i < rq->n_io_regions ? rq->io_regions[i] : 0;
        mapped_t *m;

        if (!id) {
                *ret = p->region + p->offsets[i];
                *ret_len = p->slot_len[i];
                return 0;
        }
        m = map_find(h, id);
        if (!m || (size_t) i >= rq->n_io_offsets || (size_t) i >= rq->n_io_sizes || rq->io_offsets[i] > m->size ||
            bytes > m->size - rq->io_offsets[i]) {
                snprintf(err, err_size, "group tensor %d: not inside shared region %llu", i, (unsigned long long) id);
                return -EINVAL;
        }
        *ret = m->base + rq->io_offsets[i];
        *ret_len = m->size - rq->io_offsets[i];
        if (rq->io_sizes[i] < *ret_len)
                *ret_len = rq->io_sizes[i];
        return 0;
}

/*
 * Bind each group tensor the executor lets us bind to where acceld has it
 * (no copy); copy the others in. *copy_out[i] says which outputs go back
 * by copy.
 */
static int io_bind(host_t *h, prepared_t *p, const Acceld__HostRequest *rq, uint8_t **src, char *err,
                   size_t err_size) {
        rt_graph_t *gr = rt_exec_graph(p->exec);
        for (int32_t i = 0; i < p->n_inputs + p->n_outputs; i++) {
                int32_t ti = i < p->n_inputs ? p->inputs[i] : p->outputs[i - p->n_inputs];
                rt_tensor_t *t = &gr->tensors[ti];
                bool ovf = false;
                size_t bytes = rt_graph_tensor_bytes(t, &ovf), len;
                int r;

                src[i] = NULL;
                if (t->alloc == RT_ALLOC_CONST)
                        continue;
                r = io_source(h, p, rq, i, bytes, &src[i], &len, err, err_size);
                if (r < 0)
                        return r;
                if (p->bound[i] && p->cur[i] != src[i]) {
                        if (rt_exec_set_tensor_buffer(p->exec, ti, src[i], len) == 0) {
                                p->cur[i] = src[i];
                        } else if (p->cur[i] != p->region + p->offsets[i]) {
                                /* Back to its slot, and copied. */
                                (void) rt_exec_set_tensor_buffer(p->exec, ti, p->region + p->offsets[i],
                                                                 p->slot_len[i]);
                                p->cur[i] = p->region + p->offsets[i];
                        }
                }
                if (p->bound[i] && p->cur[i] == src[i]) {
                        src[i] = NULL;  /* in place */
                        continue;
                }
                if (i < p->n_inputs && t->data)
                        memcpy(t->data, src[i], bytes);
        }
        return 0;
}

static int do_execute(host_t *h, const Acceld__HostRequest *rq, const int *fds, size_t n_fds, char *err,
                      size_t err_size) {
        prepared_t *p = prepared_find(h, rq->prepared, NULL);
        uint8_t *src_stack[64], **src = src_stack;
        int32_t n_io;
        int r;

        r = maps_update(h, rq, fds, n_fds, err, err_size);
        if (r < 0)
                return r;
        if (!p) {
                snprintf(err, err_size, "no prepared group %llu", (unsigned long long) rq->prepared);
                return -ENOENT;
        }
        n_io = p->n_inputs + p->n_outputs;
        if ((size_t) n_io > sizeof(src_stack) / sizeof(src_stack[0]) && !(src = calloc((size_t) n_io, sizeof(*src))))
                return -ENOMEM;
        r = io_bind(h, p, rq, src, err, err_size);
        if (r == 0) {
                rt_driver_graph_t g = graph_of(p->exec);
                r = h->driver->execute(p->handle, &g, err, err_size);
        }
        if (r == 0) {
                rt_graph_t *gr = rt_exec_graph(p->exec);
                for (int32_t i = p->n_inputs; i < n_io; i++) {
                        rt_tensor_t *t = &gr->tensors[p->outputs[i - p->n_inputs]];
                        bool ovf;
                        if (src[i] && t->data)
                                memcpy(src[i], t->data, rt_graph_tensor_bytes(t, &ovf));
                }
        }
        if (src != src_stack)
                free(src);
        return r;
}

static int do_supported(host_t *h, const Acceld__HostRequest *rq, const int *fds, Acceld__HostResponse *out,
                        char *err, size_t err_size) {
        rt_model_t *m = NULL;
        rt_exec_t *e = NULL;
        rt_wcache_blob_t *weights = NULL;
        rt_weights_hook_t hook;
        rt_settings_t s;
        int r;

        rt_settings_init(&s);
        r = rt_settings_parse_proto(rq->settings.data, rq->settings.len, &s, NULL, 0);
        if (r < 0) {
                snprintf(err, err_size, "the settings do not decode");
                return r;
        }
        r = graph_build(h, fds[0], rq, &m, &e, &weights, &hook, err, err_size);
        if (r < 0)
                goto out;
        rt_driver_graph_t g = graph_of(e);
        size_t n = (size_t) g.n_nodes;
        out->supported = calloc(n + 1, sizeof(*out->supported));
        out->reasons = calloc(n + 1, sizeof(*out->reasons));
        char (*reasons)[RT_DRIVER_REASON_MAX] = calloc(n + 1, sizeof(*reasons));
        bool *sup = calloc(n + 1, sizeof(*sup));
        if (!out->supported || !out->reasons || !reasons || !sup) {
                free(reasons);
                free(sup);
                r = -ENOMEM;
                goto out;
        }
        r = h->driver->supported_ops(h->driver, &g, &s, sup, reasons);
        if (r == 0) {
                for (size_t i = 0; i < n && r == 0; i++) {
                        out->supported[i] = sup[i];
                        out->reasons[i] = strdup(sup[i] ? "" : reasons[i]);
                        if (!out->reasons[i])
                                r = -ENOMEM;
                        else
                                out->n_supported = out->n_reasons = i + 1;
                }
        } else
                snprintf(err, err_size, "%s: supported_ops failed: %s", h->driver->name, strerror(-r));
        free(sup);
        free(reasons);
out:
        rt_exec_free(e);
        rt_wcache_blob_unref(weights);
        rt_model_free(m);
        rt_settings_done(&s);
        return r;
}

static void response_done(Acceld__HostResponse *out) {
        for (size_t i = 0; i < out->n_reasons; i++)
                free(out->reasons[i]);
        free(out->reasons);
        free(out->supported);
}

static void fds_close(int *fds, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        (void) close(fds[i]);
}

int daemon_host_main(int argc, char **argv) {
        host_t h = { 0 };
        ipc_reader_t rd;
        char load_err[512] = "";
        int load_r;

        if (argc < 3) {
                fprintf(stderr, "usage: acceld %s PLUGIN.so (started by acceld)\n", DAEMON_HOST_ARG);
                return 2;
        }
        /* Before any plugin code runs (its constructors included): only
         * stdin/stdout (/dev/null), stderr (acceld's) and the socket. */
        {
                static const int keep[] = { 0, 1, 2, HOST_FD };
                char why[256] = "";

                if (daemon_sandbox_enter(keep, sizeof(keep) / sizeof(keep[0]), why, sizeof(why)) < 0) {
                        fprintf(stderr, "acceld --driver-host: cannot enter the sandbox: %s\n", why);
                        return 1;
                }
        }
        if (strncmp(argv[2], DAEMON_HOST_BUILTIN, strlen(DAEMON_HOST_BUILTIN)) == 0) {
                /* A built-in driver, isolated like a plugin. */
                h.driver = rt_driver_find(argv[2] + strlen(DAEMON_HOST_BUILTIN));
                load_r = h.driver ? 0 : -ENOENT;
                snprintf(load_err, sizeof(load_err), "no built-in driver %s", argv[2] + strlen(DAEMON_HOST_BUILTIN));
        } else
                load_r = rt_plugin_load(argv[2], &h.driver, load_err, sizeof(load_err));
        ipc_reader_init(&rd, IPC_FRAME_LIMIT_DEFAULT);
        for (;;) {
                Acceld__HostRequest *rq = NULL;
                Acceld__HostResponse out = ACCELD__HOST_RESPONSE__INIT;
                char err[1024] = "";
                int fds[IPC_MAX_FDS_PER_FRAME];
                int r = ipc_recv(HOST_FD, &rd, &acceld__host_request__descriptor, (ProtobufCMessage **) &rq);

                if (r < 0)
                        break;  /* acceld closed the socket, or sent garbage */
                for (size_t k = 0; k < IPC_MAX_FDS_PER_FRAME; k++)
                        fds[k] = -1;
                if (rq->num_fds > IPC_MAX_FDS_PER_FRAME || ipc_reader_take_fds(&rd, fds, rq->num_fds) < 0) {
                        acceld__host_request__free_unpacked(rq, NULL);
                        break;
                }
                if (load_r < 0) {
                        r = load_r;
                        snprintf(err, sizeof(err), "%s", load_err);
                } else {
                        switch (rq->kind) {
                        case ACCELD__HOST_REQUEST__KIND__HELLO:
                                out.name = (char *) h.driver->name;
                                out.version = (char *) h.driver->version;
                                out.has_type = 1;
                                out.type = h.driver->type;
                                r = 0;
                                break;
                        case ACCELD__HOST_REQUEST__KIND__SUPPORTED_OPS:
                                r = rq->num_fds == 1 ? do_supported(&h, rq, fds, &out, err, sizeof(err)) : -EPROTO;
                                break;
                        case ACCELD__HOST_REQUEST__KIND__PREPARE:
                                r = rq->num_fds == 2 ? do_prepare(&h, rq, fds, &out, err, sizeof(err)) : -EPROTO;
                                break;
                        case ACCELD__HOST_REQUEST__KIND__EXECUTE:
                                r = do_execute(&h, rq, fds, rq->num_fds, err, sizeof(err));
                                break;
                        case ACCELD__HOST_REQUEST__KIND__RELEASE: {
                                prepared_t **link = NULL, *p = prepared_find(&h, rq->prepared, &link);
                                if (p) {
                                        *link = p->next;
                                        prepared_free(h.driver, p);
                                }
                                r = 0;
                                break;
                        }
                        default:
                                r = -EOPNOTSUPP;
                                snprintf(err, sizeof(err), "unknown host request %d", rq->kind);
                        }
                }
                fds_close(fds, IPC_MAX_FDS_PER_FRAME);
                acceld__host_request__free_unpacked(rq, NULL);
                out.has_result = 1;
                out.result = r;
                if (r < 0)
                        out.message = err[0] ? err : (char *) strerror(-r);
                r = ipc_send(HOST_FD, &out.base, NULL, 0);
                response_done(&out);
                if (r < 0)
                        break;
        }
        while (h.prepared) {
                prepared_t *p = h.prepared;
                h.prepared = p->next;
                prepared_free(h.driver, p);
        }
        for (size_t i = 0; i < h.n_maps; i++)
                (void) munmap(h.maps[i].base, h.maps[i].size);
        free(h.maps);
        h.wcache = rt_wcache_close(h.wcache);
        ipc_reader_done(&rd);
        return 0;
}
