/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "shape" kernel family: data movement and resizing ops (RESHAPE,
 * CONCATENATION, STRIDED_SLICE, PAD, TRANSPOSE, GATHER, RESIZE_*, ...).
 *
 * These ops move elements without looking at them, so every fixed-size type
 * is handled by its element size; quantized outputs keep the input's raw
 * values except where TensorFlow Lite 2.9 requantizes (CONCATENATION).
 *
 * Ops whose output shape depends on the values of an input (RESHAPE's
 * shape, SLICE's begin/size, PAD's paddings, ...) compute the shape in
 * prepare when that input is a model constant, and otherwise mark the output
 * dynamic in prepare and size it at the start of invoke.
 *
 * Params structs below are what each registration's parse hook produces;
 * tests fill them directly. Everything here is internal to the runtime.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

/* TFLite BuiltinOperator numbers of this family. */
enum {
        SHAPE_OP_CONCATENATION = 2,
        SHAPE_OP_DEPTH_TO_SPACE = 5,
        SHAPE_OP_EMBEDDING_LOOKUP = 7,
        SHAPE_OP_RESHAPE = 22,
        SHAPE_OP_RESIZE_BILINEAR = 23,
        SHAPE_OP_SPACE_TO_DEPTH = 26,
        SHAPE_OP_PAD = 34,
        SHAPE_OP_GATHER = 36,
        SHAPE_OP_BATCH_TO_SPACE_ND = 37,
        SHAPE_OP_SPACE_TO_BATCH_ND = 38,
        SHAPE_OP_TRANSPOSE = 39,
        SHAPE_OP_SQUEEZE = 43,
        SHAPE_OP_STRIDED_SLICE = 45,
        SHAPE_OP_SPLIT = 49,
        SHAPE_OP_PADV2 = 60,
        SHAPE_OP_SLICE = 65,
        SHAPE_OP_TILE = 69,
        SHAPE_OP_EXPAND_DIMS = 70,
        SHAPE_OP_SHAPE = 77,
        SHAPE_OP_PACK = 83,
        SHAPE_OP_UNPACK = 88,
        SHAPE_OP_FILL = 94,
        SHAPE_OP_RANGE = 96,
        SHAPE_OP_RESIZE_NEAREST_NEIGHBOR = 97,
        SHAPE_OP_MIRROR_PAD = 100,
        SHAPE_OP_SPLIT_V = 102,
        SHAPE_OP_REVERSE_V2 = 105,
        SHAPE_OP_GATHER_ND = 107,
        SHAPE_OP_BROADCAST_TO = 130,
};

/* ReshapeOptions.new_shape; used only when the op has no shape input (or
 * its shape input is not an int32 vector, as in TFLite). */
typedef struct shape_reshape_params {
        int32_t rank;  /* -1: no new_shape option */
        int32_t dims[RT_MAX_RANK];
} shape_reshape_params_t;

/* SqueezeOptions.squeeze_dims; n == 0 squeezes every dimension of size 1. */
typedef struct shape_squeeze_params {
        int32_t n;
        int32_t dims[RT_MAX_RANK];
} shape_squeeze_params_t;

typedef struct shape_concat_params {
        int32_t axis;
        rt_activation_t activation;
} shape_concat_params_t;

/* SPLIT and SPLIT_V. */
typedef struct shape_split_params {
        int32_t num_splits;
} shape_split_params_t;

/* PACK (values_count, axis) and UNPACK (num, axis). */
typedef struct shape_pack_params {
        int32_t count;
        int32_t axis;
} shape_pack_params_t;

typedef struct shape_strided_slice_params {
        int32_t begin_mask;
        int32_t end_mask;
        int32_t ellipsis_mask;
        int32_t new_axis_mask;
        int32_t shrink_axis_mask;
        bool offset;  /* end is relative to begin */
} shape_strided_slice_params_t;

typedef enum shape_mirror_mode {
        SHAPE_MIRROR_REFLECT = 0,
        SHAPE_MIRROR_SYMMETRIC = 1,
} shape_mirror_mode_t;

typedef struct shape_mirror_pad_params {
        shape_mirror_mode_t mode;
} shape_mirror_pad_params_t;

typedef struct shape_gather_params {
        int32_t axis;
        int32_t batch_dims;
} shape_gather_params_t;

/* SPACE_TO_DEPTH and DEPTH_TO_SPACE. */
typedef struct shape_block_params {
        int32_t block_size;
} shape_block_params_t;

typedef struct shape_shape_params {
        rt_type_t out_type;  /* RT_TYPE_INT32 or RT_TYPE_INT64 */
} shape_shape_params_t;

/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR. */
typedef struct shape_resize_params {
        bool align_corners;
        bool half_pixel_centers;
} shape_resize_params_t;

extern const rt_registration_t rt_kernel_reshape;
extern const rt_registration_t rt_kernel_squeeze;
extern const rt_registration_t rt_kernel_expand_dims;
extern const rt_registration_t rt_kernel_shape;
extern const rt_registration_t rt_kernel_concatenation;
extern const rt_registration_t rt_kernel_pack;
extern const rt_registration_t rt_kernel_split;
extern const rt_registration_t rt_kernel_split_v;
extern const rt_registration_t rt_kernel_unpack;
extern const rt_registration_t rt_kernel_slice;
extern const rt_registration_t rt_kernel_strided_slice;
extern const rt_registration_t rt_kernel_pad;
extern const rt_registration_t rt_kernel_padv2;
extern const rt_registration_t rt_kernel_mirror_pad;
extern const rt_registration_t rt_kernel_transpose;
extern const rt_registration_t rt_kernel_reverse_v2;
extern const rt_registration_t rt_kernel_tile;
extern const rt_registration_t rt_kernel_broadcast_to;
extern const rt_registration_t rt_kernel_gather;
extern const rt_registration_t rt_kernel_gather_nd;
extern const rt_registration_t rt_kernel_embedding_lookup;
extern const rt_registration_t rt_kernel_space_to_depth;
extern const rt_registration_t rt_kernel_depth_to_space;
extern const rt_registration_t rt_kernel_space_to_batch_nd;
extern const rt_registration_t rt_kernel_batch_to_space_nd;
extern const rt_registration_t rt_kernel_fill;
extern const rt_registration_t rt_kernel_range;
extern const rt_registration_t rt_kernel_resize_bilinear;
extern const rt_registration_t rt_kernel_resize_nearest_neighbor;

/* ---- helpers shared by the family (common.c) ---- */

/*
 * Read the integer elements of an int32 or int64 tensor into ret[0..max).
 * Returns the element count, or -EINVAL (after rt_ctx_error) when the type
 * is not int32/int64, the data is missing, or there are more than max.
 */
int shape__read_ints(rt_context_t *ctx, const rt_tensor_t *t, int64_t *ret, size_t max);

/* Is every present input in [first, n_inputs) a constant tensor? */
bool shape__inputs_const(rt_context_t *ctx, const rt_node_t *node, int32_t first);

/* Mark output i dynamic. */
int shape__set_dynamic(rt_context_t *ctx, const rt_node_t *node, int32_t i);

/* Element size of a tensor for pure data movement; -EINVAL (with message
 * naming `op`) for strings and other types without a fixed size. */
int shape__elem_size(rt_context_t *ctx, const rt_tensor_t *t, const char *op, size_t *ret_size);

/* Does the tensor hold data for rt_tensor_count() elements of es bytes?
 * Always true for es == 0 (strings are checked when they are read). */
bool shape__has_data(const rt_tensor_t *t, size_t es);

/* Do two tensors have the same per-tensor quantization (or none)? */
bool shape__same_quant(const rt_tensor_t *a, const rt_tensor_t *b);

/*
 * The workhorse of the family: fill the contiguous output of shape
 * out_dims[0..rank) from `in`. Output element (i0, .., ir-1) reads input
 * element sum_d maps[d][i_d] * strides[d] (maps[d] == NULL means the
 * identity i_d); a map entry of -1 writes `pad` (es bytes, NULL = zero)
 * instead. Strides are in elements and may be zero or negative.
 * Returns 0 or -ENOMEM.
 */
int shape__copy_mapped(void *out, const void *in, size_t es, int32_t rank, const int32_t *out_dims,
                       int32_t *const *maps, const int64_t *strides, const void *pad);

/* Row-major element strides of t. */
void shape__strides(const rt_tensor_t *t, int64_t *ret_strides);

/*
 * String tensors (TFLite's serialized layout). shape__string_build() makes
 * out hold the strings of `in` at element indices idx[0..n) (each < the
 * element count of in); shape__string_mapped() does the same for the index
 * pattern shape__copy_mapped() would follow from element `base`. The output
 * buffer is (re)allocated with malloc/realloc and marked RT_ALLOC_DYNAMIC,
 * which the executor adopts. Return 0, -EINVAL (malformed input buffer)
 * or -ENOMEM.
 */
int shape__string_build(rt_context_t *ctx, const rt_tensor_t *in, rt_tensor_t *out, const int32_t *idx,
                        size_t n);
int shape__string_mapped(rt_context_t *ctx, const rt_tensor_t *in, rt_tensor_t *out, int64_t base,
                         int32_t rank, const int32_t *out_dims, int32_t *const *maps, const int64_t *strides);
