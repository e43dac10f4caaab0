/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/* Shared between the XNNPACK driver's files (runtime-internal). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "driver.h"

/* The driver's calibrate hook (calibrate.c): time one float32 workload on
 * XNNPACK and in plain C, report the ratio. 0, -ENODEV or -ENOMEM. */
int rt__xnn_calibrate(const rt_driver_t *d, rt_driver_caps_t *ret);

/* A pool of `threads` threads shared by every group of `owner` (the
 * interpreter's tensor array), created on first use; NULL when out of
 * memory. Each acquire is paired with one release; the last release
 * destroys the pool. Thread-safe. (pool.c) */
pthreadpool_t rt__xnn_pool_acquire(const void *owner, size_t threads);
void rt__xnn_pool_release(pthreadpool_t pool);
/* Around a group's execution on `pool` (NULL: one thread). The workers of
 * a pool spin between its groups and invokes; entering puts the pool that
 * ran last to rest when it is another one and idle, so that its spinning
 * workers leave the CPUs to this execution. */
void rt__xnn_pool_enter(pthreadpool_t pool);
void rt__xnn_pool_leave(pthreadpool_t pool);
/* How often `pool` was put to rest, by another pool's group or after
 * lingering idle (tests). */
uint64_t rt__xnn_pool_rests(pthreadpool_t pool);
/* How long an idle pool's workers spin before they are put to rest
 * (default 2 ms; 0: the pool's own spin bound, 4 ms). For tests. */
void rt__xnn_pool_set_linger_ns(uint64_t ns);

/* The group's preconditions (dataflow.c): every boundary and node tensor
 * in range with a shape of dimensions >= 1, constants with all their data,
 * every value read inside written earlier in the group or handed in, and
 * written once. ret_skip[k] (one per group node) marks the dead nodes,
 * whose outputs are neither read later nor handed out: they are not
 * translated. 0, or -ENOTSUP with the reason in err (prefixed "XNNPACK: "
 * for a probe) and the node it is about in *ret_node (-1 for the group's
 * own; ret_node may be NULL), or -ENOMEM. */
int rt__xnn_check_dataflow(const rt_driver_graph_t *g, const rt_driver_group_t *grp, bool probe, char *err,
                           size_t err_size, int32_t *ret_node, bool *ret_skip);

/* Support probes (probe-shapes.c): give node n's outputs, in `view` (a
 * copy of g->tensors), the shapes its reference kernel infers from its
 * inputs, as delegation does before a real compilation. 0, -ENOTSUP (the
 * kernel refuses the shapes, or the output is dynamic; reason in err) or
 * -ENOMEM. rt__xnn_probe_restore() puts the outputs back as g has them. */
int rt__xnn_probe_shapes(const rt_driver_graph_t *g, const rt_node_t *n, rt_tensor_t *view, char *err,
                         size_t err_size);
void rt__xnn_probe_restore(const rt_driver_graph_t *g, const rt_node_t *n, rt_tensor_t *view);

/* ---- translation of TFLite nodes into one XNNPACK subgraph ---- */

/* The state of one translation: the subgraph being defined and the XNNPACK
 * value of each graph tensor defined so far. */
typedef struct rt__xnn_ctx {
        const rt_driver_graph_t *g;
        xnn_subgraph_t sg;
        uint32_t *ids;          /* per graph tensor; XNN_INVALID_VALUE_ID = not yet defined */
        uint32_t *fold_ids;     /* per graph tensor: the static value of a folded constant */
        const float **folded;   /* per tensor: float32 data of a folded constant, or NULL */
        void ***owned;          /* buffers to free with the prepared group */
        size_t *n_owned;
        char *why;              /* where a refusal's reason goes (may be NULL) */
        size_t why_size;
} rt__xnn_ctx_t;

/* Translates node n into x->sg: 0, -ENOTSUP with the reason in x->why, or
 * -ENOMEM. The shared checks run here, then the op's entry of the
 * translation table (translate.c). */
int rt__xnn_define_node(rt__xnn_ctx_t *x, const rt_node_t *n);
/* Whether ACCELD_XNNPACK_DISABLE_OPS keeps builtin code `op` off the
 * driver (translate.c). */
bool rt__xnn_op_disabled(int32_t op);

/* Shared by the op translations (value.c). */

/* Writes "XNNPACK: <reason>" to x->why; always returns -ENOTSUP. */
__attribute__((format(printf, 2, 3)))
int rt__xnn_refuse(rt__xnn_ctx_t *x, const char *fmt, ...);
/* A zeroed buffer freed with the prepared group; NULL when out of memory. */
void *rt__xnn_own(rt__xnn_ctx_t *x, size_t bytes);
/* Graph tensor i, or NULL when i is out of range. */
const rt_tensor_t *rt__xnn_tensor(rt__xnn_ctx_t *x, int32_t i);
/* Whether tensor i is constant data (in the model or folded). */
bool rt__xnn_is_static(rt__xnn_ctx_t *x, int32_t i);
/* Defines tensor i as a value (once; constants as static data) and returns
 * its id in *ret. */
int rt__xnn_value(rt__xnn_ctx_t *x, int32_t i, uint32_t *ret);
/* The output clamp of a fused activation, or a refusal. */
/* TFLite's SAME padding of one spatial dimension (input in, kernel k,
 * stride s, dilation d) as explicit before/after padding. Debian's XNNPACK
 * (Feb 2022) computes XNN_FLAG_TENSORFLOW_SAME_PADDING in unsigned
 * arithmetic and wraps when the windows need no padding at all (e.g. a
 * stride larger than the kernel), so the driver never uses that flag. */
void rt__xnn_same_padding(int32_t in, int32_t k, int32_t s, int32_t d, uint32_t *ret_before, uint32_t *ret_after);
int rt__xnn_act_range(rt__xnn_ctx_t *x, int act, float *lo, float *hi);
/* The same for ops whose float output cannot leave its inputs' range (the
 * pools): NONE and RELU leave the upper end at inf, so XNNPACK runs the
 * kernels TensorFlow Lite's XNNPACK delegate runs and a NaN input stays NaN
 * there; the clamp at FLT_MAX only matters for an overflow these ops
 * cannot produce. */
int rt__xnn_act_range_bounded(rt__xnn_ctx_t *x, int act, float *lo, float *hi);
/* rt__xnn_act_range()'s ranges without a translation context: false for a fused
 * activation XNNPACK cannot clamp to (TANH, SIGN_BIT, unknown). */
bool rt__xnn_act_bounds(int act, float *lo, float *hi);
/* The clamp a RELU, RELU6 or RELU_N1_TO_1 op is given as; false for
 * another op. */
bool rt__xnn_relu_bounds(int32_t op, float *lo, float *hi);
/* Refuses tensor types other than float32, int8 and uint8. */
int rt__xnn_want_float_or_q(rt__xnn_ctx_t *x, int32_t i);
/* 0 on success, else a refusal naming `what` and the status. */
int rt__xnn_check(rt__xnn_ctx_t *x, enum xnn_status st, const char *what);
/* A zero bias of `channels` for convolutions without one. */
int rt__xnn_zero_bias(rt__xnn_ctx_t *x, const rt_tensor_t *in, const rt_tensor_t *filter, int32_t channels,
                      uint32_t *ret);

/* Float16 constants behind a DEQUANTIZE (quantize.c). */
bool rt__xnn_is_fp16_dequantize(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_fold_dequantize(rt__xnn_ctx_t *x, const rt_node_t *n);

/* One translation per op family, each in its own file; n->op is one of the
 * codes the table maps to it. */
typedef int (*rt__xnn_define_fn)(rt__xnn_ctx_t *x, const rt_node_t *n);

int rt__xnn_define_convolution(rt__xnn_ctx_t *x, const rt_node_t *n);     /* convolution.c */
int rt__xnn_define_deconvolution(rt__xnn_ctx_t *x, const rt_node_t *n);   /* deconvolution.c */
int rt__xnn_define_fully_connected(rt__xnn_ctx_t *x, const rt_node_t *n); /* fully-connected.c */
int rt__xnn_define_binary(rt__xnn_ctx_t *x, const rt_node_t *n);          /* binary.c */
int rt__xnn_define_relu(rt__xnn_ctx_t *x, const rt_node_t *n);            /* unary.c */
int rt__xnn_define_leaky_relu(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_prelu(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_softmax(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_unary(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_pooling(rt__xnn_ctx_t *x, const rt_node_t *n);         /* pooling.c */
int rt__xnn_define_mean(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_reshape(rt__xnn_ctx_t *x, const rt_node_t *n);         /* shape.c */
int rt__xnn_define_pad(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_resize_bilinear(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_depth_to_space(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_concatenation(rt__xnn_ctx_t *x, const rt_node_t *n);
int rt__xnn_define_dequantize(rt__xnn_ctx_t *x, const rt_node_t *n);      /* quantize.c */
int rt__xnn_define_quantize(rt__xnn_ctx_t *x, const rt_node_t *n);

/* ---- steps the driver runs itself, inside a group (native.c) ---- */

typedef struct rt__xnn_native rt__xnn_native_t;

/* Whether the driver runs node n itself instead of translating it:
 * MIRROR_PAD, RESIZE_NEAREST_NEIGHBOR (float32, int8), RSQRT (float32),
 * float MEAN over H and W that XNNPACK cannot compute exactly, and
 * CONCATENATION that only copies (float32 without an activation, int8 and
 * uint8 without requantization), which this XNNPACK has no node for; and
 * float32 PAD/PADV2 of +0.0f on the innermost dimension only, which it
 * runs slower (one pad call per row). */
bool rt__xnn_native_wants(const rt_driver_graph_t *g, const rt_node_t *n);
/* The step for node n (static shapes, constant parameters): 0, -ENOTSUP
 * with the reason in err, or -ENOMEM. */
int rt__xnn_native_prepare(const rt_driver_graph_t *g, const rt_node_t *n, rt__xnn_native_t **ret, char *err,
                           size_t err_size);
void rt__xnn_native_free(rt__xnn_native_t *s);
/* The graph tensors the step reads at run time (input k of
 * rt__xnn_native_n_inputs(); a CONCATENATION's every input, the others'
 * first) and the one it writes. */
int32_t rt__xnn_native_n_inputs(const rt__xnn_native_t *s);
int32_t rt__xnn_native_input(const rt__xnn_native_t *s, int32_t k);
int32_t rt__xnn_native_output(const rt__xnn_native_t *s);
/* The input (k of rt__xnn_native_input()) whose buffer the output may
 * share, element i written after element i is read; -1 for none. */
int32_t rt__xnn_native_in_place(const rt__xnn_native_t *s);
/* The step for the group's consecutive nodes `nodes` (n_nodes of them):
 * one node as rt__xnn_native_prepare() takes it, or a residual step
 * (rt__xnn_residual_span()). */
int rt__xnn_native_prepare_span(const rt_driver_graph_t *g, const int32_t *nodes, int32_t n_nodes,
                                rt__xnn_native_t **ret, char *err, size_t err_size);
/* Runs the step from srcs (one per input) into dst on `pool` (NULL: the
 * calling thread), bit-identical to the reference kernel; `yield` lets the
 * workers sleep afterwards (the group's last step). */
void rt__xnn_native_run(rt__xnn_native_t *s, pthreadpool_t pool, const void *const *srcs, void *dst,
                        bool yield);

/* ---- the residual step: [PAD ->] ADD [-> activation] (residual.c) ---- */

typedef struct rt__xnn_residual rt__xnn_residual_t;

/* How many of the group's nodes, from position k, one residual step
 * runs: a float32 ADD of two tensors of the output's shape, with the PAD
 * of zeros on the innermost dim at k before it if that pad feeds it alone,
 * and/or the RELU, RELU6, RELU_N1_TO_1 or per-channel PRELU after it if
 * that reads it alone (never a lone ADD); 0 when node k starts no such
 * step, or with
 * ACCELD_XNNPACK_UNFUSED=1 (each node as before: XNNPACK's ADD, the
 * driver's PAD step). */
int32_t rt__xnn_residual_span(const rt_driver_graph_t *g, const rt_driver_group_t *grp, const rt_settings_t *st,
                              int32_t k);
int rt__xnn_residual_prepare(const rt_driver_graph_t *g, const int32_t *nodes, int32_t n_nodes,
                             rt__xnn_residual_t **ret, char *err, size_t err_size);
void rt__xnn_residual_free(rt__xnn_residual_t *s);
/* Input 0: the ADD's input of the output's shape; 1: the other, or the
 * pad's input. */
int32_t rt__xnn_residual_input(const rt__xnn_residual_t *s, int32_t k);
int32_t rt__xnn_residual_output(const rt__xnn_residual_t *s);
/* rt__xnn_native_in_place() of the step: 0, or -1 with a conv. */
int32_t rt__xnn_residual_in_place(const rt__xnn_residual_t *s);
void rt__xnn_residual_run(rt__xnn_residual_t *s, pthreadpool_t pool, const void *const *srcs, void *dst,
                          uint32_t flags);
