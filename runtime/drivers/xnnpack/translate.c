/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The translation table: which op family translates which builtin code,
 * and the checks every node passes first (custom ops, variables, the
 * ACCELD_XNNPACK_DISABLE_OPS debugging aid).
 */
#include <errno.h>
#include <stdlib.h>

#include "rt.h"
#include "xnnpack-internal.h"

static const struct {
        int32_t op;
        rt__xnn_define_fn define;
} translations[] = {
        { RT_BUILTIN_CONV_2D, rt__xnn_define_convolution },
        { RT_BUILTIN_DEPTHWISE_CONV_2D, rt__xnn_define_convolution },
        { RT_BUILTIN_TRANSPOSE_CONV, rt__xnn_define_deconvolution },
        { RT_BUILTIN_FULLY_CONNECTED, rt__xnn_define_fully_connected },
        { RT_BUILTIN_ADD, rt__xnn_define_binary },
        { RT_BUILTIN_MUL, rt__xnn_define_binary },
        { RT_BUILTIN_SUB, rt__xnn_define_binary },
        { RT_BUILTIN_DIV, rt__xnn_define_binary },
        { RT_BUILTIN_MAXIMUM, rt__xnn_define_binary },
        { RT_BUILTIN_MINIMUM, rt__xnn_define_binary },
        { RT_BUILTIN_SQUARED_DIFFERENCE, rt__xnn_define_binary },
        { RT_BUILTIN_RELU, rt__xnn_define_relu },
        { RT_BUILTIN_RELU6, rt__xnn_define_relu },
        { RT_BUILTIN_RELU_N1_TO_1, rt__xnn_define_relu },
        { RT_BUILTIN_LEAKY_RELU, rt__xnn_define_leaky_relu },
        { RT_BUILTIN_PRELU, rt__xnn_define_prelu },
        { RT_BUILTIN_SOFTMAX, rt__xnn_define_softmax },
        { RT_BUILTIN_ELU, rt__xnn_define_unary },
        { RT_BUILTIN_LOGISTIC, rt__xnn_define_unary },
        { RT_BUILTIN_HARD_SWISH, rt__xnn_define_unary },
        { RT_BUILTIN_ABS, rt__xnn_define_unary },
        { RT_BUILTIN_CEIL, rt__xnn_define_unary },
        { RT_BUILTIN_FLOOR, rt__xnn_define_unary },
        { RT_BUILTIN_NEG, rt__xnn_define_unary },
        { RT_BUILTIN_ROUND, rt__xnn_define_unary },
        { RT_BUILTIN_SQUARE, rt__xnn_define_unary },
        { RT_BUILTIN_SQRT, rt__xnn_define_unary },
        { RT_BUILTIN_MAX_POOL_2D, rt__xnn_define_pooling },
        { RT_BUILTIN_AVERAGE_POOL_2D, rt__xnn_define_pooling },
        { RT_BUILTIN_MEAN, rt__xnn_define_mean },
        { RT_BUILTIN_RESHAPE, rt__xnn_define_reshape },
        { RT_BUILTIN_SQUEEZE, rt__xnn_define_reshape },
        { RT_BUILTIN_PAD, rt__xnn_define_pad },
        { RT_BUILTIN_PADV2, rt__xnn_define_pad },
        { RT_BUILTIN_RESIZE_BILINEAR, rt__xnn_define_resize_bilinear },
        { RT_BUILTIN_DEPTH_TO_SPACE, rt__xnn_define_depth_to_space },
        { RT_BUILTIN_CONCATENATION, rt__xnn_define_concatenation },
        { RT_BUILTIN_DEQUANTIZE, rt__xnn_define_dequantize },
        { RT_BUILTIN_QUANTIZE, rt__xnn_define_quantize },
};

/* ACCELD_XNNPACK_DISABLE_OPS=3,41 keeps those builtin codes on the
 * reference kernels (a debugging aid). */
bool rt__xnn_op_disabled(int32_t op) {
        const char *off = getenv("ACCELD_XNNPACK_DISABLE_OPS");
        for (const char *p = off; p && *p;) {
                char *end;
                long v = strtol(p, &end, 10);
                if (end == p)
                        break;
                if (v == op)
                        return true;
                p = *end ? end + 1 : end;
        }
        return false;
}

int rt__xnn_define_node(rt__xnn_ctx_t *x, const rt_node_t *n) {
        const rt_driver_graph_t *g = x->g;
        if (n->op == RT_OP_CUSTOM)
                return rt__xnn_refuse(x, "custom op %s not supported", n->custom_name ? n->custom_name : "?");
        if (rt__xnn_op_disabled(n->op))
                return rt__xnn_refuse(x, "%s disabled by ACCELD_XNNPACK_DISABLE_OPS", rt_op_name(n->op));
        for (int32_t k = 0; k < n->n_outputs; k++) {
                const rt_tensor_t *t = rt__xnn_tensor(x, n->outputs[k]);
                if (!t || t->is_variable)
                        return rt__xnn_refuse(x, "variable or missing output");
        }
        for (int32_t k = 0; k < n->n_inputs; k++)
                if (n->inputs[k] >= 0 && g->tensors[n->inputs[k]].is_variable)
                        return rt__xnn_refuse(x, "variable tensors not supported");
        for (size_t k = 0; k < sizeof(translations) / sizeof(translations[0]); k++)
                if (translations[k].op == n->op)
                        return translations[k].define(x, n);
        return rt__xnn_refuse(x, "op %s not supported", rt_op_name(n->op));
}
