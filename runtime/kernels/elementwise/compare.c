/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Broadcasting comparisons with a bool output: EQUAL, NOT_EQUAL, LESS,
 * LESS_EQUAL, GREATER, GREATER_EQUAL.
 *
 * 8-bit quantized inputs are compared after TFLite's rescaling: each value
 * minus its zero point, shifted left by 8, times its own scale as a
 * fixed-point multiplier. Other types compare the stored values.
 */
#include "ew.h"

typedef enum cop {
        C_EQ,
        C_NE,
        C_LT,
        C_LE,
        C_GT,
        C_GE,
} cop_t;

static const char *const cop_names[] = {
        [C_EQ] = "EQUAL",
        [C_NE] = "NOT_EQUAL",
        [C_LT] = "LESS",
        [C_LE] = "LESS_EQUAL",
        [C_GT] = "GREATER",
        [C_GE] = "GREATER_EQUAL",
};

static bool cop_supports(cop_t op, rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
        case RT_TYPE_INT32:
        case RT_TYPE_INT64:
        case RT_TYPE_UINT8:
        case RT_TYPE_INT8:
        case RT_TYPE_INT16:
                return true;
        case RT_TYPE_BOOL:
                return op == C_EQ || op == C_NE;
        default:
                return false;
        }
}

static bool is_q8(const rt_tensor_t *t) {
        return (t->type == RT_TYPE_UINT8 || t->type == RT_TYPE_INT8) && t->quant.n > 0;
}

static int compare_prepare(rt_context_t *ctx, rt_node_t *node, cop_t op) {
        const char *name = cop_names[op];
        int r = ew_check_io(ctx, node, name, 2, 1);
        if (r < 0)
                return r;
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        const rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (a->type != b->type)
                return rt_ctx_error(ctx, "%s: input types %s and %s differ", name,
                                    rt_type_name(a->type), rt_type_name(b->type));
        if (o->type != RT_TYPE_BOOL)
                return rt_ctx_error(ctx, "%s: output must be bool, not %s", name,
                                    rt_type_name(o->type));
        if (!cop_supports(op, a->type))
                return ew_unsupported(ctx, name, a->type, o->type);
        r = ew_resize_bcast(ctx, node, name, a, b);
        if (r < 0)
                return r;
        if (is_q8(a) || is_q8(b)) {
                ew_data_t *d = node->user_data;
                if (!d)
                        return rt_ctx_error(ctx, "%s: node state missing", name);
                if (!(a->scale > 0) || !(b->scale > 0))
                        return rt_ctx_error(ctx, "%s: quantized inputs need a positive scale",
                                            name);
                d->rescale = true;
                d->left_shift = 8;
                d->in1_offset = -a->zero_point;
                d->in2_offset = -b->zero_point;
                ku_quantize_multiplier(a->scale, &d->in1_mul, &d->in1_shift);
                ku_quantize_multiplier(b->scale, &d->in2_mul, &d->in2_shift);
        }
        return 0;
}

typedef struct cmp {
        cop_t op;
        const void *a, *b;
        bool *o;
        const ew_data_t *d;
} cmp_t;

#define CMP(op, A, B)                                                         \
        ((op) == C_EQ ? (A) == (B) : (op) == C_NE ? (A) != (B) : (op) == C_LT ? (A) < (B) \
         : (op) == C_LE ? (A) <= (B) : (op) == C_GT ? (A) > (B) : (A) >= (B))

#define CMP_ROW(NAME, T)                                                                      \
        static void NAME(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) { \
                cmp_t *c = arg;                                                               \
                const T *x = (const T *) c->a + in[0], *y = (const T *) c->b + in[1];         \
                bool *z = c->o + oo;                                                          \
                const cop_t op = c->op;                                                       \
                for (size_t i = 0; i < n; i++) {                                              \
                        const T A = x[(int64_t) i * st[0]], B = y[(int64_t) i * st[1]];       \
                        z[i] = CMP(op, A, B);                                                 \
                }                                                                             \
        }

CMP_ROW(row_f32, float)
CMP_ROW(row_i32, int32_t)
CMP_ROW(row_i64, int64_t)
CMP_ROW(row_i16, int16_t)
CMP_ROW(row_i8, int8_t)
CMP_ROW(row_u8, uint8_t)
CMP_ROW(row_bool, bool)

static inline int32_t rescale(const ew_data_t *d, int32_t offset, int32_t v, int32_t mul,
                              int shift) {
        const int32_t shifted = (int32_t) ((uint32_t) (offset + v) << d->left_shift);
        return ku_mul_by_qmul(shifted, mul, shift);
}

#define QCMP_ROW(NAME, T)                                                                     \
        static void NAME(void *arg, size_t oo, const size_t *in, const int64_t *st, size_t n) { \
                cmp_t *c = arg;                                                               \
                const T *x = (const T *) c->a + in[0], *y = (const T *) c->b + in[1];         \
                bool *z = c->o + oo;                                                          \
                const ew_data_t *d = c->d;                                                    \
                const cop_t op = c->op;                                                       \
                for (size_t i = 0; i < n; i++) {                                              \
                        const int32_t A = rescale(d, d->in1_offset, x[(int64_t) i * st[0]],   \
                                                  d->in1_mul, d->in1_shift);                  \
                        const int32_t B = rescale(d, d->in2_offset, y[(int64_t) i * st[1]],   \
                                                  d->in2_mul, d->in2_shift);                  \
                        z[i] = CMP(op, A, B);                                                 \
                }                                                                             \
        }

QCMP_ROW(row_q_i8, int8_t)
QCMP_ROW(row_q_u8, uint8_t)

static int compare_invoke(rt_context_t *ctx, rt_node_t *node, cop_t op) {
        const rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *o = rt_node_output(ctx, node, 0);
        if (!a || !b || !o)
                return rt_ctx_error(ctx, "%s: missing tensor", cop_names[op]);
        if (rt_tensor_count(o) == 0)
                return 0;
        const ew_data_t *d = node->user_data;
        bool q = d && d->rescale;
        cmp_t c = { .op = op, .a = a->data, .b = b->data, .o = o->data, .d = d };
        ew_row_fn row;
        switch (a->type) {
        case RT_TYPE_FLOAT32: row = row_f32; break;
        case RT_TYPE_INT32: row = row_i32; break;
        case RT_TYPE_INT64: row = row_i64; break;
        case RT_TYPE_INT16: row = row_i16; break;
        case RT_TYPE_INT8: row = q ? row_q_i8 : row_i8; break;
        case RT_TYPE_UINT8: row = q ? row_q_u8 : row_u8; break;
        case RT_TYPE_BOOL: row = row_bool; break;
        default: return ew_unsupported(ctx, cop_names[op], a->type, o->type);
        }
        ew_bcast_t bc;
        const rt_tensor_t *ins[2] = { a, b };
        ew_bcast_init(&bc, o, ins, 2);
        ew_bcast_run(&bc, row, &c);
        return 0;
}

#define COMPARE_REG(NAME, OPNAME, CODE, COP)                                                  \
        static int NAME##_prepare(rt_context_t *ctx, rt_node_t *node) {                       \
                return compare_prepare(ctx, node, COP);                                       \
        }                                                                                     \
        static int NAME##_invoke(rt_context_t *ctx, rt_node_t *node) {                        \
                return compare_invoke(ctx, node, COP);                                        \
        }                                                                                     \
        const rt_registration_t rt_kernel_##NAME = {                                          \
                .name = OPNAME,                                                               \
                .op = CODE,                                                                   \
                .init = ew_data_init,                                                         \
                .free = ew_data_free,                                                         \
                .prepare = NAME##_prepare,                                                    \
                .invoke = NAME##_invoke,                                                      \
        };

COMPARE_REG(equal, "EQUAL", EW_OP_EQUAL, C_EQ)
COMPARE_REG(not_equal, "NOT_EQUAL", EW_OP_NOT_EQUAL, C_NE)
COMPARE_REG(less, "LESS", EW_OP_LESS, C_LT)
COMPARE_REG(less_equal, "LESS_EQUAL", EW_OP_LESS_EQUAL, C_LE)
COMPARE_REG(greater, "GREATER", EW_OP_GREATER, C_GT)
COMPARE_REG(greater_equal, "GREATER_EQUAL", EW_OP_GREATER_EQUAL, C_GE)
