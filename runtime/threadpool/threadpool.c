/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pool itself: creation, the workers, how they wait and how a call is
 * shared among them (docs/architecture.md, "acceld's own thread pool").
 *
 * Why not Debian's libpthreadpool: its caller makes a futex_wake system
 * call on every parallel call, even when the workers are spinning and
 * would see the call without it (1.2 us per call on the 2-vCPU VM, and a
 * group of a ~1 ms model makes 90-110 calls per invoke). Here the caller
 * wakes a worker only when that worker announced it is going to sleep.
 *
 * A call: the caller writes the job and each participant's share of its
 * items, then publishes a new sequence number in the control word. A
 * spinning worker sees it, joins (one CAS that counts it in, refused once
 * the call is closed), claims chunks from the front of its share and then
 * steals chunks from the back of the others', and leaves (counts itself
 * out). The caller runs its own share, steals too, and once no item is
 * left to claim it closes the call
 * and spins until the workers that joined have left. A worker that was
 * late (asleep, or descheduled) finds the call closed and joins the next
 * one: nobody waits for it.
 *
 * Waiting: a worker spins (PAUSE) on the control word for spin_ns (4 ms by
 * default; the driver's pool.c puts idle pools to rest sooner), then sets
 * its `asleep` flag, looks at the control word once more and sleeps on its
 * own futex word. The caller, after publishing, reads the flags: the
 * store/load pairs on both sides are sequentially consistent, so either
 * the worker sees the call or the caller sees the flag (and bumps the
 * futex word and wakes it).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "threadpool-internal.h"

#define TP_DEFAULT_SPIN_NS 4000000u

/* Process-wide: calls on pools of 2 or more threads, and how they ran
 * (rt_threadpool_totals_get: the tests' proof that XNNPACK runs here). */
static _Atomic uint64_t total_calls, total_parallel, total_inlined;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
}

static void futex_wait(atomic_uint *word, unsigned val) {
        (void) syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word) {
        (void) syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline uint32_t ctl_seq(uint64_t c) {
        return (uint32_t) (c >> TP_CTL_SEQ_SHIFT);
}


/* Claims a chunk of `part`: a quarter of what is left (at least one
 * item), from the front for its owner, from the back for a thief. So an
 * owner and a thief touch the same word a few times per call, not once
 * per item, and the last chunks are single items. (Stealing the back half
 * into the thief's own part instead, so that the owner's word is touched
 * once per steal, measured the same on the ~1 ms models and slower on
 * calls of many tiny items: docs/performance.md, "Two threads on the ~1
 * ms float models: where the second thread's time goes".) */
static bool part_claim(tp_part_t *part, bool owner, size_t *ret_begin, size_t *ret_end) {
        uint64_t w = atomic_load_explicit(&part->range, memory_order_relaxed);
        for (;;) {
                uint32_t b = (uint32_t) w, e = (uint32_t) (w >> 32);
                if (b >= e)
                        return false;
                uint32_t c = (e - b + 3) / 4;
                uint64_t next = owner ? ((uint64_t) e << 32 | (b + c)) : ((uint64_t) (e - c) << 32 | b);
                if (atomic_compare_exchange_weak_explicit(&part->range, &w, next, memory_order_relaxed,
                                                          memory_order_relaxed)) {
                        *ret_begin = owner ? b : e - c;
                        *ret_end = owner ? b + c : e;
                        return true;
                }
        }
}

/* Claims and runs items, own share first; returns how many it ran. The
 * caller of this sets the floating-point state. */
static size_t participate(struct pthreadpool *p, const tp_job_t *j, size_t self) {
        size_t ran = 0, n = p->threads, b, e;
        for (size_t k = 0; k < n; k++) {
                tp_part_t *part = &p->parts[(self + k) % n];
                while (part_claim(part, k == 0, &b, &e)) {
                        rt__tp_job_run(j, b, e);
                        ran += e - b;
                }
        }
        return ran;
}

/* Spins, then sleeps, until the control word's sequence differs from
 * `seen` or the pool stops. `sleep_now`: skip the spinning (yield). */
static uint64_t worker_wait(tp_worker_t *w, uint32_t seen, bool sleep_now) {
        struct pthreadpool *p = w->pool;
        if (!sleep_now) {
                uint64_t spin = atomic_load_explicit(&p->spin_ns, memory_order_relaxed);
                uint64_t start = acc_now_ns();
                for (unsigned k = 1;; k++) {
                        uint64_t c = atomic_load_explicit(&p->ctl, memory_order_acquire);
                        if (ctl_seq(c) != seen || atomic_load_explicit(&p->stop, memory_order_relaxed))
                                return c;
                        cpu_relax();
                        if ((k & 1023) == 0 && acc_now_ns() - start >= spin)
                                break;
                }
        }
        for (;;) {
                atomic_store(&w->asleep, 1);
                unsigned f = atomic_load(&w->futex);
                uint64_t c = atomic_load(&p->ctl);
                if (ctl_seq(c) != seen || atomic_load(&p->stop)) {
                        atomic_store(&w->asleep, 0);
                        return c;
                }
                atomic_fetch_add_explicit(&p->sleeps, 1, memory_order_relaxed);
                futex_wait(&w->futex, f);
                atomic_store(&w->asleep, 0);
        }
}

static void *worker_main(void *arg) {
        tp_worker_t *w = arg;
        struct pthreadpool *p = w->pool;
        /* The sequence at creation (0), not the one this thread finds
         * when it starts: a call published before it got to run is one it
         * must join (test_others_take_a_stuck_owners_share). */
        uint32_t seen = 0;
        bool sleep_now = false;
#if defined(__SSE__)
        /* The worker's own floating-point state, changed only when a call
         * asks for another one (PTHREADPOOL_FLAG_DISABLE_DENORMALS on or
         * off), not set and restored around every call: nothing else runs
         * on this thread. */
        const unsigned int base_csr = _mm_getcsr();
        unsigned int csr = base_csr;
#endif
        for (;;) {
                uint64_t c = worker_wait(w, seen, sleep_now);
                if (atomic_load_explicit(&p->stop, memory_order_acquire))
                        break;
                seen = ctl_seq(c);
                sleep_now = (c & TP_CTL_YIELD) != 0;
                while (!(c & TP_CTL_CLOSED) && ctl_seq(c) == seen) {
                        if (!atomic_compare_exchange_weak_explicit(&p->ctl, &c, c + 1, memory_order_acquire,
                                                                   memory_order_acquire))
                                continue;
#if defined(__SSE__)
                        unsigned int want = p->job.flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS
                                                    ? base_csr | 0x8040u
                                                    : base_csr;
                        if (want != csr) {
                                _mm_setcsr(want);
                                csr = want;
                        }
#endif
                        size_t ran = participate(p, &p->job, w->index);
                        if (ran)
                                atomic_store_explicit(&w->items,
                                                      atomic_load_explicit(&w->items, memory_order_relaxed) + ran,
                                                      memory_order_relaxed);
                        atomic_fetch_sub_explicit(&p->ctl, 1, memory_order_release);
                        break;
                }
        }
        return NULL;
}

/* Publishes a new control word (under call_lock) and wakes the workers
 * that announced they sleep. */
static void ctl_publish(struct pthreadpool *p, uint64_t flags) {
        uint64_t c = atomic_load_explicit(&p->ctl, memory_order_relaxed);
        uint64_t next = ((uint64_t) (ctl_seq(c) + 1u) << TP_CTL_SEQ_SHIFT) | flags;
        atomic_store(&p->ctl, next);
        for (size_t i = 0; i + 1 < p->threads; i++) {
                tp_worker_t *w = &p->workers[i];
                if (atomic_load(&w->asleep) && atomic_exchange(&w->asleep, 0)) {
                        atomic_fetch_add(&w->futex, 1);
                        futex_wake(&w->futex);
                        atomic_fetch_add_explicit(&p->wakes, 1, memory_order_relaxed);
                }
        }
}

void rt__tp_execute_inline(struct pthreadpool *p, const tp_job_t *j) {
        tp_fp_t fp;
        tp_fp_enter(&fp, j->flags);
        rt__tp_job_run(j, 0, j->items);
        tp_fp_leave(&fp);
        if (p && p->threads > 1) {
                atomic_fetch_add_explicit(&p->inlined, 1, memory_order_relaxed);
                atomic_fetch_add_explicit(&total_inlined, 1, memory_order_relaxed);
        }
}

void rt__tp_execute_parallel(struct pthreadpool *p, tp_job_t *j) {
        pthread_mutex_lock(&p->call_lock);
        p->job = *j;
        size_t n = p->threads;
        for (size_t t = 0; t < n; t++)
                atomic_store_explicit(&p->parts[t].range,
                                      (uint64_t) (j->items * (t + 1) / n) << 32 | (uint64_t) (j->items * t / n),
                                      memory_order_relaxed);
        ctl_publish(p, (j->flags & PTHREADPOOL_FLAG_YIELD_WORKERS) ? TP_CTL_YIELD : 0);
        tp_fp_t fp;
        tp_fp_enter(&fp, j->flags);
        participate(p, &p->job, 0);
        tp_fp_leave(&fp);
        uint64_t c = atomic_fetch_or_explicit(&p->ctl, TP_CTL_CLOSED, memory_order_acq_rel);
        while (c & TP_CTL_ACTIVE_MASK) {
                cpu_relax();
                c = atomic_load_explicit(&p->ctl, memory_order_acquire);
        }
        atomic_fetch_add_explicit(&p->parallel, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&total_parallel, 1, memory_order_relaxed);
        pthread_mutex_unlock(&p->call_lock);
}

void rt__tp_execute(struct pthreadpool *p, tp_job_t *j) {
        /* More than 2^32 items: on the caller (the parts count in 32 bits). */
        if (!p || p->threads <= 1 || j->items <= 1 || j->items > UINT32_MAX) {
                if (p)
                        atomic_fetch_add_explicit(&p->calls, 1, memory_order_relaxed);
                rt__tp_execute_inline(NULL, j);
                return;
        }
        atomic_fetch_add_explicit(&p->calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&total_calls, 1, memory_order_relaxed);
        if (!rt__tp_schedule_execute(p, j))
                rt__tp_execute_parallel(p, j);
}

static void pool_stop(struct pthreadpool *p, size_t started) {
        atomic_store(&p->stop, true);
        uint64_t c = atomic_load(&p->ctl);
        atomic_store(&p->ctl, ((uint64_t) (ctl_seq(c) + 1u) << TP_CTL_SEQ_SHIFT) | TP_CTL_CLOSED);
        for (size_t i = 0; i < started; i++) {
                atomic_fetch_add(&p->workers[i].futex, 1);
                futex_wake(&p->workers[i].futex);
        }
        for (size_t i = 0; i < started; i++)
                pthread_join(p->workers[i].thread, NULL);
}

pthreadpool_t pthreadpool_create(size_t threads_count) {
        if (threads_count == 0) {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                threads_count = n > 0 ? (size_t) n : 1;
        }
        if (threads_count > TP_CTL_ACTIVE_MASK)
                return NULL;
        struct pthreadpool *p;
        size_t bytes = sizeof(*p) + threads_count * sizeof(tp_part_t);
        bytes = (bytes + TP_CACHE_LINE - 1) / TP_CACHE_LINE * TP_CACHE_LINE;
        p = aligned_alloc(TP_CACHE_LINE, bytes);
        if (!p)
                return NULL;
        memset(p, 0, bytes);
        p->threads = threads_count;
        atomic_init(&p->spin_ns, TP_DEFAULT_SPIN_NS);
        pthread_mutex_init(&p->call_lock, NULL);
        if (threads_count == 1)
                return p;
        size_t wbytes = (threads_count - 1) * sizeof(tp_worker_t);
        p->workers = aligned_alloc(TP_CACHE_LINE, (wbytes + TP_CACHE_LINE - 1) / TP_CACHE_LINE * TP_CACHE_LINE);
        if (!p->workers)
                goto fail;
        memset(p->workers, 0, wbytes);
        /* Workers take no signals: they belong to the process's own
         * threads (the daemon's loop, its signalfd). */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        size_t started = 0;
        for (; started + 1 < threads_count; started++) {
                tp_worker_t *w = &p->workers[started];
                w->pool = p;
                w->index = (unsigned) started + 1;
                if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
                        break;
                w->started = true;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (started + 1 == threads_count)
                return p;
        pool_stop(p, started);
fail:
        free(p->workers);
        pthread_mutex_destroy(&p->call_lock);
        free(p);
        return NULL;
}

size_t pthreadpool_get_threads_count(pthreadpool_t p) {
        return p ? p->threads : 1;
}

void pthreadpool_destroy(pthreadpool_t p) {
        if (!p)
                return;
        /* A call in flight ends first (a caller's bug, but not a crash). */
        pthread_mutex_lock(&p->call_lock);
        if (p->threads > 1)
                pool_stop(p, p->threads - 1);
        pthread_mutex_unlock(&p->call_lock);
        pthread_mutex_destroy(&p->call_lock);
        free(p->workers);
        free(p);
}

void rt_threadpool_rest(pthreadpool_t p) {
        if (!p || p->threads <= 1)
                return;
        pthread_mutex_lock(&p->call_lock);
        ctl_publish(p, TP_CTL_CLOSED | TP_CTL_YIELD);
        atomic_fetch_add_explicit(&p->rests, 1, memory_order_relaxed);
        pthread_mutex_unlock(&p->call_lock);
}

void rt_threadpool_set_spin_ns(pthreadpool_t p, uint64_t ns) {
        if (p)
                atomic_store_explicit(&p->spin_ns, ns, memory_order_relaxed);
}

void rt_threadpool_stats_get(pthreadpool_t p, rt_threadpool_stats_t *ret) {
        memset(ret, 0, sizeof(*ret));
        if (!p)
                return;
        ret->calls = atomic_load_explicit(&p->calls, memory_order_relaxed);
        ret->parallel = atomic_load_explicit(&p->parallel, memory_order_relaxed);
        ret->inlined = atomic_load_explicit(&p->inlined, memory_order_relaxed);
        ret->wakes = atomic_load_explicit(&p->wakes, memory_order_relaxed);
        ret->sleeps = atomic_load_explicit(&p->sleeps, memory_order_relaxed);
        ret->rests = atomic_load_explicit(&p->rests, memory_order_relaxed);
        for (size_t i = 0; i + 1 < p->threads; i++) {
                ret->worker_items += atomic_load_explicit(&p->workers[i].items, memory_order_relaxed);
                ret->asleep += atomic_load(&p->workers[i].asleep);
        }
}

void rt_threadpool_totals_get(rt_threadpool_stats_t *ret) {
        memset(ret, 0, sizeof(*ret));
        ret->calls = atomic_load_explicit(&total_calls, memory_order_relaxed);
        ret->parallel = atomic_load_explicit(&total_parallel, memory_order_relaxed);
        ret->inlined = atomic_load_explicit(&total_inlined, memory_order_relaxed);
}
