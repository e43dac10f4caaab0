/* SPDX-License-Identifier: Apache-2.0 */
/* accel._native: module definition. */
#include "accel/accel.h"
#include "native.h"

static PyObject *status_name(PyObject *self, PyObject *arg) {
        long v = PyLong_AsLong(arg);

        if (v == -1 && PyErr_Occurred())
                return NULL;
        return PyUnicode_FromString(accel_status_to_string((accel_status_t) v));
}

static PyMethodDef module_methods[] = {
        { "set_error_classes", native_set_error_classes, METH_O,
          "set_error_classes({status_name: class, 'NONE': base}): classes raised for daemon statuses" },
        { "model_info", (PyCFunction) (void (*)(void)) native_model_info, METH_VARARGS | METH_KEYWORDS,
          "model_info(path=None, content=None) -> dict of subgraph 0's tensors, ops and the signatures" },
        { "model_constant", (PyCFunction) (void (*)(void)) native_model_constant, METH_VARARGS | METH_KEYWORDS,
          "model_constant(path=None, content=None, tensor=0) -> bytes of a constant of subgraph 0, or None" },
        { "status_name", status_name, METH_O, "status_name(n) -> 'INVALID_ARGUMENT', ..." },
        { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
        PyModuleDef_HEAD_INIT,
        .m_name = "accel._native",
        .m_doc = "libaccel and the in-process runtime for the accel package",
        .m_size = -1,
        .m_methods = module_methods,
};

static int add_type(PyObject *m, PyTypeObject *t, const char *name) {
        if (PyType_Ready(t) < 0)
                return -1;
        Py_INCREF(t);
        if (PyModule_AddObject(m, name, (PyObject *) t) < 0) {
                Py_DECREF(t);
                return -1;
        }
        return 0;
}

PyMODINIT_FUNC PyInit__native(void) {
        PyObject *m = PyModule_Create(&module_def);

        if (!m)
                return NULL;
        if (add_type(m, &NativeInterp_Type, "Interp") < 0 || add_type(m, &NativeClient_Type, "Client") < 0 ||
            PyType_Ready(&NativeTensorBuf_Type) < 0 ||
            PyModule_AddIntConstant(m, "PROTOCOL_VERSION", ACCEL_PROTOCOL_VERSION) < 0) {
                Py_DECREF(m);
                return NULL;
        }
        return m;
}
