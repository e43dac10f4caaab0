/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "reduce/reduce.h"

int rt_kernels_register_reduce(rt_resolver_t *r) {
        static const rt_registration_t *const regs[] = {
                &rt_kernel_mean,
                &rt_kernel_sum,
                &rt_kernel_reduce_prod,
                &rt_kernel_reduce_max,
                &rt_kernel_reduce_min,
                &rt_kernel_reduce_any,
                &rt_kernel_reduce_all,
                &rt_kernel_arg_max,
                &rt_kernel_arg_min,
                &rt_kernel_cumsum,
                &rt_kernel_softmax,
                &rt_kernel_log_softmax,
                &rt_kernel_l2_normalization,
                &rt_kernel_local_response_normalization,
        };
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
                int ret = rt_resolver_add(r, regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
