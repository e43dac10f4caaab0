/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Evaluation-stage results: one row per stage run, kept beside
 * the benchmark events and filtered by uid the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "storage-internal.h"

#define EVALUATION_COLUMNS \
        "id, model_sha256, settings_key, stage, source, accuracy, samples, metrics_json, wallclock_us, uid, operator"

void store_evaluation_done(store_evaluation_t *e) {
        if (!e)
                return;
        free(e->settings_key);
        free(e->stage);
        free(e->source);
        free(e->metrics_json);
        *e = (store_evaluation_t) { 0 };
}

void store_evaluation_list_free(store_evaluation_t *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                store_evaluation_done(&v[i]);
        free(v);
}

int store_evaluation_insert(store_db_t *db, const store_evaluation_t *e, int64_t *ret_id) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r;

        if (!db || !e || !acc_sha256_hex_valid(e->model_sha256) || !e->settings_key || !e->stage || !*e->stage ||
            !e->source || !e->metrics_json || e->samples < 0)
                return -EINVAL;
        r = store__prepare(db,
                           "INSERT INTO evaluations (model_sha256, settings_key, stage, source, accuracy, samples, "
                           "metrics_json, wallclock_us, uid, operator) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, e->model_sha256);
        (void) store__bind_text(s, 2, e->settings_key);
        (void) store__bind_text(s, 3, e->stage);
        (void) store__bind_text(s, 4, e->source);
        if (e->has_accuracy)
                (void) sqlite3_bind_double(s, 5, e->accuracy);
        else
                (void) sqlite3_bind_null(s, 5);
        (void) sqlite3_bind_int64(s, 6, e->samples);
        (void) store__bind_text(s, 7, e->metrics_json);
        (void) sqlite3_bind_int64(s, 8, e->wallclock_us ? e->wallclock_us : store__now_us());
        if (e->has_uid)
                (void) sqlite3_bind_int64(s, 9, e->uid);
        else
                (void) sqlite3_bind_null(s, 9);
        /* Root's rows and acceld's own (no uid) are the operators'. */
        (void) sqlite3_bind_int(s, 10, e->operator || !e->has_uid || e->uid == 0);
        r = store__errno(sqlite3_step(s));
        if (r < 0)
                return r;
        if (ret_id)
                *ret_id = sqlite3_last_insert_rowid(db->db);
        return 0;
}

static int row_read(sqlite3_stmt *s, store_evaluation_t *ret) {
        store_evaluation_t e = { 0 };
        bool ok = true;
        const unsigned char *sha = sqlite3_column_text(s, 1);

        e.id = sqlite3_column_int64(s, 0);
        if (sha)
                snprintf(e.model_sha256, sizeof(e.model_sha256), "%s", (const char *) sha);
        e.settings_key = store__column_strdup(s, 2, &ok);
        e.stage = store__column_strdup(s, 3, &ok);
        e.source = store__column_strdup(s, 4, &ok);
        e.has_accuracy = sqlite3_column_type(s, 5) != SQLITE_NULL;
        e.accuracy = sqlite3_column_double(s, 5);
        e.samples = sqlite3_column_int64(s, 6);
        e.metrics_json = store__column_strdup(s, 7, &ok);
        e.wallclock_us = sqlite3_column_int64(s, 8);
        e.has_uid = sqlite3_column_type(s, 9) != SQLITE_NULL;
        e.uid = (uint32_t) sqlite3_column_int64(s, 9);
        e.operator = sqlite3_column_int(s, 10) != 0;
        if (!ok) {
                store_evaluation_done(&e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

int store_evaluation_list(store_db_t *db, const store_evaluation_filter_t *filter, store_evaluation_t **ret_v,
                          size_t *ret_n) {
        static const store_evaluation_filter_t none = { 0 };
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        store_evaluation_t *v = NULL;
        size_t n = 0, cap = 0;
        int r, rc;

        if (!db || !ret_v || !ret_n)
                return -EINVAL;
        if (!filter)
                filter = &none;
        /* Every condition is present and switched off by a NULL parameter:
         * one statement, no SQL built from pieces. */
        r = store__prepare(db,
                           "SELECT " EVALUATION_COLUMNS " FROM evaluations WHERE"
                           " (?1 IS NULL OR model_sha256 = ?1) AND (?2 IS NULL OR settings_key = ?2)"
                           " AND (?3 IS NULL OR stage = ?3) AND id > ?4"
                           " AND (?5 IS NULL OR uid = ?5 OR (?7 AND (uid IS NULL OR operator = 1)))"
                           " ORDER BY id LIMIT ?6",
                           &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, filter->model_sha256);
        (void) store__bind_text(s, 2, filter->settings_key);
        (void) store__bind_text(s, 3, filter->stage);
        (void) sqlite3_bind_int64(s, 4, filter->after_id);
        if (filter->has_uid)
                (void) sqlite3_bind_int64(s, 5, filter->uid);
        else
                (void) sqlite3_bind_null(s, 5);
        (void) sqlite3_bind_int64(s, 6, filter->limit ? (int64_t) filter->limit : -1);
        (void) sqlite3_bind_int(s, 7, filter->has_uid && filter->with_operators);
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                if (n == cap) {
                        size_t ncap = cap ? 2 * cap : 16;
                        store_evaluation_t *nv = realloc(v, ncap * sizeof(*nv));

                        if (!nv) {
                                store_evaluation_list_free(v, n);
                                return -ENOMEM;
                        }
                        v = nv;
                        cap = ncap;
                }
                r = row_read(s, &v[n]);
                if (r < 0) {
                        store_evaluation_list_free(v, n);
                        return r;
                }
                n++;
        }
        r = store__errno(rc);
        if (r < 0) {
                store_evaluation_list_free(v, n);
                return r;
        }
        *ret_v = v;
        *ret_n = n;
        return 0;
}

int store_evaluation_latest_accuracy(store_db_t *db, const char *model_sha256, const char *settings_key,
                                     const char *stage, double *ret) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r, rc;

        if (!db || !model_sha256 || !settings_key || !stage || !ret)
                return -EINVAL;
        r = store__prepare(db,
                           "SELECT accuracy FROM evaluations WHERE model_sha256 = ?1 AND settings_key = ?2"
                           " AND stage = ?3 AND accuracy IS NOT NULL ORDER BY id DESC LIMIT 1",
                           &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, model_sha256);
        (void) store__bind_text(s, 2, settings_key);
        (void) store__bind_text(s, 3, stage);
        rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return -ENOENT;
        if (rc != SQLITE_ROW)
                return store__errno(rc);
        *ret = sqlite3_column_double(s, 0);
        return 0;
}
