/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduler: compilation and inference run on worker threads, never on
 * the loop. One queue per driver ("reference", "xnnpack", a plugin's name),
 * each with its own worker threads; a queue is ordered by priority
 * (HIGH > MEDIUM > LOW), then by deadline (earliest first, none last), then
 * by arrival. A job whose deadline has passed when a worker would start it
 * is not run: it completes with -ETIME (MISSED_DEADLINE_TRANSIENT).
 *
 * Results return to the loop with uv_async_send(); the async callback
 * drains every finished job (wake-ups coalesce) and calls its `done` on the
 * loop thread, in the order the jobs finished.
 *
 * Threads: every daemon_sched_*() function is loop-thread only, except
 * that job->run runs on a worker. A job belongs to the scheduler from
 * daemon_sched_submit() until its done callback.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <uv.h>

#include "settings.h"

typedef struct daemon_job daemon_job_t;

/* Something jobs use that takes at most `limit` of them at once (a compiled
 * instance: one interpreter per concurrent execution). A worker skips a
 * queued job whose resource is full and takes the next one it can run, so
 * a busy model never holds a worker idle. Fields are under the scheduler's
 * mutex; `limit` 0 means 1. */
typedef struct daemon_sched_resource {
        unsigned busy;
        unsigned limit;
} daemon_sched_resource_t;
typedef struct daemon_sched daemon_sched_t;
typedef struct daemon_sched_queue daemon_sched_queue_t;

/* Runs on a worker thread; stores its result in job->result. */
typedef void (*daemon_job_run_fn)(daemon_job_t *job);
/* Runs on the loop: r is job->result, -ETIME when the deadline passed
 * before it started, -ECANCELED when it was cancelled while queued. */
typedef void (*daemon_job_done_fn)(daemon_job_t *job, int r);

struct daemon_job {
        /* Set by the submitter. */
        int priority;                   /* 1 LOW .. 3 HIGH */
        uint64_t deadline_ns;           /* uv_hrtime() scale; 0 = none */
        daemon_job_run_fn run;
        daemon_job_done_fn done;
        void *owner;                    /* for daemon_sched_cancel_owner() */
        uint64_t request_id;            /* for daemon_sched_cancel_request() */
        void *data;
        daemon_sched_resource_t *resource;  /* NULL: none; must outlive the job */
        /* Batching: queued jobs with the same non-NULL batch_key may run
         * as one. The worker that takes the first (the leader) also takes
         * up to batch_max - 1 more of that key, in queue order, waiting at
         * most batch_delay_ns for them to arrive; a batch holding a job
         * with a deadline does not wait. The leader's run() gets the others
         * on its batch_next list (one resource slot for all), stores each
         * one's result, and they all finish (done) together. */
        const void *batch_key;
        unsigned batch_max;
        uint64_t batch_delay_ns;
        daemon_job_t *batch_next;       /* set by the scheduler */
        /* Scheduler state. */
        daemon_job_t *next;
        daemon_sched_queue_t *queue;
        uint64_t seq;
        uint64_t enqueued_ns, started_ns, finished_ns;
        int result;
        bool queued;                    /* in a queue (cancellable) */
};

struct daemon_sched_queue {
        char name[64];
        daemon_sched_t *sched;
        daemon_job_t *head;             /* sorted */
        pthread_cond_t cond;
        pthread_t *threads;
        unsigned n_threads;
        daemon_sched_queue_t *next;
};

struct daemon_sched {
        uv_async_t async;
        bool async_open;
        pthread_mutex_t mu;
        daemon_sched_queue_t *queues;
        daemon_job_t *done_head, *done_tail;
        unsigned threads_per_queue;
        uint64_t seq;
        unsigned n_queued;              /* under mu */
        unsigned n_running;             /* under mu */
        pthread_cond_t res_cond;        /* a resource slot was given back (lanes wait on it) */
        unsigned res_waiters;           /* under mu: lanes waiting on res_cond */
        uint64_t n_finished;            /* loop only */
        bool stopping;
};

/* Set up `s` on `loop` with `threads_per_queue` workers per driver queue
 * (>= 1). Threads start with the first job of each queue. 0 or -errno. */
int daemon_sched_init(daemon_sched_t *s, uv_loop_t *loop, unsigned threads_per_queue);

/* Stop: wake and join every worker (a running job finishes first), call
 * done(-ECANCELED) for jobs still queued, close the async handle. */
void daemon_sched_stop(daemon_sched_t *s);

/* Queue `job` on the queue of driver `queue_name`, creating the queue and
 * its threads on first use. 0, -ENOMEM, -EAGAIN (no thread could start),
 * -ESHUTDOWN after daemon_sched_stop(). */
int daemon_sched_submit(daemon_sched_t *s, const char *queue_name, daemon_job_t *job);

/* Remove a still-queued job; its done(-ECANCELED) is called before this
 * returns. true if it was removed, false if it already started. */
bool daemon_sched_cancel(daemon_sched_t *s, daemon_job_t *job);

/* Cancel every queued job of `owner` (done(-ECANCELED) each). Returns how
 * many. Running jobs are left to finish. */
unsigned daemon_sched_cancel_owner(daemon_sched_t *s, void *owner);

/* A lane's execution (serving/lane.c) outside the queues: take one slot of
 * `res` (waiting while it is full, until deadline_ns, 0 = no limit) and
 * count it as running, as a worker would. 0, -ETIME when the deadline came
 * first, -ESHUTDOWN after daemon_sched_stop(). Any thread but the loop;
 * give it back with daemon_sched_resource_give(). */
int daemon_sched_resource_take(daemon_sched_t *s, daemon_sched_resource_t *res, uint64_t deadline_ns);
void daemon_sched_resource_give(daemon_sched_t *s, daemon_sched_resource_t *res);

/* Queued and running counts (a snapshot). */
unsigned daemon_sched_queued(daemon_sched_t *s);
unsigned daemon_sched_running(daemon_sched_t *s);
/* Worker threads started so far, over all queues. */
unsigned daemon_sched_threads(daemon_sched_t *s);

/*
 * One CPU budget for the whole daemon. acceld may use the CPUs of its
 * affinity mask, cut by its cgroup (v2) cpu.max quota (rounded up). Thread
 * counts asked for beyond it only make every thread wait for a CPU that is
 * not there (XNNPACK's pool spins for its peers), so settings are clamped
 * to it, and executions take their threads from it while they run: the
 * threads running models at once stay within the CPUs.
 */

/* The budget in threads (>= 1); computed once, safe from any thread. */
unsigned daemon_cpu_budget(void);

/* Clamp the thread counts of `s` to the budget. When one was cut, a note
 * for the client ("num_threads 8 clamped to 2: ...") goes to note (may be
 * NULL) and 1 is returned; else 0 and note is "". */
int daemon_cpu_clamp(rt_settings_t *s, char *note, size_t note_size);

/* The threads an execution with settings `s` on driver `driver` takes from
 * the budget: its thread count on xnnpack, 1 on the reference kernels,
 * none on others (a plugin's accelerator is not our CPUs). */
unsigned daemon_cpu_threads_for(const rt_settings_t *s, const char *driver);

/* Take n threads (n <= budget; more are cut to it) for an execution,
 * waiting while others hold them, until deadline_ns (uv_hrtime() scale,
 * 0 = no limit). 0, or -ETIME when the deadline came first. Worker
 * threads only; give them back with daemon_cpu_give(). */
int daemon_cpu_take(unsigned n, uint64_t deadline_ns);
void daemon_cpu_give(unsigned n);
/* Threads taken right now (a snapshot). */
unsigned daemon_cpu_in_use(void);
