/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TfLiteInterpreter: the C API's interpreter over one backend (served by
 * acceld, or acceld's runtime in this process). The options become one
 * TFLiteSettings JSON text that both backends understand; the tensors
 * handed out are TfLiteTensor structs refreshed from the backend after
 * every call that can change them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "tflite-internal.h"

#define SETTINGS_MAX 512

/* The delegates of `o` as settings: 0, or -EPERM after reporting a
 * delegate that is not ours. */
static int settings_build(const TfLiteInterpreterOptions *o, char *buf, size_t size, bool *ret_any) {
        bool xnn = false;
        TfLiteXNNPackDelegateOptions xo = TfLiteXNNPackDelegateOptionsDefault();
        for (size_t i = 0; o && i < o->n_delegates; i++) {
                if (!tfl__delegate_xnnpack(o->delegates[i], &xo)) {
                        tfl__report(o->reporter, o->reporter_data,
                                    "delegate %zu is not one acceld can run: acceld accepts only its own XNNPACK "
                                    "delegate (TfLiteXNNPackDelegateCreate); delegates from other libraries "
                                    "(TfLiteExternalDelegateCreate, vendor delegates) are refused",
                                    i);
                        return -EPERM;
                }
                xnn = true;
        }
        const char *env = getenv("ACCEL_TFLITE_SETTINGS");
        const char *fallback = o && o->delegate_fallback
                                       ? ",\"fallback_settings\":{\"allow_automatic_fallback_on_compilation_error\":true,"
                                         "\"allow_automatic_fallback_on_execution_error\":true}"
                                       : "";
        *ret_any = true;
        if (xnn)
                snprintf(buf, size, "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":%d,\"flags\":%u}%s}",
                         xo.num_threads > 1 ? xo.num_threads : 1, xo.flags, fallback);
        else if (o && o->use_nnapi)
                snprintf(buf, size, "{\"delegate\":\"NNAPI\"%s}", fallback);
        else if (env && *env)
                snprintf(buf, size, "%s", env);
        else
                *ret_any = false;
        return 0;
}

static void tensor_done(tfl_tensor_t *t) {
        TfLiteIntArrayFree(t->t.dims);
        TfLiteFloatArrayFree(t->affine.scale);
        TfLiteIntArrayFree(t->affine.zero_point);
        memset(t, 0, sizeof(*t));
}

/* Refresh one tensor from the backend. */
static int tensor_sync(TfLiteInterpreter *it, bool input, int32_t i) {
        tfl_tensor_t *t = input ? &it->inputs[i] : &it->outputs[i];
        tfl_desc_t d;
        int r = it->ops->describe(it->impl, input, i, &d);
        if (r < 0)
                return r;
        if (!t->t.dims || t->t.dims->size != d.rank) {
                TfLiteIntArray *dims = TfLiteIntArrayCreate(d.rank);
                if (!dims)
                        return -ENOMEM;
                TfLiteIntArrayFree(t->t.dims);
                t->t.dims = dims;
        }
        for (int32_t k = 0; k < d.rank; k++)
                t->t.dims->data[k] = d.dims[k];
        t->t.type = d.type;
        t->t.data.data = d.data;
        t->t.bytes = d.bytes;
        t->t.name = d.name;
        t->t.params = (TfLiteQuantizationParams) { .scale = d.scale, .zero_point = d.zero_point };
        t->t.allocation_type = d.data ? kTfLiteArenaRw : kTfLiteMemNone;
        t->t.buffer_handle = kTfLiteNullBufferHandle;
        t->t.allocation = &t->t;
        t->owner = it;
        t->index = i;
        t->input = input;
        if (d.scale != 0.0f) {
                if (!t->affine.scale && !(t->affine.scale = TfLiteFloatArrayCreate(1)))
                        return -ENOMEM;
                if (!t->affine.zero_point && !(t->affine.zero_point = TfLiteIntArrayCreate(1)))
                        return -ENOMEM;
                t->affine.scale->data[0] = d.scale;
                t->affine.zero_point->data[0] = d.zero_point;
                t->t.quantization = (TfLiteQuantization) { .type = kTfLiteAffineQuantization, .params = &t->affine };
        } else
                t->t.quantization = (TfLiteQuantization) { .type = kTfLiteNoQuantization };
        return 0;
}

static int tensors_sync(TfLiteInterpreter *it, bool inputs, bool outputs) {
        int r;
        for (int32_t i = 0; inputs && i < it->n_inputs; i++)
                if ((r = tensor_sync(it, true, i)) < 0)
                        return r;
        for (int32_t i = 0; outputs && i < it->n_outputs; i++)
                if ((r = tensor_sync(it, false, i)) < 0)
                        return r;
        return 0;
}

/* A backend of the interpreter's kind for `settings_json`: the local one
 * gets the application's kernels. */
static int backend_create(TfLiteInterpreter *it, const tfl_backend_ops_t *ops, const char *settings_json,
                          void **ret_impl) {
        if (ops == &tfl__backend_local)
                return tfl__local_create(it->model, settings_json, it->num_threads, it->kernels, ret_impl, it->err);
        return ops->create(it->model, settings_json, it->num_threads, ret_impl, it->err);
}

/* Create the backend for the interpreter's settings: served or local as
 * the mode says, auto falling back to local when no daemon answers. A
 * model with application kernels always runs here: acceld cannot call
 * into the application. */
static int backend_open(TfLiteInterpreter *it) {
        tfl_mode_t mode;
        if (tfl__mode_from_env(&mode) < 0) {
                snprintf(it->err, sizeof(it->err),
                         "ACCEL_TFLITE_MODE=%s: expected served, local or auto", getenv("ACCEL_TFLITE_MODE"));
                return -EINVAL;
        }
        if (it->kernels)
                mode = TFL_MODE_LOCAL;
        const tfl_backend_ops_t *ops = mode == TFL_MODE_LOCAL ? &tfl__backend_local : &tfl__backend_served;
        int r = backend_create(it, ops, it->settings_json, &it->impl);
        if (r == -ENOTCONN && mode == TFL_MODE_AUTO) {
                ops = &tfl__backend_local;
                r = backend_create(it, ops, it->settings_json, &it->impl);
        }
        if (r < 0)
                return r;
        it->ops = ops;
        return 0;
}

static void backend_close(TfLiteInterpreter *it) {
        if (it->ops && it->impl)
                it->ops->destroy(it->impl);
        it->impl = NULL;
}

void TfLiteInterpreterDelete(TfLiteInterpreter *it) {
        if (!it)
                return;
        backend_close(it);
        for (int32_t i = 0; it->inputs && i < it->n_inputs; i++)
                tensor_done(&it->inputs[i]);
        for (int32_t i = 0; it->outputs && i < it->n_outputs; i++)
                tensor_done(&it->outputs[i]);
        free(it->inputs);
        free(it->outputs);
        free(it->settings_json);
        /* After the backend: its nodes call into these until freed. */
        tfl__kernels_free(it->kernels);
        (void) tfl__model_unref(it->model);
        free(it);
}

static TfLiteInterpreter *interpreter_create(const TfLiteModel *model, const TfLiteInterpreterOptions *o,
                                             bool selected_only) {
        tfl_reporter_t reporter = o ? o->reporter : NULL;
        void *rdata = o ? o->reporter_data : NULL;
        if (!model) {
                tfl__report(reporter, rdata, "TfLiteInterpreterCreate: no model");
                return NULL;
        }
        char settings[SETTINGS_MAX];
        bool any;
        if (settings_build(o, settings, sizeof(settings), &any) < 0)
                return NULL;
        tfl_kernels_t *kernels;
        if (tfl__kernels_resolve(model, o, selected_only, &kernels) < 0)
                return NULL;

        TfLiteInterpreter *it = calloc(1, sizeof(*it));
        if (!it) {
                tfl__kernels_free(kernels);
                return NULL;
        }
        it->kernels = kernels;
        /* The C API's model is const; the reference count is ours. */
        it->model = tfl__model_ref((TfLiteModel *) model);
        it->reporter = reporter;
        it->reporter_data = rdata;
        it->num_threads = o ? o->num_threads : -1;
        if (any && !(it->settings_json = strdup(settings)))
                goto fail;
        if (backend_open(it) < 0) {
                tfl__report(reporter, rdata, "%s", it->err);
                goto fail;
        }
        it->n_inputs = it->ops->count(it->impl, true);
        it->n_outputs = it->ops->count(it->impl, false);
        it->inputs = calloc((size_t) it->n_inputs + 1, sizeof(*it->inputs));
        it->outputs = calloc((size_t) it->n_outputs + 1, sizeof(*it->outputs));
        if (!it->inputs || !it->outputs || tensors_sync(it, true, true) < 0) {
                tfl__report(reporter, rdata, "TfLiteInterpreterCreate: out of memory");
                goto fail;
        }
        return it;
fail:
        TfLiteInterpreterDelete(it);
        return NULL;
}

TfLiteInterpreter *TfLiteInterpreterCreate(const TfLiteModel *model, const TfLiteInterpreterOptions *o) {
        return interpreter_create(model, o, false);
}

TfLiteInterpreter *TfLiteInterpreterCreateWithSelectedOps(const TfLiteModel *model,
                                                          const TfLiteInterpreterOptions *options) {
        /* Only the ops the options name, as TensorFlow Lite (builtin ones
         * still run on acceld's kernels). */
        return interpreter_create(model, options, true);
}

int32_t TfLiteInterpreterGetInputTensorCount(const TfLiteInterpreter *it) {
        return it ? it->n_inputs : 0;
}

int32_t TfLiteInterpreterGetOutputTensorCount(const TfLiteInterpreter *it) {
        return it ? it->n_outputs : 0;
}

TfLiteTensor *TfLiteInterpreterGetInputTensor(const TfLiteInterpreter *it, int32_t i) {
        if (!it || i < 0 || i >= it->n_inputs)
                return NULL;
        return &it->inputs[i].t;
}

const TfLiteTensor *TfLiteInterpreterGetOutputTensor(const TfLiteInterpreter *it, int32_t i) {
        if (!it || i < 0 || i >= it->n_outputs)
                return NULL;
        return &it->outputs[i].t;
}

int32_t TfLiteInterpreterGetInputTensorIndex(const TfLiteInterpreter *it, int32_t i) {
        if (!it || i < 0 || i >= it->n_inputs || it->model->rt->n_subgraphs < 1)
                return -1;
        return it->model->rt->subgraphs[0].inputs[i];
}

int32_t TfLiteInterpreterGetOutputTensorIndex(const TfLiteInterpreter *it, int32_t i) {
        if (!it || i < 0 || i >= it->n_outputs || it->model->rt->n_subgraphs < 1)
                return -1;
        return it->model->rt->subgraphs[0].outputs[i];
}

/* Report a failed backend call and turn it into a status. */
static TfLiteStatus fail(TfLiteInterpreter *it, int r) {
        tfl__report(it->reporter, it->reporter_data, "%s", it->err[0] ? it->err : strerror(-r));
        return kTfLiteError;
}

TfLiteStatus TfLiteInterpreterResizeInputTensor(TfLiteInterpreter *it, int32_t i, const int *dims, int32_t rank) {
        if (!it)
                return kTfLiteError;
        if (i < 0 || i >= it->n_inputs || rank < 0 || (rank > 0 && !dims)) {
                tfl__report(it->reporter, it->reporter_data, "ResizeInputTensor: input %d out of range or bad shape",
                            i);
                return kTfLiteError;
        }
        it->err[0] = '\0';
        int r = it->ops->resize(it->impl, i, dims, rank, it->err);
        if (r < 0)
                return fail(it, r);
        it->allocated = false;
        return tensor_sync(it, true, i) < 0 ? kTfLiteError : kTfLiteOk;
}

TfLiteStatus TfLiteInterpreterAllocateTensors(TfLiteInterpreter *it) {
        if (!it)
                return kTfLiteError;
        it->err[0] = '\0';
        int r = it->ops->allocate(it->impl, it->err);
        if (r < 0)
                return fail(it, r);
        if (tensors_sync(it, true, true) < 0)
                return kTfLiteError;
        it->allocated = true;
        return kTfLiteOk;
}

TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter *it) {
        if (!it)
                return kTfLiteError;
        if (!it->allocated) {
                tfl__report(it->reporter, it->reporter_data,
                            "Invoke called on model that is not ready: call TfLiteInterpreterAllocateTensors first");
                return kTfLiteError;
        }
        it->err[0] = '\0';
        int r = it->ops->invoke(it->impl, it->err);
        if (r < 0)
                return fail(it, r);
        /* Outputs sized at invoke (dynamic shapes) move and change shape. */
        return tensors_sync(it, false, true) < 0 ? kTfLiteError : kTfLiteOk;
}

TfLiteStatus TfLiteInterpreterResetVariableTensors(TfLiteInterpreter *it) {
        if (!it)
                return kTfLiteError;
        it->err[0] = '\0';
        int r = it->ops->reset_variables(it->impl, it->err);
        if (r < 0)
                return fail(it, r);
        return tensors_sync(it, true, true) < 0 ? kTfLiteError : kTfLiteOk;
}

TfLiteStatus tfl__tensor_set_string(tfl_tensor_t *t, const void *data, size_t size) {
        TfLiteInterpreter *it = t->owner;
        if (!t->input) {
                tfl__report(it->reporter, it->reporter_data, "tensor %s is an output", t->t.name);
                return kTfLiteError;
        }
        it->err[0] = '\0';
        int r = it->ops->set_string(it->impl, t->index, data, size, it->err);
        if (r < 0)
                return fail(it, r);
        return tensor_sync(it, true, t->index) < 0 ? kTfLiteError : kTfLiteOk;
}

void TfLiteSetAllowBufferHandleOutput(const TfLiteInterpreter *interpreter, bool allow_buffer_handle_output) {
        /* No buffer handles: outputs are always in their data pointers. */
}

TfLiteStatus TfLiteInterpreterModifyGraphWithDelegate(const TfLiteInterpreter *interpreter, TfLiteDelegate *delegate) {
        /* The C API passes a const interpreter it then changes. */
        TfLiteInterpreter *it = (TfLiteInterpreter *) interpreter;
        if (!it || !delegate)
                return kTfLiteDelegateError;
        TfLiteInterpreterOptions o = {
                .reporter = it->reporter,
                .reporter_data = it->reporter_data,
                .delegates = &delegate,
                .n_delegates = 1,
        };
        char settings[SETTINGS_MAX];
        bool any;
        if (settings_build(&o, settings, sizeof(settings), &any) < 0)
                return kTfLiteDelegateError;
        char *json = strdup(settings);
        if (!json)
                return kTfLiteError;

        /* Prepare again with the delegate's settings on the same backend,
         * keep the inputs' shapes, and allocate if the old one was. */
        void *impl = NULL;
        it->err[0] = '\0';
        int r = backend_create(it, it->ops, json, &impl);
        for (int32_t i = 0; r >= 0 && i < it->n_inputs; i++) {
                const TfLiteIntArray *d = it->inputs[i].t.dims;
                r = it->ops->resize(impl, i, d->data, d->size, it->err);
        }
        if (r >= 0 && it->allocated)
                r = it->ops->allocate(impl, it->err);
        if (r < 0) {
                if (impl)
                        it->ops->destroy(impl);
                free(json);
                tfl__report(it->reporter, it->reporter_data, "ModifyGraphWithDelegate: %s", it->err);
                return kTfLiteDelegateError;
        }
        it->ops->destroy(it->impl);
        it->impl = impl;
        free(it->settings_json);
        it->settings_json = json;
        return tensors_sync(it, true, true) < 0 ? kTfLiteError : kTfLiteOk;
}

const char *TfLiteVersion(void) {
        return "2.9.0";
}
