/* SPDX-License-Identifier: Apache-2.0 */
/*
 * _native.TensorBuf: a buffer object (PEP 3118) over one tensor's bytes in
 * its interpreter's memory (acceld's shared memfd, or the in-process arena).
 * It keeps the interpreter alive and counts its exports, so that
 * allocate/resize refuse to move memory a numpy view still points at, and
 * refuses to export once the interpreter's memory has moved.
 */
#include "native.h"

typedef struct {
        PyObject_HEAD
        NativeInterp *owner;
        void *data;
        Py_ssize_t size;
        uint64_t generation;
        bool readonly;
} TensorBuf;

PyObject *native_tensor_buf_new(NativeInterp *owner, void *data, size_t size, uint64_t generation) {
        TensorBuf *b = PyObject_New(TensorBuf, &NativeTensorBuf_Type);

        if (!b)
                return NULL;
        Py_INCREF((PyObject *) owner);
        b->owner = owner;
        b->data = data;
        b->size = (Py_ssize_t) size;
        b->generation = generation;
        b->readonly = false;
        return (PyObject *) b;
}

PyObject *native_tensor_buf_new_readonly(NativeInterp *owner, const void *data, size_t size, uint64_t generation) {
        PyObject *o = native_tensor_buf_new(owner, (void *) data, size, generation);

        if (o)
                ((TensorBuf *) o)->readonly = true;
        return o;
}

static int buf_get(PyObject *self, Py_buffer *view, int flags) {
        TensorBuf *b = (TensorBuf *) self;

        if (native_interp_generation(b->owner) != b->generation) {
                PyErr_SetString(PyExc_BufferError,
                                "the tensor's memory moved (resize_tensor_input, allocate_tensors or a dynamic "
                                "output); call tensor() again");
                return -1;
        }
        if (PyBuffer_FillInfo(view, self, b->data, b->size, b->readonly, flags) < 0)
                return -1;
        native_interp_exports_add(b->owner, 1);
        return 0;
}

static void buf_release(PyObject *self, Py_buffer *view) {
        native_interp_exports_add(((TensorBuf *) self)->owner, -1);
}

static void buf_dealloc(PyObject *self) {
        Py_XDECREF((PyObject *) ((TensorBuf *) self)->owner);
        PyObject_Free(self);
}

static PyBufferProcs buf_procs = {
        .bf_getbuffer = buf_get,
        .bf_releasebuffer = buf_release,
};

PyTypeObject NativeTensorBuf_Type = {
        PyVarObject_HEAD_INIT(NULL, 0)
        .tp_name = "accel._native.TensorBuf",
        .tp_basicsize = sizeof(TensorBuf),
        .tp_flags = Py_TPFLAGS_DEFAULT,
        .tp_doc = "The bytes of one tensor, shared with its interpreter (zero-copy).",
        .tp_dealloc = buf_dealloc,
        .tp_as_buffer = &buf_procs,
};
