/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acceld's settings: one table (config.c) lists every setting with its name,
 * type, bounds and default, after redis's config.c. The same table drives
 * the config file (an INI file read with inih; keys in the [acceld] section
 * or before any section), the command line (--max-frame-bytes for
 * max_frame_bytes) and `acceld --dump-config`.
 *
 * Precedence: built-in default < config file < command-line flag.
 *
 * Everything here runs on the main thread before the loop starts; nothing
 * logs. Errors are negative errnos, with a human-readable reason written
 * into a caller-provided buffer where one is taken.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef enum daemon_log_target {
        DAEMON_LOG_TARGET_AUTO,     /* journal when run by systemd, else stderr */
        DAEMON_LOG_TARGET_JOURNAL,
        DAEMON_LOG_TARGET_STDERR,
        _DAEMON_LOG_TARGET_MAX,
} daemon_log_target_t;

/* Which drivers run in a driver-host child instead of in acceld. */
typedef enum daemon_isolate {
        DAEMON_ISOLATE_PLUGINS,
        DAEMON_ISOLATE_NONE,
        DAEMON_ISOLATE_ALL,
        _DAEMON_ISOLATE_MAX,
} daemon_isolate_t;

typedef struct daemon_config {
        char *socket_path;              /* NULL: the default for this user */
        char *state_dir;                /* NULL: the default for this user */
        uint64_t max_frame_bytes;
        uint64_t max_connections;
        uint64_t max_connections_per_uid; /* root: may pass max_connections, never this */
        uint64_t max_fds_per_connection; /* registered buffers + fds received and not yet claimed */
        uint64_t max_fds_per_uid;       /* the same over a uid's connections, plus the connections */
        uint64_t max_input_bytes_per_uid; /* read buffers (half-sent frames) of a uid's connections */
        uint64_t max_input_bytes;       /* the same over every connection */
        uint64_t max_frame_elements;    /* fields + repeated elements one request may unpack into */
        uint64_t max_in_flight;         /* per connection */
        uint64_t max_output_bytes;      /* per connection, before reading pauses */
        uint64_t socket_mode;
        uint64_t shutdown_timeout_ms;
        int log_level;                  /* LOG_EMERG .. LOG_DEBUG */
        int log_target;                 /* daemon_log_target_t */
        /* Serving. */
        uint64_t worker_threads;        /* per driver queue */
        uint64_t instance_concurrency;  /* executions at once per compiled instance */
        uint64_t max_model_bytes;
        uint64_t max_models_per_uid;    /* 0 = unlimited */
        uint64_t max_model_bytes_per_uid; /* sizes of the models a uid's handles hold; 0 = unlimited */
        uint64_t max_registered_bytes_per_uid;
        uint64_t max_queued_per_uid;
        char *allowed_uids;             /* comma-separated; NULL = everyone the socket lets in */
        char *allowed_gids;
        char *default_delegate;         /* "NONE", "XNNPACK", ...; NULL = "auto" */
        char *operators_group;          /* group name or gid whose members see every uid's models and events */
        /* Driver hosts. */
        int isolate_drivers;            /* daemon_isolate_t */
        uint64_t max_execution_ms;      /* bound of one call into a driver host */
        uint64_t weights_cache_bytes;   /* quota of <state_dir>/weights; 0 = no cache */
        uint64_t batch_max_size;        /* dynamic batching: executions per invoke; 1 = off */
        uint64_t batch_max_delay_us;    /* how long a batch waits to fill */
        uint64_t max_lanes;             /* lanes open at once; 0 = off */
        uint64_t lane_spin_us;          /* a lane thread polls this long before it sleeps */
        /* Selection: largest accepted drop of a setting's recorded
         * accuracy against the reference kernels' (fraction, 0..1). */
        double max_accuracy_drop;
        /* Time budget of one benchmark run's search (ms); 0 = none. */
        uint64_t benchmark_budget_ms;
        /* Placement (bench/placement.h): a model whose measured compute is
         * at most client_placement_max_us (0 = placement off) and whose
         * request round trip costs more than client_placement_max_overhead
         * of that compute runs in the client's process. */
        uint64_t client_placement_max_us;
        double client_placement_max_overhead;
        /* Settings no benchmark decision covers (the client's own) are
         * placed from this many served executions' compute; 0 = never. */
        uint64_t client_placement_min_served;
} daemon_config_t;

/* Fill `c` with the built-in defaults. Never fails. */
void daemon_config_init(daemon_config_t *c);
/* Free the strings in `c` and zero it. Safe on a zeroed config. */
void daemon_config_done(daemon_config_t *c);

/*
 * Set one setting from its textual value, as found in the config file.
 * Names are the table's names ("max_frame_bytes"); '-' is accepted for '_'.
 * Numbers accept decimal, 0x hex and 0-prefixed octal plus an optional
 * K/M/G suffix (powers of 1024); booleans yes/no/true/false/on/off/1/0.
 * Returns 0, -ENOENT for an unknown name, -EINVAL for a value that does not
 * parse, -ERANGE for a number outside the setting's bounds, -ENOMEM.
 * On failure `c` is unchanged.
 */
int daemon_config_set(daemon_config_t *c, const char *name, const char *value);

/*
 * Read an INI file. Unknown keys, unknown sections and bad values are
 * errors; settings already applied stay applied. Returns 0, -errno from
 * opening the file (-ENOENT when missing), or the first error of
 * daemon_config_set(); *ret_line (optional) gets that error's line number.
 * A reason is written to err (optional, errlen bytes).
 */
int daemon_config_load_file(daemon_config_t *c, const char *path, int *ret_line,
                            char *err, size_t errlen);
/* Same, from a NUL-terminated string (tests). */
int daemon_config_load_string(daemon_config_t *c, const char *text, int *ret_line,
                              char *err, size_t errlen);

/* What the command line asked for besides settings. */
typedef struct daemon_args {
        const char *config_path;        /* --config; borrowed from argv */
        bool config_explicit;
        bool help;
        bool version;
        bool dump_config;
        bool foreground;                /* accepted; acceld never forks */
} daemon_args_t;

/*
 * Build the configuration from defaults, the config file and argv, in that
 * order. The config file is --config FILE if given (then it must exist),
 * else `default_config_path` if that file exists (NULL: none).
 * Flags are `--NAME VALUE` or `--NAME=VALUE` for every table setting, plus
 * --config FILE, --foreground, --dump-config, --help/-h, --version.
 * Returns 0, or a negative errno with a reason in err; -EINVAL for a usage
 * error. `c` must have been initialised with daemon_config_init().
 */
int daemon_config_from_args(daemon_config_t *c, daemon_args_t *ret_args, int argc, char **argv,
                            const char *default_config_path, char *err, size_t errlen);

/* The weights cache directory, <state_dir>/weights, into buf. 0, -ENOENT
 * (the cache is off or there is no state directory), -ENAMETOOLONG. */
int daemon_config_weights_dir(const daemon_config_t *c, char *buf, size_t size);

/*
 * Fill socket_path and state_dir when unset: as root (uid 0)
 * /run/acceld/acceld.sock and /var/lib/acceld; otherwise
 * $XDG_RUNTIME_DIR/acceld.sock and $XDG_STATE_HOME/acceld (else
 * $HOME/.local/state/acceld). -ENXIO when a non-root default cannot be
 * derived (no XDG_RUNTIME_DIR or no HOME), -ENOMEM.
 */
int daemon_config_resolve_paths(daemon_config_t *c, uid_t uid);

/* Print usage, generated from the table. */
void daemon_config_print_help(FILE *f, const char *argv0);
/* Print every setting with its description and current value as an INI
 * file that daemon_config_load_file() accepts. */
void daemon_config_dump(const daemon_config_t *c, FILE *f);

/* How many settings the table has (the packaged acceld.conf lists each). */
size_t daemon_config_key_count(void);

/* "info" -> LOG_INFO etc.; -EINVAL if unknown. */
int daemon_log_level_from_string(const char *s);
/* LOG_INFO -> "info"; "unknown" out of range. */
const char *daemon_log_level_to_string(int level);
