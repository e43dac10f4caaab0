/* SPDX-License-Identifier: Apache-2.0 */
#include "ew.h"
#include "kernels.h"

static const rt_registration_t *const elementwise_regs[] = {
        &rt_kernel_add, &rt_kernel_sub, &rt_kernel_mul, &rt_kernel_div,
        &rt_kernel_squared_difference, &rt_kernel_maximum, &rt_kernel_minimum, &rt_kernel_pow,
        &rt_kernel_floor_div, &rt_kernel_floor_mod, &rt_kernel_add_n,
        &rt_kernel_equal, &rt_kernel_not_equal, &rt_kernel_less, &rt_kernel_less_equal,
        &rt_kernel_greater, &rt_kernel_greater_equal,
        &rt_kernel_logical_and, &rt_kernel_logical_or, &rt_kernel_logical_not,
        &rt_kernel_select, &rt_kernel_select_v2,
        &rt_kernel_abs, &rt_kernel_neg, &rt_kernel_ceil, &rt_kernel_floor, &rt_kernel_round,
        &rt_kernel_sqrt, &rt_kernel_rsqrt, &rt_kernel_square, &rt_kernel_exp, &rt_kernel_log,
        &rt_kernel_sin, &rt_kernel_cos, &rt_kernel_sign,
        &rt_kernel_tanh, &rt_kernel_logistic, &rt_kernel_relu, &rt_kernel_relu6,
        &rt_kernel_relu_n1_to_1, &rt_kernel_relu_0_to_1, &rt_kernel_elu, &rt_kernel_hard_swish,
        &rt_kernel_leaky_relu, &rt_kernel_prelu, &rt_kernel_gelu,
        &rt_kernel_quantize, &rt_kernel_dequantize,
        &rt_kernel_cast, &rt_kernel_zeros_like,
};

int rt_kernels_register_elementwise(rt_resolver_t *r) {
        for (size_t i = 0; i < sizeof(elementwise_regs) / sizeof(elementwise_regs[0]); i++) {
                int ret = rt_resolver_add(r, elementwise_regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
