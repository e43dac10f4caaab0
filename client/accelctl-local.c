/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until the runtime's in-process API lands. */
#include <stdio.h>

#include "accelctl-local.h"

int accelctl_local_inspect(int argc, char **argv) {
        (void) argc;
        (void) argv;
        fprintf(stderr, "accelctl inspect: not available yet\n");
        return 1;
}

int accelctl_local_run(int argc, char **argv) {
        (void) argc;
        (void) argv;
        fprintf(stderr, "accelctl run --local: not available yet\n");
        return 1;
}
