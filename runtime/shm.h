/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The shared-memory registry: which mappings of this process are backed by
 * a memory file another process can map too (a memfd), so that a tensor
 * living in one can be handed to a driver host as (region, offset) instead
 * of being copied.
 *
 * Two kinds of owners register regions: an executor whose arena is shared
 * (rt_exec_set_shared_arena(), allocated with rt_shm_alloc()), and acceld's
 * serving code for a client's registered buffer. A consumer (the driver-host
 * proxy) asks rt_shm_find() for the region holding a tensor's bytes.
 *
 * Ids are never reused within a process, so a consumer that remembers which
 * regions it already passed on can ask rt_shm_alive() whether the memory
 * behind an id is still there.
 *
 * Process-wide and thread-safe (a reader-writer lock; lookups share it).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rt_shm_ref {
        uint64_t id;            /* the region; > 0 */
        int fd;                 /* its memory file (borrowed from the owner) */
        uint64_t offset;        /* of the looked-up pointer, from the file's start */
        size_t avail;           /* bytes from the pointer to the region's end */
} rt_shm_ref_t;

/*
 * Register [base, base + size), which maps `fd` from `fd_offset` on. The
 * registry borrows fd: the owner keeps it open, and the mapping in place,
 * until rt_shm_unregister(). Returns the id (> 0), or -EINVAL (NULL base,
 * size 0, fd < 0, overlap with a registered region), -ENOMEM.
 */
int64_t rt_shm_register(void *base, size_t size, int fd, uint64_t fd_offset);

/* Forget region `id` (0 and unknown ids are ignored). */
void rt_shm_unregister(uint64_t id);

/* Whether region `id` is registered. */
bool rt_shm_alive(uint64_t id);

/* A count of unregistrations so far: a consumer that remembers ids only
 * needs to ask rt_shm_alive() again when it has changed. */
uint64_t rt_shm_epoch(void);

/*
 * The region that holds [p, p + bytes): 0 and *ret filled, or -ENOENT.
 * ret->fd is valid as long as the caller keeps the memory at p alive.
 */
int rt_shm_find(const void *p, size_t bytes, rt_shm_ref_t *ret);

/*
 * A fresh zeroed shared block of `size` bytes (page-aligned, mapped read-
 * write from a new memfd named `name`), registered. Returns the mapping, or
 * NULL with errno set; *ret_id gets its id for rt_shm_free().
 */
void *rt_shm_alloc(size_t size, const char *name, uint64_t *ret_id);

/* Unregister, unmap and close a block of rt_shm_alloc(). NULL-safe. */
void rt_shm_free(void *p, size_t size, uint64_t id);
