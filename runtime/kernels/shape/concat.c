/* SPDX-License-Identifier: Apache-2.0 */
/* CONCATENATION and PACK (join along an axis); SPLIT, SPLIT_V and UNPACK
 * (cut along an axis). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kutil.h"
#include "shape-internal.h"

static size_t prod(const int32_t *dims, int32_t from, int32_t to) {
        size_t p = 1;
        for (int32_t i = from; i < to; i++)
                p *= (size_t) dims[i];
        return p;
}

/* The types CONCATENATION requantizes to the output's scale and zero point
 * when an input's differ. Not int16: TensorFlow Lite 2.9's Eval concatenates
 * int16 raw whatever the scales (it has no int16 path with scaling). */
static bool requantizing_type(rt_type_t t) {
        return t == RT_TYPE_UINT8 || t == RT_TYPE_INT8;
}

/* TFLite ConcatenationWithScaling for one run of n values. */
static void requantize(void *dst, const void *src, size_t n, rt_type_t type, const rt_tensor_t *in,
                       const rt_tensor_t *out) {
        int32_t lo, hi;
        ku_type_range(type, &lo, &hi);
        const float scale = in->scale * (1.0f / out->scale);
        const float bias = -(float) in->zero_point * scale;
        for (size_t i = 0; i < n; i++) {
                int32_t v;
                if (type == RT_TYPE_UINT8)
                        v = ((const uint8_t *) src)[i];
                else
                        v = ((const int8_t *) src)[i];
                int32_t q = (int32_t) roundf((float) v * scale + bias) + out->zero_point;
                q = KU_CLAMP(q, lo, hi);
                if (type == RT_TYPE_UINT8)
                        ((uint8_t *) dst)[i] = (uint8_t) q;
                else
                        ((int8_t *) dst)[i] = (int8_t) q;
        }
}

/* ---- CONCATENATION ---- */

static int concat_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_concat_params_t *p = ret_params;
        p->axis = fbt_i32(node->options, 0, 0);
        p->activation = (rt_activation_t) fbt_i8(node->options, 1, 0);
        return 0;
}

static int concat_prepare(rt_context_t *ctx, rt_node_t *node) {
        const shape_concat_params_t *p = node->params;
        const rt_tensor_t *t0 = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!p || !t0 || !out)
                return rt_ctx_error(ctx, "concatenation needs params, inputs and an output");
        size_t es;
        int r = shape__elem_size(ctx, t0, "concatenation", &es);
        if (r < 0)
                return r;
        int32_t axis = p->axis < 0 ? p->axis + t0->rank : p->axis;
        if (axis < 0 || axis >= t0->rank)
                return rt_ctx_error(ctx, "concatenation: axis %d out of range for rank %d", p->axis, t0->rank);
        if (p->activation != RT_ACT_NONE && out->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "concatenation: fused activation needs float32");
        if ((unsigned) p->activation > RT_ACT_SIGN_BIT)
                return rt_ctx_error(ctx, "concatenation: unsupported fused activation %d", p->activation);
        int32_t dims[RT_MAX_RANK];
        memcpy(dims, t0->dims, sizeof(dims));
        dims[axis] = 0;
        for (int32_t i = 0; i < node->n_inputs; i++) {
                const rt_tensor_t *t = rt_node_input(ctx, node, i);
                if (!t)
                        return rt_ctx_error(ctx, "concatenation: input %d is absent", i);
                if (t->type != out->type)
                        return rt_ctx_error(ctx, "concatenation: input %d is %s, output %s", i,
                                            rt_type_name(t->type), rt_type_name(out->type));
                if (t->rank != t0->rank)
                        return rt_ctx_error(ctx, "concatenation: input %d has rank %d, expected %d", i,
                                            t->rank, t0->rank);
                for (int32_t d = 0; d < t->rank; d++)
                        if (d != axis && t->dims[d] != t0->dims[d])
                                return rt_ctx_error(ctx, "concatenation: input %d dimension %d is %d, expected %d",
                                                    i, d, t->dims[d], t0->dims[d]);
                dims[axis] += t->dims[axis];
        }
        return rt_ctx_resize(ctx, node, 0, t0->rank, dims);
}

static int concat_invoke(rt_context_t *ctx, rt_node_t *node) {
        const shape_concat_params_t *p = node->params;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t es = rt_type_size(out->type);
        int32_t axis = p->axis < 0 ? p->axis + out->rank : p->axis;
        size_t outer = prod(out->dims, 0, axis);
        size_t inner = prod(out->dims, axis + 1, out->rank);
        if (!shape__has_data(out, es))
                return rt_ctx_error(ctx, "concatenation: output has no data");
        for (int32_t i = 0; i < node->n_inputs; i++)
                if (!shape__has_data(rt_node_input(ctx, node, i), es))
                        return rt_ctx_error(ctx, "concatenation: input %d has no data", i);

        uint8_t *o = out->data;
        for (size_t k = 0; k < outer; k++) {
                for (int32_t i = 0; i < node->n_inputs; i++) {
                        const rt_tensor_t *t = rt_node_input(ctx, node, i);
                        size_t n = (size_t) t->dims[axis] * inner;
                        const uint8_t *src = (const uint8_t *) t->data + k * n * es;
                        if (requantizing_type(out->type) && out->quant.n > 0 && !shape__same_quant(t, out))
                                requantize(o, src, n, out->type, t, out);
                        else if (n)
                                memcpy(o, src, n * es);
                        o += n * es;
                }
        }
        if (out->type == RT_TYPE_FLOAT32 && p->activation != RT_ACT_NONE) {
                float lo, hi;
                ku_act_range_f32(p->activation, &lo, &hi);
                float *f = out->data;
                size_t n = rt_tensor_count(out);
                for (size_t i = 0; i < n; i++)
                        f[i] = ku_act_f32(f[i], lo, hi);
        }
        return 0;
}

const rt_registration_t rt_kernel_concatenation = {
        .name = "CONCATENATION",
        .op = SHAPE_OP_CONCATENATION,
        .params_size = sizeof(shape_concat_params_t),
        .parse = concat_parse,
        .prepare = concat_prepare,
        .invoke = concat_invoke,
};

/* ---- PACK / UNPACK ---- */

static int pack_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_pack_params_t *p = ret_params;
        p->count = fbt_i32(node->options, 0, 0);
        p->axis = fbt_i32(node->options, 1, 0);
        return 0;
}

static int pack_prepare(rt_context_t *ctx, rt_node_t *node) {
        const shape_pack_params_t *p = node->params;
        const rt_tensor_t *t0 = rt_node_input(ctx, node, 0);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!p || !t0 || !out)
                return rt_ctx_error(ctx, "pack needs params, inputs and an output");
        size_t es;
        int r = shape__elem_size(ctx, t0, "pack", &es);
        if (r < 0)
                return r;
        if (p->count != 0 && p->count != node->n_inputs)
                return rt_ctx_error(ctx, "pack: values_count %d but %d inputs", p->count, node->n_inputs);
        int32_t axis = p->axis < 0 ? p->axis + t0->rank + 1 : p->axis;
        if (axis < 0 || axis > t0->rank || t0->rank >= RT_MAX_RANK)
                return rt_ctx_error(ctx, "pack: axis %d out of range for rank %d", p->axis, t0->rank);
        for (int32_t i = 0; i < node->n_inputs; i++) {
                const rt_tensor_t *t = rt_node_input(ctx, node, i);
                if (!t || t->type != out->type || !ku_same_shape(t, t0))
                        return rt_ctx_error(ctx, "pack: input %d differs in type or shape from input 0", i);
        }
        int32_t dims[RT_MAX_RANK];
        for (int32_t i = 0, j = 0; i <= t0->rank; i++)
                dims[i] = i == axis ? node->n_inputs : t0->dims[j++];
        return rt_ctx_resize(ctx, node, 0, t0->rank + 1, dims);
}

static int pack_invoke(rt_context_t *ctx, rt_node_t *node) {
        const shape_pack_params_t *p = node->params;
        const rt_tensor_t *t0 = rt_node_input(ctx, node, 0);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        size_t es = rt_type_size(out->type);
        int32_t axis = p->axis < 0 ? p->axis + t0->rank + 1 : p->axis;
        size_t outer = prod(t0->dims, 0, axis);
        size_t n = prod(t0->dims, axis, t0->rank) * es;
        if (!shape__has_data(out, es))
                return rt_ctx_error(ctx, "pack: output has no data");
        for (int32_t i = 0; i < node->n_inputs; i++)
                if (!shape__has_data(rt_node_input(ctx, node, i), es))
                        return rt_ctx_error(ctx, "pack: input %d has no data", i);
        uint8_t *o = out->data;
        for (size_t k = 0; k < outer; k++)
                for (int32_t i = 0; i < node->n_inputs; i++, o += n)
                        memcpy(o, (const uint8_t *) rt_node_input(ctx, node, i)->data + k * n, n);
        return 0;
}

const rt_registration_t rt_kernel_pack = {
        .name = "PACK",
        .op = SHAPE_OP_PACK,
        .params_size = sizeof(shape_pack_params_t),
        .parse = pack_parse,
        .prepare = pack_prepare,
        .invoke = pack_invoke,
};

static int unpack_prepare(rt_context_t *ctx, rt_node_t *node) {
        const shape_pack_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        if (!p || !in)
                return rt_ctx_error(ctx, "unpack needs params and an input");
        size_t es;
        int r = shape__elem_size(ctx, in, "unpack", &es);
        if (r < 0)
                return r;
        int32_t axis = p->axis < 0 ? p->axis + in->rank : p->axis;
        if (axis < 0 || axis >= in->rank)
                return rt_ctx_error(ctx, "unpack: axis %d out of range for rank %d", p->axis, in->rank);
        int32_t num = p->count ? p->count : in->dims[axis];
        if (num != in->dims[axis] || num != node->n_outputs)
                return rt_ctx_error(ctx, "unpack: num %d, dimension %d, %d outputs disagree", num,
                                    in->dims[axis], node->n_outputs);
        int32_t dims[RT_MAX_RANK];
        for (int32_t i = 0, j = 0; i < in->rank; i++)
                if (i != axis)
                        dims[j++] = in->dims[i];
        for (int32_t i = 0; i < node->n_outputs; i++) {
                const rt_tensor_t *o = rt_node_output(ctx, node, i);
                if (!o || o->type != in->type)
                        return rt_ctx_error(ctx, "unpack: output %d absent or of another type", i);
                r = rt_ctx_resize(ctx, node, i, in->rank - 1, dims);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Cut `in` along axis into pieces of sizes[k] (one per output). */
static int split_copy(rt_context_t *ctx, const rt_node_t *node, const rt_tensor_t *in, int32_t axis,
                      const int32_t *sizes) {
        size_t es = rt_type_size(in->type);
        size_t outer = prod(in->dims, 0, axis);
        size_t inner = prod(in->dims, axis + 1, in->rank) * es;
        if (!shape__has_data(in, es))
                return rt_ctx_error(ctx, "input has no data");
        for (int32_t i = 0; i < node->n_outputs; i++)
                if (!shape__has_data(rt_node_output(ctx, node, i), es))
                        return rt_ctx_error(ctx, "output %d has no data", i);
        const uint8_t *src = in->data;
        for (size_t k = 0; k < outer; k++) {
                for (int32_t i = 0; i < node->n_outputs; i++) {
                        size_t n = (size_t) sizes[i] * inner;
                        if (n)
                                memcpy((uint8_t *) rt_node_output(ctx, node, i)->data + k * n, src, n);
                        src += n;
                }
        }
        return 0;
}

static int unpack_invoke(rt_context_t *ctx, rt_node_t *node) {
        const shape_pack_params_t *p = node->params;
        const rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int32_t axis = p->axis < 0 ? p->axis + in->rank : p->axis;
        size_t es = rt_type_size(in->type);
        size_t outer = prod(in->dims, 0, axis);
        size_t inner = prod(in->dims, axis + 1, in->rank) * es;
        if (!shape__has_data(in, es))
                return rt_ctx_error(ctx, "unpack: input has no data");
        for (int32_t i = 0; i < node->n_outputs; i++)
                if (!shape__has_data(rt_node_output(ctx, node, i), es))
                        return rt_ctx_error(ctx, "unpack: output %d has no data", i);
        const uint8_t *src = in->data;
        for (size_t k = 0; k < outer; k++)
                for (int32_t i = 0; i < node->n_outputs; i++, src += inner)
                        if (inner)
                                memcpy((uint8_t *) rt_node_output(ctx, node, i)->data + k * inner, src, inner);
        return 0;
}

const rt_registration_t rt_kernel_unpack = {
        .name = "UNPACK",
        .op = SHAPE_OP_UNPACK,
        .params_size = sizeof(shape_pack_params_t),
        .parse = pack_parse,
        .prepare = unpack_prepare,
        .invoke = unpack_invoke,
};

/* ---- SPLIT / SPLIT_V ---- */

static int split_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        shape_split_params_t *p = ret_params;
        p->num_splits = fbt_i32(node->options, 0, 0);
        return 0;
}

/* The split's axis and piece sizes, for SPLIT (is_v false) and SPLIT_V. */
static int split_plan(rt_context_t *ctx, const rt_node_t *node, bool is_v, const rt_tensor_t **ret_in,
                      int32_t *ret_axis, int32_t **ret_sizes) {
        const rt_tensor_t *in = rt_node_input(ctx, node, is_v ? 0 : 1);
        const rt_tensor_t *axis_t = rt_node_input(ctx, node, is_v ? 2 : 0);
        const shape_split_params_t *p = node->params;
        int32_t n = node->n_outputs;
        if (!in || !axis_t || n < 1)
                return rt_ctx_error(ctx, "split needs an input, an axis and outputs");
        if (p && p->num_splits != 0 && p->num_splits != n)
                return rt_ctx_error(ctx, "split: num_splits %d but %d outputs", p->num_splits, n);
        int64_t axis;
        if (rt_tensor_count(axis_t) != 1)
                return rt_ctx_error(ctx, "split: axis must be a single value");
        int r = shape__read_ints(ctx, axis_t, &axis, 1);
        if (r < 0)
                return r;
        if (axis < 0)
                axis += in->rank;
        if (axis < 0 || axis >= in->rank)
                return rt_ctx_error(ctx, "split: axis out of range for rank %d", in->rank);
        int32_t *sizes = calloc((size_t) n, sizeof(int32_t));
        if (!sizes)
                return -ENOMEM;
        int32_t dim = in->dims[axis];
        if (!is_v) {
                if (dim % n != 0) {
                        free(sizes);
                        return rt_ctx_error(ctx, "split: dimension %d not divisible by %d", dim, n);
                }
                for (int32_t i = 0; i < n; i++)
                        sizes[i] = dim / n;
        } else {
                const rt_tensor_t *s = rt_node_input(ctx, node, 1);
                int64_t *want = s ? calloc((size_t) n, sizeof(int64_t)) : NULL;
                if (!want) {
                        free(sizes);
                        return s ? -ENOMEM : rt_ctx_error(ctx, "split_v: size_splits absent");
                }
                r = rt_tensor_count(s) == (size_t) n ? shape__read_ints(ctx, s, want, (size_t) n)
                                                     : rt_ctx_error(ctx, "split_v: %zu sizes for %d outputs",
                                                                    rt_tensor_count(s), n);
                int32_t unknown = -1;
                int64_t sum = 0;
                for (int32_t i = 0; r >= 0 && i < n; i++) {
                        if (want[i] == -1 && unknown < 0) {
                                unknown = i;
                        } else if (want[i] < 0) {
                                r = rt_ctx_error(ctx, "split_v: bad size %lld", (long long) want[i]);
                        } else {
                                sizes[i] = (int32_t) want[i];
                                sum += want[i];
                        }
                }
                free(want);
                if (r >= 0 && unknown >= 0) {
                        if (sum > dim)
                                r = rt_ctx_error(ctx, "split_v: sizes exceed dimension %d", dim);
                        else
                                sizes[unknown] = dim - (int32_t) sum;
                } else if (r >= 0 && sum != dim) {
                        r = rt_ctx_error(ctx, "split_v: sizes add up to %lld, dimension is %d", (long long) sum,
                                         dim);
                }
                if (r < 0) {
                        free(sizes);
                        return r;
                }
        }
        *ret_in = in;
        *ret_axis = (int32_t) axis;
        *ret_sizes = sizes;
        return 0;
}

static int split_resize(rt_context_t *ctx, const rt_node_t *node, bool is_v) {
        const rt_tensor_t *in;
        int32_t axis, *sizes;
        int r = split_plan(ctx, node, is_v, &in, &axis, &sizes);
        if (r < 0)
                return r;
        int32_t dims[RT_MAX_RANK];
        memcpy(dims, in->dims, sizeof(dims));
        for (int32_t i = 0; r >= 0 && i < node->n_outputs; i++) {
                dims[axis] = sizes[i];
                r = rt_ctx_resize(ctx, node, i, in->rank, dims);
        }
        free(sizes);
        return r;
}

static int split_prepare_common(rt_context_t *ctx, rt_node_t *node, bool is_v) {
        const rt_tensor_t *in = rt_node_input(ctx, node, is_v ? 0 : 1);
        if (!in)
                return rt_ctx_error(ctx, "split: input absent");
        size_t es;
        int r = shape__elem_size(ctx, in, "split", &es);
        if (r < 0)
                return r;
        for (int32_t i = 0; i < node->n_outputs; i++) {
                const rt_tensor_t *o = rt_node_output(ctx, node, i);
                if (!o || o->type != in->type)
                        return rt_ctx_error(ctx, "split: output %d absent or of another type", i);
        }
        bool consts = is_v ? shape__inputs_const(ctx, node, 1) : rt_tensor_is_const(rt_node_input(ctx, node, 0));
        if (!consts) {
                for (int32_t i = 0; i < node->n_outputs; i++) {
                        r = shape__set_dynamic(ctx, node, i);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        return split_resize(ctx, node, is_v);
}

static int split_invoke_common(rt_context_t *ctx, rt_node_t *node, bool is_v) {
        bool consts = is_v ? shape__inputs_const(ctx, node, 1) : rt_tensor_is_const(rt_node_input(ctx, node, 0));
        int r;
        if (!consts) {
                r = split_resize(ctx, node, is_v);
                if (r < 0)
                        return r;
        }
        const rt_tensor_t *in;
        int32_t axis, *sizes;
        r = split_plan(ctx, node, is_v, &in, &axis, &sizes);
        if (r < 0)
                return r;
        r = split_copy(ctx, node, in, axis, sizes);
        free(sizes);
        return r;
}

static int split_prepare(rt_context_t *ctx, rt_node_t *node) {
        return split_prepare_common(ctx, node, false);
}

static int split_invoke(rt_context_t *ctx, rt_node_t *node) {
        return split_invoke_common(ctx, node, false);
}

static int split_v_prepare(rt_context_t *ctx, rt_node_t *node) {
        return split_prepare_common(ctx, node, true);
}

static int split_v_invoke(rt_context_t *ctx, rt_node_t *node) {
        return split_invoke_common(ctx, node, true);
}

const rt_registration_t rt_kernel_split = {
        .name = "SPLIT",
        .op = SHAPE_OP_SPLIT,
        .params_size = sizeof(shape_split_params_t),
        .parse = split_parse,
        .prepare = split_prepare,
        .invoke = split_invoke,
};

const rt_registration_t rt_kernel_split_v = {
        .name = "SPLIT_V",
        .op = SHAPE_OP_SPLIT_V,
        .params_size = sizeof(shape_split_params_t),
        .parse = split_parse,
        .prepare = split_v_prepare,
        .invoke = split_v_invoke,
};
