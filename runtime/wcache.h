/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * The weights cache: constants derived from a model (float16 and int8
 * weights dequantized to float32, densified sparse tensors, and whatever a
 * driver packs through the hook in driver.h), kept in a directory as one
 * file per key, written once and atomically (temporary file, fsync,
 * rename), and mapped read-only with MAP_SHARED by every instance and every
 * process that needs them: the daemon's interpreters, benchmark workers and
 * driver hosts all read the same page-cache pages, and a restart finds the
 * files again.
 *
 * A key is the caller's text (for example "fold/s0/<model sha256>") plus
 * the runtime version and the CPU features this build cares about; the file
 * name is a 64-bit hash of the full key, and the full key is stored in the
 * header and compared, so a hash collision is a miss, never a wrong blob.
 *
 * File layout (little-endian, as the machine writes it):
 *   header (RT_WCACHE_HEADER_SIZE bytes: magic "ACWCACH1", format, payload
 *   size, payload hash, tag, key), then the payload, page-aligned.
 *
 * Writer and readers: only the process that opened the cache with
 * rt_wcache_open() (acceld) writes files. It holds a random 32-byte key in
 * "<dir>.key" (mode 0600, beside the directory, never in it), tags every
 * file with HMAC-SHA256 under that key and, on every mapping, accepts only
 * a file whose tag checks: a file planted by anyone else, even with a
 * correct payload hash, is a miss (removed, counted as corrupt), never a
 * hit. Driver hosts and benchmark workers, which must not hold the key,
 * open the cache with rt_wcache_open_readonly(): they map files after
 * checking the payload hash (XXH3, damage only; they cannot write the
 * directory), and never insert, remove or touch a file.
 *
 * Quota: after every insert, files not mapped by this process are removed
 * oldest first (mtime, which every hit refreshes) until the directory fits
 * `quota` bytes. A mapping stays valid when its file is removed.
 *
 * Threads: every function is thread-safe; blobs are reference counted.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define RT_WCACHE_HEADER_SIZE 4096u
#define RT_WCACHE_KEY_MAX 512u
#define RT_WCACHE_FORMAT 3u

typedef struct rt_wcache rt_wcache_t;
typedef struct rt_wcache_blob rt_wcache_blob_t;

typedef struct rt_wcache_stats {
        uint64_t hits;          /* lookups answered from a file or a mapping */
        uint64_t misses;        /* lookups with no usable file */
        uint64_t inserts;
        uint64_t corrupt;       /* files removed because a check failed */
        uint64_t evictions;     /* files removed to stay under the quota */
        uint64_t files;         /* in the directory at the last scan */
        uint64_t bytes;         /* their total size */
        uint64_t mapped_bytes;  /* mapped by this process now */
        uint64_t quota;
} rt_wcache_stats_t;

typedef struct rt_wcache_entry {
        char file[64];          /* "<16 hex>.acw" */
        char key[RT_WCACHE_KEY_MAX];
        uint64_t bytes;         /* file size */
        int64_t mtime;          /* seconds; last use */
        bool mapped;            /* by this process */
        bool valid;             /* the header checks (the payload is not hashed) */
} rt_wcache_entry_t;

/*
 * Open (creating it, mode 0700) the cache directory `dir` as its writer,
 * reading the key from "<dir>.key" or making one (a key file that is not a
 * 0600 regular file of this uid is replaced: every existing file becomes a
 * miss). quota: bytes the directory may hold, 0 = no limit. 0, or -errno
 * from mkdir/open/getrandom.
 */
int rt_wcache_open(const char *dir, uint64_t quota, rt_wcache_t **ret);

/* Open `dir` (which must exist) as a reader: lookups only, checked by the
 * payload hash; rt_wcache_insert() and rt_wcache_clear() answer -EROFS.
 * 0 or -errno from open. */
int rt_wcache_open_readonly(const char *dir, rt_wcache_t **ret);
/* Close; blobs still referenced keep their mappings. NULL-safe; NULL. */
rt_wcache_t *rt_wcache_close(rt_wcache_t *c);

/* The directory (borrowed). */
const char *rt_wcache_dir(const rt_wcache_t *c);

/*
 * Look `key` up. 0 with *ret (a new reference), -ENOENT when there is no
 * usable file (a corrupt one is removed first), -EINVAL (key too long),
 * -ENOMEM, or -errno from mmap.
 */
int rt_wcache_lookup(rt_wcache_t *c, const char *key, rt_wcache_blob_t **ret);

/*
 * Store the concatenation of iov[0..n) under `key`, atomically, and return
 * it mapped from the file (*ret, a new reference; the caller's buffers are
 * no longer needed). When another thread or process stored the key first,
 * its file is returned. 0, -EINVAL, -ENOSPC / -EDQUOT (bigger than the
 * quota), -EROFS (a reader's cache), or -errno from the file system.
 */
int rt_wcache_insert(rt_wcache_t *c, const char *key, const struct iovec *iov, int n, rt_wcache_blob_t **ret);

/* The payload (read-only) and its size. */
const void *rt_wcache_blob_data(const rt_wcache_blob_t *b, size_t *ret_size);
rt_wcache_blob_t *rt_wcache_blob_ref(rt_wcache_blob_t *b);
/* NULL-safe; NULL. The last reference unmaps. */
rt_wcache_blob_t *rt_wcache_blob_unref(rt_wcache_blob_t *b);

void rt_wcache_stats(rt_wcache_t *c, rt_wcache_stats_t *ret);

/* The files, oldest use first: *ret (malloc'ed) with *ret_n entries. Also
 * refreshes the files/bytes counters. 0 or -errno. */
int rt_wcache_list(rt_wcache_t *c, rt_wcache_entry_t **ret, size_t *ret_n);

/* Remove every file (mappings in use stay valid). *ret_removed (may be
 * NULL): how many. 0 or -errno. */
int rt_wcache_clear(rt_wcache_t *c, uint64_t *ret_removed, uint64_t *ret_bytes);

/* The text mixed into every key: "rt=<version>;cpu=<features>". */
const char *rt_wcache_build_id(void);
