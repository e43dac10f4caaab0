/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "shape-internal.h"

int rt_kernels_register_shape(rt_resolver_t *r) {
        static const rt_registration_t *const regs[] = {
                &rt_kernel_reshape,
                &rt_kernel_squeeze,
                &rt_kernel_expand_dims,
                &rt_kernel_shape,
                &rt_kernel_concatenation,
                &rt_kernel_pack,
                &rt_kernel_split,
                &rt_kernel_split_v,
                &rt_kernel_unpack,
                &rt_kernel_slice,
                &rt_kernel_strided_slice,
                &rt_kernel_pad,
                &rt_kernel_padv2,
                &rt_kernel_mirror_pad,
                &rt_kernel_transpose,
                &rt_kernel_reverse_v2,
                &rt_kernel_tile,
                &rt_kernel_broadcast_to,
                &rt_kernel_gather,
                &rt_kernel_gather_nd,
                &rt_kernel_embedding_lookup,
                &rt_kernel_space_to_depth,
                &rt_kernel_depth_to_space,
                &rt_kernel_space_to_batch_nd,
                &rt_kernel_batch_to_space_nd,
                &rt_kernel_fill,
                &rt_kernel_range,
                &rt_kernel_resize_bilinear,
                &rt_kernel_resize_nearest_neighbor,
        };
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
                int ret = rt_resolver_add(r, regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
