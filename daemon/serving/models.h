/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model table: models (identified by the SHA-256 of their bytes) and
 * compiled instances (a model with one canonical settings key), both
 * reference counted and shared by every connection that prepares the same
 * model with the same settings. This is the in-memory form of the model
 * store; when storage/ (SQLite) lands, daemon_models_find_source() is the
 * one place that would also look models up there.
 *
 * An instance owns a pool of interpreters (rt_interp_t, one per concurrent
 * execution: an interpreter is used by one thread at a time). They share
 * the instance's rt_model_t, so weights are read from one mapping; each
 * interpreter adds its own tensor arena (and whatever its driver keeps per
 * compiled graph).
 *
 * Threads: the table is guarded by one mutex; every function here may be
 * called from any thread unless it says otherwise. Preparing (verify,
 * create, allocate) is slow and meant for worker threads.
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt.h"
#include "settings.h"
#include "wcache.h"
#include "scheduler.h"
#include "storage.h"

typedef struct daemon_tensor_info {
        char *name;
        rt_type_t type;
        int32_t rank;
        int32_t dims[RT_MAX_RANK];
        size_t bytes;
        size_t n_quant;
        float *scale;
        int64_t *zero_point;
        int32_t axis;
} daemon_tensor_info_t;

typedef struct daemon_model daemon_model_t;
typedef struct daemon_instance daemon_instance_t;

struct daemon_model {
        char sha256[ACC_SHA256_HEX_SIZE];
        char *name;                     /* may be NULL */
        void *map;                      /* sealed memfd mapping, or NULL */
        size_t map_size;
        void *copy;                     /* private copy (bytes, unsealed fds), or NULL */
        size_t size;
        rt_model_t *rt;
        rt_wcache_t *wcache;            /* the table's (borrowed), or NULL */
        unsigned n_ref;                 /* instances using it; under the table mutex */
        daemon_model_t *next;
};

struct daemon_instance {
        char *key;                      /* "<sha256>|<settings key>" */
        char *settings_key;             /* points into key */
        daemon_model_t *model;
        rt_settings_t settings;
        char queue[64];                 /* scheduler queue: the driver's name */
        unsigned n_ref;                 /* handles and jobs; under the table mutex */
        uint64_t compile_us;
        /* The model keeps state between invokes (rt_interp_has_state()):
         * every handle runs with its own (daemon_state_t) on whichever
         * pooled interpreter its execution gets, and is never batched with
         * another. Set at compilation, read-only after. */
        bool stateful;
        /* The model's signature with the declared shapes (owned). */
        daemon_tensor_info_t *inputs, *outputs;
        int32_t n_inputs, n_outputs;
        /* The plan; each `why` is a copy owned by the instance, since the
         * runtime's strings live only as long as the interpreter's plan. */
        rt_interp_partition_t *partitions;
        size_t n_partitions;
        char *delegation_note;          /* owned; "" when none */
        /* Idle interpreters. */
        pthread_mutex_t pool_mu;
        rt_interp_t **pool;
        size_t n_pool, cap_pool;
        unsigned n_interps;             /* created, idle or busy */
        /* Executions at once on this instance (the scheduler's limit): each
         * needs its own interpreter. */
        daemon_sched_resource_t exec_slots;
        /* Dynamic batching (serving/batch.c): up to batch_max queued
         * executions with the declared shapes run as one invoke on a batch
         * interpreter whose inputs' first dimension is their number.
         * batch_state: 0 usable so far, -1 refused (batch_note says why);
         * batch_checked: bit n set once batches of n were checked exact.
         * Under pool_mu. */
        unsigned batch_max;             /* <= 1: off */
        uint64_t batch_delay_ns;
        int batch_state;
        uint64_t batch_checked;
        char batch_note[256];
        struct daemon_batch_interp {
                rt_interp_t *it;
                unsigned size;
        } *batch_pool;                  /* idle batch interpreters */
        size_t n_batch_pool, cap_batch_pool;
        /* Queued for the release thread: the model to free after it (its
         * last instance), or NULL. */
        daemon_model_t *release_model;
        daemon_instance_t *next;
};

typedef struct daemon_models {
        pthread_mutex_t mu;
        daemon_model_t *models;
        daemon_instance_t *instances;
        unsigned n_models, n_instances;
        size_t max_model_bytes;
        unsigned instance_concurrency;  /* exec_slots.limit of new instances */
        unsigned batch_max;             /* batching of new instances (config) */
        uint64_t batch_delay_ns;
        /* The weights cache every interpreter folds its constants through
         * (owned; NULL when off). Set after daemon_models_init(). */
        rt_wcache_t *wcache;
        /* Instances of an in-process plugin (isolate_drivers = none) are
         * freed by one release thread, never by the thread that dropped the
         * last reference (the loop, most often): the plugin's release may
         * wait for its own hung execute, as the driver hosts' releases do.
         * Started on first use; under release_mu. */
        pthread_mutex_t release_mu;
        pthread_cond_t release_cond;
        pthread_t release_thread;
        bool release_started, release_stopping;
        daemon_instance_t *releases, **releases_tail;
        unsigned releases_pending;      /* queued or being freed */
} daemon_models_t;

/* Where a model comes from: exactly one of bytes (borrowed), fd (borrowed;
 * taken through daemon_clientfd_model(), so mapped only once it can no
 * longer change) or sha256 (a model already in the table). */
typedef struct daemon_model_source {
        const void *bytes;
        size_t size;
        int fd;                         /* -1 if none */
        const char *sha256;
        const char *name;               /* optional name to record */
} daemon_model_source_t;

/* Test builds register extra custom ops into every interpreter's options
 * (a blocking op for scheduling tests); NULL in acceld. */
extern void (*daemon_models_options_hook)(rt_interp_options_t *o);

/* `instance_concurrency`: executions one instance runs at once (>= 1). */
int daemon_models_init(daemon_models_t *t, size_t max_model_bytes, unsigned instance_concurrency);
/* Frees everything; the caller guarantees nothing is referenced any more.
 * Waits for the release thread to free what is queued: a plugin release
 * that never returns holds this up, which is why SIGTERM's guard
 * (core/main.c) exits past shutdown_timeout_ms. */
void daemon_models_done(daemon_models_t *t);

/* Instances queued for the release thread or being freed by it now. */
unsigned daemon_models_releases_pending(daemon_models_t *t);

/*
 * The key benchmark events and decisions are stored under: storage's
 * store_settings_key() of rt_settings_pack()'s bytes (the instance key is
 * rt_settings_key(), runtime/settings.h). *ret malloc'ed. 0, -EIO, -ENOMEM.
 */
int daemon_settings_store_key(const rt_settings_t *s, char **ret);

/*
 * Find or compile the instance for `src` and `settings`; *ret holds a new
 * reference (daemon_instance_unref()). *ret_shared tells whether an
 * existing instance was reused. Worker thread. 0; -EINVAL with the
 * reader's or interpreter's message (malformed model, unknown custom op);
 * -ENOENT (sha256 not in the table); -EDQUOT (over max_model_bytes);
 * -ENODEV (delegate unavailable); -ETIMEDOUT (an fd that did not end in
 * time); -ENOMEM; -errno from reading or mapping the fd.
 */
int daemon_models_prepare(daemon_models_t *t, const daemon_model_source_t *src, const rt_settings_t *settings,
                          daemon_instance_t **ret, bool *ret_shared, char *err, size_t err_size);

daemon_instance_t *daemon_instance_ref(daemon_models_t *t, daemon_instance_t *i);
/* Drops a reference; the last one frees the instance (and its model when
 * no other instance uses it). NULL-safe; returns NULL. */
daemon_instance_t *daemon_instance_unref(daemon_models_t *t, daemon_instance_t *i);

/* Take an idle interpreter of `i` or create one (allocated, declared
 * shapes). Worker thread. 0, or -errno with a message. */
int daemon_instance_acquire(daemon_instance_t *i, rt_interp_t **ret, char *err, size_t err_size);
/* Give it back. */
void daemon_instance_release(daemon_instance_t *i, rt_interp_t *it);

/* A new interpreter of `i` outside its pool (allocated, declared shapes);
 * the caller owns it. Worker thread. 0, or -errno with a message. */
int daemon_instance_interp_new(const daemon_instance_t *i, rt_interp_t **ret, char *err, size_t err_size);

/* An interpreter of `i`'s model on the reference path: the runtime's
 * default settings (reference kernels), no weights cache; allocated with
 * the declared shapes, the caller's to free. What Evaluate's inference
 * diff compares the instance with. 0 or -errno with a message. */
int daemon_instance_reference_interp_new(const daemon_instance_t *i, rt_interp_t **ret, char *err,
                                         size_t err_size);

/*
 * One handle's state on a stateful instance (serving/state.c): the
 * variables its executions read and update (rt_interp_state_t), apart from
 * the pooled interpreters, which every handle shares. Reference counted
 * (the handle, and each execution in flight); a new one is fresh, as a new
 * TFLite interpreter would be.
 */
typedef struct daemon_state daemon_state_t;

/* A fresh state, one reference; NULL when out of memory. Any thread. */
daemon_state_t *daemon_state_new(void);
/* NULL-safe. Any thread. */
daemon_state_t *daemon_state_ref(daemon_state_t *s);
/* Drops a reference; the last frees it. NULL-safe; returns NULL. */
daemon_state_t *daemon_state_unref(daemon_state_t *s);

/*
 * Run `it` (an interpreter of the state's instance, acquired by the
 * caller) on `s`: waits for another execution of the same handle to leave,
 * then swaps the state in. Worker thread. 0, or -ENOMEM with a message
 * (nothing swapped, the lock not held).
 */
int daemon_state_enter(daemon_state_t *s, rt_interp_t *it, char *err, size_t err_size);
/* Swap it back out of `it` and let the next execution in. */
void daemon_state_leave(daemon_state_t *s, rt_interp_t *it);

/* Fill `info` (owned strings/arrays) from tensor t. 0 or -ENOMEM. */
int daemon_tensor_info_from(daemon_tensor_info_t *info, const rt_tensor_t *t);
void daemon_tensor_info_done(daemon_tensor_info_t *info);

typedef struct daemon_model_entry {
        char sha256[ACC_SHA256_HEX_SIZE];
        char name[128];
        uint64_t size;
        unsigned instances;
        unsigned references;
} daemon_model_entry_t;

/* Snapshot of the models: *ret (malloc'ed, caller frees) with n entries. */
int daemon_models_list(daemon_models_t *t, daemon_model_entry_t **ret, size_t *ret_n);

/* Counters (snapshot). */
void daemon_models_counts(daemon_models_t *t, unsigned *ret_models, unsigned *ret_instances,
                          unsigned *ret_interps);
