/* SPDX-License-Identifier: Apache-2.0 */
/* model_info(): what tflite_runtime reports about a model's tensors and
 * signatures, read in-process by the runtime's verified reader. */
#include <errno.h>

#include "model.h"
#include "native.h"

static PyObject *int_list(const int32_t *v, size_t n) {
        PyObject *l = PyList_New((Py_ssize_t) n);

        for (size_t i = 0; l && i < n; i++) {
                PyObject *x = PyLong_FromLong(v[i]);

                if (!x) {
                        Py_CLEAR(l);
                        break;
                }
                PyList_SET_ITEM(l, (Py_ssize_t) i, x);
        }
        return l;
}

static PyObject *sparse_index(const rt_sparse_index_t *s) {
        PyObject *l = PyList_New(s->n);

        for (uint32_t i = 0; l && i < s->n; i++) {
                long v = s->elem_size == 4 ? ((const int32_t *) s->data)[i] :
                         s->elem_size == 2 ? ((const uint16_t *) s->data)[i] : ((const uint8_t *) s->data)[i];
                PyObject *x = PyLong_FromLong(v);

                if (!x) {
                        Py_CLEAR(l);
                        break;
                }
                PyList_SET_ITEM(l, i, x);
        }
        return l;
}

static PyObject *sparsity_dict(const rt_sparsity_t *s) {
        PyObject *dims = PyList_New(s->n_dim_metadata);

        for (uint32_t i = 0; dims && i < s->n_dim_metadata; i++) {
                const rt_dim_metadata_t *d = &s->dim_metadata[i];
                PyObject *x = d->format == RT_DIM_DENSE ?
                        Py_BuildValue("{s:i,s:i}", "format", (int) d->format, "dense_size", (int) d->dense_size) :
                        Py_BuildValue("{s:i,s:N,s:N}", "format", (int) d->format, "array_segments",
                                      sparse_index(&d->array_segments), "array_indices",
                                      sparse_index(&d->array_indices));
                if (!x) {
                        Py_CLEAR(dims);
                        break;
                }
                PyList_SET_ITEM(dims, i, x);
        }
        if (!dims)
                return NULL;
        return Py_BuildValue("{s:N,s:N,s:N}", "traversal_order", int_list(s->traversal_order, s->n_traversal_order),
                             "block_map", int_list(s->block_map, s->n_block_map), "dim_metadata", dims);
}

static PyObject *tensor_dict(const rt_model_tensor_t *t) {
        PyObject *scales = PyList_New((Py_ssize_t) t->quant.n);
        PyObject *zps = PyList_New((Py_ssize_t) t->quant.n);
        PyObject *sparsity;

        if (!scales || !zps)
                goto fail;
        for (size_t i = 0; i < t->quant.n; i++) {
                PyObject *s = PyFloat_FromDouble(t->quant.scale[i]);
                PyObject *z = PyLong_FromLongLong(t->quant.zero_point ? t->quant.zero_point[i] : 0);

                if (!s || !z) {
                        Py_XDECREF(s);
                        Py_XDECREF(z);
                        goto fail;
                }
                PyList_SET_ITEM(scales, (Py_ssize_t) i, s);
                PyList_SET_ITEM(zps, (Py_ssize_t) i, z);
        }
        if (t->sparsity)
                sparsity = sparsity_dict(t->sparsity);
        else
                sparsity = Py_NewRef(Py_None);
        if (!sparsity)
                goto fail;
        return Py_BuildValue("{s:s,s:i,s:N,s:N,s:N,s:N,s:i,s:O,s:O,s:N}",
                             "name", t->name ? t->name : "",
                             "type", (int) t->type,
                             "shape", int_list(t->shape, (size_t) t->rank),
                             "shape_signature", int_list(t->has_shape_signature ? t->shape_signature : t->shape,
                                                         (size_t) t->rank),
                             "scales", scales,
                             "zero_points", zps,
                             "quantized_dimension", (int) t->quant.axis,
                             "is_variable", t->is_variable ? Py_True : Py_False,
                             "constant", t->data && !t->is_variable ? Py_True : Py_False,
                             "sparsity", sparsity);
fail:
        Py_XDECREF(scales);
        Py_XDECREF(zps);
        return NULL;
}

static PyObject *signature_io(const rt_signature_io_t *v, int32_t n) {
        PyObject *l = PyList_New(n);

        for (int32_t i = 0; l && i < n; i++) {
                PyObject *x = Py_BuildValue("(si)", v[i].name ? v[i].name : "", (int) v[i].tensor_index);

                if (!x) {
                        Py_CLEAR(l);
                        break;
                }
                PyList_SET_ITEM(l, i, x);
        }
        return l;
}

/* The tensor dicts of subgraph `g`, in index order. */
static PyObject *graph_tensors(const rt_model_subgraph_t *g) {
        PyObject *tensors = PyList_New(g->n_tensors);

        for (int32_t i = 0; tensors && i < g->n_tensors; i++) {
                PyObject *x = tensor_dict(&g->tensors[i]);

                if (!x) {
                        Py_CLEAR(tensors);
                        break;
                }
                PyList_SET_ITEM(tensors, i, x);
        }
        return tensors;
}

/* Every subgraph's tensor dicts, for details of subgraphs other than 0. */
static PyObject *all_graph_tensors(const rt_model_t *m) {
        PyObject *l = PyList_New(m->n_subgraphs);

        for (int32_t s = 0; l && s < m->n_subgraphs; s++) {
                PyObject *x = graph_tensors(&m->subgraphs[s]);

                if (!x) {
                        Py_CLEAR(l);
                        break;
                }
                PyList_SET_ITEM(l, s, x);
        }
        return l;
}

static PyObject *info_of(const rt_model_t *m) {
        const rt_model_subgraph_t *g = &m->subgraphs[0];
        PyObject *tensors = graph_tensors(g), *sigs = NULL, *ops = NULL;

        if (!tensors)
                return NULL;
        sigs = PyList_New(m->n_signatures);
        for (int32_t i = 0; sigs && i < m->n_signatures; i++) {
                const rt_signature_t *s = &m->signatures[i];
                PyObject *x = Py_BuildValue("{s:s,s:i,s:N,s:N}", "key", s->key ? s->key : "",
                                            "subgraph_index", (int) s->subgraph_index,
                                            "inputs", signature_io(s->inputs, s->n_inputs),
                                            "outputs", signature_io(s->outputs, s->n_outputs));
                if (!x) {
                        Py_CLEAR(sigs);
                        break;
                }
                PyList_SET_ITEM(sigs, i, x);
        }
        ops = PyList_New(g->n_ops);
        for (int32_t i = 0; ops && i < g->n_ops; i++) {
                const rt_model_op_t *op = &g->ops[i];
                PyObject *x = Py_BuildValue("{s:i,s:s,s:N,s:N}", "index", (int) i, "op_name", rt_model_op_name(op),
                                            "inputs", int_list(op->inputs, (size_t) op->n_inputs),
                                            "outputs", int_list(op->outputs, (size_t) op->n_outputs));
                if (!x) {
                        Py_CLEAR(ops);
                        break;
                }
                PyList_SET_ITEM(ops, i, x);
        }
        if (!sigs || !ops) {
                Py_XDECREF(sigs);
                Py_XDECREF(ops);
                Py_DECREF(tensors);
                return NULL;
        }
        return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:i,s:N}",
                             "inputs", int_list(g->inputs, (size_t) g->n_inputs),
                             "outputs", int_list(g->outputs, (size_t) g->n_outputs),
                             "tensors", tensors, "signatures", sigs, "ops", ops,
                             "subgraphs", (int) m->n_subgraphs, "graph_tensors", all_graph_tensors(m));
}

PyObject *native_model_info(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "path", "content", NULL };
        const char *path = NULL;
        Py_buffer content = { 0 };
        char err[512] = "";
        rt_model_t *m = NULL;
        PyObject *ret;
        int r;

        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zz*", kw, &path, &content))
                return NULL;
        if (!path && !content.buf) {
                PyErr_SetString(PyExc_ValueError, "model_info: a path or content is required");
                return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        if (path)
                r = rt_model_load_file(path, &m, err, sizeof(err));
        else
                r = rt_model_load_buffer(content.buf, (size_t) content.len, true, &m, err, sizeof(err));
        Py_END_ALLOW_THREADS
        if (content.buf)
                PyBuffer_Release(&content);
        if (r < 0)
                return native_raise(r, native_status_of_errno(r), err[0] ? err : "cannot read the model");
        if (m->n_subgraphs < 1) {
                rt_model_free(m);
                return native_raise(-EINVAL, "INVALID_ARGUMENT", "the model has no subgraph");
        }
        ret = info_of(m);
        rt_model_free(m);
        return ret;
}

/* model_constant(path=None, content=None, tensor=0) -> the bytes of
 * constant tensor `tensor` of subgraph 0, or None when it is not a
 * constant (served interpreters read the model's weights from here). */
PyObject *native_model_constant(PyObject *self, PyObject *args, PyObject *kwargs) {
        static char *kw[] = { "path", "content", "tensor", NULL };
        const char *path = NULL;
        Py_buffer content = { 0 };
        char err[512] = "";
        rt_model_t *m = NULL;
        PyObject *ret;
        int tensor = 0, r;

        if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|zz*i", kw, &path, &content, &tensor))
                return NULL;
        if (!path && !content.buf) {
                PyErr_SetString(PyExc_ValueError, "model_constant: a path or content is required");
                return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        if (path)
                r = rt_model_load_file(path, &m, err, sizeof(err));
        else
                r = rt_model_load_buffer(content.buf, (size_t) content.len, false, &m, err, sizeof(err));
        Py_END_ALLOW_THREADS
        if (r < 0) {
                if (content.buf)
                        PyBuffer_Release(&content);
                return native_raise(r, native_status_of_errno(r), err[0] ? err : "cannot read the model");
        }
        if (m->n_subgraphs < 1 || tensor < 0 || tensor >= m->subgraphs[0].n_tensors) {
                ret = PyErr_Format(PyExc_ValueError, "tensor %d out of range", tensor);
        } else {
                const rt_model_tensor_t *t = &m->subgraphs[0].tensors[tensor];

                ret = t->data ? PyBytes_FromStringAndSize(t->data, (Py_ssize_t) t->data_bytes) : Py_NewRef(Py_None);
        }
        rt_model_free(m);
        if (content.buf)
                PyBuffer_Release(&content);
        return ret;
}
