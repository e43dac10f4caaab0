/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtensorflowlite_c's insides: the objects behind the C API's opaque
 * types and the two backends an interpreter runs on (acceld through
 * libaccel, or acceld's runtime in the calling process).
 *
 * Internal names are tfl__*; nothing here is exported (tflite-c.sym keeps
 * the TfLite* names only).
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"
#include "tensorflow/lite/c/common.h"
#include "tensorflow/lite/delegates/xnnpack/xnnpack_delegate.h"

struct rt_model;
struct accel_model;

#define TFL_ERR_MAX 1024

/* A model: the caller's buffer (or our mapping of the file), verified and
 * read by acceld's reader once; the served copy is made on first use.
 * Reference counted: the caller's handle and each interpreter. */
struct TfLiteModel {
        atomic_int refs;
        struct rt_model *rt;            /* owns the mapping of a file */
        char *path;                     /* NULL for a buffer */
        pthread_mutex_t lock;           /* guards served */
        struct accel_model *served;
};

/* An application's custom op registration (AddCustomOp), run in its
 * process by kernel.c. */
typedef struct tfl_custom_op {
        char *name;
        TfLiteRegistration reg;
        int32_t min_version, max_version;
} tfl_custom_op_t;

/* An application's AddBuiltinOp: only which op and versions (acceld's own
 * kernels run builtin ops; CreateWithSelectedOps checks the model against
 * these). */
typedef struct tfl_builtin_op {
        int32_t op;
        int32_t min_version, max_version;
} tfl_builtin_op_t;

typedef void (*tfl_reporter_t)(void *user_data, const char *format, va_list args);

struct TfLiteInterpreterOptions {
        int32_t num_threads;            /* -1: default */
        tfl_reporter_t reporter;
        void *reporter_data;
        TfLiteDelegate **delegates;     /* borrowed */
        size_t n_delegates;
        bool use_nnapi;
        bool delegate_fallback;
        tfl_custom_op_t *custom_ops;
        size_t n_custom_ops;
        tfl_builtin_op_t *builtin_ops;
        size_t n_builtin_ops;
        /* SetOpResolver: when either is set, they alone resolve ops. */
        const TfLiteRegistration *(*find_builtin_op)(void *user_data, TfLiteBuiltinOperator op, int version);
        const TfLiteRegistration *(*find_custom_op)(void *user_data, const char *op, int version);
        void *op_resolver_data;
};

/* The application kernels one interpreter runs (kernel.c): the
 * registrations chosen for the model's custom ops, with what their
 * TfLiteContext needs. Owned by the interpreter; outlives its backend. */
typedef struct tfl_kernels tfl_kernels_t;
struct rt_interp_options;

/* Choose the application's registrations for the model's ops as
 * TensorFlow Lite 2.9's C API does (SetOpResolver's callbacks alone when
 * set; else AddCustomOp over the builtin resolver; `selected_only`: the
 * options' ops only). *ret is NULL when no application kernel is needed.
 * 0, -ENOENT (an op nobody provides; reported) or -ENOMEM. */
int tfl__kernels_resolve(const TfLiteModel *model, const TfLiteInterpreterOptions *o, bool selected_only,
                         tfl_kernels_t **ret);
tfl_kernels_t *tfl__kernels_free(tfl_kernels_t *k);
/* Register them with the runtime's options (as external kernels). */
int tfl__kernels_register(const tfl_kernels_t *k, struct rt_interp_options *o);

/* The local backend's create with application kernels (NULL: none). */
int tfl__local_create(TfLiteModel *model, const char *settings_json, int32_t num_threads,
                      const tfl_kernels_t *kernels, void **ret_impl, char *err);

/* Where an interpreter runs. */
typedef enum tfl_mode {
        TFL_MODE_AUTO,                  /* acceld when it answers, else local */
        TFL_MODE_SERVED,
        TFL_MODE_LOCAL,
        _TFL_MODE_MAX,
} tfl_mode_t;

/* What a backend says about input or output i. Pointers are owned by the
 * backend and valid until its next call. */
typedef struct tfl_desc {
        TfLiteType type;
        int32_t rank;
        const int32_t *dims;
        void *data;
        size_t bytes;
        const char *name;
        float scale;
        int32_t zero_point;
} tfl_desc_t;

typedef struct tfl_backend tfl_backend_t;

/* One backend. Every hook returns 0 or -errno and on failure writes a
 * message into err (TFL_ERR_MAX bytes). create returns -ENOTCONN (only)
 * when no daemon answered, so that auto mode can run locally instead. */
typedef struct tfl_backend_ops {
        const char *name;               /* "served", "local" */
        int (*create)(TfLiteModel *model, const char *settings_json, int32_t num_threads, void **ret_impl,
                      char *err);
        void (*destroy)(void *impl);
        int32_t (*count)(void *impl, bool input);
        int (*describe)(void *impl, bool input, int32_t i, tfl_desc_t *ret);
        int (*resize)(void *impl, int32_t i, const int32_t *dims, int32_t rank, char *err);
        int (*allocate)(void *impl, char *err);
        int (*invoke)(void *impl, char *err);
        int (*reset_variables)(void *impl, char *err);
        /* A string input's serialized contents (TensorFlow Lite's layout). */
        int (*set_string)(void *impl, int32_t i, const void *data, size_t size, char *err);
} tfl_backend_ops_t;

extern const tfl_backend_ops_t tfl__backend_served;
extern const tfl_backend_ops_t tfl__backend_local;

/* A tensor the interpreter hands out: the public struct first, so a
 * TfLiteTensor pointer converts back. t.allocation points at the tensor
 * itself: that tells ours from a caller's without reading past a caller's
 * struct. */
typedef struct tfl_tensor {
        TfLiteTensor t;
        TfLiteAffineQuantization affine;
        struct TfLiteInterpreter *owner;
        int32_t index;
        bool input;
} tfl_tensor_t;

/* Copy a serialized string list into a string input of ours; kTfLiteError
 * (reported) when the backend cannot. */
TfLiteStatus tfl__tensor_set_string(tfl_tensor_t *t, const void *data, size_t size);

struct TfLiteInterpreter {
        TfLiteModel *model;             /* one reference */
        tfl_reporter_t reporter;
        void *reporter_data;
        int32_t num_threads;
        char *settings_json;            /* NULL: the default */
        const tfl_backend_ops_t *ops;
        void *impl;
        tfl_kernels_t *kernels;         /* NULL: no application kernel */
        int32_t n_inputs, n_outputs;
        tfl_tensor_t *inputs, *outputs;
        bool allocated;
        char err[TFL_ERR_MAX];
};

/* Report through the reporter (stderr when NULL), printf-style. */
void tfl__report(tfl_reporter_t reporter, void *user_data, const char *format, ...)
        __attribute__((format(printf, 3, 4)));

/* The mode $ACCEL_TFLITE_MODE asks for (auto when unset); -EINVAL for an
 * unknown value. */
int tfl__mode_from_env(tfl_mode_t *ret);

/* TfLiteType of a .tflite schema TensorType number (libaccel's and the
 * runtime's types use those numbers). */
TfLiteType tfl__type_from_schema(int type);

/* Whether `d` is one of ours (TfLiteXNNPackDelegateCreate), and its
 * options when it is. */
bool tfl__delegate_xnnpack(const TfLiteDelegate *d, TfLiteXNNPackDelegateOptions *ret);

/* Model references. */
TfLiteModel *tfl__model_ref(TfLiteModel *m);
TfLiteModel *tfl__model_unref(TfLiteModel *m);
/* libaccel's copy of the model, made on first use (owned by the model).
 * 0 or -errno with err filled. Thread-safe. */
int tfl__model_served(TfLiteModel *m, struct accel_model **ret, char *err);
