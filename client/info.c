/* SPDX-License-Identifier: Apache-2.0 */
/* libaccel: Hello, GetCapabilities and GetStatus as plain C structs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acceleration.pb-c.h"
#include "accel-internal.h"

static void limits_copy(accel_limits_t *dst, const Acceld__Limits *src) {
        *dst = (accel_limits_t) {};
        if (!src)
                return;
        dst->max_frame_bytes = src->max_frame_bytes;
        dst->max_fds_per_frame = src->max_fds_per_frame;
        dst->max_in_flight_per_connection = src->max_in_flight_per_connection;
        dst->max_connections = src->max_connections;
}

static int oom(void) {
        return accel__error(-ENOMEM, ACCEL_STATUS_NONE, "out of memory");
}

accel_hello_t *accel_hello_free(accel_hello_t *h) {
        if (!h)
                return NULL;
        free(h->server_version);
        free(h);
        return NULL;
}

int accel_hello(accel_client_t *c, const char *client_name, accel_hello_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__HelloRequest body = ACCELD__HELLO_REQUEST__INIT;
        Acceld__Response *resp;
        const Acceld__HelloResponse *h;
        accel_hello_t *out;
        int r;

        accel__error_clear();
        if (!c || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_hello: invalid argument");
        body.client_name = (char *) client_name;
        body.has_protocol_version = 1;
        body.protocol_version = ACCEL_PROTOCOL_VERSION;
        req.body_case = ACCELD__REQUEST__BODY_HELLO;
        req.hello = &body;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_HELLO, &resp);
        if (r < 0)
                return r;
        h = resp->hello;
        out = calloc(1, sizeof(*out));
        if (out)
                out->server_version = accel__strdup0(h->server_version);
        if (!out || !out->server_version) {
                (void) accel_hello_free(out);
                acceld__response__free_unpacked(resp, NULL);
                return oom();
        }
        out->protocol_version = h->protocol_version;
        out->min_protocol_version = h->min_protocol_version;
        limits_copy(&out->limits, h->limits);
        out->connection_id = h->connection_id;
        acceld__response__free_unpacked(resp, NULL);
        *ret = out;
        return 0;
}

static void cpu_done(accel_cpu_info_t *cpu) {
        free(cpu->vendor);
        free(cpu->model);
        free(cpu->architecture);
        for (size_t i = 0; i < cpu->n_features; i++)
                free(cpu->features[i]);
        free(cpu->features);
}

accel_capabilities_t *accel_capabilities_free(accel_capabilities_t *caps) {
        if (!caps)
                return NULL;
        cpu_done(&caps->cpu);
        for (size_t i = 0; i < caps->n_backends; i++) {
                accel_backend_t *b = &caps->backends[i];

                free(b->name);
                free(b->delegate_name);
                free(b->version);
                free(b->reason);
                free(b->type);
                for (size_t k = 0; k < b->n_performance; k++)
                        free(b->performance[k].operand_type);
                free(b->performance);
        }
        free(caps->backends);
        free(caps);
        return NULL;
}

static const char *delegate_name(int v) {
        const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(&tflite__proto__delegate__descriptor, v);

        return ev ? ev->name : "UNKNOWN";
}

/* Copy the reply into `out` (zeroed); -ENOMEM leaves a half-filled struct
 * that accel_capabilities_free() can release. */
static int caps_copy(accel_capabilities_t *out, const Acceld__GetCapabilitiesResponse *in) {
        const Acceld__CpuInfo *cpu = in->cpu;

        if (cpu) {
                out->cpu.vendor = accel__strdup0(cpu->vendor);
                out->cpu.model = accel__strdup0(cpu->model);
                out->cpu.architecture = accel__strdup0(cpu->architecture);
                if (!out->cpu.vendor || !out->cpu.model || !out->cpu.architecture)
                        return -ENOMEM;
                out->cpu.cores = cpu->cores;
                out->cpu.logical_processors = cpu->logical_processors;
                out->cpu.l1d_cache_kb = cpu->l1d_cache_kb;
                out->cpu.l2_cache_kb = cpu->l2_cache_kb;
                out->cpu.l3_cache_kb = cpu->l3_cache_kb;
                if (cpu->n_features > 0) {
                        out->cpu.features = calloc(cpu->n_features, sizeof(char *));
                        if (!out->cpu.features)
                                return -ENOMEM;
                        for (size_t i = 0; i < cpu->n_features; i++) {
                                out->cpu.features[i] = accel__strdup0(cpu->features[i]);
                                if (!out->cpu.features[i])
                                        return -ENOMEM;
                                out->cpu.n_features = i + 1;
                        }
                }
        } else {
                out->cpu.vendor = accel__strdup0(NULL);
                out->cpu.model = accel__strdup0(NULL);
                out->cpu.architecture = accel__strdup0(NULL);
                if (!out->cpu.vendor || !out->cpu.model || !out->cpu.architecture)
                        return -ENOMEM;
        }
        if (in->memory) {
                out->memory.total_bytes = in->memory->total_bytes;
                out->memory.available_bytes = in->memory->available_bytes;
        }
        if (in->n_backends > 0) {
                out->backends = calloc(in->n_backends, sizeof(accel_backend_t));
                if (!out->backends)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < in->n_backends; i++) {
                const Acceld__Backend *b = in->backends[i];
                accel_backend_t *o = &out->backends[i];

                out->n_backends = i + 1;
                o->name = accel__strdup0(b->name);
                o->delegate = b->delegate;
                o->delegate_name = accel__strdup0(delegate_name(b->delegate));
                o->available = b->available;
                o->version = accel__strdup0(b->version);
                o->reason = accel__strdup0(b->unavailable_reason);
                o->type = accel__strdup0(b->type);
                if (!o->name || !o->delegate_name || !o->version || !o->reason || !o->type)
                        return -ENOMEM;
                if (b->n_performance > 0) {
                        o->performance = calloc(b->n_performance, sizeof(*o->performance));
                        if (!o->performance)
                                return -ENOMEM;
                }
                for (size_t k = 0; k < b->n_performance; k++) {
                        o->n_performance = k + 1;
                        o->performance[k].operand_type = accel__strdup0(b->performance[k]->operand_type);
                        if (!o->performance[k].operand_type)
                                return -ENOMEM;
                        o->performance[k].exec_time = b->performance[k]->exec_time;
                        o->performance[k].power_usage = b->performance[k]->power_usage;
                }
        }
        return 0;
}

int accel_get_capabilities(accel_client_t *c, accel_capabilities_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetCapabilitiesRequest body = ACCELD__GET_CAPABILITIES_REQUEST__INIT;
        Acceld__Response *resp;
        accel_capabilities_t *out;
        int r;

        accel__error_clear();
        if (!c || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_get_capabilities: invalid argument");
        req.body_case = ACCELD__REQUEST__BODY_GET_CAPABILITIES;
        req.get_capabilities = &body;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_GET_CAPABILITIES, &resp);
        if (r < 0)
                return r;
        out = calloc(1, sizeof(*out));
        r = out ? caps_copy(out, resp->get_capabilities) : -ENOMEM;
        acceld__response__free_unpacked(resp, NULL);
        if (r < 0) {
                (void) accel_capabilities_free(out);
                return oom();
        }
        *ret = out;
        return 0;
}

accel_daemon_status_t *accel_daemon_status_free(accel_daemon_status_t *s) {
        if (!s)
                return NULL;
        free(s->state_directory);
        free(s->socket_path);
        free(s->server_version);
        for (size_t i = 0; i < s->n_driver_hosts; i++) {
                free(s->driver_hosts[i].driver);
                free(s->driver_hosts[i].last_death);
        }
        free(s->driver_hosts);
        free(s->weights_cache.directory);
        free(s);
        return NULL;
}

int accel_get_status(accel_client_t *c, accel_daemon_status_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__GetStatusRequest body = ACCELD__GET_STATUS_REQUEST__INIT;
        const Acceld__GetStatusResponse *st;
        Acceld__Response *resp;
        accel_daemon_status_t *out;
        int r;

        accel__error_clear();
        if (!c || !ret)
                return accel__error(-EINVAL, ACCEL_STATUS_NONE, "accel_get_status: invalid argument");
        req.body_case = ACCELD__REQUEST__BODY_GET_STATUS;
        req.get_status = &body;
        r = accel__transact(c, &req, ACCELD__RESPONSE__BODY_GET_STATUS, &resp);
        if (r < 0)
                return r;
        st = resp->get_status;
        out = calloc(1, sizeof(*out));
        if (out) {
                out->state_directory = accel__strdup0(st->state_directory);
                out->socket_path = accel__strdup0(st->socket_path);
                out->server_version = accel__strdup0(st->server_version);
        }
        if (!out || !out->state_directory || !out->socket_path || !out->server_version) {
                (void) accel_daemon_status_free(out);
                acceld__response__free_unpacked(resp, NULL);
                return oom();
        }
        out->uptime_us = st->uptime_us;
        out->connections = st->connections;
        out->connections_total = st->connections_total;
        out->requests_served = st->requests_served;
        out->errors = st->errors;
        out->protocol_errors = st->protocol_errors;
        limits_copy(&out->limits, st->limits);
        out->pid = st->pid;
        accel__weights_cache_status_copy(&out->weights_cache, st->weights_cache);
        if (!out->weights_cache.directory) {
                (void) accel_daemon_status_free(out);
                acceld__response__free_unpacked(resp, NULL);
                return oom();
        }
        if (st->serving) {
                const Acceld__ServingStatus *sv = st->serving;
                struct accel_serving_status *o = &out->serving;

                o->compiled_instances = sv->compiled_instances;
                o->prepared_models = sv->prepared_models;
                o->registered_buffers = sv->registered_buffers;
                o->registered_bytes = sv->registered_bytes;
                o->queued_requests = sv->queued_requests;
                o->running_requests = sv->running_requests;
                o->interpreters = sv->interpreters;
                o->worker_threads = sv->worker_threads;
                o->executions = sv->executions;
                out->lanes.open = sv->lanes;
                out->lanes.executions = sv->lane_executions;
                out->cpu_budget = sv->cpu_budget;
                out->cpu_in_use = sv->cpu_in_use;
                if (sv->caller) {
                        o->uid = sv->caller->uid;
                        o->uid_prepared_models = sv->caller->prepared_models;
                        o->uid_registered_bytes = sv->caller->registered_bytes;
                        o->uid_queued_requests = sv->caller->queued_requests;
                }
                if (sv->uid_limits) {
                        o->max_prepared_models = sv->uid_limits->max_prepared_models;
                        o->max_registered_bytes = sv->uid_limits->max_registered_bytes;
                        o->max_queued_requests = sv->uid_limits->max_queued_requests;
                }
        }
        if (st->refusals) {
                const Acceld__Refusals *f = st->refusals;

                out->refusals = (struct accel_refusals) {
                        .connections = f->connections, .fds = f->fds, .input_bytes = f->input_bytes,
                        .frames = f->frames, .models = f->models, .buffer_bytes = f->buffer_bytes,
                        .queued_requests = f->queued_requests, .output_bytes = f->output_bytes,
                        .cpu_waits = f->cpu_waits, .cpu_deadline_missed = f->cpu_deadline_missed,
                };
        }
        if (st->placement) {
                const Acceld__PlacementStatus *p = st->placement;

                out->placement = (struct accel_placement_status) {
                        .max_compute_us = p->max_compute_us, .max_overhead = p->max_overhead,
                        .round_trip_us = p->round_trip_us, .socket_round_trip_us = p->socket_round_trip_us,
                        .served_overhead_us = p->served_overhead_us, .served_samples = p->served_samples,
                        .placed_in_client = p->placed_in_client,
                };
        }
        if (st->n_driver_hosts) {
                out->driver_hosts = calloc(st->n_driver_hosts, sizeof(*out->driver_hosts));
                if (!out->driver_hosts) {
                        (void) accel_daemon_status_free(out);
                        acceld__response__free_unpacked(resp, NULL);
                        return oom();
                }
                for (size_t i = 0; i < st->n_driver_hosts; i++) {
                        const Acceld__DriverHostStatus *h = st->driver_hosts[i];
                        out->driver_hosts[i].driver = accel__strdup0(h->driver);
                        out->driver_hosts[i].last_death = accel__strdup0(h->last_death);
                        out->driver_hosts[i].pid = h->pid;
                        out->driver_hosts[i].starts = h->starts;
                        out->driver_hosts[i].deaths = h->deaths;
                        out->driver_hosts[i].tensors_in_place = h->tensors_in_place;
                        out->driver_hosts[i].tensors_copied = h->tensors_copied;
                        out->n_driver_hosts = i + 1;
                        if (!out->driver_hosts[i].driver || !out->driver_hosts[i].last_death) {
                                (void) accel_daemon_status_free(out);
                                acceld__response__free_unpacked(resp, NULL);
                                return oom();
                        }
                }
        }
        acceld__response__free_unpacked(resp, NULL);
        *ret = out;
        return 0;
}
