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

/* The size of the tile at `start` of a dimension of `range` tiled by
 * `tile`: the tile, or what is left. */
static inline size_t span(size_t range, size_t start, size_t tile) {
        size_t left = range - start;
        return left < tile ? left : tile;
}

static inline size_t tile_size(const tp_job_t *j, unsigned d, size_t start) {
        return span(j->range[d], start, j->tile[d]);
}

/* The whole range of the shapes XNNPACK uses most, as plain nested loops
 * (tiles not zero): what a NULL pool runs directly and a whole job on a
 * 1-thread pool or inline runs through job_run_all(); every call of a
 * ~1 ms model goes here. */
static inline void loop_1d_t1(fn2_t f, void *c, size_t ri, size_t ti) {
        for (size_t i = 0; i < ri; i += ti)
                f(c, i, span(ri, i, ti));
}

static inline void loop_2d(fn2_t f, void *c, size_t ri, size_t rj) {
        for (size_t i = 0; i < ri; i++)
                for (size_t k = 0; k < rj; k++)
                        f(c, i, k);
}

static inline void loop_2d_t1(fn3_t f, void *c, size_t ri, size_t rj, size_t tj) {
        for (size_t i = 0; i < ri; i++)
                for (size_t k = 0; k < rj; k += tj)
                        f(c, i, k, span(rj, k, tj));
}

static inline void loop_2d_t2(fn4_t f, void *c, size_t ri, size_t rj, size_t ti, size_t tj) {
        for (size_t i = 0; i < ri; i += ti)
                for (size_t k = 0; k < rj; k += tj)
                        f(c, i, k, span(ri, i, ti), span(rj, k, tj));
}

static inline void loop_3d(fn3_t f, void *c, size_t ri, size_t rj, size_t rk) {
        for (size_t i = 0; i < ri; i++)
                for (size_t k = 0; k < rj; k++)
                        for (size_t l = 0; l < rk; l++)
                                f(c, i, k, l);
}

static inline void loop_3d_t2(fn5_t f, void *c, size_t ri, size_t rj, size_t rk, size_t tj, size_t tk) {
        for (size_t i = 0; i < ri; i++)
                for (size_t k = 0; k < rj; k += tj)
                        for (size_t l = 0; l < rk; l += tk)
                                f(c, i, k, l, span(rj, k, tj), span(rk, l, tk));
}

static inline void loop_4d(fn4_t f, void *c, const size_t *r) {
        for (size_t i = 0; i < r[0]; i++)
                for (size_t k = 0; k < r[1]; k++)
                        for (size_t l = 0; l < r[2]; l++)
                                for (size_t m = 0; m < r[3]; m++)
                                        f(c, i, k, l, m);
}

static inline void loop_4d_t2(fn6_t f, void *c, const size_t *r, size_t tk, size_t tl) {
        for (size_t i = 0; i < r[0]; i++)
                for (size_t k = 0; k < r[1]; k++)
                        for (size_t l = 0; l < r[2]; l += tk)
                                for (size_t m = 0; m < r[3]; m += tl)
                                        f(c, i, k, l, m, span(r[2], l, tk), span(r[3], m, tl));
}

static inline void loop_5d(fn5_t f, void *c, const size_t *r) {
        for (size_t i = 0; i < r[0]; i++)
                for (size_t k = 0; k < r[1]; k++)
                        for (size_t l = 0; l < r[2]; l++)
                                for (size_t m = 0; m < r[3]; m++)
                                        for (size_t n = 0; n < r[4]; n++)
                                                f(c, i, k, l, m, n);
}

static inline void loop_5d_t2(fn7_t f, void *c, const size_t *r, size_t tl, size_t tm) {
        for (size_t i = 0; i < r[0]; i++)
                for (size_t k = 0; k < r[1]; k++)
                        for (size_t l = 0; l < r[2]; l++)
                                for (size_t m = 0; m < r[3]; m += tl)
                                        for (size_t n = 0; n < r[4]; n += tm)
                                                f(c, i, k, l, m, n, span(r[3], m, tl), span(r[4], n, tm));
}

static bool job_run_all(const tp_job_t *j) {
        if (j->with_id)
                return false;
        void *c = j->ctx;
        const size_t *r = j->range, *t = j->tile;
        switch (j->ndims * 10 + j->ntiled) {
        case 11:
                loop_1d_t1((fn2_t) j->fn, c, r[0], t[0]);
                return true;
        case 20:
                loop_2d((fn2_t) j->fn, c, r[0], r[1]);
                return true;
        case 21:
                loop_2d_t1((fn3_t) j->fn, c, r[0], r[1], t[1]);
                return true;
        case 22:
                loop_2d_t2((fn4_t) j->fn, c, r[0], r[1], t[0], t[1]);
                return true;
        case 30:
                loop_3d((fn3_t) j->fn, c, r[0], r[1], r[2]);
                return true;
        case 32:
                loop_3d_t2((fn5_t) j->fn, c, r[0], r[1], r[2], t[1], t[2]);
                return true;
        case 40:
                loop_4d((fn4_t) j->fn, c, r);
                return true;
        case 42:
                loop_4d_t2((fn6_t) j->fn, c, r, t[2], t[3]);
                return true;
        case 50:
                loop_5d((fn5_t) j->fn, c, r);
                return true;
        case 52:
                loop_5d_t2((fn7_t) j->fn, c, r, t[3], t[4]);
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
 * the plain loops above with no job built (filling a job in, its tile
 * counts divided out, costs as much as a small operator's task). A zero
 * tile takes the general path, which counts it as one. */
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
                loop_1d_t1((fn2_t) function, context, range, tile);
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
                loop_2d((fn2_t) function, context, range_i, range_j);
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
                loop_2d_t1((fn3_t) function, context, range_i, range_j, tile_j);
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
                loop_2d_t2((fn4_t) function, context, range_i, range_j, tile_i, tile_j);
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
                loop_3d((fn3_t) function, context, range_i, range_j, range_k);
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
                loop_3d_t2((fn5_t) function, context, range_i, range_j, range_k, tile_j, tile_k);
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
                loop_4d_t2((fn6_t) function, context, (const size_t[]) { range_i, range_j, range_k, range_l }, tile_k,
                           tile_l);
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
