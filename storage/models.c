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

#define MODEL_COLUMNS "sha256, name, size, path, added_at, last_used_at"

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

static int get_by(store_db_t *db, const char *column_sql, const char *key, store_model_t *ret) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, column_sql, &s);
        if (r < 0)
                return r;
        r = store__bind_text(s, 1, key);
        if (r < 0)
                return r;
        int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
                return -ENOENT;
        if (rc != SQLITE_ROW)
                return store__errno(rc);
        return ret ? model_from_row(db, s, ret) : 0;
}

static int get_by_sha(store_db_t *db, const char *sha, store_model_t *ret) {
        return get_by(db, "SELECT " MODEL_COLUMNS " FROM models WHERE sha256 = ?1", sha, ret);
}

static int get_by_name(store_db_t *db, const char *name, store_model_t *ret) {
        return get_by(db, "SELECT " MODEL_COLUMNS " FROM models WHERE name = ?1", name, ret);
}

int store_model_find(store_db_t *db, const char *key, store_model_t *ret) {
        if (!db || !key || !ret)
                return -EINVAL;
        if (acc_sha256_hex_valid(key))
                return get_by_sha(db, key, ret);
        return get_by_name(db, key, ret);
}

static int insert_or_name(store_db_t *db, const char *sha, uint64_t size, const char *rel, const char *name) {
        store_model_t old = { 0 };
        int r = get_by_sha(db, sha, &old);
        if (r == 0) {
                bool same = !name || (old.name && strcmp(old.name, name) == 0);
                bool unnamed = !old.name;
                store_model_done(&old);
                if (same)
                        return 0;
                if (!unnamed)
                        return -EEXIST;
                _cleanup_stmt_ sqlite3_stmt *s = NULL;
                r = store__prepare(db, "UPDATE models SET name = ?2 WHERE sha256 = ?1", &s);
                if (r == 0)
                        r = store__bind_text(s, 1, sha);
                if (r == 0)
                        r = store__bind_text(s, 2, name);
                if (r == 0)
                        r = store__errno(sqlite3_step(s)); /* UNIQUE(name) -> -EEXIST */
                return r;
        }
        if (r != -ENOENT)
                return r;

        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        r = store__prepare(db,
                           "INSERT INTO models (sha256, name, size, path, added_at, last_used_at) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?5)", &s);
        if (r < 0)
                return r;
        (void) store__bind_text(s, 1, sha);
        (void) store__bind_text(s, 2, name);
        (void) sqlite3_bind_int64(s, 3, (sqlite3_int64) size);
        (void) store__bind_text(s, 4, rel);
        (void) sqlite3_bind_int64(s, 5, store__now_us());
        return store__errno(sqlite3_step(s));
}

int store_model_add(store_db_t *db, const void *data, size_t size, const char *name, store_model_t *ret) {
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
        r = insert_or_name(db, sha, size, rel, name);
        if (r == 0)
                r = store__commit(db);
        if (r < 0) {
                store__rollback(db);
                return r;
        }
        if (ret)
                return get_by_sha(db, sha, ret);
        return 0;
}

int store_model_list(store_db_t *db, store_model_t **ret_v, size_t *ret_n) {
        if (!db || !ret_v || !ret_n)
                return -EINVAL;
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "SELECT " MODEL_COLUMNS " FROM models ORDER BY name IS NULL, name, sha256", &s);
        if (r < 0)
                return r;
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
        int r = get_by_sha(db, sha256, &m);
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
