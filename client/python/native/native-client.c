/* SPDX-License-Identifier: Apache-2.0 */
/*
 * _native.Client: one libaccel connection for the daemon's queries
 * (capabilities, status, supported operations, models, benchmarks). Results
 * are dicts with libaccel's field names; accel/client.py gives them
 * accelctl --json's shape.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "accel/accel.h"
#include "native.h"

typedef struct {
        PyObject_HEAD
        PyThread_type_lock lock;
        accel_client_t *c;
} NativeClient;

#define CALL(cl, r, expr)                                               \
        do {                                                            \
                Py_BEGIN_ALLOW_THREADS                                  \
                PyThread_acquire_lock((cl)->lock, WAIT_LOCK);           \
                (r) = (expr);                                           \
                PyThread_release_lock((cl)->lock);                      \
                Py_END_ALLOW_THREADS                                    \
        } while (0)

static int client_init(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "socket", NULL };
        NativeClient *cl = (NativeClient *) self;
        const char *path = NULL;
        int r;

        if (cl->lock) {
                PyErr_SetString(PyExc_RuntimeError, "Client is already initialised");
                return -1;
        }
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z", kw, &path))
                return -1;
        cl->lock = PyThread_allocate_lock();
        if (!cl->lock) {
                PyErr_NoMemory();
                return -1;
        }
        Py_BEGIN_ALLOW_THREADS
        r = accel_connect(path, &cl->c);
        if (r == 0) {
                accel_hello_t *h = NULL;

                r = accel_hello(cl->c, "python", &h);
                accel_hello_free(h);
        }
        Py_END_ALLOW_THREADS
        if (r < 0) {
                if (accel_last_status() == ACCEL_STATUS_NONE && r != -ECONNRESET)
                        native_raise(r, "DEVICE_UNAVAILABLE", accel_last_error());
                else
                        native_raise_accel(r);
                return -1;
        }
        return 0;
}

static void client_dealloc(PyObject *self) {
        NativeClient *cl = (NativeClient *) self;

        accel_disconnect(cl->c);
        if (cl->lock)
                PyThread_free_lock(cl->lock);
        Py_TYPE(self)->tp_free(self);
}

static int ready(NativeClient *cl) {
        if (!cl->c) {
                PyErr_SetString(PyExc_RuntimeError, "Client is closed");
                return -1;
        }
        return 0;
}

static PyObject *str_list(char *const *v, size_t n) {
        PyObject *l = PyList_New((Py_ssize_t) n);

        for (size_t i = 0; l && i < n; i++) {
                PyObject *x = PyUnicode_FromString(v[i] ? v[i] : "");

                if (!x) {
                        Py_CLEAR(l);
                        break;
                }
                PyList_SET_ITEM(l, (Py_ssize_t) i, x);
        }
        return l;
}

/* Append `x` (stolen) to list `l`; -1 on failure (both released). */
static int append(PyObject *l, PyObject *x) {
        int r = x ? PyList_Append(l, x) : -1;

        Py_XDECREF(x);
        return r;
}

static PyObject *limits_dict(const accel_limits_t *l) {
        return Py_BuildValue("{s:I,s:I,s:I,s:I}", "max_frame_bytes", l->max_frame_bytes, "max_fds_per_frame",
                             l->max_fds_per_frame, "max_in_flight_per_connection", l->max_in_flight_per_connection,
                             "max_connections", l->max_connections);
}

static PyObject *client_capabilities(PyObject *self, PyObject *unused) {
        NativeClient *cl = (NativeClient *) self;
        accel_capabilities_t *caps;
        PyObject *backends, *ret = NULL;
        int r;

        if (ready(cl) < 0)
                return NULL;
        CALL(cl, r, accel_get_capabilities(cl->c, &caps));
        if (r < 0)
                return native_raise_accel(r);
        backends = PyList_New(0);
        for (size_t i = 0; backends && i < caps->n_backends; i++) {
                const accel_backend_t *b = &caps->backends[i];
                PyObject *perf = PyList_New(0);

                for (size_t k = 0; perf && k < b->n_performance; k++)
                        if (append(perf, Py_BuildValue("{s:s,s:d,s:d}", "operand_type", b->performance[k].operand_type,
                                                       "exec_time", (double) b->performance[k].exec_time, "power_usage",
                                                       (double) b->performance[k].power_usage)) < 0)
                                Py_CLEAR(perf);
                if (!perf || append(backends, Py_BuildValue("{s:s,s:s,s:s,s:O,s:s,s:s,s:N}", "name", b->name,
                                                            "delegate", b->delegate_name, "type", b->type,
                                                            "available", b->available ? Py_True : Py_False,
                                                            "version", b->version, "reason", b->reason,
                                                            "performance", perf)) < 0)
                        Py_CLEAR(backends);
        }
        if (backends)
                ret = Py_BuildValue(
                        "{s:{s:s,s:s,s:s,s:I,s:I,s:N,s:I,s:I,s:I},s:{s:K,s:K},s:N}", "cpu", "vendor", caps->cpu.vendor,
                        "model", caps->cpu.model, "architecture", caps->cpu.architecture, "cores", caps->cpu.cores,
                        "logical_processors", caps->cpu.logical_processors, "features",
                        str_list(caps->cpu.features, caps->cpu.n_features), "l1d_cache_kb", caps->cpu.l1d_cache_kb,
                        "l2_cache_kb", caps->cpu.l2_cache_kb, "l3_cache_kb", caps->cpu.l3_cache_kb, "memory",
                        "total_bytes", (unsigned long long) caps->memory.total_bytes, "available_bytes",
                        (unsigned long long) caps->memory.available_bytes, "backends", backends);
        accel_capabilities_free(caps);
        return ret;
}

static PyObject *client_status(PyObject *self, PyObject *unused) {
        NativeClient *cl = (NativeClient *) self;
        accel_daemon_status_t *s;
        PyObject *ret;
        int r;

        if (ready(cl) < 0)
                return NULL;
        CALL(cl, r, accel_get_status(cl->c, &s));
        if (r < 0)
                return native_raise_accel(r);
        ret = Py_BuildValue("{s:s,s:I,s:K,s:I,s:K,s:K,s:K,s:K,s:s,s:s,s:N}", "server_version", s->server_version,
                            "pid", s->pid, "uptime_us", (unsigned long long) s->uptime_us, "connections",
                            s->connections, "connections_total", (unsigned long long) s->connections_total,
                            "requests_served", (unsigned long long) s->requests_served, "errors",
                            (unsigned long long) s->errors, "protocol_errors", (unsigned long long) s->protocol_errors,
                            "socket_path", s->socket_path, "state_directory", s->state_directory, "limits",
                            limits_dict(&s->limits));
        if (ret) {
                PyObject *hosts = PyList_New(0);
                for (size_t i = 0; hosts && i < s->n_driver_hosts; i++) {
                        const struct accel_driver_host *h = &s->driver_hosts[i];
                        PyObject *o = Py_BuildValue("{s:s,s:I,s:I,s:I,s:s,s:K,s:K}", "driver", h->driver, "pid",
                                                    h->pid, "starts", h->starts, "deaths", h->deaths, "last_death",
                                                    h->last_death, "tensors_in_place",
                                                    (unsigned long long) h->tensors_in_place, "tensors_copied",
                                                    (unsigned long long) h->tensors_copied);
                        if (!o || PyList_Append(hosts, o) < 0)
                                Py_CLEAR(hosts);
                        Py_XDECREF(o);
                }
                if (!hosts || PyDict_SetItemString(ret, "driver_hosts", hosts) < 0)
                        Py_CLEAR(ret);
                Py_XDECREF(hosts);
        }
        if (ret) {
                const struct accel_serving_status *v = &s->serving;
                PyObject *sv = Py_BuildValue(
                        "{s:I,s:I,s:I,s:K,s:I,s:I,s:I,s:I,s:K,s:{s:I,s:I,s:K,s:I},s:{s:I,s:K,s:I}}",
                        "compiled_instances", v->compiled_instances, "prepared_models", v->prepared_models,
                        "registered_buffers", v->registered_buffers, "registered_bytes",
                        (unsigned long long) v->registered_bytes, "queued_requests", v->queued_requests,
                        "running_requests", v->running_requests, "interpreters", v->interpreters, "worker_threads",
                        v->worker_threads, "executions", (unsigned long long) v->executions, "caller", "uid", v->uid,
                        "prepared_models", v->uid_prepared_models, "registered_bytes",
                        (unsigned long long) v->uid_registered_bytes, "queued_requests", v->uid_queued_requests,
                        "uid_limits", "max_prepared_models", v->max_prepared_models, "max_registered_bytes",
                        (unsigned long long) v->max_registered_bytes, "max_queued_requests", v->max_queued_requests);
                if (!sv || PyDict_SetItemString(ret, "serving", sv) < 0)
                        Py_CLEAR(ret);
                Py_XDECREF(sv);
        }
        if (ret) {
                PyObject *ln = Py_BuildValue("{s:I,s:K}", "open", s->lanes.open, "executions",
                                             (unsigned long long) s->lanes.executions);

                if (!ln || PyDict_SetItemString(ret, "lanes", ln) < 0)
                        Py_CLEAR(ret);
                Py_XDECREF(ln);
        }
        if (ret) {
                const struct accel_weights_cache_status *w = &s->weights_cache;
                PyObject *wc = Py_BuildValue("{s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "directory",
                                             w->directory ? w->directory : "", "hits", (unsigned long long) w->hits,
                                             "misses", (unsigned long long) w->misses, "inserts",
                                             (unsigned long long) w->inserts, "corrupt",
                                             (unsigned long long) w->corrupt, "evictions",
                                             (unsigned long long) w->evictions, "files", (unsigned long long) w->files,
                                             "bytes", (unsigned long long) w->bytes, "mapped_bytes",
                                             (unsigned long long) w->mapped_bytes, "quota_bytes",
                                             (unsigned long long) w->quota_bytes);
                if (!wc || PyDict_SetItemString(ret, "weights_cache", wc) < 0)
                        Py_CLEAR(ret);
                Py_XDECREF(wc);
        }
        if (ret) {
                const struct accel_refusals *f = &s->refusals;
                PyObject *cpu = Py_BuildValue("{s:I,s:I}", "budget", s->cpu_budget, "in_use", s->cpu_in_use);
                PyObject *rf = PyDict_New();
#define REFUSAL_ITEM(name)                                                                      \
                if (rf) {                                                                       \
                        PyObject *n = PyLong_FromUnsignedLongLong(f->name);                     \
                        if (!n || PyDict_SetItemString(rf, #name, n) < 0)                       \
                                Py_CLEAR(rf);                                                   \
                        Py_XDECREF(n);                                                          \
                }
                ACCEL_REFUSALS_MAP(REFUSAL_ITEM)
#undef REFUSAL_ITEM
                if (!cpu || !rf || PyDict_SetItemString(ret, "cpu", cpu) < 0 ||
                    PyDict_SetItemString(ret, "refusals", rf) < 0)
                        Py_CLEAR(ret);
                Py_XDECREF(cpu);
                Py_XDECREF(rf);
        }
        if (ret) {
                /* Placement: as accelctl status --json. */
                const struct accel_placement_status *p = &s->placement;
                PyObject *pl = Py_BuildValue("{s:K,s:d,s:L,s:L,s:L,s:K,s:K}", "max_compute_us",
                                             (unsigned long long) p->max_compute_us, "max_overhead", p->max_overhead,
                                             "round_trip_us", (long long) p->round_trip_us, "socket_round_trip_us",
                                             (long long) p->socket_round_trip_us, "served_overhead_us",
                                             (long long) p->served_overhead_us, "served_samples",
                                             (unsigned long long) p->served_samples, "placed_in_client",
                                             (unsigned long long) p->placed_in_client);

                if (!pl || PyDict_SetItemString(ret, "placement", pl) < 0)
                        Py_CLEAR(ret);
                Py_XDECREF(pl);
        }
        accel_daemon_status_free(s);
        return ret;
}

static int model_from(const char *path, Py_buffer *content, accel_model_t **ret) {
        int r = path ? accel_model_create_from_file(path, ret) :
                       accel_model_create(content->buf, (size_t) content->len, ret);

        if (r < 0)
                PyErr_Format(PyExc_ValueError, "Could not open '%s': %s", path ? path : "<content>", accel_last_error());
        return r;
}

static PyObject *client_supported_operations(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "path", "content", NULL };
        NativeClient *cl = (NativeClient *) self;
        const char *path = NULL;
        Py_buffer content = { 0 };
        accel_model_t *m = NULL;
        accel_node_support_t *ns;
        PyObject *ret;
        size_t n;
        int r;

        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zz*", kw, &path, &content))
                return NULL;
        if (ready(cl) < 0 || model_from(path, &content, &m) < 0) {
                if (content.buf)
                        PyBuffer_Release(&content);
                return NULL;
        }
        if (content.buf)
                PyBuffer_Release(&content);
        CALL(cl, r, accel_get_supported_operations(cl->c, m, &ns, &n));
        accel_model_delete(m);
        if (r < 0)
                return native_raise_accel(r);
        ret = PyList_New(0);
        for (size_t i = 0; ret && i < n; i++) {
                PyObject *ds = PyList_New(0);

                for (size_t k = 0; ds && k < ns[i].n_drivers; k++)
                        if (append(ds, Py_BuildValue("{s:s,s:O,s:s}", "driver", ns[i].drivers[k], "supported",
                                                     ns[i].supported[k] ? Py_True : Py_False, "reason",
                                                     ns[i].reasons[k])) < 0)
                                Py_CLEAR(ds);
                if (!ds || append(ret, Py_BuildValue("{s:i,s:s,s:N}", "index", (int) ns[i].index, "op", ns[i].op,
                                                     "drivers", ds)) < 0)
                        Py_CLEAR(ret);
        }
        accel_node_support_free(ns, n);
        return ret;
}

static PyObject *client_models(PyObject *self, PyObject *unused) {
        NativeClient *cl = (NativeClient *) self;
        accel_model_entry_t *v;
        PyObject *ret;
        size_t n;
        int r;

        if (ready(cl) < 0)
                return NULL;
        CALL(cl, r, accel_list_models(cl->c, &v, &n));
        if (r < 0)
                return native_raise_accel(r);
        ret = PyList_New(0);
        for (size_t i = 0; ret && i < n; i++)
                if (append(ret, Py_BuildValue("{s:s,s:s,s:K,s:I,s:I}", "sha256", v[i].sha256, "name", v[i].name,
                                              "size", (unsigned long long) v[i].size, "instances", v[i].instances,
                                              "references", v[i].references)) < 0)
                        Py_CLEAR(ret);
        accel_model_list_free(v, n);
        return ret;
}

/* bench_start(path=None, content=None, sha256=None, candidates=None,
 * runs=0, timeout_ms=0) -> run id */
static PyObject *client_bench_start(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "path", "content", "sha256", "candidates", "runs", "timeout_ms", NULL };
        NativeClient *cl = (NativeClient *) self;
        const char *path = NULL, *sha = NULL;
        Py_buffer content = { 0 };
        PyObject *cands = Py_None, *fast = NULL, *ret = NULL;
        const char **cv = NULL;
        unsigned runs = 0, timeout_ms = 0;
        accel_bench_options_t o = { 0 };
        uint64_t run = 0;
        int fd = -1, r;

        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zz*zOII", kw, &path, &content, &sha, &cands, &runs,
                                         &timeout_ms))
                return NULL;
        if (ready(cl) < 0)
                goto out;
        if (path) {
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                        PyErr_Format(PyExc_ValueError, "Could not open '%s': %s", path, strerror(errno));
                        goto out;
                }
        } else if (content.buf) {
                fd = memfd_create("accel-model", MFD_CLOEXEC);
                if (fd < 0 || write(fd, content.buf, (size_t) content.len) != content.len ||
                    lseek(fd, 0, SEEK_SET) < 0) {
                        PyErr_SetFromErrno(PyExc_OSError);
                        goto out;
                }
        } else if (!sha) {
                PyErr_SetString(PyExc_ValueError, "bench_start: a model path, content or sha256 is required");
                goto out;
        }
        if (cands != Py_None) {
                fast = PySequence_Fast(cands, "candidates must be a list of settings JSON strings");
                if (!fast)
                        goto out;
                o.n_candidates = (size_t) PySequence_Fast_GET_SIZE(fast);
                cv = PyMem_Calloc(o.n_candidates + 1, sizeof(char *));
                if (!cv) {
                        PyErr_NoMemory();
                        goto out;
                }
                for (size_t i = 0; i < o.n_candidates; i++)
                        if (!(cv[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t) i))))
                                goto out;
                o.candidates_json = cv;
        }
        o.runs = runs;
        o.timeout_ms = timeout_ms;
        CALL(cl, r, accel_bench_start(cl->c, fd, fd >= 0 ? NULL : sha, &o, &run));
        if (r < 0)
                native_raise_accel(r);
        else
                ret = PyLong_FromUnsignedLongLong(run);
out:
        if (fd >= 0)
                (void) close(fd);
        PyMem_Free(cv);
        Py_XDECREF(fast);
        if (content.buf)
                PyBuffer_Release(&content);
        return ret;
}

static PyObject *opt_i64(int64_t v) {
        return v >= 0 ? PyLong_FromLongLong(v) : Py_NewRef(Py_None);
}

static PyObject *client_bench_progress(PyObject *self, PyObject *args) {
        NativeClient *cl = (NativeClient *) self;
        unsigned long long run;
        accel_bench_progress_t *p;
        PyObject *cands, *ret = NULL;
        int r;

        if (!PyArg_ParseTuple(args, "K", &run) || ready(cl) < 0)
                return NULL;
        CALL(cl, r, accel_bench_progress(cl->c, run, &p));
        if (r < 0)
                return native_raise_accel(r);
        cands = PyList_New(0);
        for (size_t i = 0; cands && i < p->n_candidates; i++) {
                const accel_bench_candidate_t *x = &p->candidates[i];

                if (append(cands, Py_BuildValue("{s:s,s:s,s:s,s:s,s:O,s:N,s:N,s:N,s:N,s:z}", "settings_json",
                                                x->settings_json, "settings_key", x->settings_key, "label", x->label,
                                                "state", x->state,
                                                "ok", x->ok < 0 ? Py_None : x->ok ? Py_True : Py_False,
                                                "median_us", opt_i64(x->median_us), "p90_us", opt_i64(x->p90_us),
                                                "init_us", opt_i64(x->init_us), "max_memory_kb",
                                                opt_i64(x->max_memory_kb), "error", x->error[0] ? x->error : NULL)) < 0)
                        Py_CLEAR(cands);
        }
        if (cands)
                ret = Py_BuildValue("{s:K,s:s,s:O,s:I,s:I,s:N,s:s,s:s,s:s}", "run_id", (unsigned long long) p->run_id,
                                    "model_sha256", p->model_sha256, "finished", p->finished ? Py_True : Py_False,
                                    "done", p->done, "total", p->total, "candidates", cands, "best_label",
                                    p->best_label, "best_settings_json", p->best_settings_json, "message", p->message);
        accel_bench_progress_free(p);
        return ret;
}

static PyObject *i64_list(const int64_t *v, size_t n) {
        PyObject *l = PyList_New((Py_ssize_t) n);

        for (size_t i = 0; l && i < n; i++) {
                PyObject *x = PyLong_FromLongLong(v[i]);

                if (!x) {
                        Py_CLEAR(l);
                        break;
                }
                PyList_SET_ITEM(l, (Py_ssize_t) i, x);
        }
        return l;
}

static int set_i64(PyObject *d, const char *key, int64_t v) {
        PyObject *x = PyLong_FromLongLong(v);
        int r = x ? PyDict_SetItemString(d, key, x) : -1;

        Py_XDECREF(x);
        return r;
}

static PyObject *event_dict(const accel_bench_event_t *e) {
        PyObject *d = Py_BuildValue("{s:L,s:s,s:s,s:s,s:s,s:i}", "id", (long long) e->id, "model_sha256",
                                    e->model_sha256, "settings_key", e->settings_key, "driver_version",
                                    e->driver_version, "settings_json", e->settings_json, "event_type", e->event_type);
        PyObject *x = NULL;

        if (!d)
                return NULL;
        if (e->has_result) {
                PyObject *metrics = PyList_New(0);

                for (size_t k = 0; metrics && k < e->n_metrics; k++) {
                        PyObject *vals = PyList_New(0);

                        for (size_t j = 0; vals && j < e->metrics[k].n_values; j++)
                                if (append(vals, PyFloat_FromDouble(e->metrics[k].values[j])) < 0)
                                        Py_CLEAR(vals);
                        if (!vals || append(metrics, Py_BuildValue("{s:s,s:N}", "name", e->metrics[k].name, "values",
                                                                   vals)) < 0)
                                Py_CLEAR(metrics);
                }
                x = metrics ? Py_BuildValue("{s:N,s:N,s:N,s:N,s:N}", "initialization_time_us",
                                            i64_list(e->initialization_time_us, e->n_initialization_time_us),
                                            "inference_time_us", i64_list(e->inference_time_us, e->n_inference_time_us),
                                            "max_memory_kb", e->has_max_memory_kb ? PyLong_FromLong(e->max_memory_kb) :
                                                                                    Py_NewRef(Py_None),
                                            "ok", e->has_ok ? PyBool_FromLong(e->ok) : Py_NewRef(Py_None),
                                            "metrics", metrics) : NULL;
                if (!x || PyDict_SetItemString(d, "result", x) < 0)
                        goto fail;
                Py_DECREF(x);
        }
        if (e->has_error) {
                PyObject *codes = PyList_New(0);

                for (size_t k = 0; codes && k < e->n_error_codes; k++)
                        if (append(codes, Py_BuildValue("{s:i,s:i,s:L}", "source", e->error_codes[k].source,
                                                        "tflite_error", e->error_codes[k].tflite_error,
                                                        "underlying_api_error",
                                                        (long long) e->error_codes[k].underlying_api_error)) < 0)
                                Py_CLEAR(codes);
                x = codes ? Py_BuildValue("{s:N,s:N,s:N,s:N}", "stage",
                                          e->has_stage ? PyLong_FromLong(e->stage) : Py_NewRef(Py_None), "exit_code",
                                          e->has_exit_code ? PyLong_FromLong(e->exit_code) : Py_NewRef(Py_None),
                                          "signal", e->has_signal ? PyLong_FromLong(e->signal) : Py_NewRef(Py_None),
                                          "error_code", codes) : NULL;
                if (!x || PyDict_SetItemString(d, "error", x) < 0)
                        goto fail;
                Py_DECREF(x);
        }
        if ((e->has_boottime_us && set_i64(d, "boottime_us", e->boottime_us) < 0) ||
            (e->has_wallclock_us && set_i64(d, "wallclock_us", e->wallclock_us) < 0)) {
                Py_DECREF(d);
                return NULL;
        }
        return d;
fail:
        Py_XDECREF(x);
        Py_DECREF(d);
        return NULL;
}

/* events(model_sha256=None, settings_key=None, event_type=0, from_us=None,
 * to_us=None, limit=0) -> list of dicts */
static PyObject *client_events(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "model_sha256", "settings_key", "event_type", "from_us", "to_us", "limit", NULL };
        NativeClient *cl = (NativeClient *) self;
        accel_bench_event_filter_t f = { 0 };
        PyObject *from = Py_None, *to = Py_None, *ret;
        accel_bench_event_t *v;
        size_t n;
        int r;

        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zziOOI", kw, &f.model_sha256, &f.settings_key,
                                         &f.event_type, &from, &to, &f.limit) || ready(cl) < 0)
                return NULL;
        if (from != Py_None) {
                f.has_from = true;
                f.from_us = PyLong_AsLongLong(from);
        }
        if (to != Py_None) {
                f.has_to = true;
                f.to_us = PyLong_AsLongLong(to);
        }
        if (PyErr_Occurred())
                return NULL;
        CALL(cl, r, accel_bench_events(cl->c, &f, &v, &n));
        if (r < 0)
                return native_raise_accel(r);
        ret = PyList_New(0);
        for (size_t i = 0; ret && i < n; i++)
                if (append(ret, event_dict(&v[i])) < 0)
                        Py_CLEAR(ret);
        accel_bench_events_free(v, n);
        return ret;
}

PyObject *native_evaluation_dict(const accel_evaluation_t *e) {
        PyObject *acc = e->has_accuracy ? PyFloat_FromDouble(e->accuracy) : Py_NewRef(Py_None);
        PyObject *uid = e->has_uid ? PyLong_FromUnsignedLong(e->uid) : Py_NewRef(Py_None);
        PyObject *d = NULL;

        if (acc && uid)
                d = Py_BuildValue("{s:L,s:s,s:s,s:s,s:s,s:O,s:L,s:L,s:O,s:s}", "id", (long long) e->id,
                                  "model_sha256", e->model_sha256, "settings_key", e->settings_key, "stage", e->stage,
                                  "source", e->source, "accuracy", acc, "samples", (long long) e->samples,
                                  "wallclock_us", (long long) e->wallclock_us, "uid", uid, "metrics_json",
                                  e->metrics_json);
        Py_XDECREF(acc);
        Py_XDECREF(uid);
        return d;
}

static PyObject *client_evaluations(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "model_sha256", "limit", NULL };
        NativeClient *cl = (NativeClient *) self;
        const char *sha = NULL;
        unsigned int limit = 0;
        accel_evaluation_t *v = NULL;
        PyObject *ret;
        size_t n = 0;
        int r;

        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zI", kw, &sha, &limit) || ready(cl) < 0)
                return NULL;
        CALL(cl, r, accel_evaluations(cl->c, sha, limit, &v, &n));
        if (r < 0)
                return native_raise_accel(r);
        ret = PyList_New(0);
        for (size_t i = 0; ret && i < n; i++)
                if (append(ret, native_evaluation_dict(&v[i])) < 0)
                        Py_CLEAR(ret);
        accel_evaluations_free(v, n);
        return ret;
}

static PyObject *client_best(PyObject *self, PyObject *args) {
        NativeClient *cl = (NativeClient *) self;
        const char *sha;
        accel_bench_best_t *b;
        PyObject *ret;
        int pref, r;

        if (!PyArg_ParseTuple(args, "si", &sha, &pref) || ready(cl) < 0)
                return NULL;
        CALL(cl, r, accel_bench_best(cl->c, sha, pref, &b));
        if (r < 0)
                return native_raise_accel(r);
        ret = Py_BuildValue("{s:s,s:s,s:s,s:s,s:L}", "settings_json", b->settings_json, "settings_key",
                            b->settings_key, "label", b->label, "reason", b->reason, "decided_at_us",
                            (long long) b->decided_at_us);
        accel_bench_best_free(b);
        return ret;
}

static PyObject *client_close(PyObject *self, PyObject *unused) {
        NativeClient *cl = (NativeClient *) self;

        if (cl->lock)
                CALL(cl, cl->c, accel_disconnect(cl->c));
        Py_RETURN_NONE;
}

static PyMethodDef client_methods[] = {
        { "capabilities", client_capabilities, METH_NOARGS, "capabilities() -> dict" },
        { "status", client_status, METH_NOARGS, "status() -> dict" },
        { "supported_operations", (PyCFunction) (void (*)(void)) client_supported_operations,
          METH_VARARGS | METH_KEYWORDS, "supported_operations(path=None, content=None) -> list" },
        { "models", client_models, METH_NOARGS, "models() -> list" },
        { "bench_start", (PyCFunction) (void (*)(void)) client_bench_start, METH_VARARGS | METH_KEYWORDS,
          "bench_start(path=None, content=None, sha256=None, candidates=None, runs=0, timeout_ms=0) -> run id" },
        { "bench_progress", client_bench_progress, METH_VARARGS, "bench_progress(run_id) -> dict" },
        { "events", (PyCFunction) (void (*)(void)) client_events, METH_VARARGS | METH_KEYWORDS,
          "events(model_sha256=None, settings_key=None, event_type=0, from_us=None, to_us=None, limit=0)" },
        { "best", client_best, METH_VARARGS, "best(sha256, preference) -> dict" },
        { "evaluations", (PyCFunction) (void (*)(void)) client_evaluations, METH_VARARGS | METH_KEYWORDS,
          "evaluations(model_sha256=None, limit=0) -> list" },
        { "close", client_close, METH_NOARGS, "close()" },
        { NULL, NULL, 0, NULL },
};

PyTypeObject NativeClient_Type = {
        PyVarObject_HEAD_INIT(NULL, 0)
        .tp_name = "accel._native.Client",
        .tp_basicsize = sizeof(NativeClient),
        .tp_flags = Py_TPFLAGS_DEFAULT,
        .tp_doc = "Client(socket=None): one connection to acceld",
        .tp_new = PyType_GenericNew,
        .tp_init = client_init,
        .tp_dealloc = client_dealloc,
        .tp_methods = client_methods,
};
