/* SPDX-License-Identifier: Apache-2.0 */
/* accelctl's benchmark subcommands (accelctl-bench.c); argv[0] is the
 * subcommand. Exit codes as in accelctl.h. */
#pragma once

#include "accelctl.h"

int accelctl_bench(int argc, char **argv, const accelctl_opts_t *global);
int accelctl_events(int argc, char **argv, const accelctl_opts_t *global);
int accelctl_best(int argc, char **argv, const accelctl_opts_t *global);
int accelctl_export(int argc, char **argv, const accelctl_opts_t *global);
