/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "misc/misc.h"

int rt_kernels_register_misc(rt_resolver_t *r) {
        static const rt_registration_t *const regs[] = {
                &rt_kernel_one_hot,
                &rt_kernel_where,
                &rt_kernel_unique,
                &rt_kernel_scatter_nd,
                &rt_kernel_sparse_to_dense,
                &rt_kernel_segment_sum,
                &rt_kernel_unsorted_segment_sum,
                &rt_kernel_unsorted_segment_prod,
                &rt_kernel_unsorted_segment_max,
                &rt_kernel_unsorted_segment_min,
                &rt_kernel_matrix_diag,
                &rt_kernel_matrix_set_diag,
                &rt_kernel_non_max_suppression_v4,
                &rt_kernel_non_max_suppression_v5,
                &rt_kernel_bucketize,
                &rt_kernel_atan2,
                &rt_kernel_dynamic_update_slice,
                &rt_kernel_broadcast_args,
                &rt_kernel_rank,
                &rt_kernel_topk_v2,
                &rt_kernel_reverse_sequence,
                &rt_kernel_fake_quant,
                &rt_kernel_hashtable_lookup,
                &rt_kernel_bitcast,
                &rt_kernel_bitwise_xor,
                &rt_kernel_right_shift,
                &rt_kernel_skip_gram,
                &rt_kernel_embedding_lookup_sparse,
                &rt_kernel_random_uniform,
                &rt_kernel_random_standard_normal,
                &rt_kernel_multinomial,
        };
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
                int ret = rt_resolver_add(r, regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
