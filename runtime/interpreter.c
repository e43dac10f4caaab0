/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "config.h"
#include "driver.h"
#include "executor.h"
#include "partition.h"
#include "plugin.h"
#include "rt.h"

typedef struct op_entry {
        rt_registration_t reg;  /* copy; reg.name points at name */
        char *name;
        int32_t min_version;
        int32_t max_version;
} op_entry_t;

typedef struct op_list {
        op_entry_t *v;
        size_t n;
} op_list_t;

struct rt_interp_options {
        int32_t num_threads;
        rt_error_reporter_t reporter;
        void *reporter_data;
        bool profiling;
        const rt_resolver_t *resolver;
        op_list_t ops;
        bool has_settings;
        rt_settings_t settings;
};

struct rt_interp {
        const rt_model_t *model;
        rt_exec_t *exec;
        rt_delegation_t *delegation;  /* NULL: everything on the reference kernels */
        op_list_t ops;  /* the interpreter's own copies of added ops */
        int32_t num_threads;
        rt_error_reporter_t reporter;
        void *reporter_data;
        char err[1024];
};

static void ops_clear(op_list_t *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i].name);
        free(l->v);
        l->v = NULL;
        l->n = 0;
}

static int ops_append(op_list_t *l, const rt_registration_t *reg, int32_t op, const char *name,
                      int32_t min_version, int32_t max_version) {
        op_entry_t *v = realloc(l->v, (l->n + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        l->v = v;
        op_entry_t *e = &v[l->n];
        memset(e, 0, sizeof(*e));
        e->reg = *reg;
        e->reg.op = op;
        if (name) {
                e->name = strdup(name);
                if (!e->name)
                        return -ENOMEM;
                e->reg.name = e->name;
        }
        e->min_version = min_version;
        e->max_version = max_version;
        l->n++;
        return 0;
}

static int ops_copy(op_list_t *dst, const op_list_t *src) {
        for (size_t i = 0; i < src->n; i++) {
                const op_entry_t *e = &src->v[i];
                int r = ops_append(dst, &e->reg, e->reg.op, e->name, e->min_version, e->max_version);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- options ---- */

rt_interp_options_t *rt_interp_options_new(void) {
        rt_interp_options_t *o = calloc(1, sizeof(*o));
        if (!o)
                return NULL;
        o->num_threads = -1;
        return o;
}

rt_interp_options_t *rt_interp_options_free(rt_interp_options_t *o) {
        if (!o)
                return NULL;
        ops_clear(&o->ops);
        rt_settings_done(&o->settings);
        free(o);
        return NULL;
}

int rt_interp_options_set_settings(rt_interp_options_t *o, const rt_settings_t *s) {
        if (!o)
                return -EINVAL;
        rt_settings_t copy;
        rt_settings_init(&copy);
        if (s && rt_settings_copy(&copy, s) < 0)
                return -ENOMEM;
        rt_settings_done(&o->settings);
        o->settings = copy;
        o->has_settings = s != NULL;
        return 0;
}

int rt_interp_options_set_num_threads(rt_interp_options_t *o, int32_t n) {
        if (!o || (n < 1 && n != -1))
                return -EINVAL;
        o->num_threads = n;
        return 0;
}

int rt_interp_options_set_error_reporter(rt_interp_options_t *o, rt_error_reporter_t reporter,
                                         void *user_data) {
        if (!o)
                return -EINVAL;
        o->reporter = reporter;
        o->reporter_data = user_data;
        return 0;
}

int rt_interp_options_enable_profiling(rt_interp_options_t *o, bool enable) {
        if (!o)
                return -EINVAL;
        o->profiling = enable;
        return 0;
}

int rt_interp_options_add_custom_op(rt_interp_options_t *o, const char *name,
                                    const rt_registration_t *reg, int32_t min_version,
                                    int32_t max_version) {
        if (!o || !name || !name[0] || !reg || min_version > max_version)
                return -EINVAL;
        return ops_append(&o->ops, reg, RT_OP_CUSTOM, name, min_version, max_version);
}

int rt_interp_options_add_builtin_op(rt_interp_options_t *o, int32_t op, const rt_registration_t *reg,
                                     int32_t min_version, int32_t max_version) {
        if (!o || !reg || op < 0 || op == RT_OP_CUSTOM || min_version > max_version)
                return -EINVAL;
        return ops_append(&o->ops, reg, op, NULL, min_version, max_version);
}

int rt_interp_options_set_resolver(rt_interp_options_t *o, const rt_resolver_t *r) {
        if (!o)
                return -EINVAL;
        o->resolver = r;
        return 0;
}

/* ---- errors ---- */

static void report(rt_error_reporter_t reporter, void *data, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        reporter(data, fmt, ap);
        va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static int interp_fail(const rt_interp_t *cit, int r, const char *fmt, ...) {
        rt_interp_t *it = (rt_interp_t *) cit;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(it->err, sizeof(it->err), fmt, ap);
        va_end(ap);
        if (it->reporter)
                report(it->reporter, it->reporter_data, "%s", it->err);
        return r;
}

/* ---- interpreter ---- */

DEFINE_POINTER_CLEANUP(rt_resolver_t, rt_resolver_free);

static pthread_once_t plugins_once = PTHREAD_ONCE_INIT;

/* Plugins come from $ACCELD_PLUGIN_DIR, else the configured directory;
 * loaded once, the first time a delegate no built-in driver provides is
 * asked for. Unloadable plugins are skipped (they cannot be reported from
 * here; accelctl/acceld load the directory themselves to report them). */
static void plugins_load(void) {
        const char *dir = getenv("ACCELD_PLUGIN_DIR");
        (void) rt_plugin_load_dir(dir && dir[0] ? dir : ACCELD_PLUGIN_DIR, NULL, NULL);
}

/* Hand the groups of nodes the selected driver supports to it. A delegate
 * nobody provides is DEVICE_UNAVAILABLE (-ENODEV). */
static int delegation_setup(rt_interp_t *it, const rt_interp_options_t *o) {
        const rt_settings_t *s = &o->settings;
        const char *name = s->delegate == RT_DELEGATE_XNNPACK ? "xnnpack" : rt_settings_delegate_name(s);
        const rt_driver_t *d = rt_driver_find(name);
        if (!d && s->delegate != RT_DELEGATE_XNNPACK) {
                (void) pthread_once(&plugins_once, plugins_load);
                d = rt_driver_find(name);
        }
        if (!d || strcmp(d->name, "reference") == 0)
                return interp_fail(it, -ENODEV, "DEVICE_UNAVAILABLE: no driver provides delegate %s",
                                   rt_settings_delegate_name(s));
        rt_settings_t copy;
        if (rt_settings_copy(&copy, s) < 0)
                return interp_fail(it, -ENOMEM, "out of memory");
        if (copy.xnnpack_num_threads <= 0 && copy.cpu_num_threads <= 0 && o->num_threads > 0)
                copy.cpu_num_threads = o->num_threads;
        char err[512] = "";
        int r = rt_delegation_apply(it->exec, d, &copy, &it->delegation, err, sizeof(err));
        rt_settings_done(&copy);
        if (r < 0)
                return interp_fail(it, r, "%s: %s", d->name, err[0] ? err : strerror(-r));
        return 0;
}

int rt_interp_create(const rt_model_t *model, const rt_interp_options_t *options, rt_interp_t **ret,
                     char *err, size_t err_size) {
        if (err && err_size)
                err[0] = 0;
        if (!model || !ret)
                return -EINVAL;
        rt_interp_t *it = calloc(1, sizeof(*it));
        if (!it)
                return -ENOMEM;
        it->model = model;
        it->num_threads = options ? options->num_threads : -1;
        if (options) {
                it->reporter = options->reporter;
                it->reporter_data = options->reporter_data;
        }
        int r;
        _cleanup_(rt_resolver_freep) rt_resolver_t *res = rt_resolver_new();
        if (!res) {
                r = -ENOMEM;
                goto error;
        }
        const rt_resolver_t *base = options && options->resolver ? options->resolver : rt_resolver_builtins();
        if (!base) {
                r = interp_fail(it, -ENOMEM, "cannot build the builtin op table (out of memory, or a kernel family failed to register)");
                goto error;
        }
        (void) rt_resolver_set_fallback(res, base);
        if (options) {
                r = ops_copy(&it->ops, &options->ops);
                if (r < 0) {
                        interp_fail(it, r, "out of memory copying custom ops");
                        goto error;
                }
        }
        for (size_t i = 0; i < it->ops.n; i++) {
                r = rt_resolver_add_versions(res, &it->ops.v[i].reg, it->ops.v[i].min_version,
                                             it->ops.v[i].max_version);
                if (r < 0) {
                        interp_fail(it, r, "cannot register op '%s'", it->ops.v[i].reg.name ? it->ops.v[i].reg.name : "?");
                        goto error;
                }
        }
        if (model->n_subgraphs < 1) {
                r = interp_fail(it, -EINVAL, "model has no subgraph");
                goto error;
        }
        r = rt_exec_new(model, 0, res, &it->exec, it->err, sizeof(it->err));
        if (r < 0) {
                if (it->reporter)
                        report(it->reporter, it->reporter_data, "%s", it->err);
                goto error;
        }
        if (options && options->has_settings && options->settings.delegate != RT_DELEGATE_NONE) {
                r = delegation_setup(it, options);
                if (r < 0)
                        goto error;
        }
        if (options && options->profiling)
                (void) rt_exec_set_profiling(it->exec, true);
        *ret = it;
        return 0;
error:
        if (err && err_size)
                snprintf(err, err_size, "%s", it->err[0] ? it->err : strerror(-r));
        rt_interp_free(it);
        return r;
}

rt_interp_t *rt_interp_free(rt_interp_t *it) {
        if (!it)
                return NULL;
        rt_exec_free(it->exec);
        rt_delegation_free(it->delegation);
        ops_clear(&it->ops);
        free(it);
        return NULL;
}

static rt_graph_t *graph(const rt_interp_t *it) {
        return rt_exec_graph(it->exec);
}

int32_t rt_interp_input_count(const rt_interp_t *it) {
        return it ? graph(it)->n_inputs : 0;
}

int32_t rt_interp_output_count(const rt_interp_t *it) {
        return it ? graph(it)->n_outputs : 0;
}

static int32_t input_index(const rt_interp_t *it, int32_t i) {
        if (!it || i < 0 || i >= graph(it)->n_inputs)
                return -1;
        return graph(it)->inputs[i];
}

static int32_t output_index(const rt_interp_t *it, int32_t i) {
        if (!it || i < 0 || i >= graph(it)->n_outputs)
                return -1;
        return graph(it)->outputs[i];
}

const rt_tensor_t *rt_interp_input_tensor(const rt_interp_t *it, int32_t i) {
        int32_t t = input_index(it, i);
        return t < 0 ? NULL : &graph(it)->tensors[t];
}

const rt_tensor_t *rt_interp_output_tensor(const rt_interp_t *it, int32_t i) {
        int32_t t = output_index(it, i);
        return t < 0 ? NULL : &graph(it)->tensors[t];
}

const int32_t *rt_interp_input_signature(const rt_interp_t *it, int32_t i, int32_t *ret_rank) {
        int32_t t = input_index(it, i);
        if (t < 0 || !ret_rank)
                return NULL;
        const rt_model_tensor_t *mt = graph(it)->meta[t].model;
        *ret_rank = mt->rank;
        return mt->has_shape_signature ? mt->shape_signature : mt->shape;
}

static void shape_format(const rt_tensor_t *t, char *buf, size_t size) {
        size_t o = (size_t) snprintf(buf, size, "%s[", rt_type_name(t->type));
        for (int32_t d = 0; d < t->rank && o < size; d++)
                o += (size_t) snprintf(buf + o, size - o, d ? "x%d" : "%d", t->dims[d]);
        if (o < size)
                snprintf(buf + o, size - o, "]");
}

int rt_interp_resize_input(rt_interp_t *it, int32_t i, int32_t rank, const int32_t *dims) {
        if (!it)
                return -EINVAL;
        int32_t t = input_index(it, i);
        if (t < 0)
                return interp_fail(it, -EINVAL, "input %d out of range (%d inputs)", i,
                                   rt_interp_input_count(it));
        if (rank < 0 || rank > RT_MAX_RANK || (rank > 0 && !dims))
                return interp_fail(it, -EINVAL, "input %d: invalid rank %d", i, rank);
        const rt_model_tensor_t *mt = graph(it)->meta[t].model;
        bool has_dynamic = false;
        if (mt->has_shape_signature)
                for (int32_t d = 0; d < mt->rank; d++)
                        has_dynamic |= mt->shape_signature[d] < 0;
        for (int32_t d = 0; d < rank; d++)
                if (dims[d] < 0)
                        return interp_fail(it, -EINVAL, "input %d: dimension %d is negative (%d)", i, d,
                                           dims[d]);
        if (has_dynamic) {
                /* The signature tells which dimensions may change. */
                if (rank != mt->rank)
                        return interp_fail(it, -EINVAL,
                                           "input %d '%s': rank %d does not match the shape signature (rank %d)",
                                           i, graph(it)->tensors[t].name, rank, mt->rank);
                for (int32_t d = 0; d < rank; d++)
                        if (mt->shape_signature[d] >= 0 && dims[d] != mt->shape_signature[d])
                                return interp_fail(it, -EINVAL,
                                                   "input %d '%s': dimension %d is fixed at %d by the shape signature, got %d",
                                                   i, graph(it)->tensors[t].name, d, mt->shape_signature[d],
                                                   dims[d]);
        }
        int r = rt_exec_resize_tensor(it->exec, t, rank, dims);
        if (r < 0)
                return interp_fail(it, r, "input %d: %s", i, rt_exec_error(it->exec));
        return 0;
}

int rt_interp_allocate_tensors(rt_interp_t *it) {
        if (!it)
                return -EINVAL;
        it->err[0] = 0;
        int r = rt_exec_allocate(it->exec);
        if (r < 0)
                return interp_fail(it, r, "%s", rt_exec_error(it->exec));
        return 0;
}

/* A serialized string tensor: int32 n, int32 offsets[n + 1] from the buffer
 * start, non-decreasing, the last one equal to the size. */
static int strings_check(const uint8_t *p, size_t size, size_t count, char *why, size_t why_size) {
        if (size < 8) {
                snprintf(why, why_size, "%zu bytes is too short for a string tensor", size);
                return -EINVAL;
        }
        int32_t n;
        memcpy(&n, p, 4);
        if (n < 0 || (size_t) n != count) {
                snprintf(why, why_size, "holds %d strings, the tensor has %zu elements", n, count);
                return -EINVAL;
        }
        size_t header = 4 * ((size_t) n + 2);
        if (header > size) {
                snprintf(why, why_size, "offset table (%zu bytes) exceeds the %zu-byte buffer", header, size);
                return -EINVAL;
        }
        int32_t prev = (int32_t) header;
        for (int32_t k = 0; k <= n; k++) {
                int32_t off;
                memcpy(&off, p + 4 + 4 * (size_t) k, 4);
                if (k == 0 ? off != (int32_t) header : off < prev) {
                        snprintf(why, why_size, "offset %d (%d) is out of order", k, off);
                        return -EINVAL;
                }
                prev = off;
        }
        if ((size_t) prev != size) {
                snprintf(why, why_size, "last offset %d does not end the %zu-byte buffer", prev, size);
                return -EINVAL;
        }
        return 0;
}

int rt_interp_copy_in(rt_interp_t *it, int32_t i, const void *data, size_t size) {
        if (!it)
                return -EINVAL;
        int32_t ti = input_index(it, i);
        if (ti < 0)
                return interp_fail(it, -EINVAL, "input %d out of range (%d inputs)", i,
                                   rt_interp_input_count(it));
        if (!data && size > 0)
                return interp_fail(it, -EINVAL, "input %d: no data", i);
        if (rt_exec_needs_allocate(it->exec))
                return interp_fail(it, -EINVAL, "input %d: tensors are not allocated", i);
        rt_graph_t *g = graph(it);
        rt_tensor_t *t = &g->tensors[ti];
        char shape[128];
        shape_format(t, shape, sizeof(shape));
        if (t->type == RT_TYPE_STRING) {
                char why[160];
                if (strings_check(data, size, rt_tensor_count(t), why, sizeof(why)) < 0)
                        return interp_fail(it, -EINVAL, "input %d '%s' (%s): %s", i, t->name, shape, why);
                rt_tensor_meta_t *m = &g->meta[ti];
                void *p = malloc(size);
                if (!p)
                        return interp_fail(it, -ENOMEM, "input %d: out of memory", i);
                memcpy(p, data, size);
                free(m->heap);
                m->heap = p;
                m->heap_bytes = size;
                t->data = p;
                t->bytes = size;
                return 0;
        }
        size_t want = rt_graph_tensor_bytes(t, NULL);
        if (size != want || !t->data)
                return interp_fail(it, -EINVAL, "input %d '%s': expected %zu bytes (%s), got %zu", i,
                                   t->name, want, shape, size);
        memcpy(t->data, data, size);
        return 0;
}

int rt_interp_copy_out(const rt_interp_t *it, int32_t i, void *data, size_t size) {
        if (!it)
                return -EINVAL;
        int32_t ti = output_index(it, i);
        if (ti < 0)
                return interp_fail(it, -EINVAL, "output %d out of range (%d outputs)", i,
                                   rt_interp_output_count(it));
        if (rt_exec_needs_allocate(it->exec))
                return interp_fail(it, -EINVAL, "output %d: tensors are not allocated", i);
        const rt_tensor_t *t = &graph(it)->tensors[ti];
        char shape[128];
        shape_format(t, shape, sizeof(shape));
        size_t have = t->type == RT_TYPE_STRING ? t->bytes : rt_graph_tensor_bytes(t, NULL);
        if (!t->data)
                return interp_fail(it, -EINVAL, "output %d '%s': no data (allocate and invoke first)", i,
                                   t->name);
        if (size != have || (!data && size > 0))
                return interp_fail(it, -EINVAL, "output %d '%s': expected %zu bytes (%s), got %zu", i,
                                   t->name, have, shape, size);
        memcpy(data, t->data, size);
        return 0;
}

void *rt_interp_input_data(rt_interp_t *it, int32_t i) {
        const rt_tensor_t *t = rt_interp_input_tensor(it, i);
        if (!t || rt_exec_needs_allocate(it->exec))
                return NULL;
        return t->data;
}

const void *rt_interp_output_data(const rt_interp_t *it, int32_t i) {
        const rt_tensor_t *t = rt_interp_output_tensor(it, i);
        if (!t || rt_exec_needs_allocate(it->exec))
                return NULL;
        return t->data;
}

int rt_interp_invoke(rt_interp_t *it) {
        if (!it)
                return -EINVAL;
        it->err[0] = 0;
        int r = rt_exec_invoke(it->exec);
        if (r < 0)
                return interp_fail(it, r, "%s", rt_exec_error(it->exec));
        return 0;
}

const char *rt_interp_last_error(const rt_interp_t *it) {
        return it ? it->err : "";
}

size_t rt_interp_arena_bytes(const rt_interp_t *it) {
        return it ? rt_exec_arena_bytes(it->exec) : 0;
}

int32_t rt_interp_num_threads(const rt_interp_t *it) {
        return it ? it->num_threads : -1;
}

int rt_interp_enable_profiling(rt_interp_t *it, bool enable) {
        return it ? rt_exec_set_profiling(it->exec, enable) : -EINVAL;
}

size_t rt_interp_profile(const rt_interp_t *it, const rt_node_profile_t **ret) {
        if (!it || !ret)
                return 0;
        return rt_exec_profile(it->exec, ret);
}

const rt_model_t *rt_interp_model(const rt_interp_t *it) {
        return it ? it->model : NULL;
}

size_t rt_interp_partitions(const rt_interp_t *it, rt_interp_partition_t *ret, size_t max) {
        if (!it)
                return 0;
        const rt_graph_t *g = rt_exec_graph(it->exec);
        const rt_partition_set_t *ps = rt_delegation_partitions(it->delegation);
        size_t n = 0;
        if (!ps || ps->n == 0) {
                if (ret && max > 0)
                        ret[0] = (rt_interp_partition_t) { "reference", g->n_plan };
                return 1;
        }
        const rt_driver_t *d = rt_delegation_driver(it->delegation);
        for (int32_t i = 0; i < ps->n; i++, n++)
                if (ret && n < max)
                        ret[n] = (rt_interp_partition_t) {
                                ps->v[i].delegated && !rt_delegation_partition_fell_back(it->delegation, i)
                                        ? d->name
                                        : "reference",
                                ps->v[i].n_nodes };
        return n;
}

const char *rt_interp_unsupported_reason(const rt_interp_t *it, int32_t node) {
        return it ? rt_delegation_reason(it->delegation, node) : "";
}
