/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "cleanup.h"
#include "config.h"
#include "driver.h"
#include "executor.h"
#include "fold.h"
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
        rt_wcache_t *wcache;            /* borrowed */
        char model_key[96];
        bool shared_arena;
        bool preserve_all;
};

/* A resource variable (VAR_HANDLE / ASSIGN_VARIABLE / READ_VARIABLE),
 * named by container and shared_name; the value is owned here. */
typedef struct resource {
        char *container;
        char *shared_name;
        bool assigned;
        rt_tensor_t value;  /* value.data: malloc()ed, value.bytes used */
        size_t cap;
} resource_t;

/* A kernel's object kept by the interpreter (hash tables, CALL_ONCE's
 * flag): rt_ctx_resource_object(). */
typedef struct object {
        const char *kind;  /* a kernel's string literal */
        int32_t id;
        void *obj;
        size_t size;  /* as asked for (what the object holds beyond it is the kernel's) */
        void (*destroy)(void *obj);
} object_t;

/*
 * A client's state (rt.h): what runs with the interpreter and belongs to
 * whoever runs it. While swapped in, `resources` and `objects` hold the
 * interpreter's own ones and `vars[s]` subgraph s's own variable blocks
 * (for the subgraphs marked in the interpreter's `traded`).
 */
struct rt_interp_state {
        const rt_model_t *model;  /* set at the first swap */
        rt_exec_vars_t *vars;     /* one per subgraph of model */
        int32_t n_vars;
        resource_t *resources;
        int32_t n_resources;
        object_t *objects;
        size_t n_objects;
};

struct rt_interp {
        const rt_model_t *model;
        rt_exec_t *exec;  /* subgraph 0; also subs[0] */
        rt_wcache_blob_t *weights;  /* the folded weights of exec, or NULL */
        rt_weights_hook_t weights_hook;  /* drivers' access to the cache */
        /* Control flow: one executor per subgraph the model calls (NULL
         * until needed), and which of them is running right now. */
        rt_exec_t **subs;
        bool *active;
        rt_exec_host_t host;
        rt_resolver_t *resolver;  /* during create only (its fallback is borrowed) */
        /* The state that is running: the interpreter's own, or a caller's
         * swapped in (rt_interp_state_swap(); `bound`), whose resources and
         * objects then sit here while the own ones wait in `bound`. */
        resource_t *resources;
        int32_t n_resources;
        object_t *objects;
        size_t n_objects;
        rt_interp_state_t *bound;
        bool *traded;  /* per subgraph: its variable tensors are bound's */
        bool has_state;
        rt_delegation_t *delegation;  /* NULL: everything on the reference kernels */
        char delegation_note[512];    /* what ran instead of the asked delegate, and why; or "" */
        op_list_t ops;  /* the interpreter's own copies of added ops */
        int32_t num_threads;
        bool preserve_all;  /* every tensor keeps its bytes (no arena reuse) */
        rt_error_reporter_t reporter;
        void *reporter_data;
        char err[1024];
};

static void resources_free(resource_t *v, int32_t n) {
        for (int32_t i = 0; i < n; i++) {
                free(v[i].container);
                free(v[i].shared_name);
                free(v[i].value.data);
        }
        free(v);
}

static void objects_free(object_t *v, size_t n) {
        for (size_t i = 0; i < n; i++) {
                if (v[i].destroy)
                        v[i].destroy(v[i].obj);
                free(v[i].obj);
        }
        free(v);
}

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

int rt_interp_options_set_weights_cache(rt_interp_options_t *o, rt_wcache_t *c, const char *model_key) {
        if (!o || (c && (!model_key || !*model_key || strlen(model_key) >= sizeof(o->model_key))))
                return -EINVAL;
        o->wcache = c;
        snprintf(o->model_key, sizeof(o->model_key), "%s", c ? model_key : "");
        return 0;
}

int rt_interp_options_set_shared_arena(rt_interp_options_t *o, bool shared) {
        if (!o)
                return -EINVAL;
        o->shared_arena = shared;
        return 0;
}

int rt_interp_options_set_preserve_all_tensors(rt_interp_options_t *o, bool preserve) {
        if (!o)
                return -EINVAL;
        o->preserve_all = preserve;
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

static void plugins_skip(void) {
}

void rt_plugin_autoload_disable(void) {
        (void) pthread_once(&plugins_once, plugins_skip);
}

/* " (did you mean X?)" when `name` is close to a Delegate name of the seed
 * or to a registered driver, else "". */
static void delegate_hint(const char *name, char *buf, size_t size) {
        const char *best = rt_settings_delegate_suggest(name);
        size_t best_d = best ? rt_settings_name_distance(name, best) : 0;
        for (size_t i = 0; i < rt_driver_count(); i++) {
                const rt_driver_t *d = rt_driver_get(i);
                if (!d || strcmp(d->name, "reference") == 0 || !rt_settings_name_close(name, d->name))
                        continue;
                size_t dist = rt_settings_name_distance(name, d->name);
                if (!best || dist < best_d) {
                        best = d->name;
                        best_d = dist;
                }
        }
        if (best)
                snprintf(buf, size, " (did you mean %s?)", best);
        else if (size)
                buf[0] = 0;
}

/*
 * Hand the groups of nodes the selected driver supports to it. When no
 * driver provides the delegate, or its driver cannot take the graph, the
 * FallbackSettings decide as TFLite's do: with fallback on compilation
 * errors allowed, the chain goes on to XNNPACK (float32), then to the
 * reference kernels, and the note says what ran and why; without it, an
 * absent delegate is DEVICE_UNAVAILABLE (-ENODEV). Groups a driver cannot
 * compile later follow the same chain (partition.c).
 */
static int delegation_setup(rt_interp_t *it, const rt_interp_options_t *o) {
        const rt_settings_t *s = &o->settings;
        const char *asked = rt_settings_delegate_name(s);
        const char *name = s->delegate == RT_DELEGATE_XNNPACK ? "xnnpack" : asked;
        const rt_driver_t *d = rt_driver_find(name);
        if (!d && s->delegate != RT_DELEGATE_XNNPACK) {
                (void) pthread_once(&plugins_once, plugins_load);
                d = rt_driver_find(name);
        }
        const rt_driver_t *xnn = rt_driver_find("xnnpack");
        bool fallback = s->fallback_on_compilation_error;
        char why[256] = "";
        if (!d || strcmp(d->name, "reference") == 0) {
                char hint[96];
                delegate_hint(asked, hint, sizeof(hint));
                snprintf(why, sizeof(why), "no driver provides delegate %s%s", asked, hint);
                if (!fallback)
                        return interp_fail(it, -ENODEV, "DEVICE_UNAVAILABLE: %s", why);
                d = s->delegate == RT_DELEGATE_XNNPACK ? NULL : xnn;
                if (!d) {
                        snprintf(it->delegation_note, sizeof(it->delegation_note), "%s; ran on the reference kernels",
                                 why);
                        return 0;
                }
        }
        rt_settings_t copy;
        if (rt_settings_copy(&copy, s) < 0)
                return interp_fail(it, -ENOMEM, "out of memory");
        if (copy.xnnpack_num_threads <= 0 && copy.cpu_num_threads <= 0 && o->num_threads > 0)
                copy.cpu_num_threads = o->num_threads;
        char err[512] = "";
        const rt_driver_t *second = fallback && d != xnn ? xnn : NULL;
        int r = rt_delegation_apply(it->exec, d, second, &copy, &it->delegation, err, sizeof(err));
        if (r < 0 && r != -ENOMEM && fallback) {
                /* The driver could not even take the graph: the next link. */
                snprintf(why, sizeof(why), "%s: %s", d->name, err[0] ? err : strerror(-r));
                r = second ? rt_delegation_apply(it->exec, second, NULL, &copy, &it->delegation, err, sizeof(err))
                           : -ENODEV;
                if (r < 0 && r != -ENOMEM) {
                        snprintf(it->delegation_note, sizeof(it->delegation_note), "%s; ran on the reference kernels",
                                 why);
                        r = 0;
                } else if (r == 0)
                        d = second;
        }
        rt_settings_done(&copy);
        if (r < 0)
                return interp_fail(it, r, "%s: %s", d->name, err[0] ? err : strerror(-r));
        if (why[0] && !it->delegation_note[0])
                snprintf(it->delegation_note, sizeof(it->delegation_note), "%s; ran on %s", why, d->name);
        return 0;
}

/* ---- control flow: subgraphs called by IF / WHILE / CALL_ONCE ---- */

/* The subgraphs op `op` runs (indices from its options, as the schema
 * numbers the fields); returns how many (0 for other ops). */
static int op_callees(const rt_model_op_t *op, int32_t ret[2]) {
        switch (op->builtin_code) {
        case RT_BUILTIN_IF:     /* IfOptions: then_subgraph_index, else_subgraph_index */
        case RT_BUILTIN_WHILE:  /* WhileOptions: cond_subgraph_index, body_subgraph_index */
                ret[0] = fbt_i32(op->builtin_options, 0, 0);
                ret[1] = fbt_i32(op->builtin_options, 1, 0);
                return 2;
        case RT_BUILTIN_CALL_ONCE:  /* CallOnceOptions: init_subgraph_index */
                ret[0] = fbt_i32(op->builtin_options, 0, 0);
                return 1;
        default:
                return 0;
        }
}

/* Depth-first walk from subgraph `s`: every callee index must exist, no
 * subgraph may (indirectly) call itself, and reachable ones are marked in
 * `reach`. state: 0 unvisited, 1 on the current path, 2 done. */
static int calls_walk(rt_interp_t *it, int32_t s, uint8_t *state, bool *reach, int depth) {
        const rt_model_t *m = it->model;
        if (depth > 64)
                return interp_fail(it, -EINVAL, "subgraph calls nest deeper than 64 levels");
        state[s] = 1;
        reach[s] = true;
        const rt_model_subgraph_t *sg = &m->subgraphs[s];
        for (int32_t i = 0; i < sg->n_ops; i++) {
                int32_t callee[2];
                int n = op_callees(&sg->ops[i], callee);
                for (int k = 0; k < n; k++) {
                        const char *name = rt_op_name(sg->ops[i].builtin_code);
                        if (callee[k] < 0 || callee[k] >= m->n_subgraphs)
                                return interp_fail(it, -EINVAL,
                                                   "subgraph %d node %d (%s): subgraph index %d out of range (%d subgraphs)",
                                                   s, i, name, callee[k], m->n_subgraphs);
                        if (state[callee[k]] == 1)
                                return interp_fail(it, -EINVAL,
                                                   "subgraph %d node %d (%s): calls subgraph %d, which is already on the call path (recursion is not supported)",
                                                   s, i, name, callee[k]);
                        if (state[callee[k]] == 0) {
                                int r = calls_walk(it, callee[k], state, reach, depth + 1);
                                if (r < 0)
                                        return r;
                        }
                }
        }
        state[s] = 2;
        return 0;
}

static rt_exec_t *sub_get(rt_interp_t *it, int32_t s, char *err, size_t err_size) {
        if (it->subs[s])
                return it->subs[s];
        rt_exec_t *e = NULL;
        char msg[768] = "";
        if (!it->resolver) {
                snprintf(err, err_size, "subgraph %d is not called by subgraph 0's control flow and was not set up",
                         s);
                return NULL;
        }
        int r = rt_exec_new(it->model, s, it->resolver, &e, msg, sizeof(msg));
        if (r < 0) {
                snprintf(err, err_size, "subgraph %d: %s", s, msg);
                return NULL;
        }
        rt_exec_set_host(e, &it->host);
        rt_exec_set_preserve_all(e, it->preserve_all);
        it->subs[s] = e;
        return e;
}

static int host_subgraph_io(void *user, int32_t s, int32_t *ret_n_inputs, int32_t *ret_n_outputs,
                            char *err, size_t err_size) {
        rt_interp_t *it = user;
        if (s < 0 || s >= it->model->n_subgraphs) {
                snprintf(err, err_size, "subgraph index %d out of range (%d subgraphs)", s,
                         it->model->n_subgraphs);
                return -EINVAL;
        }
        const rt_model_subgraph_t *sg = &it->model->subgraphs[s];
        if (ret_n_inputs)
                *ret_n_inputs = sg->n_inputs;
        if (ret_n_outputs)
                *ret_n_outputs = sg->n_outputs;
        return 0;
}

static bool same_shape(const rt_tensor_t *a, const rt_tensor_t *b) {
        if (a->rank != b->rank)
                return false;
        for (int32_t d = 0; d < a->rank; d++)
                if (a->dims[d] != b->dims[d])
                        return false;
        return true;
}

static int host_call_subgraph(void *user, int32_t s, const rt_tensor_t *const *inputs, int32_t n_inputs,
                              const rt_tensor_t **ret_outputs, int32_t n_outputs, char *err,
                              size_t err_size) {
        rt_interp_t *it = user;
        int r = host_subgraph_io(user, s, NULL, NULL, err, err_size);
        if (r < 0)
                return r;
        if (it->active[s]) {
                snprintf(err, err_size, "subgraph %d is already running (recursion is not supported)", s);
                return -EINVAL;
        }
        rt_exec_t *e = sub_get(it, s, err, err_size);
        if (!e)
                return -EINVAL;
        rt_graph_t *g = rt_exec_graph(e);
        if (n_inputs != g->n_inputs || n_outputs != g->n_outputs || (n_inputs > 0 && !inputs) ||
            (n_outputs > 0 && !ret_outputs)) {
                snprintf(err, err_size, "subgraph %d takes %d inputs and gives %d outputs, called with %d and %d",
                         s, g->n_inputs, g->n_outputs, n_inputs, n_outputs);
                return -EINVAL;
        }
        for (int32_t i = 0; i < n_inputs; i++) {
                const rt_tensor_t *src = inputs[i];
                rt_tensor_t *dst = &g->tensors[g->inputs[i]];
                if (!src || src->type != dst->type) {
                        snprintf(err, err_size, "subgraph %d input %d '%s' is %s, got %s", s, i, dst->name,
                                 rt_type_name(dst->type), src ? rt_type_name(src->type) : "nothing");
                        return -EINVAL;
                }
                if (!same_shape(src, dst)) {
                        r = rt_exec_resize_tensor(e, g->inputs[i], src->rank, src->dims);
                        if (r < 0) {
                                snprintf(err, err_size, "subgraph %d input %d: %s", s, i, rt_exec_error(e));
                                return r;
                        }
                }
        }
        it->active[s] = true;
        if (rt_exec_needs_allocate(e)) {
                r = rt_exec_allocate(e);
                if (r < 0) {
                        it->active[s] = false;
                        snprintf(err, err_size, "subgraph %d: %s", s, rt_exec_error(e));
                        return r;
                }
                if (it->bound && !it->traded[s]) {
                        /* Its variable tensors exist only now: the running
                         * state's take their place. */
                        r = rt_exec_vars_swap(e, &it->bound->vars[s]);
                        if (r < 0) {
                                it->active[s] = false;
                                snprintf(err, err_size, "subgraph %d: out of memory for its variable tensors", s);
                                return r;
                        }
                        it->traded[s] = r > 0;
                }
        }
        for (int32_t i = 0; i < n_inputs; i++) {
                rt_tensor_t *dst = &g->tensors[g->inputs[i]];
                if (dst->type == RT_TYPE_STRING) {
                        /* Serialized strings live in executor-owned heap
                         * storage, as after rt_interp_copy_in(). */
                        rt_tensor_meta_t *m = &g->meta[g->inputs[i]];
                        void *p = malloc(inputs[i]->bytes ? inputs[i]->bytes : 1);
                        if (!p) {
                                it->active[s] = false;
                                return -ENOMEM;
                        }
                        if (inputs[i]->bytes)
                                memcpy(p, inputs[i]->data, inputs[i]->bytes);
                        free(m->heap);
                        m->heap = p;
                        m->heap_bytes = inputs[i]->bytes;
                        dst->data = p;
                        dst->bytes = inputs[i]->bytes;
                        continue;
                }
                size_t bytes = rt_graph_tensor_bytes(dst, NULL);
                if (bytes == 0)
                        continue;
                if (!inputs[i]->data || !dst->data || inputs[i]->bytes < bytes) {
                        it->active[s] = false;
                        snprintf(err, err_size, "subgraph %d input %d: no data to copy", s, i);
                        return -EINVAL;
                }
                memcpy(dst->data, inputs[i]->data, bytes);
        }
        r = rt_exec_invoke(e);
        it->active[s] = false;
        if (r < 0) {
                snprintf(err, err_size, "subgraph %d: %s", s, rt_exec_error(e));
                return r;
        }
        for (int32_t i = 0; i < n_outputs; i++)
                ret_outputs[i] = &g->tensors[g->outputs[i]];
        return 0;
}

static int32_t host_resource_id(void *user, const char *container, const char *shared_name) {
        rt_interp_t *it = user;
        for (int32_t i = 0; i < it->n_resources; i++)
                if (strcmp(it->resources[i].container, container) == 0 &&
                    strcmp(it->resources[i].shared_name, shared_name) == 0)
                        return i;
        if (it->n_resources == INT32_MAX)
                return -ENOMEM;
        resource_t *v = realloc(it->resources, ((size_t) it->n_resources + 1) * sizeof(*v));
        if (!v)
                return -ENOMEM;
        it->resources = v;
        resource_t *res = &v[it->n_resources];
        memset(res, 0, sizeof(*res));
        res->container = strdup(container);
        res->shared_name = strdup(shared_name);
        if (!res->container || !res->shared_name) {
                free(res->container);
                free(res->shared_name);
                return -ENOMEM;
        }
        return it->n_resources++;
}

static const rt_tensor_t *host_resource_read(void *user, int32_t id) {
        rt_interp_t *it = user;
        if (id < 0 || id >= it->n_resources || !it->resources[id].assigned)
                return NULL;
        return &it->resources[id].value;
}

static int host_resource_assign(void *user, int32_t id, const rt_tensor_t *value, char *err,
                                size_t err_size) {
        rt_interp_t *it = user;
        if (id < 0 || id >= it->n_resources || !value) {
                snprintf(err, err_size, "resource %d does not exist (%d resources)", id, it->n_resources);
                return -EINVAL;
        }
        if (value->type == RT_TYPE_STRING || value->type == RT_TYPE_RESOURCE ||
            value->type == RT_TYPE_VARIANT) {
                snprintf(err, err_size, "resource variables of type %s are not supported",
                         rt_type_name(value->type));
                return -ENOTSUP;
        }
        resource_t *res = &it->resources[id];
        bool overflow = false;
        size_t bytes = rt_graph_tensor_bytes(value, &overflow);
        if (overflow || (bytes > 0 && !value->data)) {
                snprintf(err, err_size, "resource %d: value has no data", id);
                return -EINVAL;
        }
        if (bytes > res->cap || !res->value.data) {
                void *p = malloc(bytes ? bytes : 1);
                if (!p)
                        return -ENOMEM;
                free(res->value.data);
                res->value.data = p;
                res->cap = bytes;
        }
        if (bytes)
                memcpy(res->value.data, value->data, bytes);
        void *data = res->value.data;
        res->value = (rt_tensor_t) { .type = value->type, .rank = value->rank, .data = data,
                                     .bytes = bytes, .alloc = RT_ALLOC_PERSISTENT,
                                     .name = res->shared_name };
        memcpy(res->value.dims, value->dims, sizeof(res->value.dims));
        res->assigned = true;
        return 0;
}

static void *host_resource_object(void *user, const char *kind, int32_t id, size_t size,
                                  void (*destroy)(void *obj)) {
        rt_interp_t *it = user;
        if (!kind)
                return NULL;
        for (size_t i = 0; i < it->n_objects; i++)
                if (it->objects[i].id == id && strcmp(it->objects[i].kind, kind) == 0)
                        return it->objects[i].obj;
        if (size == 0)
                return NULL;
        object_t *v = realloc(it->objects, (it->n_objects + 1) * sizeof(*v));
        if (!v)
                return NULL;
        it->objects = v;
        void *obj = calloc(1, size);
        if (!obj)
                return NULL;
        v[it->n_objects++] = (struct object) { kind, id, obj, size, destroy };
        return obj;
}

/* ---- per-client state ---- */

/* Whether running the model keeps anything between invokes: variable
 * tensors, resource variables, hash tables, CALL_ONCE or the position of
 * a random op's generator. */
static bool model_has_state(const rt_model_t *m) {
        for (int32_t s = 0; s < m->n_subgraphs; s++) {
                const rt_model_subgraph_t *sg = &m->subgraphs[s];
                for (int32_t i = 0; i < sg->n_tensors; i++)
                        if (sg->tensors[i].is_variable)
                                return true;
                for (int32_t i = 0; i < sg->n_ops; i++)
                        switch (sg->ops[i].builtin_code) {
                        case RT_BUILTIN_VAR_HANDLE:
                        case RT_BUILTIN_ASSIGN_VARIABLE:
                        case RT_BUILTIN_READ_VARIABLE:
                        case RT_BUILTIN_CALL_ONCE:
                        case RT_BUILTIN_HASHTABLE:
                        case RT_BUILTIN_HASHTABLE_IMPORT:
                        case RT_BUILTIN_RANDOM_UNIFORM:
                        case RT_BUILTIN_RANDOM_STANDARD_NORMAL:
                        case RT_BUILTIN_MULTINOMIAL:
                                return true;
                        default:
                                break;
                        }
        }
        return false;
}

bool rt_interp_has_state(const rt_interp_t *it) {
        return it && it->has_state;
}

rt_interp_state_t *rt_interp_state_new(void) {
        return calloc(1, sizeof(rt_interp_state_t));
}

void rt_interp_state_reset(rt_interp_state_t *st) {
        if (!st)
                return;
        for (int32_t s = 0; s < st->n_vars; s++)
                rt_exec_vars_done(&st->vars[s]);
        resources_free(st->resources, st->n_resources);
        objects_free(st->objects, st->n_objects);
        st->resources = NULL;
        st->n_resources = 0;
        st->objects = NULL;
        st->n_objects = 0;
}

rt_interp_state_t *rt_interp_state_free(rt_interp_state_t *st) {
        if (!st)
                return NULL;
        rt_interp_state_reset(st);
        free(st->vars);
        free(st);
        return NULL;
}

size_t rt_interp_state_bytes(const rt_interp_state_t *st) {
        if (!st)
                return 0;
        size_t n = 0;
        for (int32_t s = 0; s < st->n_vars; s++)
                n += rt_exec_vars_bytes(&st->vars[s]);
        for (int32_t i = 0; i < st->n_resources; i++)
                n += st->resources[i].cap;
        for (size_t i = 0; i < st->n_objects; i++)
                n += st->objects[i].size;
        return n;
}

/* Trade the variable tensors of every subgraph that has them placed, or
 * (out) of those traded in; no failure leaves a subgraph half-traded. */
static int vars_trade(rt_interp_t *it, rt_interp_state_t *st, bool in) {
        for (int32_t s = 0; s < it->model->n_subgraphs; s++) {
                if (!it->subs[s] || (!in && !it->traded[s]))
                        continue;
                int r = rt_exec_vars_swap(it->subs[s], &st->vars[s]);
                if (r < 0) {
                        /* Only swapping in can fail (slots are made to
                         * fit); give back what was traded so far. */
                        for (int32_t k = 0; k < s; k++)
                                if (it->traded[k]) {
                                        (void) rt_exec_vars_swap(it->subs[k], &st->vars[k]);
                                        it->traded[k] = false;
                                }
                        return r;
                }
                it->traded[s] = in && r > 0;
        }
        return 0;
}

int rt_interp_state_swap(rt_interp_t *it, rt_interp_state_t *st) {
        if (!it || !st || (it->bound && it->bound != st))
                return -EINVAL;
        if (st->model && st->model != it->model)
                return interp_fail(it, -EINVAL, "this state belongs to an interpreter of another model");
        if (!st->vars) {
                st->vars = calloc((size_t) it->model->n_subgraphs, sizeof(*st->vars));
                if (!st->vars)
                        return interp_fail(it, -ENOMEM, "out of memory");
                st->n_vars = it->model->n_subgraphs;
                st->model = it->model;
        }
        bool in = it->bound == NULL;
        int r = vars_trade(it, st, in);
        if (r < 0)
                return interp_fail(it, r, "out of memory for the variable tensors of a state");
        resource_t *res = it->resources;
        int32_t n_res = it->n_resources;
        object_t *obj = it->objects;
        size_t n_obj = it->n_objects;
        it->resources = st->resources;
        it->n_resources = st->n_resources;
        it->objects = st->objects;
        it->n_objects = st->n_objects;
        st->resources = res;
        st->n_resources = n_res;
        st->objects = obj;
        st->n_objects = n_obj;
        it->bound = in ? st : NULL;
        return 0;
}

int rt_interp_reset_variables(rt_interp_t *it) {
        if (!it)
                return -EINVAL;
        for (int32_t s = 0; s < it->model->n_subgraphs; s++)
                if (it->subs[s])
                        rt_exec_vars_reset(it->subs[s]);
        return 0;
}

/* Executors for every subgraph that subgraph 0 (indirectly) calls, after
 * checking the call graph: bad indices and recursion fail here. */
static int subgraphs_setup(rt_interp_t *it) {
        const rt_model_t *m = it->model;
        it->subs = calloc((size_t) m->n_subgraphs, sizeof(*it->subs));
        it->active = calloc((size_t) m->n_subgraphs, sizeof(*it->active));
        it->traded = calloc((size_t) m->n_subgraphs, sizeof(*it->traded));
        uint8_t *state = calloc((size_t) m->n_subgraphs, 1);
        bool *reach = calloc((size_t) m->n_subgraphs, sizeof(bool));
        int r = 0;
        if (!it->subs || !it->active || !it->traded || !state || !reach) {
                r = interp_fail(it, -ENOMEM, "out of memory");
                goto out;
        }
        it->host = (rt_exec_host_t) {
                .user = it,
                .subgraph_io = host_subgraph_io,
                .call_subgraph = host_call_subgraph,
                .resource_id = host_resource_id,
                .resource_read = host_resource_read,
                .resource_assign = host_resource_assign,
                .resource_object = host_resource_object,
        };
        r = calls_walk(it, 0, state, reach, 0);
        if (r < 0)
                goto out;
        for (int32_t s = 1; s < m->n_subgraphs; s++) {
                if (!reach[s])
                        continue;
                if (!sub_get(it, s, it->err, sizeof(it->err))) {
                        r = interp_fail(it, -EINVAL, "%s", it->err);
                        goto out;
                }
        }
out:
        free(state);
        free(reach);
        return r;
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
        it->has_state = model_has_state(model);
        it->num_threads = options ? options->num_threads : -1;
        it->preserve_all = options && options->preserve_all;
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
        it->resolver = res;
        res = NULL;
        r = subgraphs_setup(it);
        if (r < 0)
                goto error;
        it->subs[0] = it->exec;
        rt_exec_set_host(it->exec, &it->host);
        if (options && options->shared_arena)
                rt_exec_set_shared_arena(it->exec, true);
        rt_exec_set_preserve_all(it->exec, it->preserve_all);
        /* Every subgraph is built now; options->resolver (the resolver's
         * fallback) is only borrowed for this call. */
        it->resolver = rt_resolver_free(it->resolver);
        /* Constant DENSIFY and DEQUANTIZE run once, now (from the weights
         * cache when there is one), whatever runs the rest. */
        r = rt_fold_weights(it->exec, options ? options->wcache : NULL, options ? options->model_key : NULL, 0,
                            &it->weights);
        if (r < 0) {
                interp_fail(it, r, "%s", rt_exec_error(it->exec));
                goto error;
        }
        if (options && options->wcache &&
            rt_weights_hook_init(&it->weights_hook, options->wcache, options->model_key) == 0)
                rt_exec_set_weights(it->exec, &it->weights_hook.pub);
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
        /* A caller's state still swapped in goes back to its owner, who
         * frees it; the interpreter frees only its own. */
        if (it->bound)
                (void) rt_interp_state_swap(it, it->bound);
        /* The other subgraphs first, then subgraph 0 as before. */
        for (int32_t s = 1; it->subs && s < it->model->n_subgraphs; s++)
                rt_exec_free(it->subs[s]);
        rt_exec_free(it->exec);
        rt_delegation_free(it->delegation);
        rt_wcache_blob_unref(it->weights);
        free(it->subs);
        free(it->active);
        free(it->traded);
        resources_free(it->resources, it->n_resources);
        objects_free(it->objects, it->n_objects);
        rt_resolver_free(it->resolver);
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

/* Copy `size` bytes into graph tensor `ti`, called `what` `i` in messages
 * ("input 0", "tensor 5"): strings replace the tensor's heap block, other
 * types must match its byte size. */
static int tensor_copy_in(rt_interp_t *it, int32_t ti, const char *what, int32_t i, const void *data,
                          size_t size) {
        if (!data && size > 0)
                return interp_fail(it, -EINVAL, "%s %d: no data", what, i);
        if (rt_exec_needs_allocate(it->exec))
                return interp_fail(it, -EINVAL, "%s %d: tensors are not allocated", what, i);
        rt_graph_t *g = graph(it);
        rt_tensor_t *t = &g->tensors[ti];
        char shape[128];
        shape_format(t, shape, sizeof(shape));
        if (t->alloc == RT_ALLOC_CONST)
                return interp_fail(it, -EINVAL, "%s %d '%s' (%s) is a constant of the model: read-only", what, i,
                                   t->name, shape);
        if (t->type == RT_TYPE_STRING) {
                char why[160];
                if (strings_check(data, size, rt_tensor_count(t), why, sizeof(why)) < 0)
                        return interp_fail(it, -EINVAL, "%s %d '%s' (%s): %s", what, i, t->name, shape, why);
                rt_tensor_meta_t *m = &g->meta[ti];
                void *p = malloc(size);
                if (!p)
                        return interp_fail(it, -ENOMEM, "%s %d: out of memory", what, i);
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
                return interp_fail(it, -EINVAL, "%s %d '%s': expected %zu bytes (%s), got %zu%s", what, i,
                                   t->name, want, shape, size, t->data ? "" : " (it has no storage)");
        memcpy(t->data, data, size);
        return 0;
}

int rt_interp_copy_in(rt_interp_t *it, int32_t i, const void *data, size_t size) {
        if (!it)
                return -EINVAL;
        int32_t ti = input_index(it, i);
        if (ti < 0)
                return interp_fail(it, -EINVAL, "input %d out of range (%d inputs)", i,
                                   rt_interp_input_count(it));
        return tensor_copy_in(it, ti, "input", i, data, size);
}

int32_t rt_interp_tensor_count(const rt_interp_t *it) {
        return it ? graph(it)->n_tensors : 0;
}

const rt_tensor_t *rt_interp_tensor(const rt_interp_t *it, int32_t t) {
        if (!it || t < 0 || t >= graph(it)->n_tensors)
                return NULL;
        return &graph(it)->tensors[t];
}

void *rt_interp_tensor_data(rt_interp_t *it, int32_t t) {
        const rt_tensor_t *x = rt_interp_tensor(it, t);
        if (!x || x->alloc == RT_ALLOC_CONST || rt_exec_needs_allocate(it->exec))
                return NULL;
        return x->data;
}

int rt_interp_tensor_copy_in(rt_interp_t *it, int32_t t, const void *data, size_t size) {
        if (!it)
                return -EINVAL;
        if (t < 0 || t >= graph(it)->n_tensors)
                return interp_fail(it, -EINVAL, "tensor %d out of range (%d tensors)", t, graph(it)->n_tensors);
        return tensor_copy_in(it, t, "tensor", t, data, size);
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

static int32_t io_index(const rt_interp_t *it, rt_io_t io, int32_t i) {
        return io == RT_IO_INPUT ? input_index(it, i) : io == RT_IO_OUTPUT ? output_index(it, i) : -1;
}

int rt_interp_set_tensor_buffer(rt_interp_t *it, rt_io_t io, int32_t i, void *data, size_t size) {
        if (!it)
                return -EINVAL;
        const char *what = io == RT_IO_INPUT ? "input" : "output";
        int32_t t = io_index(it, io, i);
        if (t < 0)
                return interp_fail(it, -EINVAL, "%s %d out of range (%d %ss)", what, i,
                                   io == RT_IO_INPUT ? rt_interp_input_count(it) : rt_interp_output_count(it),
                                   what);
        const rt_tensor_meta_t *m = &graph(it)->meta[t];
        if (data && m->graph_input && m->graph_output)
                return interp_fail(it, -EINVAL,
                                   "%s %d '%s' is both a graph input and a graph output and cannot use a caller buffer",
                                   what, i, graph(it)->tensors[t].name);
        int r = rt_exec_set_tensor_buffer(it->exec, t, data, size);
        if (r < 0)
                return interp_fail(it, r, "%s %d: %s", what, i, rt_exec_error(it->exec));
        return 0;
}

size_t rt_interp_tensor_buffer_bytes(const rt_interp_t *it, rt_io_t io, int32_t i) {
        int32_t t = io_index(it, io, i);
        return t < 0 ? 0 : rt_exec_tensor_buffer_bytes(it->exec, t);
}

int rt_interp_invoke(rt_interp_t *it) {
        if (!it)
                return -EINVAL;
        it->err[0] = 0;
        it->active[0] = true;
#if defined(__SSE__)
        /* TensorFlow Lite runs Interpreter::Invoke with subnormals flushed
         * (ruy::ScopedSuppressDenormals: FTZ and DAZ on x86); so do we, so
         * that a product through 1e-39 is 0 in both. */
        /* Both control words are in memory before the first write: the
         * restore then loads a word stored long before, where a store
         * just ahead of LDMXCSR can stall it. */
        unsigned int csr[2];
        __asm__ volatile("stmxcsr %0" : "=m"(csr[0]));
        csr[1] = csr[0] | 0x8040u;
        __asm__ volatile("ldmxcsr %0" : : "m"(csr[1]) : "memory");
#endif
        int r = rt_exec_invoke(it->exec);
#if defined(__SSE__)
        __asm__ volatile("ldmxcsr %0" : : "m"(csr[0]) : "memory");
#endif
        it->active[0] = false;
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
                        ret[0] = (rt_interp_partition_t) { "reference", g->n_plan, it->delegation_note, -1 };
                return 1;
        }
        for (int32_t i = 0; i < ps->n; i++, n++)
                if (ret && n < max)
                        ret[n] = (rt_interp_partition_t) {
                                rt_delegation_partition_driver(it->delegation, i),
                                ps->v[i].n_nodes,
                                rt_delegation_partition_why(it->delegation, i),
                                rt_delegation_partition_node(it->delegation, i),
                        };
        return n;
}

const char *rt_interp_delegation_note(const rt_interp_t *it) {
        return it ? it->delegation_note : "";
}

const char *rt_interp_unsupported_reason(const rt_interp_t *it, int32_t node) {
        return it ? rt_delegation_reason(it->delegation, node) : "";
}

int rt_model_check_ops(const rt_model_t *m, int32_t subgraph,
                       void (*cb)(void *user, int32_t node, const char *message), void *user) {
        const rt_resolver_t *builtins = rt_resolver_builtins();
        if (!m)
                return -EINVAL;
        return builtins ? rt_graph_check_ops(m, subgraph, builtins, cb, user) : -ENOMEM;
}
