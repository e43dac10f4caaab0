/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tenants of the model store: the uids that stored each model. The bytes
 * are stored once (content-addressed); an owner row per uid says who may
 * see and remove them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "storage-internal.h"

int store_model_own(store_db_t *db, const char *sha256, uint32_t uid) {
        if (!db || !sha256 || !acc_sha256_hex_valid(sha256))
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "INSERT OR IGNORE INTO model_owners (model_sha256, uid) VALUES (?1, ?2)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha256);
        (void) sqlite3_bind_int64(s, 2, uid);
        return store__errno(sqlite3_step(s));
}

int store_model_owned(store_db_t *db, const char *sha256, uint32_t uid) {
        if (!db || !sha256)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "SELECT 1 FROM model_owners WHERE model_sha256 = ?1 AND uid = ?2", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha256);
        (void) sqlite3_bind_int64(s, 2, uid);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
                return 1;
        return rc == SQLITE_DONE ? 0 : store__errno(rc);
}

int store_model_list_owned(store_db_t *db, uint32_t uid, store_model_t **ret_v, size_t *ret_n) {
        return store__model_list(db, true, uid, ret_v, ret_n);
}

static int owners_count(store_db_t *db, const char *sha256) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "SELECT count(*) FROM model_owners WHERE model_sha256 = ?1", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha256);
        if (sqlite3_step(s) != SQLITE_ROW)
                return -EIO;
        return sqlite3_column_int(s, 0);
}

int store_model_disown(store_db_t *db, const char *key, uint32_t uid) {
        if (!db || !key)
                return -EINVAL;
        _cleanup_(store_model_done) store_model_t m = { 0 };
        int r = store_model_find_for(db, key, uid, false, &m);
        if (r < 0)
                return r;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        r = store__prepare(db, "DELETE FROM model_owners WHERE model_sha256 = ?1 AND uid = ?2", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, m.sha256);
        (void) sqlite3_bind_int64(s, 2, uid);
        r = store__errno(sqlite3_step(s));
        if (r < 0)
                return r;
        r = owners_count(db, m.sha256);
        if (r < 0)
                return r;
        return r == 0 ? store_model_remove(db, m.sha256) : 0;
}

int store_event_set_owner(store_db_t *db, int64_t id, uint32_t uid, bool operator) {
        if (!db || id <= 0)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "UPDATE benchmark_events SET uid = ?2, operator = ?3 WHERE id = ?1", &s);
        if (r < 0)
                return r;
        (void) sqlite3_bind_int64(s, 1, id);
        (void) sqlite3_bind_int64(s, 2, uid);
        (void) sqlite3_bind_int(s, 3, operator || uid == 0);
        r = store__errno(sqlite3_step(s));
        if (r < 0)
                return r;
        return sqlite3_changes(db->db) ? 0 : -ENOENT;
}

int store_event_set_uid(store_db_t *db, int64_t id, uint32_t uid) {
        return store_event_set_owner(db, id, uid, uid == 0);
}
