/* SPDX-License-Identifier: Apache-2.0 */
/* accelctl caps: the machine's CPU, memory and backends. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "accelctl.h"

static const char caps_usage[] =
        "Usage: accelctl [--socket PATH] caps [--json]\n"
        "Show the CPU, memory and inference backends acceld offers.\n";

static json_object *string_or_null(const char *s) {
        return s && s[0] ? json_object_new_string(s) : NULL;
}

static int caps_json(const accel_capabilities_t *caps) {
        json_object *o = json_object_new_object(), *cpu = json_object_new_object(),
                    *mem = json_object_new_object(), *feats = json_object_new_array(),
                    *backends = json_object_new_array();

        json_object_object_add(cpu, "vendor", json_object_new_string(caps->cpu.vendor));
        json_object_object_add(cpu, "model", json_object_new_string(caps->cpu.model));
        json_object_object_add(cpu, "architecture", json_object_new_string(caps->cpu.architecture));
        json_object_object_add(cpu, "cores", json_object_new_int64(caps->cpu.cores));
        json_object_object_add(cpu, "logical_processors",
                               json_object_new_int64(caps->cpu.logical_processors));
        for (size_t i = 0; i < caps->cpu.n_features; i++)
                json_object_array_add(feats, json_object_new_string(caps->cpu.features[i]));
        json_object_object_add(cpu, "features", feats);
        json_object_object_add(cpu, "l1d_cache_kb", json_object_new_int64(caps->cpu.l1d_cache_kb));
        json_object_object_add(cpu, "l2_cache_kb", json_object_new_int64(caps->cpu.l2_cache_kb));
        json_object_object_add(cpu, "l3_cache_kb", json_object_new_int64(caps->cpu.l3_cache_kb));
        json_object_object_add(o, "cpu", cpu);

        json_object_object_add(mem, "total_bytes", json_object_new_uint64(caps->memory.total_bytes));
        json_object_object_add(mem, "available_bytes", json_object_new_uint64(caps->memory.available_bytes));
        json_object_object_add(o, "memory", mem);

        for (size_t i = 0; i < caps->n_backends; i++) {
                const accel_backend_t *b = &caps->backends[i];
                json_object *j = json_object_new_object();

                json_object_object_add(j, "name", json_object_new_string(b->name));
                json_object_object_add(j, "delegate", json_object_new_string(b->delegate_name));
                json_object_object_add(j, "type", string_or_null(b->type));
                json_object_object_add(j, "available", json_object_new_boolean(b->available));
                json_object_object_add(j, "version", string_or_null(b->version));
                json_object_object_add(j, "reason", string_or_null(b->reason));
                json_object *perf = json_object_new_array();
                for (size_t k = 0; k < b->n_performance; k++) {
                        json_object *pj = json_object_new_object();
                        json_object_object_add(pj, "operand_type",
                                               json_object_new_string(b->performance[k].operand_type));
                        json_object_object_add(pj, "exec_time",
                                               json_object_new_double(b->performance[k].exec_time));
                        json_object_object_add(pj, "power_usage",
                                               json_object_new_double(b->performance[k].power_usage));
                        json_object_array_add(perf, pj);
                }
                json_object_object_add(j, "performance", perf);
                json_object_array_add(backends, j);
        }
        json_object_object_add(o, "backends", backends);
        return accelctl_json_print(o);
}

/* NNAPI PerformanceInfo per backend and operand type: time and power
 * relative to the reference kernels (lower is better), "-" where a driver
 * did not measure it (no backend here measures power). */
static int perf_table(const accel_capabilities_t *caps) {
        static const char *const header[] = { "PERFORMANCE", "OPERAND TYPE", "EXEC TIME", "POWER USAGE" };
        accelctl_table_t t;
        size_t rows = 0;
        int r = 0;

        accelctl_table_init(&t, 4, header);
        for (size_t i = 0; i < caps->n_backends && r == 0; i++) {
                const accel_backend_t *b = &caps->backends[i];

                for (size_t k = 0; k < b->n_performance && r == 0; k++) {
                        char et[32], pu[32];

                        if (b->performance[k].exec_time > 0)
                                (void) snprintf(et, sizeof(et), "%.3g", (double) b->performance[k].exec_time);
                        else
                                (void) snprintf(et, sizeof(et), "-");
                        if (b->performance[k].power_usage > 0)
                                (void) snprintf(pu, sizeof(pu), "%.3g", (double) b->performance[k].power_usage);
                        else
                                (void) snprintf(pu, sizeof(pu), "-");
                        const char *row[] = { b->name, b->performance[k].operand_type, et, pu };
                        r = accelctl_table_add(&t, row);
                        rows++;
                }
        }
        if (r == 0 && rows > 0) {
                printf("\n");
                accelctl_table_print(&t, stdout);
                printf("(relative to the reference kernels; lower is better; \"-\": not measured)\n");
        }
        accelctl_table_done(&t);
        return r;
}

static int caps_table(const accel_capabilities_t *caps) {
        static const char *const kv_header[] = { "CPU", "" };
        static const char *const b_header[] = { "BACKEND", "DELEGATE", "AVAILABLE", "VERSION / REASON" };
        accelctl_table_t t;
        char cores[64], feats[1024] = "", total[32], avail[32], mem[80], cache[96];
        int r = 0;

        (void) snprintf(cores, sizeof(cores), "%" PRIu32 " cores, %" PRIu32 " logical processors",
                        caps->cpu.cores, caps->cpu.logical_processors);
        for (size_t i = 0; i < caps->cpu.n_features; i++) {
                size_t n = strlen(feats);

                (void) snprintf(feats + n, sizeof(feats) - n, "%s%s", i ? " " : "", caps->cpu.features[i]);
        }
        (void) snprintf(cache, sizeof(cache), "L1d %" PRIu32 " KiB, L2 %" PRIu32 " KiB, L3 %" PRIu32 " KiB",
                        caps->cpu.l1d_cache_kb, caps->cpu.l2_cache_kb, caps->cpu.l3_cache_kb);
        (void) snprintf(mem, sizeof(mem), "%s total, %s available",
                        accelctl_format_bytes(caps->memory.total_bytes, total, sizeof(total)),
                        accelctl_format_bytes(caps->memory.available_bytes, avail, sizeof(avail)));

        const char *const rows[][2] = {
                { "vendor", caps->cpu.vendor },
                { "model", caps->cpu.model },
                { "architecture", caps->cpu.architecture },
                { "cores", cores },
                { "caches", cache },
                { "features", feats },
                { "memory", mem },
        };

        accelctl_table_init(&t, 2, kv_header);
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && r == 0; i++)
                r = accelctl_table_add(&t, rows[i]);
        if (r == 0)
                accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        if (r < 0)
                return r;

        printf("\n");
        accelctl_table_init(&t, 4, b_header);
        for (size_t i = 0; i < caps->n_backends && r == 0; i++) {
                const accel_backend_t *b = &caps->backends[i];
                const char *row[] = { b->name, b->delegate_name, b->available ? "yes" : "no",
                                      b->available ? b->version : b->reason };

                r = accelctl_table_add(&t, row);
        }
        if (r == 0)
                accelctl_table_print(&t, stdout);
        accelctl_table_done(&t);
        if (r < 0)
                return r;
        return perf_table(caps);
}

int accelctl_caps(int argc, char **argv, const accelctl_opts_t *global) {
        accelctl_opts_t o = *global;
        accel_client_t *c = NULL;
        accel_capabilities_t *caps = NULL;
        int r;

        r = accelctl_parse_common(argc, argv, &o, caps_usage);
        if (r != 0)
                return r > 0 ? 0 : 2;
        if (accelctl_connect(&o, &c) < 0)
                return 1;
        r = accel_get_capabilities(c, &caps);
        if (r < 0) {
                fprintf(stderr, "accelctl caps: %s\n", accel_last_error());
                (void) accel_disconnect(c);
                return 1;
        }
        r = o.json ? caps_json(caps) : caps_table(caps);
        (void) accel_capabilities_free(caps);
        (void) accel_disconnect(c);
        return r < 0 ? 1 : 0;
}
