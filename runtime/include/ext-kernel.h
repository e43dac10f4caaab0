/* SPDX-License-Identifier: Apache-2.0 */
/*
 * External kernels: an op implemented by the program that embeds the
 * runtime, run by the runtime in the program's process like any other
 * node of the graph (the rest of the graph stays on the reference kernels
 * or a delegate as usual). The TensorFlow Lite C API library
 * (client/tflite-c/) uses it for the kernels an application registers
 * (TfLiteInterpreterOptionsAddCustomOp, SetOpResolver) and adapts its
 * TfLiteContext / TfLiteNode to the calls below.
 *
 *   static int my_invoke(void *user, rt_ext_ctx_t *ctx, const rt_node_t *node, void *data) {
 *           int32_t n;
 *           rt_tensor_t *t = rt_ext_ctx_tensors(ctx, &n);
 *           const float *in = t[node->inputs[0]].data;
 *           ...
 *   }
 *   static const rt_ext_kernel_t k = { .invoke = my_invoke };
 *   rt_interp_options_add_ext_kernel(o, RT_OP_CUSTOM, "MyOp", &k, 1, 1);
 *
 * The kernel sees the runtime's own tensors (rt_tensor_t, <accel/driver.h>)
 * by index, and the node as the graph holds it (inputs, outputs,
 * intermediates, custom_options untouched from the model). Shapes: a
 * prepare that does not resize an output leaves the model's shape; a
 * prepare may resize outputs (rt_ext_ctx_resize()) or mark them dynamic
 * (rt_ext_ctx_set_dynamic(), then resized in invoke, which gives them heap
 * storage). Data pointers are valid in invoke only: they move with every
 * allocation, so a kernel reads them in each call.
 *
 * Errors: a hook returns 0 or a negative errno after rt_ext_ctx_error()
 * with a sentence; the interpreter prefixes it with the node ("node 1
 * (MyOp): ...") as for its own kernels.
 *
 * Threads: hooks run on the thread calling the interpreter (one at a time
 * per interpreter). The kernel struct is borrowed: it (and `user`) must
 * outlive every interpreter created with the options.
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "accel/driver.h"
#include "rt.h"

/* The runtime during one call of a hook (valid for that call only). */
typedef struct rt_ext_ctx rt_ext_ctx_t;

typedef struct rt_ext_kernel {
        void *user;  /* passed to every hook */
        /* When the interpreter is created (once per node); *ret_data
         * (NULL unless set) is given to the other hooks. May be NULL. */
        int (*init)(void *user, rt_ext_ctx_t *ctx, const rt_node_t *node, void **ret_data);
        /* When the interpreter is freed, for every node init succeeded on. */
        void (*free)(void *user, void *data);
        /* At every allocation (after resizes): check inputs, set output
         * shapes, request scratch. May be NULL. */
        int (*prepare)(void *user, rt_ext_ctx_t *ctx, const rt_node_t *node, void *data);
        /* Compute. */
        int (*invoke)(void *user, rt_ext_ctx_t *ctx, const rt_node_t *node, void *data);
} rt_ext_kernel_t;

/*
 * Run op `op` (a builtin code, or RT_OP_CUSTOM with `custom_name`) of
 * versions min_version..max_version with `k`. It takes precedence over the
 * runtime's own kernel for that op and those versions (a later one over an
 * earlier one), as rt_interp_options_add_custom_op() does. 0, -EINVAL
 * (NULL, no invoke, a custom op without a name, bad range) or -ENOMEM.
 */
int rt_interp_options_add_ext_kernel(rt_interp_options_t *o, int32_t op, const char *custom_name,
                                     const rt_ext_kernel_t *k, int32_t min_version, int32_t max_version);

/* The graph's tensors (indexed like node->inputs) and their count. */
rt_tensor_t *rt_ext_ctx_tensors(rt_ext_ctx_t *ctx, int32_t *ret_n);

/* Set the shape of tensor `index` (an output of the node): in prepare,
 * storage follows at allocation; in invoke only a dynamic tensor may grow
 * (it gets heap storage). 0 or -EINVAL (message kept for the error). */
int rt_ext_ctx_resize(rt_ext_ctx_t *ctx, int32_t index, int32_t rank, const int32_t *dims);

/* Mark tensor `index` as sized at invoke time (in prepare). 0 or -EINVAL. */
int rt_ext_ctx_set_dynamic(rt_ext_ctx_t *ctx, int32_t index);

/* Scratch memory of `bytes` for `node`: requested in prepare, fetched in
 * invoke (valid during that invoke). 0, -EINVAL or -ENOMEM. */
int rt_ext_ctx_request_scratch(rt_ext_ctx_t *ctx, const rt_node_t *node, size_t bytes, int32_t *ret_id);
void *rt_ext_ctx_scratch(rt_ext_ctx_t *ctx, const rt_node_t *node, int32_t id);

/* Set the sentence the interpreter reports when the hook fails. */
void rt_ext_ctx_verror(rt_ext_ctx_t *ctx, const char *fmt, va_list ap);
__attribute__((format(printf, 2, 3)))
void rt_ext_ctx_error(rt_ext_ctx_t *ctx, const char *fmt, ...);
