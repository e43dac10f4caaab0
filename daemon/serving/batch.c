/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Dynamic batching of executions, in the style of Triton's dynamic
 * batcher: executions of one instance queued at the same time, each with
 * the model's declared shapes (first dimension 1), run as one invoke on a
 * batch interpreter whose inputs' first dimension is their number n. The
 * scheduler gathers them (scheduler.h, batch_key); this file runs them.
 * Batch interpreters are pooled per size (XNNPACK of 2022 cannot reshape a
 * runtime without compiling it again), so an instance holds at most one
 * idle interpreter per size it has seen, each with its own arena and
 * XNNPACK packing.
 *
 * A model is batched only where that is exact. The first batch of each
 * size checks that every output's first dimension scales with the batch
 * and the other dimensions do not change, then runs n distinct inputs
 * batched and one by one and compares the outputs byte for byte; any
 * difference (a graph that mixes rows, a RESHAPE that folds the batch away,
 * kernels whose rounding depends on the row count) turns batching off for
 * the instance, with the reason in its batch_note, and the gathered jobs
 * run one by one.
 */
#include <stdarg.h>

#include "serving-internal.h"
#include "scheduler.h"

/* Whether j may be gathered into a batch: its instance batches (or has not
 * been checked yet), its model keeps no state between invokes, and j runs
 * at the declared shapes, which have a leading 1 on every input and
 * output. */
bool serving__batch_eligible(const serving_job_t *j) {
        daemon_instance_t *i = j->instance;
        bool ok;

        /* A stateful model runs each handle on its own variables: rows of
         * one batch would share one set. */
        if (i->stateful)
                return false;
        pthread_mutex_lock(&i->pool_mu);
        ok = i->batch_max > 1 && i->batch_state >= 0;
        pthread_mutex_unlock(&i->pool_mu);
        if (!ok)
                return false;
        for (int32_t k = 0; k < i->n_inputs; k++) {
                const daemon_tensor_info_t *d = &i->inputs[k];

                if (d->rank < 1 || d->dims[0] != 1 || d->type == RT_TYPE_STRING)
                        return false;
                if (j->shapes && (j->ranks[k] != d->rank ||
                                  memcmp(j->shapes[k], d->dims, sizeof(int32_t) * (size_t) d->rank) != 0))
                        return false;
        }
        for (int32_t k = 0; k < i->n_outputs; k++)
                if (i->outputs[k].rank < 1 || i->outputs[k].dims[0] != 1 || i->outputs[k].type == RT_TYPE_STRING)
                        return false;
        return true;
}

static void batch_refuse(daemon_instance_t *i, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void batch_refuse(daemon_instance_t *i, const char *fmt, ...) {
        va_list ap;

        pthread_mutex_lock(&i->pool_mu);
        i->batch_state = -1;
        va_start(ap, fmt);
        (void) vsnprintf(i->batch_note, sizeof(i->batch_note), fmt, ap);
        va_end(ap);
        pthread_mutex_unlock(&i->pool_mu);
}

/* A batch interpreter: declared shapes with first dimension B, outputs
 * checked to scale with it. NULL (and the instance refused) when the model
 * does not batch. */
static rt_interp_t *batch_interp_new(daemon_instance_t *i, unsigned B) {
        rt_interp_t *it = NULL;
        char err[512] = "";
        int r = daemon_instance_interp_new(i, &it, err, sizeof(err));

        if (r < 0) {
                batch_refuse(i, "cannot create a batch interpreter: %s", err);
                return NULL;
        }
        for (int32_t k = 0; k < i->n_inputs && r == 0; k++) {
                int32_t dims[RT_MAX_RANK];

                memcpy(dims, i->inputs[k].dims, sizeof(dims));
                dims[0] = (int32_t) B;
                r = rt_interp_resize_input(it, k, i->inputs[k].rank, dims);
        }
        if (r == 0)
                r = rt_interp_allocate_tensors(it);
        if (r < 0) {
                batch_refuse(i, "the model does not take a batch of %u: %s", B, rt_interp_last_error(it));
                rt_interp_free(it);
                return NULL;
        }
        for (int32_t k = 0; k < i->n_outputs; k++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, k);
                const daemon_tensor_info_t *d = &i->outputs[k];

                if (t->rank != d->rank || t->dims[0] != (int32_t) B ||
                    memcmp(t->dims + 1, d->dims + 1, sizeof(int32_t) * (size_t) (d->rank - 1)) != 0) {
                        batch_refuse(i, "output %d ('%s') does not scale with the batch", k, d->name);
                        rt_interp_free(it);
                        return NULL;
                }
        }
        return it;
}

/* Deterministic, distinct rows of input k for the check. */
static void check_fill(void *data, size_t bytes, uint32_t seed) {
        uint8_t *p = data;
        uint32_t x = seed * 2654435761u + 12345u;

        for (size_t b = 0; b < bytes; b++) {
                x = x * 1103515245u + 12345u;
                p[b] = (uint8_t) (x >> 16);
        }
}

/* Make every float input a small finite number (random bytes would be
 * NaNs and infinities, which compare unequal to themselves). */
static void check_sanitize(const rt_tensor_t *t, void *data) {
        if (t->type != RT_TYPE_FLOAT32)
                return;
        float *f = data;
        for (size_t n = 0; n < t->bytes / sizeof(float); n++) {
                uint32_t u;
                memcpy(&u, &f[n], 4);
                f[n] = (float) (u % 2001u) / 1000.0f - 1.0f;
        }
}

/* Run B different rows batched and singly; 0 when every output byte
 * agrees, else the instance is refused. Its B + 1 invokes take their
 * threads from the CPU budget as any execution does, waiting at most until
 * `deadline_ns` (0: none); -ETIME when it passed (nothing refused: the
 * next batch checks again). */
static int batch_check(daemon_instance_t *i, rt_interp_t *bit, unsigned B, uint64_t deadline_ns) {
        unsigned threads = daemon_cpu_threads_for(&i->settings, i->queue);
        rt_interp_t *one = NULL;
        char err[512] = "";
        int r = daemon_instance_acquire(i, &one, err, sizeof(err));

        if (r < 0) {
                batch_refuse(i, "cannot check batching: %s", err);
                return r;
        }
        r = daemon_cpu_take(threads, deadline_ns);
        if (r < 0) {
                daemon_instance_release(i, one);
                return r;
        }
        for (int32_t k = 0; k < i->n_inputs; k++) {
                const rt_tensor_t *t = rt_interp_input_tensor(bit, k);
                check_fill(rt_interp_input_data(bit, k), t->bytes, (uint32_t) k + 1);
                check_sanitize(t, rt_interp_input_data(bit, k));
        }
        r = rt_interp_invoke(bit);
        if (r < 0) {
                batch_refuse(i, "a batched run failed: %s", rt_interp_last_error(bit));
                goto out;
        }
        for (unsigned row = 0; row < B && r == 0; row++) {
                for (int32_t k = 0; k < i->n_inputs && r == 0; k++) {
                        size_t rb = rt_interp_input_tensor(bit, k)->bytes / B;
                        r = rt_interp_copy_in(one, k, (const uint8_t *) rt_interp_input_data(bit, k) + row * rb, rb);
                }
                if (r == 0)
                        r = rt_interp_invoke(one);
                if (r < 0) {
                        batch_refuse(i, "a single run failed: %s", rt_interp_last_error(one));
                        break;
                }
                for (int32_t k = 0; k < i->n_outputs; k++) {
                        const rt_tensor_t *bt = rt_interp_output_tensor(bit, k), *st = rt_interp_output_tensor(one, k);
                        size_t rb = bt->bytes / B;
                        if (rb != st->bytes || memcmp((const uint8_t *) bt->data + row * rb, st->data, rb) != 0) {
                                batch_refuse(i, "batched results differ from single runs (output %d, row %u)", k,
                                             row);
                                r = -EINVAL;
                                break;
                        }
                }
        }
out:
        daemon_cpu_give(threads);
        daemon_instance_release(i, one);
        return r;
}

/* An idle batch interpreter of size B, or a new one (checked the first
 * time a batch of B runs, within the batch's deadline). */
static rt_interp_t *batch_interp_get(daemon_instance_t *i, unsigned B, uint64_t deadline_ns) {
        rt_interp_t *it = NULL;
        bool checked;
        int state;

        pthread_mutex_lock(&i->pool_mu);
        for (size_t k = 0; k < i->n_batch_pool; k++)
                if (i->batch_pool[k].size == B) {
                        it = i->batch_pool[k].it;
                        i->batch_pool[k] = i->batch_pool[--i->n_batch_pool];
                        break;
                }
        state = i->batch_state;
        checked = (i->batch_checked >> B) & 1u;
        pthread_mutex_unlock(&i->pool_mu);
        if (it || state < 0)
                return it;
        it = batch_interp_new(i, B);
        if (it && !checked) {
                if (batch_check(i, it, B, deadline_ns) < 0) {
                        rt_interp_free(it);
                        return NULL;
                }
                pthread_mutex_lock(&i->pool_mu);
                i->batch_checked |= 1ull << B;
                if (i->batch_state == 0)
                        (void) snprintf(i->batch_note, sizeof(i->batch_note),
                                        "batches of up to %u: checked equal to single runs", i->batch_max);
                pthread_mutex_unlock(&i->pool_mu);
        }
        return it;
}

static void batch_interp_put(daemon_instance_t *i, rt_interp_t *it, unsigned B) {
        pthread_mutex_lock(&i->pool_mu);
        if (i->n_batch_pool == i->cap_batch_pool) {
                size_t cap = i->cap_batch_pool ? 2 * i->cap_batch_pool : 4;
                struct daemon_batch_interp *v = realloc(i->batch_pool, cap * sizeof(*v));
                if (!v) {
                        pthread_mutex_unlock(&i->pool_mu);
                        rt_interp_free(it);
                        return;
                }
                i->batch_pool = v;
                i->cap_batch_pool = cap;
        }
        i->batch_pool[i->n_batch_pool++] = (struct daemon_batch_interp) { it, B };
        pthread_mutex_unlock(&i->pool_mu);
}

/* Hand row `row` of every output to job j. */
static int batch_outputs(rt_interp_t *bit, unsigned B, unsigned row, serving_job_t *j) {
        for (size_t k = 0; k < j->n_outputs; k++) {
                const rt_tensor_t *t = rt_interp_output_tensor(bit, (int32_t) k);
                job_tensor_t *o = &j->outputs[k];
                size_t rb = t->bytes / B;
                const uint8_t *src = (const uint8_t *) t->data + row * rb;

                o->rank = t->rank;
                memcpy(o->dims, t->dims, sizeof(o->dims));
                o->dims[0] = t->dims[0] / (int32_t) B;
                if (o->out) {
                        if (rb > o->len) {
                                (void) snprintf(j->err, sizeof(j->err), "output %zu needs %zu bytes, its region has %zu",
                                                k, rb, o->len);
                                return -ENOBUFS;
                        }
                        memcpy(o->out, src, rb);
                } else {
                        o->inline_out = malloc(rb ? rb : 1);
                        if (!o->inline_out)
                                return -ENOMEM;
                        o->inline_len = rb;
                        memcpy(o->inline_out, src, rb);
                }
        }
        return 0;
}

void serving__batch_run(serving_job_t *lead) {
        daemon_instance_t *i = lead->instance;
        serving_job_t *jobs[64];
        unsigned n = 0;
        rt_interp_t *bit = NULL;
        uint64_t deadline = 0;
        int r;

        for (daemon_job_t *x = &lead->job; x && n < sizeof(jobs) / sizeof(jobs[0]); x = x->batch_next) {
                jobs[n++] = x->data;
                if (x->deadline_ns && (!deadline || x->deadline_ns < deadline))
                        deadline = x->deadline_ns;
        }
        if (n > 1 && n <= 64)
                bit = batch_interp_get(i, n, deadline);
        if (!bit) {
                /* Alone, or not batchable after all: one after another. */
                for (unsigned k = 0; k < n; k++)
                        jobs[k]->job.result = serving__execute_one(jobs[k]);
                return;
        }
        for (int32_t k = 0; k < i->n_inputs; k++) {
                uint8_t *dst = rt_interp_input_data(bit, k);
                size_t rb = rt_interp_input_tensor(bit, k)->bytes / n;

                for (unsigned row = 0; row < n; row++)
                        memcpy(dst + row * rb, jobs[row]->inputs[k].in, rb);
        }
        /* The CPU budget, as for one execution: the batch's threads for
         * its invoke, waiting at most until its earliest deadline. */
        unsigned threads = daemon_cpu_threads_for(&i->settings, i->queue);
        char wait_err[160] = "";

        r = daemon_cpu_take(threads, deadline);
        if (r < 0)
                (void) snprintf(wait_err, sizeof(wait_err),
                                "the deadline passed while the batch waited for %u of acceld's %u CPUs", threads,
                                daemon_cpu_budget());
        else {
                daemon_hosts_set_deadline(deadline);
                r = rt_interp_invoke(bit);
                daemon_hosts_set_deadline(0);
                daemon_cpu_give(threads);
        }
        for (unsigned row = 0; row < n; row++) {
                serving_job_t *j = jobs[row];

                j->zero_copy = false;
                j->batch_n = n;
                if (r < 0) {
                        (void) snprintf(j->err, sizeof(j->err), "%s",
                                        wait_err[0] ? wait_err : rt_interp_last_error(bit));
                        j->job.result = r;
                } else
                        j->job.result = batch_outputs(bit, n, row, j);
        }
        if (r == -EOWNERDEAD)
                daemon_quarantine_record(i->model->sha256, &i->settings, false);
        batch_interp_put(i, bit, n);
}
