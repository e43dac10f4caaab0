/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for recurrent, sequence, 3-D convolution and FFT builtins (LSTM/RNN family, SVDF, CONV_3D, RFFT2D, EMBEDDING_LOOKUP, ...). */
#include "dt.h"

/* No generator yet: the table keeps one unused slot so the array is not empty. */
const dt_gen_t dt_gens_seq[1];
const size_t dt_gens_seq_n = 0;
