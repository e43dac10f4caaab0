/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opening the database: pragmas, and the schema as an ordered list of
 * forward migrations keyed by PRAGMA user_version. A step never changes
 * once released; a new schema is a new step appended at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage-internal.h"

/* Version 1: the initial tables. */
static const char schema_v1[] =
        "CREATE TABLE models ("
        "  sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),"
        "  name TEXT UNIQUE,"
        "  size INTEGER NOT NULL,"
        "  path TEXT NOT NULL,"
        "  added_at INTEGER NOT NULL,"
        "  last_used_at INTEGER NOT NULL);"
        "CREATE TABLE benchmark_events ("
        "  id INTEGER PRIMARY KEY,"
        "  model_sha256 TEXT NOT NULL,"
        "  settings_key TEXT NOT NULL,"
        "  event_type INTEGER NOT NULL,"
        "  boottime_us INTEGER NOT NULL,"
        "  wallclock_us INTEGER NOT NULL,"
        "  ok INTEGER,"
        "  blob BLOB NOT NULL);"
        "CREATE INDEX benchmark_events_model_settings ON benchmark_events (model_sha256, settings_key);"
        "CREATE INDEX benchmark_events_type ON benchmark_events (event_type);"
        "CREATE TABLE decisions ("
        "  model_sha256 TEXT NOT NULL,"
        "  preference INTEGER NOT NULL,"
        "  settings_key TEXT NOT NULL,"
        "  settings BLOB NOT NULL,"
        "  reason TEXT NOT NULL,"
        "  driver_versions TEXT NOT NULL,"
        "  decided_at INTEGER NOT NULL,"
        "  PRIMARY KEY (model_sha256, preference));"
        "CREATE TABLE compile_cache ("
        "  token TEXT PRIMARY KEY NOT NULL,"
        "  model_sha256 TEXT NOT NULL,"
        "  settings_key TEXT NOT NULL,"
        "  driver TEXT NOT NULL,"
        "  driver_version TEXT NOT NULL,"
        "  path TEXT NOT NULL,"
        "  size INTEGER NOT NULL,"
        "  checksum TEXT NOT NULL,"
        "  created_at INTEGER NOT NULL);"
        "CREATE INDEX compile_cache_model ON compile_cache (model_sha256);";

/* Version 2: the median inference time and the driver version of each
 * event become columns (selection and crash counting query them), and
 * time-range listing gets its index. */
static const char schema_v2[] =
        "ALTER TABLE benchmark_events ADD COLUMN median_inference_us INTEGER;"
        "ALTER TABLE benchmark_events ADD COLUMN driver_version TEXT;"
        "CREATE INDEX benchmark_events_wallclock ON benchmark_events (wallclock_us);";

/* Version 3: tenants. A stored model belongs to every uid that stored it
 * (the bytes stay shared); an event to the uid whose request made it (NULL
 * for older events and acceld's own, which only operators see). Models
 * stored before belong to root. */
static const char schema_v3[] =
        "ALTER TABLE benchmark_events ADD COLUMN uid INTEGER;"
        "CREATE INDEX benchmark_events_uid ON benchmark_events (uid);"
        "CREATE TABLE model_owners ("
        "  model_sha256 TEXT NOT NULL,"
        "  uid INTEGER NOT NULL,"
        "  PRIMARY KEY (model_sha256, uid));"
        "INSERT INTO model_owners (model_sha256, uid) SELECT sha256, 0 FROM models;";

/* Version 4: evaluation-stage results: one row per stage run
 * (inference diff computed by acceld, top-K or detection reported by a
 * client), per uid like the events (NULL: acceld's own, operators only).
 * `accuracy` is the stage's headline figure (top-1 accuracy, mAP, or the
 * largest mean output error of a diff); the whole ProcessMetrics is kept
 * as proto3 JSON. */
static const char schema_v4[] =
        "CREATE TABLE evaluations ("
        "  id INTEGER PRIMARY KEY,"
        "  model_sha256 TEXT NOT NULL,"
        "  settings_key TEXT NOT NULL,"
        "  stage TEXT NOT NULL,"
        "  source TEXT NOT NULL,"
        "  accuracy REAL,"
        "  samples INTEGER NOT NULL,"
        "  metrics_json TEXT NOT NULL,"
        "  wallclock_us INTEGER NOT NULL,"
        "  uid INTEGER);"
        "CREATE INDEX evaluations_model_settings ON evaluations (model_sha256, settings_key);"
        "CREATE INDEX evaluations_uid ON evaluations (uid);";

/* v1 rows carry their inference times only inside the blob. */
static int backfill_median(store_db_t *db) {
        _cleanup_stmt_ sqlite3_stmt *sel = NULL, *upd = NULL;
        int r = store__prepare(db, "SELECT id, blob FROM benchmark_events WHERE event_type = 2", &sel);
        if (r < 0)
                return r;
        r = store__prepare(db, "UPDATE benchmark_events SET median_inference_us = ?2 WHERE id = ?1", &upd);
        if (r < 0)
                return r;
        int rc;
        while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
                store_event_columns_t c;
                r = store_event_columns_decode(sqlite3_column_blob(sel, 1), (size_t) sqlite3_column_bytes(sel, 1), &c);
                if (r == -EBADMSG)
                        continue; /* an undecodable old row keeps a NULL median */
                if (r < 0)
                        return r;
                int64_t median = c.median_inference_us;
                store_event_columns_done(&c);
                if (median < 0)
                        continue;
                (void) sqlite3_reset(upd);
                (void) sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
                (void) sqlite3_bind_int64(upd, 2, median);
                r = store__errno(sqlite3_step(upd));
                if (r < 0)
                        return r;
        }
        return store__errno(rc);
}

/* v5: readable columns next to the blobs, and views for operators
 * (docs/storage.md, "Views"). Enum names are the seed schema's. */
static const char schema_v5[] =
        "ALTER TABLE benchmark_events ADD COLUMN settings_json TEXT;"
        "ALTER TABLE benchmark_events ADD COLUMN error_stage INTEGER;"
        "ALTER TABLE benchmark_events ADD COLUMN error_exit_code INTEGER;"
        "ALTER TABLE benchmark_events ADD COLUMN error_signal INTEGER;"
        "ALTER TABLE benchmark_events ADD COLUMN error_message TEXT;"
        "ALTER TABLE decisions ADD COLUMN settings_json TEXT;"
        "CREATE VIEW events_readable AS SELECT"
        "  id, model_sha256,"
        "  strftime('%Y-%m-%d %H:%M:%f', wallclock_us / 1e6, 'unixepoch') AS time_utc,"
        "  CASE event_type WHEN 1 THEN 'START' WHEN 2 THEN 'END' WHEN 3 THEN 'ERROR' WHEN 4 THEN 'LOGGED'"
        "    ELSE 'UNDEFINED_BENCHMARK_EVENT_TYPE' END AS type,"
        "  CASE ok WHEN 1 THEN 'yes' WHEN 0 THEN 'no' END AS correct,"
        "  median_inference_us,"
        "  CASE error_stage WHEN 0 THEN 'UNKNOWN' WHEN 1 THEN 'INITIALIZATION' WHEN 2 THEN 'INFERENCE' END"
        "    AS error_stage,"
        "  error_exit_code, error_signal, error_message,"
        "  settings_json, settings_key, driver_version, uid"
        "  FROM benchmark_events;"
        "CREATE VIEW decisions_readable AS SELECT"
        "  model_sha256,"
        "  CASE preference WHEN 0 THEN 'ANY' WHEN 1 THEN 'LOW_LATENCY' WHEN 2 THEN 'LOW_POWER'"
        "    WHEN 3 THEN 'FORCE_CPU' ELSE preference END AS preference,"
        "  settings_json, reason, driver_versions,"
        "  strftime('%Y-%m-%d %H:%M:%S', decided_at / 1e6, 'unixepoch') AS decided_utc,"
        "  settings_key"
        "  FROM decisions;";

/* Fill v5's columns of older rows from their blobs. */
static int backfill_readable(store_db_t *db) {
        _cleanup_stmt_ sqlite3_stmt *sel = NULL, *upd = NULL, *dsel = NULL, *dupd = NULL;
        int r = store__prepare(db, "SELECT id, blob FROM benchmark_events", &sel);
        if (r < 0 || (r = store__prepare(db,
                                         "UPDATE benchmark_events SET settings_json = ?2, error_stage = ?3, "
                                         "error_exit_code = ?4, error_signal = ?5 WHERE id = ?1",
                                         &upd)) < 0)
                return r;
        int rc;
        while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
                store_event_columns_t c;
                r = store_event_columns_decode(sqlite3_column_blob(sel, 1), (size_t) sqlite3_column_bytes(sel, 1), &c);
                if (r == -EBADMSG)
                        continue;
                if (r < 0)
                        return r;
                (void) sqlite3_reset(upd);
                (void) sqlite3_clear_bindings(upd);
                (void) sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
                (void) store__bind_text(upd, 2, c.settings_json);
                if (c.error_stage >= 0)
                        (void) sqlite3_bind_int(upd, 3, c.error_stage);
                if (c.error_exit_code >= 0)
                        (void) sqlite3_bind_int(upd, 4, c.error_exit_code);
                if (c.error_signal >= 0)
                        (void) sqlite3_bind_int(upd, 5, c.error_signal);
                r = store__errno(sqlite3_step(upd));
                store_event_columns_done(&c);
                if (r < 0)
                        return r;
        }
        if ((r = store__errno(rc)) < 0)
                return r;
        if ((r = store__prepare(db, "SELECT rowid, settings FROM decisions", &dsel)) < 0 ||
            (r = store__prepare(db, "UPDATE decisions SET settings_json = ?2 WHERE rowid = ?1", &dupd)) < 0)
                return r;
        while ((rc = sqlite3_step(dsel)) == SQLITE_ROW) {
                char *json = NULL;
                if (store_settings_json(sqlite3_column_blob(dsel, 1), (size_t) sqlite3_column_bytes(dsel, 1),
                                        &json) < 0)
                        continue;
                (void) sqlite3_reset(dupd);
                (void) sqlite3_bind_int64(dupd, 1, sqlite3_column_int64(dsel, 0));
                (void) store__bind_text(dupd, 2, json);
                r = store__errno(sqlite3_step(dupd));
                free(json);
                if (r < 0)
                        return r;
        }
        return store__errno(rc);
}

/* v6: ownership everywhere (issue 21). Names become per uid: they move
 * from models (one global namespace) to model_owners, so each uid names its
 * models as it likes and never reaches another's by name. A model with a
 * name but no owner row gets root as its owner; a name goes to every uid
 * that owned the model (each could use it before). Events and evaluations
 * get `operator` (recorded by root or the operators group): selection for
 * a uid weighs its own rows and the operators' only; old rows of root or
 * without a uid are the operators'. Decisions are per uid (uid 0 holds the
 * operators' decision, the fallback of every uid); old decisions become
 * root's. */
static const char schema_v6[] =
        "ALTER TABLE model_owners ADD COLUMN name TEXT;"
        "INSERT OR IGNORE INTO model_owners (model_sha256, uid)"
        "  SELECT sha256, 0 FROM models WHERE sha256 NOT IN (SELECT model_sha256 FROM model_owners);"
        "UPDATE model_owners SET name = (SELECT name FROM models WHERE models.sha256 = model_owners.model_sha256);"
        "CREATE UNIQUE INDEX model_owners_name ON model_owners (uid, name);"
        "CREATE TABLE models_v6 ("
        "  sha256 TEXT PRIMARY KEY NOT NULL CHECK (length(sha256) = 64),"
        "  size INTEGER NOT NULL,"
        "  path TEXT NOT NULL,"
        "  added_at INTEGER NOT NULL,"
        "  last_used_at INTEGER NOT NULL);"
        "INSERT INTO models_v6 SELECT sha256, size, path, added_at, last_used_at FROM models;"
        "DROP TABLE models;"
        "ALTER TABLE models_v6 RENAME TO models;"
        "ALTER TABLE benchmark_events ADD COLUMN operator INTEGER NOT NULL DEFAULT 0;"
        "UPDATE benchmark_events SET operator = 1 WHERE uid IS NULL OR uid = 0;"
        "ALTER TABLE evaluations ADD COLUMN operator INTEGER NOT NULL DEFAULT 0;"
        "UPDATE evaluations SET operator = 1 WHERE uid IS NULL OR uid = 0;"
        "DROP VIEW decisions_readable;"
        "CREATE TABLE decisions_v6 ("
        "  model_sha256 TEXT NOT NULL,"
        "  preference INTEGER NOT NULL,"
        "  uid INTEGER NOT NULL,"
        "  settings_key TEXT NOT NULL,"
        "  settings BLOB NOT NULL,"
        "  reason TEXT NOT NULL,"
        "  driver_versions TEXT NOT NULL,"
        "  decided_at INTEGER NOT NULL,"
        "  settings_json TEXT,"
        "  PRIMARY KEY (model_sha256, preference, uid));"
        "INSERT INTO decisions_v6 SELECT model_sha256, preference, 0, settings_key, settings, reason,"
        "  driver_versions, decided_at, settings_json FROM decisions;"
        "DROP TABLE decisions;"
        "ALTER TABLE decisions_v6 RENAME TO decisions;"
        "CREATE VIEW decisions_readable AS SELECT"
        "  model_sha256, uid,"
        "  CASE preference WHEN 0 THEN 'ANY' WHEN 1 THEN 'LOW_LATENCY' WHEN 2 THEN 'LOW_POWER'"
        "    WHEN 3 THEN 'FORCE_CPU' ELSE preference END AS preference,"
        "  settings_json, reason, driver_versions,"
        "  strftime('%Y-%m-%d %H:%M:%S', decided_at / 1e6, 'unixepoch') AS decided_utc,"
        "  settings_key"
        "  FROM decisions;";

static const struct migration {
        int version;
        const char *sql;
        int (*fixup)(store_db_t *db); /* data changes SQL alone cannot do */
} migrations[] = {
        { 1, schema_v1, NULL },
        { 2, schema_v2, backfill_median },
        { 3, schema_v3, NULL },
        { 4, schema_v4, NULL },
        { 5, schema_v5, backfill_readable },
        { 6, schema_v6, NULL },
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == STORE_SCHEMA_VERSION,
               "one migration per schema version");

__attribute__((format(printf, 4, 5)))
static int fail(int r, char *err, size_t err_size, const char *fmt, ...) {
        if (err && err_size) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(err, err_size, fmt, ap);
                va_end(ap);
        }
        return r;
}

static int read_version(store_db_t *db) {
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        int r = store__prepare(db, "PRAGMA user_version", &s);
        if (r < 0)
                return r;
        int rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
                return rc == SQLITE_DONE ? -EIO : store__errno(rc);
        return sqlite3_column_int(s, 0);
}

int store_db_schema_version(store_db_t *db) {
        if (!db)
                return -EINVAL;
        return read_version(db);
}

const char *store_db_state_dir(store_db_t *db) {
        return db ? db->state_dir : NULL;
}

static int migrate(store_db_t *db, char *err, size_t err_size) {
        int v = read_version(db);
        if (v < 0)
                return fail(v, err, err_size, "cannot read the schema version: %s", sqlite3_errmsg(db->db));
        if (v > STORE_SCHEMA_VERSION)
                return fail(-EPROTONOSUPPORT, err, err_size,
                            "database schema version %d is newer than this acceld supports (%d)",
                            v, STORE_SCHEMA_VERSION);

        for (size_t i = 0; i < ELEMENTSOF(migrations); i++) {
                const struct migration *m = &migrations[i];
                if (m->version <= v)
                        continue;
                int r = store__begin(db);
                if (r < 0)
                        return fail(r, err, err_size, "cannot lock the database: %s", sqlite3_errmsg(db->db));
                /* Another process may have migrated while we waited for the lock. */
                int now = read_version(db);
                if (now < 0 || now >= m->version) {
                        store__rollback(db);
                        if (now < 0)
                                return fail(now, err, err_size, "cannot read the schema version");
                        v = now;
                        continue;
                }
                r = store__exec(db->db, m->sql);
                if (r == 0 && m->fixup)
                        r = m->fixup(db);
                if (r == 0) {
                        char pragma[64];
                        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", m->version);
                        r = store__exec(db->db, pragma);
                }
                if (r == 0)
                        r = store__commit(db);
                if (r < 0) {
                        int saved = r;
                        (void) fail(r, err, err_size, "migration to schema version %d failed: %s",
                                    m->version, sqlite3_errmsg(db->db));
                        store__rollback(db);
                        return saved;
                }
                v = m->version;
        }
        return 0;
}

/* The state is acceld's alone (docs/architecture.md, "Tenants"): clients
 * reach it only through requests. Folders are 0700 and files 0600, and
 * what an older acceld (or a packaged 0750 StateDirectory) left readable
 * to the group is narrowed here at every open. */
static int make_private(const char *path, mode_t keep) {
        struct stat st;
        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISLNK(st.st_mode) || (st.st_mode & 077) == 0 || st.st_uid != geteuid())
                return 0;
        return chmod(path, st.st_mode & keep) < 0 ? -errno : 0;
}

static int make_dir(const char *path) {
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
                return -errno;
        struct stat st;
        if (stat(path, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        int r = make_private(path, 0700);
        if (r < 0)
                return r;
        /* Files an older acceld wrote 0640. */
        DIR *d = opendir(path);
        if (!d)
                return -errno;
        struct dirent *e;
        while ((e = readdir(d))) {
                if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
                        continue;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                    (st.st_mode & 077) && st.st_uid == geteuid())
                        (void) fchmodat(dirfd(d), e->d_name, st.st_mode & 0600, 0);
        }
        (void) closedir(d);
        return 0;
}

/* The database and its WAL and shared-memory files (SQLite gives new WAL
 * files the database file's mode). */
static int db_files_private(const char *path) {
        static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                _cleanup_free_ char *p = NULL;
                if (asprintf(&p, "%s%s", path, suffixes[i]) < 0)
                        return -ENOMEM;
                int r = make_private(p, 0600);
                if (r < 0)
                        return r;
        }
        return 0;
}

store_db_t *store_db_close(store_db_t *db) {
        if (!db)
                return NULL;
        /* close_v2 so that a statement leaked by a bug cannot keep the
         * handle (and its file descriptors) alive forever. */
        (void) sqlite3_close_v2(db->db);
        free(db->state_dir);
        free(db->models_dir);
        free(db->cache_dir);
        free(db);
        return NULL;
}

DEFINE_POINTER_CLEANUP(store_db_t, store_db_close)

int store_db_open(const char *state_dir, store_db_t **ret, char *err, size_t err_size) {
        if (!state_dir || !*state_dir || !ret)
                return fail(-EINVAL, err, err_size, "no state directory given");

        struct stat st;
        if (stat(state_dir, &st) < 0)
                return fail(-errno, err, err_size, "state directory %s: %s", state_dir, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return fail(-ENOTDIR, err, err_size, "state directory %s is not a directory", state_dir);

        _cleanup_(store_db_closep) store_db_t *db = calloc(1, sizeof(*db));
        if (!db)
                return -ENOMEM;
        db->state_dir = strdup(state_dir);
        db->models_dir = store__path_join(state_dir, "models");
        db->cache_dir = store__path_join(state_dir, "cache");
        _cleanup_free_ char *path = store__path_join(state_dir, "acceld.db");
        if (!db->state_dir || !db->models_dir || !db->cache_dir || !path)
                return -ENOMEM;

        int r = make_dir(db->models_dir);
        if (r == 0)
                r = make_dir(db->cache_dir);
        if (r < 0)
                return fail(r, err, err_size, "cannot create the store folders in %s: %s", state_dir, strerror(-r));
        /* This handle is the store's only writer from here on. */
        (void) store__tmp_sweep(db->models_dir, NULL);
        (void) store__tmp_sweep(db->cache_dir, NULL);

        /* NOMUTEX: one thread owns the handle (the storage thread). */
        int rc = sqlite3_open_v2(path, &db->db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return fail(store__errno(rc), err, err_size, "cannot open %s: %s", path,
                            db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc));
        r = db_files_private(path);
        if (r < 0)
                return fail(r, err, err_size, "cannot make %s private: %s", path, strerror(-r));
        (void) sqlite3_extended_result_codes(db->db, 1);
        (void) sqlite3_busy_timeout(db->db, 5000);

        /* WAL: readers never block the writer, and a commit is one append.
         * synchronous=FULL: the WAL is fsynced at every commit, so a
         * committed (acknowledged) event survives power loss, not only a
         * crash of the daemon. See docs/storage.md. */
        _cleanup_stmt_ sqlite3_stmt *s = NULL;
        r = store__prepare(db, "PRAGMA journal_mode = WAL", &s);
        if (r == 0) {
                rc = sqlite3_step(s);
                const unsigned char *mode = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
                if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                        r = store__errno(rc);
                else if (!mode || strcmp((const char *) mode, "wal") != 0)
                        r = -EIO;
        }
        if (r < 0)
                return fail(r, err, err_size, "cannot switch %s to WAL mode: %s", path, sqlite3_errmsg(db->db));
        sqlite3_finalize(TAKE_PTR(s));

        r = store__exec(db->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
        if (r < 0)
                return fail(r, err, err_size, "cannot set pragmas on %s: %s", path, sqlite3_errmsg(db->db));

        r = migrate(db, err, err_size);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(db);
        return 0;
}
