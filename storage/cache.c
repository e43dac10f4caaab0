/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compilation-cache index (NNAPI-style tokens). Cached blobs are
 * untrusted when read back: each get re-checks the entry against what the
 * caller is about to build and re-hashes the file, so a stale or tampered
 * entry is reported and rebuilt, never used.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "file-read.h"
#include "storage-internal.h"

#define CACHE_COLUMNS \
        "token, model_sha256, settings_key, driver, driver_version, path, size, checksum, created_at"

void store_cache_entry_done(store_cache_entry_t *e) {
        if (!e)
                return;
        free(e->token);
        free(e->settings_key);
        free(e->driver);
        free(e->driver_version);
        free(e->path);
        *e = (store_cache_entry_t) { 0 };
}

static bool key_valid(const store_cache_key_t *k) {
        return k && k->token && k->token[0] && strlen(k->token) <= STORE_TOKEN_MAX &&
               acc_sha256_hex_valid(k->model_sha256) && k->settings_key && k->driver && k->driver[0] &&
               k->driver_version;
}

/* The file is named by the token's hash: tokens are client text and must
 * never become a path. */
static void file_name(const char *token, char ret[ACC_SHA256_HEX_SIZE + 8]) {
        char h[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(token, strlen(token), h);
        snprintf(ret, ACC_SHA256_HEX_SIZE + 8, "%s.bin", h);
}

int store_cache_put(store_db_t *db, const store_cache_key_t *key, const void *data, size_t size) {
        if (!db || !key_valid(key) || (!data && size > 0))
                return -EINVAL;
        char name[ACC_SHA256_HEX_SIZE + 8], rel[ACC_SHA256_HEX_SIZE + 16], sum[ACC_SHA256_HEX_SIZE];
        file_name(key->token, name);
        snprintf(rel, sizeof(rel), "cache/%s", name);
        acc_sha256_hex(data ? data : "", size, sum);

        int r = store__file_write_atomic(db->cache_dir, name, data ? data : "", size);
        if (r < 0)
                return r;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        r = store__prepare(db,
                           "INSERT OR REPLACE INTO compile_cache (" CACHE_COLUMNS ") "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, key->token);
        (void) store__bind_text(s, 2, key->model_sha256);
        (void) store__bind_text(s, 3, key->settings_key);
        (void) store__bind_text(s, 4, key->driver);
        (void) store__bind_text(s, 5, key->driver_version);
        (void) store__bind_text(s, 6, rel);
        (void) sqlite3_bind_int64(s, 7, (sqlite3_int64) size);
        (void) store__bind_text(s, 8, sum);
        (void) sqlite3_bind_int64(s, 9, store__now_us());
        return store__errno(sqlite3_step(s));
}

static int entry_get(store_db_t *db, const char *token, store_cache_entry_t *ret) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "SELECT " CACHE_COLUMNS " FROM compile_cache WHERE token = ?1", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, token);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return -ENOENT;
        if (rc != SQLITE_ROW)
                return store__errno(rc);

        bool ok = true;
        store_cache_entry_t e = { 0 };
        e.token = store__column_strdup(s, 0, &ok);
        snprintf(e.model_sha256, sizeof(e.model_sha256), "%s", (const char *) sqlite3_column_text(s, 1));
        e.settings_key = store__column_strdup(s, 2, &ok);
        e.driver = store__column_strdup(s, 3, &ok);
        e.driver_version = store__column_strdup(s, 4, &ok);
        const unsigned char *rel = sqlite3_column_text(s, 5);
        e.path = rel ? store__path_join(db->state_dir, (const char *) rel) : NULL;
        e.size = (uint64_t) sqlite3_column_int64(s, 6);
        snprintf(e.checksum, sizeof(e.checksum), "%s", (const char *) sqlite3_column_text(s, 7));
        e.created_at_us = sqlite3_column_int64(s, 8);
        if (!ok || !e.token || !e.settings_key || !e.driver || !e.driver_version || !e.path) {
                store_cache_entry_done(&e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

int store_cache_get(store_db_t *db, const store_cache_key_t *key, store_cache_entry_t *ret_entry,
                    void **ret_data, size_t *ret_size) {
        if (!db || !key_valid(key) || !ret_data || !ret_size)
                return -EINVAL;
        _cleanup_(store_cache_entry_done) store_cache_entry_t e = { 0 };
        int r = entry_get(db, key->token, &e);
        if (r < 0)
                return r;
        if (strcmp(e.model_sha256, key->model_sha256) != 0 || strcmp(e.settings_key, key->settings_key) != 0 ||
            strcmp(e.driver, key->driver) != 0 || strcmp(e.driver_version, key->driver_version) != 0)
                return -ESTALE;

        _cleanup_free_ void *data = NULL;
        size_t size = 0;
        r = acc_file_read(e.path, &data, &size);
        if (r == -ENOENT)
                return -ESTALE;
        if (r < 0)
                return r;
        /* Hash what we return, not the file again: the bytes handed out are
         * exactly the bytes checked. */
        char sum[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(data, size, sum);
        if (size != e.size || strcmp(sum, e.checksum) != 0)
                return -EBADMSG;

        *ret_data = TAKE_PTR(data);
        *ret_size = size;
        if (ret_entry) {
                *ret_entry = e;
                e = (store_cache_entry_t) { 0 };
        }
        return 0;
}

static int remove_where(store_db_t *db, const char *where, const char *value) {
        /* Collect the files first, delete the rows, then the files: a crash
         * in between leaves only unreferenced files. */
        char sql[160];
        snprintf(sql, sizeof(sql), "SELECT path FROM compile_cache WHERE %s", where);
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, sql, &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, value);
        char **paths = NULL;
        size_t n = 0;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                char **np = realloc(paths, (n + 1) * sizeof(*paths));
                char *p = np ? store__path_join(db->state_dir, (const char *) sqlite3_column_text(s, 0)) : NULL;
                if (np)
                        paths = np;
                if (!p) {
                        r = -ENOMEM;
                        break;
                }
                paths[n++] = p;
        }
        if (r == 0 && rc != SQLITE_DONE)
                r = store__errno(rc);

        if (r == 0) {
                _cleanup_stmt_ sqlite3_stmt *d = NULL;
                snprintf(sql, sizeof(sql), "DELETE FROM compile_cache WHERE %s", where);
                r = store__prepare(db, sql, &d);
                if (r == 0) {
                        (void) store__bind_text(d, 1, value);
                        r = store__errno(sqlite3_step(d));
                }
                if (r == 0)
                        r = sqlite3_changes(db->db);
        }
        for (size_t i = 0; i < n; i++) {
                if (r >= 0 && unlink(paths[i]) < 0 && errno != ENOENT)
                        r = -errno;
                free(paths[i]);
        }
        free(paths);
        return r;
}

int store_cache_remove(store_db_t *db, const char *token) {
        if (!db || !token || !token[0])
                return -EINVAL;
        int r = remove_where(db, "token = ?1", token);
        if (r < 0)
                return r;
        return r > 0 ? 0 : -ENOENT;
}

int store_cache_remove_model(store_db_t *db, const char *model_sha256) {
        if (!db || !acc_sha256_hex_valid(model_sha256))
                return -EINVAL;
        return remove_where(db, "model_sha256 = ?1", model_sha256);
}
