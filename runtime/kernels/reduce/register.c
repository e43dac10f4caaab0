/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"

int rt_kernels_register_reduce(rt_resolver_t *r) {
        (void) r;
        return 0;
}
