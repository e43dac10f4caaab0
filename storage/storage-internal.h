/* SPDX-License-Identifier: Apache-2.0 */
/* storage/ internals: shared by the storage .c files only. */
#pragma once

#include <sqlite3.h>
#include <stdint.h>

#include "cleanup.h"
#include "storage.h"

struct store_db {
        sqlite3 *db;
        char *state_dir;
        char *models_dir;       /* <state>/models */
        char *cache_dir;        /* <state>/cache */
};

static inline void sqlite3_finalizep(sqlite3_stmt **s) {
        if (*s)
                (void) sqlite3_finalize(*s);
}
#define _cleanup_stmt_ _cleanup_(sqlite3_finalizep)

/* SQLite result code -> -errno (the one place this mapping lives). */
int store__errno(int sqlite_rc);

/* Prepare sql on db; 0 or -errno. */
int store__prepare(store_db_t *db, const char *sql, sqlite3_stmt **ret);

/* Run SQL without results; 0 or -errno. */
int store__exec(sqlite3 *db, const char *sql);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. rollback ignores errors. */
int store__begin(store_db_t *db);
int store__commit(store_db_t *db);
void store__rollback(store_db_t *db);

/* Bind text or NULL. */
int store__bind_text(sqlite3_stmt *s, int idx, const char *text);

/* strdup of a column (NULL stays NULL); -ENOMEM via *ok=false. */
char *store__column_strdup(sqlite3_stmt *s, int col, bool *ok);

/* CLOCK_REALTIME / CLOCK_BOOTTIME in microseconds. */
int64_t store__now_us(void);
int64_t store__boottime_us(void);

/* Write data to dir/name atomically: temp file in dir, fsync, rename over
 * name, fsync dir. 0 or -errno. */
int store__file_write_atomic(const char *dir, const char *name, const void *data, size_t size);
/* Remove the temporaries store__file_write_atomic() left in `dir` (a crash
 * or a full disk mid-write); run when the store opens, before any write.
 * 0 or the last -errno of an unlink; *ret_removed (optional) counts them. */
int store__tmp_sweep(const char *dir, unsigned *ret_removed);

/* Median of v[0..n) (n > 0; an even count gives the mean of the middle
 * two, rounded toward zero); sorts a copy. 0, -EINVAL or -ENOMEM. */
int store__median(const int64_t *v, size_t n, int64_t *ret);

/* SHA-256 and size of a file, streamed. 0 or -errno (-ENOENT if absent). */
int store__file_sha256(const char *path, char ret_hex[ACC_SHA256_HEX_SIZE], uint64_t *ret_size);

/* "<dir>/<name>" malloc'ed, or NULL. */
char *store__path_join(const char *dir, const char *name);

/* Stored models ordered by name then sha256, named as uid names them:
 * every model (owned false; another owner's name when uid has none) or
 * only uid's (owned true). 0, -EINVAL, -ENOMEM, -EIO. */
int store__model_list(store_db_t *db, bool owned, uint32_t uid, store_model_t **ret_v, size_t *ret_n);
