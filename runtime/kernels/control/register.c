/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "control/control.h"

int rt_kernels_register_control(rt_resolver_t *r) {
        static const rt_registration_t *const regs[] = {
                &rt_kernel_if,
                &rt_kernel_while,
                &rt_kernel_call_once,
                &rt_kernel_var_handle,
                &rt_kernel_read_variable,
                &rt_kernel_assign_variable,
                &rt_kernel_hashtable,
                &rt_kernel_hashtable_find,
                &rt_kernel_hashtable_import,
                &rt_kernel_hashtable_size,
        };
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
                int ret = rt_resolver_add(r, regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
