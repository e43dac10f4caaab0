/* SPDX-License-Identifier: Apache-2.0 */
/* Case generators for misc, control-flow and resource builtins (FILL, RANGE, SHAPE, bitwise ops, NON_MAX_SUPPRESSION, variables, hash tables, IF/WHILE, ...). */
#include "dt.h"

/* No generator yet: the table keeps one unused slot so the array is not empty. */
const dt_gen_t dt_gens_misc[1];
const size_t dt_gens_misc_n = 0;
