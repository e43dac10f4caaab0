/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "conv/conv.h"

int rt_kernels_register_conv(rt_resolver_t *r) {
        static const rt_registration_t *const regs[] = {
                &rt_kernel_conv_2d,
                &rt_kernel_depthwise_conv_2d,
                &rt_kernel_fully_connected,
                &rt_kernel_transpose_conv,
                &rt_kernel_average_pool_2d,
                &rt_kernel_max_pool_2d,
                &rt_kernel_l2_pool_2d,
                &rt_kernel_batch_matmul,
                &rt_kernel_conv_3d,
                &rt_kernel_conv_3d_transpose,
        };
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
                int ret = rt_resolver_add(r, regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
