/* SPDX-License-Identifier: Apache-2.0 */
/* acceld: the on-device inference service. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <uv.h>

#include "cleanup.h"
#include "clock.h"
#include "config.h"
#include "daemon-config.h"
#include "handlers.h"
#include "log.h"
#include "notify.h"
#include "server.h"
#include "serving.h"
#include "worker.h"
#include "host/host.h"
#include "host/sandbox.h"
#include "plugin.h"
#include "bench.h"
#include "storage-owner.h"

typedef struct acceld {
        uv_loop_t loop;
        daemon_config_t config;
        daemon_server_t server;
        daemon_serving_t serving;
        daemon_notify_t notify;
        uv_signal_t sig_term, sig_int;
        bool signals_open;
} acceld_t;

/*
 * The shutdown guard: SIGTERM ends acceld within shutdown_timeout_ms
 * whatever the drivers do. The loop's own timer cuts the connections then,
 * and the workers join once the hosts are killed; but a call hung inside
 * an in-process plugin (isolate_drivers = none) never returns, and its
 * worker can never be joined. So a thread started with the shutdown waits
 * for the timeout, kills the hosts, gives the orderly exit a moment, then
 * lets the storage thread finish what is queued and _exit()s.
 */
#define SHUTDOWN_GRACE_MS 100u

static struct {
        pthread_mutex_t mu;             /* guards all below; held while storage stops and hosts go */
        pthread_cond_t cond;
        bool finished;                  /* the orderly exit is done */
        bool storage_stopped;
        bool hosts_freed;
        uint64_t timeout_ms;
} guard = { .mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static int storage_flush_job(store_db_t *db, void *userdata) {
        (void) db;
        (void) userdata;
        return 0;
}

/* Wait on guard.cond until `deadline_ns` (CLOCK_MONOTONIC) or finished. */
static void guard_wait_locked(uint64_t deadline_ns) {
        while (!guard.finished) {
                uint64_t now = acc_now_ns();
                struct timespec ts;

                if (now >= deadline_ns)
                        return;
                (void) clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += (time_t) ((deadline_ns - now) / 1000000000ull);
                ts.tv_nsec += (long) ((deadline_ns - now) % 1000000000ull);
                if (ts.tv_nsec >= 1000000000L) {
                        ts.tv_sec++;
                        ts.tv_nsec -= 1000000000L;
                }
                (void) pthread_cond_timedwait(&guard.cond, &guard.mu, &ts);
        }
}

static void *guard_main(void *arg) {
        uint64_t start = (uint64_t) (uintptr_t) arg;

        pthread_mutex_lock(&guard.mu);
        guard_wait_locked(start + guard.timeout_ms * 1000000ull);
        if (guard.finished) {
                pthread_mutex_unlock(&guard.mu);
                return NULL;
        }
        /* Calls into hosts fail at once now; give the workers a moment. */
        if (!guard.hosts_freed)
                daemon_hosts_kill();
        guard_wait_locked(acc_now_ns() + SHUTDOWN_GRACE_MS * 1000000ull);
        if (guard.finished) {
                pthread_mutex_unlock(&guard.mu);
                return NULL;
        }
        log_warning("shutdown_timeout_ms (%llu) passed with a driver call still running: exiting without it",
                    (unsigned long long) guard.timeout_ms);
        /* The storage thread runs its queue in order: this call returns
         * once everything submitted before it is written. */
        if (!guard.storage_stopped)
                (void) daemon_storage_call(storage_flush_job, NULL);
        _exit(0);
}

static void guard_start(uint64_t timeout_ms) {
        pthread_attr_t attr;
        pthread_t t;

        if (!timeout_ms)
                return;
        guard.timeout_ms = timeout_ms;
        if (pthread_attr_init(&attr) != 0)
                return;
        (void) pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, guard_main, (void *) (uintptr_t) acc_now_ns()) != 0)
                log_warning("cannot start the shutdown guard: a hung driver call may hold up the exit");
        (void) pthread_attr_destroy(&attr);
}

static void guard_finish(void) {
        pthread_mutex_lock(&guard.mu);
        guard.finished = true;
        pthread_cond_broadcast(&guard.cond);
        pthread_mutex_unlock(&guard.mu);
}

/* mkdir -p: parents 0755, the directory itself 0700: the state is
 * acceld's alone, clients reach it only through requests (issue 21). An
 * existing directory of ours that its group or others may enter (an older
 * acceld's 0750, StateDirectoryMode=0750) is narrowed to 0700; storage/
 * does the same for what is inside. */
static int state_dir_create(const char *path) {
        _cleanup_free_ char *p = strdup(path);
        struct stat st;

        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        if (mkdir(p, 0700) < 0 && errno != EEXIST)
                return -errno;
        if (stat(p, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
        if ((st.st_mode & 077) && st.st_uid == geteuid()) {
                if (chmod(p, st.st_mode & 0700) < 0)
                        return -errno;
                log_notice("state directory %s was mode %04o; now %04o", p, (unsigned) (st.st_mode & 07777),
                           (unsigned) (st.st_mode & 0700));
        }
        return 0;
}

static void on_drained(daemon_server_t *s) {
        acceld_t *a = (acceld_t *) ((char *) s - offsetof(acceld_t, server));

        log_info("all connections closed, exiting");
        daemon_notify_stop(&a->notify);
        /* A call into a hung driver host must not hold the workers past the
         * shutdown timeout: the hosts go first, their calls fail at once. */
        daemon_hosts_kill();
        /* Workers join here; the async handle closes with the loop. */
        daemon_serving_done(&a->serving);
        /* The benchmark runner (kills a running worker), then the storage
         * thread everything above used. */
        daemon_bench_done();
        pthread_mutex_lock(&guard.mu);
        daemon_storage_stop();
        guard.storage_stopped = true;
        daemon_hosts_free();
        guard.hosts_freed = true;
        pthread_mutex_unlock(&guard.mu);
        if (a->signals_open) {
                a->signals_open = false;
                uv_close((uv_handle_t *) &a->sig_term, NULL);
                uv_close((uv_handle_t *) &a->sig_int, NULL);
        }
}

static void on_signal(uv_signal_t *h, int signum) {
        acceld_t *a = h->data;

        if (a->server.stopping) {
                log_notice("%s again while draining; still waiting for in-flight requests",
                           strsignal(signum));
                return;
        }
        log_info("%s: stopping, draining %u connection(s)", strsignal(signum), a->server.n_conns);
        daemon_notify_stopping("Shutting down");
        guard_start(a->config.shutdown_timeout_ms);
        daemon_server_shutdown(&a->server, on_drained);
}

static void plugin_cb(void *user, const char *path, int error, const char *message) {
        (void) user;
        if (error != -EEXIST)
                (void) log_warning_errno(error, "plugin %s: %s", path, message ? message : "");
}

/* Plugin drivers from $ACCELD_PLUGIN_DIR, else the build's plugin folder:
 * in driver hosts when drivers are isolated, else loaded into acceld.
 * Returns the folder benchmark workers load them from (NULL: none). */
static const char *plugins_start(const daemon_config_t *config) {
        const char *dir = getenv("ACCELD_PLUGIN_DIR");
        int n;

        if (!dir || !dir[0])
                dir = ACCELD_PLUGIN_DIR;
        if (config->isolate_drivers != DAEMON_ISOLATE_NONE) {
                /* Plugins never load into acceld itself, not even on demand. */
                rt_plugin_autoload_disable();
                n = daemon_hosts_start(dir, config->max_execution_ms);
                if (n < 0 && n != -ENOENT)
                        (void) log_warning_errno(n, "no driver hosts started");
                if (config->isolate_drivers == DAEMON_ISOLATE_ALL) {
                        n = daemon_hosts_start_xnnpack();
                        if (n < 0)
                                (void) log_warning_errno(n, "XNNPACK stays in acceld");
                }
        }
        if (access(dir, R_OK) < 0)
                return NULL;
        /* Isolated plugins are registered as driver-host proxies above;
         * benchmark workers still load them in their own process. */
        if (config->isolate_drivers == DAEMON_ISOLATE_NONE)
                (void) rt_plugin_load_dir(dir, plugin_cb, NULL);
        return dir;
}

static int run(acceld_t *a) {
        int r;

        r = uv_loop_init(&a->loop);
        if (r < 0)
                return log_error_errno(r, "uv_loop_init failed");

        daemon_server_init(&a->server, &a->loop, &a->config);
        r = daemon_serving_init(&a->serving, &a->server);
        if (r < 0) {
                (void) log_error_errno(r, "cannot set up serving (check allowed_uids/allowed_gids)");
                goto out;
        }
        /* Catch SIGTERM/SIGINT before the socket exists: a client may connect
         * (and a supervisor may stop us) as soon as we listen, and a signal
         * arriving during the start-up work below must drain, not kill. */
        a->sig_term.data = a->sig_int.data = a;
        if ((r = uv_signal_init(&a->loop, &a->sig_term)) < 0 ||
            (r = uv_signal_init(&a->loop, &a->sig_int)) < 0) {
                (void) log_error_errno(r, "uv_signal_init failed");
                goto out;
        }
        a->signals_open = true;
        if ((r = uv_signal_start(&a->sig_term, on_signal, SIGTERM)) < 0 ||
            (r = uv_signal_start(&a->sig_int, on_signal, SIGINT)) < 0) {
                (void) log_error_errno(r, "uv_signal_start failed");
                goto out;
        }

        r = daemon_server_listen(&a->server);
        if (r < 0) {
                (void) log_error_errno(r, "cannot listen on %s",
                                       a->config.socket_path ? a->config.socket_path : "(none)");
                goto out;
        }
        /* Storage and benchmarks, only once we own the socket (the
         * benchmark start-up scan must not touch the runs of another acceld
         * on this state directory). A failure is logged and leaves what
         * needs them unavailable; the daemon serves on. */
        {
                const char *plugin_dir = plugins_start(&a->config);

                (void) daemon_storage_start(&a->loop, a->config.state_dir);
                (void) daemon_bench_init(&a->loop, &a->config, plugin_dir);
        }

        r = daemon_notify_start(&a->notify, &a->loop);
        if (r < 0) {
                (void) log_error_errno(r, "cannot start the watchdog timer");
                goto out;
        }

        log_full(LOG_INFO,
                 DLOG_FIELDS(a->server.activated ? "SOCKET_ACTIVATED=1" : "SOCKET_ACTIVATED=0"),
                 "acceld %s listening on %s%s (state in %s)", ACCELD_VERSION, a->server.socket_path,
                 a->server.activated ? " (socket activation)" : "", a->config.state_dir);
        {
                char status[512];

                (void) snprintf(status, sizeof(status), "Listening on %s", a->server.socket_path);
                daemon_notify_ready(status);
        }

        r = uv_run(&a->loop, UV_RUN_DEFAULT);
        (void) r;
        r = 0;
out:
        if (r < 0) {
                /* Failed start: close whatever is open and let the loop settle. */
                daemon_server_shutdown(&a->server, NULL);
                on_drained(&a->server);
                (void) uv_run(&a->loop, UV_RUN_DEFAULT);
        }
        daemon_server_done(&a->server);
        if (uv_loop_close(&a->loop) == UV_EBUSY)
                log_warning("handles left open at exit");
        return r;
}

int main(int argc, char **argv) {
        acceld_t a = {};
        daemon_args_t args;
        char err[512] = "";
        int r;

        /* A benchmark worker child, not the daemon. */
        if (argc > 1 && strcmp(argv[1], DAEMON_WORKER_ARG) == 0)
                return daemon_worker_main(argc, argv);
        /* A driver-host child: one plugin, out of the daemon's address space. */
        if (argc > 1 && strcmp(argv[1], DAEMON_HOST_ARG) == 0)
                return daemon_host_main(argc, argv);

        daemon_config_init(&a.config);
        r = daemon_config_from_args(&a.config, &args, argc, argv, ACCELD_SYSCONF_PATH, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "acceld: %s\n", err);
                if (r == -EINVAL && strstr(err, "option"))
                        fprintf(stderr, "Try 'acceld --help'.\n");
                daemon_config_done(&a.config);
                return 2;
        }
        if (args.help) {
                daemon_config_print_help(stdout, "acceld");
                daemon_config_done(&a.config);
                return 0;
        }
        if (args.version) {
                printf("acceld %s (protocol %d)\n", ACCELD_VERSION, ACCELD_PROTOCOL_VERSION);
                daemon_config_done(&a.config);
                return 0;
        }
        daemon_log_setup(a.config.log_target, a.config.log_level);

        r = daemon_config_resolve_paths(&a.config, geteuid());
        if (r < 0) {
                (void) log_error_errno(r, "cannot derive default paths (set XDG_RUNTIME_DIR and HOME, "
                                          "or pass --socket and --state-dir)");
                daemon_config_done(&a.config);
                return 1;
        }
        if (args.dump_config) {
                daemon_config_dump(&a.config, stdout);
                daemon_config_done(&a.config);
                return 0;
        }
        if (args.config_path)
                log_debug("configuration read from %s", args.config_path);

        r = state_dir_create(a.config.state_dir);
        if (r < 0) {
                (void) log_error_errno(r, "cannot create state directory %s", a.config.state_dir);
                daemon_config_done(&a.config);
                return 1;
        }
        {
                /* Before any thread or child: acceld non-dumpable, and what
                 * hosts and workers hide (host/sandbox.h). */
                char weights[4096];
                bool cache = daemon_config_weights_dir(&a.config, weights, sizeof(weights)) == 0;

                r = daemon_sandbox_init(a.config.state_dir, cache ? weights : NULL);
                if (r < 0) {
                        (void) log_error_errno(r, "cannot prepare the sandbox of driver hosts and workers");
                        daemon_config_done(&a.config);
                        return 1;
                }
        }
        (void) daemon_caps_init();
        (void) signal(SIGPIPE, SIG_IGN);

        r = run(&a);
        guard_finish();
        daemon_config_done(&a.config);
        return r < 0 ? 1 : 0;
}
