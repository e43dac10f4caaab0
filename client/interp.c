/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel: the TFLite-C-API-shaped interpreter over acceld. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "accel-internal.h"
#include "cleanup.h"
#include "local.h"

#define TENSOR_ALIGN 64u   /* RT_BUFFER_ALIGN */
#define TENSOR_SLACK 16u   /* RT_BUFFER_SLACK: XNNPACK reads up to 16 bytes past an input */
#define MAX_RANK 8

struct accel_interp_options {
        char *json;
        uint8_t *compute_settings;
        size_t compute_settings_size;
        char *delegate;
        int32_t num_threads;
        accel_priority_t priority;
        uint32_t deadline_ms;
        uint32_t prepare_deadline_ms;
        int preference;         /* -1: none */
        char *socket;
        accel_client_t *client;         /* borrowed: share this connection */
        bool daemon_buffer;             /* AllocateBuffer instead of our own memfd */
        bool inline_tensors;
        uint8_t *cache_token;   /* NULL: none */
        size_t cache_token_size;
        uint32_t max_batch_size, max_queue_delay_us;  /* 0: acceld's configuration */
        bool no_lane;                   /* accel_interp_options_set_lane(o, false) */
};

struct accel_tensor {
        char *name;
        accel_type_t type;
        int32_t rank;
        int32_t dims[MAX_RANK];
        size_t bytes;
        float scale;
        int32_t zero_point;
        size_t offset;          /* in the shared buffer */
        size_t region;          /* bytes of its region there (0: none) */
        void *data;
        /* An output whose size is known only after invoke and outgrew its
         * region: it is returned inline into this heap block instead. A
         * string tensor (any size) always lives here: an input's list as
         * set, sent inline; an output's as the last reply carried it. */
        void *heap;
        size_t heap_size;
        bool input;
};

struct accel_interp {
        accel_client_t *c;
        uint64_t handle;
        bool shared;
        bool from_cache, cache_written;
        uint64_t compile_us;
        accel_tensor_t *inputs, *outputs;
        int32_t n_inputs, n_outputs;
        char **part_drivers;
        char **part_why;                /* "" when the group runs as asked */
        char *delegation_note;          /* "" when the asked delegate ran */
        char *settings_key;             /* the instance's canonical settings, as acceld applied them */
        int32_t *part_nodes;
        size_t n_parts;
        int memfd;
        uint8_t *map;
        size_t map_size;
        uint64_t buffer;
        bool allocated;
        bool inline_tensors;
        bool inline_outputs;    /* some output outgrew its region */
        int priority;
        uint32_t deadline_ms;
        uint64_t queue_us, compute_us, total_us;
        bool shared_conn;       /* it->c is the caller's (options' client) */
        bool daemon_buffer;     /* tensors in a buffer acceld allocates */
        /* accel_interp_invoke_start(): the Execute in flight (0: none). */
        uint64_t pending_id, pending_t0;
        bool pending_inline;
        bool zero_copy;
        /* Placement: acceld placed the model in this process (local.h);
         * NULL: served. placement_reason: acceld's why, either way. */
        accel_local_t *local;
        char *placement_reason;
        /* A lane (lane.c): invokes ring a control block in the shared
         * buffer, at lane_ctl, instead of sending frames. */
        accel_lane_t *lane;
        bool lane_off;                  /* the options or ACCEL_LANE=0 said no */
        size_t lane_ctl;                /* offset of the control block; 0: none */
};

static int oom(void) {
        return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
}

/* ---- models ---- */

int accel_model_create_from_file(const char *path, accel_model_t **ret) {
        accel_model_t *m;
        struct stat st;
        int fd;

        accel__error_clear();
        if (!path || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_model_create_from_file: invalid argument");
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return accel__error(-errno, ACCEL_STATUS_NONE, "%s: %s", path, strerror(errno));
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                (void) close(fd);
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "%s: not a regular file", path);
        }
        m = calloc(1, sizeof(*m));
        if (!m) {
                (void) close(fd);
                return oom();
        }
        m->fd = fd;
        m->size = (size_t) st.st_size;
        *ret = m;
        return 0;
}

int accel_model_create(const void *data, size_t size, accel_model_t **ret) {
        accel_model_t *m;

        accel__error_clear();
        if (!data || size == 0 || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_model_create: invalid argument");
        m = calloc(1, sizeof(*m));
        if (!m || !(m->data = malloc(size))) {
                free(m);
                return oom();
        }
        memcpy(m->data, data, size);
        m->size = size;
        m->fd = -1;
        *ret = m;
        return 0;
}

accel_model_t *accel_model_delete(accel_model_t *m) {
        if (!m)
                return NULL;
        if (m->fd >= 0)
                (void) close(m->fd);
        free(m->data);
        free(m);
        return NULL;
}

/* ---- options ---- */

accel_interp_options_t *accel_interp_options_create(void) {
        accel_interp_options_t *o = calloc(1, sizeof(*o));

        if (o) {
                o->num_threads = -1;
                o->preference = -1;
        }
        return o;
}

accel_interp_options_t *accel_interp_options_delete(accel_interp_options_t *o) {
        if (!o)
                return NULL;
        free(o->json);
        free(o->compute_settings);
        free(o->delegate);
        free(o->socket);
        free(o->cache_token);
        free(o);
        return NULL;
}

static int str_set(char **dst, const char *s) {
        char *n = NULL;

        if (s && !(n = strdup(s)))
                return -ENOMEM;
        free(*dst);
        *dst = n;
        return 0;
}

int accel_interp_options_set_settings_json(accel_interp_options_t *o, const char *json) {
        return o ? str_set(&o->json, json) : -EINVAL;
}

int accel_interp_options_set_compute_settings(accel_interp_options_t *o, const void *data, size_t size) {
        uint8_t *n = NULL;

        if (!o || (size && !data))
                return -EINVAL;
        if (size && !(n = malloc(size)))
                return -ENOMEM;
        if (size)
                memcpy(n, data, size);
        free(o->compute_settings);
        o->compute_settings = n;
        o->compute_settings_size = size;
        return 0;
}

int accel_interp_options_set_delegate(accel_interp_options_t *o, const char *delegate) {
        return o ? str_set(&o->delegate, delegate) : -EINVAL;
}

int accel_interp_options_set_num_threads(accel_interp_options_t *o, int32_t n) {
        if (!o || (n != -1 && n < 1))
                return -EINVAL;
        o->num_threads = n;
        return 0;
}

int accel_interp_options_set_priority(accel_interp_options_t *o, accel_priority_t p) {
        if (!o || p < ACCEL_PRIORITY_DEFAULT || p > ACCEL_PRIORITY_HIGH)
                return -EINVAL;
        o->priority = p;
        return 0;
}

int accel_interp_options_set_deadline_ms(accel_interp_options_t *o, uint32_t ms) {
        if (!o)
                return -EINVAL;
        o->deadline_ms = ms;
        return 0;
}

int accel_interp_options_set_prepare_deadline_ms(accel_interp_options_t *o, uint32_t ms) {
        if (!o)
                return -EINVAL;
        o->prepare_deadline_ms = ms;
        return 0;
}

int accel_interp_options_set_preference(accel_interp_options_t *o, int preference) {
        if (!o || preference < -1 || preference > 3)
                return -EINVAL;
        o->preference = preference;
        return 0;
}

int accel_interp_options_set_daemon_buffer(accel_interp_options_t *o, bool enable) {
        if (!o)
                return -EINVAL;
        o->daemon_buffer = enable;
        return 0;
}

int accel_interp_options_set_client(accel_interp_options_t *o, accel_client_t *c) {
        if (!o)
                return -EINVAL;
        o->client = c;
        return 0;
}

int accel_interp_options_set_socket(accel_interp_options_t *o, const char *path) {
        return o ? str_set(&o->socket, path) : -EINVAL;
}

int accel_interp_options_set_inline_tensors(accel_interp_options_t *o, bool enable) {
        if (!o)
                return -EINVAL;
        o->inline_tensors = enable;
        return 0;
}

int accel_interp_options_set_lane(accel_interp_options_t *o, bool enable) {
        if (!o)
                return -EINVAL;
        o->no_lane = !enable;
        return 0;
}

int accel_interp_options_set_batching(accel_interp_options_t *o, uint32_t max_batch_size,
                                      uint32_t max_queue_delay_us) {
        if (!o || max_batch_size > 64)
                return -EINVAL;
        o->max_batch_size = max_batch_size;
        o->max_queue_delay_us = max_queue_delay_us;
        return 0;
}

int accel_interp_options_set_cache_token(accel_interp_options_t *o, const void *token, size_t size) {
        uint8_t *n = NULL;

        if (!o || (size && !token) || size > ACCEL_CACHE_TOKEN_MAX)
                return -EINVAL;
        if (size && !(n = malloc(size)))
                return -ENOMEM;
        if (size)
                memcpy(n, token, size);
        free(o->cache_token);
        o->cache_token = n;
        o->cache_token_size = size;
        return 0;
}

/* The settings JSON to send: explicit JSON, else one built from the
 * delegate and thread count, else NULL (the daemon's choice). */
static char *options_json(const accel_interp_options_t *o) {
        char *s = NULL;

        if (!o)
                return NULL;
        if (o->json)
                return strdup(o->json);
        if (!o->delegate && o->num_threads == -1)
                return NULL;
        if (asprintf(&s, "{\"delegate\": \"%s\", \"cpu_settings\": {\"num_threads\": %d}, "
                         "\"xnnpack_settings\": {\"num_threads\": %d}}",
                     o->delegate ? o->delegate : "NONE", (int) o->num_threads, (int) o->num_threads) < 0)
                return NULL;
        return s;
}

/* ---- interpreter ---- */

static void tensors_free(accel_tensor_t *v, int32_t n) {
        for (int32_t i = 0; v && i < n; i++) {
                free(v[i].name);
                free(v[i].heap);
        }
        free(v);
}

static int tensors_from(accel_tensor_t **ret, Acceld__TensorInfo **v, size_t n, bool input) {
        accel_tensor_t *t = calloc(n + 1, sizeof(*t));

        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                t[i].name = accel__strdup0(v[i]->name);
                if (!t[i].name) {
                        tensors_free(t, (int32_t) n);
                        return -ENOMEM;
                }
                t[i].type = (accel_type_t) v[i]->type;
                t[i].rank = (int32_t) (v[i]->n_shape < MAX_RANK ? v[i]->n_shape : MAX_RANK);
                for (int32_t d = 0; d < t[i].rank; d++)
                        t[i].dims[d] = v[i]->shape[d];
                t[i].bytes = (size_t) v[i]->bytes;
                t[i].input = input;
                /* A string tensor has no size until it is set (inputs) or
                 * an invoke returns it (outputs). */
                if (t[i].type == ACCEL_TYPE_STRING)
                        t[i].bytes = 0;
                if (v[i]->n_scale > 0) {
                        t[i].scale = v[i]->scale[0];
                        t[i].zero_point = v[i]->n_zero_point ? (int32_t) v[i]->zero_point[0] : 0;
                }
        }
        *ret = t;
        return 0;
}

/* Tell acceld the registered buffer is gone (its own connection closing
 * does that too, but a shared one stays open). Errors are ignored: the
 * buffer is released with the connection at the latest. */
/* Close the lane; with tell, acceld hears of it (else the connection is
 * closing, which closes it). */
static void lane_drop(accel_interp_t *it, bool tell) {
        accel__lane_close(it->lane, tell && it->c);
        it->lane = NULL;
}

static void buffer_unregister(accel_interp_t *it) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__UnregisterBufferRequest ub = ACCELD__UNREGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *resp = NULL;

        lane_drop(it, true);
        if (!it->buffer || !it->c)
                return;
        ub.has_buffer = 1;
        ub.buffer = it->buffer;
        req.body_case = ACCELD__REQUEST__BODY_UNREGISTER_BUFFER;
        req.unregister_buffer = &ub;
        if (accel__transact(it->c, &req, ACCELD__RESPONSE__BODY_UNREGISTER_BUFFER, &resp) == 0)
                acceld__response__free_unpacked(resp, NULL);
        it->buffer = 0;
}

static void handle_release(accel_interp_t *it) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ReleaseModelRequest rm = ACCELD__RELEASE_MODEL_REQUEST__INIT;
        Acceld__Response *resp = NULL;

        if (!it->handle || !it->c)
                return;
        rm.has_handle = 1;
        rm.handle = it->handle;
        req.body_case = ACCELD__REQUEST__BODY_RELEASE_MODEL;
        req.release_model = &rm;
        if (accel__transact(it->c, &req, ACCELD__RESPONSE__BODY_RELEASE_MODEL, &resp) == 0)
                acceld__response__free_unpacked(resp, NULL);
        it->handle = 0;
}

static void buffer_drop(accel_interp_t *it) {
        lane_drop(it, false);
        it->lane_ctl = 0;
        if (it->map)
                (void) munmap(it->map, it->map_size);
        if (it->memfd >= 0)
                (void) close(it->memfd);
        it->map = NULL;
        it->memfd = -1;
        it->map_size = 0;
        for (int32_t i = 0; i < it->n_inputs; i++) {
                accel_tensor_t *t = &it->inputs[i];

                if (it->inline_tensors && t->data != t->heap)
                        free(t->data);
                t->data = t->heap;      /* a string input keeps its list */
        }
        for (int32_t i = 0; i < it->n_outputs; i++) {
                if (it->inline_tensors && it->outputs[i].data != it->outputs[i].heap)
                        free(it->outputs[i].data);
                free(it->outputs[i].heap);
                it->outputs[i].heap = NULL;
                it->outputs[i].heap_size = 0;
                it->outputs[i].data = NULL;
        }
        it->inline_outputs = false;
        it->allocated = false;
}

/* ---- placement: the model in this process (local.h) ---- */

/* ACCEL_PLACEMENT=daemon in the environment: always served. */
static bool placement_refused(const accel_interp_options_t *options) {
        const char *e = getenv("ACCEL_PLACEMENT");

        (void) options;
        return e && strcmp(e, "daemon") == 0;
}

/* The reply's placement: with CLIENT, our own interpreter with acceld's
 * settings. Should it fail here, the model stays served (the handle is
 * kept for that) and the reason says why. -ENOMEM only. */
static int placement_take(accel_interp_t *it, const accel_model_t *model, const Acceld__PrepareModelResponse *pm) {
        char err[512] = "";
        int r;

        it->placement_reason = accel__strdup0(pm->placement_reason ? pm->placement_reason : "");
        if (!it->placement_reason)
                return -ENOMEM;
        if (!model || !pm->has_placement || pm->placement != ACCELD__PLACEMENT__PLACEMENT_CLIENT ||
            !pm->has_client_settings)
                return 0;
        r = accel__local_create(model, pm->client_settings.data, pm->client_settings.len, &it->local, err,
                                sizeof(err));
        if (r < 0) {
                char *why = NULL;

                if (r == -ENOMEM)
                        return r;
                if (asprintf(&why, "daemon: this process could not create the interpreter (%s); %s",
                             err[0] ? err : strerror(-r), it->placement_reason) < 0)
                        return -ENOMEM;
                free(it->placement_reason);
                it->placement_reason = why;
        }
        return 0;
}

/* Tensors from the local interpreter's: shapes and sizes always; data
 * pointers once allocated (inputs and outputs live in its memory, string
 * lists in their heap blocks). */
static int local_tensors_sync(accel_interp_t *it, bool outputs_only) {
        accel_local_t *l = it->local;
        rt_interp_t *rt = l->rt;

        if (!outputs_only) {
                const rt_tensor_t **outs = realloc(l->outs, sizeof(*outs) * (size_t) (it->n_outputs + 1));

                if (!outs)
                        return oom();
                l->outs = outs;
                for (int32_t i = 0; i < it->n_outputs; i++)
                        outs[i] = rt_interp_output_tensor(rt, i);
                l->n_outs = it->n_outputs;
        }
        for (int32_t k = outputs_only ? it->n_inputs : 0; k < it->n_inputs + it->n_outputs; k++) {
                bool input = k < it->n_inputs;
                int32_t i = input ? k : k - it->n_inputs;
                accel_tensor_t *t = input ? &it->inputs[i] : &it->outputs[i];
                const rt_tensor_t *rtt = input                  ? rt_interp_input_tensor(rt, i)
                                         : l->outs && i < l->n_outs ? l->outs[i]
                                                                    : rt_interp_output_tensor(rt, i);

                if (!rtt)
                        return accel__error(-EBADMSG, ACCEL_STATUS_NONE, "tensor %d is missing in this process",
                                            (int) k);
                t->rank = rtt->rank < MAX_RANK ? rtt->rank : MAX_RANK;
                for (int32_t d = 0; d < t->rank; d++)
                        t->dims[d] = rtt->dims[d];
                if (t->type == ACCEL_TYPE_STRING) {
                        if (!input && it->allocated && rtt->data && rtt->bytes) {
                                void *p = realloc(t->heap, rtt->bytes);

                                if (!p)
                                        return oom();
                                memcpy(p, rtt->data, rtt->bytes);
                                t->heap = t->data = p;
                                t->heap_size = t->bytes = rtt->bytes;
                        }
                        continue;
                }
                t->bytes = rt_type_size(rtt->type) * rt_tensor_count(rtt);
                /* After an invoke the tensors are allocated: its pointer. */
                if (outputs_only)
                        t->data = rtt->data;
                else if (it->allocated)
                        t->data = input ? rt_interp_input_data(rt, i) : (void *) rt_interp_output_data(rt, i);
        }
        return 0;
}

static int local_error(accel_interp_t *it, int r) {
        const char *e = rt_interp_last_error(it->local->rt);

        return accel__error(r, ACCEL_STATUS_GENERAL_FAILURE, "%s", e[0] ? e : strerror(-r));
}

static int local_allocate(accel_interp_t *it) {
        int r = rt_interp_allocate_tensors(it->local->rt);

        if (r < 0)
                return local_error(it, r);
        it->allocated = true;
        return local_tensors_sync(it, false);
}

static int local_resize(accel_interp_t *it, int32_t i, const int32_t *dims, int32_t rank) {
        int r = rt_interp_resize_input(it->local->rt, i, rank, dims);

        /* Allocate now, as acceld does, so that every shape is known. */
        if (r == 0)
                r = rt_interp_allocate_tensors(it->local->rt);
        if (r < 0)
                return local_error(it, r);
        buffer_drop(it);
        return local_tensors_sync(it, false);
}

static int local_invoke(accel_interp_t *it) {
        const accel_local_stamp_t t0 = accel__local_clock_start(&it->local->clock);
        int r;

        for (int32_t k = 0; k < it->n_inputs; k++) {
                if (it->inputs[k].type != ACCEL_TYPE_STRING)
                        continue;
                if (!it->inputs[k].heap)
                        return accel__error(-EINVAL, ACCEL_STATUS_NONE, "string input %d ('%s') has not been set",
                                            (int) k, it->inputs[k].name);
                r = rt_interp_copy_in(it->local->rt, k, it->inputs[k].heap, it->inputs[k].bytes);
                if (r < 0)
                        return local_error(it, r);
        }
        r = rt_interp_invoke(it->local->rt);
        if (r < 0)
                return local_error(it, r);
        r = local_tensors_sync(it, true);
        if (r < 0)
                return r;
        it->queue_us = 0;
        it->compute_us = it->total_us = accel__local_clock_elapsed_us(&it->local->clock, &t0);
        it->zero_copy = true;
        return 0;
}

/* invoke_start runs it at once; wait returns its result. */
static int local_invoke_start(accel_interp_t *it) {
        accel_local_t *l = it->local;
        uint64_t one = 1;

        if (l->pending)
                return accel__error(-EBUSY, ACCEL_STATUS_NONE, "an invoke started with accel_interp_invoke_start() "
                                                               "has not been waited for");
        l->pending_r = local_invoke(it);
        (void) snprintf(l->pending_err, sizeof(l->pending_err), "%s", l->pending_r < 0 ? accel_last_error() : "");
        l->pending = true;
        (void) write(l->efd, &one, sizeof(one));
        return 0;
}

static int local_invoke_wait(accel_interp_t *it) {
        accel_local_t *l = it->local;
        uint64_t v;

        if (!l->pending)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_invoke_wait: no invoke was started");
        l->pending = false;
        (void) read(l->efd, &v, sizeof(v));
        if (l->pending_r < 0)
                return accel__error(l->pending_r, ACCEL_STATUS_GENERAL_FAILURE, "%s", l->pending_err);
        return 0;
}

const char *accel_interp_placement(const accel_interp_t *it) {
        return it && it->local ? "client" : "daemon";
}

const char *accel_interp_placement_reason(const accel_interp_t *it) {
        return it && it->placement_reason ? it->placement_reason : "";
}

/* PrepareModel with `model`, or from the options' cache token alone when
 * model is NULL. */
static int interp_prepare(const accel_model_t *model, const accel_interp_options_t *options, accel_interp_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__PrepareModelRequest p = ACCELD__PREPARE_MODEL_REQUEST__INIT;
        Acceld__Response *resp;
        const Acceld__PrepareModelResponse *pm;
        _cleanup_free_ char *json = NULL;
        accel_interp_t *it;
        int r;

        it = calloc(1, sizeof(*it));
        if (!it)
                return oom();
        it->memfd = -1;
        if (options && options->client) {
                it->c = options->client;
                it->shared_conn = true;
        } else {
                r = accel_connect(options ? options->socket : NULL, &it->c);
                if (r < 0) {
                        free(it);
                        return r;
                }
        }
        if (options) {
                it->daemon_buffer = options->daemon_buffer;
                it->inline_tensors = options->inline_tensors;
                it->priority = options->priority;
                it->deadline_ms = options->deadline_ms;
                it->lane_off = options->no_lane || options->max_batch_size > 1;
        }
        json = options_json(options);
        p.settings_json = json;
        if (options && options->compute_settings && !json) {
                p.compute_settings = tflite__proto__compute_settings__unpack(NULL, options->compute_settings_size,
                                                                             options->compute_settings);
                if (!p.compute_settings) {
                        accel_interp_delete(it);
                        return accel__error(-EINVAL, ACCEL_STATUS_NONE, "ComputeSettings do not decode");
                }
        }
        if (it->priority) {
                p.has_priority = 1;
                p.priority = (Acceld__Priority) it->priority;
        }
        if (options && options->preference >= 0) {
                p.has_preference = 1;
                p.preference = (Tflite__Proto__ExecutionPreference) options->preference;
        }
        if (options && options->prepare_deadline_ms) {
                p.has_deadline_us = 1;
                p.deadline_us = (uint64_t) options->prepare_deadline_ms * 1000u;
        }
        if (options && options->max_batch_size) {
                p.has_max_batch_size = 1;
                p.max_batch_size = options->max_batch_size;
        }
        if (options && options->max_queue_delay_us) {
                p.has_max_queue_delay_us = 1;
                p.max_queue_delay_us = options->max_queue_delay_us;
        }
        if (model && !placement_refused(options)) {
                /* We hold the bytes: acceld may place the model here. */
                p.has_client_placement = p.client_placement = 1;
        }
        if (options && options->cache_token) {
                p.has_cache_token = 1;
                p.cache_token.data = options->cache_token;
                p.cache_token.len = options->cache_token_size;
        }
        if (!model) {
                /* From the cache: the entry's own settings apply. */
                p.settings_json = NULL;
                if (p.compute_settings)
                        tflite__proto__compute_settings__free_unpacked(p.compute_settings, NULL);
                p.compute_settings = NULL;
        } else if (model->fd >= 0) {
                p.has_model_fd = 1;
                p.model_fd = 0;
        } else {
                p.has_model = 1;
                p.model.data = model->data;
                p.model.len = model->size;
        }
        req.body_case = ACCELD__REQUEST__BODY_PREPARE_MODEL;
        req.prepare_model = &p;
        r = accel__transact_fds(it->c, &req, model && model->fd >= 0 ? &model->fd : NULL,
                                model && model->fd >= 0 ? 1 : 0, ACCELD__RESPONSE__BODY_PREPARE_MODEL, &resp);
        if (p.compute_settings)
                tflite__proto__compute_settings__free_unpacked(p.compute_settings, NULL);
        if (r < 0) {
                accel_interp_delete(it);
                return r;
        }
        pm = resp->prepare_model;
        it->handle = pm->handle;
        it->shared = pm->shared;
        it->from_cache = pm->from_cache;
        it->cache_written = pm->cache_written;
        it->compile_us = pm->compile_us;
        it->n_inputs = (int32_t) pm->n_inputs;
        it->n_outputs = (int32_t) pm->n_outputs;
        r = tensors_from(&it->inputs, pm->inputs, pm->n_inputs, true);
        if (r == 0)
                r = tensors_from(&it->outputs, pm->outputs, pm->n_outputs, false);
        if (r == 0) {
                it->part_drivers = calloc(pm->n_partitions + 1, sizeof(char *));
                it->part_nodes = calloc(pm->n_partitions + 1, sizeof(int32_t));
                it->part_why = calloc(pm->n_partitions + 1, sizeof(char *));
                it->delegation_note = accel__strdup0(pm->delegation_note ? pm->delegation_note : "");
                it->settings_key = accel__strdup0(pm->settings_key);
                if (!it->part_drivers || !it->part_nodes || !it->part_why || !it->delegation_note ||
                    !it->settings_key)
                        r = -ENOMEM;
                for (size_t k = 0; r == 0 && k < pm->n_partitions; k++) {
                        it->part_drivers[k] = accel__strdup0(pm->partitions[k]->driver);
                        it->part_nodes[k] = pm->partitions[k]->nodes;
                        it->part_why[k] = accel__strdup0(pm->partitions[k]->why ? pm->partitions[k]->why : "");
                        if (!it->part_drivers[k] || !it->part_why[k])
                                r = -ENOMEM;
                        it->n_parts = k + 1;
                }
        }
        if (r == 0)
                r = placement_take(it, model, pm);
        acceld__response__free_unpacked(resp, NULL);
        if (r < 0) {
                accel_interp_delete(it);
                return oom();
        }
        *ret = it;
        return 0;
}

int accel_interp_create(const accel_model_t *model, const accel_interp_options_t *options, accel_interp_t **ret) {
        accel__error_clear();
        if (!model || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_create: invalid argument");
        return interp_prepare(model, options, ret);
}

int accel_interp_create_from_cache(const accel_interp_options_t *options, accel_interp_t **ret) {
        accel__error_clear();
        if (!options || !options->cache_token || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE,
                                    "accel_interp_create_from_cache: the options need a cache token");
        return interp_prepare(NULL, options, ret);
}

bool accel_interp_from_cache(const accel_interp_t *it) {
        return it && it->from_cache;
}

bool accel_interp_cache_written(const accel_interp_t *it) {
        return it && it->cache_written;
}

accel_interp_t *accel_interp_delete(accel_interp_t *it) {
        if (!it)
                return NULL;
        /* Closing the connection releases the handle and the buffer; a
         * shared connection stays open, so release them one by one. */
        if (it->shared_conn) {
                if (it->pending_id) {
                        /* Take the reply of a started invoke off the wire. */
                        (void) accel_interp_cancel(it);
                        (void) accel_interp_invoke_wait(it);
                }
                buffer_unregister(it);
                handle_release(it);
        } else {
                lane_drop(it, false);  /* the connection's end closes it */
                (void) accel_disconnect(it->c);
        }
        buffer_drop(it);
        it->local = accel__local_free(it->local);
        free(it->placement_reason);
        tensors_free(it->inputs, it->n_inputs);
        tensors_free(it->outputs, it->n_outputs);
        for (size_t k = 0; k < it->n_parts; k++)
                free(it->part_drivers[k]);
        for (size_t k = 0; it->part_why && k < it->n_parts; k++)
                free(it->part_why[k]);
        free(it->part_why);
        free(it->delegation_note);
        free(it->settings_key);
        free(it->part_drivers);
        free(it->part_nodes);
        free(it);
        return NULL;
}

int32_t accel_interp_input_count(const accel_interp_t *it) {
        return it ? it->n_inputs : 0;
}

int32_t accel_interp_output_count(const accel_interp_t *it) {
        return it ? it->n_outputs : 0;
}

accel_tensor_t *accel_interp_input_tensor(accel_interp_t *it, int32_t i) {
        return it && i >= 0 && i < it->n_inputs ? &it->inputs[i] : NULL;
}

const accel_tensor_t *accel_interp_output_tensor(const accel_interp_t *it, int32_t i) {
        return it && i >= 0 && i < it->n_outputs ? &it->outputs[i] : NULL;
}

bool accel_interp_shared(const accel_interp_t *it) {
        return it && it->shared;
}

uint64_t accel_interp_compile_us(const accel_interp_t *it) {
        return it ? it->compile_us : 0;
}

const char *accel_interp_partition_reason(const accel_interp_t *it, size_t k) {
        return it && it->part_why && k < it->n_parts ? it->part_why[k] : "";
}

const char *accel_interp_settings_key(const accel_interp_t *it) {
        return it && it->settings_key ? it->settings_key : "";
}

const char *accel_interp_delegation_note(const accel_interp_t *it) {
        return it && it->delegation_note ? it->delegation_note : "";
}

size_t accel_interp_partitions(const accel_interp_t *it, const char **ret_drivers, int32_t *ret_nodes, size_t max) {
        if (!it)
                return 0;
        for (size_t k = 0; k < it->n_parts && k < max; k++) {
                if (ret_drivers)
                        ret_drivers[k] = it->part_drivers[k];
                if (ret_nodes)
                        ret_nodes[k] = it->part_nodes[k];
        }
        return it->n_parts;
}

void accel_interp_last_timing(const accel_interp_t *it, uint64_t *ret_queue_us, uint64_t *ret_compute_us,
                              uint64_t *ret_total_us) {
        if (ret_queue_us)
                *ret_queue_us = it ? it->queue_us : 0;
        if (ret_compute_us)
                *ret_compute_us = it ? it->compute_us : 0;
        if (ret_total_us)
                *ret_total_us = it ? it->total_us : 0;
}

bool accel_interp_last_zero_copy(const accel_interp_t *it) {
        return it && it->zero_copy;
}

bool accel_interp_uses_lane(const accel_interp_t *it) {
        return it && it->lane;
}

int accel_interp_resize_input(accel_interp_t *it, int32_t i, const int32_t *dims, int32_t rank) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ResizeInputsRequest rs = ACCELD__RESIZE_INPUTS_REQUEST__INIT;
        _cleanup_free_ Acceld__TensorShape *shapes = NULL;
        _cleanup_free_ Acceld__TensorShape **pp = NULL;
        Acceld__Response *resp;
        accel_tensor_t *in = NULL, *out = NULL;
        int r;

        accel__error_clear();
        if (!it || i < 0 || i >= it->n_inputs || rank < 0 || rank > MAX_RANK || (rank && !dims))
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_resize_input: invalid argument");
        if (it->local)
                return local_resize(it, i, dims, rank);
        shapes = calloc((size_t) it->n_inputs + 1, sizeof(*shapes));
        pp = calloc((size_t) it->n_inputs + 1, sizeof(*pp));
        if (!shapes || !pp)
                return oom();
        for (int32_t k = 0; k < it->n_inputs; k++) {
                acceld__tensor_shape__init(&shapes[k]);
                shapes[k].n_dims = (size_t) (k == i ? rank : it->inputs[k].rank);
                shapes[k].dims = (int32_t *) (k == i ? dims : it->inputs[k].dims);
                pp[k] = &shapes[k];
        }
        rs.has_handle = 1;
        rs.handle = it->handle;
        rs.n_shapes = (size_t) it->n_inputs;
        rs.shapes = pp;
        req.body_case = ACCELD__REQUEST__BODY_RESIZE_INPUTS;
        req.resize_inputs = &rs;
        r = accel__transact(it->c, &req, ACCELD__RESPONSE__BODY_RESIZE_INPUTS, &resp);
        if (r < 0)
                return r;
        r = tensors_from(&in, resp->resize_inputs->inputs, resp->resize_inputs->n_inputs, true);
        if (r == 0)
                r = tensors_from(&out, resp->resize_inputs->outputs, resp->resize_inputs->n_outputs, false);
        if (r < 0 || resp->resize_inputs->n_inputs != (size_t) it->n_inputs ||
            resp->resize_inputs->n_outputs != (size_t) it->n_outputs) {
                tensors_free(in, (int32_t) resp->resize_inputs->n_inputs);
                tensors_free(out, (int32_t) resp->resize_inputs->n_outputs);
                acceld__response__free_unpacked(resp, NULL);
                return r < 0 ? oom() : accel__error(-EBADMSG, ACCEL_STATUS_NONE, "ResizeInputs reply is malformed");
        }
        acceld__response__free_unpacked(resp, NULL);
        buffer_unregister(it);
        buffer_drop(it);
        tensors_free(it->inputs, it->n_inputs);
        tensors_free(it->outputs, it->n_outputs);
        it->inputs = in;
        it->outputs = out;
        return 0;
}

int accel_interp_reset_variables(accel_interp_t *it) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ResetVariablesRequest rv = ACCELD__RESET_VARIABLES_REQUEST__INIT;
        Acceld__Response *resp;
        int r;

        accel__error_clear();
        if (!it)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_reset_variables: invalid argument");
        if (it->pending_id)
                return accel__error(-EBUSY, ACCEL_STATUS_NONE, "an invoke is in flight");
        if (it->local) {
                r = accel__local_reset_variables(it->local);
                return r == -ENOMEM ? oom() : r < 0 ? local_error(it, r) : r;
        }
        rv.has_handle = 1;
        rv.handle = it->handle;
        req.body_case = ACCELD__REQUEST__BODY_RESET_VARIABLES;
        req.reset_variables = &rv;
        r = accel__transact(it->c, &req, ACCELD__RESPONSE__BODY_RESET_VARIABLES, &resp);
        if (r < 0)
                return r;
        r = resp->reset_variables->has_stateful && resp->reset_variables->stateful;
        acceld__response__free_unpacked(resp, NULL);
        return r;
}

static size_t align_up(size_t x, size_t a) {
        return (x + a - 1) / a * a;
}

/* Point the tensors into the mapped buffer (string tensors have no
 * region: their lists live in their heap blocks). */
static void tensors_map(accel_interp_t *it) {
        for (int32_t k = 0; k < it->n_inputs; k++)
                if (it->inputs[k].type != ACCEL_TYPE_STRING)
                        it->inputs[k].data = it->map + it->inputs[k].offset;
        for (int32_t k = 0; k < it->n_outputs; k++)
                if (it->outputs[k].type != ACCEL_TYPE_STRING)
                        it->outputs[k].data = it->map + it->outputs[k].offset;
        it->allocated = true;
}

/* AllocateBuffer (NNAPI's driver-allocated memory): acceld creates the
 * sealed memfd of `total` bytes, registers it for this connection and
 * sends it back; the tensors live in it as in our own buffer. */
static int daemon_buffer_allocate(accel_interp_t *it, size_t total) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__AllocateBufferRequest ab = ACCELD__ALLOCATE_BUFFER_REQUEST__INIT;
        Acceld__Response *resp = NULL;
        int fd = -1, r;

        ab.has_handle = ab.has_size = 1;
        ab.handle = it->handle;
        ab.size = total;
        req.body_case = ACCELD__REQUEST__BODY_ALLOCATE_BUFFER;
        req.allocate_buffer = &ab;
        r = accel__transact(it->c, &req, ACCELD__RESPONSE__BODY_ALLOCATE_BUFFER, &resp);
        if (r < 0)
                return r;
        if (!resp->has_num_fds || resp->num_fds != 1 || ipc_reader_take_fds(&it->c->reader, &fd, 1) < 0 ||
            resp->allocate_buffer->size < total) {
                acceld__response__free_unpacked(resp, NULL);
                return accel__error(-EBADMSG, ACCEL_STATUS_NONE, "AllocateBuffer reply carries no usable buffer");
        }
        it->buffer = resp->allocate_buffer->buffer;
        acceld__response__free_unpacked(resp, NULL);
        it->memfd = fd;
        it->map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (it->map == MAP_FAILED) {
                r = -errno;
                it->map = NULL;
                buffer_unregister(it);
                buffer_drop(it);
                return accel__error(r, ACCEL_STATUS_NONE, "cannot map acceld's buffer: %s", strerror(-r));
        }
        it->map_size = total;
        tensors_map(it);
        return 0;
}

/* Whether invokes may go over a lane: shared-memory tensors, no string
 * tensors (they travel inline), no batching asked, not turned off. */
static bool lane_wanted(const accel_interp_t *it) {
        if (it->lane_off || it->inline_tensors || !accel__lane_wanted() || it->n_inputs > IPC_LANE_MAX_INPUTS ||
            it->n_outputs > IPC_LANE_MAX_OUTPUTS)
                return false;
        for (int32_t k = 0; k < it->n_inputs; k++)
                if (it->inputs[k].type == ACCEL_TYPE_STRING)
                        return false;
        for (int32_t k = 0; k < it->n_outputs; k++)
                if (it->outputs[k].type == ACCEL_TYPE_STRING)
                        return false;
        return true;
}

/* Open the lane when acceld offers one; its refusal (lanes off, a limit,
 * a model it cannot serve) leaves the invokes on the socket. */
static void lane_open(accel_interp_t *it) {
        accel__lane_region_t ins[IPC_LANE_MAX_INPUTS], outs[IPC_LANE_MAX_OUTPUTS];

        if (!it->lane_ctl)
                return;
        for (int32_t k = 0; k < it->n_inputs; k++)
                ins[k] = (accel__lane_region_t) { it->inputs[k].offset, it->inputs[k].bytes };
        for (int32_t k = 0; k < it->n_outputs; k++)
                outs[k] = (accel__lane_region_t) { it->outputs[k].offset, it->outputs[k].region };
        if (accel__lane_open(it->c, it->handle, it->buffer, it->map + it->lane_ctl, it->lane_ctl, ins,
                             (size_t) it->n_inputs, outs, (size_t) it->n_outputs, &it->lane) < 0) {
                it->lane = NULL;
                accel__error_clear();
        } else
                accel__lane_note_settings(it->lane, it->settings_key);
}

int accel_interp_allocate_tensors(accel_interp_t *it) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__RegisterBufferRequest rb = ACCELD__REGISTER_BUFFER_REQUEST__INIT;
        Acceld__Response *resp;
        size_t total = 0, page = (size_t) sysconf(_SC_PAGESIZE);
        int r;

        accel__error_clear();
        if (!it)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_allocate_tensors: NULL");
        if (it->allocated)
                return 0;
        if (it->local)
                return local_allocate(it);
        if (it->inline_tensors) {
                for (int32_t k = 0; k < it->n_inputs; k++)
                        if (it->inputs[k].type != ACCEL_TYPE_STRING &&
                            !(it->inputs[k].data = calloc(1, it->inputs[k].bytes + 1)))
                                return oom();
                for (int32_t k = 0; k < it->n_outputs; k++)
                        if (it->outputs[k].type != ACCEL_TYPE_STRING &&
                            !(it->outputs[k].data = calloc(1, it->outputs[k].bytes + 1)))
                                return oom();
                it->allocated = true;
                return 0;
        }
        /* 64-byte aligned offsets, and TENSOR_SLACK readable bytes after
         * each input: what the daemon needs to run on the regions directly
         * (zero-copy; docs/architecture.md "Serving"). String tensors get
         * no region: they travel inline. */
        for (int32_t k = 0; k < it->n_inputs; k++) {
                if (it->inputs[k].type == ACCEL_TYPE_STRING)
                        continue;
                it->inputs[k].offset = total;
                it->inputs[k].region = it->inputs[k].bytes;
                total = align_up(total + it->inputs[k].bytes + TENSOR_SLACK, TENSOR_ALIGN);
        }
        for (int32_t k = 0; k < it->n_outputs; k++) {
                if (it->outputs[k].type == ACCEL_TYPE_STRING)
                        continue;
                it->outputs[k].offset = total;
                it->outputs[k].region = it->outputs[k].bytes;
                total = align_up(total + it->outputs[k].bytes + TENSOR_SLACK, TENSOR_ALIGN);
        }
        total = align_up(total ? total : 1, page);
        if (lane_wanted(it)) {
                /* A page of its own for the lane's control block. */
                it->lane_ctl = total;
                total += align_up(IPC_LANE_CTL_BYTES, page);
        }
        if (it->daemon_buffer) {
                r = daemon_buffer_allocate(it, total);
                if (r == 0)
                        lane_open(it);
                return r;
        }
        it->memfd = memfd_create("accel-tensors", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (it->memfd < 0)
                return accel__error(-errno, ACCEL_STATUS_NONE, "memfd_create: %s", strerror(errno));
        if (ftruncate(it->memfd, (off_t) total) < 0 ||
            fcntl(it->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                r = -errno;
                buffer_drop(it);
                return accel__error(r, ACCEL_STATUS_NONE, "cannot size the tensor buffer: %s", strerror(-r));
        }
        it->map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, it->memfd, 0);
        if (it->map == MAP_FAILED) {
                r = -errno;
                it->map = NULL;
                buffer_drop(it);
                return accel__error(r, ACCEL_STATUS_NONE, "cannot map the tensor buffer: %s", strerror(-r));
        }
        it->map_size = total;
        rb.has_fd = 1;
        rb.fd = 0;
        req.body_case = ACCELD__REQUEST__BODY_REGISTER_BUFFER;
        req.register_buffer = &rb;
        r = accel__transact_fds(it->c, &req, &it->memfd, 1, ACCELD__RESPONSE__BODY_REGISTER_BUFFER, &resp);
        if (r < 0) {
                buffer_drop(it);
                return r;
        }
        it->buffer = resp->register_buffer->buffer;
        acceld__response__free_unpacked(resp, NULL);
        tensors_map(it);
        lane_open(it);
        return 0;
}

/* Send one Execute: inputs from the shared buffer (or inline), outputs into
 * their regions unless `inline_outputs`. String inputs go inline, string
 * outputs come back inline (reply_inline). */
static int interp_execute_send(accel_interp_t *it, bool inline_outputs, bool keep, uint64_t *ret_id) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData td[2 * 64], *ti[64], *to[64];
        bool any_inline = it->inline_tensors;
        int r;

        for (int32_t k = 0; k < it->n_inputs; k++) {
                Acceld__TensorData *d = &td[k];

                acceld__tensor_data__init(d);
                if (it->inputs[k].type == ACCEL_TYPE_STRING) {
                        if (!it->inputs[k].heap)
                                return accel__error(-EINVAL, ACCEL_STATUS_NONE,
                                                    "string input %d ('%s') has not been set", (int) k,
                                                    it->inputs[k].name);
                        d->has_data = 1;
                        d->data.data = it->inputs[k].heap;
                        d->data.len = it->inputs[k].bytes;
                        any_inline = true;
                } else if (it->inline_tensors) {
                        d->has_data = 1;
                        d->data.data = it->inputs[k].data;
                        d->data.len = it->inputs[k].bytes;
                } else {
                        d->has_buffer = d->has_offset = d->has_length = 1;
                        d->buffer = it->buffer;
                        d->offset = it->inputs[k].offset;
                        d->length = it->inputs[k].bytes;
                }
                ti[k] = d;
        }
        for (int32_t k = 0; !inline_outputs && k < it->n_outputs; k++) {
                Acceld__TensorData *d = &td[64 + k];

                acceld__tensor_data__init(d);
                if (it->outputs[k].type == ACCEL_TYPE_STRING) {
                        d->has_reply_inline = d->reply_inline = 1;
                } else {
                        d->has_buffer = d->has_offset = d->has_length = 1;
                        d->buffer = it->buffer;
                        d->offset = it->outputs[k].offset;
                        d->length = it->outputs[k].region;
                }
                to[k] = d;
        }
        e.has_handle = 1;
        e.handle = it->handle;
        e.n_inputs = (size_t) it->n_inputs;
        e.inputs = ti;
        if (!inline_outputs) {
                e.n_outputs = (size_t) it->n_outputs;
                e.outputs = to;
        }
        if (it->priority) {
                e.has_priority = 1;
                e.priority = (Acceld__Priority) it->priority;
        }
        if (it->deadline_ms) {
                e.has_deadline_us = 1;
                e.deadline_us = (uint64_t) it->deadline_ms * 1000u;
        }
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        if (any_inline) {
                /* A frame over acceld's limit would cost the connection
                 * (a protocol error): refuse it here, naming the limit. */
                size_t size = acceld__request__get_packed_size(&req) + 16, max;

                if (size > ACCEL_FRAME_MIN) {
                        r = accel__max_frame(it->c, &max);
                        if (r < 0)
                                return r;
                        if (size > max)
                                return accel__error(-EMSGSIZE, ACCEL_STATUS_RESOURCE_EXHAUSTED_PERSISTENT,
                                                    "the Execute request with its inline inputs is %zu bytes: "
                                                    "over acceld's max_frame_bytes (%zu)", size, max);
                }
        }
        return accel__send(it->c, &req, NULL, 0, keep, ret_id);
}

static int interp_execute(accel_interp_t *it, bool inline_outputs, Acceld__Response **ret_resp) {
        uint64_t id;
        int r = interp_execute_send(it, inline_outputs, false, &id);

        return r < 0 ? r : accel__wait(it->c, id, ACCELD__RESPONSE__BODY_EXECUTE, ret_resp);
}

/* Place inline output k of n bytes: in its region when it fits, else in
 * its heap block (grown as needed). */
static int output_place(accel_interp_t *it, int32_t k, const void *src, size_t n) {
        accel_tensor_t *t = &it->outputs[k];

        if (t->type == ACCEL_TYPE_STRING) {
                /* Any size; in its heap block. */
                if (n > t->heap_size || !t->heap) {
                        void *p = realloc(t->heap, n ? n : 1);

                        if (!p)
                                return oom();
                        t->heap = p;
                        t->heap_size = n ? n : 1;
                }
                memcpy(t->heap, src, n);
                t->data = t->heap;
                t->bytes = n;
                return 0;
        }
        if (it->inline_tensors) {
                if (n > t->bytes)
                        return accel__error(-EBADMSG, ACCEL_STATUS_NONE, "output %d is larger than expected", (int) k);
                memcpy(t->data, src, n);
                return 0;
        }
        if (n <= t->region) {
                t->data = it->map + t->offset;
        } else {
                if (n > t->heap_size) {
                        void *p = realloc(t->heap, n);

                        if (!p)
                                return oom();
                        t->heap = p;
                        t->heap_size = n;
                }
                t->data = t->heap;
        }
        memcpy(t->data, src, n);
        t->bytes = n;
        return 0;
}

/* Take an Execute reply: timings, inline outputs, output shapes. Frees
 * resp. */
static int invoke_finish(accel_interp_t *it, Acceld__Response *resp, bool inline_out, uint64_t t0) {
        const Acceld__ExecuteResponse *x = resp->execute;
        int r;

        it->queue_us = x->queue_us;
        it->compute_us = x->compute_us;
        it->zero_copy = x->has_zero_copy && x->zero_copy;
        if (inline_out || x->n_outputs > 0) {
                if (x->n_outputs != (size_t) it->n_outputs) {
                        acceld__response__free_unpacked(resp, NULL);
                        return accel__error(-EBADMSG, ACCEL_STATUS_NONE, "Execute reply has %zu outputs, expected %d",
                                            x->n_outputs, (int) it->n_outputs);
                }
                for (int32_t k = 0; k < it->n_outputs; k++) {
                        /* Asked inline: all of them, or the string ones. */
                        if (!inline_out && it->outputs[k].type != ACCEL_TYPE_STRING)
                                continue;
                        if (!x->outputs[k]->has_data) {
                                acceld__response__free_unpacked(resp, NULL);
                                return accel__error(-EBADMSG, ACCEL_STATUS_NONE,
                                                    "Execute reply lacks output %d", (int) k);
                        }
                        r = output_place(it, k, x->outputs[k]->data.data, x->outputs[k]->data.len);
                        if (r < 0) {
                                acceld__response__free_unpacked(resp, NULL);
                                return r;
                        }
                }
        }
        for (int32_t k = 0; k < it->n_outputs && (size_t) k < x->n_output_shapes; k++) {
                const Acceld__TensorShape *s = x->output_shapes[k];

                if (s->n_dims <= MAX_RANK) {
                        it->outputs[k].rank = (int32_t) s->n_dims;
                        for (size_t d = 0; d < s->n_dims; d++)
                                it->outputs[k].dims[d] = s->dims[d];
                }
        }
        acceld__response__free_unpacked(resp, NULL);
        it->total_us = acc_now_us() - t0;
        return 0;
}

static int invoke_check(accel_interp_t *it) {
        if (!it || !it->allocated)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_invoke: tensors are not allocated");
        if (it->pending_id)
                return accel__error(-EBUSY, ACCEL_STATUS_NONE, "an invoke started with accel_interp_invoke_start() "
                                                               "has not been waited for");
        if (it->n_inputs > 64 || it->n_outputs > 64)
                return accel__error(-E2BIG, ACCEL_STATUS_NONE, "more than 64 inputs or outputs");
        return 0;
}

/* One invoke over the lane: outputs in place, shapes from its block. */
static int lane_invoke(accel_interp_t *it, uint64_t t0) {
        int32_t ranks[IPC_LANE_MAX_OUTPUTS];
        int32_t dims[IPC_LANE_MAX_OUTPUTS][IPC_LANE_MAX_RANK];
        accel__lane_result_t res = { .n_outputs = it->n_outputs, .ranks = ranks, .dims = dims };
        int r;

        for (int32_t k = 0; k < it->n_outputs; k++)
                ranks[k] = -1;
        r = accel__lane_invoke(it->lane, it->deadline_ms, &res);
        if (r < 0)
                return r;
        it->queue_us = res.queue_us;
        it->compute_us = res.compute_us;
        it->zero_copy = res.zero_copy;
        for (int32_t k = 0; k < it->n_outputs; k++) {
                if (ranks[k] < 0 || ranks[k] > MAX_RANK)
                        continue;
                it->outputs[k].rank = ranks[k];
                memcpy(it->outputs[k].dims, dims[k], sizeof(int32_t) * (size_t) ranks[k]);
        }
        it->total_us = acc_now_us() - t0;
        return 0;
}

int accel_interp_invoke(accel_interp_t *it) {
        Acceld__Response *resp;
        uint64_t t0;
        bool inline_out;
        int r;

        accel__error_clear();
        r = invoke_check(it);
        if (r < 0)
                return r;
        /* In this process: local_invoke() times itself (local-clock.h). */
        if (it->local)
                return local_invoke(it);
        t0 = acc_now_us();
        if (it->lane && !it->inline_outputs) {
                r = lane_invoke(it, t0);
                if (r == -ECONNRESET) {
                        /* acceld went away: the socket says how, now
                         * and from now on, as without a lane. */
                        accel__error_clear();
                        lane_drop(it, false);
                } else if (r == -ENOBUFS) {
                        /* An output outgrew its region: the socket,
                         * outputs inline, from now on (below). */
                        accel__error_clear();
                        lane_drop(it, true);
                        it->inline_outputs = true;
                } else
                        return r;
        }
        inline_out = it->inline_tensors || it->inline_outputs;
        r = interp_execute(it, inline_out, &resp);
        if (r == -ENOBUFS && !inline_out) {
                /* An output sized only at invoke (data-dependent shape)
                 * outgrew its region: have acceld return the outputs
                 * inline from now on. */
                it->inline_outputs = inline_out = true;
                r = interp_execute(it, true, &resp);
        }
        if (r < 0)
                return r;
        return invoke_finish(it, resp, inline_out, t0);
}

int accel_interp_fd(const accel_interp_t *it) {
        if (it && it->local)
                return it->local->efd;
        return it && it->c ? it->c->fd : -EINVAL;
}

int accel_interp_invoke_start(accel_interp_t *it) {
        int r;

        accel__error_clear();
        r = invoke_check(it);
        if (r < 0)
                return r;
        if (it->local)
                return local_invoke_start(it);
        it->pending_inline = it->inline_tensors || it->inline_outputs;
        it->pending_t0 = acc_now_us();
        return interp_execute_send(it, it->pending_inline, true, &it->pending_id);
}

int accel_interp_invoke_wait(accel_interp_t *it) {
        Acceld__Response *resp;
        uint64_t id;
        int r;

        accel__error_clear();
        if (it && it->local)
                return local_invoke_wait(it);
        if (!it || !it->pending_id)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_invoke_wait: no invoke was started");
        id = it->pending_id;
        it->pending_id = 0;
        r = accel__wait(it->c, id, ACCELD__RESPONSE__BODY_EXECUTE, &resp);
        if (r == -ENOBUFS && !it->pending_inline) {
                /* As in accel_interp_invoke(): outputs inline from now on. */
                it->inline_outputs = it->pending_inline = true;
                r = interp_execute(it, true, &resp);
        }
        if (r < 0)
                return r;
        return invoke_finish(it, resp, it->pending_inline, it->pending_t0);
}

int accel_interp_cancel(accel_interp_t *it) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__CancelRequest cr = ACCELD__CANCEL_REQUEST__INIT;
        Acceld__Response *resp;
        int r, cancelled;

        accel__error_clear();
        if (!it)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_interp_cancel: invalid argument");
        if (!it->pending_id)
                return 0;
        cr.has_target_request_id = 1;
        cr.target_request_id = it->pending_id;
        req.body_case = ACCELD__REQUEST__BODY_CANCEL;
        req.cancel = &cr;
        /* The Execute reply may come first: accel__wait() keeps it for
         * accel_interp_invoke_wait(). */
        r = accel__transact(it->c, &req, ACCELD__RESPONSE__BODY_CANCEL, &resp);
        if (r < 0)
                return r;
        cancelled = resp->cancel->has_cancelled && resp->cancel->cancelled;
        acceld__response__free_unpacked(resp, NULL);
        return cancelled;
}

bool accel_tensor_in_shared_memory(const accel_tensor_t *t) {
        return t && t->data && t->region > 0 && t->data != t->heap;
}

/* ---- tensors ---- */

/* Elements of t's current shape (1 for a scalar); SIZE_MAX past it. */
static size_t tensor_count(const accel_tensor_t *t) {
        size_t n = 1;

        for (int32_t d = 0; d < t->rank; d++) {
                if (t->dims[d] < 0 || (t->dims[d] > 0 && n > SIZE_MAX / (size_t) t->dims[d]))
                        return SIZE_MAX;
                n *= (size_t) t->dims[d];
        }
        return n;
}

/* TensorFlow Lite's serialized string list: int32 N (= count), int32
 * offsets[N + 1] from the start, the first just past the table, none
 * decreasing, the last equal to size. 0 or -EINVAL with the reason. */
static int strings_check(const uint8_t *p, size_t size, size_t count, char *why, size_t why_size) {
        int32_t n, off, prev;
        size_t header;

        if (size < 8) {
                (void) snprintf(why, why_size, "%zu bytes is too short for a string list (8 at least)", size);
                return -EINVAL;
        }
        if (size > INT32_MAX) {
                (void) snprintf(why, why_size, "%zu bytes is over the 2 GiB a string list can address", size);
                return -EINVAL;
        }
        memcpy(&n, p, 4);
        if (n < 0 || (size_t) n != count) {
                (void) snprintf(why, why_size, "the list holds %" PRId32 " strings, the tensor has %zu elements", n,
                                count);
                return -EINVAL;
        }
        header = 4 * ((size_t) n + 2);
        if (header > size) {
                (void) snprintf(why, why_size, "its offset table (%zu bytes) is longer than the list (%zu)", header,
                                size);
                return -EINVAL;
        }
        prev = (int32_t) header;
        for (int32_t k = 0; k <= n; k++) {
                memcpy(&off, p + 4 + 4 * (size_t) k, 4);
                if (k == 0 ? off != (int32_t) header : off < prev || (size_t) off > size) {
                        (void) snprintf(why, why_size, "offset %" PRId32 " (%" PRId32 ") is out of order or "
                                        "past the end", k, off);
                        return -EINVAL;
                }
                prev = off;
        }
        if ((size_t) prev != size) {
                (void) snprintf(why, why_size, "the last offset (%" PRId32 ") is not the list's size (%zu)", prev,
                                size);
                return -EINVAL;
        }
        return 0;
}

/* A string input's list, checked and copied into its heap block. */
static int string_set(accel_tensor_t *t, const void *data, size_t size) {
        char why[160];
        void *p;

        if (!t->input)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "tensor '%s' is an output", t->name);
        if (!data && size > 0)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "tensor '%s': no data", t->name);
        if (strings_check(data, size, tensor_count(t), why, sizeof(why)) < 0)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "string tensor '%s': %s", t->name, why);
        p = malloc(size);
        if (!p)
                return oom();
        memcpy(p, data, size);
        free(t->heap);
        t->heap = t->data = p;
        t->heap_size = t->bytes = size;
        return 0;
}

int accel_tensor_set_strings(accel_tensor_t *t, const void *const *items, const size_t *lens, size_t n) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t header, size;
        int32_t v;

        accel__error_clear();
        if (!t || t->type != ACCEL_TYPE_STRING || (n > 0 && (!items || !lens)))
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_tensor_set_strings: invalid argument");
        if (n != tensor_count(t))
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "string tensor '%s' has %zu elements, got %zu strings",
                                    t->name, tensor_count(t), n);
        if (n > INT32_MAX / 4 - 2)
                return accel__error(-E2BIG, ACCEL_STATUS_NONE, "%zu strings: over a string list's 2 GiB", n);
        header = 4 * (n + 2);
        size = header;
        for (size_t k = 0; k < n; k++) {
                if ((lens[k] && !items[k]) || lens[k] > (size_t) INT32_MAX - size)
                        return accel__error(lens[k] && !items[k] ? -EINVAL : -E2BIG, ACCEL_STATUS_NONE,
                                            "string %zu of tensor '%s': %s", k, t->name,
                                            lens[k] && !items[k] ? "NULL" : "the list would pass 2 GiB");
                size += lens[k];
        }
        buf = malloc(size);
        if (!buf)
                return oom();
        v = (int32_t) n;
        memcpy(buf, &v, 4);
        size = header;
        for (size_t k = 0; k <= n; k++) {
                v = (int32_t) size;
                memcpy(buf + 4 + 4 * k, &v, 4);
                if (k < n && lens[k]) {
                        memcpy(buf + size, items[k], lens[k]);
                        size += lens[k];
                }
        }
        return string_set(t, buf, size);
}

int accel_tensor_string_count(const accel_tensor_t *t) {
        int32_t n;

        accel__error_clear();
        if (!t || t->type != ACCEL_TYPE_STRING)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_tensor_string_count: not a string tensor");
        if (!t->heap || t->bytes < 4)
                return accel__error(-ENODATA, ACCEL_STATUS_NONE, "string tensor '%s' holds no list yet", t->name);
        memcpy(&n, t->heap, 4);
        return n;
}

int accel_tensor_string_get(const accel_tensor_t *t, size_t i, const void **ret_data, size_t *ret_len) {
        int32_t a, b;
        int n;

        n = accel_tensor_string_count(t);
        if (n < 0)
                return n;
        if (!ret_data || !ret_len)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_tensor_string_get: invalid argument");
        if (i >= (size_t) n || 4 * (i + 3) > t->bytes)
                return accel__error(-ERANGE, ACCEL_STATUS_NONE, "string %zu of tensor '%s' (%d strings)", i, t->name,
                                    n);
        memcpy(&a, (const uint8_t *) t->heap + 4 + 4 * i, 4);
        memcpy(&b, (const uint8_t *) t->heap + 8 + 4 * i, 4);
        /* The reply's list was not checked: bound it here. */
        if (a < 0 || b < a || (size_t) b > t->bytes)
                return accel__error(-EBADMSG, ACCEL_STATUS_NONE, "string tensor '%s': offsets %d..%d are malformed",
                                    t->name, (int) a, (int) b);
        *ret_data = (const uint8_t *) t->heap + a;
        *ret_len = (size_t) (b - a);
        return 0;
}

accel_type_t accel_tensor_type(const accel_tensor_t *t) {
        return t ? t->type : ACCEL_TYPE_FLOAT32;
}

const char *accel_tensor_name(const accel_tensor_t *t) {
        return t ? t->name : "";
}

int32_t accel_tensor_num_dims(const accel_tensor_t *t) {
        return t ? t->rank : 0;
}

int32_t accel_tensor_dim(const accel_tensor_t *t, int32_t i) {
        return t && i >= 0 && i < t->rank ? t->dims[i] : 0;
}

size_t accel_tensor_byte_size(const accel_tensor_t *t) {
        return t ? t->bytes : 0;
}

float accel_tensor_scale(const accel_tensor_t *t) {
        return t ? t->scale : 0;
}

int32_t accel_tensor_zero_point(const accel_tensor_t *t) {
        return t ? t->zero_point : 0;
}

void *accel_tensor_data(const accel_tensor_t *t) {
        return t ? t->data : NULL;
}

int accel_tensor_copy_from_buffer(accel_tensor_t *t, const void *data, size_t size) {
        accel__error_clear();
        if (t && t->type == ACCEL_TYPE_STRING)
                return string_set(t, data, size);
        if (!t || !t->data || size != t->bytes)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "tensor '%s' takes %zu bytes, got %zu",
                                    t ? t->name : "", t ? t->bytes : 0, size);
        memcpy(t->data, data, size);
        return 0;
}

int accel_tensor_copy_to_buffer(const accel_tensor_t *t, void *data, size_t size) {
        accel__error_clear();
        if (!t || !t->data || size != t->bytes)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "tensor '%s' has %zu bytes, asked for %zu",
                                    t ? t->name : "", t ? t->bytes : 0, size);
        memcpy(data, t->data, size);
        return 0;
}

const char *accel_type_name(accel_type_t type) {
        switch ((int) type) {
        case ACCEL_TYPE_FLOAT32: return "float32";
        case ACCEL_TYPE_FLOAT16: return "float16";
        case ACCEL_TYPE_INT32: return "int32";
        case ACCEL_TYPE_UINT8: return "uint8";
        case ACCEL_TYPE_INT64: return "int64";
        case ACCEL_TYPE_STRING: return "string";
        case ACCEL_TYPE_BOOL: return "bool";
        case ACCEL_TYPE_INT16: return "int16";
        case ACCEL_TYPE_INT8: return "int8";
        default: return "unknown";
        }
}

accel_client_t *accel__interp_client(const accel_interp_t *it) {
        return it ? it->c : NULL;
}

uint64_t accel__interp_handle(const accel_interp_t *it) {
        return it ? it->handle : 0;
}

bool accel__interp_busy(const accel_interp_t *it) {
        return it && it->pending_id;
}
