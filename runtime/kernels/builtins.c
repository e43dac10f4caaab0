/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"

int rt_kernels_register_builtins(rt_resolver_t *r) {
        int (*const families[])(rt_resolver_t *) = {
                rt_kernels_register_conv,
                rt_kernels_register_elementwise,
                rt_kernels_register_shape,
                rt_kernels_register_sequence,
                rt_kernels_register_reduce,
                rt_kernels_register_misc,
                rt_kernels_register_control,
        };
        for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
                int r_ = families[i](r);
                if (r_ < 0)
                        return r_;
        }
        return 0;
}
