/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The differential tester's cases: one small model (a single op, or a
 * short chain such as QUANTIZE -> op -> DEQUANTIZE) built with
 * tflite-builder, its input bytes and what is known about its outputs, all
 * derived from one 64-bit seed, so "difftest --op ADD --case 0x1234" rebuilds
 * exactly the same case.
 *
 * A generator gets a fresh case and a seeded generator, adds tensors and
 * ops through the helpers below and returns 0, or -ENOTSUP for a drawn
 * combination it does not build (counted as skipped).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tflite-builder.h"

#define DT_MAX_IO 6

typedef struct dt_rng {
        uint64_t s;
} dt_rng_t;

uint64_t dt_next(dt_rng_t *r);
/* Uniform integer in [lo, hi]. */
int64_t dt_int(dt_rng_t *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double dt_unit(dt_rng_t *r);
/* true with probability p. */
bool dt_chance(dt_rng_t *r, double p);
/* One of n values. */
#define DT_PICK(r, ...) \
        (((const int64_t[]) { __VA_ARGS__ })[dt_int((r), 0, \
                (int64_t) (sizeof((const int64_t[]) { __VA_ARGS__ }) / sizeof(int64_t)) - 1)])

typedef struct dt_io {
        int32_t tensor;          /* index in the model */
        rt_type_t type;
        int32_t rank;
        int32_t shape[6];
        float scale;             /* quantized: per-tensor scale, else 0 */
        int32_t zero_point;
        void *data;              /* inputs: the bytes fed to every runtime */
        size_t bytes;
} dt_io_t;

/* How inputs are drawn. */
typedef struct dt_fill {
        double lo, hi;           /* float range (quantized: real range is unused, ints span the type) */
        bool positive;           /* float: keep values > 0 (LOG, RSQRT, SQRT) */
        bool edges;              /* mix in 0, type min/max, inf/NaN/huge for float */
        int64_t ilo, ihi;        /* int32/int64 range when ilo < ihi */
        /* Float: > 0 keeps |values| <= finite_max (NaN and infinities become
         * +-finite_max), for inputs TFLite converts to integers without a
         * range check (QUANTIZE: out-of-int32 values are undefined there). */
        double finite_max;
} dt_fill_t;

typedef struct dt_case {
        uint64_t seed;
        const char *op;          /* generator name */
        char desc[320];          /* parameters drawn, for the reproducer line */
        size_t desc_len;
        tfb_t *b;
        dt_io_t in[DT_MAX_IO];
        int n_in;
        dt_io_t out[DT_MAX_IO];
        int n_out;
        bool edges;              /* this case mixes edge values into its inputs */
        /* Float tolerance: terms accumulated per output (sums, dot products);
         * 1 for elementwise ops. */
        int32_t accum;
        /* A float output that is a DEQUANTIZE of a quantized value: its step. */
        float out_step[DT_MAX_IO];
        /* XNNPACK rule only, when larger than out_step: the coarsest step of
         * the quantized tensors whose rounding reaches that output unscaled
         * (a chain of quantized ops; docs/conformance.md). */
        float accel_step[DT_MAX_IO];
        const char *type_name;   /* the type column of the conformance matrix */
        /* Quantized cases as QUANTIZE -> op -> DEQUANTIZE: float graph inputs
         * and outputs around the quantized op (dt_qin / dt_qout). */
        bool chain;
        int32_t dq[DT_MAX_IO][2]; /* pending DEQUANTIZE ops (from, to), added last */
        int n_dq;
        /* Outputs whose valid part is counted by another output (TFLite
         * leaves the rest unwritten: detection post-processing): when
         * counted_by[o] is k + 1, only the first count * counted_row[o]
         * elements of output o are compared, count being TFLite's float
         * output k[0]. */
        int8_t counted_by[DT_MAX_IO];
        int32_t counted_row[DT_MAX_IO];
} dt_case_t;

/* Append "key=value" text to c->desc. */
void dt_desc(dt_case_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

size_t dt_type_size(rt_type_t t);
const char *dt_type_name(rt_type_t t);
int64_t dt_type_min(rt_type_t t);
int64_t dt_type_max(rt_type_t t);
static inline bool dt_is_quant_type(rt_type_t t) {
        return t == RT_TYPE_INT8 || t == RT_TYPE_UINT8 || t == RT_TYPE_INT16;
}
int64_t dt_count(int32_t rank, const int32_t *shape);

/* Whether `name` is one of the comma-separated `list` (false for NULL). */
bool dt_name_listed(const char *list, const char *name);
/* $ACCELD_DIFFTEST_SEED, or 0 when unset: added to --seed by difftest and
 * modelfuzz (CI sets it from the commit). */
uint64_t dt_seed_base(void);

/* A random scale, log-uniform in [lo, hi]. */
float dt_scale(dt_rng_t *r, double lo, double hi);
/* A random zero point for type t (int16: 0, as TFLite's int16 kernels require). */
int32_t dt_zero_point(dt_rng_t *r, rt_type_t t);

/* A graph input: tensor added, registered as model input, data drawn. */
int32_t dt_input(dt_case_t *c, dt_rng_t *r, rt_type_t type, int32_t rank, const int32_t *shape, float scale,
                 int32_t zp, const dt_fill_t *fill);
/* A graph output (shape as TFLite would compute it). */
int32_t dt_output(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp);
/* An intermediate tensor. */
int32_t dt_tensor(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp);
/* A constant tensor with random data (per-tensor quantization when scale > 0). */
int32_t dt_const(dt_case_t *c, dt_rng_t *r, rt_type_t type, int32_t rank, const int32_t *shape, float scale,
                 int32_t zp, const dt_fill_t *fill);
/* A constant with the given bytes. */
int32_t dt_const_data(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, const void *data,
                      float scale, int32_t zp);
/* A constant with per-channel quantization along `axis`. */
int32_t dt_const_channels(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, const void *data,
                          const float *scales, const int64_t *zps, int32_t n, int32_t axis);
/* Fill a buffer of `count` elements of `type`. */
void dt_fill_data(dt_rng_t *r, rt_type_t type, void *data, int64_t count, const dt_fill_t *fill, bool edges,
                  int32_t zp);
/* One op. */
int32_t dt_op(dt_case_t *c, int32_t code, int32_t version, const int32_t *in, int32_t n_in, const int32_t *out,
              int32_t n_out, uint8_t options_type, const tfb_option_t *opts, size_t n_opts);

/* One custom op (version 1) with its custom_options bytes (copied). */
int32_t dt_op_custom(dt_case_t *c, const char *name, const int32_t *in, int32_t n_in, const int32_t *out,
                     int32_t n_out, const uint8_t *options, size_t options_size);

/* An op input of quantized (or any) type: a graph input, or with c->chain
 * and a quantized type a float graph input through QUANTIZE. */
int32_t dt_qin(dt_case_t *c, dt_rng_t *r, rt_type_t type, int32_t rank, const int32_t *shape, float scale,
               int32_t zp, const dt_fill_t *fill);
/* An op output: a graph output, or with c->chain and a quantized type an
 * intermediate tensor DEQUANTIZEd to a float graph output. */
int32_t dt_qout(dt_case_t *c, rt_type_t type, int32_t rank, const int32_t *shape, float scale, int32_t zp);
/* Draw c->chain for a quantized type (and name the matrix row). */
void dt_chain_draw(dt_case_t *c, dt_rng_t *r, rt_type_t type);

/* A random activation for kernels that take one (0..5, NONE most often). */
int32_t dt_act(dt_rng_t *r);
const char *dt_act_name(int32_t act);

/* ---- running a case (run.c) ---- */

typedef struct dt_native dt_native_t;

/* Who runs a case: native TensorFlow Lite (native set; xnnpack: with its
 * own XNNPACK delegate) or our runtime (native NULL; xnnpack: the XNNPACK
 * driver, else the reference kernels). */
typedef struct dt_runner {
        dt_native_t *native;
        bool xnnpack;
} dt_runner_t;

/* Run `model` on our runtime in this process, c's inputs copied in.
 * Returns 0 and malloc'ed copies of c->n_out outputs, or -errno with err. */
int dt_ours_run(const uint8_t *model, size_t size, const dt_case_t *c, bool xnnpack, void **outs,
                size_t *out_sizes, char *err, size_t err_size);
/* Run `model` on rn in a child process, so that an abort (an assertion in
 * XNNPACK, a crash of TensorFlow Lite) is reported instead of ending the
 * run: 0 and malloc'ed outputs, -EFAULT when the child died (signal in
 * err), or the runner's -errno. */
int dt_isolated_run(const dt_runner_t *rn, const uint8_t *model, size_t size, const dt_case_t *c, void **outs,
                    size_t *out_sizes, char *err, size_t err_size);

/* ---- the comparison rule (rule.c; docs/conformance.md, "Rules") ---- */

/* How many bytes of output o are defined in TFLite's answer `want`: all of
 * them, or the rows counted by another output (dt_case_t.counted_by). */
size_t dt_output_defined(const dt_case_t *c, int o, void *const *want, const size_t *want_sizes);
/* Compare output o of case c (ours `got`, TFLite's `want`, of which
 * `defined` bytes count); true when within the rule of `driver` (0
 * reference, 1 XNNPACK). Describes the worst element in msg. */
bool dt_output_check(const dt_case_t *c, int o, int driver, const void *got, size_t got_size, const void *want,
                     size_t want_size, size_t defined, char *msg, size_t msg_size);
/* XNNPACK output elements that are a clamp bound where TFLite has NaN
 * (passed and counted by dt_output_check). */
extern uint64_t dt_xnn_nan_clamped;

/* A generator. */
typedef struct dt_gen {
        const char *name;
        int (*fn)(dt_case_t *c, dt_rng_t *r);
        int weight;              /* relative share of the cases */
} dt_gen_t;

extern const dt_gen_t dt_gens_ew[];
extern const size_t dt_gens_ew_n;
extern const dt_gen_t dt_gens_conv[];
extern const size_t dt_gens_conv_n;
extern const dt_gen_t dt_gens_shape[];
extern const size_t dt_gens_shape_n;
extern const dt_gen_t dt_gens_more[];
extern const size_t dt_gens_more_n;
extern const dt_gen_t dt_gens_layout[];
extern const size_t dt_gens_layout_n;
extern const dt_gen_t dt_gens_chain[];
extern const size_t dt_gens_chain_n;
extern const dt_gen_t dt_gens_seq[];
extern const size_t dt_gens_seq_n;
extern const dt_gen_t dt_gens_misc[];
extern const size_t dt_gens_misc_n;
