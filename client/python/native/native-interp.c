/* SPDX-License-Identifier: Apache-2.0 */
/*
 * _native.Interp: one interpreter, served by acceld (libaccel's
 * accel_interp_t, tensors in a shared memfd) or run in-process (the
 * runtime's rt_interp_t). Every blocking call drops the GIL and takes the
 * object's own lock, so one interpreter shared by threads is serialised and
 * different interpreters run in parallel.
 */
#include <errno.h>
#include <string.h>

#include "accel/accel.h"
#include "native.h"
#include "rt.h"
#include "settings.h"

enum { IO_INPUT = 0, IO_OUTPUT = 1 };

struct native_interp {
        PyObject_HEAD
        PyThread_type_lock lock;
        bool local;
        bool allocated;
        Py_ssize_t exports;
        uint64_t generation;
        /* served by acceld */
        accel_model_t *amodel;
        accel_interp_t *ait;
        /* in-process */
        rt_model_t *model;
        rt_interp_t *rit;
};

Py_ssize_t native_interp_exports(const NativeInterp *it) {
        return it->exports;
}

void native_interp_exports_add(NativeInterp *it, int delta) {
        it->exports += delta;
}

uint64_t native_interp_generation(const NativeInterp *it) {
        return it->generation;
}

static size_t byte_size(NativeInterp *it, int io, int i);

#define LOCKED(it, stmt)                                          \
        do {                                                      \
                Py_BEGIN_ALLOW_THREADS                            \
                PyThread_acquire_lock((it)->lock, WAIT_LOCK);     \
                stmt;                                             \
                PyThread_release_lock((it)->lock);                \
                Py_END_ALLOW_THREADS                              \
        } while (0)

static PyObject *raise_local(NativeInterp *it, int r, const char *err) {
        const char *msg = err && err[0] ? err : rt_interp_last_error(it->rit);
        const char *colon = strchr(msg, ':');

        /* The runtime prefixes some messages with their status name. */
        if (colon && strncmp(msg, "DEVICE_UNAVAILABLE:", 19) == 0)
                return native_raise(r, "DEVICE_UNAVAILABLE", msg);
        return native_raise(r, native_status_of_errno(r), msg[0] ? msg : strerror(-r));
}

static int create_remote(NativeInterp *it, const char *path, Py_buffer *content, const char *settings,
                         const char *socket, int priority, unsigned deadline_ms, int preference,
                         unsigned prepare_deadline_ms, bool lane) {
        accel_interp_options_t *o = NULL;
        int r;

        Py_BEGIN_ALLOW_THREADS
        r = path ? accel_model_create_from_file(path, &it->amodel) :
                   accel_model_create(content->buf, (size_t) content->len, &it->amodel);
        Py_END_ALLOW_THREADS
        if (r < 0) {
                PyErr_Format(PyExc_ValueError, "Could not open '%s': %s", path ? path : "<content>", accel_last_error());
                return -1;
        }
        o = accel_interp_options_create();
        if (!o) {
                PyErr_NoMemory();
                return -1;
        }
        r = accel_interp_options_set_settings_json(o, settings);
        if (r == 0)
                r = accel_interp_options_set_socket(o, socket);
        if (r == 0)
                r = accel_interp_options_set_priority(o, (accel_priority_t) priority);
        if (r == 0)
                r = accel_interp_options_set_deadline_ms(o, deadline_ms);
        if (r == 0)
                r = accel_interp_options_set_preference(o, preference);
        if (r == 0)
                r = accel_interp_options_set_prepare_deadline_ms(o, prepare_deadline_ms);
        /* Lanes are libaccel's default (ACCEL_LANE=0 turns them off for
         * the whole process); lane=False turns them off for this one. */
        if (r == 0)
                r = accel_interp_options_set_lane(o, lane);
        if (r < 0) {
                accel_interp_options_delete(o);
                native_raise(r, "INVALID_ARGUMENT", "invalid interpreter options");
                return -1;
        }
        Py_BEGIN_ALLOW_THREADS
        r = accel_interp_create(it->amodel, o, &it->ait);
        Py_END_ALLOW_THREADS
        accel_interp_options_delete(o);
        if (r < 0) {
                /* Not reaching the socket is the device being unavailable. */
                if (accel_last_status() == ACCEL_STATUS_NONE &&
                    (r == -ENOENT || r == -ECONNREFUSED || r == -ENXIO || r == -EACCES))
                        native_raise(r, "DEVICE_UNAVAILABLE", accel_last_error());
                else
                        native_raise_accel(r);
                return -1;
        }
        return 0;
}

static int create_local(NativeInterp *it, const char *path, Py_buffer *content, const char *settings,
                        bool preserve) {
        rt_interp_options_t *o;
        rt_settings_t s;
        char err[512] = "";
        int r;

        Py_BEGIN_ALLOW_THREADS
        r = path ? rt_model_load_file(path, &it->model, err, sizeof(err)) :
                   rt_model_load_buffer(content->buf, (size_t) content->len, true, &it->model, err, sizeof(err));
        Py_END_ALLOW_THREADS
        if (r < 0) {
                PyErr_Format(PyExc_ValueError, "Could not open '%s': %s", path ? path : "<content>", err);
                return -1;
        }
        o = rt_interp_options_new();
        if (!o) {
                PyErr_NoMemory();
                return -1;
        }
        (void) rt_interp_options_set_preserve_all_tensors(o, preserve);
        if (settings) {
                r = rt_settings_parse_json(settings, &s, err, sizeof(err));
                if (r < 0) {
                        rt_interp_options_free(o);
                        native_raise(r, "INVALID_ARGUMENT", err);
                        return -1;
                }
                r = rt_interp_options_set_settings(o, &s);
                rt_settings_done(&s);
                if (r < 0) {
                        rt_interp_options_free(o);
                        native_raise(r, native_status_of_errno(r), "cannot apply the settings");
                        return -1;
                }
        }
        Py_BEGIN_ALLOW_THREADS
        r = rt_interp_create(it->model, o, &it->rit, err, sizeof(err));
        Py_END_ALLOW_THREADS
        rt_interp_options_free(o);
        if (r < 0) {
                raise_local(it, r, err);
                return -1;
        }
        return 0;
}

static int interp_init(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "path", "content", "settings", "socket", "priority", "deadline_ms", "local",
                              "preference", "prepare_deadline_ms", "preserve_all_tensors", "lane", NULL };
        NativeInterp *it = (NativeInterp *) self;
        const char *path = NULL, *settings = NULL, *socket = NULL;
        Py_buffer content = { 0 };
        int priority = 0, local = 0, preference = -1, preserve = 0, lane = 1;
        unsigned deadline_ms = 0, prepare_deadline_ms = 0;
        int r;

        if (it->lock) {
                PyErr_SetString(PyExc_RuntimeError, "Interp is already initialised");
                return -1;
        }
        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zz*zziIpiIpp", kw, &path, &content, &settings, &socket,
                                         &priority, &deadline_ms, &local, &preference, &prepare_deadline_ms,
                                         &preserve, &lane))
                return -1;
        if (preserve && !local) {
                /* acceld's instance is shared and holds only the inputs and
                 * outputs in memory this process sees. */
                if (content.buf)
                        PyBuffer_Release(&content);
                PyErr_SetString(PyExc_ValueError, "preserve_all_tensors needs local=True");
                return -1;
        }
        if (!path && !content.buf) {
                PyErr_SetString(PyExc_ValueError, "Interp: a path or content is required");
                return -1;
        }
        it->lock = PyThread_allocate_lock();
        if (!it->lock) {
                if (content.buf)
                        PyBuffer_Release(&content);
                PyErr_NoMemory();
                return -1;
        }
        it->local = local;
        r = local ? create_local(it, path, &content, settings, preserve) :
                    create_remote(it, path, &content, settings, socket, priority, deadline_ms, preference,
                                  prepare_deadline_ms, lane);
        if (content.buf)
                PyBuffer_Release(&content);
        return r;
}

static void interp_dealloc(PyObject *self) {
        NativeInterp *it = (NativeInterp *) self;

        rt_interp_free(it->rit);
        rt_model_free(it->model);
        accel_interp_delete(it->ait);
        accel_model_delete(it->amodel);
        if (it->lock)
                PyThread_free_lock(it->lock);
        Py_TYPE(self)->tp_free(self);
}

static int ready(NativeInterp *it) {
        if (!it->lock || (!it->ait && !it->rit)) {
                PyErr_SetString(PyExc_RuntimeError, "Interp is not initialised");
                return -1;
        }
        return 0;
}

static int32_t count_of(NativeInterp *it, int io) {
        if (it->local)
                return io == IO_INPUT ? rt_interp_input_count(it->rit) : rt_interp_output_count(it->rit);
        return io == IO_INPUT ? accel_interp_input_count(it->ait) : accel_interp_output_count(it->ait);
}

static int check_index(NativeInterp *it, int io, int i) {
        if (ready(it) < 0)
                return -1;
        if (io != IO_INPUT && io != IO_OUTPUT) {
                PyErr_SetString(PyExc_ValueError, "io must be 0 (input) or 1 (output)");
                return -1;
        }
        if (i < 0 || i >= count_of(it, io)) {
                PyErr_Format(PyExc_ValueError, "%s %d out of range (%d)", io == IO_INPUT ? "input" : "output", i,
                             (int) count_of(it, io));
                return -1;
        }
        return 0;
}

static PyObject *interp_count(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        int io;

        if (!PyArg_ParseTuple(args, "i", &io) || ready(it) < 0)
                return NULL;
        return PyLong_FromLong(count_of(it, io));
}

/* tensor(io, i) -> (name, type, shape, nbytes) */
static PyObject *interp_tensor(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        int io, i, rank;
        int32_t dims[16];
        const char *name;
        int type;
        size_t bytes;
        PyObject *shape;

        if (!PyArg_ParseTuple(args, "ii", &io, &i) || check_index(it, io, i) < 0)
                return NULL;
        if (it->local) {
                const rt_tensor_t *t = io == IO_INPUT ? rt_interp_input_tensor(it->rit, i) :
                                                        rt_interp_output_tensor(it->rit, i);
                name = t->name ? t->name : "";
                type = (int) t->type;
                rank = t->rank;
                for (int d = 0; d < rank && d < 16; d++)
                        dims[d] = t->dims[d];
                bytes = byte_size(it, io, i);
        } else {
                const accel_tensor_t *t = io == IO_INPUT ? accel_interp_input_tensor(it->ait, i) :
                                                           accel_interp_output_tensor(it->ait, i);
                name = accel_tensor_name(t);
                type = (int) accel_tensor_type(t);
                rank = accel_tensor_num_dims(t);
                for (int d = 0; d < rank && d < 16; d++)
                        dims[d] = accel_tensor_dim(t, d);
                bytes = byte_size(it, io, i);
        }
        shape = PyTuple_New(rank);
        for (int d = 0; shape && d < rank; d++) {
                PyObject *x = PyLong_FromLong(dims[d]);

                if (!x) {
                        Py_CLEAR(shape);
                        break;
                }
                PyTuple_SET_ITEM(shape, d, x);
        }
        if (!shape)
                return NULL;
        return Py_BuildValue("(siNn)", name, type, shape, (Py_ssize_t) bytes);
}

static int check_no_exports(NativeInterp *it) {
        if (it->exports > 0) {
                PyErr_Format(PyExc_RuntimeError,
                             "There is at least 1 reference to internal data in the interpreter in the form of a "
                             "numpy array or slice (%zd). Be sure to only hold the function returned from tensor() "
                             "if you are using raw data access.", it->exports);
                return -1;
        }
        return 0;
}

static PyObject *interp_resize(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        PyObject *seq, *fast;
        int32_t dims[16];
        Py_ssize_t rank;
        int i, r;

        if (!PyArg_ParseTuple(args, "iO", &i, &seq) || check_index(it, IO_INPUT, i) < 0 || check_no_exports(it) < 0)
                return NULL;
        fast = PySequence_Fast(seq, "shape must be a sequence of ints");
        if (!fast)
                return NULL;
        rank = PySequence_Fast_GET_SIZE(fast);
        if (rank > 8) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "shape has more than 8 dimensions");
                return NULL;
        }
        for (Py_ssize_t d = 0; d < rank; d++) {
                long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, d));

                if (v == -1 && PyErr_Occurred()) {
                        Py_DECREF(fast);
                        return NULL;
                }
                if (v < 0 || v > INT32_MAX) {
                        Py_DECREF(fast);
                        PyErr_Format(PyExc_ValueError, "dimension %zd is %ld", d, v);
                        return NULL;
                }
                dims[d] = (int32_t) v;
        }
        Py_DECREF(fast);
        if (it->local)
                LOCKED(it, r = rt_interp_resize_input(it->rit, i, (int32_t) rank, dims));
        else
                LOCKED(it, r = accel_interp_resize_input(it->ait, i, dims, (int32_t) rank));
        if (r < 0)
                return it->local ? raise_local(it, r, NULL) : native_raise_accel(r);
        it->allocated = false;
        it->generation++;
        Py_RETURN_NONE;
}

static PyObject *interp_allocate(PyObject *self, PyObject *unused) {
        NativeInterp *it = (NativeInterp *) self;
        int r;

        if (ready(it) < 0 || check_no_exports(it) < 0)
                return NULL;
        if (it->local)
                LOCKED(it, r = rt_interp_allocate_tensors(it->rit));
        else
                LOCKED(it, r = accel_interp_allocate_tensors(it->ait));
        if (r < 0)
                return it->local ? raise_local(it, r, NULL) : native_raise_accel(r);
        it->allocated = true;
        it->generation++;
        Py_RETURN_NONE;
}

/* reset_all_variables(): in-process, TFLite's ResetVariableTensors on the
 * interpreter; served, acceld's ResetVariables (this interpreter's state
 * back to fresh). */
static PyObject *interp_reset(PyObject *self, PyObject *unused) {
        NativeInterp *it = (NativeInterp *) self;
        int r;

        if (ready(it) < 0)
                return NULL;
        if (it->local)
                LOCKED(it, r = rt_interp_reset_variables(it->rit));
        else
                LOCKED(it, r = accel_interp_reset_variables(it->ait));
        if (r < 0)
                return it->local ? raise_local(it, r, NULL) : native_raise_accel(r);
        Py_RETURN_NONE;
}

static PyObject *interp_invoke(PyObject *self, PyObject *unused) {
        NativeInterp *it = (NativeInterp *) self;
        int r;

        if (ready(it) < 0)
                return NULL;
        if (!it->allocated) {
                PyErr_SetString(PyExc_RuntimeError, "Invoke called on model that is not ready: call allocate_tensors()");
                return NULL;
        }
        if (it->local) {
                if (it->exports > 0)
                        for (int32_t k = 0; k < rt_interp_output_count(it->rit); k++)
                                if (rt_interp_output_tensor(it->rit, k)->alloc == RT_ALLOC_DYNAMIC &&
                                    check_no_exports(it) < 0)
                                        return NULL;
                LOCKED(it, r = rt_interp_invoke(it->rit));
        } else {
                int32_t n = accel_interp_output_count(it->ait);
                void *before[64];

                /* Outputs sized at invoke may move to the heap; views of
                 * them must not outlive that, as in tflite_runtime. */
                for (int32_t k = 0; k < n && k < 64; k++) {
                        const accel_tensor_t *t = accel_interp_output_tensor(it->ait, k);

                        before[k] = accel_tensor_data(t);
                        if (it->exports > 0 && !accel_tensor_in_shared_memory(t) && check_no_exports(it) < 0)
                                return NULL;
                }
                LOCKED(it, r = accel_interp_invoke(it->ait));
                for (int32_t k = 0; k < n && k < 64; k++)
                        if (accel_tensor_data(accel_interp_output_tensor(it->ait, k)) != before[k])
                                it->generation++;
        }
        if (r < 0)
                return it->local ? raise_local(it, r, NULL) : native_raise_accel(r);
        /* In-process, outputs sized at invoke move: their views go stale. */
        if (it->local)
                for (int32_t k = 0; k < rt_interp_output_count(it->rit); k++)
                        if (rt_interp_output_tensor(it->rit, k)->alloc == RT_ALLOC_DYNAMIC)
                                it->generation++;
        Py_RETURN_NONE;
}

/* The bytes of tensor (io, i) with its current shape. */
static size_t byte_size(NativeInterp *it, int io, int i) {
        if (it->local) {
                const rt_tensor_t *t = io == IO_INPUT ? rt_interp_input_tensor(it->rit, i) :
                                                        rt_interp_output_tensor(it->rit, i);

                if (t->type == RT_TYPE_STRING)
                        return t->data ? t->bytes : 0;
                return rt_tensor_count(t) * rt_type_size(t->type);
        }
        return accel_tensor_byte_size(io == IO_INPUT ? accel_interp_input_tensor(it->ait, i) :
                                                       accel_interp_output_tensor(it->ait, i));
}

static int data_of(NativeInterp *it, int io, int i, void **ret, size_t *ret_size) {
        void *p;

        if (!it->allocated) {
                PyErr_SetString(PyExc_ValueError, "Tensor data is null. Run allocate_tensors() first");
                return -1;
        }
        if (it->local)
                p = io == IO_INPUT ? rt_interp_input_data(it->rit, i) : (void *) rt_interp_output_data(it->rit, i);
        else
                p = accel_tensor_data(io == IO_INPUT ? accel_interp_input_tensor(it->ait, i) :
                                                       accel_interp_output_tensor(it->ait, i));
        if (!p) {
                PyErr_SetString(PyExc_ValueError, "Tensor data is null. Run invoke() first");
                return -1;
        }
        *ret = p;
        *ret_size = byte_size(it, io, i);
        return 0;
}

/* buffer(io, i) -> a buffer object over the tensor's bytes (zero-copy). */
static PyObject *interp_buffer(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        void *p;
        size_t n;
        int io, i;

        if (!PyArg_ParseTuple(args, "ii", &io, &i) || check_index(it, io, i) < 0 || data_of(it, io, i, &p, &n) < 0)
                return NULL;
        return native_tensor_buf_new(it, p, n, it->generation);
}

/* write(i, obj): copy a C-contiguous buffer of exactly the input's size. */
static PyObject *interp_write(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        Py_buffer b;
        void *p;
        size_t n;
        int i;

        if (!PyArg_ParseTuple(args, "iy*", &i, &b))
                return NULL;
        if (check_index(it, IO_INPUT, i) < 0 || data_of(it, IO_INPUT, i, &p, &n) < 0) {
                PyBuffer_Release(&b);
                return NULL;
        }
        if ((size_t) b.len != n) {
                PyErr_Format(PyExc_ValueError, "input %d takes %zu bytes, got %zd", i, n, b.len);
                PyBuffer_Release(&b);
                return NULL;
        }
        LOCKED(it, memcpy(p, b.buf, n));
        PyBuffer_Release(&b);
        Py_RETURN_NONE;
}

/* write_string(i, bytes): a string input in TFLite's serialized layout,
 * of any size (served: libaccel keeps the list and sends it inline with
 * each invoke). */
static PyObject *interp_write_string(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        Py_buffer b;
        int i, r;

        if (!PyArg_ParseTuple(args, "iy*", &i, &b))
                return NULL;
        if (check_index(it, IO_INPUT, i) < 0) {
                PyBuffer_Release(&b);
                return NULL;
        }
        if (!it->allocated) {
                PyBuffer_Release(&b);
                PyErr_SetString(PyExc_ValueError, "Tensor data is null. Run allocate_tensors() first");
                return NULL;
        }
        if (it->local)
                LOCKED(it, r = rt_interp_copy_in(it->rit, i, b.buf, (size_t) b.len));
        else
                LOCKED(it, r = accel_tensor_copy_from_buffer(accel_interp_input_tensor(it->ait, i), b.buf,
                                                             (size_t) b.len));
        PyBuffer_Release(&b);
        if (r < 0)
                return it->local ? raise_local(it, r, NULL) : native_raise_accel(r);
        it->generation++;
        Py_RETURN_NONE;
}

/* ---- any tensor of subgraph 0 by its model index (in-process) ---- */

static const rt_tensor_t *local_tensor(NativeInterp *it, int t) {
        const rt_tensor_t *x;

        if (ready(it) < 0)
                return NULL;
        if (!it->local) {
                PyErr_SetString(PyExc_ValueError, "only an in-process interpreter addresses every tensor");
                return NULL;
        }
        x = rt_interp_tensor(it->rit, t);
        if (!x)
                PyErr_Format(PyExc_ValueError, "Invalid tensor index %d exceeds max tensor index %d", t,
                             (int) rt_interp_tensor_count(it->rit));
        return x;
}

/* The bytes tensor x holds (strings: their serialized size; constants:
 * the model's buffer, compressed for a sparse one). */
static size_t local_bytes(const rt_tensor_t *x) {
        if (x->type == RT_TYPE_STRING || x->alloc == RT_ALLOC_CONST)
                return x->data ? x->bytes : 0;
        return rt_tensor_count(x) * rt_type_size(x->type);
}

/* tensor_at(t) -> (name, type, shape, nbytes, storage): storage is "const"
 * (the model's read-only bytes), "data" (readable and writable) or "none"
 * (no bytes: not allocated, or no node of the plan uses it). */
static PyObject *interp_tensor_at(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        const rt_tensor_t *x;
        const char *storage;
        PyObject *shape;
        int t;

        if (!PyArg_ParseTuple(args, "i", &t) || !(x = local_tensor(it, t)))
                return NULL;
        shape = PyTuple_New(x->rank);
        for (int d = 0; shape && d < x->rank; d++) {
                PyObject *v = PyLong_FromLong(x->dims[d]);

                if (!v) {
                        Py_CLEAR(shape);
                        break;
                }
                PyTuple_SET_ITEM(shape, d, v);
        }
        if (!shape)
                return NULL;
        if (x->alloc == RT_ALLOC_CONST)
                storage = x->data ? "const" : "none";
        else
                storage = it->allocated && rt_interp_tensor_data(it->rit, t) ? "data" : "none";
        return Py_BuildValue("(siNns)", x->name ? x->name : "", (int) x->type, shape, (Py_ssize_t) local_bytes(x),
                             storage);
}

/* buffer_at(t) -> a buffer object over tensor t's bytes (zero-copy;
 * read-only for a constant). */
static PyObject *interp_buffer_at(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        const rt_tensor_t *x;
        void *p;
        int t;

        if (!PyArg_ParseTuple(args, "i", &t) || !(x = local_tensor(it, t)))
                return NULL;
        if (x->alloc == RT_ALLOC_CONST && x->data)
                return native_tensor_buf_new_readonly(it, x->data, local_bytes(x), it->generation);
        if (!it->allocated) {
                PyErr_SetString(PyExc_ValueError, "Tensor data is null. Run allocate_tensors() first");
                return NULL;
        }
        p = rt_interp_tensor_data(it->rit, t);
        if (!p) {
                PyErr_Format(PyExc_ValueError,
                             "Tensor data is null: tensor %d '%s' has no storage (no node of the execution plan "
                             "uses it, e.g. it is inside a group of nodes a delegate runs; run on the reference "
                             "kernels, settings={'delegate': 'NONE'}, to see it)", t, x->name ? x->name : "");
                return NULL;
        }
        return native_tensor_buf_new(it, p, local_bytes(x), it->generation);
}

/* write_at(t, bytes): copy into any non-constant tensor (exact size;
 * strings in TFLite's serialized layout). */
static PyObject *interp_write_at(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        const rt_tensor_t *x;
        Py_buffer b;
        int t, r;

        if (!PyArg_ParseTuple(args, "iy*", &t, &b))
                return NULL;
        if (!(x = local_tensor(it, t))) {
                PyBuffer_Release(&b);
                return NULL;
        }
        if (!it->allocated) {
                PyBuffer_Release(&b);
                PyErr_SetString(PyExc_ValueError,
                                "Cannot set tensor: Tensor is unallocated. Try calling allocate_tensors() first");
                return NULL;
        }
        LOCKED(it, r = rt_interp_tensor_copy_in(it->rit, t, b.buf, (size_t) b.len));
        PyBuffer_Release(&b);
        if (r < 0)
                return raise_local(it, r, NULL);
        if (x->type == RT_TYPE_STRING)
                it->generation++;
        Py_RETURN_NONE;
}

/* tensor_count() -> tensors of subgraph 0 the interpreter addresses. */
static PyObject *interp_tensor_count(PyObject *self, PyObject *unused) {
        NativeInterp *it = (NativeInterp *) self;

        if (ready(it) < 0)
                return NULL;
        if (!it->local) {
                PyErr_SetString(PyExc_ValueError, "only an in-process interpreter addresses every tensor");
                return NULL;
        }
        return PyLong_FromLong(rt_interp_tensor_count(it->rit));
}

/* info() -> dict: how the interpreter runs (shared instance, partitions). */
static PyObject *interp_info(PyObject *self, PyObject *unused) {
        NativeInterp *it = (NativeInterp *) self;
        PyObject *parts;
        size_t n;

        if (ready(it) < 0)
                return NULL;
        parts = PyList_New(0);
        if (!parts)
                return NULL;
        if (it->local) {
                rt_interp_partition_t v[64];

                n = rt_interp_partitions(it->rit, v, 64);
                for (size_t k = 0; k < n && k < 64; k++) {
                        PyObject *x = Py_BuildValue("{s:s,s:i}", "driver", v[k].driver, "nodes", (int) v[k].nodes);

                        if (!x || PyList_Append(parts, x) < 0) {
                                Py_XDECREF(x);
                                Py_DECREF(parts);
                                return NULL;
                        }
                        Py_DECREF(x);
                }
                return Py_BuildValue("{s:O,s:O,s:O,s:K,s:N,s:O}", "local", Py_True, "shared", Py_False,
                                     "zero_copy", Py_True, "compile_us", (unsigned long long) 0, "partitions", parts,
                                     "lane", Py_False);
        }
        {
                const char *drv[64];
                int32_t nodes[64];
                uint64_t q, c, t;

                n = accel_interp_partitions(it->ait, drv, nodes, 64);
                for (size_t k = 0; k < n && k < 64; k++) {
                        PyObject *x = Py_BuildValue("{s:s,s:i}", "driver", drv[k], "nodes", (int) nodes[k]);

                        if (!x || PyList_Append(parts, x) < 0) {
                                Py_XDECREF(x);
                                Py_DECREF(parts);
                                return NULL;
                        }
                        Py_DECREF(x);
                }
                accel_interp_last_timing(it->ait, &q, &c, &t);
                return Py_BuildValue("{s:O,s:O,s:O,s:K,s:N,s:K,s:K,s:K,s:O}", "local", Py_False,
                                     "shared", accel_interp_shared(it->ait) ? Py_True : Py_False,
                                     "zero_copy", accel_interp_last_zero_copy(it->ait) ? Py_True : Py_False,
                                     "compile_us", (unsigned long long) accel_interp_compile_us(it->ait),
                                     "partitions", parts, "queue_us", (unsigned long long) q,
                                     "compute_us", (unsigned long long) c, "total_us", (unsigned long long) t,
                                     "lane", accel_interp_uses_lane(it->ait) ? Py_True : Py_False);
        }
}

static PyObject *interp_exports(PyObject *self, PyObject *unused) {
        return PyLong_FromSsize_t(((NativeInterp *) self)->exports);
}

static PyObject *interp_evaluate_diff(PyObject *self, PyObject *args) {
        NativeInterp *it = (NativeInterp *) self;
        unsigned int runs = 0;
        unsigned long long seed = 0;
        accel_evaluation_t *e = NULL;
        PyObject *d;
        int r;

        if (!PyArg_ParseTuple(args, "|IK", &runs, &seed) || ready(it) < 0)
                return NULL;
        if (it->local) {
                PyErr_SetString(PyExc_RuntimeError, "evaluate_diff() runs on acceld: not available with local=True");
                return NULL;
        }
        LOCKED(it, r = accel_interp_evaluate_diff(it->ait, runs, seed, &e));
        if (r < 0)
                return native_raise_accel(r);
        d = native_evaluation_dict(e);
        (void) accel_evaluation_free(e);
        return d;
}

static PyMethodDef interp_methods[] = {
        { "count", interp_count, METH_VARARGS, "count(io) -> number of inputs (0) or outputs (1)" },
        { "tensor", interp_tensor, METH_VARARGS, "tensor(io, i) -> (name, type, shape, nbytes)" },
        { "resize", interp_resize, METH_VARARGS, "resize(i, shape)" },
        { "allocate", interp_allocate, METH_NOARGS, "allocate()" },
        { "invoke", interp_invoke, METH_NOARGS, "invoke()" },
        { "reset", interp_reset, METH_NOARGS, "reset() -> the variables back to their initial values" },
        { "buffer", interp_buffer, METH_VARARGS, "buffer(io, i) -> buffer object over the tensor" },
        { "write", interp_write, METH_VARARGS, "write(i, bytes-like)" },
        { "write_string", interp_write_string, METH_VARARGS, "write_string(i, serialized strings)" },
        { "tensor_at", interp_tensor_at, METH_VARARGS,
          "tensor_at(t) -> (name, type, shape, nbytes, storage) of any tensor (in-process)" },
        { "buffer_at", interp_buffer_at, METH_VARARGS, "buffer_at(t) -> buffer object over any tensor (in-process)" },
        { "write_at", interp_write_at, METH_VARARGS, "write_at(t, bytes-like) into any non-constant tensor (in-process)" },
        { "tensor_count", interp_tensor_count, METH_NOARGS, "tensor_count() -> tensors of subgraph 0 (in-process)" },
        { "info", interp_info, METH_NOARGS, "info() -> dict" },
        { "exports", interp_exports, METH_NOARGS, "exports() -> buffers in use" },
        { "evaluate_diff", interp_evaluate_diff, METH_VARARGS, "evaluate_diff(runs=0, seed=0) -> dict" },
        { NULL, NULL, 0, NULL },
};

PyTypeObject NativeInterp_Type = {
        PyVarObject_HEAD_INIT(NULL, 0)
        .tp_name = "accel._native.Interp",
        .tp_basicsize = sizeof(NativeInterp),
        .tp_flags = Py_TPFLAGS_DEFAULT,
        .tp_doc = "Interp(path=None, content=None, settings=None, socket=None, priority=0, deadline_ms=0, local=False, "
                  "preference=-1, prepare_deadline_ms=0, preserve_all_tensors=False)",
        .tp_new = PyType_GenericNew,
        .tp_init = interp_init,
        .tp_dealloc = interp_dealloc,
        .tp_methods = interp_methods,
};
