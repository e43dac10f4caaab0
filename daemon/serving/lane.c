/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lanes (lane.h): LaneOpen/LaneClose on the loop, and the lane threads that
 * serve rings of a control block in shared memory.
 */
#include <pthread.h>

#include "serving-internal.h"
#include "lane.h"
#include "bench/placement.h"

/* A lane thread asleep on the futex re-checks its stop flag this often
 * (the loop wakes it when it stops it; this bounds a missed wake-up). */
#define LANE_IDLE_WAIT_US 100000u
/* The step of a wait for an execution slot without a deadline. */
#define LANE_SLOT_STEP_NS 100000000u

typedef struct serving_lane serving_lane_t;

struct serving_lane {
        uint64_t id;
        daemon_serving_t *sv;
        serving_session_t *session;     /* loop; NULL once stopped */
        const serving_handle_t *handle; /* loop: the handle it serves; NULL once stopped */
        serving_lane_t *next;           /* session->lanes (loop) */
        serving_lane_t *all_next;       /* lanes->all (loop) */
        serving_lane_t *exited_next;    /* lanes->exited (under lanes->mu) */
        pthread_t thread;
        bool stop;                      /* atomic: set by the loop */
        ipc_lane_ctl_t *ctl;            /* in ctl_buffer's mapping: the client writes it too */
        serving_buffer_t *ctl_buffer;   /* referenced */
        serving_job_t *job;             /* the execution template: regions, shapes, instance (owned) */
        daemon_uid_usage_t *usage;      /* charged one lane */
        uint64_t spin_us;
        uint32_t last;                  /* the req_seq served last (lane thread) */
};

struct daemon_lanes {
        daemon_serving_t *sv;
        pthread_mutex_t mu;
        uv_async_t async;
        bool async_open;
        serving_lane_t *all;            /* loop */
        serving_lane_t *exited;         /* under mu: threads that returned, to join */
        unsigned n_open;                /* loop: lanes in `all` */
        uint64_t next_id;
        uint64_t executions;            /* atomic */
};

/* ---- the lane thread ---- */

static const char *lane_error(serving_job_t *j, int r) {
        if (r == -ETIME && !j->err[0])
                return "the deadline passed before the execution started";
        return j->err[0] ? j->err : strerror(-r);
}

/* Take an execution slot of the instance, as a worker takes one for a
 * queued job; without a deadline, in steps, so a stop is noticed. */
static int lane_slot_take(serving_lane_t *l, uint64_t deadline_ns) {
        daemon_sched_resource_t *res = &l->job->instance->exec_slots;

        for (;;) {
                uint64_t until = deadline_ns ? deadline_ns : uv_hrtime() + LANE_SLOT_STEP_NS;
                int r = daemon_sched_resource_take(&l->sv->sched, res, until);

                if (r != -ETIME || deadline_ns)
                        return r;
                if (__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE))
                        return -ECANCELED;
        }
}

/* Serve ring `seq`: every client field is read once, here. */
static void lane_serve(serving_lane_t *l, uint32_t seq) {
        ipc_lane_ctl_t *c = l->ctl;
        serving_job_t *j = l->job;
        uint64_t deadline_us = __atomic_load_n(&c->deadline_us, __ATOMIC_RELAXED);
        uint64_t received = uv_hrtime(), started, finished, deadline_ns = 0;
        char message[sizeof(c->message)];
        int r;

        /* As daemon_request_deadline_ns(): too far to represent is none. */
        if (deadline_us && deadline_us <= (UINT64_MAX - received) / 1000u)
                deadline_ns = received + deadline_us * 1000u;
        j->job.deadline_ns = deadline_ns;
        j->err[0] = '\0';
        j->zero_copy = false;
        r = lane_slot_take(l, deadline_ns);
        started = uv_hrtime();
        if (r == 0) {
                if (deadline_ns && started > deadline_ns)
                        r = -ETIME;
                else
                        r = serving__execute_one(j);
                finished = uv_hrtime();
                daemon_sched_resource_give(&l->sv->sched, &j->instance->exec_slots);
        } else
                finished = started;
        if (r == 0 && deadline_ns && finished > deadline_ns) {
                /* As execute_done(): a late result is not delivered. */
                uint64_t compute = finished - started, budget = deadline_ns - received;

                r = compute > budget ? -ETIMEDOUT : -ETIME;
                (void) snprintf(j->err, sizeof(j->err),
                                "finished %" PRIu64 " us after its deadline (compute %" PRIu64 " us, budget %" PRIu64
                                " us); the result is discarded",
                                (finished - deadline_ns) / 1000, compute / 1000, budget / 1000);
        }
        if (r == 0) {
                (void) __atomic_add_fetch(&l->sv->lanes->executions, 1, __ATOMIC_RELAXED);
                for (size_t k = 0; k < j->n_outputs; k++) {
                        c->ranks[k] = j->outputs[k].rank;
                        memcpy(c->dims[k], j->outputs[k].dims, sizeof(c->dims[k]));
                }
                message[0] = '\0';
        } else
                (void) snprintf(message, sizeof(message), "%s", lane_error(j, r));
        memcpy(c->message, message, strlen(message) + 1);
        c->status = (int32_t) ipc_status_from_errno(r);
        c->zero_copy = r == 0 && j->zero_copy;
        c->queue_us = (started - received) / 1000;
        c->compute_us = (finished - started) / 1000;
        if (r == 0)
                bench_placement_note_compute(j->instance->key, c->compute_us);
        /* Publish, then wake a client that sleeps (or is about to: it sets
         * client_waiting before it checks done_seq a last time). */
        __atomic_store_n(&c->done_seq, seq, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&c->client_waiting, __ATOMIC_SEQ_CST))
                ipc_lane_futex_wake(&c->done_seq);
}

static void *lane_main(void *arg) {
        serving_lane_t *l = arg;
        ipc_lane_ctl_t *c = l->ctl;
        daemon_lanes_t *lanes = l->sv->lanes;

        for (;;) {
                uint32_t seq;

                if (__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE))
                        break;
                seq = __atomic_load_n(&c->req_seq, __ATOMIC_ACQUIRE);
                if (seq != l->last) {
                        l->last = seq;
                        lane_serve(l, seq);
                        continue;
                }
                if (ipc_lane_spin(&c->req_seq, l->last, l->spin_us))
                        continue;
                /* Sleep: say so first, then check once more (the client
                 * rings, then reads lane_waiting). */
                __atomic_store_n(&c->lane_waiting, 1, __ATOMIC_SEQ_CST);
                if (__atomic_load_n(&c->req_seq, __ATOMIC_SEQ_CST) == l->last &&
                    !__atomic_load_n(&l->stop, __ATOMIC_ACQUIRE))
                        (void) ipc_lane_futex_wait(&c->req_seq, l->last, LANE_IDLE_WAIT_US);
                __atomic_store_n(&c->lane_waiting, 0, __ATOMIC_RELAXED);
        }
        pthread_mutex_lock(&lanes->mu);
        l->exited_next = lanes->exited;
        lanes->exited = l;
        pthread_mutex_unlock(&lanes->mu);
        /* Safe from any thread: the loop joins and frees it. */
        (void) uv_async_send(&lanes->async);
        return NULL;
}

/* ---- the loop side ---- */

static void lane_stop(serving_lane_t *l) {
        serving_session_t *ss = l->session;

        if (ss) {
                for (serving_lane_t **p = &ss->lanes; *p; p = &(*p)->next)
                        if (*p == l) {
                                *p = l->next;
                                break;
                        }
                l->session = NULL;
                l->next = NULL;
        }
        l->handle = NULL;
        __atomic_store_n(&l->stop, true, __ATOMIC_SEQ_CST);
        ipc_lane_futex_wake(&l->ctl->req_seq);
}

/* The thread has returned (or is about to): join it and drop everything. */
static void lane_free(daemon_serving_t *sv, serving_lane_t *l) {
        daemon_lanes_t *lanes = sv->lanes;

        (void) pthread_join(l->thread, NULL);
        for (serving_lane_t **p = &lanes->all; *p; p = &(*p)->all_next)
                if (*p == l) {
                        *p = l->all_next;
                        break;
                }
        lanes->n_open--;
        l->usage->lanes--;
        serving__job_free(l->job);     /* regions, instance */
        serving__buffer_unref(sv, l->ctl_buffer);
        free(l);
}

static void lanes_reap(uv_async_t *a) {
        daemon_lanes_t *lanes = a->data;
        daemon_serving_t *sv = lanes->sv;
        serving_lane_t *list;

        pthread_mutex_lock(&lanes->mu);
        list = lanes->exited;
        lanes->exited = NULL;
        pthread_mutex_unlock(&lanes->mu);
        while (list) {
                serving_lane_t *l = list;

                list = l->exited_next;
                lane_free(sv, l);
        }
}

int serving__lanes_init(daemon_serving_t *sv) {
        daemon_lanes_t *lanes = calloc(1, sizeof(*lanes));
        int r;

        if (!lanes)
                return -ENOMEM;
        r = pthread_mutex_init(&lanes->mu, NULL);
        if (r != 0) {
                free(lanes);
                return -r;
        }
        r = uv_async_init(sv->server->loop, &lanes->async, lanes_reap);
        if (r < 0) {
                pthread_mutex_destroy(&lanes->mu);
                free(lanes);
                return r;
        }
        lanes->async.data = lanes;
        lanes->sv = sv;
        lanes->async_open = true;
        lanes->next_id = 1;
        sv->lanes = lanes;
        return 0;
}

static void lanes_async_closed(uv_handle_t *h) {
        daemon_lanes_t *lanes = h->data;

        pthread_mutex_destroy(&lanes->mu);
        free(lanes);
}

void serving__lanes_done(daemon_serving_t *sv) {
        daemon_lanes_t *lanes = sv->lanes;

        if (!lanes)
                return;
        for (serving_lane_t *l = lanes->all; l; l = l->all_next)
                lane_stop(l);
        /* Every thread returns after its execution in progress (a hung
         * driver call is the shutdown guard's). */
        while (lanes->all)
                lane_free(sv, lanes->all);
        pthread_mutex_lock(&lanes->mu);
        lanes->exited = NULL;          /* all freed above */
        pthread_mutex_unlock(&lanes->mu);
        sv->lanes = NULL;
        if (lanes->async_open) {
                lanes->async_open = false;
                uv_close((uv_handle_t *) &lanes->async, lanes_async_closed);
        }
}

void serving__lanes_close_session(serving_session_t *ss) {
        while (ss->lanes)
                lane_stop(ss->lanes);
}

void serving__lanes_close_handle(daemon_serving_t *sv, const serving_handle_t *h) {
        for (serving_lane_t *l = sv->lanes ? sv->lanes->all : NULL; l; l = l->all_next)
                if (l->handle == h)
                        lane_stop(l);
}

unsigned serving__lanes_open(const daemon_serving_t *sv) {
        return sv->lanes ? sv->lanes->n_open : 0;
}

uint64_t serving__lanes_executions(const daemon_serving_t *sv) {
        return sv->lanes ? __atomic_load_n(&sv->lanes->executions, __ATOMIC_RELAXED) : 0;
}

/* A region of this connection's buffer for the job (one reference): only
 * a region, never inline data. */
static int lane_region(daemon_request_t *rq, serving_session_t *ss, const Acceld__TensorData *d, const char *what,
                       size_t k, job_tensor_t *t) {
        if (!d->has_buffer || d->has_data || (d->has_reply_inline && d->reply_inline))
                return daemon_request_errorf(rq, -EINVAL, "lane %s %zu must be a buffer region", what, k);
        return serving__region_get(rq, ss, d, what, k, t);
}

/* What a lane cannot serve goes over the socket: say why. */
static int lane_refuse(daemon_request_t *rq, const daemon_instance_t *inst, const daemon_tensor_info_t *ins,
                       const daemon_tensor_info_t *outs) {
        if (inst->stateful)
                return daemon_request_errorf(rq, -EOPNOTSUPP,
                                             "a stateful model's executions go over the socket (each handle's "
                                             "variables, ResetVariables)");
        if (inst->batch_max > 1)
                return daemon_request_errorf(rq, -EOPNOTSUPP,
                                             "the instance batches executions (max_batch_size %u): they go over the "
                                             "socket", inst->batch_max);
        if (inst->n_inputs > IPC_LANE_MAX_INPUTS || inst->n_outputs > IPC_LANE_MAX_OUTPUTS)
                return daemon_request_errorf(rq, -EOPNOTSUPP, "a lane takes at most %d inputs and %d outputs",
                                             IPC_LANE_MAX_INPUTS, IPC_LANE_MAX_OUTPUTS);
        for (int32_t k = 0; k < inst->n_inputs; k++)
                if (ins[k].type == RT_TYPE_STRING)
                        return daemon_request_errorf(rq, -EOPNOTSUPP, "string tensors go over the socket");
        for (int32_t k = 0; k < inst->n_outputs; k++)
                if (outs[k].type == RT_TYPE_STRING)
                        return daemon_request_errorf(rq, -EOPNOTSUPP, "string tensors go over the socket");
        return 0;
}

static int lane_job_build(daemon_request_t *rq, serving_session_t *ss, serving_handle_t *h, serving_job_t *j) {
        const Acceld__LaneOpenRequest *in = rq->req->lane_open;
        daemon_instance_t *inst = h->instance;
        const daemon_tensor_info_t *ins = h->inputs ? h->inputs : inst->inputs;
        const daemon_tensor_info_t *outs = h->outputs ? h->outputs : inst->outputs;
        int r;

        if (in->n_inputs != (size_t) inst->n_inputs || in->n_outputs != (size_t) inst->n_outputs)
                return daemon_request_errorf(rq, -EINVAL,
                                             "the model has %d inputs and %d outputs, the lane gives %zu and %zu",
                                             inst->n_inputs, inst->n_outputs, in->n_inputs, in->n_outputs);
        j->n_inputs = in->n_inputs;
        j->n_outputs = in->n_outputs;
        j->inputs = calloc(j->n_inputs + 1, sizeof(*j->inputs));
        j->outputs = calloc(j->n_outputs + 1, sizeof(*j->outputs));
        j->shapes = calloc(j->n_inputs + 1, sizeof(*j->shapes));
        j->ranks = calloc(j->n_inputs + 1, sizeof(*j->ranks));
        if (!j->inputs || !j->outputs || !j->shapes || !j->ranks)
                return -ENOMEM;
        for (size_t k = 0; k < j->n_inputs; k++) {
                job_tensor_t *t = &j->inputs[k];

                r = lane_region(rq, ss, in->inputs[k], "input", k, t);
                if (r < 0)
                        return r;
                t->in = t->buffer->map + in->inputs[k]->offset;
                if (t->len != ins[k].bytes)
                        return daemon_request_errorf(rq, -EINVAL, "input %zu ('%s') needs %zu bytes, the region has %zu",
                                                     k, ins[k].name, ins[k].bytes, t->len);
                j->ranks[k] = ins[k].rank;
                memcpy(j->shapes[k], ins[k].dims, sizeof(j->shapes[k]));
        }
        for (size_t k = 0; k < j->n_outputs; k++) {
                job_tensor_t *t = &j->outputs[k];

                r = lane_region(rq, ss, in->outputs[k], "output", k, t);
                if (r < 0)
                        return r;
                t->out = t->buffer->map + in->outputs[k]->offset;
                if (t->len < outs[k].bytes)
                        return daemon_request_errorf(rq, -ENOBUFS, "output %zu ('%s') needs %zu bytes, its region has %zu",
                                                     k, outs[k].name, outs[k].bytes, t->len);
        }
        j->instance = daemon_instance_ref(&ss->sv->models, inst);
        return 0;
}

int daemon_lane_open_handle(daemon_request_t *rq) {
        const Acceld__LaneOpenRequest *in = rq->req->lane_open;
        const daemon_config_t *cfg = rq->server->config;
        serving_session_t *ss = serving__session_get(rq);
        daemon_lanes_t *lanes;
        serving_handle_t *h;
        serving_buffer_t *b;
        serving_lane_t *l;
        Acceld__LaneOpenResponse *out;
        int r;

        if (!ss)
                return -ENOMEM;
        lanes = ss->sv->lanes;
        if (!lanes || cfg->max_lanes == 0)
                return daemon_request_errorf(rq, -EOPNOTSUPP, "lanes are off (max_lanes = 0)");
        h = serving__handle_find(ss, in->handle);
        if (!h)
                return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection", in->handle);
        r = lane_refuse(rq, h->instance, h->inputs ? h->inputs : h->instance->inputs,
                        h->outputs ? h->outputs : h->instance->outputs);
        if (r < 0)
                return r;
        b = serving__buffer_find(ss, in->buffer);
        if (!b)
                return daemon_request_errorf(rq, -ENOENT, "no buffer %" PRIu64 " on this connection", in->buffer);
        if (in->control_offset % 64 != 0 || in->control_offset > b->size ||
            b->size - in->control_offset < IPC_LANE_CTL_BYTES)
                return daemon_request_errorf(rq, -EINVAL,
                                             "the control block (%u bytes at offset %" PRIu64 ", 64-byte aligned) "
                                             "must lie inside buffer %" PRIu64 " of %zu bytes", IPC_LANE_CTL_BYTES,
                                             in->control_offset, in->buffer, b->size);
        if (lanes->n_open >= cfg->max_lanes)
                return daemon_request_errorf(rq, -EAGAIN, "%u lanes are open (max_lanes %" PRIu64 ")", lanes->n_open,
                                             cfg->max_lanes);
        if (cfg->max_queued_per_uid > 0 && ss->usage->lanes >= cfg->max_queued_per_uid) {
                daemon_refusal_count(DAEMON_REFUSAL_queued_requests);
                return daemon_request_errorf(rq, -EAGAIN, "uid %u has %u lanes open (max_queued_per_uid %" PRIu64 ")",
                                             (unsigned) ss->usage->uid, ss->usage->lanes, cfg->max_queued_per_uid);
        }

        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->job = serving__job_new(rq, ss);
        if (!l->job) {
                free(l);
                return -ENOMEM;
        }
        r = lane_job_build(rq, ss, h, l->job);
        if (r < 0) {
                serving__job_free(l->job);
                free(l);
                return r;
        }
        /* A lane holds one execution at a time: a uid may open as many
         * as it may queue requests. */
        l->job->rq = NULL;
        l->usage = ss->usage;
        ss->usage->lanes++;
        l->sv = ss->sv;
        l->ctl_buffer = b;
        b->n_ref++;
        l->ctl = (ipc_lane_ctl_t *) (void *) (b->map + in->control_offset);
        l->spin_us = cfg->lane_spin_us;
        l->id = lanes->next_id++;
        /* Whatever the client left in req_seq counts as served. */
        l->last = __atomic_load_n(&l->ctl->req_seq, __ATOMIC_ACQUIRE);
        l->ctl->status = 0;
        l->ctl->message[0] = '\0';
        __atomic_store_n(&l->ctl->lane_waiting, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&l->ctl->done_seq, l->last, __ATOMIC_RELEASE);
        r = pthread_create(&l->thread, NULL, lane_main, l);
        if (r != 0) {
                ss->usage->lanes--;
                serving__job_free(l->job);
                serving__buffer_unref(ss->sv, b);
                free(l);
                return daemon_request_errorf(rq, -EAGAIN, "cannot start the lane's thread: %s", strerror(r));
        }
        (void) pthread_setname_np(l->thread, "acceld-lane");
        l->session = ss;
        l->handle = h;
        l->next = ss->lanes;
        ss->lanes = l;
        l->all_next = lanes->all;
        lanes->all = l;
        lanes->n_open++;

        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;        /* the lane stays open; the connection learns nothing of it */
        acceld__lane_open_response__init(out);
        out->has_lane = out->has_spin_us = 1;
        out->lane = l->id;
        out->spin_us = (uint32_t) l->spin_us;
        rq->resp.body_case = ACCELD__RESPONSE__BODY_LANE_OPEN;
        rq->resp.lane_open = out;
        return 0;
}

int daemon_lane_close_handle(daemon_request_t *rq) {
        const Acceld__LaneCloseRequest *in = rq->req->lane_close;
        serving_session_t *ss = rq->conn->session;
        Acceld__LaneCloseResponse *out;
        serving_lane_t *l = NULL;

        for (serving_lane_t *p = ss ? ss->lanes : NULL; p; p = p->next)
                if (p->id == in->lane)
                        l = p;
        if (!l)
                return daemon_request_errorf(rq, -ENOENT, "no lane %" PRIu64 " on this connection", in->lane);
        lane_stop(l);
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out)
                return -ENOMEM;
        acceld__lane_close_response__init(out);
        rq->resp.body_case = ACCELD__RESPONSE__BODY_LANE_CLOSE;
        rq->resp.lane_close = out;
        return 0;
}
