/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .tflite reader: a verified, read-only view of a TFLite model
 * (FlatBuffers schema version 3).
 *
 * rt_model_load_*() verifies the whole buffer before anything is read and
 * then builds the arrays below. Constant tensor data, strings and operator
 * io lists point into the mapping: nothing big is copied. The model owns the
 * mapping (or borrows the caller's buffer, see rt_model_load_buffer()) and
 * everything here lives until rt_model_free().
 *
 * A model is immutable after load and may be shared between threads and
 * interpreters.
 *
 * Public (runtime/include/, what runtime_dep exports): the reader is part
 * of the in-process API. Element types, quantization, op codes and options
 * tags are the driver ABI's (<accel/driver.h>).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/driver.h"

/* Size of one element in bytes; 0 for STRING/RESOURCE/VARIANT/unknown. */
size_t rt_type_size(rt_type_t type);
/* "float32", "int8", ...; "unknown" for values out of range. */
const char *rt_type_name(rt_type_t type);

typedef struct rt_model_tensor {
        rt_type_t type;
        int32_t rank;
        int32_t shape[RT_MAX_RANK];
        bool has_shape_signature;
        int32_t shape_signature[RT_MAX_RANK];  /* -1 = dynamic dimension */
        uint32_t buffer;                       /* index into the model's buffers */
        const void *data;                      /* constant data in the mapping, or NULL */
        size_t data_bytes;
        const char *name;                      /* "" if the file has none */
        rt_quant_t quant;                      /* scale/zero_point owned by the model */
        bool is_variable;
        rt_sparsity_t *sparsity;               /* owned; NULL when dense */
        /* Added: the file's has_rank flag (false for old files and for
         * tensors of unknown rank, whose shape is []). */
        bool has_rank;
} rt_model_tensor_t;

typedef struct rt_model_op {
        int32_t builtin_code;      /* max(builtin_code, deprecated_builtin_code) */
        int32_t version;
        const char *custom_code;   /* custom ops only, else NULL */
        const int32_t *inputs;     /* points into the mapping or an owned copy */
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
        const int32_t *intermediates;
        int32_t n_intermediates;
        uint8_t builtin_options_type;  /* BuiltinOptions union tag */
        fbt_table_t builtin_options;
        const uint8_t *custom_options;
        size_t custom_options_size;
        /* Added: the BuiltinOptions2 union (StableHLO ops); 0 / absent for
         * every classic builtin. */
        uint8_t builtin_options_2_type;
        fbt_table_t builtin_options_2;
} rt_model_op_t;

typedef struct rt_model_subgraph {
        const char *name;
        rt_model_tensor_t *tensors;
        int32_t n_tensors;
        rt_model_op_t *ops;
        int32_t n_ops;
        const int32_t *inputs;
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
} rt_model_subgraph_t;

typedef struct rt_signature_io {
        const char *name;
        int32_t tensor_index;
} rt_signature_io_t;

typedef struct rt_signature {
        const char *key;
        int32_t subgraph_index;
        rt_signature_io_t *inputs;
        int32_t n_inputs;
        rt_signature_io_t *outputs;
        int32_t n_outputs;
} rt_signature_t;

typedef struct rt_metadata {
        const char *name;
        uint32_t buffer;
        const uint8_t *data;  /* the buffer's bytes, or NULL */
        size_t size;
} rt_metadata_t;

struct rt_model {
        const uint8_t *buf;
        size_t size;
        uint32_t version;
        const char *description;
        rt_model_subgraph_t *subgraphs;
        int32_t n_subgraphs;
        uint32_t n_buffers;
        rt_signature_t *signatures;
        int32_t n_signatures;
        rt_metadata_t *metadata;
        int32_t n_metadata;
        /* From the "min_runtime_version" metadata entry, or NULL. Owned. */
        char *min_runtime_version;
        /* From "reduced_precision_support" metadata: raw bytes, or NULL. */
        const uint8_t *reduced_precision_support;
        size_t reduced_precision_support_size;
        /* private */
        void *mapping;        /* munmap on free when non-NULL */
        size_t mapping_size;
        void *owned_buf;      /* free on free when non-NULL */
        void **blobs;         /* aligned copies of misaligned constants */
        size_t n_blobs;
};

/*
 * Largest byte size of one tensor (shape * element size) the reader accepts;
 * larger shapes are rejected as malformed, which also rules out overflow in
 * every later size computation.
 */
#define RT_MODEL_MAX_TENSOR_BYTES ((uint64_t) INT32_MAX)

/* rt_builtin_op_t (RT_BUILTIN_*) and rt_options_type_t (RT_OPTIONS_*)
 * come from the driver ABI, <accel/driver.h>. */

/*
 * Map `path` read-only and load it (the caller's own file: truncated by
 * another process meanwhile, it faults the caller). On failure returns a
 * negative errno (-EINVAL for a malformed model, -ENOENT etc. from open)
 * and, if `err` is non-NULL, writes a NUL-terminated message of at most
 * `err_size` bytes that names the fault ("tensor 12: buffer 99 out of range
 * (57 buffers)").
 */
int rt_model_load_file(const char *path, rt_model_t **ret, char *err, size_t err_size);

/*
 * Load from an already-open fd (the caller keeps its fd). Same contract. A
 * memfd sealed with F_SEAL_SHRINK and F_SEAL_WRITE is mapped (its seals are
 * read before its size); any other regular file is read into a private copy
 * with pread, since it could be truncated (SIGBUS) or rewritten (bytes
 * changing after verification) under a mapping.
 */
int rt_model_load_fd(int fd, rt_model_t **ret, char *err, size_t err_size);

/*
 * Load from a caller's buffer. With copy == false the buffer is borrowed and
 * must outlive the model (it must also stay 8-byte aligned for int64 data);
 * with copy == true the model keeps its own copy. A borrowed buffer that is
 * not 8-byte aligned is copied as if copy were true, so that typed pointers
 * into it (io lists, constant data) are always aligned.
 *
 * Names and strings (description, subgraph and tensor names, signature keys)
 * are "" when the file has none, never NULL; custom_code is NULL for builtin
 * ops. Constant data that is misaligned for its element type inside the file
 * (legal, rare) is given an aligned private copy; everything else points into
 * the model's bytes.
 */
int rt_model_load_buffer(const void *buf, size_t size, bool copy, rt_model_t **ret, char *err,
                         size_t err_size);

/* NULL-safe; returns NULL. */
rt_model_t *rt_model_free(rt_model_t *m);

/* Verify a buffer without building anything (used by the fuzz target too).
 * 0 or -EINVAL with a message. */
int rt_model_verify(const uint8_t *buf, size_t size, char *err, size_t err_size);

/*
 * rt_op_name(): "CONV_2D" for a known builtin code, else "BUILTIN_123" (that
 * string lives in a thread-local buffer, valid until the next call from the
 * same thread). rt_model_op_name(): the custom name for a custom op
 * ("TFLite_Detection_PostProcess"), else rt_op_name(). Never NULL.
 */
const char *rt_op_name(int32_t builtin_code);
const char *rt_model_op_name(const rt_model_op_t *op);

/* The BuiltinOptions tag a builtin op carries: RT_OPTIONS_NONE for ops
 * without options, RT_OPTIONS_ANY for codes that are not checked. */
rt_options_type_t rt_op_options_type(int32_t builtin_code);

/* "Conv2DOptions", "NONE" for 0, "BuiltinOptions_200" for unknown tags
 * (thread-local buffer as for rt_op_name()). Never NULL. */
const char *rt_options_type_name(int type);
