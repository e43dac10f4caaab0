/* SPDX-License-Identifier: Apache-2.0 */
#include "kernels.h"
#include "sequence.h"

int rt_kernels_register_sequence(rt_resolver_t *r) {
        static const rt_registration_t *const regs[] = {
                &rt_kernel_svdf,
                &rt_kernel_unidirectional_sequence_lstm,
                &rt_kernel_lstm,
                &rt_kernel_bidirectional_sequence_lstm,
                &rt_kernel_rnn,
                &rt_kernel_unidirectional_sequence_rnn,
                &rt_kernel_bidirectional_sequence_rnn,
                &rt_kernel_densify,
                &rt_kernel_rfft2d,
                &rt_kernel_complex_abs,
                &rt_kernel_real,
                &rt_kernel_imag,
                &rt_kernel_detection_postprocess,
        };
        for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
                int ret = rt_resolver_add(r, regs[i]);
                if (ret < 0)
                        return ret;
        }
        return 0;
}
