/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl internals: the options every subcommand shares, the connection
 * helper, and a small table printer. One file per subcommand
 * (accelctl-status.c, accelctl-caps.c, ...). Exit codes: 0 success,
 * 1 failure, 2 usage error.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "accel/accel.h"

typedef struct accelctl_opts {
        const char *socket;     /* --socket, NULL: libaccel's default */
        bool json;              /* --json */
} accelctl_opts_t;

/*
 * Parse the options a daemon subcommand accepts after its name: --json,
 * --socket PATH / --socket=PATH, -h/--help. argv[0] is the subcommand.
 * Returns 0, 1 when help was printed (exit 0), or -EINVAL after printing a
 * usage error.
 */
int accelctl_parse_common(int argc, char **argv, accelctl_opts_t *o, const char *usage);

/* Connect or print why not (to stderr). Returns 0 or a negative errno. */
int accelctl_connect(const accelctl_opts_t *o, accel_client_t **ret);

/* Print `obj` pretty and release it. Returns 0. */
int accelctl_json_print(json_object *obj);

/* "1.5 GiB", "12.0 MiB", "512 B". */
const char *accelctl_format_bytes(unsigned long long b, char *buf, size_t len);

/* ---- tables ---- */

#define ACCELCTL_TABLE_MAX_COLS 8

typedef struct accelctl_table {
        size_t n_cols;
        const char *header[ACCELCTL_TABLE_MAX_COLS];
        char **cells;           /* n_rows * n_cols, owned */
        size_t n_rows, cap_rows;
} accelctl_table_t;

void accelctl_table_init(accelctl_table_t *t, size_t n_cols, const char *const *header);
/* Append a row of n_cols strings (copied; NULL prints as "-").
 * Returns 0 or -ENOMEM. */
int accelctl_table_add(accelctl_table_t *t, const char *const *cells);
/* Print with aligned columns; the last column is not padded. */
void accelctl_table_print(const accelctl_table_t *t, FILE *f);
void accelctl_table_done(accelctl_table_t *t);

/* The subcommands. argv[0] is the subcommand name. */
int accelctl_status(int argc, char **argv, const accelctl_opts_t *global);
int accelctl_cache(int argc, char **argv, const accelctl_opts_t *global);
/* The weights cache's counters as JSON (accelctl-cache.c). */
json_object *accelctl_weights_cache_json(const struct accel_weights_cache_status *w);
int accelctl_caps(int argc, char **argv, const accelctl_opts_t *global);
/* accelctl-run.c: run MODEL through acceld, ops MODEL, models. */
int accelctl_run(int argc, char **argv, const accelctl_opts_t *global);
int accelctl_ops(int argc, char **argv, const accelctl_opts_t *global);
int accelctl_models(int argc, char **argv, const accelctl_opts_t *global);
/* accelctl-eval.c: eval diff | topk | detection. */
int accelctl_eval(int argc, char **argv, const accelctl_opts_t *global);
