/* SPDX-License-Identifier: Apache-2.0 */
/* accelctl status: the daemon's counters. */
#include <errno.h>
#include <inttypes.h>

#include "accelctl.h"

static const char status_usage[] =
        "Usage: accelctl [--socket PATH] status [--json]\n"
        "Show acceld's uptime, connections, requests served and limits.\n";

static json_object *limits_json(const accel_limits_t *l) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "max_frame_bytes", json_object_new_int64(l->max_frame_bytes));
        json_object_object_add(o, "max_fds_per_frame", json_object_new_int64(l->max_fds_per_frame));
        json_object_object_add(o, "max_in_flight_per_connection",
                               json_object_new_int64(l->max_in_flight_per_connection));
        json_object_object_add(o, "max_connections", json_object_new_int64(l->max_connections));
        return o;
}

static json_object *serving_json(const struct accel_serving_status *v) {
        json_object *o = json_object_new_object(), *u = json_object_new_object(), *l = json_object_new_object();

        json_object_object_add(o, "compiled_instances", json_object_new_int64(v->compiled_instances));
        json_object_object_add(o, "prepared_models", json_object_new_int64(v->prepared_models));
        json_object_object_add(o, "registered_buffers", json_object_new_int64(v->registered_buffers));
        json_object_object_add(o, "registered_bytes", json_object_new_uint64(v->registered_bytes));
        json_object_object_add(o, "queued_requests", json_object_new_int64(v->queued_requests));
        json_object_object_add(o, "running_requests", json_object_new_int64(v->running_requests));
        json_object_object_add(o, "interpreters", json_object_new_int64(v->interpreters));
        json_object_object_add(o, "worker_threads", json_object_new_int64(v->worker_threads));
        json_object_object_add(o, "executions", json_object_new_uint64(v->executions));
        json_object_object_add(u, "uid", json_object_new_int64(v->uid));
        json_object_object_add(u, "prepared_models", json_object_new_int64(v->uid_prepared_models));
        json_object_object_add(u, "registered_bytes", json_object_new_uint64(v->uid_registered_bytes));
        json_object_object_add(u, "queued_requests", json_object_new_int64(v->uid_queued_requests));
        json_object_object_add(o, "caller", u);
        json_object_object_add(l, "max_prepared_models", json_object_new_int64(v->max_prepared_models));
        json_object_object_add(l, "max_registered_bytes", json_object_new_uint64(v->max_registered_bytes));
        json_object_object_add(l, "max_queued_requests", json_object_new_int64(v->max_queued_requests));
        json_object_object_add(o, "uid_limits", l);
        return o;
}

/* Refusals by limit, named as GetStatus names them (ACCEL_REFUSALS_MAP). */
static json_object *refusals_json(const struct accel_refusals *f) {
        json_object *o = json_object_new_object();

#define REFUSAL_JSON(name) json_object_object_add(o, #name, json_object_new_uint64(f->name));
        ACCEL_REFUSALS_MAP(REFUSAL_JSON)
#undef REFUSAL_JSON
        return o;
}

/* "3 connections, 1 fds" (the ones that moved), or "none". */
static void refusals_line(const struct accel_refusals *f, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = 0;
#define REFUSAL_LINE(name)                                                                              \
        if (f->name && n < size)                                                                        \
                n += (size_t) snprintf(buf + n, size - n, "%s%" PRIu64 " " #name, n ? ", " : "", f->name);
        ACCEL_REFUSALS_MAP(REFUSAL_LINE)
#undef REFUSAL_LINE
        if (!buf[0])
                (void) snprintf(buf, size, "none");
}

static int status_json(const accel_daemon_status_t *s) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "server_version", json_object_new_string(s->server_version));
        json_object_object_add(o, "pid", json_object_new_int64(s->pid));
        json_object_object_add(o, "uptime_us", json_object_new_uint64(s->uptime_us));
        json_object_object_add(o, "connections", json_object_new_int64(s->connections));
        json_object_object_add(o, "connections_total", json_object_new_uint64(s->connections_total));
        json_object_object_add(o, "requests_served", json_object_new_uint64(s->requests_served));
        json_object_object_add(o, "errors", json_object_new_uint64(s->errors));
        json_object_object_add(o, "protocol_errors", json_object_new_uint64(s->protocol_errors));
        json_object_object_add(o, "socket_path", json_object_new_string(s->socket_path));
        json_object_object_add(o, "state_directory", json_object_new_string(s->state_directory));
        json_object_object_add(o, "limits", limits_json(&s->limits));
        json_object *hosts = json_object_new_array();
        for (size_t i = 0; i < s->n_driver_hosts; i++) {
                const struct accel_driver_host *h = &s->driver_hosts[i];
                json_object *ho = json_object_new_object();
                json_object_object_add(ho, "driver", json_object_new_string(h->driver));
                json_object_object_add(ho, "pid", json_object_new_int64(h->pid));
                json_object_object_add(ho, "starts", json_object_new_int64(h->starts));
                json_object_object_add(ho, "deaths", json_object_new_int64(h->deaths));
                json_object_object_add(ho, "last_death", json_object_new_string(h->last_death));
                json_object_object_add(ho, "tensors_in_place", json_object_new_uint64(h->tensors_in_place));
                json_object_object_add(ho, "tensors_copied", json_object_new_uint64(h->tensors_copied));
                json_object_array_add(hosts, ho);
        }
        json_object_object_add(o, "driver_hosts", hosts);
        json_object_object_add(o, "serving", serving_json(&s->serving));
        json_object_object_add(o, "weights_cache", accelctl_weights_cache_json(&s->weights_cache));
        json_object *cpu = json_object_new_object();
        json_object_object_add(cpu, "budget", json_object_new_int64(s->cpu_budget));
        json_object_object_add(cpu, "in_use", json_object_new_int64(s->cpu_in_use));
        json_object_object_add(o, "cpu", cpu);
        json_object_object_add(o, "refusals", refusals_json(&s->refusals));
        json_object *pl = json_object_new_object();
        json_object_object_add(pl, "max_compute_us", json_object_new_uint64(s->placement.max_compute_us));
        json_object_object_add(pl, "max_overhead", json_object_new_double(s->placement.max_overhead));
        json_object_object_add(pl, "round_trip_us", json_object_new_int64(s->placement.round_trip_us));
        json_object_object_add(pl, "socket_round_trip_us", json_object_new_int64(s->placement.socket_round_trip_us));
        json_object_object_add(pl, "served_overhead_us", json_object_new_int64(s->placement.served_overhead_us));
        json_object_object_add(pl, "served_samples", json_object_new_uint64(s->placement.served_samples));
        json_object_object_add(pl, "placed_in_client", json_object_new_uint64(s->placement.placed_in_client));
        json_object_object_add(o, "placement", pl);
        json_object *ln = json_object_new_object();
        json_object_object_add(ln, "open", json_object_new_int64(s->lanes.open));
        json_object_object_add(ln, "executions", json_object_new_uint64(s->lanes.executions));
        json_object_object_add(o, "lanes", ln);
        return accelctl_json_print(o);
}

/* The driver hosts: which plugin runs where and how often it died. */
static int hosts_table(const accel_daemon_status_t *s) {
        static const char *const header[] = { "DRIVER HOST", "PID", "STARTS", "DEATHS", "IN PLACE", "COPIED",
                                              "LAST DEATH" };
        accelctl_table_t t;
        int r = 0;

        printf("\n");
        accelctl_table_init(&t, 7, header);
        for (size_t i = 0; i < s->n_driver_hosts && r == 0; i++) {
                const struct accel_driver_host *h = &s->driver_hosts[i];
                char pid[16], starts[16], deaths[16], in_place[24], copied[24];
                (void) snprintf(pid, sizeof(pid), "%" PRIu32, h->pid);
                (void) snprintf(starts, sizeof(starts), "%" PRIu32, h->starts);
                (void) snprintf(deaths, sizeof(deaths), "%" PRIu32, h->deaths);
                (void) snprintf(in_place, sizeof(in_place), "%" PRIu64, h->tensors_in_place);
                (void) snprintf(copied, sizeof(copied), "%" PRIu64, h->tensors_copied);
                const char *row[] = { h->driver, h->pid ? pid : "-", starts, deaths, in_place, copied,
                                      h->last_death[0] ? h->last_death : "-" };
                r = accelctl_table_add(&t, row);
        }
        if (r == 0)
                accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        return r;
}

static int status_table(const accel_daemon_status_t *s) {
        static const char *const header[] = { "FIELD", "VALUE" };
        accelctl_table_t t;
        char up[64], conns[64], total[32], served[32], errs[32], perr[32], pid[32], frame[64],
                inflight[32], maxc[32];
        uint64_t secs = s->uptime_us / 1000000;
        int r = 0;

        (void) snprintf(up, sizeof(up), "%" PRIu64 "d %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64,
                        secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60,
                        s->uptime_us / 1000 % 1000);
        (void) snprintf(conns, sizeof(conns), "%" PRIu32 " open", s->connections);
        (void) snprintf(total, sizeof(total), "%" PRIu64, s->connections_total);
        (void) snprintf(served, sizeof(served), "%" PRIu64, s->requests_served);
        (void) snprintf(errs, sizeof(errs), "%" PRIu64, s->errors);
        (void) snprintf(perr, sizeof(perr), "%" PRIu64, s->protocol_errors);
        (void) snprintf(pid, sizeof(pid), "%" PRIu32, s->pid);
        (void) accelctl_format_bytes(s->limits.max_frame_bytes, frame, sizeof(frame));
        (void) snprintf(inflight, sizeof(inflight), "%" PRIu32, s->limits.max_in_flight_per_connection);
        (void) snprintf(maxc, sizeof(maxc), "%" PRIu32, s->limits.max_connections);
        const struct accel_weights_cache_status *wc = &s->weights_cache;
        char wcache[256], wbytes[48];
        (void) accelctl_format_bytes(wc->bytes, wbytes, sizeof(wbytes));
        if (wc->directory && wc->directory[0])
                (void) snprintf(wcache, sizeof(wcache),
                                "%" PRIu64 " files, %s; %" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64 " evicted",
                                wc->files, wbytes, wc->hits, wc->misses, wc->evictions);
        else
                (void) snprintf(wcache, sizeof(wcache), "off");
        const struct accel_serving_status *v = &s->serving;
        char serving[160], usage[256], lim_m[32], lim_b[48], lim_q[32], bytes[48];
        (void) snprintf(serving, sizeof(serving),
                        "%" PRIu32 " instances, %" PRIu32 " prepared, %" PRIu32 " queued, %" PRIu32
                        " running, %" PRIu64 " executions",
                        v->compiled_instances, v->prepared_models, v->queued_requests, v->running_requests,
                        v->executions);
        (void) snprintf(lim_m, sizeof(lim_m), v->max_prepared_models ? "%" PRIu32 : "unlimited",
                        v->max_prepared_models);
        (void) snprintf(lim_q, sizeof(lim_q), v->max_queued_requests ? "%" PRIu32 : "unlimited",
                        v->max_queued_requests);
        if (v->max_registered_bytes)
                (void) accelctl_format_bytes(v->max_registered_bytes, lim_b, sizeof(lim_b));
        else
                (void) snprintf(lim_b, sizeof(lim_b), "unlimited");
        (void) accelctl_format_bytes(v->uid_registered_bytes, bytes, sizeof(bytes));
        (void) snprintf(usage, sizeof(usage),
                        "uid %" PRIu32 ": %" PRIu32 " of %s models, %s of %s buffers, %" PRIu32 " of %s queued",
                        v->uid, v->uid_prepared_models, lim_m, bytes, lim_b, v->uid_queued_requests, lim_q);

        char refused[400], cpu[64], placement[200];
        refusals_line(&s->refusals, refused, sizeof(refused));
        if (s->placement.max_compute_us == 0)
                (void) snprintf(placement, sizeof(placement), "off; %" PRIu64 " placed in clients",
                                s->placement.placed_in_client);
        else
                (void) snprintf(placement, sizeof(placement),
                                "models up to %" PRIu64 " us whose round trip (%" PRId64 " us now) is over %g%% "
                                "of compute run in the client; %" PRIu64 " placed there",
                                s->placement.max_compute_us, s->placement.round_trip_us,
                                s->placement.max_overhead * 100, s->placement.placed_in_client);
        (void) snprintf(cpu, sizeof(cpu), "%" PRIu32 " of %" PRIu32 " threads in use", s->cpu_in_use,
                        s->cpu_budget);

        const char *const rows[][2] = {
                { "version", s->server_version },
                { "pid", pid },
                { "uptime", up },
                { "socket", s->socket_path },
                { "state directory", s->state_directory },
                { "connections", conns },
                { "connections accepted", total },
                { "requests served", served },
                { "errors", errs },
                { "protocol errors", perr },
                { "max frame", frame },
                { "max in flight/conn", inflight },
                { "max connections", maxc },
                { "serving", serving },
                { "your usage", usage },
                { "cpu budget", cpu },
                { "refused by limits", refused },
                { "weights cache", wcache },
                { "placement", placement },
        };

        accelctl_table_init(&t, 2, header);
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && r == 0; i++)
                r = accelctl_table_add(&t, rows[i]);
        if (r == 0)
                accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        if (r == 0 && s->n_driver_hosts)
                r = hosts_table(s);
        return r;
}

int accelctl_status(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        int r;

        r = accelctl_parse_common(argc, argv, &o, status_usage);
        if (r != 0)
                return r > 0 ? 0 : 2;
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = accel_get_status(c, &s);
        if (r < 0) {
                fprintf(stderr, "accelctl status: %s\n", accel_last_error());
                (void) accel_disconnect(c);
                return 1;
        }
        r = o.json ? status_json(s) : status_table(s);
        (void) accel_daemon_status_free(s);
        (void) accel_disconnect(c);
        return r < 0 ? 1 : 0;
}
