/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model store: model bytes as content-addressed files
 * <state>/models/<sha256>.tflite, one row each. The row's path column is
 * relative to the state directory, so the state can move.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage-internal.h"

/* A model row with the name `?2` gave it (uid ?2's own name), or, when ?3
 * is true and ?2 has none, any owner's (the smallest): names are per uid
 * and live in model_owners. */
#define MODEL_SELECT \
        "SELECT m.sha256, coalesce((SELECT name FROM model_owners WHERE model_sha256 = m.sha256 AND uid = ?2), " \
        "  CASE WHEN ?3 THEN (SELECT min(name) FROM model_owners WHERE model_sha256 = m.sha256) END) AS owner_name, " \
        "  m.size, m.path, m.added_at, m.last_used_at FROM models AS m"

/* Whether `name` is a temporary of store__file_write_atomic(): ".<name>.XXXXXX". */
static bool tmp_name(const char *name) {
        const char *dot = strrchr(name, '.');

        return name[0] == '.' && dot && dot != name && strlen(dot + 1) == 6 && strcmp(name, ".") != 0 &&
               strcmp(name, "..") != 0;
}

int store__tmp_sweep(const char *dir, unsigned *ret_removed) {
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        unsigned removed = 0;
        DIR *d;
        int r = 0;

        if (dfd < 0)
                return errno == ENOENT ? 0 : -errno;
        d = fdopendir(dfd);
        if (!d)
                return -errno;
        dfd = -1;       /* the DIR owns it now */
        for (struct dirent *e; (e = readdir(d));) {
                struct stat st;

                if (!tmp_name(e->d_name))
                        continue;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                /* Left by a write that never finished (a crash, a full
                 * disk): nothing names it, nothing will finish it. */
                if (unlinkat(dirfd(d), e->d_name, 0) < 0)
                        r = -errno;
                else
                        removed++;
        }
        (void) closedir(d);
        if (ret_removed)
                *ret_removed = removed;
        return r;
}

void store_model_done(store_model_t *m) {
        if (!m)
                return;
        free(m->name);
        free(m->path);
        *m = (store_model_t) { 0 };
}

void store_model_list_free(store_model_t *v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                store_model_done(&v[i]);
        free(v);
}

static int name_valid(const char *name) {
        size_t n = strlen(name);
        if (n == 0 || n > STORE_NAME_MAX || strchr(name, '/') || acc_sha256_hex_valid(name))
                return -EINVAL;
        return 0;
}

static int model_from_row(store_db_t *db, sqlite3_stmt *s, store_model_t *ret) {
        bool ok = true;
        store_model_t m = { 0 };
        const unsigned char *sha = sqlite3_column_text(s, 0);
        if (!sha || strlen((const char *) sha) != 64)
                return -EBADMSG;
        memcpy(m.sha256, sha, ACC_SHA256_HEX_SIZE);
        m.name = store__column_strdup(s, 1, &ok);
        m.size = (uint64_t) sqlite3_column_int64(s, 2);
        const unsigned char *rel = sqlite3_column_text(s, 3);
        m.path = rel ? store__path_join(db->state_dir, (const char *) rel) : NULL;
        if (!m.path)
                ok = false;
        m.added_at_us = sqlite3_column_int64(s, 4);
        m.last_used_at_us = sqlite3_column_int64(s, 5);
        if (!ok) {
                store_model_done(&m);
                return -ENOMEM;
        }
        *ret = m;
        return 0;
}

static int get_by(store_db_t *db, const char *sql, const char *key, uint32_t uid, bool any_name,
                  store_model_t *ret) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, sql, &s);
        if (r < 0)
                return r;
        r = store__bind_text(s, 1, key);
        if (r < 0)
                return r;
        (void) sqlite3_bind_int64(s, 2, uid);
        (void) sqlite3_bind_int(s, 3, any_name);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return -ENOENT;
        if (rc != SQLITE_ROW)
                return store__errno(rc);
        return ret ? model_from_row(db, s, ret) : 0;
}

static int get_by_sha(store_db_t *db, const char *sha, uint32_t uid, bool any_name, store_model_t *ret) {
        return get_by(db, MODEL_SELECT " WHERE m.sha256 = ?1", sha, uid, any_name, ret);
}

/* Names are per uid: only uid's own name finds a model. */
static int get_by_name(store_db_t *db, const char *name, uint32_t uid, store_model_t *ret) {
        return get_by(db,
                      MODEL_SELECT " WHERE m.sha256 = (SELECT model_sha256 FROM model_owners WHERE uid = ?2 AND name = ?1)",
                      name, uid, false, ret);
}

/* An operator's name that is not its own: the one model any uid gave that
 * name, when exactly one did. */
static int get_by_any_name(store_db_t *db, const char *name, uint32_t uid, store_model_t *ret) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        char sha[ACC_SHA256_HEX_SIZE];
        int r = store__prepare(db, "SELECT DISTINCT model_sha256 FROM model_owners WHERE name = ?1 LIMIT 2", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, name);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return -ENOENT;
        if (rc != SQLITE_ROW)
                return store__errno(rc);
        snprintf(sha, sizeof(sha), "%s", (const char *) sqlite3_column_text(s, 0));
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
                return -ENOENT; /* ambiguous: names are per uid */
        if (rc != SQLITE_DONE)
                return store__errno(rc);
        return get_by_sha(db, sha, uid, true, ret);
}

int store_model_find_for(store_db_t *db, const char *key, uint32_t uid, bool all, store_model_t *ret) {
        if (!db || !key || !ret)
                return -EINVAL;
        if (!acc_sha256_hex_valid(key)) {
                int r = get_by_name(db, key, uid, ret);
                return r == -ENOENT && all ? get_by_any_name(db, key, uid, ret) : r;
        }
        if (!all) {
                int r = store_model_owned(db, key, uid);
                if (r <= 0)
                        return r < 0 ? r : -ENOENT;
        }
        return get_by_sha(db, key, uid, all, ret);
}

int store_model_find(store_db_t *db, const char *key, store_model_t *ret) {
        return store_model_find_for(db, key, 0, true, ret);
}

/* The uid's owner row: created, or given the name it did not have yet. */
static int owner_name(store_db_t *db, const char *sha, uint32_t uid, const char *name) {
        _cleanup_stmt_ sqlite3_stmt *q = NULL;
        int r = store__prepare(db, "SELECT name FROM model_owners WHERE model_sha256 = ?1 AND uid = ?2", &q);
        if (r < 0)
                return r;
        (void) store__bind_text(q, 1, sha);
        (void) sqlite3_bind_int64(q, 2, uid);
        int rc = sqlite3_step(q);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                return store__errno(rc);
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        if (rc == SQLITE_ROW) {
                const char *old = (const char *) sqlite3_column_text(q, 0);
                if (!name || (old && strcmp(old, name) == 0))
                        return 0;
                if (old)
                        return -EEXIST;
                r = store__prepare(db, "UPDATE model_owners SET name = ?3 WHERE model_sha256 = ?1 AND uid = ?2", &s);
        } else
                r = store__prepare(db, "INSERT INTO model_owners (model_sha256, uid, name) VALUES (?1, ?2, ?3)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha);
        (void) sqlite3_bind_int64(s, 2, uid);
        (void) store__bind_text(s, 3, name);
        return store__errno(sqlite3_step(s)); /* UNIQUE(uid, name) -> -EEXIST */
}

static int insert_row(store_db_t *db, const char *sha, uint64_t size, const char *rel) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               "INSERT OR IGNORE INTO models (sha256, size, path, added_at, last_used_at) "
                               "VALUES (?1, ?2, ?3, ?4, ?4)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha);
        (void) sqlite3_bind_int64(s, 2, (sqlite3_int64) size);
        (void) store__bind_text(s, 3, rel);
        (void) sqlite3_bind_int64(s, 4, store__now_us());
        return store__errno(sqlite3_step(s));
}

static int add(store_db_t *db, const void *data, size_t size, const char *name, bool has_owner, uint32_t uid,
               store_model_t *ret) {
        if (!db || !data || size == 0)
                return -EINVAL;
        if (name && name_valid(name) < 0)
                return -EINVAL;

        char sha[ACC_SHA256_HEX_SIZE];
        acc_sha256_hex(data, size, sha);
        char file[ACC_SHA256_HEX_SIZE + 16], rel[ACC_SHA256_HEX_SIZE + 32];
        snprintf(file, sizeof(file), "%s.tflite", sha);
        snprintf(rel, sizeof(rel), "models/%s", file);

        /* The file first: a row must never name a file that is not there.
         * A crash in between leaves an unreferenced file, which the next add
         * of the same bytes simply replaces. An existing file is rewritten
         * anyway, since it may be the torn or tampered copy. */
        int r = store__file_write_atomic(db->models_dir, file, data, size);
        if (r < 0)
                return r;

        r = store__begin(db);
        if (r < 0)
                return r;
        r = insert_row(db, sha, size, rel);
        if (r == 0 && has_owner)
                r = owner_name(db, sha, uid, name);
        if (r == 0)
                r = store__commit(db);
        if (r < 0) {
                store__rollback(db);
                return r;
        }
        if (ret)
                return get_by_sha(db, sha, uid, false, ret);
        return 0;
}

int store_model_add(store_db_t *db, const void *data, size_t size, const char *name, store_model_t *ret) {
        return add(db, data, size, name, name != NULL, 0, ret);
}

int store_model_add_for(store_db_t *db, const void *data, size_t size, const char *name, uint32_t uid,
                        store_model_t *ret) {
        return add(db, data, size, name, true, uid, ret);
}

int store__model_list(store_db_t *db, bool owned, uint32_t uid, store_model_t **ret_v, size_t *ret_n) {
        if (!db || !ret_v || !ret_n)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db,
                               MODEL_SELECT " WHERE NOT ?4 OR EXISTS (SELECT 1 FROM model_owners "
                               "WHERE model_sha256 = m.sha256 AND uid = ?2) ORDER BY owner_name IS NULL, owner_name, m.sha256", &s);
        if (r < 0)
                return r;
        (void) sqlite3_bind_int64(s, 2, uid);
        (void) sqlite3_bind_int(s, 3, !owned);
        (void) sqlite3_bind_int(s, 4, owned);
        store_model_t *v = NULL;
        size_t n = 0, cap = 0;
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
                if (n == cap) {
                        cap = cap ? 2 * cap : 8;
                        store_model_t *nv = realloc(v, cap * sizeof(*v));
                        if (!nv) {
                                store_model_list_free(v, n);
                                return -ENOMEM;
                        }
                        v = nv;
                }
                r = model_from_row(db, s, &v[n]);
                if (r < 0) {
                        store_model_list_free(v, n);
                        return r;
                }
                n++;
        }
        if (rc != SQLITE_DONE) {
                store_model_list_free(v, n);
                return store__errno(rc);
        }
        *ret_v = v;
        *ret_n = n;
        return 0;
}

int store_model_list(store_db_t *db, store_model_t **ret_v, size_t *ret_n) {
        return store__model_list(db, false, 0, ret_v, ret_n);
}

int store_model_touch(store_db_t *db, const char *sha256) {
        if (!db || !acc_sha256_hex_valid(sha256))
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "UPDATE models SET last_used_at = ?2 WHERE sha256 = ?1", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha256);
        (void) sqlite3_bind_int64(s, 2, store__now_us());
        r = store__errno(sqlite3_step(s));
        if (r < 0)
                return r;
        return sqlite3_changes(db->db) > 0 ? 0 : -ENOENT;
}

int store_model_verify(store_db_t *db, const char *sha256) {
        if (!db || !acc_sha256_hex_valid(sha256))
                return -EINVAL;
        _cleanup_(store_model_done) store_model_t m = { 0 };
        int r = get_by_sha(db, sha256, 0, false, &m);
        if (r < 0)
                return r;
        char got[ACC_SHA256_HEX_SIZE];
        uint64_t size;
        r = store__file_sha256(m.path, got, &size);
        if (r == -ENOENT)
                return -ESTALE;
        if (r < 0)
                return r;
        if (size != m.size || strcmp(got, m.sha256) != 0)
                return -EBADMSG;
        return 0;
}

int store_model_remove(store_db_t *db, const char *key) {
        if (!db || !key)
                return -EINVAL;
        _cleanup_(store_model_done) store_model_t m = { 0 };
        int r = store_model_find(db, key, &m);
        if (r < 0)
                return r;

        r = store__begin(db);
        if (r < 0)
                return r;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        r = store__prepare(db, "DELETE FROM models WHERE sha256 = ?1", &s);
        if (r == 0)
                r = store__bind_text(s, 1, m.sha256);
        if (r == 0)
                r = store__errno(sqlite3_step(s));
        _cleanup_stmt_ sqlite3_stmt *o = NULL;
        if (r == 0)
                r = store__prepare(db, "DELETE FROM model_owners WHERE model_sha256 = ?1", &o);
        if (r == 0)
                r = store__bind_text(o, 1, m.sha256);
        if (r == 0)
                r = store__errno(sqlite3_step(o));
        if (r == 0)
                r = store__commit(db);
        if (r < 0) {
                store__rollback(db);
                return r;
        }

        /* Row first, then files: a crash in between leaves only garbage
         * files, never a row naming a missing file. */
        if (unlink(m.path) < 0 && errno != ENOENT)
                return -errno;
        r = store_cache_remove_model(db, m.sha256);
        return r < 0 ? r : 0;
}
