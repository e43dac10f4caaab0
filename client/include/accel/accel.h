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
} accel_backend_t;

typedef struct accel_capabilities {
        accel_cpu_info_t cpu;
        accel_memory_info_t memory;
        accel_backend_t *backends;
        size_t n_backends;
} accel_capabilities_t;

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
} accel_daemon_status_t;

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

/* "NONE", "INVALID_ARGUMENT", ... (static strings); "UNKNOWN" otherwise. */
ACCEL_EXPORT const char *accel_status_to_string(accel_status_t status);

/* The calling thread's last error message ("" if none). Valid until the
 * thread's next libaccel call. */
ACCEL_EXPORT const char *accel_last_error(void);
/* The daemon status of the calling thread's last failed call, or
 * ACCEL_STATUS_NONE when it failed locally. */
ACCEL_EXPORT accel_status_t accel_last_status(void);

#ifdef __cplusplus
}
#endif
