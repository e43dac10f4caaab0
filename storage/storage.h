/* SPDX-License-Identifier: Apache-2.0 */
/*
 * storage: acceld's persistent state in one SQLite database,
 * <state>/acceld.db, plus content-addressed files under <state>/models/ and
 * <state>/cache/. See docs/storage.md for the schema and the durability
 * contract.
 *
 * Threading: a store_db_t is used by one thread at a time. In the daemon
 * that thread is the storage thread (store_thread_*), never the libuv loop;
 * tests and the benchmark worker may use the synchronous functions directly.
 * store_settings_key*() are pure and thread-safe (as common/sha256.h is).
 *
 * Errors: every function returns 0 (or a count) on success and a negative
 * errno on failure; SQLite result codes never leave the module. Output
 * parameters are written only on success. The module does not log.
 * Common codes: -EINVAL bad argument, -ENOENT no such row, -ENOMEM,
 * -EIO an SQLite or file I/O failure, -EBUSY the database is locked by
 * another process beyond the busy timeout, -EBADMSG corrupt data (bad
 * protobuf blob, checksum mismatch), -ESTALE an entry that no longer
 * matches what it describes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acceleration.pb-c.h"
#include "sha256.h"

/* The schema version this build writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 6

/* Longest model name and cache token, in bytes. */
#define STORE_NAME_MAX 255
#define STORE_TOKEN_MAX 256

/* Default bound of the storage thread's job queue. */
#define STORE_QUEUE_DEFAULT 256

typedef struct store_db store_db_t;
typedef struct store_thread store_thread_t;

/* ---- Canonical settings keys (settings-key.c) -------------------------- */

/*
 * The canonical string of a TFLiteSettings: every field that is set,
 * recursively, in field-number order, as "path=value" joined by ';', e.g.
 *   "delegate=XNNPACK;xnnpack_settings.num_threads=2"
 * Enums print by name, bools as true/false, strings percent-encoded outside
 * [A-Za-z0-9._-], repeated fields as path[i]=..., a present but empty
 * sub-message as path={}, unknown fields as #<number>=<hex bytes>. Unset
 * settings (NULL or nothing set) give "". Equal settings give equal keys.
 * *ret is a malloc'ed string the caller frees.
 * Returns 0, -EINVAL (NULL ret) or -ENOMEM.
 */
int store_settings_key(const Tflite__Proto__TFLiteSettings *settings, char **ret);

/* The same for serialized TFLiteSettings bytes. -EBADMSG if they do not
 * decode. */
int store_settings_key_from_bytes(const void *data, size_t size, char **ret);

/* ---- Database (db.c) --------------------------------------------------- */

/*
 * Open (creating if needed) <state_dir>/acceld.db and the models/ and cache/
 * folders below state_dir (state_dir must exist). Sets WAL mode,
 * synchronous=FULL, foreign_keys=ON and a busy timeout, then migrates an
 * older schema forward, one transaction per step.
 * On failure a one-line reason is written to err (may be NULL).
 * Returns 0 and *ret (free with store_db_close()), -EINVAL,
 * -EPROTONOSUPPORT (the file has a newer schema than this build knows),
 * -ENOTDIR/-ENOENT/-EACCES from the state directory, -EIO, -EBUSY, -ENOMEM.
 */
int store_db_open(const char *state_dir, store_db_t **ret, char *err, size_t err_size);

/* Close the database. NULL is a no-op. Returns NULL. */
store_db_t *store_db_close(store_db_t *db);

/* The open file's PRAGMA user_version (STORE_SCHEMA_VERSION after open).
 * Returns >= 0 or -errno. */
int store_db_schema_version(store_db_t *db);

/* The state directory the database was opened in. Owned by db. */
const char *store_db_state_dir(store_db_t *db);

/* ---- Model store (models.c) ------------------------------------------- */

/*
 * Models and their owners (docs/storage.md, "Tenants"). The bytes are
 * stored once per SHA-256 and shared; each uid that stored them has an
 * owner row (model_owners) with its own optional name. Names are per uid:
 * two uids may use one name for different models, and a name finds only
 * the model its uid gave it. uid 0 (root) stands for the operators.
 */
typedef struct store_model {
        char sha256[ACC_SHA256_HEX_SIZE];
        char *name;             /* owned, NULL if unnamed: the name of the uid it was looked up for */
        uint64_t size;
        char *path;             /* owned: <state>/models/<sha256>.tflite */
        int64_t added_at_us;    /* CLOCK_REALTIME, microseconds */
        int64_t last_used_at_us;
} store_model_t;

/* Free what m owns and zero it. NULL-safe. */
void store_model_done(store_model_t *m);

/* Free an array returned by store_model_list(). NULL-safe. */
void store_model_list_free(store_model_t *v, size_t n);

/*
 * Store model bytes for uid (content-addressed: temp file, fsync, rename,
 * fsync of the folder, then the rows) and make uid an owner. Adding the
 * same bytes again is idempotent; a name given then is set if uid had
 * none for the model. name may be NULL; it must be 1..STORE_NAME_MAX
 * bytes, without '/', and not look like a SHA-256 (so a lookup key is
 * never ambiguous). ret may be NULL; else it receives the row with uid's
 * name (store_model_done() it).
 * Returns 0, -EINVAL (size 0, bad name), -EEXIST (uid uses the name for
 * another model, or named this one differently), -EIO, -ENOSPC, -ENOMEM.
 */
int store_model_add_for(store_db_t *db, const void *data, size_t size, const char *name, uint32_t uid,
                        store_model_t *ret);

/* The bytes alone (no owner) when name is NULL, else store_model_add_for()
 * as root. For the compilation cache, tools and tests. */
int store_model_add(store_db_t *db, const void *data, size_t size, const char *name, store_model_t *ret);

/*
 * Look up a model for uid: by SHA-256 hex, one uid owns (any stored model
 * when `all`: an operator), or by one of uid's own names. With `all`, a
 * name uid does not use finds the model another uid gave it when exactly
 * one model has that name (-ENOENT when several do: names are per uid).
 * ret->name is uid's name (with `all`, any owner's when uid has none).
 * -ENOENT for a model uid may not see, exactly as for one that does not
 * exist. Returns 0, -EINVAL, -ENOENT.
 */
int store_model_find_for(store_db_t *db, const char *sha256_or_name, uint32_t uid, bool all, store_model_t *ret);

/* store_model_find_for() as root with `all`. */
int store_model_find(store_db_t *db, const char *sha256_or_name, store_model_t *ret);

/* All models, ordered by name then sha256 (named as root names them, else
 * by any owner's name). *ret_v may be NULL when *ret_n is 0. Returns 0,
 * -EINVAL, -ENOMEM, -EIO. */
int store_model_list(store_db_t *db, store_model_t **ret_v, size_t *ret_n);

/* ---- Owners (owners.c): which uids stored a model ---------------------- */

/* Record that uid stored the model, without a name (idempotent). 0,
 * -EINVAL, -EIO. */
int store_model_own(store_db_t *db, const char *sha256, uint32_t uid);

/* 1 when uid owns the model, 0 when not, or -errno. */
int store_model_owned(store_db_t *db, const char *sha256, uint32_t uid);

/* The models uid owns, with uid's names, as store_model_list(). */
int store_model_list_owned(store_db_t *db, uint32_t uid, store_model_t **ret_v, size_t *ret_n);

/*
 * uid gives up the model (by sha256 or uid's name); the bytes go when no
 * owner is left (store_model_remove()). -ENOENT when uid does not own it, so a
 * uid cannot learn of or remove another's model.
 */
int store_model_disown(store_db_t *db, const char *sha256_or_name, uint32_t uid);

/* Set the uid an event belongs to (operator: recorded by root or the
 * operators group, which every uid's selection weighs).
 * 0, -EINVAL, -ENOENT, -EIO. */
int store_event_set_owner(store_db_t *db, int64_t id, uint32_t uid, bool operator);

/* store_event_set_owner() with operator = (uid == 0). */
int store_event_set_uid(store_db_t *db, int64_t id, uint32_t uid);

/* Set last_used_at to now. Returns 0, -EINVAL, -ENOENT. */
int store_model_touch(store_db_t *db, const char *sha256);

/* Re-hash the stored file and compare with its sha256 and size.
 * Returns 0, -ENOENT (no such model), -ESTALE (the file is gone),
 * -EBADMSG (the bytes differ), -EIO. */
int store_model_verify(store_db_t *db, const char *sha256);

/*
 * Remove a model (by sha256 or root's name) for every owner: its rows, its file, and its
 * compilation-cache entries and their files. Events and decisions are
 * history and stay. Returns 0, -EINVAL, -ENOENT, -EIO.
 */
int store_model_remove(store_db_t *db, const char *sha256_or_name);

/* ---- Benchmark events (events.c) -------------------------------------- */

typedef struct store_event {
        int64_t id;
        char model_sha256[ACC_SHA256_HEX_SIZE];
        char *settings_key;     /* owned */
        char *driver_version;   /* owned, NULL if not recorded */
        int event_type;         /* Tflite__Proto__BenchmarkEventType */
        int64_t boottime_us;
        int64_t wallclock_us;
        int ok;                 /* 1, 0, or -1 when the event has no ok */
        int64_t median_inference_us; /* -1 when there are no inference times */
        uint8_t *blob;          /* owned: the full BenchmarkEvent bytes */
        size_t blob_size;
        bool has_uid;           /* false: acceld's own (operators') */
        uint32_t uid;
        bool operator;          /* recorded by root or the operators group */
} store_event_t;

/* Free what e owns and zero it; free a list from store_event_list() or
 * store_event_find_orphans(). Both NULL-safe. */
void store_event_done(store_event_t *e);
void store_event_list_free(store_event_t *v, size_t n);

/* The columns decoded from a BenchmarkEvent blob (what insert indexes). */
typedef struct store_event_columns {
        int event_type;
        bool has_boottime, has_wallclock;
        int64_t boottime_us, wallclock_us;
        int ok;                 /* 1, 0, -1 = absent */
        int64_t median_inference_us; /* -1 = no inference times */
        char *settings_key;     /* owned; "" when the event has no settings */
        char *settings_json;    /* owned; the settings as JSON, "{}" when none */
        int error_stage;        /* BenchmarkError's, -1 = no error */
        int error_exit_code;    /* -1 = none */
        int error_signal;       /* -1 = none */
} store_event_columns_t;

/* Free what c owns and zero it. NULL-safe. */
void store_event_columns_done(store_event_columns_t *c);

/* Attach a readable message to event `id` (an ERROR's reason: the crash,
 * the signal, the kernel's sentence), for the events_readable view.
 * 0, -ENOENT, -errno. */
int store_event_set_message(store_db_t *db, int64_t id, const char *message);

/* Any protobuf-c message as JSON (proto field names, enum value names,
 * bytes in hex, unset fields left out). *ret is malloc'ed. 0 or -ENOMEM. */
int store_message_json(const ProtobufCMessage *m, char **ret);
/* A serialized TFLiteSettings as JSON; "{}" for an empty blob. 0,
 * -EBADMSG, -ENOMEM. */
int store_settings_json(const void *blob, size_t size, char **ret);

/*
 * Decode a serialized tflite.proto.BenchmarkEvent into the indexed columns.
 * The median of an even number of inference times is the mean of the two
 * middle ones (rounded down). Returns 0, -EINVAL, -EBADMSG (does not
 * decode, or has no event_type), -ENOMEM.
 */
int store_event_columns_decode(const void *blob, size_t size, store_event_columns_t *ret);

/*
 * Append an event. The indexed columns come from the blob; settings_key
 * NULL means the canonical key of the blob's tflite_settings; a blob
 * without wallclock_us/boottime_us gets the current clocks in the columns
 * (the blob is stored unchanged). driver_version (may be NULL) is the
 * version of the driver that ran the settings, for crash counting.
 * Returns 0 with *ret_id (may be NULL) once the transaction has committed
 * with synchronous=FULL, i.e. the event is durable: that is the
 * acknowledgement. -EINVAL (bad sha256), -EBADMSG (bad blob), -EIO, -EBUSY.
 */
int store_event_insert(store_db_t *db, const char *model_sha256, const char *settings_key,
                       const char *driver_version, const void *blob, size_t size, int64_t *ret_id);

typedef struct store_event_filter {
        const char *model_sha256;   /* NULL: any */
        const char *settings_key;   /* NULL: any */
        int event_type;             /* 0 (UNDEFINED): any */
        bool has_from, has_to;      /* wallclock_us in [from_us, to_us) */
        int64_t from_us, to_us;
        int64_t after_id;           /* only ids > after_id (paging); 0: all */
        size_t limit;               /* 0: no limit */
        bool newest_first;          /* order by id descending */
        bool has_uid;               /* only the events of uid */
        uint32_t uid;
        bool with_operators;        /* with has_uid: and the operators' (operator set, or no uid) */
} store_event_filter_t;

/* Events matching every set filter, ordered by id. filter NULL = all.
 * Returns 0, -EINVAL, -ENOMEM, -EIO. */
int store_event_list(store_db_t *db, const store_event_filter_t *filter, store_event_t **ret_v, size_t *ret_n);

/*
 * START events that have no END or ERROR for the same model and settings
 * after them (before the next START of that pair) and whose wallclock_us is
 * older than now_us - timeout_us: runs that died with the daemon. The
 * caller records an ERROR for each (which resolves it).
 * Returns 0, -EINVAL, -ENOMEM, -EIO.
 */
int store_event_find_orphans(store_db_t *db, int64_t now_us, int64_t timeout_us, store_event_t **ret_v, size_t *ret_n);

/*
 * The number of ERROR events for model+settings. driver_version NULL counts
 * all of them; else only those recorded with that driver version (so a new
 * driver version starts from zero). Returns >= 0 or -EINVAL, -EIO.
 */
int store_event_count_errors(store_db_t *db, const char *model_sha256, const char *settings_key,
                             const char *driver_version);

/* The same, counting only the ERRORs uid and the operators recorded (uid
 * 0: the operators' and acceld's own alone), so that one tenant's failed
 * runs (a timeout it chose, say) never get a setting skipped or
 * quarantined for another. */
int store_event_count_errors_for(store_db_t *db, const char *model_sha256, const char *settings_key,
                                 const char *driver_version, uint32_t uid);

/* ---- Evaluations (evaluations.c): evaluation-stage results ------------ */

/* Stages by the name stored in the `stage` column. */
#define STORE_STAGE_DIFF "inference_diff"
#define STORE_STAGE_TOPK "topk"
#define STORE_STAGE_DETECTION "detection"

typedef struct store_evaluation {
        int64_t id;
        char model_sha256[ACC_SHA256_HEX_SIZE];
        char *settings_key;     /* owned: the instance's canonical settings */
        char *stage;            /* owned: STORE_STAGE_* */
        char *source;           /* owned: "acceld" (computed by the daemon) or "client" */
        bool has_accuracy;
        double accuracy;        /* top-1 accuracy, mAP, or a diff's largest mean output error */
        int64_t samples;        /* runs or images */
        char *metrics_json;     /* owned: ProcessMetrics, proto3 JSON */
        int64_t wallclock_us;
        bool has_uid;           /* false: acceld's own (operators only) */
        uint32_t uid;
        bool operator;          /* recorded by root or the operators group */
} store_evaluation_t;

void store_evaluation_done(store_evaluation_t *e);
void store_evaluation_list_free(store_evaluation_t *v, size_t n);

/* Insert a row (id and, when 0, wallclock_us are set here; *ret_id may be
 * NULL). 0, -EINVAL (a missing field or a bad sha256) or -errno. */
int store_evaluation_insert(store_db_t *db, const store_evaluation_t *e, int64_t *ret_id);

typedef struct store_evaluation_filter {
        const char *model_sha256;   /* NULL: any */
        const char *settings_key;   /* NULL: any */
        const char *stage;          /* NULL: any */
        int64_t after_id;           /* only ids > after_id; 0: all */
        size_t limit;               /* 0: no limit */
        bool has_uid;               /* only the rows of uid */
        uint32_t uid;
        bool with_operators;        /* with has_uid: and the operators' (operator set, or no uid) */
} store_evaluation_filter_t;

/* Rows matching `filter` (NULL: all), oldest first. */
int store_evaluation_list(store_db_t *db, const store_evaluation_filter_t *filter, store_evaluation_t **ret_v,
                          size_t *ret_n);

/*
 * The latest recorded accuracy of a stage for model + settings, from any
 * uid (for operators and tests: selection reads a uid's rows and the
 * operators' with store_evaluation_list()). 0 with *ret set, -ENOENT when
 * none has an accuracy, or -errno.
 */
int store_evaluation_latest_accuracy(store_db_t *db, const char *model_sha256, const char *settings_key,
                                     const char *stage, double *ret);

/* ---- Decisions (decisions.c) ------------------------------------------ */

/* A decision belongs to one uid: the settings its prepares without
 * settings get. uid 0 holds the operators' decision, made from their
 * records alone; the daemon falls back to it for a uid without its own. */
typedef struct store_decision {
        char model_sha256[ACC_SHA256_HEX_SIZE];
        int preference;         /* Tflite__Proto__ExecutionPreference */
        uint32_t uid;
        char *settings_key;     /* owned */
        uint8_t *settings;      /* owned: serialized TFLiteSettings */
        size_t settings_size;
        char *reason;           /* owned */
        char *driver_versions;  /* owned: e.g. "reference=1;xnnpack=0.0.1" */
        int64_t decided_at_us;
} store_decision_t;

/* Free what d owns and zero it (for a decision from store_decision_get()).
 * NULL-safe. */
void store_decision_done(store_decision_t *d);

/*
 * Insert or replace the decision for (model, preference, uid). settings may be
 * empty (size 0, the default settings); reason and driver_versions may be
 * NULL (stored as ""). decided_at_us 0 means now.
 * Returns 0, -EINVAL, -EIO.
 */
int store_decision_put(store_db_t *db, const store_decision_t *d);

/* uid's decision, exactly (no fallback). Returns 0, -EINVAL, -ENOENT. */
int store_decision_get(store_db_t *db, const char *model_sha256, int preference, uint32_t uid,
                       store_decision_t *ret);

/* Delete the decision for (model, preference, uid): every preference's if
 * preference < 0, every uid's if uid < 0. Returns the number deleted, or
 * -EINVAL/-EIO. */
int store_decision_delete(store_db_t *db, const char *model_sha256, int preference, int64_t uid);

/* The uids with a decision for the model, ascending (*ret_v malloc'ed,
 * may be NULL when *ret_n is 0). 0, -EINVAL, -ENOMEM, -EIO. */
int store_decision_uids(store_db_t *db, const char *model_sha256, uint32_t **ret_v, size_t *ret_n);

/* Delete every decision not made under exactly these driver versions.
 * Returns the number deleted, or -EINVAL, -EIO. */
int store_decision_invalidate(store_db_t *db, const char *driver_versions);

/* ---- Compilation cache index (cache.c) -------------------------------- */

/* What a cache entry was made for. All fields required, token
 * 1..STORE_TOKEN_MAX bytes (an opaque client token, NNAPI style; the
 * daemon should prefix it with the client's uid). */
typedef struct store_cache_key {
        const char *token;
        const char *model_sha256;
        const char *settings_key;
        const char *driver;
        const char *driver_version;
} store_cache_key_t;

typedef struct store_cache_entry {
        char *token;
        char model_sha256[ACC_SHA256_HEX_SIZE];
        char *settings_key;
        char *driver;
        char *driver_version;
        char *path;             /* <state>/cache/<sha256 of token>.bin */
        uint64_t size;
        char checksum[ACC_SHA256_HEX_SIZE]; /* SHA-256 of the file */
        int64_t created_at_us;
} store_cache_entry_t;

/* Free what e owns and zero it. NULL-safe. */
void store_cache_entry_done(store_cache_entry_t *e);

/*
 * Store (replacing any previous entry for the token) the compiled blob
 * data[0..size) for key: the file is written atomically, then the row with
 * its size and SHA-256. Returns 0, -EINVAL, -EIO, -ENOSPC.
 */
int store_cache_put(store_db_t *db, const store_cache_key_t *key, const void *data, size_t size);

/*
 * Find the entry for key->token and check it before anyone trusts it:
 * -ENOENT no entry; -ESTALE the entry was made for another model, settings,
 * driver or driver version, or its file is gone; -EBADMSG the file's size
 * or SHA-256 differs from the index (tampered or torn). On 0, *ret_data
 * (malloc'ed, caller frees) and *ret_size hold the verified bytes, and
 * ret_entry (may be NULL) the row. A caller that gets -ESTALE or -EBADMSG
 * rebuilds and calls store_cache_put().
 */
int store_cache_get(store_db_t *db, const store_cache_key_t *key, store_cache_entry_t *ret_entry,
                    void **ret_data, size_t *ret_size);

/* Remove the entry for token and its file. Returns 0, -EINVAL, -ENOENT. */
int store_cache_remove(store_db_t *db, const char *token);

/* Remove every entry of a model. Returns the number removed or -errno. */
int store_cache_remove_model(store_db_t *db, const char *model_sha256);

/* ---- The storage thread (thread.c) ------------------------------------ */

/* Runs on the storage thread with its database; returns 0 or -errno. */
typedef int (*store_job_fn)(store_db_t *db, void *userdata);
/* Runs on the storage thread right after the job, with the job's result.
 * Every accepted job runs, even during stop. May be NULL. */
typedef void (*store_done_fn)(int result, void *userdata);

/*
 * Start the storage thread; it opens the database (as store_db_open())
 * itself, so the sqlite3 handle never leaves it, and this call waits for
 * the open to finish. The thread runs with all signals blocked.
 * queue_max bounds the jobs waiting (0: STORE_QUEUE_DEFAULT).
 * Returns 0 and *ret, or the open's error (with err filled), -ENOMEM, or
 * -errno from pthread_create. Call from any one owner thread.
 */
int store_thread_start(const char *state_dir, size_t queue_max, store_thread_t **ret, char *err, size_t err_size);

/*
 * Queue job_fn(db, userdata) and then done_fn(result, userdata), both on the
 * storage thread, in submission order. Safe from any thread. done_fn must
 * not block for long (it should hand the result to its owner, e.g. with
 * uv_async_send()). Returns 0 (then both will run exactly once), -EINVAL,
 * -EAGAIN (the queue is full), -ESHUTDOWN (stop has begun). On error
 * neither callback runs.
 */
int store_thread_submit(store_thread_t *t, store_job_fn job_fn, void *userdata, store_done_fn done_fn);

/*
 * Refuse new jobs, run every queued one, close the database, join and free
 * the thread. Must not be called from the storage thread. NULL is a no-op.
 * Returns NULL.
 */
store_thread_t *store_thread_stop(store_thread_t *t);

/*
 * Run job_fn on the storage thread and wait for its result: the blocking
 * form of store_thread_submit() for threads that may block (workers, the
 * benchmark runner), never the daemon's loop or the storage thread itself.
 * A full queue is waited out (up to ~2 s, then -EAGAIN). Returns job_fn's
 * result, -ENODEV for t == NULL (no database), or submit's -errno.
 */
int store_thread_call(store_thread_t *t, store_job_fn job_fn, void *userdata);

/* Jobs queued and not yet started (a snapshot; 0 for NULL). Any thread. */
size_t store_thread_queued(store_thread_t *t);
