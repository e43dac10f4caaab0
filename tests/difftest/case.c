/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"

uint64_t dt_next(dt_rng_t *r) {
        /* splitmix64: every seed, including 0, gives a full-period stream. */
        uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

int64_t dt_int(dt_rng_t *r, int64_t lo, int64_t hi) {
        if (hi <= lo)
                return lo;
        uint64_t span = (uint64_t) (hi - lo) + 1;
        return lo + (int64_t) (span ? dt_next(r) % span : dt_next(r));
}

double dt_unit(dt_rng_t *r) {
        return (double) (dt_next(r) >> 11) / 9007199254740992.0;
}

bool dt_chance(dt_rng_t *r, double p) {
        return dt_unit(r) < p;
}

void dt_desc(dt_case_t *c, const char *fmt, ...) {
        if (c->desc_len + 2 >= sizeof(c->desc))
                return;
        if (c->desc_len)
                c->desc[c->desc_len++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int w = vsnprintf(c->desc + c->desc_len, sizeof(c->desc) - c->desc_len, fmt, ap);
        va_end(ap);
        if (w > 0)
                c->desc_len += (size_t) w;
        if (c->desc_len >= sizeof(c->desc))
                c->desc_len = sizeof(c->desc) - 1;
}

size_t dt_type_size(rt_type_t t) {
        switch (t) {
        case RT_TYPE_INT8:
        case RT_TYPE_UINT8:
        case RT_TYPE_BOOL:
                return 1;
        case RT_TYPE_INT16:
        case RT_TYPE_FLOAT16:
                return 2;
        case RT_TYPE_INT64:
                return 8;
        default:
                return 4;
        }
}

const char *dt_type_name(rt_type_t t) {
        switch (t) {
        case RT_TYPE_FLOAT32:
                return "float32";
        case RT_TYPE_INT8:
                return "int8";
        case RT_TYPE_UINT8:
                return "uint8";
        case RT_TYPE_INT16:
                return "int16";
        case RT_TYPE_INT32:
                return "int32";
        case RT_TYPE_INT64:
                return "int64";
        case RT_TYPE_BOOL:
                return "bool";
        default:
                return "other";
        }
}

int64_t dt_type_min(rt_type_t t) {
        switch (t) {
        case RT_TYPE_INT8:
                return INT8_MIN;
        case RT_TYPE_UINT8:
        case RT_TYPE_BOOL:
                return 0;
        case RT_TYPE_INT16:
                return INT16_MIN;
        case RT_TYPE_INT64:
                return INT64_MIN;
        default:
                return INT32_MIN;
        }
}

int64_t dt_type_max(rt_type_t t) {
        switch (t) {
        case RT_TYPE_INT8:
                return INT8_MAX;
        case RT_TYPE_UINT8:
                return UINT8_MAX;
        case RT_TYPE_BOOL:
                return 1;
        case RT_TYPE_INT16:
                return INT16_MAX;
        case RT_TYPE_INT64:
                return INT64_MAX;
        default:
                return INT32_MAX;
        }
}

int64_t dt_count(int32_t rank, const int32_t *shape) {
        int64_t n = 1;
        for (int32_t i = 0; i < rank; i++)
                n *= shape[i];
        return n;
}

float dt_scale(dt_rng_t *r, double lo, double hi) {
        return (float) exp(log(lo) + dt_unit(r) * (log(hi) - log(lo)));
}

int32_t dt_zero_point(dt_rng_t *r, rt_type_t t) {
        if (t == RT_TYPE_INT16)
                return 0;
        return (int32_t) dt_int(r, dt_type_min(t), dt_type_max(t));
}

static float float_edge(dt_rng_t *r) {
        static const float edges[] = { 0.0f, -0.0f, 1.0f, -1.0f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN,
                                       1e30f, -1e30f, 1e-30f, -1e-30f, FLT_MIN, 88.8f, -88.8f };
        return edges[dt_int(r, 0, sizeof(edges) / sizeof(edges[0]) - 1)];
}

void dt_fill_data(dt_rng_t *r, rt_type_t type, void *data, int64_t count, const dt_fill_t *fill, bool edges,
                  int32_t zp) {
        dt_fill_t def = { .lo = -1, .hi = 1 };
        if (!fill)
                fill = &def;
        for (int64_t i = 0; i < count; i++) {
                bool edge = edges && dt_chance(r, 0.12);
                switch (type) {
                case RT_TYPE_FLOAT32: {
                        float v = (float) (fill->lo + dt_unit(r) * (fill->hi - fill->lo));
                        if (edge)
                                v = float_edge(r);
                        if (fill->positive && !(v > 0))
                                v = edge ? FLT_MIN : 0.5f;
                        if (fill->finite_max > 0 && !(fabsf(v) <= fill->finite_max))
                                v = (float) (signbit(v) ? -fill->finite_max : fill->finite_max);
                        ((float *) data)[i] = v;
                        break;
                }
                case RT_TYPE_BOOL:
                        ((uint8_t *) data)[i] = (uint8_t) dt_int(r, 0, 1);
                        break;
                case RT_TYPE_INT32:
                case RT_TYPE_INT64: {
                        int64_t lo = fill->ilo < fill->ihi ? fill->ilo : -1000;
                        int64_t hi = fill->ilo < fill->ihi ? fill->ihi : 1000;
                        int64_t v = dt_int(r, lo, hi);
                        if (edge && !(fill->ilo < fill->ihi))
                                v = DT_PICK(r, 0, dt_type_min(type), dt_type_max(type), -1, 1);
                        if (type == RT_TYPE_INT32)
                                ((int32_t *) data)[i] = (int32_t) v;
                        else
                                ((int64_t *) data)[i] = v;
                        break;
                }
                default: {
                        int64_t lo = dt_type_min(type), hi = dt_type_max(type);
                        int64_t v = dt_int(r, lo, hi);
                        if (edge)
                                v = DT_PICK(r, lo, hi, zp, 0);
                        if (v < lo)
                                v = lo;
                        if (v > hi)
                                v = hi;
                        if (type == RT_TYPE_INT8)
                                ((int8_t *) data)[i] = (int8_t) v;
                        else if (type == RT_TYPE_UINT8)
                                ((uint8_t *) data)[i] = (uint8_t) v;
                        else
                                ((int16_t *) data)[i] = (int16_t) v;
                }
                }
        }
}

static int32_t tensor_add(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp,
                          uint32_t buffer) {
        int64_t zp64 = zp;
        return tfb_tensor_add(c->b, &(tfb_tensor_t) {
                .type = type,
                .rank = rank,
                .shape = shape,
                .buffer = buffer,
                .n_quant = scale > 0 ? 1 : 0,
                .scale = &scale,
                .zero_point = &zp64,
        });
}

static void io_set(dt_io_t *io, int32_t t, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp) {
        *io = (dt_io_t) { .tensor = t, .type = type, .rank = rank, .scale = scale, .zero_point = zp };
        if (rank > 0)
                memcpy(io->shape, shape, sizeof(int32_t) * (size_t) rank);
}

int32_t dt_input(dt_case_t *c, dt_rng_t *r, rt_type_t type, int32_t rank, const int32_t *shape, float scale,
                 int32_t zp, const dt_fill_t *fill) {
        if (c->n_in >= DT_MAX_IO)
                return -E2BIG;
        int32_t t = tensor_add(c, type, rank, shape, scale, zp, 0);
        if (t < 0)
                return t;
        dt_io_t *io = &c->in[c->n_in++];
        io_set(io, t, type, rank, shape, scale, zp);
        int64_t n = dt_count(rank, shape);
        io->bytes = (size_t) n * dt_type_size(type);
        io->data = calloc(1, io->bytes ? io->bytes : 1);
        if (!io->data)
                return -ENOMEM;
        dt_fill_data(r, type, io->data, n, fill, c->edges, zp);
        return t;
}

int32_t dt_output(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp) {
        if (c->n_out >= DT_MAX_IO)
                return -E2BIG;
        int32_t t = tensor_add(c, type, rank, shape, scale, zp, 0);
        if (t < 0)
                return t;
        io_set(&c->out[c->n_out++], t, type, rank, shape, scale, zp);
        return t;
}

int32_t dt_tensor(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp) {
        return tensor_add(c, type, rank, shape, scale, zp, 0);
}

int32_t dt_const_data(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, const void *data,
                      float scale, int32_t zp) {
        size_t bytes = (size_t) dt_count(rank, shape) * dt_type_size(type);
        int32_t buf = tfb_buffer_add(c->b, data, bytes);
        if (buf < 0)
                return buf;
        return tensor_add(c, type, rank, shape, scale, zp, (uint32_t) buf);
}

int32_t dt_const(dt_case_t *c, dt_rng_t *r, rt_type_t type, int32_t rank, const int32_t *shape, float scale,
                 int32_t zp, const dt_fill_t *fill) {
        int64_t n = dt_count(rank, shape);
        void *data = calloc(1, (size_t) n * dt_type_size(type) + 1);
        if (!data)
                return -ENOMEM;
        dt_fill_data(r, type, data, n, fill, false, zp);
        int32_t t = dt_const_data(c, type, rank, shape, data, scale, zp);
        free(data);
        return t;
}

int32_t dt_const_channels(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, const void *data,
                          const float *scales, const int64_t *zps, int32_t n, int32_t axis) {
        size_t bytes = (size_t) dt_count(rank, shape) * dt_type_size(type);
        int32_t buf = tfb_buffer_add(c->b, data, bytes);
        if (buf < 0)
                return buf;
        return tfb_tensor_add(c->b, &(tfb_tensor_t) {
                .type = type,
                .rank = rank,
                .shape = shape,
                .buffer = (uint32_t) buf,
                .n_quant = (size_t) n,
                .scale = scales,
                .zero_point = zps,
                .quantized_dimension = axis,
        });
}

static int32_t op_add(dt_case_t *c, int32_t oc, const int32_t *in, int32_t n_in, const int32_t *out, int32_t n_out,
                      uint8_t options_type, const tfb_option_t *opts, size_t n_opts, const uint8_t *custom,
                      size_t custom_size) {
        if (oc < 0)
                return oc;
        return tfb_op_add(c->b, &(tfb_op_t) {
                .opcode = oc,
                .inputs = in,
                .n_inputs = n_in,
                .outputs = out,
                .n_outputs = n_out,
                .options_type = options_type,
                .options = opts,
                .n_options = n_opts,
                .custom_options = custom,
                .custom_options_size = custom_size,
        });
}

int32_t dt_op(dt_case_t *c, int32_t code, int32_t version, const int32_t *in, int32_t n_in, const int32_t *out,
              int32_t n_out, uint8_t options_type, const tfb_option_t *opts, size_t n_opts) {
        return op_add(c, tfb_opcode_builtin(c->b, code, version), in, n_in, out, n_out, options_type, opts, n_opts,
                      NULL, 0);
}

int32_t dt_op_custom(dt_case_t *c, const char *name, const int32_t *in, int32_t n_in, const int32_t *out,
                     int32_t n_out, const uint8_t *options, size_t options_size) {
        return op_add(c, tfb_opcode_custom(c->b, name, 1), in, n_in, out, n_out, 0, NULL, 0, options, options_size);
}

int32_t dt_act(dt_rng_t *r) {
        double u = dt_unit(r);
        if (u < 0.45)
                return RT_ACT_NONE;
        if (u < 0.65)
                return RT_ACT_RELU;
        if (u < 0.8)
                return RT_ACT_RELU6;
        if (u < 0.92)
                return RT_ACT_RELU_N1_TO_1;
        return u < 0.97 ? RT_ACT_TANH : RT_ACT_SIGN_BIT;
}

const char *dt_act_name(int32_t act) {
        static const char *const names[] = { "NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT" };
        return act >= 0 && act < 6 ? names[act] : "?";
}

void dt_chain_draw(dt_case_t *c, dt_rng_t *r, rt_type_t type) {
        c->chain = dt_is_quant_type(type) && type != RT_TYPE_INT16 && dt_chance(r, 0.3);
        c->type_name = c->chain ? (type == RT_TYPE_INT8 ? "int8 (Q/DQ chain)" : "uint8 (Q/DQ chain)")
                                : dt_type_name(type);
}

int32_t dt_qin(dt_case_t *c, dt_rng_t *r, rt_type_t type, int32_t rank, const int32_t *shape, float scale,
               int32_t zp, const dt_fill_t *fill) {
        if (!c->chain || !dt_is_quant_type(type))
                return dt_input(c, r, type, rank, shape, scale, zp, fill);
        /* The real range of the quantized type, a little beyond to saturate. */
        dt_fill_t f = { .lo = scale * ((double) dt_type_min(type) - zp) * 1.1,
                        .positive = fill && fill->positive,
                        .hi = scale * ((double) dt_type_max(type) - zp) * 1.1,
                        .finite_max = scale * 1e9 };
        int32_t fin = dt_input(c, r, RT_TYPE_FLOAT32, rank, shape, 0, 0, &f);
        int32_t q = dt_tensor(c, type, rank, shape, scale, zp);
        if (fin < 0 || q < 0)
                return fin < 0 ? fin : q;
        int32_t rr = dt_op(c, RT_BUILTIN_QUANTIZE, 1, TFB_IDS(fin), 1, TFB_IDS(q), 1, 0, NULL, 0);
        return rr < 0 ? rr : q;
}

int32_t dt_qout(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp) {
        if (!c->chain || !dt_is_quant_type(type))
                return dt_output(c, type, rank, shape, scale, zp);
        int32_t q = dt_tensor(c, type, rank, shape, scale, zp);
        int32_t fout = dt_output(c, RT_TYPE_FLOAT32, rank, shape, 0, 0);
        if (fout < 0 || q < 0)
                return fout < 0 ? fout : q;
        c->out_step[c->n_out - 1] = scale;
        c->dq[c->n_dq][0] = q;
        c->dq[c->n_dq++][1] = fout;
        return q;
}

bool dt_name_listed(const char *list, const char *name) {
        size_t n = strlen(name);

        for (const char *p = list; p && *p;) {
                const char *e = strchr(p, ',');
                size_t len = e ? (size_t) (e - p) : strlen(p);
                if (len == n && strncmp(p, name, len) == 0)
                        return true;
                p = e ? e + 1 : NULL;
        }
        return false;
}

uint64_t dt_seed_base(void) {
        const char *base = getenv("ACCELD_DIFFTEST_SEED");

        return base && *base ? strtoull(base, NULL, 0) : 0;
}
