/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the shape kernel family. */
#include <stdlib.h>
#include <string.h>

#include "shape-internal.h"

int shape__read_ints(rt_context_t *ctx, const rt_tensor_t *t, int64_t *ret, size_t max) {
        size_t n = rt_tensor_count(t);
        if (t->type != RT_TYPE_INT32 && t->type != RT_TYPE_INT64)
                return rt_ctx_error(ctx, "shape input must be int32 or int64, not %s",
                                    rt_type_name(t->type));
        if (n > max)
                return rt_ctx_error(ctx, "shape input has %zu elements, at most %zu allowed", n, max);
        size_t es = rt_type_size(t->type);
        if (n > 0 && (!t->data || t->bytes < n * es))
                return rt_ctx_error(ctx, "shape input has no data");
        for (size_t i = 0; i < n; i++) {
                if (t->type == RT_TYPE_INT32) {
                        int32_t v;
                        memcpy(&v, (const uint8_t *) t->data + i * 4, 4);
                        ret[i] = v;
                } else {
                        memcpy(&ret[i], (const uint8_t *) t->data + i * 8, 8);
                }
        }
        return (int) n;
}

bool shape__inputs_const(rt_context_t *ctx, const rt_node_t *node, int32_t first) {
        for (int32_t i = first; i < node->n_inputs; i++) {
                const rt_tensor_t *t = rt_node_input(ctx, node, i);
                if (t && !rt_tensor_is_const(t))
                        return false;
        }
        return true;
}

int shape__set_dynamic(rt_context_t *ctx, const rt_node_t *node, int32_t i) {
        if (i < 0 || i >= node->n_outputs)
                return -EINVAL;
        return ctx->set_dynamic(ctx, node->outputs[i]);
}

int shape__elem_size(rt_context_t *ctx, const rt_tensor_t *t, const char *op, size_t *ret_size) {
        size_t es = rt_type_size(t->type);
        if (es == 0 || t->type == RT_TYPE_INT4)
                return rt_ctx_error(ctx, "%s: type %s is not supported", op, rt_type_name(t->type));
        *ret_size = es;
        return 0;
}

bool shape__has_data(const rt_tensor_t *t, size_t es) {
        if (es == 0)
                return true;  /* strings: their buffer is checked when read */
        size_t n = rt_tensor_count(t);
        return n == 0 || (t->data && t->bytes >= n * es);
}

bool shape__same_quant(const rt_tensor_t *a, const rt_tensor_t *b) {
        return a->scale == b->scale && a->zero_point == b->zero_point;
}

void shape__strides(const rt_tensor_t *t, int64_t *ret_strides) {
        int64_t s = 1;
        for (int32_t i = t->rank - 1; i >= 0; i--) {
                ret_strides[i] = s;
                s *= t->dims[i];
        }
}

/* Constant-size copies let the compiler turn memcpy into one load/store. */
static inline void copy_elem(uint8_t *dst, const uint8_t *src, size_t es) {
        switch (es) {
        case 1: *dst = *src; break;
        case 2: memcpy(dst, src, 2); break;
        case 4: memcpy(dst, src, 4); break;
        case 8: memcpy(dst, src, 8); break;
        default: memcpy(dst, src, es); break;
        }
}

int shape__copy_mapped(void *out, const void *in, size_t es, int32_t rank, const int32_t *out_dims,
                       int32_t *const *maps, const int64_t *strides, const void *pad) {
        static const uint8_t zeros[16];
        uint8_t *o = out;
        const uint8_t *src = in;
        const uint8_t *padv = pad ? pad : zeros;

        if (rank == 0) {
                copy_elem(o, src, es);
                return 0;
        }
        size_t total = 1;
        for (int32_t d = 0; d < rank; d++)
                total *= (size_t) (out_dims[d] < 0 ? 0 : out_dims[d]);
        if (total == 0)
                return 0;

        int32_t last = rank - 1;
        int32_t n = out_dims[last];
        const int32_t *lmap = maps ? maps[last] : NULL;
        int64_t ls = strides[last];
        bool contiguous = ls == 1;
        if (contiguous && lmap)
                for (int32_t i = 0; i < n; i++)
                        if (lmap[i] < 0 || lmap[i] != lmap[0] + i) {
                                contiguous = false;
                                break;
                        }

        int32_t idx[RT_MAX_RANK] = { 0 };
        size_t rows = total / (size_t) n;
        for (size_t r = 0; r < rows; r++) {
                int64_t base = 0;
                bool padded = false;
                for (int32_t d = 0; d < last; d++) {
                        int32_t m = maps && maps[d] ? maps[d][idx[d]] : idx[d];
                        if (m < 0)
                                padded = true;
                        base += (int64_t) m * strides[d];
                }
                if (padded) {
                        for (int32_t i = 0; i < n; i++)
                                copy_elem(o + (size_t) i * es, padv, es);
                } else if (contiguous) {
                        int64_t first = base + (lmap ? lmap[0] : 0);
                        memcpy(o, src + first * (int64_t) es, (size_t) n * es);
                } else {
                        for (int32_t i = 0; i < n; i++) {
                                int32_t m = lmap ? lmap[i] : i;
                                if (m < 0)
                                        copy_elem(o + (size_t) i * es, padv, es);
                                else
                                        copy_elem(o + (size_t) i * es,
                                                  src + (base + (int64_t) m * ls) * (int64_t) es, es);
                        }
                }
                o += (size_t) n * es;
                for (int32_t d = last - 1; d >= 0; d--) {
                        if (++idx[d] < out_dims[d])
                                break;
                        idx[d] = 0;
                }
        }
        return 0;
}

/* ---- string tensors ---- */

/* Check TFLite's serialized layout (int32 count, count + 1 offsets from the
 * buffer start, then the bytes) against the tensor's element count. */
static int string_check(rt_context_t *ctx, const rt_tensor_t *t) {
        size_t n = rt_tensor_count(t);
        int32_t count, off;
        if (!t->data || t->bytes < 4 * (n + 2))
                return rt_ctx_error(ctx, "string tensor too small for %zu strings", n);
        memcpy(&count, t->data, 4);
        if (count < 0 || (size_t) count != n)
                return rt_ctx_error(ctx, "string tensor holds %d strings, shape says %zu", count, n);
        int32_t prev = (int32_t) (4 * (n + 2));
        for (size_t i = 0; i <= n; i++) {
                memcpy(&off, (const uint8_t *) t->data + 4 * (i + 1), 4);
                if ((i == 0 && off != prev) || off < prev || (size_t) off > t->bytes)
                        return rt_ctx_error(ctx, "string tensor: bad offset %d for string %zu", off, i);
                prev = off;
        }
        return 0;
}

int shape__string_build(rt_context_t *ctx, const rt_tensor_t *in, rt_tensor_t *out, const int32_t *idx,
                        size_t n) {
        int r = string_check(ctx, in);
        if (r < 0)
                return r;
        const uint8_t *src = in->data;
        size_t total = 4 * (n + 2);
        for (size_t i = 0; i < n; i++) {
                int32_t a, b;
                memcpy(&a, src + 4 * ((size_t) idx[i] + 1), 4);
                memcpy(&b, src + 4 * ((size_t) idx[i] + 2), 4);
                total += (size_t) (b - a);
        }
        if (total > INT32_MAX)
                return rt_ctx_error(ctx, "string output too large");
        uint8_t *dst = out->alloc == RT_ALLOC_DYNAMIC ? realloc(out->data, total) : malloc(total);
        if (!dst)
                return -ENOMEM;
        out->data = dst;
        out->bytes = total;
        out->alloc = RT_ALLOC_DYNAMIC;
        int32_t v = (int32_t) n, pos = (int32_t) (4 * (n + 2));
        memcpy(dst, &v, 4);
        for (size_t i = 0; i < n; i++) {
                int32_t a, b;
                memcpy(&a, src + 4 * ((size_t) idx[i] + 1), 4);
                memcpy(&b, src + 4 * ((size_t) idx[i] + 2), 4);
                memcpy(dst + 4 * (i + 1), &pos, 4);
                memcpy(dst + pos, src + a, (size_t) (b - a));
                pos += b - a;
        }
        memcpy(dst + 4 * (n + 1), &pos, 4);
        return 0;
}

int shape__string_mapped(rt_context_t *ctx, const rt_tensor_t *in, rt_tensor_t *out, int64_t base,
                         int32_t rank, const int32_t *out_dims, int32_t *const *maps, const int64_t *strides) {
        size_t n_in = rt_tensor_count(in), n_out = 1;
        for (int32_t d = 0; d < rank; d++)
                n_out *= (size_t) out_dims[d];
        int32_t *iota = malloc((n_in ? n_in : 1) * sizeof(int32_t));
        int32_t *idx = malloc((n_out ? n_out : 1) * sizeof(int32_t));
        int r = -ENOMEM;
        if (iota && idx) {
                for (size_t i = 0; i < n_in; i++)
                        iota[i] = (int32_t) i;
                r = n_out ? shape__copy_mapped(idx, iota + base, sizeof(int32_t), rank, out_dims, maps, strides,
                                               NULL)
                          : 0;
                if (r >= 0)
                        r = shape__string_build(ctx, in, out, idx, n_out);
        }
        free(iota);
        free(idx);
        return r;
}
