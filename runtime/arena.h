/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The tensor arena planner (runtime-internal): given buffers with a size and
 * a lifetime [first, last] (positions in the execution plan, inclusive),
 * choose offsets in one block so that buffers whose lifetimes overlap never
 * share bytes. Greedy by size: the largest buffers are placed first, each in
 * the smallest gap (best fit) between already placed buffers it overlaps in
 * time, or above them all. Offsets are RT_ARENA_ALIGN-aligned.
 *
 * Pure computation: no allocation of the arena itself, thread-safe.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define RT_ARENA_ALIGN 64

typedef struct rt_arena_item {
        size_t bytes;    /* in: size needed (0 is allowed and gets no space) */
        int32_t first;   /* in: first plan position that uses it */
        int32_t last;    /* in: last plan position that uses it (>= first) */
        size_t offset;   /* out: offset in the arena */
} rt_arena_item_t;

/*
 * Fill items[i].offset for all n items and the arena size needed in
 * *ret_size. Returns 0, -EINVAL (NULL arguments with n > 0, first > last) or
 * -ENOMEM (no memory for the working set, or the size overflows).
 */
int rt_arena_plan(rt_arena_item_t *items, size_t n, size_t *ret_size);

/* bytes rounded up to RT_ARENA_ALIGN (0 stays 0); SIZE_MAX on overflow. */
size_t rt_arena_align(size_t bytes);
