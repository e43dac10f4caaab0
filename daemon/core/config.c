/* SPDX-License-Identifier: Apache-2.0 */
/* acceld settings: the table, the INI reader and the command line. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <syslog.h>
#include <unistd.h>

#include <ini.h>

#include "cleanup.h"
#include "config.h"
#include "daemon-config.h"

typedef enum config_type {
        CONFIG_TYPE_STRING,
        CONFIG_TYPE_UINT,
        CONFIG_TYPE_ENUM,       /* stored as int: the index into names[] */
        CONFIG_TYPE_FRACTION,   /* stored as double in [0, 1]; def is in millionths */
} config_type_t;

typedef struct config_entry {
        const char *name;
        config_type_t type;
        size_t offset;
        uint64_t min, max, def;
        const char *const *names;       /* CONFIG_TYPE_ENUM, NULL-terminated */
        bool octal;                     /* print in octal (modes) */
        const char *description;
} config_entry_t;

/* Indexed by syslog priority. */
static const char *const log_level_names[] = {
        "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug", NULL,
};

static const char *const log_target_names[] = {
        [DAEMON_LOG_TARGET_AUTO] = "auto",
        [DAEMON_LOG_TARGET_JOURNAL] = "journal",
        [DAEMON_LOG_TARGET_STDERR] = "stderr",
        [_DAEMON_LOG_TARGET_MAX] = NULL,
};

static const char *const isolate_names[] = {
        [DAEMON_ISOLATE_PLUGINS] = "plugins",
        [DAEMON_ISOLATE_NONE] = "none",
        [DAEMON_ISOLATE_ALL] = "all",
        [_DAEMON_ISOLATE_MAX] = NULL,
};

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * 1024ull * 1024ull)

#define STR(n, field, desc) \
        { n, CONFIG_TYPE_STRING, offsetof(daemon_config_t, field), 0, 0, 0, NULL, false, desc }
#define UINT(n, field, lo, hi, d, desc) \
        { n, CONFIG_TYPE_UINT, offsetof(daemon_config_t, field), lo, hi, d, NULL, false, desc }
#define MODE(n, field, d, desc) \
        { n, CONFIG_TYPE_UINT, offsetof(daemon_config_t, field), 0, 0777, d, NULL, true, desc }
#define FRACTION(n, field, d_millionths, desc) \
        { n, CONFIG_TYPE_FRACTION, offsetof(daemon_config_t, field), 0, 1, d_millionths, NULL, false, desc }
#define ENUM(n, field, nm, d, desc) \
        { n, CONFIG_TYPE_ENUM, offsetof(daemon_config_t, field), 0, 0, d, nm, false, desc }

/* Every setting acceld has. Keep docs/usage.md and packaging/acceld.conf in
 * step (a test loads the packaged file). */
static const config_entry_t config_table[] = {
        STR("socket", socket_path,
            "Path of the listening Unix socket (ignored under socket activation). "
            "Default: /run/acceld/acceld.sock as root, $XDG_RUNTIME_DIR/acceld.sock otherwise."),
        STR("state_dir", state_dir,
            "State directory, acceld's alone (mode 0700; a more open one is narrowed at start). "
            "Default: /var/lib/acceld as root, $XDG_STATE_HOME/acceld or ~/.local/state/acceld otherwise."),
        MODE("socket_mode", socket_mode, 0660,
             "Permissions of a socket acceld binds itself."),
        UINT("max_frame_bytes", max_frame_bytes, 4 * KIB, 1 * GIB, 64 * MIB,
             "Largest frame payload accepted or sent; a bigger frame is a protocol error."),
        UINT("max_connections", max_connections, 1, 65536, 1024,
             "Open connections at once; further clients are accepted and closed."),
        UINT("max_connections_per_uid", max_connections_per_uid, 1, 65536, 128,
             "Open connections of one uid at once. Keep it below max_connections: root may connect past "
             "max_connections (up to this), so another uid's connections never lock root out."),
        UINT("max_fds_per_connection", max_fds_per_connection, 16, 1048576, 256,
             "File descriptors acceld holds for one connection: registered and allocated buffers plus "
             "fds received and not yet claimed by a request."),
        UINT("max_fds_per_uid", max_fds_per_uid, 16, 1048576, 1024,
             "The same over all connections of one uid, the connections themselves included."),
        UINT("max_input_bytes_per_uid", max_input_bytes_per_uid, 64 * KIB, 64 * GIB, 256 * MIB,
             "Bytes buffered from one uid's connections (frames not yet whole, half-sent ones included); "
             "the connection that would pass it is answered RESOURCE_EXHAUSTED and closed."),
        UINT("max_input_bytes", max_input_bytes, 64 * KIB, 64 * GIB, 512 * MIB,
             "The same over every connection."),
        UINT("max_frame_elements", max_frame_elements, 256, 16 * 1024 * 1024, 65536,
             "Fields, repeated elements and packed values (nested ones included) one request frame may "
             "hold; checked before it is unpacked, which also bounds its unpacked memory."),
        UINT("max_in_flight", max_in_flight, 1, 4096, 64,
             "Requests in flight per connection before acceld stops reading from it."),
        UINT("max_output_bytes", max_output_bytes, 64 * KIB, 4 * GIB, 128 * MIB,
             "Unsent reply bytes per connection before acceld stops reading from it."),
        UINT("shutdown_timeout_ms", shutdown_timeout_ms, 0, 600000, 10000,
             "On SIGTERM, how long in-flight requests may take before connections are cut."),
        ENUM("log_level", log_level, log_level_names, LOG_INFO,
             "Lowest priority logged: emerg, alert, crit, err, warning, notice, info, debug."),
        ENUM("log_target", log_target, log_target_names, DAEMON_LOG_TARGET_AUTO,
             "auto (the journal when started by systemd, else stderr), journal or stderr."),
        UINT("worker_threads", worker_threads, 1, 64, 2,
             "Worker threads per driver queue running compilations and executions."),
        UINT("instance_concurrency", instance_concurrency, 0, 64, 0,
             "Executions one shared compiled model runs at once, 0 = worker_threads. Each has its own "
             "arena and XNNPACK packing; folded weights are shared."),
        UINT("max_model_bytes", max_model_bytes, 1 * KIB, 4 * GIB, 1 * GIB,
             "Largest model PrepareModel accepts."),
        UINT("max_models_per_uid", max_models_per_uid, 0, 1000000, 64,
             "Prepared models (handles) one uid may hold at once; 0 = unlimited."),
        UINT("max_model_bytes_per_uid", max_model_bytes_per_uid, 0, 1024 * GIB, 2 * GIB,
             "Bytes of the models one uid's prepared handles hold (each handle counts its model's size); "
             "0 = unlimited."),
        UINT("max_registered_bytes_per_uid", max_registered_bytes_per_uid, 0, 1024 * GIB, 2 * GIB,
             "Bytes of registered and allocated buffers one uid may hold; 0 = unlimited."),
        UINT("max_queued_per_uid", max_queued_per_uid, 0, 1000000, 256,
             "Compilations and executions one uid may have queued or running; 0 = unlimited."),
        STR("allowed_uids", allowed_uids,
            "Comma-separated uids allowed to connect (root and acceld's uid always are); "
            "empty = all the socket's permissions let in."),
        STR("allowed_gids", allowed_gids,
            "Comma-separated gids whose members (primary gid) are allowed, as allowed_uids."),
        STR("default_delegate", default_delegate,
            "Delegate when PrepareModel gives no settings: auto (XNNPACK if built in, else NONE), "
            "NONE or XNNPACK."),
        STR("operators_group", operators_group,
            "Group (name or gid) whose members, like root, see and remove every uid's stored models and "
            "benchmark events; everyone else sees only their own. Empty = root only."),
        ENUM("isolate_drivers", isolate_drivers, isolate_names, DAEMON_ISOLATE_PLUGINS,
             "plugins (each plugin driver runs in its own acceld --driver-host child: a crash or hang costs "
             "only its requests), all (XNNPACK too) or none (plugins load into acceld)."),
        UINT("weights_cache_bytes", weights_cache_bytes, 0, 1024 * GIB, 4 * GIB,
             "Quota of the weights cache in <state_dir>/weights (folded weights mapped by every "
             "instance, worker and host); least recently used files go first. 0 = off."),
        UINT("batch_max_size", batch_max_size, 1, 64, 1,
             "Dynamic batching: queued executions of one model run as one invoke, up to this many; "
             "1 = off. Per model: PrepareModel's max_batch_size."),
        UINT("batch_max_delay_us", batch_max_delay_us, 0, 1000000, 0,
             "How long a batch may wait for more executions to arrive; a batch holding a request with "
             "a deadline never waits."),
        UINT("max_lanes", max_lanes, 0, 4096, 32,
             "Lanes (burst executions over shared memory, one thread each) open at once over every "
             "connection (per uid: at most max_queued_per_uid). 0 = off: every execution goes over the "
             "socket."),
        UINT("lane_spin_us", lane_spin_us, 0, 10000, 50,
             "How long a lane's thread polls its control block after an execution before it sleeps on "
             "the futex (a client invoking in a loop is served without a wake-up); 0 = never spin."),
        UINT("max_execution_ms", max_execution_ms, 1, 3600000, 10000,
             "Longest one execution in a driver host may take (compilations: at least 10 s); past it the "
             "host is killed and the request fails with DEAD_OBJECT."),
        FRACTION("max_accuracy_drop", max_accuracy_drop, 10000,
                 "Selection skips a setting whose recorded top-1 accuracy or mAP is below the reference "
                 "kernels' by more than this fraction; 1 = ignore accuracy."),
        UINT("benchmark_budget_ms", benchmark_budget_ms, 0, 86400000, 120000,
             "Time one benchmark run may take over all its candidates: none starts once it is spent, and "
             "each one's timed runs stop at its share of what is left (after 3 runs). 0 = no budget."),
        UINT("client_placement_max_us", client_placement_max_us, 0, 60000000, 10000,
             "Placement: a model computing in at most this many us may run in the client's process when "
             "its round trip costs more than client_placement_max_overhead of its compute. 0 = off."),
        FRACTION("client_placement_max_overhead", client_placement_max_overhead, 10000,
                 "Placement: the fraction of a model's compute the round trip may add before the model "
                 "runs in the client."),
        UINT("client_placement_min_served", client_placement_min_served, 0, 16, 0,
             "Placement of the client's own settings (no benchmark decision): placed from the median "
             "compute of this many served executions, served until then. 0 = never placed."),
};

static void *entry_ptr(daemon_config_t *c, const config_entry_t *e) {
        return (char *) c + e->offset;
}

static const void *entry_cptr(const daemon_config_t *c, const config_entry_t *e) {
        return (const char *) c + e->offset;
}

static void errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...) {
        va_list ap;

        if (!err || errlen == 0)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
}

size_t daemon_config_key_count(void) {
        return ELEMENTSOF(config_table);
}

static const config_entry_t *config_lookup(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(config_table); i++) {
                const char *a = config_table[i].name, *b = name;

                /* '-' and '_' are the same, so flags and keys share names. */
                while (*a && *b && (*a == *b || (*a == '_' && *b == '-')))
                        a++, b++;
                if (*a == '\0' && *b == '\0')
                        return &config_table[i];
        }
        return NULL;
}

static int parse_uint(const char *s, uint64_t *ret) {
        unsigned long long v, mult = 1;
        char *end;

        while (isspace((unsigned char) *s))
                s++;
        if (!isdigit((unsigned char) *s))
                return -EINVAL;         /* also rejects "-1", which strtoull would wrap */
        errno = 0;
        v = strtoull(s, &end, 0);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || end == s)
                return -EINVAL;
        switch (*end) {
        case 'K': case 'k': mult = KIB; end++; break;
        case 'M': case 'm': mult = MIB; end++; break;
        case 'G': case 'g': mult = GIB; end++; break;
        default: break;
        }
        while (isspace((unsigned char) *end))
                end++;
        if (*end != '\0')
                return -EINVAL;
        if (v > ULLONG_MAX / mult)
                return -ERANGE;
        *ret = v * mult;
        return 0;
}

static int parse_enum(const char *const *names, const char *s) {
        for (int i = 0; names[i]; i++)
                if (strcasecmp(names[i], s) == 0)
                        return i;
        return -EINVAL;
}

int daemon_log_level_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        if (strcasecmp(s, "error") == 0)
                return LOG_ERR;
        if (strcasecmp(s, "warn") == 0)
                return LOG_WARNING;
        return parse_enum(log_level_names, s);
}

const char *daemon_log_level_to_string(int level) {
        if (level < LOG_EMERG || level > LOG_DEBUG)
                return "unknown";
        return log_level_names[level];
}

void daemon_config_init(daemon_config_t *c) {
        memset(c, 0, sizeof(*c));
        for (size_t i = 0; i < ELEMENTSOF(config_table); i++) {
                const config_entry_t *e = &config_table[i];

                switch (e->type) {
                case CONFIG_TYPE_STRING:
                        *(char **) entry_ptr(c, e) = NULL;
                        break;
                case CONFIG_TYPE_UINT:
                        *(uint64_t *) entry_ptr(c, e) = e->def;
                        break;
                case CONFIG_TYPE_ENUM:
                        *(int *) entry_ptr(c, e) = (int) e->def;
                        break;
                case CONFIG_TYPE_FRACTION:
                        *(double *) entry_ptr(c, e) = (double) e->def / 1e6;
                        break;
                }
        }
}

void daemon_config_done(daemon_config_t *c) {
        if (!c)
                return;
        free(c->socket_path);
        free(c->state_dir);
        free(c->allowed_uids);
        free(c->allowed_gids);
        free(c->default_delegate);
        free(c->operators_group);
        memset(c, 0, sizeof(*c));
}

int daemon_config_set(daemon_config_t *c, const char *name, const char *value) {
        const config_entry_t *e;
        uint64_t u;
        int r;

        if (!c || !name || !value)
                return -EINVAL;
        e = config_lookup(name);
        if (!e)
                return -ENOENT;

        switch (e->type) {
        case CONFIG_TYPE_STRING: {
                char *s, **slot = entry_ptr(c, e);

                /* An empty value means "unset": the built-in default. */
                if (value[0] == '\0') {
                        free(*slot);
                        *slot = NULL;
                        return 0;
                }
                s = strdup(value);
                if (!s)
                        return -ENOMEM;
                free(*slot);
                *slot = s;
                return 0;
        }
        case CONFIG_TYPE_UINT:
                r = parse_uint(value, &u);
                if (r < 0)
                        return r;
                if (u < e->min || u > e->max)
                        return -ERANGE;
                *(uint64_t *) entry_ptr(c, e) = u;
                return 0;
        case CONFIG_TYPE_ENUM:
                r = e->names == log_level_names ? daemon_log_level_from_string(value)
                                                : parse_enum(e->names, value);
                if (r < 0)
                        return r;
                *(int *) entry_ptr(c, e) = r;
                return 0;
        case CONFIG_TYPE_FRACTION: {
                char *end;
                double d;

                errno = 0;
                d = strtod(value, &end);
                while (isspace((unsigned char) *end))
                        end++;
                if (errno != 0 || end == value || *end != '\0' || isnan(d))
                        return -EINVAL;
                if (d < (double) e->min || d > (double) e->max)
                        return -ERANGE;
                *(double *) entry_ptr(c, e) = d;
                return 0;
        }
        }
        return -EINVAL;
}

typedef struct ini_ctx {
        daemon_config_t *c;
        int error;
        char *err;
        size_t errlen;
} ini_ctx_t;

static const char *strerror_config(int r) {
        switch (r) {
        case -ENOENT: return "unknown setting";
        case -ERANGE: return "value out of range";
        case -EINVAL: return "invalid value";
        default: return strerror(-r);
        }
}

static int ini_cb(void *user, const char *section, const char *name, const char *value) {
        ini_ctx_t *ctx = user;
        int r;

        if (ctx->error < 0)
                return 1;       /* keep the first error; inih reports its line */
        if (section[0] != '\0' && strcmp(section, "acceld") != 0) {
                ctx->error = -ENOENT;
                errf(ctx->err, ctx->errlen, "unknown section [%s]", section);
                return 0;
        }
        if (!value) {
                ctx->error = -EINVAL;
                errf(ctx->err, ctx->errlen, "%s: missing value", name);
                return 0;
        }
        r = daemon_config_set(ctx->c, name, value);
        if (r < 0) {
                const config_entry_t *e = config_lookup(name);

                ctx->error = r;
                if (r == -ERANGE && e)
                        errf(ctx->err, ctx->errlen, "%s = %s: %s (%llu..%llu)", name, value,
                             strerror_config(r), (unsigned long long) e->min,
                             (unsigned long long) e->max);
                else
                        errf(ctx->err, ctx->errlen, "%s = %s: %s", name, value, strerror_config(r));
                return 0;
        }
        return 1;
}

static int finish_ini(ini_ctx_t *ctx, int line, int *ret_line) {
        if (line > 0 && ctx->error == 0) {
                /* inih's own syntax error, e.g. a line without '=' */
                ctx->error = -EINVAL;
                errf(ctx->err, ctx->errlen, "syntax error");
        }
        if (ctx->error < 0 && ret_line)
                *ret_line = line;
        return ctx->error;
}

int daemon_config_load_file(daemon_config_t *c, const char *path, int *ret_line,
                            char *err, size_t errlen) {
        _cleanup_fclose_ FILE *f = NULL;
        ini_ctx_t ctx = { .c = c, .err = err, .errlen = errlen };
        int line;

        if (!c || !path)
                return -EINVAL;
        f = fopen(path, "re");
        if (!f) {
                int r = -errno;

                errf(err, errlen, "%s", strerror(-r));
                return r;
        }
        line = ini_parse_file(f, ini_cb, &ctx);
        return finish_ini(&ctx, line, ret_line);
}

int daemon_config_load_string(daemon_config_t *c, const char *text, int *ret_line,
                              char *err, size_t errlen) {
        ini_ctx_t ctx = { .c = c, .err = err, .errlen = errlen };
        int line;

        if (!c || !text)
                return -EINVAL;
        line = ini_parse_string(text, ini_cb, &ctx);
        return finish_ini(&ctx, line, ret_line);
}

/* The flag name of "--name" / "--name=value" into buf. */
static int flag_name(const char *arg, char *buf, size_t len) {
        const char *eq;
        size_t n;

        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
                return -EINVAL;
        eq = strchr(arg + 2, '=');
        n = eq ? (size_t) (eq - arg - 2) : strlen(arg + 2);
        if (n + 1 > len)
                return -EINVAL;
        memcpy(buf, arg + 2, n);
        buf[n] = '\0';
        return 0;
}

/* The value of argv[*i]: after '=' or the next argument (then *i advances). */
static int flag_value(int argc, char **argv, int *i, const char **ret) {
        const char *eq = strchr(argv[*i], '=');

        if (eq) {
                *ret = eq + 1;
                return 0;
        }
        if (*i + 1 >= argc)
                return -EINVAL;
        *ret = argv[++*i];
        return 0;
}

static bool is_switch(const char *name) {
        return strcmp(name, "foreground") == 0 || strcmp(name, "dump-config") == 0 ||
               strcmp(name, "help") == 0 || strcmp(name, "version") == 0;
}

int daemon_config_from_args(daemon_config_t *c, daemon_args_t *ret_args, int argc, char **argv,
                            const char *default_config_path, char *err, size_t errlen) {
        daemon_args_t args = {};
        char name[64];
        const char *value = NULL;
        int r, line = 0;

        if (!c || !ret_args)
                return -EINVAL;

        /* Pass 1: switches and --config; anything unknown is rejected before
         * the config file is even opened. */
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "-h") == 0) {
                        args.help = true;
                        continue;
                }
                if (flag_name(argv[i], name, sizeof(name)) < 0) {
                        errf(err, errlen, "unexpected argument '%s'", argv[i]);
                        return -EINVAL;
                }
                if (is_switch(name)) {
                        if (strchr(argv[i], '=')) {
                                errf(err, errlen, "option '--%s' takes no value", name);
                                return -EINVAL;
                        }
                        if (strcmp(name, "foreground") == 0)
                                args.foreground = true;
                        else if (strcmp(name, "dump-config") == 0)
                                args.dump_config = true;
                        else if (strcmp(name, "help") == 0)
                                args.help = true;
                        else
                                args.version = true;
                        continue;
                }
                if (strcmp(name, "config") != 0 && !config_lookup(name)) {
                        errf(err, errlen, "unknown option '--%s'", name);
                        return -EINVAL;
                }
                if (flag_value(argc, argv, &i, &value) < 0) {
                        errf(err, errlen, "option '--%s' needs a value", name);
                        return -EINVAL;
                }
                if (strcmp(name, "config") == 0) {
                        args.config_path = value;
                        args.config_explicit = true;
                }
        }

        if (args.help || args.version) {
                *ret_args = args;
                return 0;
        }

        if (!args.config_explicit && default_config_path && access(default_config_path, F_OK) == 0)
                args.config_path = default_config_path;
        if (args.config_path) {
                char why[200] = "";

                r = daemon_config_load_file(c, args.config_path, &line, why, sizeof(why));
                if (r < 0) {
                        if (line > 0)
                                errf(err, errlen, "%s:%d: %s", args.config_path, line, why);
                        else
                                errf(err, errlen, "%s: %s", args.config_path, why);
                        return r;
                }
        }

        /* Pass 2: settings from flags override the file. Pass 1 validated
         * the shape of every argument. */
        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "-h") == 0)
                        continue;
                (void) flag_name(argv[i], name, sizeof(name));
                if (is_switch(name))
                        continue;
                (void) flag_value(argc, argv, &i, &value);
                if (strcmp(name, "config") == 0)
                        continue;
                r = daemon_config_set(c, name, value);
                if (r < 0) {
                        const config_entry_t *e = config_lookup(name);

                        if (r == -ERANGE && e)
                                errf(err, errlen, "--%s %s: %s (%llu..%llu)", name, value,
                                     strerror_config(r), (unsigned long long) e->min,
                                     (unsigned long long) e->max);
                        else
                                errf(err, errlen, "--%s %s: %s", name, value, strerror_config(r));
                        return r;
                }
        }

        *ret_args = args;
        return 0;
}

static int join_path(char **ret, const char *a, const char *b) {
        if (asprintf(ret, "%s/%s", a, b) < 0)
                return -ENOMEM;
        return 0;
}

/* The first directory of a systemd directory variable ($RUNTIME_DIRECTORY,
 * $STATE_DIRECTORY: colon-separated absolute paths, set from the unit's
 * RuntimeDirectory= and StateDirectory=), or NULL when unset. */
static int systemd_dir(char **ret, const char *var) {
        const char *v = getenv(var);
        size_t n;

        *ret = NULL;
        if (!v || v[0] != '/')
                return 0;
        n = strcspn(v, ":");
        *ret = strndup(v, n);
        return *ret ? 1 : -ENOMEM;
}

int daemon_config_resolve_paths(daemon_config_t *c, uid_t uid) {
        char *sd = NULL;
        int r;

        if (!c)
                return -EINVAL;
        /* Under systemd the service's own directories come first: the unit
         * runs acceld as User=acceld, where the per-user defaults below
         * (XDG_RUNTIME_DIR, HOME) do not apply. */
        if (!c->socket_path) {
                r = systemd_dir(&sd, "RUNTIME_DIRECTORY");
                if (r < 0)
                        return r;
                if (r > 0) {
                        r = join_path(&c->socket_path, sd, "acceld.sock");
                        free(sd);
                        if (r < 0)
                                return r;
                }
        }
        if (!c->state_dir) {
                r = systemd_dir(&c->state_dir, "STATE_DIRECTORY");
                if (r < 0)
                        return r;
        }
        if (!c->socket_path) {
                if (uid == 0) {
                        c->socket_path = strdup("/run/acceld/acceld.sock");
                        if (!c->socket_path)
                                return -ENOMEM;
                } else {
                        const char *rt = getenv("XDG_RUNTIME_DIR");

                        if (!rt || rt[0] != '/')
                                return -ENXIO;
                        r = join_path(&c->socket_path, rt, "acceld.sock");
                        if (r < 0)
                                return r;
                }
        }
        if (!c->state_dir) {
                if (uid == 0) {
                        c->state_dir = strdup("/var/lib/acceld");
                        if (!c->state_dir)
                                return -ENOMEM;
                } else {
                        const char *st = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

                        if (st && st[0] == '/')
                                r = join_path(&c->state_dir, st, "acceld");
                        else if (home && home[0] == '/')
                                r = join_path(&c->state_dir, home, ".local/state/acceld");
                        else
                                r = -ENXIO;
                        if (r < 0)
                                return r;
                }
        }
        /* A relative state directory is resolved once, against the working
         * directory acceld starts in: benchmark workers and driver hosts
         * enter it from their sandbox, which takes absolute paths only. */
        if (c->state_dir[0] != '/') {
                char *cwd = getcwd(NULL, 0), *abs = NULL;

                if (!cwd)
                        return -errno;
                r = join_path(&abs, cwd, c->state_dir);
                free(cwd);
                if (r < 0)
                        return r;
                free(c->state_dir);
                c->state_dir = abs;
        }
        return 0;
}

static void entry_format(const daemon_config_t *c, const config_entry_t *e, char *buf, size_t len) {
        switch (e->type) {
        case CONFIG_TYPE_STRING: {
                const char *s = *(char *const *) entry_cptr(c, e);

                (void) snprintf(buf, len, "%s", s ? s : "");
                break;
        }
        case CONFIG_TYPE_UINT: {
                unsigned long long v = *(const uint64_t *) entry_cptr(c, e);

                (void) snprintf(buf, len, e->octal ? "0%llo" : "%llu", v);
                break;
        }
        case CONFIG_TYPE_ENUM:
                (void) snprintf(buf, len, "%s", e->names[*(const int *) entry_cptr(c, e)]);
                break;
        case CONFIG_TYPE_FRACTION:
                (void) snprintf(buf, len, "%g", *(const double *) entry_cptr(c, e));
                break;
        }
}

void daemon_config_print_help(FILE *f, const char *argv0) {
        daemon_config_t defaults;

        daemon_config_init(&defaults);
        fprintf(f,
                "Usage: %s [OPTION]...\n"
                "The acceld on-device inference service.\n\n"
                "  --config FILE         read settings from FILE (default %s if present)\n"
                "  --foreground          accepted for compatibility; acceld never forks\n"
                "  --dump-config         print the effective settings as a config file and exit\n"
                "  -h, --help            show this help\n"
                "  --version             show the version\n\n"
                "Settings (also valid as config-file keys, with '_' for '-'):\n",
                argv0, ACCELD_SYSCONF_PATH);
        for (size_t i = 0; i < ELEMENTSOF(config_table); i++) {
                const config_entry_t *e = &config_table[i];
                char flag[64], def[64];
                size_t j;

                for (j = 0; e->name[j] && j + 1 < sizeof(flag); j++)
                        flag[j] = e->name[j] == '_' ? '-' : e->name[j];
                flag[j] = '\0';
                entry_format(&defaults, e, def, sizeof(def));
                fprintf(f, "  --%s VALUE\n      %s%s%s%s\n", flag, e->description,
                        def[0] ? " [" : "", def, def[0] ? "]" : "");
        }
        daemon_config_done(&defaults);
}

void daemon_config_dump(const daemon_config_t *c, FILE *f) {
        fprintf(f, "# acceld configuration; every key and its bounds: acceld --help\n[acceld]\n");
        for (size_t i = 0; i < ELEMENTSOF(config_table); i++) {
                const config_entry_t *e = &config_table[i];
                char v[PATH_MAX + 16];

                entry_format(c, e, v, sizeof(v));
                fprintf(f, "\n# %s\n", e->description);
                if ((e->type == CONFIG_TYPE_UINT && !e->octal) || e->type == CONFIG_TYPE_FRACTION)
                        fprintf(f, "# Range: %llu..%llu\n", (unsigned long long) e->min,
                                (unsigned long long) e->max);
                if (v[0] == '\0')
                        fprintf(f, "#%s =\n", e->name);
                else
                        fprintf(f, "%s = %s\n", e->name, v);
        }
}

int daemon_config_weights_dir(const daemon_config_t *c, char *buf, size_t size) {
        if (!c->state_dir || c->weights_cache_bytes == 0)
                return -ENOENT;
        int n = snprintf(buf, size, "%s/weights", c->state_dir);
        return n < 0 || (size_t) n >= size ? -ENAMETOOLONG : 0;
}
