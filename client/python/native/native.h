/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accel._native: the C half of the Python package `accel`. It wraps
 * libaccel (interpreters served by acceld, the Client queries) and the
 * in-process runtime (local interpreters, model metadata); the Python half
 * (the .py files of accel/) gives them tflite_runtime's shape.
 *
 * Tensors cross as Python buffer objects (PEP 3118), not numpy's C API: the
 * module does not depend on the numpy ABI it was built against, and
 * numpy.frombuffer() over a buffer gives the zero-copy view tensor() needs.
 */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

/* Raise the exception class registered for status `name` ("NOT_FOUND",
 * "DEAD_OBJECT", ...; the base class when unknown) with `message` and the
 * positive errno of `error`. Returns NULL. */
PyObject *native_raise(int error, const char *name, const char *message);
/* The same for a failed libaccel call: its status, else one derived from
 * the errno (-ECONNRESET/-EPIPE: DEAD_OBJECT). */
PyObject *native_raise_accel(int error);

/* A stored evaluation as a dict (metrics as their JSON text). */
struct accel_evaluation;
PyObject *native_evaluation_dict(const struct accel_evaluation *e);
/* The status name for an errno of the in-process runtime. */
const char *native_status_of_errno(int error);
/* set_error_classes(dict): the Python half registers its classes. */
PyObject *native_set_error_classes(PyObject *self, PyObject *arg);

/* model_info(path=None, content=None) -> dict (native-model.c). */
PyObject *native_model_info(PyObject *self, PyObject *args, PyObject *kwargs);
/* model_constant(path=None, content=None, tensor=0) -> bytes or None. */
PyObject *native_model_constant(PyObject *self, PyObject *args, PyObject *kwargs);

extern PyTypeObject NativeInterp_Type;
extern PyTypeObject NativeClient_Type;
extern PyTypeObject NativeTensorBuf_Type;

/* The interpreter fields the tensor buffers need. */
typedef struct native_interp NativeInterp;
/* A buffer object over `size` bytes at `data` of `owner`, valid while the
 * owner's generation stays `generation`. */
PyObject *native_tensor_buf_new(NativeInterp *owner, void *data, size_t size, uint64_t generation);
/* The same, read-only (a constant of the model). */
PyObject *native_tensor_buf_new_readonly(NativeInterp *owner, const void *data, size_t size, uint64_t generation);
/* Buffers of `it` currently exported (numpy arrays alive over them). */
Py_ssize_t native_interp_exports(const NativeInterp *it);
void native_interp_exports_add(NativeInterp *it, int delta);
uint64_t native_interp_generation(const NativeInterp *it);
