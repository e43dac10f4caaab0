/* SPDX-License-Identifier: Apache-2.0 */
/* eval_runner_t: one interface over the in-process runtime and acceld. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "eval.h"

int32_t eval_runner_input_count(eval_runner_t *r) {
        return r->ops->input_count(r);
}

int32_t eval_runner_output_count(eval_runner_t *r) {
        return r->ops->output_count(r);
}

int eval_runner_input(eval_runner_t *r, int32_t i, eval_tensor_t *ret) {
        if (i < 0 || i >= eval_runner_input_count(r))
                return -EINVAL;
        return r->ops->input(r, i, ret);
}

int eval_runner_output(eval_runner_t *r, int32_t i, eval_tensor_t *ret) {
        if (i < 0 || i >= eval_runner_output_count(r))
                return -EINVAL;
        return r->ops->output(r, i, ret);
}

int eval_runner_invoke(eval_runner_t *r) {
        return r->ops->invoke(r);
}

const char *eval_runner_last_error(eval_runner_t *r) {
        const char *s = r ? r->ops->last_error(r) : NULL;
        return s ? s : "";
}

eval_runner_t *eval_runner_free(eval_runner_t *r) {
        if (r)
                r->ops->free(r);
        return NULL;
}

size_t eval_tensor_count(const eval_tensor_t *t) {
        size_t n = 1;
        for (int32_t d = 0; d < t->rank; d++)
                n *= t->dims[d] > 0 ? (size_t) t->dims[d] : 0;
        return n;
}

double eval_tensor_value(const eval_tensor_t *t, size_t k) {
        double q;

        /* TFLite TensorType numbers. */
        switch (t->type) {
        case 0: return ((const float *) t->data)[k];
        case 2: q = ((const int32_t *) t->data)[k]; break;
        case 3: q = ((const uint8_t *) t->data)[k]; break;
        case 4: q = (double) ((const int64_t *) t->data)[k]; break;
        case 6: return ((const bool *) t->data)[k];
        case 7: q = ((const int16_t *) t->data)[k]; break;
        case 9: q = ((const int8_t *) t->data)[k]; break;
        case 10: {
                double v;
                memcpy(&v, (const char *) t->data + 8 * k, sizeof(v));
                return v;
        }
        default: return 0;
        }
        return t->scale > 0 ? (q - t->zero_point) * (double) t->scale : q;
}

bool eval_type_is_numeric(int32_t type) {
        return eval_type_size(type) > 0;
}

size_t eval_type_size(int32_t type) {
        switch (type) {
        case 0: case 2: return 4;   /* float32, int32 */
        case 3: case 6: case 9: return 1;  /* uint8, bool, int8 */
        case 4: case 10: return 8;  /* int64, float64 */
        case 7: return 2;           /* int16 */
        default: return 0;
        }
}
