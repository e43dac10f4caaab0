/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Benchmark events: the full BenchmarkEvent protobuf is the record; the
 * columns beside it are decoded from it once, at insert, for the queries.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "storage-internal.h"

/* The SQL below names event types by number. */
_Static_assert(TFLITE__PROTO__BENCHMARK_EVENT_TYPE__START == 1 && TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END == 2 &&
                       TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR == 3,
               "BenchmarkEventType numbers");

#define EVENT_COLUMNS \
        "id, model_sha256, settings_key, driver_version, event_type, boottime_us, " \
        "wallclock_us, ok, median_inference_us, blob, uid, operator"

void store_event_done(store_event_t *e) {
        if (!e)
                return;
        free(e->settings_key);
        free(e->driver_version);
        free(e->blob);
        *e = (store_event_t) { 0 };
}

void store_event_list_free(store_event_t *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                store_event_done(&v[i]);
        free(v);
}

void store_event_columns_done(store_event_columns_t *c) {
        if (!c)
                return;
        free(c->settings_key);
        free(c->settings_json);
        *c = (store_event_columns_t) { 0 };
}

static inline void event_free_unpackedp(Tflite__Proto__BenchmarkEvent **e) {
        if (*e)
                tflite__proto__benchmark_event__free_unpacked(*e, NULL);
}

int store_event_columns_decode(const void *blob, size_t size, store_event_columns_t *ret) {
        if (!ret || (!blob && size > 0))
                return -EINVAL;
        _cleanup_(event_free_unpackedp) Tflite__Proto__BenchmarkEvent *e =
                tflite__proto__benchmark_event__unpack(NULL, size, blob);
        if (!e || !e->has_event_type)
                return -EBADMSG;

        store_event_columns_t c = {
                .event_type = (int) e->event_type,
                .has_boottime = e->has_boottime_us,
                .has_wallclock = e->has_wallclock_us,
                .boottime_us = e->boottime_us,
                .wallclock_us = e->wallclock_us,
                .ok = -1,
                .median_inference_us = -1,
                .error_stage = -1,
                .error_exit_code = -1,
                .error_signal = -1,
        };
        if (e->error) {
                c.error_stage = e->error->has_stage ? (int) e->error->stage : 0;
                if (e->error->has_exit_code)
                        c.error_exit_code = e->error->exit_code;
                if (e->error->has_signal)
                        c.error_signal = e->error->signal;
        }
        if (e->result) {
                if (e->result->has_ok)
                        c.ok = e->result->ok ? 1 : 0;
                if (e->result->n_inference_time_us > 0) {
                        int r = store__median(e->result->inference_time_us, e->result->n_inference_time_us,
                                              &c.median_inference_us);
                        if (r < 0)
                                return r;
                }
        }
        int r = store_settings_key(e->tflite_settings, &c.settings_key);
        if (r < 0)
                return r;
        r = store_message_json(e->tflite_settings ? &e->tflite_settings->base : NULL, &c.settings_json);
        if (r < 0) {
                free(c.settings_key);
                return r;
        }
        if (strcmp(c.settings_json, "null") == 0) {
                free(c.settings_json);
                c.settings_json = strdup("{}");
                if (!c.settings_json) {
                        free(c.settings_key);
                        return -ENOMEM;
                }
        }
        *ret = c;
        return 0;
}

int store_event_set_message(store_db_t *db, int64_t id, const char *message) {
        if (!db || !message)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "UPDATE benchmark_events SET error_message = ?2 WHERE id = ?1", &s);
        if (r < 0)
                return r;
        (void) sqlite3_bind_int64(s, 1, id);
        (void) store__bind_text(s, 2, message);
        r = store__errno(sqlite3_step(s));
        if (r < 0)
                return r;
        return sqlite3_changes(db->db) > 0 ? 0 : -ENOENT;
}

int store_event_insert(store_db_t *db, const char *model_sha256, const char *settings_key,
                       const char *driver_version, const void *blob, size_t size, int64_t *ret_id) {
        if (!db || !acc_sha256_hex_valid(model_sha256) || !blob || size == 0)
                return -EINVAL;
        _cleanup_(store_event_columns_done) store_event_columns_t c = { 0 };
        int r = store_event_columns_decode(blob, size, &c);
        if (r < 0)
                return r;

        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        r = store__prepare(db,
                           "INSERT INTO benchmark_events (model_sha256, settings_key, driver_version, "
                           "event_type, boottime_us, wallclock_us, ok, median_inference_us, blob, settings_json, "
                           "error_stage, error_exit_code, error_signal) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, model_sha256);
        (void) store__bind_text(s, 2, settings_key ? settings_key : c.settings_key);
        (void) store__bind_text(s, 3, driver_version);
        (void) sqlite3_bind_int(s, 4, c.event_type);
        (void) sqlite3_bind_int64(s, 5, c.has_boottime ? c.boottime_us : store__boottime_us());
        (void) sqlite3_bind_int64(s, 6, c.has_wallclock ? c.wallclock_us : store__now_us());
        if (c.ok >= 0)
                (void) sqlite3_bind_int(s, 7, c.ok);
        if (c.median_inference_us >= 0)
                (void) sqlite3_bind_int64(s, 8, c.median_inference_us);
        r = store__errno(sqlite3_bind_blob64(s, 9, blob, size, SQLITE_STATIC));
        if (r < 0)
                return r;
        (void) store__bind_text(s, 10, c.settings_json);
        if (c.error_stage >= 0)
                (void) sqlite3_bind_int(s, 11, c.error_stage);
        if (c.error_exit_code >= 0)
                (void) sqlite3_bind_int(s, 12, c.error_exit_code);
        if (c.error_signal >= 0)
                (void) sqlite3_bind_int(s, 13, c.error_signal);

        /* Autocommit: when step returns, the row is in the WAL and (with
         * synchronous=FULL) fsynced, so the id is an acknowledgement. */
        r = store__errno(sqlite3_step(s));
        if (r < 0)
                return r;
        if (ret_id)
                *ret_id = sqlite3_last_insert_rowid(db->db);
        return 0;
}

static int event_from_row(sqlite3_stmt *s, store_event_t *ret) {
        bool ok = true;
        store_event_t e = { 0 };
        e.id = sqlite3_column_int64(s, 0);
        const unsigned char *sha = sqlite3_column_text(s, 1);
        if (sha)
                snprintf(e.model_sha256, sizeof(e.model_sha256), "%s", (const char *) sha);
        e.settings_key = store__column_strdup(s, 2, &ok);
        if (!e.settings_key)
                ok = false;
        e.driver_version = store__column_strdup(s, 3, &ok);
        e.event_type = sqlite3_column_int(s, 4);
        e.boottime_us = sqlite3_column_int64(s, 5);
        e.wallclock_us = sqlite3_column_int64(s, 6);
        e.ok = sqlite3_column_type(s, 7) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 7) != 0;
        e.median_inference_us = sqlite3_column_type(s, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 8);
        const void *b = sqlite3_column_blob(s, 9);
        int n = sqlite3_column_bytes(s, 9);
        if (n > 0) {
                e.blob = malloc((size_t) n);
                if (e.blob) {
                        memcpy(e.blob, b, (size_t) n);
                        e.blob_size = (size_t) n;
                } else
                        ok = false;
        }
        e.has_uid = sqlite3_column_type(s, 10) != SQLITE_NULL;
        e.uid = (uint32_t) sqlite3_column_int64(s, 10);
        e.operator = sqlite3_column_int(s, 11) != 0;
        if (!ok) {
                store_event_done(&e);
                return -ENOMEM;
        }
        *ret = e;
        return 0;
}

static int collect(sqlite3_stmt *s, store_event_t **ret_v, size_t *ret_n) {
        store_event_t *v = NULL;
        size_t n = 0, cap = 0;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                if (n == cap) {
                        cap = cap ? 2 * cap : 16;
                        store_event_t *nv = realloc(v, cap * sizeof(*v));
                        if (!nv) {
                                store_event_list_free(v, n);
                                return -ENOMEM;
                        }
                        v = nv;
                }
                int r = event_from_row(s, &v[n]);
                if (r < 0) {
                        store_event_list_free(v, n);
                        return r;
                }
                n++;
        }
        if (rc != SQLITE_DONE) {
                store_event_list_free(v, n);
                return store__errno(rc);
        }
        *ret_v = v;
        *ret_n = n;
        return 0;
}

int store_event_list(store_db_t *db, const store_event_filter_t *filter, store_event_t **ret_v, size_t *ret_n) {
        if (!db || !ret_v || !ret_n)
                return -EINVAL;
        store_event_filter_t all = { 0 };
        const store_event_filter_t *f = filter ? filter : &all;
        if (f->model_sha256 && !acc_sha256_hex_valid(f->model_sha256))
                return -EINVAL;
        if (f->event_type < 0)
                return -EINVAL;

        /* Each filter is a fixed clause with its own parameter number, and
         * an unset one compares its parameter with NULL, so one statement
         * text serves every combination. */
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char sql[640];
        snprintf(sql, sizeof(sql),
                 "SELECT " EVENT_COLUMNS " FROM benchmark_events WHERE "
                 "(?1 IS NULL OR model_sha256 = ?1) AND "
                 "(?2 IS NULL OR settings_key = ?2) AND "
                 "(?3 IS NULL OR event_type = ?3) AND "
                 "(?4 IS NULL OR wallclock_us >= ?4) AND "
                 "(?5 IS NULL OR wallclock_us < ?5) AND "
                 "id > ?6 AND (?8 IS NULL OR uid = ?8 OR (?9 AND (uid IS NULL OR operator = 1))) "
                 "ORDER BY id %s LIMIT ?7",
                 f->newest_first ? "DESC" : "ASC");
        int r = store__prepare(db, sql, &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, f->model_sha256);
        (void) store__bind_text(s, 2, f->settings_key);
        if (f->event_type > 0)
                (void) sqlite3_bind_int(s, 3, f->event_type);
        if (f->has_from)
                (void) sqlite3_bind_int64(s, 4, f->from_us);
        if (f->has_to)
                (void) sqlite3_bind_int64(s, 5, f->to_us);
        (void) sqlite3_bind_int64(s, 6, f->after_id);
        (void) sqlite3_bind_int64(s, 7, f->limit > 0 && f->limit < INT64_MAX ? (int64_t) f->limit : -1);
        if (f->has_uid)
                (void) sqlite3_bind_int64(s, 8, (int64_t) f->uid);
        (void) sqlite3_bind_int(s, 9, f->has_uid && f->with_operators);
        return collect(s, ret_v, ret_n);
}

int store_event_find_orphans(store_db_t *db, int64_t now_us, int64_t timeout_us, store_event_t **ret_v,
                             size_t *ret_n) {
        if (!db || !ret_v || !ret_n || timeout_us < 0)
                return -EINVAL;
        /* A START is answered by the first END/ERROR of the same pair after
         * it, unless another START of that pair comes first. */
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               "SELECT " EVENT_COLUMNS " FROM benchmark_events AS st "
                               "WHERE st.event_type = 1 AND st.wallclock_us < ?1 AND NOT EXISTS ("
                               "  SELECT 1 FROM benchmark_events AS t "
                               "  WHERE t.model_sha256 = st.model_sha256 AND t.settings_key = st.settings_key "
                               "    AND t.id > st.id AND t.event_type IN (2, 3) AND NOT EXISTS ("
                               "      SELECT 1 FROM benchmark_events AS n "
                               "      WHERE n.model_sha256 = st.model_sha256 AND n.settings_key = st.settings_key "
                               "        AND n.event_type = 1 AND n.id > st.id AND n.id < t.id)) "
                               "ORDER BY st.id", &s);
        if (r < 0)
                return r;
        (void) sqlite3_bind_int64(s, 1, now_us - timeout_us);
        return collect(s, ret_v, ret_n);
}

static int count_errors(store_db_t *db, const char *model_sha256, const char *settings_key,
                        const char *driver_version, bool scoped, uint32_t uid) {
        if (!db || !acc_sha256_hex_valid(model_sha256) || !settings_key)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               "SELECT count(*) FROM benchmark_events WHERE model_sha256 = ?1 "
                               "AND settings_key = ?2 AND event_type = 3 "
                               "AND (?3 IS NULL OR driver_version = ?3) "
                               "AND (?4 IS NULL OR uid = ?4 OR uid IS NULL OR operator = 1)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, model_sha256);
        (void) store__bind_text(s, 2, settings_key);
        (void) store__bind_text(s, 3, driver_version);
        if (scoped)
                (void) sqlite3_bind_int64(s, 4, uid);
        int rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return rc == SQLITE_DONE ? -EIO : store__errno(rc);
        int64_t n = sqlite3_column_int64(s, 0);
        return n > INT32_MAX ? INT32_MAX : (int) n;
}

int store_event_count_errors(store_db_t *db, const char *model_sha256, const char *settings_key,
                             const char *driver_version) {
        return count_errors(db, model_sha256, settings_key, driver_version, false, 0);
}

int store_event_count_errors_for(store_db_t *db, const char *model_sha256, const char *settings_key,
                                 const char *driver_version, uint32_t uid) {
        return count_errors(db, model_sha256, settings_key, driver_version, true, uid);
}
