/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's own pthreadpool (runtime/threadpool/): every entry point of the
 * C ABI covers each index exactly once with pthreadpool's tile arguments,
 * for NULL and 1..4-thread pools; the flags; workers that sleep and are
 * woken; destruction while they sleep; nested pools; callers sharing a
 * pool. Then the schedule: calls that pay in parallel learn parallel,
 * tiny ones learn inline, a changed call sequence falls back to parallel
 * and relearns. Real threads; no timing is asserted (the schedule tests
 * use calls whose two ways differ by orders of magnitude).
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "test-threads.h"
#include "threadpool.h"

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
        nanosleep(&ts, NULL);
}

/* ---- Coverage: what each call must do. */

typedef struct cover {
        unsigned nd, nt;
        size_t range[6], tile[6];
        unsigned *hits;         /* one per element of the N-d range */
        unsigned bad;           /* calls with wrong arguments */
        uint32_t uarch;
} cover_t;

/* Marks the block a call covers: untiled indices, tiled starts, tiled
 * sizes (a[], n = nd + nt). */
static void cover_mark(cover_t *c, const size_t *a, unsigned n) {
        size_t lo[6], hi[6];
        unsigned first = c->nd - c->nt;
        if (n != c->nd + c->nt) {
                __atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
                return;
        }
        for (unsigned d = 0; d < c->nd; d++) {
                if (d < first) {
                        lo[d] = a[d];
                        hi[d] = a[d] + 1;
                        continue;
                }
                size_t start = a[d], size = a[c->nd + (d - first)];
                size_t want = c->range[d] - start < c->tile[d] ? c->range[d] - start : c->tile[d];
                if (start % c->tile[d] != 0 || start >= c->range[d] || size != want) {
                        __atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
                        return;
                }
                lo[d] = start;
                hi[d] = start + size;
        }
        size_t idx[6];
        memcpy(idx, lo, sizeof(idx));
        for (;;) {
                size_t lin = 0;
                for (unsigned d = 0; d < c->nd; d++)
                        lin = lin * c->range[d] + idx[d];
                __atomic_fetch_add(&c->hits[lin], 1, __ATOMIC_RELAXED);
                unsigned d = c->nd;
                while (d-- > 0) {
                        if (++idx[d] < hi[d])
                                break;
                        idx[d] = lo[d];
                }
                if (d == (unsigned) -1)
                        break;
        }
}

static void id_check(cover_t *c, uint32_t id) {
        if (id != c->uarch)
                __atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
}

static void t1(void *c, size_t a) {
        cover_mark(c, (size_t[]) { a }, 1);
}
static void t2(void *c, size_t a, size_t b) {
        cover_mark(c, (size_t[]) { a, b }, 2);
}
static void t3(void *c, size_t a, size_t b, size_t d) {
        cover_mark(c, (size_t[]) { a, b, d }, 3);
}
static void t4(void *c, size_t a, size_t b, size_t d, size_t e) {
        cover_mark(c, (size_t[]) { a, b, d, e }, 4);
}
static void t5(void *c, size_t a, size_t b, size_t d, size_t e, size_t f) {
        cover_mark(c, (size_t[]) { a, b, d, e, f }, 5);
}
static void t6(void *c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g) {
        cover_mark(c, (size_t[]) { a, b, d, e, f, g }, 6);
}
static void t7(void *c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h) {
        cover_mark(c, (size_t[]) { a, b, d, e, f, g, h }, 7);
}
static void t8(void *c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h, size_t k) {
        cover_mark(c, (size_t[]) { a, b, d, e, f, g, h, k }, 8);
}
static void i1(void *c, uint32_t id, size_t a) {
        id_check(c, id);
        t1(c, a);
}
static void i4(void *c, uint32_t id, size_t a, size_t b, size_t d, size_t e) {
        id_check(c, id);
        t4(c, a, b, d, e);
}
static void i5(void *c, uint32_t id, size_t a, size_t b, size_t d, size_t e, size_t f) {
        id_check(c, id);
        t5(c, a, b, d, e, f);
}
static void i6(void *c, uint32_t id, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g) {
        id_check(c, id);
        t6(c, a, b, d, e, f, g);
}

/* Odd ranges and tiles that do not divide them. */
static const size_t R[6] = { 5, 3, 7, 2, 3, 5 };
static const size_t T[6] = { 2, 2, 3, 1, 2, 2 };

static void cover_init(cover_t *c, unsigned nd, unsigned nt) {
        memset(c, 0, sizeof(*c));
        c->nd = nd;
        c->nt = nt;
        size_t n = 1;
        for (unsigned d = 0; d < nd; d++) {
                c->range[d] = R[d];
                c->tile[d] = d >= nd - nt ? T[d] : 1;
                n *= R[d];
        }
        c->hits = calloc(n, sizeof(unsigned));
        c->uarch = 3;
}

static void cover_check(cover_t *c, const char *what, int threads) {
        size_t n = 1;
        for (unsigned d = 0; d < c->nd; d++)
                n *= c->range[d];
        ck_assert_msg(c->bad == 0, "%s (%d threads): %u calls with wrong arguments", what, threads, c->bad);
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(c->hits[i] == 1, "%s (%d threads): element %zu covered %u times", what, threads, i,
                              c->hits[i]);
        free(c->hits);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void run_every_variant(pthreadpool_t p, int threads) {
        cover_t c;
        const size_t *r = R, *t = T;
#define CASE(ND, NT, CALL)                   \
        do {                                 \
                cover_init(&c, ND, NT);      \
                CALL;                        \
                cover_check(&c, #CALL, threads); \
        } while (0)
        CASE(1, 0, pthreadpool_parallelize_1d(p, t1, &c, r[0], 0));
        CASE(1, 0, pthreadpool_parallelize_1d_with_uarch(p, i1, &c, 3, 5, r[0], 0));
        CASE(1, 1, pthreadpool_parallelize_1d_tile_1d(p, t2, &c, r[0], t[0], 0));
        CASE(2, 0, pthreadpool_parallelize_2d(p, t2, &c, r[0], r[1], 0));
        CASE(2, 1, pthreadpool_parallelize_2d_tile_1d(p, t3, &c, r[0], r[1], t[1], 0));
        CASE(2, 2, pthreadpool_parallelize_2d_tile_2d(p, t4, &c, r[0], r[1], t[0], t[1], 0));
        CASE(2, 2, pthreadpool_parallelize_2d_tile_2d_with_uarch(p, i4, &c, 3, 5, r[0], r[1], t[0], t[1], 0));
        CASE(3, 0, pthreadpool_parallelize_3d(p, t3, &c, r[0], r[1], r[2], 0));
        CASE(3, 1, pthreadpool_parallelize_3d_tile_1d(p, t4, &c, r[0], r[1], r[2], t[2], 0));
        CASE(3, 2, pthreadpool_parallelize_3d_tile_2d(p, t5, &c, r[0], r[1], r[2], t[1], t[2], 0));
        CASE(3, 2, pthreadpool_parallelize_3d_tile_2d_with_uarch(p, i5, &c, 3, 5, r[0], r[1], r[2], t[1], t[2], 0));
        CASE(4, 0, pthreadpool_parallelize_4d(p, t4, &c, r[0], r[1], r[2], r[3], 0));
        CASE(4, 1, pthreadpool_parallelize_4d_tile_1d(p, t5, &c, r[0], r[1], r[2], r[3], t[3], 0));
        CASE(4, 2, pthreadpool_parallelize_4d_tile_2d(p, t6, &c, r[0], r[1], r[2], r[3], t[2], t[3], 0));
        CASE(4, 2, pthreadpool_parallelize_4d_tile_2d_with_uarch(p, i6, &c, 3, 5, r[0], r[1], r[2], r[3], t[2], t[3],
                                                                  0));
        CASE(5, 0, pthreadpool_parallelize_5d(p, t5, &c, r[0], r[1], r[2], r[3], r[4], 0));
        CASE(5, 1, pthreadpool_parallelize_5d_tile_1d(p, t6, &c, r[0], r[1], r[2], r[3], r[4], t[4], 0));
        CASE(5, 2, pthreadpool_parallelize_5d_tile_2d(p, t7, &c, r[0], r[1], r[2], r[3], r[4], t[3], t[4], 0));
        CASE(6, 0, pthreadpool_parallelize_6d(p, t6, &c, r[0], r[1], r[2], r[3], r[4], r[5], 0));
        CASE(6, 1, pthreadpool_parallelize_6d_tile_1d(p, t7, &c, r[0], r[1], r[2], r[3], r[4], r[5], t[5], 0));
        CASE(6, 2, pthreadpool_parallelize_6d_tile_2d(p, t8, &c, r[0], r[1], r[2], r[3], r[4], r[5], t[4], t[5], 0));
        CASE(1, 0, pthreadpool_compute_1d(p, t1, &c, r[0]));
        CASE(1, 1, pthreadpool_compute_1d_tiled(p, t2, &c, r[0], t[0]));
        CASE(2, 0, pthreadpool_compute_2d(p, t2, &c, r[0], r[1]));
        CASE(2, 2, pthreadpool_compute_2d_tiled(p, t4, &c, r[0], r[1], t[0], t[1]));
        CASE(3, 3, pthreadpool_compute_3d_tiled(p, t6, &c, r[0], r[1], r[2], t[0], t[1], t[2]));
        CASE(4, 4, pthreadpool_compute_4d_tiled(p, t8, &c, r[0], r[1], r[2], r[3], t[0], t[1], t[2], t[3]));
#undef CASE
}
#pragma GCC diagnostic pop

START_TEST(test_every_entry_point_covers_each_index_once) {
        int before = test_threads_before();
        run_every_variant(NULL, 0);
        ck_assert_uint_eq(pthreadpool_get_threads_count(NULL), 1);
        for (size_t threads = 1; threads <= 4; threads++) {
                pthreadpool_t p = pthreadpool_create(threads);
                ck_assert_ptr_nonnull(p);
                ck_assert_uint_eq(pthreadpool_get_threads_count(p), threads);
                ck_assert_int_eq(test_threads_count(), before + (int) threads - 1);
                for (int round = 0; round < 3; round++)
                        run_every_variant(p, (int) threads);
                rt_threadpool_stats_t st;
                rt_threadpool_stats_get(p, &st);
                ck_assert_uint_eq(st.calls, 3 * 27);
                ck_assert_uint_eq(st.parallel, threads > 1 ? 3 * 27 : 0);
                pthreadpool_destroy(p);
                ck_assert_int_eq(test_threads_count(), before);
        }
        /* 0: one thread per online CPU. */
        pthreadpool_t p = pthreadpool_create(0);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_ge(pthreadpool_get_threads_count(p), 1);
        pthreadpool_destroy(p);
        pthreadpool_destroy(NULL);
}
END_TEST

/* ---- Flags. */

static void csr_item(void *ctx, size_t i) {
#if defined(__SSE__)
        unsigned *seen = ctx;
        seen[i] = _mm_getcsr() & 0x8040u;
#else
        ((unsigned *) ctx)[i] = 0x8040u;
#endif
        struct timespec ts = { 0, 100000 };
        nanosleep(&ts, NULL);   /* so that the worker takes some items */
}

static void wait_asleep(pthreadpool_t p, unsigned n) {
        rt_threadpool_stats_t st;
        for (int i = 0; i < 2000; i++) {
                rt_threadpool_stats_get(p, &st);
                if (st.asleep == n)
                        return;
                sleep_ms(5);
        }
        ck_abort_msg("workers not asleep after 10 s (%u of %u)", st.asleep, n);
}

START_TEST(test_flags_denormals_and_yield) {
        pthreadpool_t p = pthreadpool_create(3);
        unsigned seen[64];
#if defined(__SSE__)
        unsigned csr = _mm_getcsr();
#endif
        pthreadpool_parallelize_1d(p, csr_item, seen, 64, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
        for (int i = 0; i < 64; i++)
                ck_assert_uint_eq(seen[i], 0x8040u);
#if defined(__SSE__)
        ck_assert_uint_eq(_mm_getcsr(), csr);
        pthreadpool_parallelize_1d(p, csr_item, seen, 64, 0);
        for (int i = 0; i < 64; i++)
                ck_assert_uint_eq(seen[i], csr & 0x8040u);
        /* Inline too (NULL pool). */
        pthreadpool_parallelize_1d(NULL, csr_item, seen, 4, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
        for (int i = 0; i < 4; i++)
                ck_assert_uint_eq(seen[i], 0x8040u);
        ck_assert_uint_eq(_mm_getcsr(), csr);
#endif
        /* Spinning workers (a long spin) sleep right after a yielding call. */
        rt_threadpool_set_spin_ns(p, 60ull * 1000000000u);
        pthreadpool_parallelize_1d(p, csr_item, seen, 8, 0);
        pthreadpool_parallelize_1d(p, csr_item, seen, 8, PTHREADPOOL_FLAG_YIELD_WORKERS);
        wait_asleep(p, 2);
        /* And the same through rt_threadpool_rest(), after a call. */
        rt_threadpool_stats_t a, b;
        pthreadpool_parallelize_1d(p, csr_item, seen, 8, 0);
        rt_threadpool_stats_get(p, &a);
        rt_threadpool_rest(p);
        wait_asleep(p, 2);
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_eq(b.rests, a.rests + 1);
        pthreadpool_destroy(p);
}
END_TEST

/* A worker changes its floating-point state only when a call asks for
 * another one (threadpool.c keeps it between calls): so calls alternating
 * with and without PTHREADPOOL_FLAG_DISABLE_DENORMALS must each see
 * theirs on every thread, the workers' items included. */
START_TEST(test_worker_fp_state_follows_each_call) {
#if defined(__SSE__)
        pthreadpool_t p = pthreadpool_create(2);
        const unsigned csr = _mm_getcsr();
        rt_threadpool_stats_t a, b;
        rt_threadpool_stats_get(p, &a);
        for (int k = 0; k < 8; k++) {
                unsigned seen[16];
                bool flag = k % 2 == 0;
                memset(seen, 0xff, sizeof(seen));
                pthreadpool_parallelize_1d(p, csr_item, seen, 16, flag ? PTHREADPOOL_FLAG_DISABLE_DENORMALS : 0);
                for (int i = 0; i < 16; i++)
                        ck_assert_msg(seen[i] == (flag ? 0x8040u : (csr & 0x8040u)),
                                      "call %d item %d: MXCSR bits %#x", k, i, seen[i]);
                ck_assert_uint_eq(_mm_getcsr(), csr);
        }
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_gt(b.worker_items, a.worker_items);      /* the worker's own items were checked too */
        pthreadpool_destroy(p);
#endif
}
END_TEST

/* Items of a 2d tile-2d call: FTZ/DAZ as each saw them. */
static void csr_tile(void *ctx, size_t i, size_t j, size_t ti, size_t tj) {
        unsigned *seen = ctx;
        (void) ti;
        (void) tj;
#if defined(__SSE__)
        seen[i * 4 + j] = _mm_getcsr() & 0x8040u;
#else
        seen[i * 4 + j] = 0x8040u;
#endif
}

/* A NULL pool runs the calls here: with FTZ/DAZ set already (the
 * interpreter's invoke) they stay set and the other MXCSR bits are kept;
 * without, they are set for the items and cleared after; a zero tile
 * counts as one; an empty range calls nothing. */
START_TEST(test_null_pool_inline_edges) {
        unsigned seen[16];
#if defined(__SSE__)
        const unsigned csr = _mm_getcsr();
        _mm_setcsr((csr & ~0x8040u) | 0x8040u);
        memset(seen, 0, sizeof(seen));
        pthreadpool_parallelize_2d_tile_2d(NULL, csr_tile, seen, 4, 4, 1, 1, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
        for (int i = 0; i < 16; i++)
                ck_assert_uint_eq(seen[i], 0x8040u);
        ck_assert_uint_eq(_mm_getcsr(), (csr & ~0x8040u) | 0x8040u);
        _mm_setcsr(csr & ~0x8040u);
        memset(seen, 0, sizeof(seen));
        pthreadpool_parallelize_2d_tile_2d(NULL, csr_tile, seen, 4, 4, 1, 1, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
        for (int i = 0; i < 16; i++)
                ck_assert_uint_eq(seen[i], 0x8040u);
        ck_assert_uint_eq(_mm_getcsr(), csr & ~0x8040u);
        _mm_setcsr(csr);
#endif
        cover_t c;
        cover_init(&c, 2, 2);
        c.tile[0] = c.tile[1] = 1;
        pthreadpool_parallelize_2d_tile_2d(NULL, t4, &c, R[0], R[1], 0, 0, 0);
        cover_check(&c, "2d_tile_2d, zero tiles", 0);
        cover_init(&c, 1, 1);
        c.tile[0] = 1;
        pthreadpool_parallelize_1d_tile_1d(NULL, t2, &c, R[0], 0, 0);
        cover_check(&c, "1d_tile_1d, zero tile", 0);
        memset(seen, 0, sizeof(seen));
        pthreadpool_parallelize_2d_tile_2d(NULL, csr_tile, seen, 0, 4, 1, 1, 0);
        pthreadpool_parallelize_1d(NULL, csr_item, seen, 0, 0);
        for (int i = 0; i < 16; i++)
                ck_assert_uint_eq(seen[i], 0);
}
END_TEST

/* ---- Sleeping workers. */

typedef struct slow {
        pthread_t caller;
        unsigned on_worker;
        unsigned count;
} slow_t;

static void slow_item(void *ctx, size_t i) {
        slow_t *s = ctx;
        (void) i;
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
        if (!pthread_equal(pthread_self(), s->caller))
                __atomic_fetch_add(&s->on_worker, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
}

/* Workers that went to sleep are woken by the next call (a wake counted),
 * and do take items again. */
START_TEST(test_sleeping_worker_woken) {
        pthreadpool_t p = pthreadpool_create(2);
        rt_threadpool_set_spin_ns(p, 0);
        slow_t s = { .caller = pthread_self() };
        pthreadpool_parallelize_1d(p, slow_item, &s, 8, 0);
        ck_assert_uint_eq(s.count, 8);
        wait_asleep(p, 1);
        rt_threadpool_stats_t a, b;
        rt_threadpool_stats_get(p, &a);
        ck_assert_uint_ge(a.sleeps, 1);
        s.count = 0;
        pthreadpool_parallelize_1d(p, slow_item, &s, 16, 0);
        ck_assert_uint_eq(s.count, 16);
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_eq(b.wakes, a.wakes + 1);
        /* It takes part again (asleep at each call, woken each time). */
        s.on_worker = 0;
        for (int i = 0; i < 500 && __atomic_load_n(&s.on_worker, __ATOMIC_RELAXED) == 0; i++) {
                wait_asleep(p, 1);
                pthreadpool_parallelize_1d(p, slow_item, &s, 16, 0);
        }
        ck_assert_uint_gt(s.on_worker, 0);
        pthreadpool_destroy(p);
}
END_TEST

/* Stealing: an owner stuck in one item does not keep the rest of its
 * share. The caller's first item (item 0 unless the caller came late and
 * a worker took it) waits, up to 20 s, until the other threads have run
 * more items than their own shares hold: with the caller stuck in its
 * first chunk, they can only get there by taking from the caller's
 * share. */
typedef struct stuck {
        pthread_t caller;
        bool caller_started;    /* the caller's thread only */
        size_t items, threads;
        unsigned by_others;
        unsigned count;
} stuck_t;

static void stuck_item(void *ctx, size_t i) {
        stuck_t *s = ctx;
        (void) i;
        bool on_caller = pthread_equal(pthread_self(), s->caller);
        if (on_caller && !s->caller_started) {
                s->caller_started = true;
                size_t others_share = s->items - s->items / s->threads;
                for (int k = 0; k < 20000; k++) {
                        if (__atomic_load_n(&s->by_others, __ATOMIC_ACQUIRE) > others_share)
                                break;
                        struct timespec ts = { 0, 1000000 };
                        nanosleep(&ts, NULL);
                }
        }
        if (!on_caller)
                __atomic_fetch_add(&s->by_others, 1, __ATOMIC_RELEASE);
        __atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
}

START_TEST(test_others_take_a_stuck_owners_share) {
        for (size_t n = 2; n <= 4; n++) {
                pthreadpool_t p = pthreadpool_create(n);
                stuck_t s = { .caller = pthread_self(), .items = 64, .threads = n };
                pthreadpool_parallelize_1d(p, stuck_item, &s, s.items, 0);
                ck_assert_uint_eq(s.count, s.items);
                ck_assert_msg(s.by_others > s.items - s.items / n,
                              "%zu threads: the others ran %u items, their shares hold %zu", n, s.by_others,
                              s.items - s.items / n);
                pthreadpool_destroy(p);
        }
}
END_TEST

START_TEST(test_destroy_while_asleep) {
        int before = test_threads_before();
        for (size_t threads = 2; threads <= 4; threads++) {
                pthreadpool_t p = pthreadpool_create(threads);
                rt_threadpool_set_spin_ns(p, 0);
                slow_t s = { .caller = pthread_self() };
                pthreadpool_parallelize_1d(p, slow_item, &s, 4, 0);
                wait_asleep(p, (unsigned) threads - 1);
                pthreadpool_destroy(p);
                ck_assert_int_eq(test_threads_count(), before);
        }
        /* And while they spin, right after creation. */
        pthreadpool_destroy(pthreadpool_create(4));
        ck_assert_int_eq(test_threads_count(), before);
}
END_TEST

/* ---- Nested pools and shared pools. */

static void nested_item(void *ctx, size_t i) {
        (void) i;
        pthreadpool_t inner = pthreadpool_create(2);
        cover_t c;
        cover_init(&c, 2, 2);
        pthreadpool_parallelize_2d_tile_2d(inner, t4, &c, R[0], R[1], T[0], T[1], 0);
        unsigned ok = c.bad == 0;
        for (size_t k = 0; k < R[0] * R[1]; k++)
                ok &= c.hits[k] == 1;
        free(c.hits);
        pthreadpool_destroy(inner);
        if (ok)
                __atomic_fetch_add((unsigned *) ctx, 1, __ATOMIC_RELAXED);
}

START_TEST(test_nested_create_destroy) {
        int before = test_threads_before();
        pthreadpool_t p = pthreadpool_create(2);
        unsigned ok = 0;
        pthreadpool_parallelize_1d(p, nested_item, &ok, 6, 0);
        ck_assert_uint_eq(ok, 6);
        pthreadpool_destroy(p);
        ck_assert_int_eq(test_threads_count(), before);
}
END_TEST

typedef struct sharer {
        pthreadpool_t pool;
        unsigned failures;
} sharer_t;

static void *sharer_main(void *arg) {
        sharer_t *s = arg;
        for (int k = 0; k < 200; k++) {
                cover_t c;
                cover_init(&c, 3, 2);
                pthreadpool_parallelize_3d_tile_2d(s->pool, t5, &c, R[0], R[1], R[2], T[1], T[2], 0);
                for (size_t i = 0; i < R[0] * R[1] * R[2]; i++)
                        s->failures += c.hits[i] != 1;
                s->failures += c.bad;
                free(c.hits);
        }
        return NULL;
}

/* Two threads calling the same pool: the calls are serialized. */
START_TEST(test_shared_pool_two_callers) {
        pthreadpool_t p = pthreadpool_create(3);
        sharer_t a = { .pool = p }, b = { .pool = p };
        pthread_t ta, tb;
        ck_assert_int_eq(pthread_create(&ta, NULL, sharer_main, &a), 0);
        ck_assert_int_eq(pthread_create(&tb, NULL, sharer_main, &b), 0);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        ck_assert_uint_eq(a.failures + b.failures, 0);
        rt_threadpool_stats_t st;
        rt_threadpool_stats_get(p, &st);
        ck_assert_uint_eq(st.parallel, 400);
        pthreadpool_destroy(p);
}
END_TEST

/* ---- The schedule. */

/* A heavy item: it sleeps, so that two threads halve a call's time even
 * on a machine whose CPUs are busy with other work. */
static void heavy_item(void *ctx, size_t i) {
        (void) i;
        struct timespec ts = { 0, *(const long *) ctx };
        nanosleep(&ts, NULL);
}

static void tiny_item(void *ctx, size_t i) {
        __atomic_fetch_add((unsigned *) ctx, (unsigned) i + 1, __ATOMIC_RELAXED);
}

/* One invoke: a heavy call (items of 2 ms asleep: twice as fast on two
 * threads), a tiny one (two increments: a parallel call only adds the
 * hand-off), the heavy one again. `tiny_range` changes the second. */
static void invoke(pthreadpool_t p, rt_threadpool_schedule_t *s, size_t tiny_range, bool third) {
        static const long heavy_ns = 2000000;
        unsigned sum = 0;
        rt_threadpool_invoke_begin(p, s);
        pthreadpool_parallelize_1d(p, heavy_item, (void *) &heavy_ns, 8, 0);
        pthreadpool_parallelize_1d(p, tiny_item, &sum, tiny_range, 0);
        if (third)
                pthreadpool_parallelize_1d(p, heavy_item, (void *) &heavy_ns, 8, 0);
        rt_threadpool_invoke_end(p);
        ck_assert_uint_eq(sum, tiny_range * (tiny_range + 1) / 2);
}

static void learn(pthreadpool_t p, rt_threadpool_schedule_t *s) {
        rt_threadpool_schedule_stats_t st;
        for (int i = 0; i < 20; i++) {
                invoke(p, s, 2, true);
                rt_threadpool_schedule_stats_get(s, &st);
                if (st.learned)
                        return;
        }
        ck_abort_msg("not learned after 20 invokes");
}

START_TEST(test_schedule_learns_each_way) {
        pthreadpool_t p = pthreadpool_create(2);
        rt_threadpool_set_spin_ns(p, 60ull * 1000000000u);
        rt_threadpool_schedule_t *s = NULL;
        rt_threadpool_schedule_stats_t st;
        /* Learned: the tiny call runs on the caller alone, the heavy ones
         * in parallel. A machine busy with other work can delay any
         * sample: try a few times. */
        rt_threadpool_stats_t a, b;
        for (int attempt = 0; attempt < 5; attempt++) {
                rt_threadpool_schedule_free(s);
                s = rt_threadpool_schedule_new_with(true);
                learn(p, s);
                rt_threadpool_schedule_stats_get(s, &st);
                ck_assert_uint_eq(st.calls, 3);
                ck_assert_uint_eq(st.relearns, 0);
                rt_threadpool_stats_get(p, &a);
                invoke(p, s, 2, true);
                rt_threadpool_stats_get(p, &b);
                if (st.parallel == 2 && b.inlined - a.inlined == 1)
                        break;
        }
        ck_assert_uint_eq(st.parallel, 2);
        ck_assert_uint_eq(b.inlined - a.inlined, 1);
        ck_assert_uint_eq(b.parallel - a.parallel, 2);

        /* Then the mix is timed as whole invokes against the uniform ways,
         * and whichever won runs: its parallel calls are the stats'. */
        for (int i = 0; i < 4; i++)
                invoke(p, s, 2, true);
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(st.checked);
        rt_threadpool_stats_get(p, &a);
        invoke(p, s, 2, true);
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_eq(b.parallel - a.parallel, st.parallel);
        ck_assert_uint_eq(b.inlined - a.inlined, 3 - st.parallel);

        /* Another range for the second call: it and the rest of that
         * invoke run in parallel, and learning starts anew. */
        bool first_parallel = st.parallel > 0;      /* a uniform way, or the mix (heavy first) */
        rt_threadpool_stats_get(p, &a);
        invoke(p, s, 3, true);
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_eq(b.inlined - a.inlined, first_parallel ? 0 : 1);
        ck_assert_uint_eq(b.parallel - a.parallel, first_parallel ? 3 : 2);
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(!st.learned);
        ck_assert_uint_eq(st.relearns, 1);
        learn(p, s);
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert_uint_eq(st.calls, 3);
        ck_assert_uint_eq(st.relearns, 1);

        /* Fewer calls than recorded: relearn too. */
        invoke(p, s, 2, false);
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(!st.learned);
        ck_assert_uint_eq(st.relearns, 2);

        /* Calls outside an invoke, or on another pool, are left alone. */
        rt_threadpool_stats_get(p, &a);
        unsigned sum = 0;
        pthreadpool_parallelize_1d(p, tiny_item, &sum, 2, 0);
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_eq(b.parallel - a.parallel, 1);
        rt_threadpool_schedule_free(s);
        pthreadpool_destroy(p);
}
END_TEST

START_TEST(test_schedule_off) {
        pthreadpool_t p = pthreadpool_create(2);
        ck_assert_int_eq(setenv("ACCEL_POOL_LEARN", "0", 1), 0);
        rt_threadpool_schedule_t *s = rt_threadpool_schedule_new();
        ck_assert_int_eq(unsetenv("ACCEL_POOL_LEARN"), 0);
        rt_threadpool_schedule_stats_t st;
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(!st.learn);
        rt_threadpool_stats_t a, b;
        rt_threadpool_stats_get(p, &a);
        for (int i = 0; i < 12; i++)
                invoke(p, s, 2, true);
        rt_threadpool_stats_get(p, &b);
        ck_assert_uint_eq(b.inlined - a.inlined, 0);
        ck_assert_uint_eq(b.parallel - a.parallel, 36);
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(!st.learned);
        ck_assert_uint_eq(st.invokes, 12);
        rt_threadpool_schedule_free(s);
        /* The default: off; ACCEL_POOL_LEARN=1 turns it on. */
        s = rt_threadpool_schedule_new();
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(!st.learn);
        rt_threadpool_schedule_free(s);
        ck_assert_int_eq(setenv("ACCEL_POOL_LEARN", "1", 1), 0);
        s = rt_threadpool_schedule_new();
        ck_assert_int_eq(unsetenv("ACCEL_POOL_LEARN"), 0);
        rt_threadpool_schedule_stats_get(s, &st);
        ck_assert(st.learn);
        rt_threadpool_schedule_free(s);
        pthreadpool_destroy(p);
}
END_TEST

int main(void) {
        Suite *s = suite_create("threadpool");
        TCase *tc = tcase_create("threadpool");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_every_entry_point_covers_each_index_once);
        tcase_add_test(tc, test_flags_denormals_and_yield);
        tcase_add_test(tc, test_null_pool_inline_edges);
        tcase_add_test(tc, test_worker_fp_state_follows_each_call);
        tcase_add_test(tc, test_others_take_a_stuck_owners_share);
        tcase_add_test(tc, test_sleeping_worker_woken);
        tcase_add_test(tc, test_destroy_while_asleep);
        tcase_add_test(tc, test_nested_create_destroy);
        tcase_add_test(tc, test_shared_pool_two_callers);
        tcase_add_test(tc, test_schedule_learns_each_way);
        tcase_add_test(tc, test_schedule_off);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
