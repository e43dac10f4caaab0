/* SPDX-License-Identifier: Apache-2.0 */
/* The generated benchmark candidates (bench/candidates.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "candidates.h"
#include "driver.h"

void bench_model_traits_get(const rt_model_t *m, bench_model_traits_t *ret) {
        *ret = (bench_model_traits_t) {};
        for (int32_t s = 0; m && s < m->n_subgraphs; s++) {
                const rt_model_subgraph_t *sg = &m->subgraphs[s];

                for (int32_t t = 0; t < sg->n_tensors; t++) {
                        const rt_model_tensor_t *x = &sg->tensors[t];

                        if (x->sparsity)
                                ret->has_sparse = true;
                        if (x->quant.n == 0)
                                continue;
                        if (x->type == RT_TYPE_INT8)
                                ret->has_int8 = true;
                        else if (x->type == RT_TYPE_UINT8)
                                ret->has_uint8 = true;
                }
                for (int32_t i = 0; i < sg->n_ops; i++) {
                        const rt_model_op_t *op = &sg->ops[i];

                        if (op->builtin_code == RT_BUILTIN_DENSIFY)
                                ret->has_sparse = true;
                        /* DEQUANTIZE of float16 weights is folded away: it
                         * is not float arithmetic of the model's own. */
                        if (op->builtin_code == RT_BUILTIN_DEQUANTIZE || op->builtin_code == RT_BUILTIN_DENSIFY)
                                continue;
                        for (int32_t k = 0; k < op->n_outputs; k++) {
                                int32_t o = op->outputs[k];

                                if (o >= 0 && o < sg->n_tensors && sg->tensors[o].type == RT_TYPE_FLOAT32)
                                        ret->has_float = true;
                        }
                }
        }
}

/* A vector of settings that grows. */
typedef struct vec {
        rt_settings_t *v;
        size_t n, cap;
} vec_t;

static rt_settings_t *vec_push(vec_t *x) {
        if (x->n == x->cap) {
                size_t cap = x->cap ? x->cap * 2 : 16;
                rt_settings_t *v = realloc(x->v, cap * sizeof(*v));

                if (!v)
                        return NULL;
                x->v = v;
                x->cap = cap;
        }
        rt_settings_init(&x->v[x->n]);
        return &x->v[x->n++];
}

static void vec_free(vec_t *x) {
        for (size_t i = 0; i < x->n; i++)
                rt_settings_done(&x->v[i]);
        free(x->v);
        *x = (vec_t) {};
}

static int vec_finish(vec_t *x, rt_settings_t **ret_v, size_t *ret_n) {
        if (!x->v && !(x->v = calloc(1, sizeof(*x->v))))
                return -ENOMEM;
        *ret_v = x->v;
        *ret_n = x->n;
        return 0;
}

static rt_settings_t *push_xnnpack(vec_t *x, int32_t threads) {
        rt_settings_t *s = vec_push(x);

        if (!s)
                return NULL;
        s->delegate = RT_DELEGATE_XNNPACK;
        (void) snprintf(s->delegate_name, sizeof(s->delegate_name), "XNNPACK");
        s->xnnpack_num_threads = threads;
        return s;
}

int bench_candidates_generate(const bench_model_traits_t *mt, unsigned cpus, bool with_xnnpack,
                              rt_settings_t **ret_v, size_t *ret_n) {
        vec_t x = {};

        (void) mt;
        if (cpus < 1)
                cpus = 1;
        if (!vec_push(&x))
                goto oom;
        /* Most threads first: the likely fastest sets the bar early, so
         * slower thread counts are pruned after a few runs. */
        for (unsigned t = cpus; with_xnnpack && t >= 1; t--)
                if (!push_xnnpack(&x, (int32_t) t))
                        goto oom;
        for (size_t i = 0; i < rt_driver_count(); i++) {
                const rt_driver_t *d = rt_driver_get(i);
                rt_settings_t *s;

                if (!d || strcmp(d->name, "reference") == 0 || strcmp(d->name, "xnnpack") == 0)
                        continue;
                if (!(s = vec_push(&x)))
                        goto oom;
                s->delegate = RT_DELEGATE_PLUGIN;
                (void) snprintf(s->delegate_name, sizeof(s->delegate_name), "%s", d->name);
        }
        return vec_finish(&x, ret_v, ret_n);
oom:
        vec_free(&x);
        return -ENOMEM;
}

/* base with flags `set` added (and `clear` removed). */
static int push_flags(vec_t *x, const rt_settings_t *base, uint32_t set) {
        rt_settings_t *s = vec_push(x);

        if (!s)
                return -ENOMEM;
        if (rt_settings_copy(s, base) < 0) {
                x->n--;
                return -ENOMEM;
        }
        s->xnnpack_flags |= set;
        return 0;
}

/* The min_nodes_per_partition thresholds worth a run: each moves more
 * delegated groups to the reference kernels than the one before, and
 * never all of them (the largest stays). */
static size_t min_nodes_thresholds(const int32_t *nodes, const bool *delegated, size_t n, int32_t *ret) {
        static const int32_t ladder[] = { 2, 3, 5, 9, 17, 33 };
        size_t n_del = 0, k = 0, last = 0;

        for (size_t i = 0; i < n; i++)
                n_del += delegated[i];
        for (size_t j = 0; j < sizeof(ladder) / sizeof(ladder[0]) && k < BENCH_MIN_NODES_CANDIDATES; j++) {
                size_t below = 0;

                for (size_t i = 0; i < n; i++)
                        below += delegated[i] && nodes[i] < ladder[j];
                if (below > last && below < n_del) {
                        ret[k++] = ladder[j];
                        last = below;
                }
        }
        return k;
}

bool bench_candidate_is_variant(const rt_settings_t *s) {
        return s && s->delegate == RT_DELEGATE_XNNPACK &&
               (s->xnnpack_flags != 0 || s->max_delegated_partitions > 0 || s->min_nodes_per_partition > 1);
}

int bench_candidates_refine(const bench_model_traits_t *mt, const rt_settings_t *base, bool fp16_ok,
                            const int32_t *partition_nodes, const bool *delegated, size_t n_partitions,
                            rt_settings_t **ret_v, size_t *ret_n) {
        int32_t mins[BENCH_MIN_NODES_CANDIDATES];
        size_t n_del = 0, n_min;
        vec_t x = {};

        if (!mt || !base || base->delegate != RT_DELEGATE_XNNPACK)
                return -EINVAL;
        /* A quantized path off: QU8 alone leaves int8 nodes on the
         * reference kernels, QS8 alone uint8 ones. */
        if (mt->has_int8 && push_flags(&x, base, RT_XNNPACK_FLAG_QU8) < 0)
                goto oom;
        if (mt->has_uint8 && push_flags(&x, base, RT_XNNPACK_FLAG_QS8) < 0)
                goto oom;
        if (mt->has_float && fp16_ok && push_flags(&x, base, RT_XNNPACK_FLAG_FORCE_FP16) < 0)
                goto oom;
        if (mt->has_sparse && push_flags(&x, base, RT_XNNPACK_FLAG_SPARSE) < 0)
                goto oom;
        for (size_t i = 0; i < n_partitions; i++)
                n_del += delegated[i];
        if (n_del >= 2) {
                if (push_flags(&x, base, 0) < 0)
                        goto oom;
                x.v[x.n - 1].max_delegated_partitions = 1;
        }
        n_min = min_nodes_thresholds(partition_nodes, delegated, n_partitions, mins);
        for (size_t k = 0; k < n_min; k++) {
                if (push_flags(&x, base, 0) < 0)
                        goto oom;
                x.v[x.n - 1].min_nodes_per_partition = mins[k];
        }
        return vec_finish(&x, ret_v, ret_n);
oom:
        vec_free(&x);
        return -ENOMEM;
}
