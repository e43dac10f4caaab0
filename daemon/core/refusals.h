/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Refusals by limit: how often each of acceld's limits turned a client
 * away (or, for the CPU budget, made an invoke wait), counted since start
 * and shown by GetStatus and `accelctl status`. An operator sees which
 * limit its clients hit without reading the log (whose repeated lines are
 * rate-limited).
 *
 * Threads: counting and reading are atomic, safe from any thread.
 */
#pragma once

#include <stdint.h>

typedef enum daemon_refusal {
#define DAEMON_REFUSAL(name, what) DAEMON_REFUSAL_##name,
#include "refusals.inc"
#undef DAEMON_REFUSAL
        _DAEMON_REFUSAL_MAX,
} daemon_refusal_t;

/* Count one refusal by limit `which` (out of range: ignored). */
void daemon_refusal_count(daemon_refusal_t which);

/* The count so far for `which` (0 out of range). */
uint64_t daemon_refusals_get(daemon_refusal_t which);

/* The field name of `which` ("connections", ...), NULL out of range. */
const char *daemon_refusal_name(daemon_refusal_t which);
