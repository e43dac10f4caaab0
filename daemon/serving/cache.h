/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compilation cache (NNAPI-style cache tokens): PrepareModel
 * with a cache_token and a model records what is needed to prepare that
 * model again quickly; PrepareModel with the token alone (NNAPI
 * prepareModelFromCache) prepares from the record. See "Compilation cache"
 * in docs/architecture.md.
 *
 * An entry is keyed by the client's uid and token, so a token never matches
 * across uids. Its body is a serialized acceld.CacheRecord: the model's
 * SHA-256 (the bytes live in the content-addressed model store), the
 * settings as TFLiteSettings plus their sharing key, the partition plan and
 * the versions of the drivers that ran it. storage/ indexes the file with
 * its size and SHA-256 (compile_cache); every load re-checks it and the
 * model file, and a tampered or stale entry is removed and reported, never
 * used.
 *
 * Threads: daemon_cache_key(), daemon_cache_record_*() and
 * daemon_cache_driver_versions() are pure. daemon_cache_write() and
 * daemon_cache_load() block on the storage thread: call them from worker
 * threads, never the loop.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "models.h"

/* Longest client token in bytes (NNAPI's BYTE_SIZE_OF_CACHE_TOKEN is 32). */
#define DAEMON_CACHE_TOKEN_MAX 64
/* The index key: "uid=<uid>;token=<hex>" plus NUL. */
#define DAEMON_CACHE_KEY_SIZE (sizeof("uid=4294967295;token=") + 2 * DAEMON_CACHE_TOKEN_MAX)
/* acceld.CacheRecord.format this build writes and accepts. */
#define DAEMON_CACHE_FORMAT 1

/*
 * The index key of `token` (size bytes) for a client of `uid`:
 * "uid=<uid>;token=<lowercase hex of the bytes>". Two uids never share a
 * key. Returns 0, -EINVAL (token NULL, size 0 or > DAEMON_CACHE_TOKEN_MAX,
 * or buf smaller than DAEMON_CACHE_KEY_SIZE).
 */
int daemon_cache_key(uid_t uid, const void *token, size_t size, char *buf, size_t buf_size);

/* Whether the daemon has a compilation cache (a running storage thread). */
bool daemon_cache_available(void);

typedef struct daemon_cache_record {
        char key[DAEMON_CACHE_KEY_SIZE];
        char model_sha256[ACC_SHA256_HEX_SIZE];
        uint8_t *settings;              /* owned, serialized TFLiteSettings (may be NULL when size 0) */
        size_t settings_size;
        char *settings_key;             /* owned: rt_settings_key() of the settings */
        char **part_drivers;            /* owned, n_parts strings */
        int32_t *part_nodes;            /* owned */
        size_t n_parts;
        char *driver;                   /* owned: scheduler queue of the instance */
        char *driver_versions;          /* owned: "name=version;..." of the plan's drivers */
} daemon_cache_record_t;

/* Free what r owns and zero it. NULL-safe. */
void daemon_cache_record_done(daemon_cache_record_t *r);

/* Serialize r as an acceld.CacheRecord (format DAEMON_CACHE_FORMAT).
 * *ret is malloc'ed. Returns 0, -EINVAL, -ENOMEM. */
int daemon_cache_record_pack(const daemon_cache_record_t *r, uint8_t **ret, size_t *ret_size);

/* Decode bytes written by daemon_cache_record_pack() into *ret (written on
 * success only). Returns 0, -EBADMSG (does not decode, or a required field
 * is missing or malformed), -EPROTO (another format), -ENOMEM. */
int daemon_cache_record_unpack(const void *data, size_t size, daemon_cache_record_t *ret);

/*
 * The versions of the drivers a plan uses, in plan order without
 * duplicates, plus `driver` (may be NULL): "reference=1;xnnpack=...".
 * A driver that is not registered is written as "name=?" (so a missing
 * plugin makes an entry stale). Always NUL-terminated.
 */
void daemon_cache_driver_versions(char *const *drivers, size_t n, const char *driver, char *buf, size_t size);

/*
 * Record a cache entry for `key` (daemon_cache_key()) describing the
 * compiled instance `inst` (borrowed, referenced by the caller): the model
 * bytes go into the model store (store_model_add, idempotent), then the
 * record into the compilation cache (store_cache_put, replacing the
 * previous entry of the key). Worker thread. Returns 0, -ENODEV (no
 * storage), or the store's -errno with a message in err.
 */
int daemon_cache_write(const char *key, const daemon_instance_t *inst, char *err, size_t err_size);

/*
 * Look the entry of `key` up and verify it before it is trusted: the file
 * against the index (size, SHA-256), the record's own token, format, the
 * versions of its drivers against the ones running now, its settings
 * against their recorded key, and the stored model file against its
 * SHA-256. On 0, *ret holds the verified record. Worker thread.
 * Returns 0; -ENOENT (no entry); -EBADMSG (tampered or torn: removed);
 * -ESTALE (the model file changed or is gone, a driver version differs,
 * the settings differ: removed); -ENODEV (no storage); other -errno.
 * err always says why on failure.
 */
int daemon_cache_load(const char *key, daemon_cache_record_t *ret, char *err, size_t err_size);
