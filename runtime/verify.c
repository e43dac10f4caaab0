/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .tflite verifier: walks the whole FlatBuffer along TFLite's schema
 * before anything else reads it, and checks both the encoding (every table,
 * vtable, offset, vector and string in bounds and aligned, strings
 * NUL-terminated, bounded nesting) and the model's meaning (version 3, index
 * ranges, shapes and their byte sizes, constant buffer sizes, quantization,
 * the options table each op carries).
 *
 * The walk is bounded: every table visited and every vector element looked
 * at is paid for from a budget proportional to the buffer size, so that
 * shared sub-objects cannot make a small file take quadratic time, and the
 * number of records the loader will allocate is bounded by the file size.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model-internal.h"

#define MAX_DEPTH 64
#define MAX_PATH 192

typedef struct vctx {
        const uint8_t *buf;
        size_t size;      /* bytes visible to FlatBuffers structures */
        size_t file_size; /* the whole buffer, for external buffer data */
        char *err;
        size_t err_size;
        char path[MAX_PATH];
        size_t path_len;
        unsigned depth;
        uint64_t budget;  /* table visits and element checks left */
        uint64_t records; /* records the loader will allocate */
        fbt_table_t root;
        fbt_vec_t buffers;
        fbt_vec_t opcodes;
        fbt_vec_t subgraphs;
} vctx_t;

__attribute__((format(printf, 2, 3)))
static int fail(vctx_t *v, const char *fmt, ...) {
        if (!v->err || v->err_size == 0)
                return -EINVAL;
        int n = 0;
        if (v->path_len > 0)
                n = snprintf(v->err, v->err_size, "%s: ", v->path);
        if (n < 0 || (size_t) n >= v->err_size)
                return -EINVAL;
        va_list ap;
        va_start(ap, fmt);
        (void) vsnprintf(v->err + n, v->err_size - (size_t) n, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* Append ": <item>" to the error path; returns the mark to restore. */
__attribute__((format(printf, 2, 3)))
static size_t push(vctx_t *v, const char *fmt, ...) {
        size_t mark = v->path_len;
        size_t len = v->path_len;
        if (len > 0 && len + 2 < MAX_PATH) {
                memcpy(v->path + len, ": ", 3);
                len += 2;
        }
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(v->path + len, MAX_PATH - len, fmt, ap);
        va_end(ap);
        if (n > 0)
                len += (size_t) n;
        v->path_len = len < MAX_PATH ? len : MAX_PATH - 1;
        return mark;
}

static void pop(vctx_t *v, size_t mark) {
        v->path_len = mark;
        v->path[mark] = '\0';
}

static int spend(vctx_t *v, uint64_t n) {
        if (n > v->budget)
                return fail(v, "model too complex for its size (%zu bytes)", v->size);
        v->budget -= n;
        return 0;
}

static uint16_t rd16(const uint8_t *p) {
        uint16_t x;
        memcpy(&x, p, 2);
        return x;
}

static uint32_t rd32(const uint8_t *p) {
        uint32_t x;
        memcpy(&x, p, 4);
        return x;
}

/* ---- encoding ---- */

/* The vtable of a table that check_table() accepted. */
static void table_layout(const vctx_t *v, fbt_table_t t, uint32_t *ret_vt, uint16_t *ret_vsize,
                         uint16_t *ret_osize) {
        int32_t soff;
        memcpy(&soff, v->buf + t.pos, 4);
        uint32_t vt = (uint32_t) ((int64_t) t.pos - soff);
        *ret_vt = vt;
        *ret_vsize = rd16(v->buf + vt);
        *ret_osize = rd16(v->buf + vt + 2);
}

/* Offset of field `id` from the table start, 0 when absent. */
static uint16_t field_off(const vctx_t *v, fbt_table_t t, unsigned id) {
        uint32_t vt;
        uint16_t vsize, osize;
        table_layout(v, t, &vt, &vsize, &osize);
        size_t slot = 4 + 2 * (size_t) id;
        if (slot + 2 > vsize)
                return 0;
        return rd16(v->buf + vt + slot);
}

static int check_table(vctx_t *v, uint32_t pos, const char *what, fbt_table_t *ret) {
        int r = spend(v, 1);
        if (r < 0)
                return r;
        if (pos % 4)
                return fail(v, "%s: table at offset %" PRIu32 " is misaligned", what, pos);
        if ((uint64_t) pos + 4 > v->size)
                return fail(v, "%s: table at offset %" PRIu32 " is out of bounds", what, pos);
        int32_t soff;
        memcpy(&soff, v->buf + pos, 4);
        int64_t vt = (int64_t) pos - soff;
        if (vt < 0 || vt + 4 > (int64_t) v->size)
                return fail(v, "%s: vtable out of bounds", what);
        if (vt % 2)
                return fail(v, "%s: vtable misaligned", what);
        uint16_t vsize = rd16(v->buf + vt), osize = rd16(v->buf + vt + 2);
        if (vsize < 4 || vsize % 2 || (uint64_t) vt + vsize > v->size)
                return fail(v, "%s: vtable size %u invalid", what, vsize);
        if (osize < 4 || (uint64_t) pos + osize > v->size)
                return fail(v, "%s: table size %u out of bounds", what, osize);
        for (unsigned slot = 4; slot < vsize; slot += 2) {
                uint16_t foff = rd16(v->buf + vt + slot);
                if (foff && (foff < 4 || foff >= osize))
                        return fail(v, "%s: field %u at offset %u outside its table (%u bytes)", what,
                                    (slot - 4) / 2, foff, osize);
        }
        *ret = (fbt_table_t) { v->buf, v->size, pos };
        return 0;
}

/* A scalar field of `sz` bytes must fit in its table and be aligned. */
static int check_scalar(vctx_t *v, fbt_table_t t, unsigned id, size_t sz, const char *what) {
        uint32_t vt;
        uint16_t vsize, osize;
        table_layout(v, t, &vt, &vsize, &osize);
        uint16_t foff = field_off(v, t, id);
        if (!foff)
                return 0;
        if ((size_t) foff + sz > osize)
                return fail(v, "%s: field does not fit in its table", what);
        if ((t.pos + foff) % sz)
                return fail(v, "%s: field misaligned", what);
        return 0;
}

/* Follow an offset field; *ret_target = 0 when the field is absent. */
static int check_offset(vctx_t *v, fbt_table_t t, unsigned id, const char *what, uint32_t *ret_target) {
        int r = check_scalar(v, t, id, 4, what);
        if (r < 0)
                return r;
        uint16_t foff = field_off(v, t, id);
        *ret_target = 0;
        if (!foff)
                return 0;
        uint32_t at = t.pos + foff;
        uint32_t off = rd32(v->buf + at);
        uint64_t target = (uint64_t) at + off;
        if (off == 0 || target + 4 > v->size)
                return fail(v, "%s: offset out of bounds", what);
        *ret_target = (uint32_t) target;
        return 0;
}

static int vector_at(vctx_t *v, uint32_t pos, size_t elem, const char *what, fbt_vec_t *ret) {
        if (pos % 4)
                return fail(v, "%s: vector misaligned", what);
        uint32_t n = rd32(v->buf + pos);
        if ((uint64_t) pos + 4 + (uint64_t) n * elem > v->size)
                return fail(v, "%s: vector of %" PRIu32 " elements runs past the end of the file", what, n);
        /* Like FlatBuffers' own verifier, only the length word must be
         * aligned: 8-byte elements (zero_point) are copied out with memcpy,
         * and real files (permute_uint8) have them 4-aligned. */
        *ret = (fbt_vec_t) { v->buf + pos + 4, n, pos };
        return 0;
}

/* A vector of `elem`-byte scalars; an absent field gives an empty vector. */
static int check_vector(vctx_t *v, fbt_table_t t, unsigned id, size_t elem, const char *what, fbt_vec_t *ret) {
        uint32_t pos;
        *ret = (fbt_vec_t) { NULL, 0, 0 };
        int r = check_offset(v, t, id, what, &pos);
        if (r < 0 || !pos)
                return r;
        return vector_at(v, pos, elem, what, ret);
}

static int string_at(vctx_t *v, uint32_t pos, const char *what, const char **ret) {
        fbt_vec_t s;
        int r = vector_at(v, pos, 1, what, &s);
        if (r < 0)
                return r;
        uint64_t end = (uint64_t) pos + 4 + s.n;
        if (end >= v->size || v->buf[end] != 0)
                return fail(v, "%s: string not NUL-terminated", what);
        *ret = (const char *) s.data;
        return 0;
}

static int check_string(vctx_t *v, fbt_table_t t, unsigned id, const char *what, const char **ret) {
        uint32_t pos;
        *ret = NULL;
        int r = check_offset(v, t, id, what, &pos);
        if (r < 0 || !pos)
                return r;
        return string_at(v, pos, what, ret);
}

/* A sub-table field; an absent field gives an absent table. */
static int check_subtable(vctx_t *v, fbt_table_t t, unsigned id, const char *what, fbt_table_t *ret) {
        uint32_t pos;
        *ret = (fbt_table_t) { v->buf, v->size, 0 };
        int r = check_offset(v, t, id, what, &pos);
        if (r < 0 || !pos)
                return r;
        return check_table(v, pos, what, ret);
}

/* Element i of a vector of tables. */
static int vector_table(vctx_t *v, fbt_vec_t vec, uint32_t i, const char *what, fbt_table_t *ret) {
        uint32_t at = vec.pos + 4 + 4 * i;
        uint32_t off = rd32(v->buf + at);
        uint64_t target = (uint64_t) at + off;
        if (off == 0 || target + 4 > v->size)
                return fail(v, "%s: offset out of bounds", what);
        return check_table(v, (uint32_t) target, what, ret);
}

static int enter(vctx_t *v) {
        if (v->depth >= MAX_DEPTH)
                return fail(v, "nesting deeper than %d levels", MAX_DEPTH);
        v->depth++;
        return 0;
}

/*
 * A table whose schema we do not walk field by field (an options table): its
 * encoding is checked, and the vector and string fields listed in `vecs`
 * (field id, element size; 0 = string) are checked as such.
 */
typedef struct field_kind {
        uint8_t id;
        uint8_t elem; /* 0 = string */
} field_kind_t;

static int check_generic(vctx_t *v, fbt_table_t t, const field_kind_t *fields, size_t n, const char *what) {
        for (size_t i = 0; i < n; i++) {
                int r;
                if (fields[i].elem == 0) {
                        const char *s;
                        r = check_string(v, t, fields[i].id, what, &s);
                } else {
                        fbt_vec_t vec;
                        r = check_vector(v, t, fields[i].id, fields[i].elem, what, &vec);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- semantics ---- */

static const uint8_t *buffer_bytes(vctx_t *v, uint32_t index, size_t *ret_size) {
        return rt__buffer_bytes(v->buf, v->file_size, v->root, index, ret_size);
}

static int check_buffer(vctx_t *v, uint32_t i) {
        fbt_table_t b;
        fbt_vec_t data;
        size_t mark = push(v, "buffer %" PRIu32, i);
        int r = vector_table(v, v->buffers, i, "table", &b);
        if (r >= 0)
                r = check_vector(v, b, RT__BUFFER_DATA, 1, "data", &data);
        if (r >= 0)
                r = check_scalar(v, b, RT__BUFFER_OFFSET, 8, "offset");
        if (r >= 0)
                r = check_scalar(v, b, RT__BUFFER_SIZE, 8, "size");
        if (r < 0)
                return r;
        uint64_t off = fbt_u64(b, RT__BUFFER_OFFSET, 0), size = fbt_u64(b, RT__BUFFER_SIZE, 0);
        if (off > 1) {
                if (data.n > 0)
                        return fail(v, "both inline data and an offset");
                if (off > v->file_size || size > v->file_size - off)
                        return fail(v, "data at offset %" PRIu64 ", size %" PRIu64 " lies outside the file (%zu bytes)",
                                    off, size, v->file_size);
        }
        pop(v, mark);
        return 0;
}

static int check_opcode(vctx_t *v, uint32_t i) {
        fbt_table_t oc;
        const char *custom;
        size_t mark = push(v, "operator code %" PRIu32, i);
        int r = vector_table(v, v->opcodes, i, "table", &oc);
        if (r >= 0)
                r = check_scalar(v, oc, RT__OPCODE_DEPRECATED_BUILTIN_CODE, 1, "deprecated_builtin_code");
        if (r >= 0)
                r = check_string(v, oc, RT__OPCODE_CUSTOM_CODE, "custom_code", &custom);
        if (r >= 0)
                r = check_scalar(v, oc, RT__OPCODE_VERSION, 4, "version");
        if (r >= 0)
                r = check_scalar(v, oc, RT__OPCODE_BUILTIN_CODE, 4, "builtin_code");
        if (r < 0)
                return r;
        int32_t code = rt__opcode_code(oc);
        if (code < 0)
                return fail(v, "negative builtin code %" PRId32, code);
        if (code == RT_BUILTIN_CUSTOM && !custom)
                return fail(v, "CUSTOM without a custom_code");
        pop(v, mark);
        return 0;
}

static int check_dims(vctx_t *v, fbt_vec_t shape, const char *what, bool allow_unknown) {
        int r = spend(v, shape.n);
        if (r < 0)
                return r;
        for (uint32_t a = 0; a < shape.n; a++) {
                int32_t d = fbt_vec_i32(shape, a);
                if (d < 0 && !(allow_unknown && d == -1))
                        return fail(v, "%s: negative dimension %" PRId32 " at axis %" PRIu32, what, d, a);
        }
        return 0;
}

static void format_shape(char *out, size_t out_size, fbt_vec_t shape) {
        size_t len = 0;
        out[0] = '\0';
        for (uint32_t a = 0; a < shape.n && len + 16 < out_size; a++)
                len += (size_t) snprintf(out + len, out_size - len, "%s%" PRId32, a ? "," : "", fbt_vec_i32(shape, a));
}

/* TFLite's serialized string tensor: int32 count N, N+1 int32 offsets from
 * the buffer start, then the bytes. */
static int check_string_data(vctx_t *v, uint32_t buffer, const uint8_t *data, size_t bytes, uint64_t count) {
        if (bytes < 4)
                return fail(v, "buffer %" PRIu32 ": string data of %zu bytes is too short", buffer, bytes);
        int32_t n;
        memcpy(&n, data, 4);
        if (n < 0 || (uint64_t) n != count)
                return fail(v, "buffer %" PRIu32 ": string data holds %" PRId32 " strings, shape needs %" PRIu64,
                            buffer, n, count);
        if (((uint64_t) n + 2) * 4 > bytes)
                return fail(v, "buffer %" PRIu32 ": string offsets run past its %zu bytes", buffer, bytes);
        int r = spend(v, (uint64_t) n + 1);
        if (r < 0)
                return r;
        int32_t prev = (int32_t) (((uint64_t) n + 2) * 4);
        for (int32_t k = 0; k <= n; k++) {
                int32_t o;
                memcpy(&o, data + 4 + 4 * (size_t) k, 4);
                if (o < prev || (size_t) o > bytes || (k == 0 && o != prev))
                        return fail(v, "buffer %" PRIu32 ": string offset %" PRId32 " invalid", buffer, k);
                prev = o;
        }
        return 0;
}

static int check_index_vector(vctx_t *v, uint8_t type, fbt_table_t t, const char *what) {
        static const uint8_t elem[] = { 0, 4, 2, 1 };
        fbt_vec_t values;
        if (type > RT__SPARSE_INDEX_UINT8)
                return fail(v, "%s: unknown index vector type %u", what, type);
        if (type == RT__SPARSE_INDEX_NONE || !fbt_present(t))
                return 0;
        return check_vector(v, t, 0, elem[type], what, &values);
}

static int check_sparsity(vctx_t *v, fbt_table_t sp, int32_t rank) {
        fbt_vec_t order, block_map, dims;
        int r = check_vector(v, sp, RT__SPARSITY_TRAVERSAL_ORDER, 4, "traversal_order", &order);
        if (r >= 0)
                r = check_vector(v, sp, RT__SPARSITY_BLOCK_MAP, 4, "block_map", &block_map);
        if (r >= 0)
                r = check_vector(v, sp, RT__SPARSITY_DIM_METADATA, 4, "dim_metadata", &dims);
        if (r < 0)
                return r;
        if (order.n > 2 * RT_MAX_RANK || order.n < (uint32_t) rank)
                return fail(v, "sparsity: traversal order of %" PRIu32 " dimensions for rank %" PRId32, order.n, rank);
        if (dims.n != order.n)
                return fail(v, "sparsity: %" PRIu32 " dimension metadata for %" PRIu32 " traversed dimensions", dims.n,
                            order.n);
        if (block_map.n != order.n - (uint32_t) rank)
                return fail(v, "sparsity: block map of %" PRIu32 " entries for %" PRIu32 " block dimensions", block_map.n,
                            order.n - (uint32_t) rank);
        for (uint32_t k = 0; k < order.n; k++) {
                int32_t d = fbt_vec_i32(order, k);
                if (d < 0 || (uint32_t) d >= order.n)
                        return fail(v, "sparsity: traversal order entry %" PRId32 " out of range", d);
        }
        for (uint32_t k = 0; k < block_map.n; k++) {
                int32_t d = fbt_vec_i32(block_map, k);
                if (d < 0 || d >= rank)
                        return fail(v, "sparsity: block map entry %" PRId32 " out of range", d);
        }
        for (uint32_t k = 0; k < dims.n; k++) {
                fbt_table_t dm, seg, idx;
                size_t mark = push(v, "sparsity dimension %" PRIu32, k);
                r = vector_table(v, dims, k, "table", &dm);
                if (r >= 0)
                        r = check_scalar(v, dm, RT__DIM_FORMAT, 1, "format");
                if (r >= 0)
                        r = check_scalar(v, dm, RT__DIM_DENSE_SIZE, 4, "dense_size");
                if (r >= 0)
                        r = check_scalar(v, dm, RT__DIM_ARRAY_SEGMENTS_TYPE, 1, "array_segments_type");
                if (r >= 0)
                        r = check_scalar(v, dm, RT__DIM_ARRAY_INDICES_TYPE, 1, "array_indices_type");
                if (r >= 0)
                        r = check_subtable(v, dm, RT__DIM_ARRAY_SEGMENTS, "array_segments", &seg);
                if (r >= 0)
                        r = check_subtable(v, dm, RT__DIM_ARRAY_INDICES, "array_indices", &idx);
                if (r < 0)
                        return r;
                uint8_t seg_type = fbt_u8(dm, RT__DIM_ARRAY_SEGMENTS_TYPE, 0);
                uint8_t idx_type = fbt_u8(dm, RT__DIM_ARRAY_INDICES_TYPE, 0);
                r = check_index_vector(v, seg_type, seg, "array_segments");
                if (r >= 0)
                        r = check_index_vector(v, idx_type, idx, "array_indices");
                if (r < 0)
                        return r;
                int8_t format = fbt_i8(dm, RT__DIM_FORMAT, 0);
                if (format != RT_DIM_DENSE && format != RT_DIM_SPARSE_CSR)
                        return fail(v, "unknown format %d", format);
                if (fbt_i32(dm, RT__DIM_DENSE_SIZE, 0) < 0)
                        return fail(v, "negative dense_size");
                if (format == RT_DIM_SPARSE_CSR && (!seg_type || !idx_type || !fbt_present(seg) || !fbt_present(idx)))
                        return fail(v, "sparse dimension without array_segments and array_indices");
                pop(v, mark);
        }
        return 0;
}

static int check_quantization(vctx_t *v, fbt_table_t q, fbt_vec_t shape) {
        fbt_vec_t min, max, scale, zp;
        fbt_table_t details;
        int r = check_vector(v, q, RT__QUANT_MIN, 4, "quantization min", &min);
        if (r >= 0)
                r = check_vector(v, q, RT__QUANT_MAX, 4, "quantization max", &max);
        if (r >= 0)
                r = check_vector(v, q, RT__QUANT_SCALE, 4, "quantization scale", &scale);
        if (r >= 0)
                r = check_vector(v, q, RT__QUANT_ZERO_POINT, 8, "quantization zero_point", &zp);
        if (r >= 0)
                r = check_scalar(v, q, RT__QUANT_DETAILS_TYPE, 1, "quantization details_type");
        if (r >= 0)
                r = check_subtable(v, q, RT__QUANT_DETAILS, "quantization details", &details);
        if (r >= 0)
                r = check_scalar(v, q, RT__QUANT_QUANTIZED_DIMENSION, 4, "quantized_dimension");
        if (r < 0)
                return r;
        uint8_t details_type = fbt_u8(q, RT__QUANT_DETAILS_TYPE, 0);
        if (details_type > 1)
                return fail(v, "unknown quantization details type %u", details_type);
        if (details_type == 1 && fbt_present(details)) {
                fbt_vec_t custom;
                r = check_vector(v, details, 0, 1, "custom quantization", &custom);
                if (r < 0)
                        return r;
        }
        if (scale.n == 0)
                return 0;
        if (zp.n != scale.n)
                return fail(v, "quantization has %" PRIu32 " scales and %" PRIu32 " zero points", scale.n, zp.n);
        int32_t qd = fbt_i32(q, RT__QUANT_QUANTIZED_DIMENSION, 0);
        if (qd < 0)
                return fail(v, "negative quantized_dimension %" PRId32, qd);
        /* person_detect_int8's rank-1 biases carry quantized_dimension 3
         * with one scale per element: the only axis is meant, read as 0. */
        if (shape.n == 1 && (uint32_t) qd >= shape.n)
                qd = 0;
        if (scale.n > 1) {
                if ((uint32_t) qd >= shape.n)
                        return fail(v, "quantized_dimension %" PRId32 " out of range for rank %" PRIu32, qd, shape.n);
                int32_t dim = fbt_vec_i32(shape, (uint32_t) qd);
                if ((uint32_t) dim != scale.n)
                        return fail(v, "%" PRIu32 " scales for dimension %" PRId32 " of size %" PRId32, scale.n, qd, dim);
        }
        /* One scale with quantized_dimension >= rank: the axis is unused,
         * the loader reads it as 0 and never indexes past the rank. */
        return 0;
}

static int check_tensor(vctx_t *v, fbt_table_t t, int32_t index) {
        fbt_vec_t shape, sig, variants;
        fbt_table_t quant, sparsity;
        const char *name;
        int r = check_vector(v, t, RT__TENSOR_SHAPE, 4, "shape", &shape);
        if (r >= 0)
                r = check_scalar(v, t, RT__TENSOR_TYPE, 1, "type");
        if (r >= 0)
                r = check_scalar(v, t, RT__TENSOR_BUFFER, 4, "buffer");
        if (r >= 0)
                r = check_string(v, t, RT__TENSOR_NAME, "name", &name);
        if (r >= 0)
                r = check_subtable(v, t, RT__TENSOR_QUANTIZATION, "quantization", &quant);
        if (r >= 0)
                r = check_scalar(v, t, RT__TENSOR_IS_VARIABLE, 1, "is_variable");
        if (r >= 0)
                r = check_subtable(v, t, RT__TENSOR_SPARSITY, "sparsity", &sparsity);
        if (r >= 0)
                r = check_vector(v, t, RT__TENSOR_SHAPE_SIGNATURE, 4, "shape_signature", &sig);
        if (r >= 0)
                r = check_scalar(v, t, RT__TENSOR_HAS_RANK, 1, "has_rank");
        if (r >= 0)
                r = check_vector(v, t, RT__TENSOR_VARIANT_TENSORS, 4, "variant_tensors", &variants);
        if (r < 0)
                return r;

        int8_t type = fbt_i8(t, RT__TENSOR_TYPE, 0);
        if (type < 0 || type >= _RT_TYPE_MAX)
                return fail(v, "unknown type %d", type);
        if (shape.n > RT_MAX_RANK)
                return fail(v, "rank %" PRIu32 " exceeds %d", shape.n, RT_MAX_RANK);
        r = check_dims(v, shape, "shape", false);
        if (r < 0)
                return r;
        if (sig.data) {
                if (sig.n != shape.n)
                        return fail(v, "shape_signature rank %" PRIu32 " differs from shape rank %" PRIu32, sig.n, shape.n);
                r = check_dims(v, sig, "shape_signature", true);
                if (r < 0)
                        return r;
        }

        /* Byte size: checked against a limit far below any overflow. */
        uint64_t count = 1;
        for (uint32_t a = 0; a < shape.n; a++) {
                count *= (uint64_t) fbt_vec_i32(shape, a);
                if (count > RT_MODEL_MAX_TENSOR_BYTES) {
                        char s[128];
                        format_shape(s, sizeof(s), shape);
                        return fail(v, "shape [%s] is too large (more than %" PRIu64 " elements)", s,
                                    RT_MODEL_MAX_TENSOR_BYTES);
                }
        }
        size_t esize = rt_type_size((rt_type_t) type);
        if (count * esize > RT_MODEL_MAX_TENSOR_BYTES) {
                char s[128];
                format_shape(s, sizeof(s), shape);
                return fail(v, "shape [%s] of %s is too large (%" PRIu64 " bytes, limit %" PRIu64 ")", s,
                            rt_type_name((rt_type_t) type), count * esize, RT_MODEL_MAX_TENSOR_BYTES);
        }

        uint32_t buffer = fbt_u32(t, RT__TENSOR_BUFFER, 0);
        if (buffer >= v->buffers.n && !(buffer == 0 && v->buffers.n == 0))
                return fail(v, "buffer %" PRIu32 " out of range (%" PRIu32 " buffers)", buffer, v->buffers.n);
        size_t bytes = 0;
        const uint8_t *data = buffer_bytes(v, buffer, &bytes);
        if (bytes > 0 && !fbt_present(sparsity)) {
                if (type == RT_TYPE_STRING) {
                        r = check_string_data(v, buffer, data, bytes, count);
                        if (r < 0)
                                return r;
                } else if (esize > 0) {
                        bool ok = bytes == count * esize;
                        if (type == RT_TYPE_INT4) /* packed two per byte, or one per byte */
                                ok = ok || bytes == (count + 1) / 2;
                        if (!ok) {
                                char s[128];
                                format_shape(s, sizeof(s), shape);
                                return fail(v, "buffer %" PRIu32 " has %zu bytes, %s[%s] needs %" PRIu64, buffer, bytes,
                                            rt_type_name((rt_type_t) type), s, count * esize);
                        }
                }
        }

        if (fbt_present(quant)) {
                r = check_quantization(v, quant, shape);
                if (r < 0)
                        return r;
        }
        if (fbt_present(sparsity)) {
                r = check_sparsity(v, sparsity, (int32_t) shape.n);
                if (r < 0)
                        return r;
        }
        for (uint32_t k = 0; k < variants.n; k++) {
                fbt_table_t vt;
                fbt_vec_t vshape;
                size_t mark = push(v, "variant subtype %" PRIu32, k);
                r = vector_table(v, variants, k, "table", &vt);
                if (r >= 0)
                        r = check_vector(v, vt, 0, 4, "shape", &vshape);
                if (r >= 0)
                        r = check_scalar(v, vt, 1, 1, "type");
                if (r >= 0)
                        r = check_scalar(v, vt, 2, 1, "has_rank");
                if (r < 0)
                        return r;
                pop(v, mark);
        }
        (void) index;
        return 0;
}

/* Tensor indices of an operator or subgraph io list. */
static int check_indices(vctx_t *v, fbt_vec_t vec, const char *what, int32_t n_tensors, bool allow_absent) {
        int r = spend(v, vec.n);
        if (r < 0)
                return r;
        for (uint32_t k = 0; k < vec.n; k++) {
                int32_t x = fbt_vec_i32(vec, k);
                if (x == -1 && allow_absent)
                        continue;
                if (x < 0 || x >= n_tensors)
                        return fail(v, "%s %" PRIu32 ": tensor %" PRId32 " out of range (%" PRId32 " tensors)", what, k,
                                    x, n_tensors);
        }
        return 0;
}

/* Vector and string fields of the options tables that have them. */
static int check_options(vctx_t *v, fbt_table_t t, uint8_t type) {
        static const field_kind_t reshape[] = { { 0, 4 } };
        static const field_kind_t squeeze[] = { { 0, 4 } };
        static const field_kind_t concat_emb[] = { { 1, 4 }, { 2, 4 } };
        static const field_kind_t bucketize[] = { { 0, 4 } };
        static const field_kind_t var_handle[] = { { 0, 0 }, { 1, 0 } };
        switch (type) {
        case RT_OPTIONS_RESHAPE:
                return check_generic(v, t, reshape, 1, "ReshapeOptions");
        case RT_OPTIONS_SQUEEZE:
                return check_generic(v, t, squeeze, 1, "SqueezeOptions");
        case RT_OPTIONS_CONCAT_EMBEDDINGS:
                return check_generic(v, t, concat_emb, 2, "ConcatEmbeddingsOptions");
        case RT_OPTIONS_BUCKETIZE:
                return check_generic(v, t, bucketize, 1, "BucketizeOptions");
        case RT_OPTIONS_VAR_HANDLE:
                return check_generic(v, t, var_handle, 2, "VarHandleOptions");
        default:
                return 0;
        }
}

static int check_operator(vctx_t *v, fbt_table_t op, uint32_t index, int32_t n_tensors, size_t mark) {
        fbt_vec_t inputs, outputs, custom, mutating, intermediates;
        fbt_table_t options, options2;
        int r = check_scalar(v, op, RT__OP_OPCODE_INDEX, 4, "opcode_index");
        if (r < 0)
                return r;
        uint32_t opcode = fbt_u32(op, RT__OP_OPCODE_INDEX, 0);
        if (opcode >= v->opcodes.n)
                return fail(v, "opcode index %" PRIu32 " out of range (%" PRIu32 " operator codes)", opcode,
                            v->opcodes.n);
        fbt_table_t oc = fbt_vector_table(v->root, v->opcodes, opcode);
        int32_t code = rt__opcode_code(oc);
        const char *name = code == RT_BUILTIN_CUSTOM ? fbt_string(oc, RT__OPCODE_CUSTOM_CODE, NULL) : NULL;
        /* Rename the path element "operator N" to "operator N (NAME)". */
        pop(v, mark);
        (void) push(v, "operator %" PRIu32 " (%s)", index, name ? name : rt_op_name(code));

        r = check_vector(v, op, RT__OP_INPUTS, 4, "inputs", &inputs);
        if (r >= 0)
                r = check_vector(v, op, RT__OP_OUTPUTS, 4, "outputs", &outputs);
        if (r >= 0)
                r = check_scalar(v, op, RT__OP_BUILTIN_OPTIONS_TYPE, 1, "builtin_options_type");
        if (r >= 0)
                r = check_subtable(v, op, RT__OP_BUILTIN_OPTIONS, "builtin_options", &options);
        if (r >= 0)
                r = check_vector(v, op, RT__OP_CUSTOM_OPTIONS, 1, "custom_options", &custom);
        if (r >= 0)
                r = check_scalar(v, op, RT__OP_CUSTOM_OPTIONS_FORMAT, 1, "custom_options_format");
        if (r >= 0)
                r = check_vector(v, op, RT__OP_MUTATING_VARIABLE_INPUTS, 1, "mutating_variable_inputs", &mutating);
        if (r >= 0)
                r = check_vector(v, op, RT__OP_INTERMEDIATES, 4, "intermediates", &intermediates);
        if (r >= 0)
                r = check_scalar(v, op, RT__OP_LARGE_CUSTOM_OPTIONS_OFFSET, 8, "large_custom_options_offset");
        if (r >= 0)
                r = check_scalar(v, op, RT__OP_LARGE_CUSTOM_OPTIONS_SIZE, 8, "large_custom_options_size");
        if (r >= 0)
                r = check_scalar(v, op, RT__OP_BUILTIN_OPTIONS_2_TYPE, 1, "builtin_options_2_type");
        if (r >= 0)
                r = check_subtable(v, op, RT__OP_BUILTIN_OPTIONS_2, "builtin_options_2", &options2);
        if (r < 0)
                return r;

        r = check_indices(v, inputs, "input", n_tensors, true);
        if (r >= 0)
                r = check_indices(v, outputs, "output", n_tensors, false);
        if (r >= 0)
                r = check_indices(v, intermediates, "intermediate", n_tensors, false);
        if (r < 0)
                return r;
        if (mutating.n != 0 && mutating.n != inputs.n)
                return fail(v, "%" PRIu32 " mutating_variable_inputs flags for %" PRIu32 " inputs", mutating.n, inputs.n);

        uint8_t type = fbt_u8(op, RT__OP_BUILTIN_OPTIONS_TYPE, 0);
        if (type >= _RT_OPTIONS_MAX)
                return fail(v, "unknown builtin options type %u", type);
        rt_options_type_t expected = rt_op_options_type(code);
        if (type != RT_OPTIONS_NONE && expected != RT_OPTIONS_ANY && type != (uint8_t) expected) {
                char want[48];
                (void) snprintf(want, sizeof(want), "%s",
                                expected == RT_OPTIONS_NONE ? "none" : rt_options_type_name(expected));
                return fail(v, "builtin options type %s, expected %s", rt_options_type_name(type), want);
        }
        if (type == RT_OPTIONS_NONE && fbt_present(options))
                return fail(v, "builtin options table without a type");
        if (fbt_present(options)) {
                r = check_options(v, options, type);
                if (r < 0)
                        return r;
        }
        uint8_t type2 = fbt_u8(op, RT__OP_BUILTIN_OPTIONS_2_TYPE, 0);
        if (type2 > RT__OPTIONS_2_MAX)
                return fail(v, "unknown builtin options 2 type %u", type2);

        uint64_t off = fbt_u64(op, RT__OP_LARGE_CUSTOM_OPTIONS_OFFSET, 0);
        uint64_t size = fbt_u64(op, RT__OP_LARGE_CUSTOM_OPTIONS_SIZE, 0);
        if (off > 1) {
                if (custom.n > 0)
                        return fail(v, "both inline and large custom options");
                if (off > v->file_size || size > v->file_size - off)
                        return fail(v, "custom options at offset %" PRIu64 ", size %" PRIu64
                                    " lie outside the file (%zu bytes)", off, size, v->file_size);
        }
        return 0;
}

static int check_subgraph(vctx_t *v, uint32_t s) {
        fbt_table_t sg;
        fbt_vec_t tensors, inputs, outputs, ops;
        const char *name;
        int r = vector_table(v, v->subgraphs, s, "table", &sg);
        if (r >= 0)
                r = check_vector(v, sg, RT__SUBGRAPH_TENSORS, 4, "tensors", &tensors);
        if (r >= 0)
                r = check_vector(v, sg, RT__SUBGRAPH_INPUTS, 4, "inputs", &inputs);
        if (r >= 0)
                r = check_vector(v, sg, RT__SUBGRAPH_OUTPUTS, 4, "outputs", &outputs);
        if (r >= 0)
                r = check_vector(v, sg, RT__SUBGRAPH_OPERATORS, 4, "operators", &ops);
        if (r >= 0)
                r = check_string(v, sg, RT__SUBGRAPH_NAME, "name", &name);
        if (r < 0)
                return r;
        if (tensors.n > INT32_MAX || ops.n > INT32_MAX)
                return fail(v, "too many tensors or operators");
        v->records += (uint64_t) tensors.n + ops.n + 1;
        int32_t n_tensors = (int32_t) tensors.n;

        for (uint32_t i = 0; i < tensors.n; i++) {
                fbt_table_t t;
                size_t mark = push(v, "tensor %" PRIu32, i);
                r = vector_table(v, tensors, i, "table", &t);
                if (r >= 0)
                        r = check_tensor(v, t, (int32_t) i);
                if (r < 0)
                        return r;
                pop(v, mark);
        }
        r = check_indices(v, inputs, "subgraph input", n_tensors, false);
        if (r >= 0)
                r = check_indices(v, outputs, "subgraph output", n_tensors, false);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < ops.n; i++) {
                fbt_table_t op;
                size_t mark = push(v, "operator %" PRIu32, i);
                r = vector_table(v, ops, i, "table", &op);
                if (r >= 0)
                        r = check_operator(v, op, i, n_tensors, mark);
                if (r < 0)
                        return r;
                pop(v, mark);
        }
        return 0;
}

static int check_tensor_maps(vctx_t *v, fbt_vec_t maps, const char *what, int32_t n_tensors) {
        for (uint32_t k = 0; k < maps.n; k++) {
                fbt_table_t tm;
                const char *name;
                size_t mark = push(v, "%s %" PRIu32, what, k);
                int r = vector_table(v, maps, k, "table", &tm);
                if (r >= 0)
                        r = check_string(v, tm, RT__TENSORMAP_NAME, "name", &name);
                if (r >= 0)
                        r = check_scalar(v, tm, RT__TENSORMAP_TENSOR_INDEX, 4, "tensor_index");
                if (r < 0)
                        return r;
                uint32_t t = fbt_u32(tm, RT__TENSORMAP_TENSOR_INDEX, 0);
                if (t >= (uint32_t) n_tensors)
                        return fail(v, "tensor %" PRIu32 " out of range (%" PRId32 " tensors)", t, n_tensors);
                pop(v, mark);
        }
        return 0;
}

static int check_signature(vctx_t *v, fbt_vec_t sigs, uint32_t i) {
        fbt_table_t sd;
        fbt_vec_t inputs, outputs;
        const char *key;
        size_t mark = push(v, "signature %" PRIu32, i);
        int r = vector_table(v, sigs, i, "table", &sd);
        if (r >= 0)
                r = check_vector(v, sd, RT__SIGNATURE_INPUTS, 4, "inputs", &inputs);
        if (r >= 0)
                r = check_vector(v, sd, RT__SIGNATURE_OUTPUTS, 4, "outputs", &outputs);
        if (r >= 0)
                r = check_string(v, sd, RT__SIGNATURE_KEY, "signature_key", &key);
        if (r >= 0)
                r = check_string(v, sd, 3, "deprecated_tag", &key);
        if (r >= 0)
                r = check_scalar(v, sd, RT__SIGNATURE_SUBGRAPH_INDEX, 4, "subgraph_index");
        if (r < 0)
                return r;
        uint32_t s = fbt_u32(sd, RT__SIGNATURE_SUBGRAPH_INDEX, 0);
        if (s >= v->subgraphs.n)
                return fail(v, "subgraph %" PRIu32 " out of range (%" PRIu32 " subgraphs)", s, v->subgraphs.n);
        fbt_table_t sg = fbt_vector_table(v->root, v->subgraphs, s);
        int32_t n_tensors = (int32_t) fbt_vector(sg, RT__SUBGRAPH_TENSORS, 4).n;
        v->records += (uint64_t) inputs.n + outputs.n + 1;
        r = check_tensor_maps(v, inputs, "input", n_tensors);
        if (r >= 0)
                r = check_tensor_maps(v, outputs, "output", n_tensors);
        if (r < 0)
                return r;
        pop(v, mark);
        return 0;
}

static int check_model(vctx_t *v) {
        fbt_vec_t meta_buffers, metadata, sigs;
        const char *description;

        if (v->size < 8)
                return fail(v, "not a TFLite model: %zu bytes is too small", v->size);
        if (memcmp(v->buf + 4, "TFL3", 4) != 0)
                return fail(v, "not a TFLite model: missing \"TFL3\" file identifier");
        int r = check_table(v, rd32(v->buf), "model", &v->root);
        if (r < 0)
                return r;
        fbt_table_t m = v->root;
        r = check_scalar(v, m, RT__MODEL_VERSION, 4, "model version");
        if (r >= 0)
                r = check_vector(v, m, RT__MODEL_OPERATOR_CODES, 4, "operator_codes", &v->opcodes);
        if (r >= 0)
                r = check_vector(v, m, RT__MODEL_SUBGRAPHS, 4, "subgraphs", &v->subgraphs);
        if (r >= 0)
                r = check_string(v, m, RT__MODEL_DESCRIPTION, "description", &description);
        if (r >= 0)
                r = check_vector(v, m, RT__MODEL_BUFFERS, 4, "buffers", &v->buffers);
        if (r >= 0)
                r = check_vector(v, m, RT__MODEL_METADATA_BUFFER, 4, "metadata_buffer", &meta_buffers);
        if (r >= 0)
                r = check_vector(v, m, RT__MODEL_METADATA, 4, "metadata", &metadata);
        if (r >= 0)
                r = check_vector(v, m, RT__MODEL_SIGNATURE_DEFS, 4, "signature_defs", &sigs);
        if (r < 0)
                return r;

        uint32_t version = fbt_u32(m, RT__MODEL_VERSION, 0);
        if (version != 3)
                return fail(v, "unsupported schema version %" PRIu32 " (expected 3)", version);
        if (v->subgraphs.n == 0)
                return fail(v, "model has no subgraphs");
        if (v->subgraphs.n > INT32_MAX || metadata.n > INT32_MAX || sigs.n > INT32_MAX)
                return fail(v, "too many subgraphs, metadata or signatures");
        v->records = (uint64_t) v->subgraphs.n + metadata.n + sigs.n;

        for (uint32_t i = 0; i < v->buffers.n; i++) {
                r = check_buffer(v, i);
                if (r < 0)
                        return r;
        }
        for (uint32_t i = 0; i < v->opcodes.n; i++) {
                r = check_opcode(v, i);
                if (r < 0)
                        return r;
        }
        for (uint32_t s = 0; s < v->subgraphs.n; s++) {
                size_t mark = s > 0 ? push(v, "subgraph %" PRIu32, s) : v->path_len;
                r = enter(v);
                if (r >= 0)
                        r = check_subgraph(v, s);
                if (r < 0)
                        return r;
                v->depth--;
                pop(v, mark);
        }
        for (uint32_t i = 0; i < sigs.n; i++) {
                r = check_signature(v, sigs, i);
                if (r < 0)
                        return r;
        }
        for (uint32_t i = 0; i < metadata.n; i++) {
                fbt_table_t md;
                const char *name;
                size_t mark = push(v, "metadata %" PRIu32, i);
                r = vector_table(v, metadata, i, "table", &md);
                if (r >= 0)
                        r = check_string(v, md, RT__METADATA_NAME, "name", &name);
                if (r >= 0)
                        r = check_scalar(v, md, RT__METADATA_BUFFER, 4, "buffer");
                if (r < 0)
                        return r;
                uint32_t b = fbt_u32(md, RT__METADATA_BUFFER, 0);
                if (b >= v->buffers.n)
                        return fail(v, "buffer %" PRIu32 " out of range (%" PRIu32 " buffers)", b, v->buffers.n);
                pop(v, mark);
        }
        r = spend(v, meta_buffers.n);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < meta_buffers.n; i++) {
                int32_t b = fbt_vec_i32(meta_buffers, i);
                if (b < 0 || (uint32_t) b >= v->buffers.n)
                        return fail(v, "metadata_buffer %" PRIu32 ": buffer %" PRId32 " out of range (%" PRIu32 " buffers)",
                                    i, b, v->buffers.n);
        }
        /* Every record the loader allocates is backed by at least 8 bytes
         * of the file unless tables are shared; refuse files that would
         * make the loader allocate far more than their size. */
        if (v->records > v->size / 8 + 64)
                return fail(v, "model too complex for its size (%zu bytes)", v->size);
        return 0;
}

int rt_model_verify(const uint8_t *buf, size_t size, char *err, size_t err_size) {
        if (err && err_size)
                err[0] = '\0';
        vctx_t v = {
                .buf = buf,
                .size = size < RT__FB_MAX_SIZE ? size : RT__FB_MAX_SIZE,
                .file_size = size,
                .err = err,
                .err_size = err_size,
        };
        if (!buf && size > 0)
                return fail(&v, "no buffer");
        if (!buf)
                return fail(&v, "not a TFLite model: 0 bytes is too small");
        v.budget = (uint64_t) v.size / 2 + 4096;
        v.root = (fbt_table_t) { buf, v.size, 0 };
        return check_model(&v);
}
