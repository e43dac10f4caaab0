/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pthreadpool's entry points (<pthreadpool.h>): every
 * pthreadpool_parallelize_* and the deprecated pthreadpool_compute_*,
 * mapped onto one job shape (threadpool-internal.h, tp_job_t): a linear
 * range of items, item k being the k-th tile of the N-d range in row-major
 * order. The semantics are pthreadpool's: a tiled dimension of range R and
 * tile T gives the calls start = 0, T, 2T, ... with size min(T, R - start);
 * the task of a _with_uarch variant gets the default uarch index (this
 * pool knows no heterogeneous cores); a NULL pool, a pool of one thread or
 * a range of one item runs on the caller.
 */
#include "threadpool-internal.h"

typedef void (*fn1_t)(void *, size_t);
typedef void (*fn2_t)(void *, size_t, size_t);
typedef void (*fn3_t)(void *, size_t, size_t, size_t);
typedef void (*fn4_t)(void *, size_t, size_t, size_t, size_t);
typedef void (*fn5_t)(void *, size_t, size_t, size_t, size_t, size_t);
typedef void (*fn6_t)(void *, size_t, size_t, size_t, size_t, size_t, size_t);
typedef void (*fn7_t)(void *, size_t, size_t, size_t, size_t, size_t, size_t, size_t);
typedef void (*fn8_t)(void *, size_t, size_t, size_t, size_t, size_t, size_t, size_t, size_t);
typedef void (*id1_t)(void *, uint32_t, size_t);
typedef void (*id4_t)(void *, uint32_t, size_t, size_t, size_t, size_t);
typedef void (*id5_t)(void *, uint32_t, size_t, size_t, size_t, size_t, size_t);
typedef void (*id6_t)(void *, uint32_t, size_t, size_t, size_t, size_t, size_t, size_t);

/* One call of the task with `n` arguments `a` (the with_id shapes
 * pthreadpool has: 1d, 2d/3d/4d tile 2d). */
static void job_call(const tp_job_t *j, const size_t *a, unsigned n) {
        void *c = j->ctx;
        if (j->with_id) {
                uint32_t id = j->uarch;
                switch (n) {
                case 1: ((id1_t) j->fn)(c, id, a[0]); return;
                case 4: ((id4_t) j->fn)(c, id, a[0], a[1], a[2], a[3]); return;
                case 5: ((id5_t) j->fn)(c, id, a[0], a[1], a[2], a[3], a[4]); return;
                case 6: ((id6_t) j->fn)(c, id, a[0], a[1], a[2], a[3], a[4], a[5]); return;
                }
                return;
        }
        switch (n) {
        case 1: ((fn1_t) j->fn)(c, a[0]); return;
        case 2: ((fn2_t) j->fn)(c, a[0], a[1]); return;
        case 3: ((fn3_t) j->fn)(c, a[0], a[1], a[2]); return;
        case 4: ((fn4_t) j->fn)(c, a[0], a[1], a[2], a[3]); return;
        case 5: ((fn5_t) j->fn)(c, a[0], a[1], a[2], a[3], a[4]); return;
        case 6: ((fn6_t) j->fn)(c, a[0], a[1], a[2], a[3], a[4], a[5]); return;
        case 7: ((fn7_t) j->fn)(c, a[0], a[1], a[2], a[3], a[4], a[5], a[6]); return;
        case 8: ((fn8_t) j->fn)(c, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); return;
        }
}

static inline size_t tile_size(const tp_job_t *j, unsigned d, size_t start) {
        size_t left = j->range[d] - start;
        return left < j->tile[d] ? left : j->tile[d];
}

/* The whole range of the shapes XNNPACK uses most, as plain nested loops:
 * on a 1-thread pool or inline, every call of a ~1 ms model goes here. */
static bool job_run_all(const tp_job_t *j) {
        if (j->with_id)
                return false;
        void *c = j->ctx;
        const size_t *r = j->range, *t = j->tile;
        switch (j->ndims * 10 + j->ntiled) {
        case 11:
                for (size_t i = 0; i < r[0]; i += t[0])
                        ((fn2_t) j->fn)(c, i, tile_size(j, 0, i));
                return true;
        case 20:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k++)
                                ((fn2_t) j->fn)(c, i, k);
                return true;
        case 21:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k += t[1])
                                ((fn3_t) j->fn)(c, i, k, tile_size(j, 1, k));
                return true;
        case 22:
                for (size_t i = 0; i < r[0]; i += t[0])
                        for (size_t k = 0; k < r[1]; k += t[1])
                                ((fn4_t) j->fn)(c, i, k, tile_size(j, 0, i), tile_size(j, 1, k));
                return true;
        case 30:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k++)
                                for (size_t l = 0; l < r[2]; l++)
                                        ((fn3_t) j->fn)(c, i, k, l);
                return true;
        case 32:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k += t[1])
                                for (size_t l = 0; l < r[2]; l += t[2])
                                        ((fn5_t) j->fn)(c, i, k, l, tile_size(j, 1, k), tile_size(j, 2, l));
                return true;
        case 40:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k++)
                                for (size_t l = 0; l < r[2]; l++)
                                        for (size_t m = 0; m < r[3]; m++)
                                                ((fn4_t) j->fn)(c, i, k, l, m);
                return true;
        case 42:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k++)
                                for (size_t l = 0; l < r[2]; l += t[2])
                                        for (size_t m = 0; m < r[3]; m += t[3])
                                                ((fn6_t) j->fn)(c, i, k, l, m, tile_size(j, 2, l),
                                                                tile_size(j, 3, m));
                return true;
        case 50:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k++)
                                for (size_t l = 0; l < r[2]; l++)
                                        for (size_t m = 0; m < r[3]; m++)
                                                for (size_t n = 0; n < r[4]; n++)
                                                        ((fn5_t) j->fn)(c, i, k, l, m, n);
                return true;
        case 52:
                for (size_t i = 0; i < r[0]; i++)
                        for (size_t k = 0; k < r[1]; k++)
                                for (size_t l = 0; l < r[2]; l++)
                                        for (size_t m = 0; m < r[3]; m += t[3])
                                                for (size_t n = 0; n < r[4]; n += t[4])
                                                        ((fn7_t) j->fn)(c, i, k, l, m, n, tile_size(j, 3, m),
                                                                        tile_size(j, 4, n));
                return true;
        }
        return false;
}

void rt__tp_job_run(const tp_job_t *j, size_t begin, size_t end) {
        if (j->ndims == 1 && j->ntiled == 0 && !j->with_id) {
                fn1_t f = (fn1_t) j->fn;
                for (size_t i = begin; i < end; i++)
                        f(j->ctx, i);
                return;
        }
        if (begin == 0 && end == j->items && job_run_all(j))
                return;
        unsigned nd = j->ndims, first_tiled = j->ndims - j->ntiled;
        size_t idx[TP_MAX_DIMS];
        size_t rem = begin;
        for (unsigned d = nd; d-- > 0;) {
                idx[d] = rem % j->tiles[d];
                rem /= j->tiles[d];
        }
        for (size_t i = begin; i < end; i++) {
                size_t a[TP_MAX_DIMS + 2];
                unsigned n = 0;
                for (unsigned d = 0; d < first_tiled; d++)
                        a[n++] = idx[d];
                for (unsigned d = first_tiled; d < nd; d++)
                        a[n++] = idx[d] * j->tile[d];
                for (unsigned d = first_tiled; d < nd; d++) {
                        size_t start = idx[d] * j->tile[d], left = j->range[d] - start;
                        a[n++] = left < j->tile[d] ? left : j->tile[d];
                }
                job_call(j, a, n);
                for (unsigned d = nd; d-- > 0;) {
                        if (++idx[d] < j->tiles[d])
                                break;
                        idx[d] = 0;
                }
        }
}

/* The common path of every entry point: `ndims` ranges, the last `ntiled`
 * of them tiled by `tiles` (NULL when none is). */
static void parallelize(pthreadpool_t pool, tp_fn_t fn, void *ctx, bool with_id, uint32_t uarch, unsigned ndims,
                        unsigned ntiled, const size_t *ranges, const size_t *tiles, uint32_t flags) {
        tp_job_t j = {
                .fn = fn,
                .ctx = ctx,
                .flags = flags,
                .uarch = uarch,
                .with_id = with_id,
                .ndims = ndims,
                .ntiled = ntiled,
                .items = 1,
        };
        for (unsigned d = 0; d < ndims; d++) {
                size_t t = 1;
                if (d >= ndims - ntiled) {
                        t = tiles[d - (ndims - ntiled)];
                        if (t == 0)
                                t = 1;
                }
                j.range[d] = ranges[d];
                j.tile[d] = t;
                j.tiles[d] = (ranges[d] + t - 1) / t;
                j.items *= j.tiles[d];
        }
        if (j.items == 0)
                return;
        rt__tp_execute(pool, &j);
}

/* A NULL pool, what XNNPACK passes at one thread: the shapes it uses run
 * here in plain loops, with no job built (filling a job in, its tile
 * counts divided out, costs as much as a small operator's task). A zero
 * tile takes the general path, which counts it as one. */
static inline size_t here_size(size_t range, size_t start, size_t tile) {
        size_t left = range - start;
        return left < tile ? left : tile;
}

void pthreadpool_parallelize_1d(pthreadpool_t threadpool, pthreadpool_task_1d_t function, void *context,
        size_t range, uint32_t flags) {
        if (!threadpool) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range; i++)
                        function(context, i);
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 1, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_1d_with_uarch(pthreadpool_t threadpool, pthreadpool_task_1d_with_id_t function,
        void *context, uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range, uint32_t flags) {
        (void) max_uarch_index;
        size_t ranges[] = { range };
        parallelize(threadpool, (tp_fn_t) function, context, true, default_uarch_index, 1, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_1d_tile_1d_t function,
        void *context, size_t range, size_t tile, uint32_t flags) {
        if (!threadpool && tile) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range; i += tile)
                        function(context, i, here_size(range, i, tile));
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range };
        size_t tiles[] = { tile };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 1, 1, ranges, tiles, flags);
}

void pthreadpool_parallelize_2d(pthreadpool_t threadpool, pthreadpool_task_2d_t function, void *context,
        size_t range_i, size_t range_j, uint32_t flags) {
        if (!threadpool) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range_i; i++)
                        for (size_t j = 0; j < range_j; j++)
                                function(context, i, j);
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range_i, range_j };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 2, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_2d_tile_1d_t function,
        void *context, size_t range_i, size_t range_j, size_t tile_j, uint32_t flags) {
        if (!threadpool && tile_j) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range_i; i++)
                        for (size_t j = 0; j < range_j; j += tile_j)
                                function(context, i, j, here_size(range_j, j, tile_j));
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range_i, range_j };
        size_t tiles[] = { tile_j };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 2, 1, ranges, tiles, flags);
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t threadpool, pthreadpool_task_2d_tile_2d_t function,
        void *context, size_t range_i, size_t range_j, size_t tile_i, size_t tile_j, uint32_t flags) {
        if (!threadpool && tile_i && tile_j) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range_i; i += tile_i)
                        for (size_t j = 0; j < range_j; j += tile_j)
                                function(context, i, j, here_size(range_i, i, tile_i), here_size(range_j, j, tile_j));
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range_i, range_j };
        size_t tiles[] = { tile_i, tile_j };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 2, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_2d_tile_2d_with_uarch(pthreadpool_t threadpool,
        pthreadpool_task_2d_tile_2d_with_id_t function, void *context, uint32_t default_uarch_index,
        uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t tile_i, size_t tile_j,
        uint32_t flags) {
        (void) max_uarch_index;
        size_t ranges[] = { range_i, range_j };
        size_t tiles[] = { tile_i, tile_j };
        parallelize(threadpool, (tp_fn_t) function, context, true, default_uarch_index, 2, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_3d(pthreadpool_t threadpool, pthreadpool_task_3d_t function, void *context,
        size_t range_i, size_t range_j, size_t range_k, uint32_t flags) {
        if (!threadpool) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range_i; i++)
                        for (size_t j = 0; j < range_j; j++)
                                for (size_t k = 0; k < range_k; k++)
                                        function(context, i, j, k);
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range_i, range_j, range_k };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 3, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_3d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_3d_tile_1d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t tile_k, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k };
        size_t tiles[] = { tile_k };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 3, 1, ranges, tiles, flags);
}

void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t threadpool, pthreadpool_task_3d_tile_2d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t tile_j, size_t tile_k,
        uint32_t flags) {
        if (!threadpool && tile_j && tile_k) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range_i; i++)
                        for (size_t j = 0; j < range_j; j += tile_j)
                                for (size_t k = 0; k < range_k; k += tile_k)
                                        function(context, i, j, k, here_size(range_j, j, tile_j), here_size(range_k, k, tile_k));
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range_i, range_j, range_k };
        size_t tiles[] = { tile_j, tile_k };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 3, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_3d_tile_2d_with_uarch(pthreadpool_t threadpool,
        pthreadpool_task_3d_tile_2d_with_id_t function, void *context, uint32_t default_uarch_index,
        uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t range_k, size_t tile_j,
        size_t tile_k, uint32_t flags) {
        (void) max_uarch_index;
        size_t ranges[] = { range_i, range_j, range_k };
        size_t tiles[] = { tile_j, tile_k };
        parallelize(threadpool, (tp_fn_t) function, context, true, default_uarch_index, 3, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_4d(pthreadpool_t threadpool, pthreadpool_task_4d_t function, void *context,
        size_t range_i, size_t range_j, size_t range_k, size_t range_l, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 4, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_4d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_4d_tile_1d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t tile_l,
        uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l };
        size_t tiles[] = { tile_l };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 4, 1, ranges, tiles, flags);
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t threadpool, pthreadpool_task_4d_tile_2d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t tile_k,
        size_t tile_l, uint32_t flags) {
        if (!threadpool && tile_k && tile_l) {
                tp_fp_t fp;
                tp_fp_enter(&fp, flags);
                for (size_t i = 0; i < range_i; i++)
                        for (size_t j = 0; j < range_j; j++)
                                for (size_t k = 0; k < range_k; k += tile_k)
                                        for (size_t l = 0; l < range_l; l += tile_l)
                                                function(context, i, j, k, l, here_size(range_k, k, tile_k), here_size(range_l, l, tile_l));
                tp_fp_leave(&fp);
                return;
        }
        size_t ranges[] = { range_i, range_j, range_k, range_l };
        size_t tiles[] = { tile_k, tile_l };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 4, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_4d_tile_2d_with_uarch(pthreadpool_t threadpool,
        pthreadpool_task_4d_tile_2d_with_id_t function, void *context, uint32_t default_uarch_index,
        uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t range_k, size_t range_l,
        size_t tile_k, size_t tile_l, uint32_t flags) {
        (void) max_uarch_index;
        size_t ranges[] = { range_i, range_j, range_k, range_l };
        size_t tiles[] = { tile_k, tile_l };
        parallelize(threadpool, (tp_fn_t) function, context, true, default_uarch_index, 4, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_5d(pthreadpool_t threadpool, pthreadpool_task_5d_t function, void *context,
        size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t range_m, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l, range_m };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 5, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_5d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_5d_tile_1d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t range_m,
        size_t tile_m, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l, range_m };
        size_t tiles[] = { tile_m };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 5, 1, ranges, tiles, flags);
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t threadpool, pthreadpool_task_5d_tile_2d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t range_m,
        size_t tile_l, size_t tile_m, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l, range_m };
        size_t tiles[] = { tile_l, tile_m };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 5, 2, ranges, tiles, flags);
}

void pthreadpool_parallelize_6d(pthreadpool_t threadpool, pthreadpool_task_6d_t function, void *context,
        size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t range_m, size_t range_n,
        uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l, range_m, range_n };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 6, 0, ranges, NULL, flags);
}

void pthreadpool_parallelize_6d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_6d_tile_1d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t range_m,
        size_t range_n, size_t tile_n, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l, range_m, range_n };
        size_t tiles[] = { tile_n };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 6, 1, ranges, tiles, flags);
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t threadpool, pthreadpool_task_6d_tile_2d_t function,
        void *context, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t range_m,
        size_t range_n, size_t tile_m, size_t tile_n, uint32_t flags) {
        size_t ranges[] = { range_i, range_j, range_k, range_l, range_m, range_n };
        size_t tiles[] = { tile_m, tile_n };
        parallelize(threadpool, (tp_fn_t) function, context, false, 0, 6, 2, ranges, tiles, flags);
}


/* The deprecated API (NNPACK's): no flags; compute_3d_tiled and
 * compute_4d_tiled tile every dimension. */
void pthreadpool_compute_1d(pthreadpool_t threadpool, pthreadpool_function_1d_t function, void *argument,
        size_t range) {
        size_t ranges[] = { range };
        parallelize(threadpool, (tp_fn_t) function, argument, false, 0, 1, 0, ranges, NULL, 0);
}

void pthreadpool_compute_1d_tiled(pthreadpool_t threadpool, pthreadpool_function_1d_tiled_t function,
        void *argument, size_t range, size_t tile) {
        size_t ranges[] = { range };
        size_t tiles[] = { tile };
        parallelize(threadpool, (tp_fn_t) function, argument, false, 0, 1, 1, ranges, tiles, 0);
}

void pthreadpool_compute_2d(pthreadpool_t threadpool, pthreadpool_function_2d_t function, void *argument,
        size_t range_i, size_t range_j) {
        size_t ranges[] = { range_i, range_j };
        parallelize(threadpool, (tp_fn_t) function, argument, false, 0, 2, 0, ranges, NULL, 0);
}

void pthreadpool_compute_2d_tiled(pthreadpool_t threadpool, pthreadpool_function_2d_tiled_t function,
        void *argument, size_t range_i, size_t range_j, size_t tile_i, size_t tile_j) {
        size_t ranges[] = { range_i, range_j };
        size_t tiles[] = { tile_i, tile_j };
        parallelize(threadpool, (tp_fn_t) function, argument, false, 0, 2, 2, ranges, tiles, 0);
}

void pthreadpool_compute_3d_tiled(pthreadpool_t threadpool, pthreadpool_function_3d_tiled_t function,
        void *argument, size_t range_i, size_t range_j, size_t range_k, size_t tile_i, size_t tile_j,
        size_t tile_k) {
        size_t ranges[] = { range_i, range_j, range_k };
        size_t tiles[] = { tile_i, tile_j, tile_k };
        parallelize(threadpool, (tp_fn_t) function, argument, false, 0, 3, 3, ranges, tiles, 0);
}

void pthreadpool_compute_4d_tiled(pthreadpool_t threadpool, pthreadpool_function_4d_tiled_t function,
        void *argument, size_t range_i, size_t range_j, size_t range_k, size_t range_l, size_t tile_i,
        size_t tile_j, size_t tile_k, size_t tile_l) {
        size_t ranges[] = { range_i, range_j, range_k, range_l };
        size_t tiles[] = { tile_i, tile_j, tile_k, tile_l };
        parallelize(threadpool, (tp_fn_t) function, argument, false, 0, 4, 4, ranges, tiles, 0);
}
