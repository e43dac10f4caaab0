/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libaccel: the client library of acceld, the on-device inference service.
 *
 *   accel_client_t *c;
 *   accel_capabilities_t *caps;
 *   if (accel_connect(NULL, &c) < 0)
 *           fprintf(stderr, "%s\n", accel_last_error());
 *   if (accel_get_capabilities(c, &caps) == 0) {
 *           ... caps->cpu.model, caps->backends[i].name ...
 *           accel_capabilities_free(caps);
 *   }
 *   accel_disconnect(c);
 *
 * Conventions:
 * - Functions return 0 (or a count) on success and a negative errno on
 *   failure; output parameters are written only on success.
 * - After a failure, accel_last_error() describes it and
 *   accel_last_status() holds the daemon's status (ACCEL_STATUS_NONE when
 *   the failure was local, e.g. the socket could not be reached). Both are
 *   per thread.
 * - Results are plain C structs owned by the caller and released with the
 *   matching _free() function, which accepts NULL. Strings inside them are
 *   never NULL (empty when the daemon did not say).
 * - A client is one connection; calls on it are blocking and must not be
 *   made from two threads at once. Different clients are independent.
 * - Daemon failures map to errnos as follows: INVALID_ARGUMENT -EINVAL,
 *   NOT_FOUND -ENOENT, PERMISSION_DENIED -EACCES, UNSUPPORTED -EOPNOTSUPP,
 *   DEVICE_UNAVAILABLE -ENODEV, RESOURCE_EXHAUSTED_TRANSIENT -EAGAIN,
 *   RESOURCE_EXHAUSTED_PERSISTENT -ENOMEM, MISSED_DEADLINE_TRANSIENT -ETIME,
 *   MISSED_DEADLINE_PERSISTENT -ETIMEDOUT, OUTPUT_INSUFFICIENT_SIZE -ENOBUFS,
 *   PROTOCOL_ERROR -EPROTO, GENERAL_FAILURE -EIO. A connection the daemon
 *   closed gives -ECONNRESET.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACCEL_EXPORT __attribute__((visibility("default")))

/* The protocol version this library speaks. */
#define ACCEL_PROTOCOL_VERSION 1

/* Where accel_connect(NULL, ...) looks without $ACCELD_SOCKET. */
#define ACCEL_SOCKET_SYSTEM "/run/acceld/acceld.sock"

/* The daemon's reply statuses; the numbers are the wire values (0..8 are
 * NNAPI's ErrorStatus). */
typedef enum accel_status {
        ACCEL_STATUS_NONE = 0,
        ACCEL_STATUS_DEVICE_UNAVAILABLE = 1,
        ACCEL_STATUS_GENERAL_FAILURE = 2,
        ACCEL_STATUS_OUTPUT_INSUFFICIENT_SIZE = 3,
        ACCEL_STATUS_INVALID_ARGUMENT = 4,
        ACCEL_STATUS_MISSED_DEADLINE_TRANSIENT = 5,
        ACCEL_STATUS_MISSED_DEADLINE_PERSISTENT = 6,
        ACCEL_STATUS_RESOURCE_EXHAUSTED_TRANSIENT = 7,
        ACCEL_STATUS_RESOURCE_EXHAUSTED_PERSISTENT = 8,
        ACCEL_STATUS_PERMISSION_DENIED = 64,
        ACCEL_STATUS_NOT_FOUND = 65,
        ACCEL_STATUS_PROTOCOL_ERROR = 66,
        ACCEL_STATUS_UNSUPPORTED = 67,
        ACCEL_STATUS_DEAD_OBJECT = 10000,  /* the driver's process died or was killed */
} accel_status_t;

typedef struct accel_client accel_client_t;

typedef struct accel_limits {
        uint32_t max_frame_bytes;
        uint32_t max_fds_per_frame;
        uint32_t max_in_flight_per_connection;
        uint32_t max_connections;
} accel_limits_t;

typedef struct accel_hello {
        char *server_version;
        uint32_t protocol_version;
        uint32_t min_protocol_version;
        accel_limits_t limits;
        uint64_t connection_id;
} accel_hello_t;

typedef struct accel_cpu_info {
        char *vendor;
        char *model;
        char *architecture;
        uint32_t cores;                 /* physical; 0 if unknown */
        uint32_t logical_processors;    /* 0 if unknown */
        char **features;                /* ISA extensions, "avx2", "fma", ... */
        size_t n_features;
        uint32_t l1d_cache_kb, l2_cache_kb, l3_cache_kb;        /* 0 if unknown */
} accel_cpu_info_t;

typedef struct accel_memory_info {
        uint64_t total_bytes;
        uint64_t available_bytes;
} accel_memory_info_t;

typedef struct accel_backend {
        char *name;                     /* "reference", "xnnpack", "nnapi", ... */
        int delegate;                   /* tflite.proto.Delegate number */
        char *delegate_name;            /* "NONE", "XNNPACK", "NNAPI", ... */
        bool available;
        char *version;
        char *reason;                   /* why unavailable; "" when available */
        char *type;                     /* "cpu", "gpu", "accelerator", "other" */
        /* NNAPI-style PerformanceInfo per operand type, relative to the
         * reference driver (lower is faster; reference = 1.0), measured by
         * the daemon's one-time calibration. Empty for unavailable backends. */
        struct accel_operand_performance {
                char *operand_type;     /* "float32", "int8", "uint8", ... */
                float exec_time;
                float power_usage;
        } *performance;
        size_t n_performance;
} accel_backend_t;

typedef struct accel_capabilities {
        accel_cpu_info_t cpu;
        accel_memory_info_t memory;
        accel_backend_t *backends;
        size_t n_backends;
} accel_capabilities_t;

/* The counters of accel_daemon_status_t.refusals, in order, for code that
 * goes over all of them: ACCEL_REFUSALS_MAP(X) expands X(name) for each. */
#define ACCEL_REFUSALS_MAP(X)                                                                           \
        X(connections) X(fds) X(input_bytes) X(frames) X(models) X(buffer_bytes) X(queued_requests)     \
        X(output_bytes) X(cpu_waits) X(cpu_deadline_missed)

typedef struct accel_daemon_status {
        uint64_t uptime_us;
        uint32_t connections;           /* open now, this one included */
        uint64_t connections_total;
        uint64_t requests_served;       /* before this request */
        uint64_t errors;
        uint64_t protocol_errors;
        char *state_directory;
        char *socket_path;
        accel_limits_t limits;
        uint32_t pid;
        char *server_version;
        /* Serving: totals, and the calling uid's usage against its limits
         * (a limit of 0 is unlimited). */
        struct accel_serving_status {
                uint32_t compiled_instances, prepared_models, registered_buffers, queued_requests,
                        running_requests, interpreters, worker_threads;
                uint64_t registered_bytes, executions;
                uint32_t uid;                   /* the caller */
                uint32_t uid_prepared_models, uid_queued_requests;
                uint64_t uid_registered_bytes;
                uint32_t max_prepared_models, max_queued_requests;
                uint64_t max_registered_bytes;
        } serving;
        /* Isolated plugin drivers, one host process each. */
        struct accel_driver_host {
                char *driver;
                uint32_t pid;           /* 0 while not running */
                uint32_t starts, deaths;
                char *last_death;       /* "" when none */
                /* Group tensors of executions: used by the host in acceld's
                 * shared memory, or copied through its region. */
                uint64_t tensors_in_place, tensors_copied;
        } *driver_hosts;
        size_t n_driver_hosts;
        /* The weights cache: counters since start, files at the last scan
         * (directory "" when the cache is off). */
        struct accel_weights_cache_status {
                char *directory;
                uint64_t hits, misses, inserts, corrupt, evictions;
                uint64_t files, bytes, mapped_bytes, quota_bytes;
        } weights_cache;
        /* How often each limit turned a client away since start (for the
         * CPU budget: invokes that waited for it, and those whose deadline
         * passed meanwhile); all 0 from an acceld without the counters. */
        struct accel_refusals {
                uint64_t connections, fds, input_bytes, frames, models, buffer_bytes, queued_requests,
                        output_bytes, cpu_waits, cpu_deadline_missed;
        } refusals;
        /* The CPU budget: threads acceld runs models on at once, and those
         * taken by invokes now. */
        uint32_t cpu_budget, cpu_in_use;
        /* Placement (docs/architecture.md, "Placement"): the configuration
         * (max_compute_us 0: off), the round trip it uses now and its parts
         * (-1: not measured yet), and the prepares answered "run in the
         * client" since start. All 0 from an acceld without placement. */
        struct accel_placement_status {
                uint64_t max_compute_us;
                double max_overhead;
                int64_t round_trip_us, socket_round_trip_us, served_overhead_us;
                uint64_t served_samples, placed_in_client;
        } placement;
        /* Lanes (docs/architecture.md, "Lanes"): open now, and executions
         * they served since start (also counted in serving.executions).
         * Both 0 from an acceld without lanes. */
        struct accel_lane_status {
                uint32_t open;
                uint64_t executions;
        } lanes;
} accel_daemon_status_t;

/* ManageWeightsCache: the files of the weights cache, or what clearing
 * removed. Root and the operators group only (-EPERM otherwise). */
typedef struct accel_weights_cache_entry {
        char *file;
        char *key;                      /* "fold/s0/<model sha256>|rt=...;cpu=..." */
        uint64_t bytes;
        int64_t last_used_unix;
        bool mapped;                    /* in use by acceld now */
        bool valid;                     /* the header checks */
} accel_weights_cache_entry_t;

typedef struct accel_weights_cache {
        struct accel_weights_cache_status status;
        accel_weights_cache_entry_t *entries;   /* oldest use first */
        size_t n_entries;
        uint64_t removed_files, removed_bytes;  /* clear */
} accel_weights_cache_t;

/*
 * Connect to acceld. `path` (may be NULL) is used if given, else
 * $ACCELD_SOCKET, else the default: ACCEL_SOCKET_SYSTEM as root, and
 * $XDG_RUNTIME_DIR/acceld.sock for other users. The connection is blocking.
 * *ret owns the connection; release it with accel_disconnect().
 * Returns 0, -EINVAL (ret NULL), -ENAMETOOLONG, -ENXIO (no default path can
 * be derived), or the -errno of socket()/connect() (-ENOENT, -ECONNREFUSED,
 * -EACCES ...).
 */
ACCEL_EXPORT int accel_connect(const char *path, accel_client_t **ret);

/* Close the connection and free `c`. NULL is a no-op. Returns NULL. */
ACCEL_EXPORT accel_client_t *accel_disconnect(accel_client_t *c);

/* The path `c` connected to (owned by c). */
ACCEL_EXPORT const char *accel_client_socket_path(const accel_client_t *c);

/*
 * Hello: tell the daemon who we are (client_name may be NULL) and learn its
 * versions and limits. *ret is released with accel_hello_free().
 */
ACCEL_EXPORT int accel_hello(accel_client_t *c, const char *client_name, accel_hello_t **ret);
ACCEL_EXPORT accel_hello_t *accel_hello_free(accel_hello_t *h);

/* The machine's CPU, memory and backends; release with
 * accel_capabilities_free(). */
ACCEL_EXPORT int accel_get_capabilities(accel_client_t *c, accel_capabilities_t **ret);
ACCEL_EXPORT accel_capabilities_t *accel_capabilities_free(accel_capabilities_t *caps);

/* The daemon's counters; release with accel_daemon_status_free(). */
ACCEL_EXPORT int accel_get_status(accel_client_t *c, accel_daemon_status_t **ret);
ACCEL_EXPORT accel_daemon_status_t *accel_daemon_status_free(accel_daemon_status_t *s);

/* List, or clear, the daemon's weights cache; release with
 * accel_weights_cache_free(). 0 or -errno (-EPERM: not an operator;
 * -ENODEV: the cache is off) with the daemon's message. */
ACCEL_EXPORT int accel_weights_cache_list(accel_client_t *c, accel_weights_cache_t **ret);
ACCEL_EXPORT int accel_weights_cache_clear(accel_client_t *c, accel_weights_cache_t **ret);
ACCEL_EXPORT accel_weights_cache_t *accel_weights_cache_free(accel_weights_cache_t *w);

/* "NONE", "INVALID_ARGUMENT", ... (static strings); "UNKNOWN" otherwise. */
ACCEL_EXPORT const char *accel_status_to_string(accel_status_t status);

/* The calling thread's last error message ("" if none). Valid until the
 * thread's next libaccel call. */
ACCEL_EXPORT const char *accel_last_error(void);
/* The daemon status of the calling thread's last failed call, or
 * ACCEL_STATUS_NONE when it failed locally. */
ACCEL_EXPORT accel_status_t accel_last_status(void);


/* ---- interpreter (TFLite C API shape, served by acceld) ----
 *
 *   accel_model_t *m;
 *   accel_model_create_from_file("m.tflite", &m);     // sent to acceld as an fd
 *   accel_interp_options_t *o = accel_interp_options_create();
 *   accel_interp_options_set_settings_json(o, "{\"delegate\": \"XNNPACK\"}");
 *   accel_interp_t *it;
 *   accel_interp_create(m, o, &it);                   // connects and prepares
 *   accel_interp_allocate_tensors(it);                // shared-memory tensors
 *   memcpy(accel_tensor_data(accel_interp_input_tensor(it, 0)), in, n);
 *   accel_interp_invoke(it);                          // outputs land in place
 *   ... accel_tensor_data(accel_interp_output_tensor(it, 0)) ...
 *   accel_interp_delete(it); accel_interp_options_delete(o); accel_model_delete(m);
 *
 * Tensors live in one sealed memfd registered with acceld once: an invoke
 * sends a small Execute naming regions of it, acceld reads the inputs and
 * writes the outputs there directly. Errors: as everywhere in libaccel
 * (return a negative errno, accel_last_error() says why). One interpreter
 * is one connection and is used by one thread at a time.
 */

typedef enum accel_priority {
        ACCEL_PRIORITY_DEFAULT = 0,
        ACCEL_PRIORITY_LOW = 1,
        ACCEL_PRIORITY_MEDIUM = 2,
        ACCEL_PRIORITY_HIGH = 3,
} accel_priority_t;

/* TFLite TensorType numbers. */
typedef enum accel_type {
        ACCEL_TYPE_FLOAT32 = 0,
        ACCEL_TYPE_FLOAT16 = 1,
        ACCEL_TYPE_INT32 = 2,
        ACCEL_TYPE_UINT8 = 3,
        ACCEL_TYPE_INT64 = 4,
        ACCEL_TYPE_STRING = 5,
        ACCEL_TYPE_BOOL = 6,
        ACCEL_TYPE_INT16 = 7,
        ACCEL_TYPE_INT8 = 9,
} accel_type_t;

typedef struct accel_model accel_model_t;
typedef struct accel_interp_options accel_interp_options_t;
typedef struct accel_interp accel_interp_t;
typedef struct accel_tensor accel_tensor_t;

/* A model from a file (kept open; acceld maps it through the fd) or from
 * memory (copied). Release with accel_model_delete(). 0 or -errno. */
ACCEL_EXPORT int accel_model_create_from_file(const char *path, accel_model_t **ret);
ACCEL_EXPORT int accel_model_create(const void *data, size_t size, accel_model_t **ret);
ACCEL_EXPORT accel_model_t *accel_model_delete(accel_model_t *m);

/* Options; NULL when out of memory. Setters return 0 or -EINVAL. */
ACCEL_EXPORT accel_interp_options_t *accel_interp_options_create(void);
ACCEL_EXPORT accel_interp_options_t *accel_interp_options_delete(accel_interp_options_t *o);
/* TFLiteSettings in its JSON form (copied); overrides delegate/threads. */
ACCEL_EXPORT int accel_interp_options_set_settings_json(accel_interp_options_t *o, const char *json);
/* A serialized tflite.proto.ComputeSettings (copied). */
ACCEL_EXPORT int accel_interp_options_set_compute_settings(accel_interp_options_t *o, const void *data,
                                                           size_t size);
/* "NONE", "XNNPACK", ...; NULL = the daemon's choice. */
ACCEL_EXPORT int accel_interp_options_set_delegate(accel_interp_options_t *o, const char *delegate);
ACCEL_EXPORT int accel_interp_options_set_num_threads(accel_interp_options_t *o, int32_t n);
ACCEL_EXPORT int accel_interp_options_set_priority(accel_interp_options_t *o, accel_priority_t p);
/* Each invoke must start within `ms` (0 = no deadline). */
ACCEL_EXPORT int accel_interp_options_set_deadline_ms(accel_interp_options_t *o, uint32_t ms);
/* The compilation (PrepareModel) must start within `ms` (0 = no
 * deadline); else accel_interp_create() fails with -ETIME. */
ACCEL_EXPORT int accel_interp_options_set_prepare_deadline_ms(accel_interp_options_t *o, uint32_t ms);
/* Without settings, which of acceld's benchmark decisions applies: a
 * tflite.proto.ExecutionPreference (0 ANY, 1 LOW_LATENCY, 2 LOW_POWER,
 * 3 FORCE_CPU), or -1 (the default) for acceld's own choice. 0 or -EINVAL. */
ACCEL_EXPORT int accel_interp_options_set_preference(accel_interp_options_t *o, int preference);
/* Socket path (NULL: accel_connect()'s default). */
ACCEL_EXPORT int accel_interp_options_set_socket(accel_interp_options_t *o, const char *path);

/* Prepare on the caller's connection `c` (borrowed; it must outlive the
 * interpreter) instead of opening one: many interpreters can share one
 * socket. Interpreters sharing a connection must not be used from several
 * threads at once. Deleting one releases its model handle and buffer and
 * leaves the connection open. NULL: a connection of its own (the default). */
ACCEL_EXPORT int accel_interp_options_set_client(accel_interp_options_t *o, accel_client_t *c);

/* Tensors in a buffer acceld allocates (AllocateBuffer, NNAPI's
 * driver-managed memory: a sealed memfd acceld creates and shares) instead
 * of one the client creates and registers. Default false. */
ACCEL_EXPORT int accel_interp_options_set_daemon_buffer(accel_interp_options_t *o, bool enable);
/* Send tensors inline in the frames instead of shared memory. */
ACCEL_EXPORT int accel_interp_options_set_inline_tensors(accel_interp_options_t *o, bool enable);
/* Lanes (default true): with shared-memory tensors, accel_interp_invoke()
 * rings a control block in the tensors' buffer, served by a thread of
 * acceld's, instead of sending an Execute frame (a few microseconds instead
 * of a socket round trip). Used when acceld offers one (max_lanes, limits;
 * not for string tensors, batching or stateful models); otherwise, and
 * with false or the environment ACCEL_LANE=0, invokes go over the socket.
 * accel_interp_invoke_start() always does. */
ACCEL_EXPORT int accel_interp_options_set_lane(accel_interp_options_t *o, bool enable);

/* Longest compilation-cache token (bytes). */
#define ACCEL_CACHE_TOKEN_MAX 64
/*
 * An NNAPI-style compilation-cache token (1..ACCEL_CACHE_TOKEN_MAX opaque
 * bytes, copied; size 0 clears it). acceld scopes it to the caller's uid.
 * With accel_interp_create() acceld records a cache entry for the token
 * after compiling (see accel_interp_cache_written()); with
 * accel_interp_create_from_cache() it prepares from that entry without the
 * model. -EINVAL (too long, or NULL token with size > 0), -ENOMEM.
 */
ACCEL_EXPORT int accel_interp_options_set_cache_token(accel_interp_options_t *o, const void *token,
                                                      size_t size);

/*
 * Dynamic batching for the model's instance, when this prepare creates it
 * (an instance already shared keeps its own): executions queued together
 * run as one invoke of up to max_batch_size rows (2..64; 0 or 1 = acceld's
 * configuration, batch_max_size), waiting at most max_queue_delay_us for
 * the batch to fill. acceld batches only models whose batched outputs are
 * exactly the single runs'. -EINVAL (over 64).
 */
ACCEL_EXPORT int accel_interp_options_set_batching(accel_interp_options_t *o, uint32_t max_batch_size,
                                                   uint32_t max_queue_delay_us);

/* Connect, prepare `model` (borrowed until this returns) and describe its
 * tensors. 0 or -errno (the daemon's status in accel_last_status()). */
ACCEL_EXPORT int accel_interp_create(const accel_model_t *model, const accel_interp_options_t *options,
                                     accel_interp_t **ret);
ACCEL_EXPORT accel_interp_t *accel_interp_delete(accel_interp_t *it);
/*
 * NNAPI prepareModelFromCache: connect and prepare from the cache entry of
 * the options' cache token (required), with the settings recorded in it
 * (the options' settings are not sent). Returns 0, -EINVAL (no token), or
 * -errno from acceld: -ENOENT (ACCEL_STATUS_NOT_FOUND) when there is no
 * usable entry (none, or a tampered or stale one that acceld removed;
 * accel_last_error() says which): prepare with the model to rebuild it.
 */
ACCEL_EXPORT int accel_interp_create_from_cache(const accel_interp_options_t *options, accel_interp_t **ret);
/* Whether the interpreter was prepared from a cache token alone, and
 * whether acceld recorded a cache entry for the options' token. */
ACCEL_EXPORT bool accel_interp_from_cache(const accel_interp_t *it);
ACCEL_EXPORT bool accel_interp_cache_written(const accel_interp_t *it);

ACCEL_EXPORT int32_t accel_interp_input_count(const accel_interp_t *it);
ACCEL_EXPORT int32_t accel_interp_output_count(const accel_interp_t *it);
/* Owned by the interpreter; NULL out of range. */
ACCEL_EXPORT accel_tensor_t *accel_interp_input_tensor(accel_interp_t *it, int32_t i);
ACCEL_EXPORT const accel_tensor_t *accel_interp_output_tensor(const accel_interp_t *it, int32_t i);

/* Set input i's shape (acceld re-derives every shape); call
 * accel_interp_allocate_tensors() again before invoking. */
ACCEL_EXPORT int accel_interp_resize_input(accel_interp_t *it, int32_t i, const int32_t *dims, int32_t rank);
/* Back every tensor with the shared-memory buffer. 0 or -errno. */
ACCEL_EXPORT int accel_interp_allocate_tensors(accel_interp_t *it);
/*
 * Back to the fresh state, like tflite_runtime's reset_all_variables(), for
 * a model that keeps state between invokes (LSTM/RNN/SVDF variable tensors,
 * resource variables, CALL_ONCE): acceld keeps that state per interpreter
 * (no other interpreter, in this process or another, sees it), and the next
 * invoke starts from it as a newly created interpreter would. 1 when the
 * model has such state, 0 when it has none (nothing to do), or -errno
 * (-EBUSY: an invoke is in flight).
 */
ACCEL_EXPORT int accel_interp_reset_variables(accel_interp_t *it);
/* Run once. 0 or -errno (-ETIME: deadline missed). */
ACCEL_EXPORT int accel_interp_invoke(accel_interp_t *it);

/*
 * Asynchronous invoke. start sends the Execute and returns at once (inputs
 * must be set before; do not touch the tensors until wait returns); wait
 * blocks until acceld answers and then behaves as accel_interp_invoke()'s
 * return. cancel asks acceld to drop the started invoke: 1 when it was
 * still queued (wait then fails with the cancellation), 0 when it had
 * already started (wait returns its result) or nothing was started.
 * -EBUSY: start while one is in flight.
 */
ACCEL_EXPORT int accel_interp_invoke_start(accel_interp_t *it);
ACCEL_EXPORT int accel_interp_invoke_wait(accel_interp_t *it);
ACCEL_EXPORT int accel_interp_cancel(accel_interp_t *it);
/* The interpreter's socket, for poll()/epoll in an event loop: readable
 * when acceld has answered; with a connection of its own, a started invoke
 * is then complete and accel_interp_invoke_wait() does not block. */
ACCEL_EXPORT int accel_interp_fd(const accel_interp_t *it);
/* Queue and compute time of the last invoke, as acceld measured them, and
 * the whole round trip as the client saw it (microseconds). */
ACCEL_EXPORT void accel_interp_last_timing(const accel_interp_t *it, uint64_t *ret_queue_us,
                                           uint64_t *ret_compute_us, uint64_t *ret_total_us);
/* Whether acceld ran the last invoke directly on the shared-memory tensors
 * (zero-copy; regions from accel_interp_allocate_tensors() qualify) rather
 * than copying them in and out. false before the first invoke and with
 * inline tensors. */
ACCEL_EXPORT bool accel_interp_last_zero_copy(const accel_interp_t *it);
/* Whether accel_interp_invoke() goes over a lane (accel_interp_options_set_lane()). */
ACCEL_EXPORT bool accel_interp_uses_lane(const accel_interp_t *it);
/* Whether acceld reused an already compiled instance, its compile time. */
ACCEL_EXPORT bool accel_interp_shared(const accel_interp_t *it);
ACCEL_EXPORT uint64_t accel_interp_compile_us(const accel_interp_t *it);
/* Which driver runs how many nodes: fills up to max entries; returns count. */
ACCEL_EXPORT size_t accel_interp_partitions(const accel_interp_t *it, const char **ret_drivers,
                                            int32_t *ret_nodes, size_t max);
/* Why group k does not run as the settings asked ("" when it does): the
 * node its driver refused, or the error and what ran instead. */
ACCEL_EXPORT const char *accel_interp_partition_reason(const accel_interp_t *it, size_t k);
/* What ran instead of the asked delegate, and why, when FallbackSettings
 * let it fall back ("no driver provides delegate GPU; ran on xnnpack");
 * "" otherwise. */
/* The settings acceld applied, as its canonical key ("delegate=XNNPACK;
 * threads=1;..."): the client's, or the daemon's choice when it gave none
 * (owned by it; "" before a prepare). */
ACCEL_EXPORT const char *accel_interp_settings_key(const accel_interp_t *it);
ACCEL_EXPORT const char *accel_interp_delegation_note(const accel_interp_t *it);
/*
 * Placement (docs/architecture.md, "Placement"): "client" when acceld
 * placed the model in this process (its measured compute is so short that
 * a request round trip would cost more than client_placement_max_overhead
 * of it): libaccel then runs it here on acceld's runtime with the settings
 * acceld chose, and tensors, resize, reset_variables, errors and timings
 * behave as served (queue time 0). "daemon" otherwise. The reason is
 * acceld's ("client: compute 6 us, round trip 80 us ..."); "" before a
 * prepare or from an acceld without placement. ACCEL_PLACEMENT=daemon in
 * the environment, or "placement": "daemon" in the settings JSON, keeps
 * every model served.
 */
ACCEL_EXPORT const char *accel_interp_placement(const accel_interp_t *it);
ACCEL_EXPORT const char *accel_interp_placement_reason(const accel_interp_t *it);

ACCEL_EXPORT accel_type_t accel_tensor_type(const accel_tensor_t *t);
ACCEL_EXPORT const char *accel_tensor_name(const accel_tensor_t *t);
ACCEL_EXPORT int32_t accel_tensor_num_dims(const accel_tensor_t *t);
ACCEL_EXPORT int32_t accel_tensor_dim(const accel_tensor_t *t, int32_t i);
ACCEL_EXPORT size_t accel_tensor_byte_size(const accel_tensor_t *t);
/* Per-tensor quantization (scale 0 when not quantized). */
ACCEL_EXPORT float accel_tensor_scale(const accel_tensor_t *t);
ACCEL_EXPORT int32_t accel_tensor_zero_point(const accel_tensor_t *t);
/* The bytes in shared memory; NULL before accel_interp_allocate_tensors(). */
ACCEL_EXPORT void *accel_tensor_data(const accel_tensor_t *t);
/* Whether the tensor's bytes are in the shared-memory buffer acceld reads
 * and writes directly. false before allocation, with inline tensors, and
 * for an output whose size is known only at invoke once it outgrew its
 * region: acceld then returns the outputs inline, the tensor's bytes move
 * to a heap block (accel_tensor_data() changes after such an invoke) and
 * accel_tensor_byte_size() is the size of the last result. */
ACCEL_EXPORT bool accel_tensor_in_shared_memory(const accel_tensor_t *t);
/* Copy in / out; size must equal the byte size. 0 or -EINVAL. A string
 * input takes a serialized string list of any size (below). */
ACCEL_EXPORT int accel_tensor_copy_from_buffer(accel_tensor_t *t, const void *data, size_t size);
ACCEL_EXPORT int accel_tensor_copy_to_buffer(const accel_tensor_t *t, void *data, size_t size);

/*
 * String tensors (ACCEL_TYPE_STRING) have no fixed size. They hold
 * TensorFlow Lite's serialized string list: int32 count N (the tensor's
 * element count), int32 offsets[N + 1] from the list's start (the first
 * just past the table, none decreasing, the last = the list's size), then
 * the bytes, any bytes (NULs included, no terminators). They live in the
 * client's memory, not in the shared buffer: an input's list travels inline
 * in each invoke's Execute, an output's comes back inline in its reply. So
 * accel_tensor_in_shared_memory() is false for them, accel_tensor_data() is
 * NULL and accel_tensor_byte_size() 0 until an input is set or an invoke
 * returned the output, and both change with each set or invoke.
 *
 * accel_tensor_copy_from_buffer() on a string input checks the list (-EINVAL
 * naming what is wrong: a count other than the element count of the current
 * shape, offsets out of order or past the end, a short buffer) and copies
 * it. accel_tensor_set_strings() builds the list from n items (items[k],
 * lens[k] bytes each; n must be the element count): -EINVAL, -E2BIG (the
 * list would pass 2 GiB), -ENOMEM. An invoke with a string input never set
 * fails with -EINVAL; one whose request would exceed acceld's
 * max_frame_bytes fails with -EMSGSIZE (accel_last_status()
 * RESOURCE_EXHAUSTED_PERSISTENT) before anything is sent (the connection
 * stays usable), and one whose outputs would exceed it in the
 * reply with -ENOMEM (RESOURCE_EXHAUSTED_PERSISTENT, naming the limit).
 *
 * accel_tensor_string_count() returns N, -EINVAL (not a string tensor) or
 * -ENODATA (no list yet); accel_tensor_string_get() points *ret_data at
 * string i inside the tensor (valid until its next set or invoke) with its
 * length: 0, -ERANGE (i >= N), -EBADMSG (a malformed list from acceld).
 * Resizing an input drops its list. Same thread rules as the interpreter.
 */
ACCEL_EXPORT int accel_tensor_set_strings(accel_tensor_t *t, const void *const *items, const size_t *lens,
                                          size_t n);
ACCEL_EXPORT int accel_tensor_string_count(const accel_tensor_t *t);
ACCEL_EXPORT int accel_tensor_string_get(const accel_tensor_t *t, size_t i, const void **ret_data,
                                         size_t *ret_len);
/* "float32", "int8", ... */
ACCEL_EXPORT const char *accel_type_name(accel_type_t type);

/* ---- models in acceld ---- */

typedef struct accel_model_entry {
        char *sha256;
        char *name;
        uint64_t size;
        uint32_t instances;             /* compiled instances (settings) */
        uint32_t references;            /* handles and running jobs */
} accel_model_entry_t;

/* The models acceld holds; free with accel_model_list_free(). */
ACCEL_EXPORT int accel_list_models(accel_client_t *c, accel_model_entry_t **ret, size_t *ret_n);
ACCEL_EXPORT void accel_model_list_free(accel_model_entry_t *v, size_t n);

typedef struct accel_node_support {
        int32_t index;
        char *op;
        size_t n_drivers;
        char **drivers;
        bool *supported;
        char **reasons;
} accel_node_support_t;

/* Per node, which drivers support it and why not. `model` as for
 * accel_interp_create(). Free with accel_node_support_free(). */
ACCEL_EXPORT int accel_get_supported_operations(accel_client_t *c, const accel_model_t *model,
                                                accel_node_support_t **ret, size_t *ret_n);
ACCEL_EXPORT void accel_node_support_free(accel_node_support_t *v, size_t n);

/* ---- Benchmarks -------------------------------------------
 *
 *   uint64_t run;
 *   accel_bench_start(c, fd, NULL, NULL, &run);   // generated candidates
 *   accel_bench_progress_t *p;
 *   do { sleep; accel_bench_progress(c, run, &p); ... } while (!p->finished);
 *
 * Settings appear in the runtime's JSON form (the seed's TFLiteSettings
 * field names, plus "plugin_settings" and delegate names of plugins).
 */

typedef struct accel_bench_options {
        const char *const *candidates_json;     /* none: the daemon generates them */
        size_t n_candidates;
        const void *const *inputs;              /* golden inputs, one per model input */
        const size_t *input_sizes;
        size_t n_inputs;
        const void *const *outputs;             /* golden outputs (optional) */
        const size_t *output_sizes;
        size_t n_outputs;
        uint32_t runs;                          /* 0: the daemon's default (10) */
        uint32_t timeout_ms;                    /* per candidate; 0: default (30000) */
        float max_absolute_error;               /* 0: defaults */
        float max_mean_squared_error;
        float max_symmetric_kl_divergence;
} accel_bench_options_t;

typedef struct accel_bench_candidate {
        char *settings_json;
        char *settings_key;
        char *label;                            /* "xnnpack/2t", ... */
        char *state;                            /* pending, running, done, skipped */
        int ok;                                 /* 1, 0, -1 not finished */
        int64_t median_us, p90_us, init_us;     /* -1: none */
        int32_t max_memory_kb;                  /* -1: none */
        char *error;                            /* "" when it ran */
        int error_stage;                        /* BenchmarkStage of an ERROR, -1 none */
        int error_exit_code;                    /* -1: none */
        int error_signal;                       /* 0: none */
} accel_bench_candidate_t;

typedef struct accel_bench_progress {
        uint64_t run_id;
        char *model_sha256;                     /* "" until the model is read */
        bool finished;
        uint32_t done, total;
        accel_bench_candidate_t *candidates;
        size_t n_candidates;
        char *best_label;                       /* "" when nothing was correct */
        char *best_settings_json;
        char *message;
} accel_bench_progress_t;

/*
 * Queue a benchmark of the model open on `model_fd` (sent to acceld, which
 * reads it), or of the stored model `model_sha256` when model_fd < 0.
 * options may be NULL. *ret_run_id identifies the run.
 * Returns 0, -EINVAL, -EBUSY (too many runs queued), -ENODEV (benchmarks
 * unavailable) or another -errno as described above.
 */
ACCEL_EXPORT int accel_bench_start(accel_client_t *c, int model_fd, const char *model_sha256,
                                   const accel_bench_options_t *options, uint64_t *ret_run_id);

/* The state of a run; free with accel_bench_progress_free(). -ENOENT for an
 * unknown (or long finished) run. */
ACCEL_EXPORT int accel_bench_progress(accel_client_t *c, uint64_t run_id, accel_bench_progress_t **ret);
ACCEL_EXPORT accel_bench_progress_t *accel_bench_progress_free(accel_bench_progress_t *p);

typedef struct accel_bench_metric {
        char *name;
        float *values;
        size_t n_values;
} accel_bench_metric_t;

typedef struct accel_bench_error_code {
        int source;                             /* Delegate */
        int tflite_error;
        int64_t underlying_api_error;
} accel_bench_error_code_t;

/* One recorded tflite.proto.BenchmarkEvent with its log columns. has_*
 * tell which optional fields the event carries. */
typedef struct accel_bench_event {
        int64_t id;
        char *model_sha256;
        char *settings_key;
        char *driver_version;
        char *settings_json;                    /* tflite_settings */
        int event_type;                         /* 1 START, 2 END, 3 ERROR, 4 LOGGED */
        bool has_boottime_us, has_wallclock_us;
        int64_t boottime_us, wallclock_us;
        bool has_result;
        int64_t *initialization_time_us;
        size_t n_initialization_time_us;
        int64_t *inference_time_us;
        size_t n_inference_time_us;
        bool has_max_memory_kb, has_ok;
        int32_t max_memory_kb;
        bool ok;
        accel_bench_metric_t *metrics;
        size_t n_metrics;
        bool has_error, has_stage, has_exit_code, has_signal;
        int stage, exit_code, signal;
        accel_bench_error_code_t *error_codes;
        size_t n_error_codes;
} accel_bench_event_t;

typedef struct accel_bench_event_filter {
        const char *model_sha256;               /* NULL: any */
        const char *settings_key;               /* NULL: any */
        int event_type;                         /* 0: any */
        bool has_from, has_to;                  /* wallclock in [from_us, to_us) */
        int64_t from_us, to_us;
        uint32_t limit;                         /* 0: the daemon's maximum (1000) */
} accel_bench_event_filter_t;

/* Events of the log, oldest first; free with accel_bench_events_free().
 * filter may be NULL. */
ACCEL_EXPORT int accel_bench_events(accel_client_t *c, const accel_bench_event_filter_t *filter,
                                    accel_bench_event_t **ret, size_t *ret_n);
ACCEL_EXPORT void accel_bench_events_free(accel_bench_event_t *v, size_t n);

typedef struct accel_bench_best {
        char *settings_json;
        char *settings_key;
        char *label;
        char *reason;
        int64_t decided_at_us;
} accel_bench_best_t;

/* The chosen settings of a model for an ExecutionPreference (0 ANY,
 * 1 LOW_LATENCY, 2 LOW_POWER, 3 FORCE_CPU) and why. -ENOENT when no
 * setting has a correct result. Free with accel_bench_best_free(). */
ACCEL_EXPORT int accel_bench_best(accel_client_t *c, const char *model_sha256, int preference,
                                  accel_bench_best_t **ret);
ACCEL_EXPORT accel_bench_best_t *accel_bench_best_free(accel_bench_best_t *b);

/* Export events (model_sha256 NULL: all; limit 0: up to 1000) as
 * serialized tflite.proto.BenchmarkEvent messages; the daemon appends a
 * LOGGED event for each exported one. *ret_v[i] (malloc'ed) of
 * *ret_sizes[i] bytes; free with accel_bench_export_free(). */
ACCEL_EXPORT int accel_bench_export(accel_client_t *c, const char *model_sha256, uint32_t limit,
                                    uint8_t ***ret_v, size_t **ret_sizes, size_t *ret_n);
ACCEL_EXPORT void accel_bench_export_free(uint8_t **v, size_t *sizes, size_t n);

/* ---- evaluation stages on acceld (docs/evaluation.md) ----
 *
 * A stage measured on the instance an interpreter was prepared on (the one
 * acceld serves for its settings), stored by acceld under the caller's uid
 * beside the benchmark events. The inference diff is computed by acceld on
 * a worker; top-K and detection need the client's images and labels, so
 * the client computes them (through that interpreter) and records them.
 */

typedef enum accel_eval_stage {
        ACCEL_EVAL_STAGE_INFERENCE_DIFF = 1,
        ACCEL_EVAL_STAGE_TOPK = 2,
        ACCEL_EVAL_STAGE_DETECTION = 3,
} accel_eval_stage_t;

/* One stored result. */
typedef struct accel_evaluation {
        int64_t id;
        char *model_sha256;
        char *settings_key;
        char *stage;            /* "inference_diff", "topk", "detection" */
        char *source;           /* "acceld" (computed) or "client" (recorded) */
        bool has_accuracy;
        double accuracy;        /* top-1 accuracy, mAP, or a diff's largest mean output error */
        int64_t samples;        /* runs or images */
        char *metrics_json;     /* the seed's ProcessMetrics, proto3 JSON */
        int64_t wallclock_us;
        bool has_uid;
        uint32_t uid;
} accel_evaluation_t;

/* acceld's inference diff: `runs` (0: 50) random inputs from `seed` through
 * the interpreter's instance and the reference kernels. Blocks until done.
 * *ret: free with accel_evaluation_free(). 0 or -errno (-EBUSY while an
 * accel_interp_invoke_start() is not waited for). */
ACCEL_EXPORT int accel_interp_evaluate_diff(accel_interp_t *it, uint32_t runs, uint64_t seed,
                                            accel_evaluation_t **ret);
/* Record a top-K or detection result the client computed through `it`:
 * its ProcessMetrics JSON, headline figure in [0, 1] (top-1 accuracy, mAP;
 * has_accuracy false: none) and number of images. *ret may be NULL. */
ACCEL_EXPORT int accel_interp_evaluation_record(accel_interp_t *it, accel_eval_stage_t stage,
                                                const char *metrics_json, bool has_accuracy, double accuracy,
                                                uint32_t samples, accel_evaluation_t **ret);
ACCEL_EXPORT accel_evaluation_t *accel_evaluation_free(accel_evaluation_t *e);

/* Stored results, oldest first (the caller's own unless an operator):
 * model_sha256 NULL for all, limit 0 for the daemon's maximum (1000).
 * Free with accel_evaluations_free(). */
ACCEL_EXPORT int accel_evaluations(accel_client_t *c, const char *model_sha256, uint32_t limit,
                                   accel_evaluation_t **ret, size_t *ret_n);
ACCEL_EXPORT void accel_evaluations_free(accel_evaluation_t *v, size_t n);

#ifdef __cplusplus
}
#endif
