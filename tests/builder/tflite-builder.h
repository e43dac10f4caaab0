/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tflite-builder: write small, valid .tflite files from C, for tests.
 *
 * A builder collects buffers, tensors, operator codes, operators, subgraphs,
 * signatures and metadata in any order, and tfb_finish() serializes them as
 * a FlatBuffer (schema version 3, file identifier "TFL3") that
 * rt_model_load_buffer() accepts. Nothing is checked while building: a test
 * may build a wrong model on purpose (an out-of-range index, a wrong options
 * type) and expect the reader to refuse it.
 *
 * Typical per-op test:
 *
 *     tfb_t *b = tfb_new();
 *     int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
 *     float w[8] = { ... };
 *     int32_t wt = tfb_tensor_const(b, RT_TYPE_FLOAT32, "w", 2, TFB_DIMS(2, 4), w, sizeof(w));
 *     int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 2));
 *     tfb_option_t opts[] = { TFB_OPT_I8(0, RT_ACT_RELU) };  // fused_activation_function
 *     tfb_op_add(b, &(tfb_op_t) {
 *             .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 1),
 *             .inputs = TFB_IDS(in, wt, -1), .n_inputs = 3,
 *             .outputs = TFB_IDS(out), .n_outputs = 1,
 *             .options_type = RT_OPTIONS_FULLY_CONNECTED,
 *             .options = opts, .n_options = 1,
 *     });
 *     tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
 *     size_t size;
 *     uint8_t *bytes = tfb_finish(b, &size);   // malloc'ed, caller frees
 *     tfb_free(b);
 *
 * Indices: tensor indices are per subgraph (the current one, see
 * tfb_subgraph_add()); buffer and operator code indices are model-wide.
 * Buffer 0 is the empty sentinel every model has; tfb_new() adds it.
 *
 * Errors: functions returning an index return it (>= 0) or -ENOMEM; the
 * builder stays usable for tfb_free(). Not thread-safe; one builder per
 * thread. Pointers passed in are copied; the caller keeps ownership.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct tfb tfb_t;

/* Compound-literal helpers for index and dimension lists. */
#define TFB_IDS(...) ((const int32_t[]) { __VA_ARGS__ })
#define TFB_DIMS(...) ((const int32_t[]) { __VA_ARGS__ })

/* A new builder with buffer 0 and an empty subgraph 0 (current), model
 * version 3 and description "tflite-builder". NULL on ENOMEM. */
tfb_t *tfb_new(void);

/* NULL-safe; returns NULL. */
tfb_t *tfb_free(tfb_t *b);

/* Override the Model.version field (default 3), for reader tests. */
void tfb_set_version(tfb_t *b, uint32_t version);
/* Set the Model.description (NULL: no description field). */
int tfb_set_description(tfb_t *b, const char *description);

/* ---- buffers ---- */

/* Add a buffer holding a copy of `size` bytes (size 0: an empty buffer).
 * Returns its index. */
int32_t tfb_buffer_add(tfb_t *b, const void *data, size_t size);

/* Add a buffer in the offset/size form: the bytes are appended after the
 * FlatBuffer by tfb_finish() (16-aligned) and the Buffer table records their
 * offset from the file start. Returns its index. */
int32_t tfb_buffer_add_external(tfb_t *b, const void *data, size_t size);

/* ---- tensors (in the current subgraph) ---- */

/* Full description of a tensor. Zero-initialize and set what you need. */
typedef struct tfb_tensor {
        rt_type_t type;
        int32_t rank;                   /* entries in shape; 0 = scalar */
        const int32_t *shape;
        const int32_t *shape_signature; /* rank entries, -1 = dynamic; NULL = none */
        uint32_t buffer;                /* 0 = no data */
        const char *name;               /* NULL = no name field */
        /* Quantization: n_quant == 0 writes no QuantizationParameters. */
        size_t n_quant;
        const float *scale;             /* n_quant entries */
        const int64_t *zero_point;      /* n_quant entries */
        int32_t quantized_dimension;
        bool is_variable;
        bool has_rank;                  /* written only when true */
        /* Sparsity (optional): traversal order, block map and one
         * rt_dim_metadata_t per traversed dimension. */
        const rt_sparsity_t *sparsity;
} tfb_tensor_t;

/* Add a tensor; returns its index in the current subgraph. */
int32_t tfb_tensor_add(tfb_t *b, const tfb_tensor_t *t);

/* Shorthands: a plain tensor without data, and a constant tensor whose data
 * (copied) goes to a new buffer. */
int32_t tfb_tensor(tfb_t *b, rt_type_t type, const char *name, int32_t rank, const int32_t *shape);
int32_t tfb_tensor_const(tfb_t *b, rt_type_t type, const char *name, int32_t rank, const int32_t *shape,
                         const void *data, size_t size);
/* A per-tensor quantized tensor (optionally constant: data may be NULL). */
int32_t tfb_tensor_quant(tfb_t *b, rt_type_t type, const char *name, int32_t rank, const int32_t *shape,
                         float scale, int64_t zero_point, const void *data, size_t size);

/* ---- operator codes ---- */

/* Builtin op code `code` (rt_builtin_op_t) at `version`; identical requests
 * share one OperatorCode. Written like TFLite's converter does:
 * deprecated_builtin_code = min(code, 127), builtin_code = code. */
int32_t tfb_opcode_builtin(tfb_t *b, int32_t code, int32_t version);
/* Custom op `name` (builtin code CUSTOM). */
int32_t tfb_opcode_custom(tfb_t *b, const char *name, int32_t version);
/* Raw OperatorCode fields, never shared (for reader tests). custom may be
 * NULL. */
int32_t tfb_opcode_raw(tfb_t *b, int8_t deprecated_code, int32_t builtin_code, const char *custom,
                       int32_t version);

/* ---- operators (in the current subgraph) ---- */

/* Kinds of option fields. */
typedef enum tfb_kind {
        TFB_BOOL,
        TFB_I8,
        TFB_U8,
        TFB_I16,
        TFB_U16,
        TFB_I32,
        TFB_U32,
        TFB_I64,
        TFB_F32,
        TFB_F64,
        TFB_VEC_I32,  /* vector of int32 from .vec / .n */
        TFB_VEC_F32,  /* vector of float from .fvec / .n */
        TFB_STRING,   /* .str */
} tfb_kind_t;

/*
 * One field of an options table: the field id is the field's position in
 * the options table of schema.fbs (0-based), for example Conv2DOptions:
 * 0 padding (I8), 1 stride_w (I32), 2 stride_h (I32),
 * 3 fused_activation_function (I8), 4 dilation_w_factor (I32),
 * 5 dilation_h_factor (I32). Enum-typed fields (Padding, TensorType,
 * ActivationFunctionType, ...) are I8.
 */
/*
 * Field ids of common options tables (schema.fbs order), kind in brackets;
 * "act" is fused_activation_function [I8], padding is [I8]:
 *   Conv2DOptions             0 padding, 1 stride_w, 2 stride_h, 3 act,
 *                             4 dilation_w_factor, 5 dilation_h_factor [I32]
 *   DepthwiseConv2DOptions    0 padding, 1 stride_w, 2 stride_h,
 *                             3 depth_multiplier, 4 act, 5/6 dilation w/h
 *   Pool2DOptions             0 padding, 1 stride_w, 2 stride_h,
 *                             3 filter_width, 4 filter_height, 5 act
 *   FullyConnectedOptions     0 act, 1 weights_format [I8], 2 keep_num_dims,
 *                             3 asymmetric_quantize_inputs [BOOL]
 *   Add/SubOptions            0 act, 1 pot_scale_int16 [BOOL, default true]
 *   Mul/DivOptions            0 act
 *   SoftmaxOptions            0 beta [F32]
 *   ConcatenationOptions      0 axis [I32], 1 act
 *   ReshapeOptions            0 new_shape [VEC_I32]
 *   SqueezeOptions            0 squeeze_dims [VEC_I32]
 *   StridedSliceOptions       0 begin_mask, 1 end_mask, 2 ellipsis_mask,
 *                             3 new_axis_mask, 4 shrink_axis_mask [I32],
 *                             5 offset [BOOL]
 *   ReducerOptions            0 keep_dims [BOOL]   (MEAN, SUM, REDUCE_*)
 *   GatherOptions             0 axis, 1 batch_dims [I32]
 *   PackOptions / Unpack      0 values_count / num, 1 axis [I32]
 *   SplitOptions / SplitV     0 num_splits [I32]
 *   LeakyReluOptions          0 alpha [F32]
 *   MirrorPadOptions          0 mode [I8]
 *   TransposeConvOptions      0 padding, 1 stride_w, 2 stride_h, 3 act
 *   BatchMatMulOptions        0 adj_x, 1 adj_y, 2 asymmetric_quantize_inputs
 *   SVDFOptions               0 rank [I32], 1 act, 2 asymmetric_quantize_inputs
 *   UnidirectionalSequenceLSTMOptions 0 act, 1 cell_clip, 2 proj_clip [F32],
 *                             3 time_major, 4 asymmetric_quantize_inputs
 *   ResizeBilinearOptions     2 align_corners, 3 half_pixel_centers [BOOL]
 *   ResizeNearestNeighborOptions 0 align_corners, 1 half_pixel_centers
 *   CastOptions               0 in_data_type, 1 out_data_type [I8]
 *   ArgMax/ArgMinOptions      0 output_type [I8]; ShapeOptions 0 out_type
 *   SpaceToDepth/DepthToSpace 0 block_size [I32]
 *   CumsumOptions             0 exclusive, 1 reverse [BOOL]
 */
typedef struct tfb_option {
        uint16_t id;
        tfb_kind_t kind;
        int64_t i;         /* integer kinds and BOOL */
        double f;          /* F32 / F64 */
        const int32_t *vec;
        const float *fvec;
        uint32_t n;
        const char *str;
} tfb_option_t;

#define TFB_OPT_BOOL(id_, v) { .id = (id_), .kind = TFB_BOOL, .i = (v) }
#define TFB_OPT_I8(id_, v) { .id = (id_), .kind = TFB_I8, .i = (v) }
#define TFB_OPT_I32(id_, v) { .id = (id_), .kind = TFB_I32, .i = (v) }
#define TFB_OPT_U32(id_, v) { .id = (id_), .kind = TFB_U32, .i = (v) }
#define TFB_OPT_I64(id_, v) { .id = (id_), .kind = TFB_I64, .i = (v) }
#define TFB_OPT_F32(id_, v) { .id = (id_), .kind = TFB_F32, .f = (v) }
#define TFB_OPT_VEC_I32(id_, arr, count) { .id = (id_), .kind = TFB_VEC_I32, .vec = (arr), .n = (count) }
#define TFB_OPT_VEC_F32(id_, arr, count) { .id = (id_), .kind = TFB_VEC_F32, .fvec = (arr), .n = (count) }
#define TFB_OPT_STRING(id_, s) { .id = (id_), .kind = TFB_STRING, .str = (s) }

typedef struct tfb_op {
        int32_t opcode;              /* index from tfb_opcode_*() */
        const int32_t *inputs;       /* -1 = optional input absent */
        int32_t n_inputs;
        const int32_t *outputs;
        int32_t n_outputs;
        const int32_t *intermediates;
        int32_t n_intermediates;
        /* BuiltinOptions union tag (rt_options_type_t). Non-zero writes an
         * options table (possibly empty) holding `options`. */
        uint8_t options_type;
        const tfb_option_t *options;
        size_t n_options;
        const uint8_t *custom_options; /* copied; NULL = none */
        size_t custom_options_size;
} tfb_op_t;

/* Append an operator to the current subgraph; returns its index. */
int32_t tfb_op_add(tfb_t *b, const tfb_op_t *op);

/* Set the current subgraph's inputs and outputs (copied; replaces any
 * earlier call). Returns 0 or -ENOMEM. */
int tfb_io(tfb_t *b, const int32_t *inputs, int32_t n_inputs, const int32_t *outputs, int32_t n_outputs);

/* ---- subgraphs, signatures, metadata ---- */

/* Start a new subgraph (name may be NULL); it becomes current. Returns its
 * index. Subgraph 0 exists from tfb_new(); tfb_subgraph_select() switches
 * back to an earlier one. */
int32_t tfb_subgraph_add(tfb_t *b, const char *name);
int tfb_subgraph_select(tfb_t *b, int32_t index);
/* Name the current subgraph. */
int tfb_subgraph_name(tfb_t *b, const char *name);

/* A SignatureDef: `key`, subgraph index, and io name -> tensor index maps. */
int32_t tfb_signature_add(tfb_t *b, const char *key, int32_t subgraph, const char *const *input_names,
                          const int32_t *inputs, int32_t n_inputs, const char *const *output_names,
                          const int32_t *outputs, int32_t n_outputs);

/* A Metadata entry named `name` whose bytes go to a new buffer (for example
 * "min_runtime_version" with "1.5.0"). Returns the metadata index. */
int32_t tfb_metadata_add(tfb_t *b, const char *name, const void *data, size_t size);

/* ---- output ---- */

/*
 * Serialize the model. Returns a malloc'ed buffer (16-byte aligned, caller
 * frees with free()) and its size in *ret_size, or NULL on ENOMEM. The
 * builder is unchanged and may be finished again.
 */
uint8_t *tfb_finish(tfb_t *b, size_t *ret_size);
