/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Execute: shapes, zero-copy binding of client regions, the invoke on a
 * worker, and the reply.
 */
#include "serving-internal.h"
#include "bench/placement.h"

/* ---- Execute ---- */

/* Give `it` the job's input shapes (interpreters of an instance are shared
 * by handles that may have resized differently). */
int serving__interp_shape(rt_interp_t *it, serving_job_t *j) {
        bool changed = false;
        int r;

        if (!j->shapes)
                return 0;
        for (int32_t k = 0; k < rt_interp_input_count(it); k++) {
                const rt_tensor_t *t = rt_interp_input_tensor(it, k);

                if (t->rank == j->ranks[k] && memcmp(t->dims, j->shapes[k], sizeof(int32_t) * (size_t) t->rank) == 0)
                        continue;
                r = rt_interp_resize_input(it, k, j->ranks[k], j->shapes[k]);
                if (r < 0) {
                        (void) snprintf(j->err, sizeof(j->err), "%s", rt_interp_last_error(it));
                        return r;
                }
                changed = true;
        }
        if (changed || (rt_interp_input_count(it) > 0 && rt_interp_input_data(it, 0) == NULL)) {
                r = rt_interp_allocate_tensors(it);
                if (r < 0) {
                        (void) snprintf(j->err, sizeof(j->err), "%s", rt_interp_last_error(it));
                        return r;
                }
        }
        return 0;
}

/* Copy the shapes of `infos` (n inputs) into the job. */
static int job_shapes_from(serving_job_t *j, const daemon_tensor_info_t *infos, int32_t n) {
        j->shapes = calloc((size_t) n + 1, sizeof(*j->shapes));
        j->ranks = calloc((size_t) n + 1, sizeof(*j->ranks));
        if (!j->shapes || !j->ranks)
                return -ENOMEM;
        for (int32_t k = 0; k < n; k++) {
                j->ranks[k] = infos[k].rank;
                memcpy(j->shapes[k], infos[k].dims, sizeof(j->shapes[k]));
        }
        return 0;
}

/*
 * Zero-copy: a buffer region the interpreter may run on directly (bound with
 * rt_interp_set_tensor_buffer() for one invoke, on the interpreter this job
 * acquired, so no other execution sees the binding). Conditions: a region
 * (not inline data) whose address in the daemon's mapping is RT_BUFFER_ALIGN
 * aligned, with the mapping extending to rt_interp_tensor_buffer_bytes()
 * (inputs: RT_BUFFER_SLACK bytes past the region, read and ignored);
 * a value-only type (float32/16, int8/16, uint8), so a client writing the
 * region during the invoke can only change the results, never indices or
 * sizes a kernel trusts; a static shape; and for an output, a region that
 * overlaps no other region of the request. Anything else is copied.
 */
static bool zc_type_ok(rt_type_t type) {
        return type == RT_TYPE_FLOAT32 || type == RT_TYPE_FLOAT16 || type == RT_TYPE_INT8 || type == RT_TYPE_UINT8 ||
               type == RT_TYPE_INT16;
}

static bool zc_overlap(const job_tensor_t *a, const uint8_t *pa, const job_tensor_t *b, const uint8_t *pb) {
        return a != b && b->buffer && pa < pb + b->len && pb < pa + a->len;
}

/* Output k's region overlaps no other region of the job. */
static bool zc_output_alone(const serving_job_t *j, size_t k) {
        const job_tensor_t *o = &j->outputs[k];

        for (size_t i = 0; i < j->n_inputs; i++)
                if (zc_overlap(o, o->out, &j->inputs[i], j->inputs[i].in))
                        return false;
        for (size_t i = 0; i < j->n_outputs; i++)
                if (zc_overlap(o, o->out, &j->outputs[i], j->outputs[i].out))
                        return false;
        return true;
}

static void zc_bind(rt_interp_t *it, rt_io_t io, int32_t k, job_tensor_t *jt, const uint8_t *p) {
        const rt_tensor_t *t = io == RT_IO_INPUT ? rt_interp_input_tensor(it, k) : rt_interp_output_tensor(it, k);
        size_t bytes, avail, need;

        if (!t || !jt->buffer || !p || !zc_type_ok(t->type) || t->alloc == RT_ALLOC_DYNAMIC ||
            (uintptr_t) p % RT_BUFFER_ALIGN != 0)
                return;
        bytes = rt_tensor_count(t) * rt_type_size(t->type);
        if (io == RT_IO_INPUT ? bytes != jt->len : bytes > jt->len)
                return;
        avail = jt->buffer->size - (size_t) (p - jt->buffer->map);
        need = rt_interp_tensor_buffer_bytes(it, io, k);
        if (need == 0 || avail < need)
                return;
        jt->bound = rt_interp_set_tensor_buffer(it, io, k, (void *) p, avail) == 0;
}

/* Bind what qualifies; true when every input and output is bound. */
static bool zc_bind_all(rt_interp_t *it, serving_job_t *j) {
        bool all = true;

        for (size_t k = 0; k < j->n_inputs; k++) {
                zc_bind(it, RT_IO_INPUT, (int32_t) k, &j->inputs[k], j->inputs[k].buffer ? j->inputs[k].in : NULL);
                all &= j->inputs[k].bound;
        }
        for (size_t k = 0; k < j->n_outputs; k++) {
                if (j->outputs[k].out && zc_output_alone(j, k))
                        zc_bind(it, RT_IO_OUTPUT, (int32_t) k, &j->outputs[k], j->outputs[k].out);
                all &= j->outputs[k].bound;
        }
        return all;
}

/* Back to the arena (the slots stayed reserved: no allocate needed). */
static void zc_unbind_all(rt_interp_t *it, serving_job_t *j) {
        for (size_t k = 0; k < j->n_inputs; k++)
                if (j->inputs[k].bound) {
                        (void) rt_interp_set_tensor_buffer(it, RT_IO_INPUT, (int32_t) k, NULL, 0);
                        j->inputs[k].bound = false;
                }
        for (size_t k = 0; k < j->n_outputs; k++)
                if (j->outputs[k].bound) {
                        (void) rt_interp_set_tensor_buffer(it, RT_IO_OUTPUT, (int32_t) k, NULL, 0);
                        j->outputs[k].bound = false;
                }
}

static void execute_run(daemon_job_t *job) {
        if (job->batch_next)
                serving__batch_run(job->data);
        else
                job->result = serving__execute_one(job->data);
}

int serving__execute_one(serving_job_t *j) {
        rt_interp_t *it = NULL;
        unsigned threads;
        int r;

        r = daemon_instance_acquire(j->instance, &it, j->err, sizeof(j->err));
        if (r < 0)
                return r;
        r = serving__interp_shape(it, j);
        if (r < 0)
                goto out;
        j->zero_copy = zc_bind_all(it, j);
        for (size_t k = 0; k < j->n_inputs; k++) {
                _cleanup_free_ uint8_t *copy = NULL;
                const uint8_t *src = j->inputs[k].in;

                if (j->inputs[k].bound)
                        continue;
                if (j->inputs[k].buffer && rt_interp_input_tensor(it, (int32_t) k)->type == RT_TYPE_STRING) {
                        /* The client may write its region at any time: the
                         * offsets the runtime checks and the kernels then
                         * trust must be a private copy's. */
                        copy = malloc(j->inputs[k].len ? j->inputs[k].len : 1);
                        if (!copy) {
                                r = -ENOMEM;
                                goto out;
                        }
                        memcpy(copy, src, j->inputs[k].len);
                        src = copy;
                }
                r = rt_interp_copy_in(it, (int32_t) k, src, j->inputs[k].len);
                if (r < 0) {
                        (void) snprintf(j->err, sizeof(j->err), "input %zu: %s", k, rt_interp_last_error(it));
                        goto out;
                }
        }
        /* The CPU budget: this invoke's threads, or wait for them. */
        threads = daemon_cpu_threads_for(&j->instance->settings, j->instance->queue);
        r = daemon_cpu_take(threads, j->job.deadline_ns);
        if (r < 0) {
                (void) snprintf(j->err, sizeof(j->err),
                                "the deadline passed while the execution waited for %u of acceld's %u CPUs", threads,
                                daemon_cpu_budget());
                goto out;
        }
        /* A stateful model runs on its handle's own variables. */
        if (j->state) {
                r = daemon_state_enter(j->state, it, j->err, sizeof(j->err));
                if (r < 0) {
                        daemon_cpu_give(threads);
                        goto out;
                }
        }
        daemon_hosts_set_deadline(j->job.deadline_ns);
        r = rt_interp_invoke(it);
        daemon_hosts_set_deadline(0);
        daemon_cpu_give(threads);
        if (j->state)
                daemon_state_leave(j->state, it);
        if (r < 0) {
                (void) snprintf(j->err, sizeof(j->err), "%s", rt_interp_last_error(it));
                if (r == -EOWNERDEAD)
                        daemon_quarantine_record(j->instance->model->sha256, &j->instance->settings, false);
                goto out;
        }
        for (size_t k = 0; k < j->n_outputs; k++) {
                const rt_tensor_t *t = rt_interp_output_tensor(it, (int32_t) k);
                job_tensor_t *o = &j->outputs[k];
                size_t bytes = t->type == RT_TYPE_STRING ? t->bytes : rt_tensor_count(t) * rt_type_size(t->type);
                uint8_t *dst;

                o->rank = t->rank;
                memcpy(o->dims, t->dims, sizeof(o->dims));
                if (o->out) {
                        if (bytes > o->len) {
                                (void) snprintf(j->err, sizeof(j->err),
                                                "output %zu needs %zu bytes, its region has %zu", k, bytes, o->len);
                                r = -ENOBUFS;
                                goto out;
                        }
                        if (o->bound)
                                continue;  /* the invoke wrote the region */
                        dst = o->out;
                } else {
                        o->inline_out = malloc(bytes ? bytes : 1);
                        if (!o->inline_out) {
                                r = -ENOMEM;
                                goto out;
                        }
                        o->inline_len = bytes;
                        dst = o->inline_out;
                }
                r = rt_interp_copy_out(it, (int32_t) k, dst, bytes);
                if (r < 0) {
                        (void) snprintf(j->err, sizeof(j->err), "output %zu: %s", k, rt_interp_last_error(it));
                        goto out;
                }
        }
out:
        zc_unbind_all(it, j);
        daemon_instance_release(j->instance, it);
        return r;
}

/* Inline outputs (string tensors: any size) that would not fit one frame:
 * say which limit, instead of the generic refusal of an oversized reply.
 * The margin covers the status fields the reply still gets. */
static bool reply_too_big(serving_job_t *j) {
        daemon_request_t *rq = j->rq;
        uint64_t max = rq->server->config->max_frame_bytes;
        size_t size = acceld__response__get_packed_size(&rq->resp) + 64;
        size_t inline_bytes = 0;

        if (size <= max)
                return false;
        for (size_t k = 0; k < j->n_outputs; k++)
                if (!j->outputs[k].out)
                        inline_bytes += j->outputs[k].inline_len;
        (void) snprintf(j->err, sizeof(j->err),
                        "the outputs returned inline are %zu bytes: the reply (%zu bytes) would exceed "
                        "max_frame_bytes (%" PRIu64 ")", inline_bytes, size, max);
        return true;
}

static void execute_done(daemon_job_t *job, int r) {
        serving_job_t *j = job->data;
        daemon_request_t *rq = j->rq;
        Acceld__ExecuteResponse *out;

        if (r == 0 && job->deadline_ns && job->finished_ns > job->deadline_ns) {
                /* NNAPI's deadline bounds completion: a result that came
                 * too late is not delivered. PERSISTENT when the compute
                 * alone exceeded the whole budget (it would miss again),
                 * TRANSIENT when queueing made it late. */
                uint64_t compute = job->finished_ns - job->started_ns;
                uint64_t budget = job->deadline_ns - rq->received_ns;

                r = compute > budget ? -ETIMEDOUT : -ETIME;
                (void) snprintf(j->err, sizeof(j->err),
                                "finished %" PRIu64 " us after its deadline (compute %" PRIu64 " us, budget %" PRIu64
                                " us); the result is discarded",
                                (job->finished_ns - job->deadline_ns) / 1000, compute / 1000, budget / 1000);
        }
        if (r < 0 || !j->session) {
                serving__job_complete(j, r < 0 ? r : -ECONNRESET);
                return;
        }
        j->sv->executions++;
        out = daemon_request_alloc(rq, sizeof(*out));
        if (!out) {
                serving__job_complete(j, -ENOMEM);
                return;
        }
        acceld__execute_response__init(out);
        out->has_queue_us = 1;
        out->queue_us = (job->started_ns - rq->received_ns) / 1000;
        out->has_compute_us = 1;
        out->compute_us = (job->finished_ns - job->started_ns) / 1000;
        /* Placement's round trip: acceld's part of this request. */
        {
                uint64_t total_us = (uv_hrtime() - rq->received_ns) / 1000;

                bench_placement_note_served(total_us > out->compute_us ? total_us - out->compute_us : 0);
                if (j->batch_n <= 1)
                        bench_placement_note_compute(j->instance->key, out->compute_us);
        }
        out->has_zero_copy = 1;
        out->zero_copy = j->zero_copy;
        out->has_batch_size = 1;
        out->batch_size = j->batch_n ? j->batch_n : 1;
        out->output_shapes = daemon_request_alloc(rq, sizeof(void *) * (j->n_outputs + 1));
        Acceld__TensorShape *shapes = daemon_request_alloc(rq, sizeof(*shapes) * (j->n_outputs + 1));
        int32_t *dims = daemon_request_alloc(rq, sizeof(int32_t) * RT_MAX_RANK * (j->n_outputs + 1));
        if (!out->output_shapes || !shapes || !dims) {
                serving__job_complete(j, -ENOMEM);
                return;
        }
        for (size_t k = 0; k < j->n_outputs; k++) {
                acceld__tensor_shape__init(&shapes[k]);
                memcpy(dims + k * RT_MAX_RANK, j->outputs[k].dims, sizeof(int32_t) * RT_MAX_RANK);
                shapes[k].dims = dims + k * RT_MAX_RANK;
                shapes[k].n_dims = (size_t) j->outputs[k].rank;
                out->output_shapes[k] = &shapes[k];
        }
        out->n_output_shapes = j->n_outputs;
        if (j->outputs_inline) {
                Acceld__TensorData **pp = daemon_request_alloc(rq, sizeof(*pp) * (j->n_outputs + 1));
                Acceld__TensorData *po = daemon_request_alloc(rq, sizeof(*po) * (j->n_outputs + 1));

                if (!pp || !po) {
                        serving__job_complete(j, -ENOMEM);
                        return;
                }
                for (size_t k = 0; k < j->n_outputs; k++) {
                        /* Points into the job, which outlives the send. An
                         * output written to its region has no data here. */
                        acceld__tensor_data__init(&po[k]);
                        if (!j->outputs[k].out) {
                                po[k].has_data = 1;
                                po[k].data.data = j->outputs[k].inline_out;
                                po[k].data.len = j->outputs[k].inline_len;
                        }
                        pp[k] = &po[k];
                }
                out->outputs = pp;
                out->n_outputs = j->n_outputs;
        }
        rq->resp.body_case = ACCELD__RESPONSE__BODY_EXECUTE;
        rq->resp.execute = out;
        if (j->outputs_inline && reply_too_big(j)) {
                rq->resp.body_case = ACCELD__RESPONSE__BODY__NOT_SET;
                rq->resp.execute = NULL;
                serving__job_complete(j, -ENOSPC);
                return;
        }
        serving__job_complete_keep(j, 0);
}

int serving__region_get(daemon_request_t *rq, serving_session_t *ss, const Acceld__TensorData *d, const char *what,
                      size_t k, job_tensor_t *t) {
        serving_buffer_t *b = serving__buffer_find(ss, d->buffer);

        if (!b)
                return daemon_request_errorf(rq, -ENOENT, "%s %zu: no buffer %" PRIu64 " on this connection", what, k,
                                             d->buffer);
        if (d->offset > b->size || d->length > b->size - d->offset)
                return daemon_request_errorf(rq, -EINVAL,
                                             "%s %zu: region [%" PRIu64 ", +%" PRIu64 ") is outside buffer %" PRIu64
                                             " of %zu bytes", what, k, d->offset, d->length, d->buffer, b->size);
        t->buffer = b;
        b->n_ref++;
        t->len = (size_t) d->length;
        return 0;
}

int daemon_execute_handle(daemon_request_t *rq) {
        const Acceld__ExecuteRequest *in = rq->req->execute;
        serving_session_t *ss = rq->conn->session;
        serving_handle_t *h = serving__handle_find(ss, in->handle);
        daemon_instance_t *inst;
        serving_job_t *j;
        int r;

        if (!h)
                return daemon_request_errorf(rq, -ENOENT, "no model handle %" PRIu64 " on this connection", in->handle);
        inst = h->instance;
        const daemon_tensor_info_t *ins = h->inputs ? h->inputs : inst->inputs;
        const daemon_tensor_info_t *outs = h->outputs ? h->outputs : inst->outputs;
        if (in->n_inputs != (size_t) inst->n_inputs)
                return daemon_request_errorf(rq, -EINVAL, "the model has %d input%s, the request gives %zu",
                                             inst->n_inputs, inst->n_inputs == 1 ? "" : "s", in->n_inputs);
        if (in->n_outputs != 0 && in->n_outputs != (size_t) inst->n_outputs)
                return daemon_request_errorf(rq, -EINVAL,
                                             "the model has %d output%s, the request gives %zu regions "
                                             "(give none to receive the outputs inline)",
                                             inst->n_outputs, inst->n_outputs == 1 ? "" : "s", in->n_outputs);
        r = serving__queue_check(rq, ss);
        if (r < 0)
                return r;
        j = serving__job_new(rq, ss);
        if (!j)
                return -ENOMEM;
        j->n_inputs = in->n_inputs;
        j->n_outputs = (size_t) inst->n_outputs;
        j->inputs = calloc(j->n_inputs + 1, sizeof(*j->inputs));
        j->outputs = calloc(j->n_outputs + 1, sizeof(*j->outputs));
        if (!j->inputs || !j->outputs) {
                serving__job_free(j);
                return -ENOMEM;
        }
        for (size_t k = 0; k < in->n_inputs; k++) {
                const Acceld__TensorData *d = in->inputs[k];
                job_tensor_t *t = &j->inputs[k];

                if (d->has_data) {
                        t->in = d->data.data;
                        t->len = d->data.len;
                } else if (d->has_buffer) {
                        r = serving__region_get(rq, ss, d, "input", k, t);
                        if (r < 0) {
                                serving__job_free(j);
                                return r;
                        }
                        t->in = t->buffer->map + d->offset;
                } else {
                        serving__job_free(j);
                        return daemon_request_errorf(rq, -EINVAL, "input %zu has neither data nor a buffer", k);
                }
                if (ins[k].type == RT_TYPE_STRING) {
                        /* A serialized string list of any size, checked on
                         * the worker (a region's after it is copied there);
                         * inline ones are bounded by the frame already. */
                        uint64_t max = rq->server->config->max_frame_bytes;

                        if (t->len > max) {
                                size_t got = t->len;

                                serving__job_free(j);
                                return daemon_request_errorf(rq, -ENOSPC,
                                                             "input %zu ('%s'): a string list of %zu bytes exceeds "
                                                             "max_frame_bytes (%" PRIu64 ")", k, ins[k].name, got,
                                                             max);
                        }
                } else if (t->len != ins[k].bytes) {
                        size_t got = t->len;

                        serving__job_free(j);
                        return daemon_request_errorf(rq, -EINVAL, "input %zu ('%s') needs %zu bytes, got %zu", k,
                                                     ins[k].name, ins[k].bytes, got);
                }
        }
        j->outputs_inline = in->n_outputs == 0;
        for (size_t k = 0; k < in->n_outputs; k++) {
                const Acceld__TensorData *d = in->outputs[k];
                job_tensor_t *t = &j->outputs[k];

                if (d->has_reply_inline && d->reply_inline) {
                        if (d->has_buffer || d->has_data) {
                                serving__job_free(j);
                                return daemon_request_errorf(rq, -EINVAL,
                                                             "output %zu asks reply_inline and gives a region or "
                                                             "data", k);
                        }
                        j->outputs_inline = true;  /* t->out stays NULL: inline */
                        continue;
                }
                if (!d->has_buffer || d->has_data) {
                        serving__job_free(j);
                        return daemon_request_errorf(rq, -EINVAL,
                                                     "output %zu must be a buffer region or reply_inline", k);
                }
                r = serving__region_get(rq, ss, d, "output", k, t);
                if (r < 0) {
                        serving__job_free(j);
                        return r;
                }
                t->out = t->buffer->map + d->offset;
                if (t->len < outs[k].bytes) {
                        size_t got = t->len;

                        serving__job_free(j);
                        return daemon_request_errorf(rq, -ENOBUFS, "output %zu ('%s') needs %zu bytes, its region has %zu",
                                                     k, outs[k].name, outs[k].bytes, got);
                }
        }
        /* Interpreters are shared between handles: always state the shapes
         * to run with, so one resized elsewhere is put back. */
        if (job_shapes_from(j, ins, inst->n_inputs) < 0) {
                serving__job_free(j);
                return -ENOMEM;
        }
        if (inst->stateful) {
                if (!h->state)
                        h->state = daemon_state_new();
                if (!h->state) {
                        serving__job_free(j);
                        return -ENOMEM;
                }
                j->state = daemon_state_ref(h->state);
        }
        j->instance = daemon_instance_ref(&ss->sv->models, inst);
        j->job.priority = serving__priority_of(in->has_priority ? in->priority : 0, h->priority);
        j->job.deadline_ns = daemon_request_deadline_ns(rq, in->has_deadline_us, in->deadline_us);
        j->job.run = execute_run;
        j->job.done = execute_done;
        j->job.resource = &inst->exec_slots;
        if (serving__batch_eligible(j)) {
                j->job.batch_key = inst;
                j->job.batch_max = inst->batch_max;
                j->job.batch_delay_ns = inst->batch_delay_ns;
        }
        r = serving__job_submit(rq, ss, j, inst->queue);
        if (r < 0)
                serving__job_free(j);
        return r;
}
