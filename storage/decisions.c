/* SPDX-License-Identifier: Apache-2.0 */
/* Decisions: the chosen settings per model and ExecutionPreference, with
 * the reason and the driver versions they were chosen under. */
#include <errno.h>
#include <string.h>

#include "storage-internal.h"

void store_decision_done(store_decision_t *d) {
        if (!d)
                return;
        free(d->settings_key);
        free(d->settings);
        free(d->reason);
        free(d->driver_versions);
        *d = (store_decision_t) { 0 };
}

int store_decision_put(store_db_t *db, const store_decision_t *d) {
        if (!db || !d || !acc_sha256_hex_valid(d->model_sha256) || !d->settings_key || d->preference < 0 ||
            (!d->settings && d->settings_size > 0))
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               "INSERT OR REPLACE INTO decisions (model_sha256, preference, settings_key, "
                               "settings, reason, driver_versions, decided_at, settings_json, uid) "
                               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &s);
        if (r < 0)
                return r;
        /* The readable copy for decisions_readable; settings that do not
         * decode keep it NULL. */
        _cleanup_free_ char *json = NULL;
        if (store_settings_json(d->settings, d->settings_size, &json) == -ENOMEM)
                return -ENOMEM;
        (void) store__bind_text(s, 1, d->model_sha256);
        (void) sqlite3_bind_int(s, 2, d->preference);
        (void) store__bind_text(s, 3, d->settings_key);
        /* A NULL pointer would bind SQL NULL; empty settings are a zero-length blob. */
        if (d->settings_size > 0)
                (void) sqlite3_bind_blob64(s, 4, d->settings, d->settings_size, SQLITE_STATIC);
        else
                (void) sqlite3_bind_zeroblob(s, 4, 0);
        (void) store__bind_text(s, 5, d->reason ? d->reason : "");
        (void) store__bind_text(s, 6, d->driver_versions ? d->driver_versions : "");
        (void) sqlite3_bind_int64(s, 7, d->decided_at_us ? d->decided_at_us : store__now_us());
        if (json)
                (void) store__bind_text(s, 8, json);
        (void) sqlite3_bind_int64(s, 9, d->uid);
        return store__errno(sqlite3_step(s));
}

int store_decision_get(store_db_t *db, const char *model_sha256, int preference, uint32_t uid,
                       store_decision_t *ret) {
        if (!db || !acc_sha256_hex_valid(model_sha256) || preference < 0 || !ret)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               "SELECT settings_key, settings, reason, driver_versions, decided_at "
                               "FROM decisions WHERE model_sha256 = ?1 AND preference = ?2 AND uid = ?3", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, model_sha256);
        (void) sqlite3_bind_int(s, 2, preference);
        (void) sqlite3_bind_int64(s, 3, uid);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return -ENOENT;
        if (rc != SQLITE_ROW)
                return store__errno(rc);

        bool ok = true;
        store_decision_t d = { .preference = preference, .uid = uid };
        memcpy(d.model_sha256, model_sha256, ACC_SHA256_HEX_SIZE);
        d.settings_key = store__column_strdup(s, 0, &ok);
        int n = sqlite3_column_bytes(s, 1);
        if (n > 0) {
                d.settings = malloc((size_t) n);
                if (d.settings) {
                        memcpy(d.settings, sqlite3_column_blob(s, 1), (size_t) n);
                        d.settings_size = (size_t) n;
                } else
                        ok = false;
        }
        d.reason = store__column_strdup(s, 2, &ok);
        d.driver_versions = store__column_strdup(s, 3, &ok);
        d.decided_at_us = sqlite3_column_int64(s, 4);
        if (!ok || !d.settings_key || !d.reason || !d.driver_versions) {
                store_decision_done(&d);
                return -ENOMEM;
        }
        *ret = d;
        return 0;
}

int store_decision_delete(store_db_t *db, const char *model_sha256, int preference, int64_t uid) {
        if (!db || !acc_sha256_hex_valid(model_sha256))
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               "DELETE FROM decisions WHERE model_sha256 = ?1 AND (?2 < 0 OR preference = ?2) "
                               "AND (?3 < 0 OR uid = ?3)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, model_sha256);
        (void) sqlite3_bind_int(s, 2, preference);
        (void) sqlite3_bind_int64(s, 3, uid);
        r = store__errno(sqlite3_step(s));
        return r < 0 ? r : sqlite3_changes(db->db);
}

int store_decision_uids(store_db_t *db, const char *model_sha256, uint32_t **ret_v, size_t *ret_n) {
        if (!db || !acc_sha256_hex_valid(model_sha256) || !ret_v || !ret_n)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "SELECT DISTINCT uid FROM decisions WHERE model_sha256 = ?1 ORDER BY uid", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, model_sha256);
        uint32_t *v = NULL;
        size_t n = 0;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                uint32_t *nv = realloc(v, (n + 1) * sizeof(*v));
                if (!nv) {
                        free(v);
                        return -ENOMEM;
                }
                v = nv;
                v[n++] = (uint32_t) sqlite3_column_int64(s, 0);
        }
        if (rc != SQLITE_DONE) {
                free(v);
                return store__errno(rc);
        }
        *ret_v = v;
        *ret_n = n;
        return 0;
}

int store_decision_invalidate(store_db_t *db, const char *driver_versions) {
        if (!db || !driver_versions)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "DELETE FROM decisions WHERE driver_versions <> ?1", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, driver_versions);
        r = store__errno(sqlite3_step(s));
        return r < 0 ? r : sqlite3_changes(db->db);
}
