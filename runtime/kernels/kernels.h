/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The builtin kernel families. Each family lives in its own folder under
 * runtime/kernels/ and adds its registrations to a resolver with one
 * function; rt_kernels_register_builtins() (builtins.c) calls them all.
 * Each returns 0 or a negative errno.
 */
#pragma once

#include "kernel.h"

int rt_kernels_register_conv(rt_resolver_t *r);        /* conv/, matmul, pooling */
int rt_kernels_register_elementwise(rt_resolver_t *r); /* elementwise/ */
int rt_kernels_register_shape(rt_resolver_t *r);       /* shape/: data movement, resize */
int rt_kernels_register_sequence(rt_resolver_t *r);    /* sequence/: RNNs, special ops */
int rt_kernels_register_reduce(rt_resolver_t *r);      /* reduce/: reductions, softmax, norms */
int rt_kernels_register_misc(rt_resolver_t *r);        /* misc/: scatter, segments, NMS, ... */
int rt_kernels_register_control(rt_resolver_t *r);     /* control/: IF, WHILE, CALL_ONCE, variables */

int rt_kernels_register_builtins(rt_resolver_t *r);
