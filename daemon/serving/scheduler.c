/* SPDX-License-Identifier: Apache-2.0 */
/* Worker threads, per-driver priority queues, results back through uv_async. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <stdio.h>
#include <string.h>

#include "refusals.h"
#include "scheduler.h"

/* Does a go before b? Priority, then deadline (none last), then arrival. */
/* Wait on `cond` for at most `left_ns` (uv_hrtime() is CLOCK_MONOTONIC;
 * the condition variable waits on CLOCK_REALTIME: the remaining time is
 * converted). Wakes early on a signal, as pthread_cond_timedwait does. */
static void cond_wait_for(pthread_cond_t *cond, pthread_mutex_t *mu, uint64_t left_ns) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t) (left_ns / 1000000000u);
        ts.tv_nsec += (long) (left_ns % 1000000000u);
        if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
        }
        (void) pthread_cond_timedwait(cond, mu, &ts);
}

static bool job_before(const daemon_job_t *a, const daemon_job_t *b) {
        if (a->priority != b->priority)
                return a->priority > b->priority;
        if (a->deadline_ns != b->deadline_ns) {
                if (a->deadline_ns == 0)
                        return false;
                if (b->deadline_ns == 0)
                        return true;
                return a->deadline_ns < b->deadline_ns;
        }
        return a->seq < b->seq;
}

static void done_push(daemon_sched_t *s, daemon_job_t *j) {
        j->next = NULL;
        if (s->done_tail)
                s->done_tail->next = j;
        else
                s->done_head = j;
        s->done_tail = j;
}

/* Take the followers of leader j from q (s->mu held): jobs of its batch
 * key, not past their deadline, up to j->batch_max in all, waiting for
 * more until j->batch_delay_ns after the start unless a deadline is in the
 * batch. The followers count as running. */
static void batch_gather_locked(daemon_sched_t *s, daemon_sched_queue_t *q, daemon_job_t *j) {
        uint64_t now = uv_hrtime(), end = now + j->batch_delay_ns;
        bool no_wait = j->deadline_ns != 0;
        daemon_job_t **tail = &j->batch_next;
        unsigned n = 1;

        for (;;) {
                for (daemon_job_t **p = &q->head; *p && n < j->batch_max;) {
                        daemon_job_t *f = *p;

                        if (f->batch_key != j->batch_key || (f->deadline_ns && f->deadline_ns <= now)) {
                                p = &f->next;
                                continue;
                        }
                        *p = f->next;
                        f->next = f->batch_next = NULL;
                        f->queued = false;
                        s->n_queued--;
                        s->n_running++;
                        *tail = f;
                        tail = &f->batch_next;
                        n++;
                        no_wait |= f->deadline_ns != 0;
                }
                if (n >= j->batch_max || no_wait || s->stopping)
                        return;
                now = uv_hrtime();
                if (now >= end)
                        return;
                cond_wait_for(&q->cond, &s->mu, end - now);
        }
}

static void *worker_main(void *arg) {
        daemon_sched_queue_t *q = arg;
        daemon_sched_t *s = q->sched;

        pthread_mutex_lock(&s->mu);
        for (;;) {
                daemon_job_t *j, **p = NULL;

                /* The first job in order whose resource has room. */
                for (;;) {
                        if (s->stopping)
                                break;
                        for (p = &q->head; *p; p = &(*p)->next)
                                if (!(*p)->resource ||
                                    (*p)->resource->busy < ((*p)->resource->limit ? (*p)->resource->limit : 1))
                                        break;
                        if (*p)
                                break;
                        pthread_cond_wait(&q->cond, &s->mu);
                }
                if (s->stopping)
                        break;
                j = *p;
                *p = j->next;
                j->next = NULL;
                if (j->resource)
                        j->resource->busy++;
                j->queued = false;
                j->batch_next = NULL;
                s->n_queued--;
                s->n_running++;
                /* Off the queue, j is this worker's alone until done_push()
                 * below hands it to the loop (under s->mu again): cancels
                 * skip it (queued is false) and only execute_done() reads
                 * started_ns, after that hand-over. So the clock is read
                 * outside the lock, except for a batch leader, whose
                 * gathering (under the lock) needs it first. */
                bool batch = j->batch_key && j->batch_max > 1, late = false;
                if (batch) {
                        j->started_ns = uv_hrtime();
                        late = j->deadline_ns != 0 && j->started_ns > j->deadline_ns;
                        if (!late)
                                batch_gather_locked(s, q, j);
                }
                pthread_mutex_unlock(&s->mu);

                if (!batch) {
                        j->started_ns = uv_hrtime();
                        late = j->deadline_ns != 0 && j->started_ns > j->deadline_ns;
                }
                for (daemon_job_t *f = j->batch_next; f; f = f->batch_next)
                        f->started_ns = j->started_ns;
                if (late)
                        j->result = -ETIME;
                else
                        j->run(j);
                j->finished_ns = uv_hrtime();

                pthread_mutex_lock(&s->mu);
                for (daemon_job_t *f = j->batch_next, *nf; f; f = nf) {
                        nf = f->batch_next;
                        f->batch_next = NULL;
                        f->finished_ns = j->finished_ns;
                        s->n_running--;
                        done_push(s, f);
                }
                j->batch_next = NULL;
                s->n_running--;
                bool freed = j->resource != NULL, wake_queue = false, wake_lanes = false;
                if (freed) {
                        j->resource->busy--;
                        wake_queue = q->head != NULL;
                        wake_lanes = s->res_waiters > 0;
                }
                done_push(s, j);
                /* From here j is the loop's (async_cb may free it): not
                 * touched again. The wake-ups go out after the unlock, so
                 * the woken threads do not block on s->mu at once. None
                 * is lost: busy changed under s->mu, and a waiter tests it
                 * under s->mu before it sleeps; q, its cond and s->async
                 * live until daemon_sched_stop() has joined this thread. */
                pthread_mutex_unlock(&s->mu);
                /* A job skipped for this resource may run now; only
                 * those who wait are woken (see resource_give()). */
                if (wake_queue)
                        pthread_cond_broadcast(&q->cond);
                if (wake_lanes)
                        pthread_cond_broadcast(&s->res_cond);
                /* Safe from any thread; the callback runs on the loop. */
                (void) uv_async_send(&s->async);
                pthread_mutex_lock(&s->mu);
        }
        pthread_mutex_unlock(&s->mu);
        return NULL;
}

static void async_cb(uv_async_t *a) {
        daemon_sched_t *s = a->data;
        daemon_job_t *list;

        /* Wake-ups coalesce: drain everything. */
        pthread_mutex_lock(&s->mu);
        list = s->done_head;
        s->done_head = s->done_tail = NULL;
        pthread_mutex_unlock(&s->mu);
        while (list) {
                daemon_job_t *j = list;

                list = j->next;
                j->next = NULL;
                s->n_finished++;
                j->done(j, j->result);
        }
}

int daemon_sched_init(daemon_sched_t *s, uv_loop_t *loop, unsigned threads_per_queue) {
        int r;

        *s = (daemon_sched_t) { .threads_per_queue = threads_per_queue ? threads_per_queue : 1 };
        r = pthread_mutex_init(&s->mu, NULL);
        if (r != 0)
                return -r;
        r = pthread_cond_init(&s->res_cond, NULL);
        if (r != 0) {
                pthread_mutex_destroy(&s->mu);
                return -r;
        }
        r = uv_async_init(loop, &s->async, async_cb);
        if (r < 0) {
                pthread_cond_destroy(&s->res_cond);
                pthread_mutex_destroy(&s->mu);
                return r;
        }
        s->async.data = s;
        s->async_open = true;
        return 0;
}

static daemon_sched_queue_t *queue_get(daemon_sched_t *s, const char *name) {
        daemon_sched_queue_t *q;

        for (q = s->queues; q; q = q->next)
                if (strcmp(q->name, name) == 0)
                        return q;
        q = calloc(1, sizeof(*q));
        if (!q)
                return NULL;
        q->threads = calloc(s->threads_per_queue, sizeof(pthread_t));
        if (!q->threads || pthread_cond_init(&q->cond, NULL) != 0) {
                free(q->threads);
                free(q);
                return NULL;
        }
        (void) snprintf(q->name, sizeof(q->name), "%s", name);
        q->sched = s;
        /* Threads are created outside the lock by the caller. */
        q->next = s->queues;
        s->queues = q;
        return q;
}

static int queue_start_threads(daemon_sched_queue_t *q, unsigned want) {
        while (q->n_threads < want) {
                int r = pthread_create(&q->threads[q->n_threads], NULL, worker_main, q);

                if (r != 0)
                        return q->n_threads > 0 ? 0 : -r;
                q->n_threads++;
        }
        return 0;
}

int daemon_sched_submit(daemon_sched_t *s, const char *queue_name, daemon_job_t *job) {
        daemon_sched_queue_t *q;
        daemon_job_t **p;
        bool batch;
        int r;

        if (s->stopping)
                return -ESHUTDOWN;
        /* Only the loop thread creates queues, so the list is stable here. */
        pthread_mutex_lock(&s->mu);
        q = queue_get(s, queue_name);
        pthread_mutex_unlock(&s->mu);
        if (!q)
                return -ENOMEM;
        if (q->n_threads < s->threads_per_queue) {
                r = queue_start_threads(q, s->threads_per_queue);
                if (r < 0)
                        return r == EAGAIN ? -EAGAIN : -r;
        }

        /* The job is not shared before it is linked in: its own fields
         * (and the clock) are set outside the lock. */
        job->queue = q;
        job->enqueued_ns = uv_hrtime();
        job->started_ns = job->finished_ns = 0;
        job->result = 0;
        batch = job->batch_key != 0;
        pthread_mutex_lock(&s->mu);
        job->seq = s->seq++;
        for (p = &q->head; *p && !job_before(job, *p); p = &(*p)->next)
                ;
        job->next = *p;
        *p = job;
        job->queued = true;
        s->n_queued++;
        pthread_mutex_unlock(&s->mu);
        /* Signalled after the unlock (the woken worker does not block on
         * s->mu at once): the job is in the queue, which a worker checks
         * under s->mu before it waits, so the wake-up is not lost; job is
         * not read again (a worker may be running it); and q lives until
         * daemon_sched_stop(), which runs on the loop thread as this does.
         * A worker gathering a batch may be waiting for this job. */
        if (batch)
                pthread_cond_broadcast(&q->cond);
        else
                pthread_cond_signal(&q->cond);
        return 0;
}

/* Unlink j from its queue; s->mu held. */
static bool queue_remove_locked(daemon_sched_t *s, daemon_job_t *j) {
        daemon_job_t **p;

        if (!j->queued)
                return false;
        for (p = &j->queue->head; *p; p = &(*p)->next)
                if (*p == j) {
                        *p = j->next;
                        j->next = NULL;
                        j->queued = false;
                        s->n_queued--;
                        return true;
                }
        return false;
}

bool daemon_sched_cancel(daemon_sched_t *s, daemon_job_t *job) {
        bool removed;

        pthread_mutex_lock(&s->mu);
        removed = queue_remove_locked(s, job);
        pthread_mutex_unlock(&s->mu);
        if (removed) {
                job->result = -ECANCELED;
                job->done(job, -ECANCELED);
        }
        return removed;
}

unsigned daemon_sched_cancel_owner(daemon_sched_t *s, void *owner) {
        daemon_job_t *list = NULL, **tail = &list;
        unsigned n = 0;

        pthread_mutex_lock(&s->mu);
        for (daemon_sched_queue_t *q = s->queues; q; q = q->next) {
                daemon_job_t **p = &q->head;

                while (*p) {
                        daemon_job_t *j = *p;

                        if (j->owner != owner) {
                                p = &j->next;
                                continue;
                        }
                        *p = j->next;
                        j->next = NULL;
                        j->queued = false;
                        s->n_queued--;
                        *tail = j;
                        tail = &j->next;
                }
        }
        pthread_mutex_unlock(&s->mu);
        while (list) {
                daemon_job_t *j = list;

                list = j->next;
                j->next = NULL;
                j->result = -ECANCELED;
                j->done(j, -ECANCELED);
                n++;
        }
        return n;
}

unsigned daemon_sched_queued(daemon_sched_t *s) {
        unsigned n;

        pthread_mutex_lock(&s->mu);
        n = s->n_queued;
        pthread_mutex_unlock(&s->mu);
        return n;
}

unsigned daemon_sched_running(daemon_sched_t *s) {
        unsigned n;

        pthread_mutex_lock(&s->mu);
        n = s->n_running;
        pthread_mutex_unlock(&s->mu);
        return n;
}

unsigned daemon_sched_threads(daemon_sched_t *s) {
        unsigned n = 0;

        for (daemon_sched_queue_t *q = s->queues; q; q = q->next)
                n += q->n_threads;
        return n;
}

/* ---- lanes: executions outside the queues ---- */

int daemon_sched_resource_take(daemon_sched_t *s, daemon_sched_resource_t *res, uint64_t deadline_ns) {
        int r = 0;

        pthread_mutex_lock(&s->mu);
        while (!s->stopping && res->busy >= (res->limit ? res->limit : 1)) {
                uint64_t now;

                if (deadline_ns == 0) {
                        s->res_waiters++;
                        pthread_cond_wait(&s->res_cond, &s->mu);
                        s->res_waiters--;
                        continue;
                }
                now = uv_hrtime();
                if (now >= deadline_ns) {
                        r = -ETIME;
                        break;
                }
                s->res_waiters++;
                cond_wait_for(&s->res_cond, &s->mu, deadline_ns - now);
                s->res_waiters--;
        }
        if (r == 0 && s->stopping)
                r = -ESHUTDOWN;
        if (r == 0) {
                res->busy++;
                s->n_running++;
        }
        pthread_mutex_unlock(&s->mu);
        return r;
}

void daemon_sched_resource_give(daemon_sched_t *s, daemon_sched_resource_t *res) {
        daemon_sched_queue_t *queues;
        bool wake_queues, wake_lanes;

        pthread_mutex_lock(&s->mu);
        res->busy--;
        s->n_running--;
        /* The list as it is now: queues are only ever pushed at its head
         * (under s->mu, their next set before), and freed by
         * daemon_sched_stop(), after the lanes are joined. A queue added
         * after the unlock has workers that test busy after this change. */
        queues = s->queues;
        /* Only threads that wait are woken. Broadcasting every queue after
         * each lane execution woke every idle worker (two on a 2-CPU
         * machine) just before the lane published its result: on a
         * machine whose CPUs the execution's threads hold, they ran ahead
         * of the client waiting for that result (perf sched, issue 27).
         * None is lost: a job queued or a lane waiting after the unlock
         * tests busy, changed above, under s->mu. */
        wake_queues = s->n_queued > 0;
        wake_lanes = s->res_waiters > 0;
        pthread_mutex_unlock(&s->mu);
        /* Queued jobs skipped for this resource may run now; woken after
         * the unlock, as a worker wakes them. */
        for (daemon_sched_queue_t *q = queues; wake_queues && q; q = q->next)
                pthread_cond_broadcast(&q->cond);
        if (wake_lanes)
                pthread_cond_broadcast(&s->res_cond);
}

static void async_close_cb(uv_handle_t *h) {
        (void) h;
}

void daemon_sched_stop(daemon_sched_t *s) {
        daemon_sched_queue_t *q;

        if (s->stopping && !s->async_open)
                return;
        pthread_mutex_lock(&s->mu);
        s->stopping = true;
        for (q = s->queues; q; q = q->next)
                pthread_cond_broadcast(&q->cond);
        pthread_cond_broadcast(&s->res_cond);
        pthread_mutex_unlock(&s->mu);
        for (q = s->queues; q; q = q->next)
                for (unsigned i = 0; i < q->n_threads; i++)
                        (void) pthread_join(q->threads[i], NULL);
        /* Finished but not yet delivered, then never started. */
        async_cb(&s->async);
        for (q = s->queues; q; q = q->next)
                while (q->head) {
                        daemon_job_t *j = q->head;

                        q->head = j->next;
                        j->next = NULL;
                        j->queued = false;
                        s->n_queued--;
                        j->done(j, -ECANCELED);
                }
        while (s->queues) {
                q = s->queues;
                s->queues = q->next;
                pthread_cond_destroy(&q->cond);
                free(q->threads);
                free(q);
        }
        if (s->async_open) {
                s->async_open = false;
                uv_close((uv_handle_t *) &s->async, async_close_cb);
        }
}

/* ---- the CPU budget ---- */

static struct {
        pthread_once_t once;
        unsigned cpus;                  /* the budget */
        unsigned affinity;              /* CPUs in the affinity mask */
        unsigned quota;                 /* cpu.max quota in CPUs, rounded up; 0 = none */
        pthread_mutex_t mu;
        pthread_cond_t cond;
        unsigned in_use;                /* under mu */
} budget = { .once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* The CPUs one cgroup's cpu.max allows ("max 100000": none, 0). */
static unsigned cgroup_quota(const char *dir) {
        char path[PATH_MAX], quota[32] = "";
        unsigned long long period = 0;
        FILE *f;

        if (snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", dir) >= (int) sizeof(path))
                return 0;
        f = fopen(path, "re");
        if (!f)
                return 0;
        if (fscanf(f, "%31s %llu", quota, &period) != 2 || period == 0 || strcmp(quota, "max") == 0) {
                fclose(f);
                return 0;
        }
        fclose(f);
        unsigned long long q = strtoull(quota, NULL, 10);
        return q ? (unsigned) ((q + period - 1) / period) : 0;
}

/* The smallest cpu.max quota on the path from our cgroup (v2) to the root. */
static unsigned cgroup_cpus(void) {
        char line[PATH_MAX + 8], *dir = NULL;
        unsigned best = 0;
        FILE *f = fopen("/proc/self/cgroup", "re");

        if (!f)
                return 0;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, "0::", 3) == 0) {
                        line[strcspn(line, "\n")] = 0;
                        dir = line + 3;
                        break;
                }
        fclose(f);
        if (!dir)
                return 0;
        for (;;) {
                unsigned q = cgroup_quota(strcmp(dir, "/") == 0 ? "" : dir);
                char *slash;

                if (q && (!best || q < best))
                        best = q;
                slash = strrchr(dir, '/');
                if (!slash || slash == dir)
                        break;
                *slash = 0;
        }
        return best;
}

static void budget_init(void) {
        cpu_set_t set;
        int n = 0;

        if (sched_getaffinity(0, sizeof(set), &set) == 0)
                n = CPU_COUNT(&set);
        budget.affinity = n > 0 ? (unsigned) n : 1;
        budget.quota = cgroup_cpus();
        budget.cpus = budget.quota && budget.quota < budget.affinity ? budget.quota : budget.affinity;
}

unsigned daemon_cpu_budget(void) {
        (void) pthread_once(&budget.once, budget_init);
        return budget.cpus;
}

static void budget_why(char *buf, size_t size) {
        if (budget.quota && budget.quota < budget.affinity)
                (void) snprintf(buf, size, "acceld may use %u CPUs (cgroup cpu.max; %u in its affinity)",
                                budget.cpus, budget.affinity);
        else
                (void) snprintf(buf, size, "acceld may use %u CPU%s", budget.cpus, budget.cpus == 1 ? "" : "s");
}

int daemon_cpu_clamp(rt_settings_t *s, char *note, size_t note_size) {
        unsigned cpus = daemon_cpu_budget();
        int32_t asked = 0;
        char why[128];

        if (note && note_size)
                note[0] = 0;
        if (s->cpu_num_threads > (int32_t) cpus) {
                asked = s->cpu_num_threads;
                s->cpu_num_threads = (int32_t) cpus;
        }
        if (s->xnnpack_num_threads > (int32_t) cpus) {
                if (s->xnnpack_num_threads > asked)
                        asked = s->xnnpack_num_threads;
                s->xnnpack_num_threads = (int32_t) cpus;
        }
        if (!asked)
                return 0;
        budget_why(why, sizeof(why));
        if (note && note_size)
                (void) snprintf(note, note_size, "num_threads %d clamped to %u: %s", (int) asked, cpus, why);
        return 1;
}

unsigned daemon_cpu_threads_for(const rt_settings_t *s, const char *driver) {
        if (driver && strcmp(driver, "xnnpack") == 0)
                return (unsigned) rt_settings_num_threads(s, 1);
        /* The reference kernels run on the calling thread alone. */
        return driver && strcmp(driver, "reference") == 0 ? 1 : 0;
}

int daemon_cpu_take(unsigned n, uint64_t deadline_ns) {
        unsigned cpus = daemon_cpu_budget();

        if (n > cpus)
                n = cpus;
        if (!n)
                return 0;
        pthread_mutex_lock(&budget.mu);
        if (budget.in_use + n > cpus)
                daemon_refusal_count(DAEMON_REFUSAL_cpu_waits);
        while (budget.in_use + n > cpus) {
                if (!deadline_ns) {
                        pthread_cond_wait(&budget.cond, &budget.mu);
                        continue;
                }
                uint64_t now = uv_hrtime();
                if (now >= deadline_ns) {
                        pthread_mutex_unlock(&budget.mu);
                        daemon_refusal_count(DAEMON_REFUSAL_cpu_deadline_missed);
                        return -ETIME;
                }
                cond_wait_for(&budget.cond, &budget.mu, deadline_ns - now);
        }
        budget.in_use += n;
        pthread_mutex_unlock(&budget.mu);
        return 0;
}

void daemon_cpu_give(unsigned n) {
        unsigned cpus = daemon_cpu_budget();

        if (n > cpus)
                n = cpus;
        if (!n)
                return;
        pthread_mutex_lock(&budget.mu);
        budget.in_use -= n;
        pthread_mutex_unlock(&budget.mu);
        /* After the unlock: in_use changed under the lock, where waiters
         * test it before they sleep; the budget is static. */
        pthread_cond_broadcast(&budget.cond);
}

unsigned daemon_cpu_in_use(void) {
        unsigned n;

        pthread_mutex_lock(&budget.mu);
        n = budget.in_use;
        pthread_mutex_unlock(&budget.mu);
        return n;
}
