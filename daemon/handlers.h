/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Request handlers, one file per request family; see dispatch.h for the
 * contract. Loop thread only.
 */
#pragma once

#include "dispatch.h"

/* hello.c: server and protocol versions, limits, connection id. */
int daemon_hello_handle(daemon_request_t *rq);

/* caps.c: CPU, memory and backends. daemon_caps_init() probes what never
 * changes (cpuinfo, XNNPACK) once at start-up; it returns 0, or a negative
 * errno when cpuinfo fails (GetCapabilities then reports what /proc gives). */
int daemon_caps_init(void);
int daemon_caps_handle(daemon_request_t *rq);

/* status.c: uptime, connection and request counters, paths, limits. */
int daemon_status_handle(daemon_request_t *rq);

/* Fill `l` (owned by the caller) from the configuration; shared by Hello
 * and GetStatus. */
void daemon_limits_fill(Acceld__Limits *l, const daemon_config_t *config);
