/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libaccel's side of a lane (docs/architecture.md, "Lanes"): open one for an
 * interpreter whose tensors are in shared memory, ring it per invoke, wait
 * for its completion (a short spin, then a futex), close it.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel-internal.h"
#include "clock.h"

/* A sleeping client checks this often that acceld is still there. */
#define LANE_LIVENESS_US 100000u
/* The client's spin before it sleeps, unless ACCEL_LANE_SPIN_US says. */
#define LANE_CLIENT_SPIN_US 50u
/* For an execution expected to take longer than the spin, the client
 * sleeps until this long before its expected end, then spins (unless
 * ACCEL_LANE_WAKE_AHEAD_US says; 0: sleep until woken). A futex wake-up
 * costs tens of microseconds on a VM; a timed wake on the sleeper's own
 * CPU costs its timer slack (50 us for SCHED_OTHER) and no IPI. */
#define LANE_WAKE_AHEAD_US 300u

struct accel_lane {
        accel_client_t *c;
        uint64_t id;
        ipc_lane_ctl_t *ctl;            /* in the interpreter's mapping */
        uint32_t seq;                   /* the last ring */
        uint64_t spin_us;
        uint64_t ahead_us;              /* LANE_WAKE_AHEAD_US */
        uint64_t expect_us;             /* smoothed queue + compute of the last executions */
};

bool accel__lane_wanted(void) {
        const char *e = getenv("ACCEL_LANE");

        return !(e && strcmp(e, "0") == 0);
}

static uint64_t env_us(const char *name, uint64_t def) {
        const char *e = getenv(name);
        char *end;
        unsigned long long v;

        if (!e || !*e)
                return def;
        v = strtoull(e, &end, 10);
        return *end || v > 1000000u ? def : (uint64_t) v;
}

void accel__lane_note_settings(accel_lane_t *l, const char *settings_key) {
        const char *p = settings_key ? strstr(settings_key, ";threads=") : NULL;
        long threads = p ? strtol(p + strlen(";threads="), NULL, 10) : 1;
        cpu_set_t set;
        long cpus = 0;

        if (!l)
                return;
        if (sched_getaffinity(0, sizeof(set), &set) == 0)
                cpus = CPU_COUNT(&set);
        if (cpus <= 0 || threads < cpus)
                return;
        /* The execution's threads take every CPU this process may use:
         * the caller and pool workers that spin between operators. A
         * client that spins, or wakes ahead of the expected end and
         * spins, takes a CPU from that execution: perf sched showed the
         * timed wake-up preempting the lane thread of hand landmark at 2
         * threads on 2 vCPUs for 650-700 us in a third of the invokes
         * (issue 27). It sleeps until acceld wakes it instead, unless the
         * environment says otherwise. */
        l->spin_us = env_us("ACCEL_LANE_SPIN_US", 0);
        l->ahead_us = env_us("ACCEL_LANE_WAKE_AHEAD_US", 0);
}

static void region_set(Acceld__TensorData *d, uint64_t buffer, const accel__lane_region_t *r) {
        acceld__tensor_data__init(d);
        d->has_buffer = d->has_offset = d->has_length = 1;
        d->buffer = buffer;
        d->offset = r->offset;
        d->length = r->length;
}

int accel__lane_open(accel_client_t *c, uint64_t handle, uint64_t buffer, void *ctl, uint64_t ctl_offset,
                     const accel__lane_region_t *ins, size_t n_ins, const accel__lane_region_t *outs, size_t n_outs,
                     accel_lane_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__LaneOpenRequest lo = ACCELD__LANE_OPEN_REQUEST__INIT;
        Acceld__TensorData td[IPC_LANE_MAX_INPUTS + IPC_LANE_MAX_OUTPUTS];
        Acceld__TensorData *ti[IPC_LANE_MAX_INPUTS], *to[IPC_LANE_MAX_OUTPUTS];
        Acceld__Response *resp;
        accel_lane_t *l;
        int r;

        if (n_ins > IPC_LANE_MAX_INPUTS || n_outs > IPC_LANE_MAX_OUTPUTS)
                return -E2BIG;
        for (size_t k = 0; k < n_ins; k++) {
                region_set(&td[k], buffer, &ins[k]);
                ti[k] = &td[k];
        }
        for (size_t k = 0; k < n_outs; k++) {
                region_set(&td[IPC_LANE_MAX_INPUTS + k], buffer, &outs[k]);
                to[k] = &td[IPC_LANE_MAX_INPUTS + k];
        }
        lo.has_handle = lo.has_buffer = lo.has_control_offset = 1;
        lo.handle = handle;
        lo.buffer = buffer;
        lo.control_offset = ctl_offset;
        lo.n_inputs = n_ins;
        lo.inputs = ti;
        lo.n_outputs = n_outs;
        lo.outputs = to;
        req.body_case = ACCELD__REQUEST__BODY_LANE_OPEN;
        req.lane_open = &lo;
        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        /* Before acceld reads it: nothing rung yet. */
        memset(ctl, 0, IPC_LANE_CTL_BYTES);
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_LANE_OPEN, &resp);
        if (r < 0) {
                free(l);
                return r;
        }
        l->c = c;
        l->id = resp->lane_open->lane;
        l->ctl = ctl;
        l->seq = __atomic_load_n(&l->ctl->done_seq, __ATOMIC_ACQUIRE);
        l->spin_us = env_us("ACCEL_LANE_SPIN_US", LANE_CLIENT_SPIN_US);
        l->ahead_us = env_us("ACCEL_LANE_WAKE_AHEAD_US", LANE_WAKE_AHEAD_US);
        acceld__response__free_unpacked(resp, NULL);
        *ret = l;
        return 0;
}

void accel__lane_close(accel_lane_t *l, bool tell) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__LaneCloseRequest lc = ACCELD__LANE_CLOSE_REQUEST__INIT;
        Acceld__Response *resp;

        if (!l)
                return;
        if (tell) {
                lc.has_lane = 1;
                lc.lane = l->id;
                req.body_case = ACCELD__REQUEST__BODY_LANE_CLOSE;
                req.lane_close = &lc;
                if (accel__transact(l->c, &req, ACCELD__RESPONSE__BODY_LANE_CLOSE, &resp) == 0)
                        acceld__response__free_unpacked(resp, NULL);
        }
        free(l);
}

/* acceld closed the connection (it stopped or died): the lane is gone. */
static bool conn_gone(const accel_client_t *c) {
        struct pollfd p = { .fd = c->fd, .events = POLLRDHUP };

        return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL));
}

int accel__lane_invoke(accel_lane_t *l, uint32_t deadline_ms, accel__lane_result_t *res) {
        ipc_lane_ctl_t *c = l->ctl;
        uint32_t seq = l->seq + 1;
        int32_t status;

        __atomic_store_n(&c->deadline_us, (uint64_t) deadline_ms * 1000u, __ATOMIC_RELAXED);
        /* Ring; then wake a lane that sleeps (it sets lane_waiting before
         * it checks req_seq a last time). */
        __atomic_store_n(&c->req_seq, seq, __ATOMIC_SEQ_CST);
        l->seq = seq;
        if (__atomic_load_n(&c->lane_waiting, __ATOMIC_SEQ_CST))
                ipc_lane_futex_wake(&c->req_seq);
        if (l->ahead_us && l->expect_us > l->spin_us + l->ahead_us) {
                /* A long execution: sleep through most of it (acceld wakes
                 * us if it ends early), then spin for its end. */
                __atomic_store_n(&c->client_waiting, 1, __ATOMIC_SEQ_CST);
                if (__atomic_load_n(&c->done_seq, __ATOMIC_SEQ_CST) == seq - 1)
                        (void) ipc_lane_futex_wait(&c->done_seq, seq - 1, l->expect_us - l->ahead_us);
                __atomic_store_n(&c->client_waiting, 0, __ATOMIC_RELAXED);
                (void) ipc_lane_spin(&c->done_seq, seq - 1, 2 * l->ahead_us);
        }
        while (!ipc_lane_spin(&c->done_seq, seq - 1, l->spin_us)) {
                uint32_t now;

                __atomic_store_n(&c->client_waiting, 1, __ATOMIC_SEQ_CST);
                now = __atomic_load_n(&c->done_seq, __ATOMIC_SEQ_CST);
                if (now == seq - 1)
                        (void) ipc_lane_futex_wait(&c->done_seq, now, LANE_LIVENESS_US);
                __atomic_store_n(&c->client_waiting, 0, __ATOMIC_RELAXED);
                if (__atomic_load_n(&c->done_seq, __ATOMIC_ACQUIRE) != seq - 1)
                        break;
                /* The caller drops the lane: the ring is never answered. */
                if (conn_gone(l->c))
                        return accel__error(-ECONNRESET, ACCEL_STATUS_NONE,
                                            "acceld closed the connection during a lane invoke");
        }
        if (__atomic_load_n(&c->done_seq, __ATOMIC_ACQUIRE) != seq)
                return accel__error(-EPROTO, ACCEL_STATUS_NONE, "the lane completed request %u, not %u",
                                    c->done_seq, seq);
        status = c->status;
        res->queue_us = c->queue_us;
        res->compute_us = c->compute_us;
        if (status == ACCELD__STATUS__NONE && res->queue_us + res->compute_us < 10000000u) {
                uint64_t took = res->queue_us + res->compute_us;

                l->expect_us = l->expect_us ? (3 * l->expect_us + took) / 4 : took;
        }
        res->zero_copy = c->zero_copy != 0;
        if (status != ACCELD__STATUS__NONE) {
                char msg[sizeof(c->message)];
                int r = ipc_status_to_errno((Acceld__Status) status);

                memcpy(msg, c->message, sizeof(msg));
                msg[sizeof(msg) - 1] = '\0';
                return accel__error(r < 0 ? r : -EIO, (accel_status_t) status, "%s: %s",
                                    ipc_status_to_string((Acceld__Status) status), msg);
        }
        for (int32_t k = 0; k < res->n_outputs && k < IPC_LANE_MAX_OUTPUTS; k++) {
                int32_t rank = c->ranks[k];

                if (rank < 0 || rank > IPC_LANE_MAX_RANK)
                        continue;
                res->ranks[k] = rank;
                memcpy(res->dims[k], c->dims[k], sizeof(c->dims[k]));
        }
        return 0;
}
