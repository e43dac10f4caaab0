/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark runner thread and its worker children (bench/runner.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cpuinfo.h>

#include "file-read.h"
#include "child-exec.h"
#include "clock.h"
#include "runner.h"
#include "scheduler.h"
#include "placement.h"
#include "select.h"
#include "models.h"
#include "cleanup.h"
#include "driver.h"
#include "log.h"
#include "worker.h"
#include "candidates.h"

/* AddressSanitizer reserves terabytes of shadow address space at start, so
 * an address-space limit makes every worker of a sanitizer build fail. */
#if defined(__SANITIZE_ADDRESS__)
#define BENCH_LIMIT_AS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_LIMIT_AS 0
#endif
#endif
#ifndef BENCH_LIMIT_AS
#define BENCH_LIMIT_AS 1
#endif

#define BENCH_QUEUE_MAX 16
#define BENCH_KEEP_FINISHED 32
#define BENCH_MODEL_MAX (1ull << 30)

#define WORKER_STAGE_FD DAEMON_WORKER_STAGE_FD

typedef struct bench_run {
        int64_t id;
        bench_request_t req;
        char sha256[ACC_SHA256_HEX_SIZE];
        bench_candidate_t *c;
        size_t n;
        size_t best;                    /* index, or SIZE_MAX */
        bool started, finished;
        char message[256];
        struct bench_run *next;
} bench_run_t;

struct bench_runner {
        store_thread_t *store;
        char *worker_exe;
        char *plugin_dir;
        char *weights_dir;              /* NULL: workers fold without the cache */
        double max_accuracy_drop;       /* selection after each run */
        uint32_t budget_ms;             /* a generated search's time budget; 0: none */
        bench_run_done_fn done_fn;
        void *userdata;
        pthread_t thread;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        bool stop;
        bench_run_t *runs;              /* newest first: queued, running and finished */
        int64_t next_id;
};

static const char *const state_names[_BENCH_STATE_MAX] = {
        [BENCH_STATE_PENDING] = "pending",
        [BENCH_STATE_RUNNING] = "running",
        [BENCH_STATE_DONE] = "done",
        [BENCH_STATE_SKIPPED] = "skipped",
};

const char *bench_state_to_string(bench_state_t s) {
        return s >= 0 && s < _BENCH_STATE_MAX ? state_names[s] : "?";
}

void bench_request_done(bench_request_t *r) {
        if (!r)
                return;
        if (r->model_fd >= 0)
                (void) close(r->model_fd);
        free(r->model);
        for (size_t i = 0; i < r->n_candidates; i++)
                rt_settings_done(&r->candidates[i]);
        free(r->candidates);
        for (size_t i = 0; i < r->n_inputs; i++)
                free(r->inputs[i].data);
        free(r->inputs);
        for (size_t i = 0; i < r->n_outputs; i++)
                free(r->outputs[i].data);
        free(r->outputs);
        *r = (bench_request_t) { .model_fd = -1 };
}

void bench_candidate_done(bench_candidate_t *c) {
        if (!c)
                return;
        rt_settings_done(&c->settings);
        free(c->key);
        free(c->event);
        free(c->partition_nodes);
        free(c->partition_delegated);
        *c = (bench_candidate_t) {};
}

/* ---- candidates ---- */

static bool cpu_has_fp16_arith(void) {
        if (!cpuinfo_initialize())
                return false;
#if CPUINFO_ARCH_ARM || CPUINFO_ARCH_ARM64
        return cpuinfo_has_arm_neon_fp16_arith();
#else
        return false; /* XNNPACK's FP16 inference needs AVX512-FP16 or ARM FP16 arithmetic */
#endif
}

void bench_driver_versions(char *buf, size_t size) {
        size_t off = 0;

        if (size == 0)
                return;
        buf[0] = 0;
        (void) rt_driver_find("reference"); /* registers the built-in drivers */
        for (size_t i = 0; i < rt_driver_count(); i++) {
                const rt_driver_t *d = rt_driver_get(i);
                int k;

                if (!d)
                        continue;
                k = snprintf(buf + off, size - off, "%s%s=%s", off ? ";" : "", d->name,
                             d->version ? d->version : "");
                if (k < 0 || (size_t) k >= size - off)
                        break;
                off += (size_t) k;
        }
}

/* ---- one candidate in a child ---- */

/* Written once, then sealed: the worker maps the model in place
 * (rt_model_load_fd() copies an fd that could still change). */
static int memfd_with(const char *name, const void *data, size_t size) {
        int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        const uint8_t *p = data;
        size_t left = size;

        if (fd < 0)
                return -errno;
        while (left > 0) {
                ssize_t k = write(fd, p, left);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = -errno;
                        (void) close(fd);
                        return r;
                }
                p += k;
                left -= (size_t) k;
        }
        /* Final content: sealed before the worker sees it. */
        if (lseek(fd, 0, SEEK_SET) < 0 ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
                int r = -errno;
                (void) close(fd);
                return r;
        }
        return fd;
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

/* Fill c's summary from an END event. */
static void summary_from_result(bench_candidate_t *c, const Tflite__Proto__BenchmarkResult *res) {
        c->ok = res->has_ok && res->ok;
        c->init_us = res->n_initialization_time_us > 0 ? res->initialization_time_us[0] : -1;
        c->max_memory_kb = res->has_max_memory_kb ? res->max_memory_kb : -1;
        c->median_us = c->p90_us = -1;
        c->runs = (uint32_t) res->n_inference_time_us;
        if (res->n_inference_time_us > 0) {
                size_t n = res->n_inference_time_us;
                int64_t *t = malloc(n * sizeof(*t));

                if (t) {
                        memcpy(t, res->inference_time_us, n * sizeof(*t));
                        qsort(t, n, sizeof(*t), cmp_i64);
                        c->median_us = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
                        c->p90_us = t[(n * 9 + 9) / 10 - 1];
                        free(t);
                }
        }
}

static void child_exec(pid_t parent, const char *exe, int job_fd, int model_fd, int result_fd, int stage_fd,
                       uint32_t timeout_ms, int threads) {
        /* Async-signal-safe calls only: we are the child of a threaded process. */
        int src[4] = { job_fd, model_fd, result_fd, stage_fd };
        int dst[4] = { DAEMON_WORKER_JOB_FD, DAEMON_WORKER_MODEL_FD, DAEMON_WORKER_RESULT_FD, WORKER_STAGE_FD };
        int tmp[4];
        struct rlimit rl;
        int devnull;
        char *const argv[] = { (char *) exe, (char *) DAEMON_WORKER_ARG, NULL };

        (void) setpgid(0, 0);
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* acceld may have ended between the fork and the prctl: then no
         * signal comes, and the worker, in a process group of its own,
         * would outlive it (holding acceld's stderr open). */
        if (getppid() != parent)
                _exit(127);
        for (int i = 0; i < 4; i++) {
                tmp[i] = fcntl(src[i], F_DUPFD, 10);
                if (tmp[i] < 0)
                        _exit(126);
        }
        for (int i = 0; i < 4; i++)
                if (dup2(tmp[i], dst[i]) < 0)
                        _exit(126);
        devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
                (void) dup2(devnull, 1);
#ifdef SYS_close_range
        (void) syscall(SYS_close_range, 6, ~0u, 0);
#endif
        if (BENCH_LIMIT_AS) {
                rl.rlim_cur = rl.rlim_max = BENCH_WORKER_AS_BYTES;
                (void) setrlimit(RLIMIT_AS, &rl);
        }
        /* CPU seconds: every thread may use the whole timeout, plus start-up. */
        rl.rlim_cur = rl.rlim_max = (rlim_t) (timeout_ms / 1000 + 1) * (rlim_t) (threads + 1) + 5;
        (void) setrlimit(RLIMIT_CPU, &rl);
        rl.rlim_cur = rl.rlim_max = 0;
        (void) setrlimit(RLIMIT_CORE, &rl);
        acc_child_exec(exe, argv);
}

static void set_error(bench_candidate_t *c, const char *fmt, const char *arg) {
        (void) snprintf(c->error, sizeof(c->error), fmt, arg);
}

/* The child's three memfds: the packed job (with the candidate's settings,
 * also returned packed in *sb for the ERROR event), and the empty result
 * and stage files it writes. */
typedef struct worker_fds {
        int job, result, stage;
} worker_fds_t;

static void worker_fds_close(worker_fds_t *f) {
        closep(&f->job);
        closep(&f->result);
        closep(&f->stage);
}

static int worker_job_write(const Acceld__BenchmarkWorkerJob *job_in, const bench_candidate_t *c, uint8_t **sb,
                            size_t *sn, worker_fds_t *ret) {
        Acceld__BenchmarkWorkerJob job = *job_in;
        _cleanup_free_ uint8_t *jb = NULL;
        _cleanup_free_ char *json = NULL;
        size_t jn;
        int r;

        r = rt_settings_pack(&c->settings, sb, sn);
        if (r < 0)
                return r;
        r = rt_settings_to_json(&c->settings, &json);
        if (r < 0)
                return r;
        job.has_tflite_settings = 1;
        job.tflite_settings.data = *sb;
        job.tflite_settings.len = *sn;
        job.settings_json = json;
        jn = acceld__benchmark_worker_job__get_packed_size(&job);
        jb = malloc(jn ? jn : 1);
        if (!jb)
                return -ENOMEM;
        (void) acceld__benchmark_worker_job__pack(&job, jb);
        ret->job = memfd_with("acceld-bench-job", jb, jn);
        if (ret->job < 0)
                return ret->job;
        /* The worker only appends to these (acceld reads them, never maps
         * them): sealed against shrinking. */
        ret->result = memfd_create("acceld-bench-result", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        ret->stage = memfd_create("acceld-bench-stage", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (ret->result < 0 || ret->stage < 0 ||
            fcntl(ret->result, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
            fcntl(ret->stage, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
                return -errno;
        return 0;
}

/* fork + exec the worker in its own process group. The child's pid or
 * -errno. */
static pid_t worker_spawn(const char *exe, int model_fd, const worker_fds_t *fds, uint32_t timeout_ms,
                          int threads) {
        pid_t parent = getpid();
        pid_t pid = fork();

        if (pid < 0)
                return -errno;
        if (pid == 0)
                child_exec(parent, exe, fds->job, model_fd, fds->result, fds->stage, timeout_ms, threads);
        (void) setpgid(pid, pid); /* also here, so the group exists before any kill */
        return pid;
}

static void worker_kill(pid_t pid) {
        (void) kill(-pid, SIGKILL);
        (void) kill(pid, SIGKILL);
}

/* Wait for the worker to exit, killing it at the deadline or on *cancel.
 * Sleeps in poll() on a pidfd, so an exit is seen at once; the cancel flag
 * is looked at every BENCH_CANCEL_POLL_MS. Without pidfds (old kernels)
 * the same loop sleeps that long between waitpid(WNOHANG) calls. Returns
 * the wait status (0 if it could not be had); *ret_timed_out tells whether
 * it was killed. */
#define BENCH_CANCEL_POLL_MS 5
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434      /* the same number on every architecture */
#endif
static int worker_wait(pid_t pid, int64_t deadline_us, const bool *cancel, bool *ret_timed_out) {
        _cleanup_close_ int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        bool timed_out = false;
        int status = 0;

        for (;;) {
                pid_t k = waitpid(pid, &status, WNOHANG);

                if (k == pid)
                        break;
                if (k < 0 && errno != EINTR) {
                        status = 0;
                        break;
                }
                if (!timed_out && (acc_clock_us(CLOCK_MONOTONIC) >= deadline_us ||
                                   (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)))) {
                        timed_out = true;
                        worker_kill(pid);
                }
                if (pidfd >= 0)
                        (void) poll(&(struct pollfd) { .fd = pidfd, .events = POLLIN }, 1, BENCH_CANCEL_POLL_MS);
                else
                        (void) nanosleep(&(struct timespec) { .tv_nsec = BENCH_CANCEL_POLL_MS * 1000 * 1000 }, NULL);
        }
        /* Anything the worker left in its group (threads are in-process, but a plugin may fork). */
        (void) kill(-pid, SIGKILL);
        *ret_timed_out = timed_out;
        return status;
}

/* The last stage the worker entered ('I'nitialization, 'R'uns), 0 if none. */
static char worker_stage_read(int stage_fd) {
        struct stat st;
        char stage = 0;

        if (pread(stage_fd, &stage, 1, 0) < 0)
                stage = 0;
        if (fstat(stage_fd, &st) == 0 && st.st_size > 0)
                (void) pread(stage_fd, &stage, 1, st.st_size - 1);
        return stage;
}

/* The END event the worker built, as c's event and summary. */
static int candidate_end_set(bench_candidate_t *c, const Acceld__BenchmarkWorkerResult *res,
                             const Tflite__Proto__BenchmarkEvent *wev) {
        summary_from_result(c, wev->result);
        c->pruned = daemon_worker_event_pruned_runs(wev) > 0;
        c->event = malloc(res->event.len ? res->event.len : 1);
        if (!c->event)
                return -ENOMEM;
        memcpy(c->event, res->event.data, res->event.len);
        c->event_size = res->event.len;
        if (!c->ok)
                set_error(c, "%s", "outputs differ from the goldens beyond the thresholds");
        return 0;
}

static const char *stage_to_string(Tflite__Proto__BenchmarkStage s) {
        return s == TFLITE__PROTO__BENCHMARK_STAGE__INFERENCE        ? "inference"
               : s == TFLITE__PROTO__BENCHMARK_STAGE__INITIALIZATION ? "initialization"
                                                                     : "unknown stage";
}

/* How the worker ended, for an ERROR event. */
typedef struct worker_exit {
        int status;
        bool timed_out;
        char stage;
        uint32_t timeout_ms;
        const Acceld__BenchmarkWorkerResult *res;
        const Tflite__Proto__BenchmarkEvent *wev;
} worker_exit_t;

/* An ERROR event as c's event: the worker's own report when it made one
 * and exited, else built from how it died (stage, signal, exit code,
 * -ETIMEDOUT). sb/sn: the candidate's packed settings. */
static int candidate_error_set(bench_candidate_t *c, const worker_exit_t *x, const uint8_t *sb, size_t sn) {
        Tflite__Proto__BenchmarkEvent ev = TFLITE__PROTO__BENCHMARK_EVENT__INIT;
        Tflite__Proto__BenchmarkError er = TFLITE__PROTO__BENCHMARK_ERROR__INIT;
        Tflite__Proto__ErrorCode code = TFLITE__PROTO__ERROR_CODE__INIT, *codes[1] = { &code };
        Tflite__Proto__TFLiteSettings *ts = NULL;
        int status = x->status;

        if (x->wev && x->wev->has_event_type && x->wev->event_type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR &&
            x->wev->error && !x->timed_out && !WIFSIGNALED(status)) {
                ev = *x->wev;
                er = *x->wev->error;
        } else {
                er.has_stage = 1;
                er.stage = x->stage == 'R'   ? TFLITE__PROTO__BENCHMARK_STAGE__INFERENCE
                           : x->stage == 'I' ? TFLITE__PROTO__BENCHMARK_STAGE__INITIALIZATION
                                             : TFLITE__PROTO__BENCHMARK_STAGE__UNKNOWN;
                code.has_source = 1;
                code.source = c->settings.delegate == RT_DELEGATE_PLUGIN
                                      ? TFLITE__PROTO__DELEGATE__NONE
                                      : (Tflite__Proto__Delegate) c->settings.delegate;
                code.has_underlying_api_error = 1;
                code.underlying_api_error = x->timed_out ? -ETIMEDOUT : 0;
                er.error_code = codes;
                er.n_error_code = 1;
        }
        if (WIFSIGNALED(status)) {
                er.has_signal = 1;
                er.signal = WTERMSIG(status);
        }
        if (WIFEXITED(status)) {
                er.has_exit_code = 1;
                er.exit_code = WEXITSTATUS(status);
        }
        ev.has_event_type = 1;
        ev.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__ERROR;
        ev.result = NULL;
        ev.error = &er;
        if (!ev.tflite_settings && (ts = tflite__proto__tflite_settings__unpack(NULL, sn, sb)) != NULL)
                ev.tflite_settings = ts;
        ev.has_boottime_us = 1;
        ev.boottime_us = acc_clock_us(CLOCK_BOOTTIME);
        ev.has_wallclock_us = 1;
        ev.wallclock_us = acc_clock_us(CLOCK_REALTIME);
        c->event_size = tflite__proto__benchmark_event__get_packed_size(&ev);
        c->event = malloc(c->event_size ? c->event_size : 1);
        if (!c->event) {
                if (ts)
                        tflite__proto__tflite_settings__free_unpacked(ts, NULL);
                return -ENOMEM;
        }
        (void) tflite__proto__benchmark_event__pack(&ev, c->event);
        if (ts)
                tflite__proto__tflite_settings__free_unpacked(ts, NULL);
        c->ok = false;
        c->median_us = c->p90_us = c->init_us = -1;
        c->max_memory_kb = -1;

        const char *st = stage_to_string(er.stage);
        if (x->timed_out)
                (void) snprintf(c->error, sizeof(c->error), "timed out after %u ms (%s), killed", x->timeout_ms, st);
        else if (WIFSIGNALED(status))
                (void) snprintf(c->error, sizeof(c->error), "crashed with signal %d (%s) during %s",
                                WTERMSIG(status), strsignal(WTERMSIG(status)), st);
        else
                (void) snprintf(c->error, sizeof(c->error), "failed during %s (exit %d)%s%s", st,
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                x->res && x->res->message ? ": " : "",
                                x->res && x->res->message ? x->res->message : "");
        return 0;
}

int bench_candidate_run(const char *worker_exe, int model_fd, const Acceld__BenchmarkWorkerJob *job_in,
                        uint32_t timeout_ms, const bool *cancel, bench_candidate_t *c,
                        Acceld__BenchmarkWorkerResult **ret_result) {
        _cleanup_(worker_fds_close) worker_fds_t fds = { -1, -1, -1 };
        _cleanup_free_ uint8_t *sb = NULL, *rb = NULL;
        size_t sn = 0, rn = 0;
        worker_exit_t x = { .timeout_ms = timeout_ms };
        Acceld__BenchmarkWorkerResult *res = NULL;
        Tflite__Proto__BenchmarkEvent *wev = NULL;
        int64_t deadline;
        pid_t pid;
        int r;

        r = worker_job_write(job_in, c, &sb, &sn, &fds);
        if (r < 0)
                return r;
        deadline = acc_clock_us(CLOCK_MONOTONIC) + (int64_t) timeout_ms * 1000;
        pid = worker_spawn(worker_exe, model_fd, &fds, timeout_ms, rt_settings_num_threads(&c->settings, 1));
        if (pid < 0)
                return pid;
        x.status = worker_wait(pid, deadline, cancel, &x.timed_out);

        x.stage = worker_stage_read(fds.stage);
        if (acc_fd_read(fds.result, 64u << 20, (void **) &rb, &rn) == 0 && rn > 0)
                res = acceld__benchmark_worker_result__unpack(NULL, rn, rb);
        if (res && res->has_event)
                wev = tflite__proto__benchmark_event__unpack(NULL, res->event.len, res->event.data);
        x.res = res;
        x.wev = wev;

        free(c->event);
        c->event = NULL;
        c->error[0] = 0;
        if (!x.timed_out && WIFEXITED(x.status) && WEXITSTATUS(x.status) == 0 && wev && wev->has_event_type &&
            wev->event_type == TFLITE__PROTO__BENCHMARK_EVENT_TYPE__END && wev->result)
                r = candidate_end_set(c, res, wev);
        else
                r = candidate_error_set(c, &x, sb, sn);

        if (wev)
                tflite__proto__benchmark_event__free_unpacked(wev, NULL);
        if (ret_result)
                *ret_result = res;
        else if (res)
                acceld__benchmark_worker_result__free_unpacked(res, NULL);
        return r;
}

typedef struct insert_args {
        const char *sha256, *key, *driver_version;
        const uint8_t *blob;
        size_t size;
        bool has_uid;           /* the event belongs to the uid that asked for the run */
        uint32_t uid;
        bool operator;          /* that uid asked as an operator */
        const char *message;    /* an ERROR's reason, or NULL */
} insert_args_t;

static int insert_job(store_db_t *db, void *userdata) {
        insert_args_t *a = userdata;
        int64_t id = 0;
        int r = store_event_insert(db, a->sha256, a->key, a->driver_version, a->blob, a->size, &id);

        if (r >= 0 && a->message && a->message[0])
                r = store_event_set_message(db, id, a->message);
        return r < 0 || !a->has_uid ? r : store_event_set_owner(db, id, a->uid, a->operator);
}

typedef struct count_args {
        const char *sha256, *key, *driver_version;
        uint32_t uid;                   /* whose failures count (with the operators'): 0 for the operators */
} count_args_t;

static int count_job(store_db_t *db, void *userdata) {
        count_args_t *a = userdata;

        return store_event_count_errors_for(db, a->sha256, a->key, a->driver_version, a->uid);
}

typedef struct find_args {
        const char *sha256;
        const bench_request_t *req;     /* whose model: a tenant benchmarks only what it stored */
        char *path;
} find_args_t;

static int find_job(store_db_t *db, void *userdata) {
        find_args_t *a = userdata;
        store_model_t m = {};
        int r;

        r = store_model_find_for(db, a->sha256, a->req->uid, !a->req->has_uid || a->req->operator, &m);
        if (r < 0)
                return r;
        a->path = TAKE_PTR(m.path);
        store_model_done(&m);
        return 0;
}

typedef struct select_args {
        const char *sha256;
        uint32_t uid;                   /* whose decisions: 0 for the operators */
        const char *driver_versions;
        double max_accuracy_drop;
        int best_ok;                    /* LOW_LATENCY decided */
        char best_key[1024];
} select_args_t;

static int select_for(store_db_t *db, select_args_t *a, uint32_t uid) {
        for (int p = 0; p <= 3; p++) {
                store_decision_t d = {};
                int r = bench_select_with(db, a->sha256, p, uid, a->driver_versions, a->max_accuracy_drop, &d);

                if (r == 0 && p == TFLITE__PROTO__EXECUTION_PREFERENCE__LOW_LATENCY && uid == a->uid) {
                        a->best_ok = 1;
                        (void) snprintf(a->best_key, sizeof(a->best_key), "%s", d.settings_key);
                }
                store_decision_done(&d);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        return 0;
}

/* The decisions of the run's uid. An operators' run (uid 0) also counts
 * for every tenant, so each tenant decision of the model is made again. */
static int select_job(store_db_t *db, void *userdata) {
        select_args_t *a = userdata;
        _cleanup_free_ uint32_t *uids = NULL;
        size_t n = 0;
        int r;

        a->best_ok = 0;
        r = select_for(db, a, a->uid);
        if (r < 0 || a->uid != 0)
                return r;
        r = store_decision_uids(db, a->sha256, &uids, &n);
        for (size_t i = 0; r == 0 && i < n; i++)
                if (uids[i] != 0)
                        r = select_for(db, a, uids[i]);
        return r;
}

static int event_record(bench_runner_t *rn, const bench_run_t *run, const bench_candidate_t *c, const uint8_t *blob,
                        size_t size) {
        insert_args_t a = { run->sha256, c->key, c->driver_version, blob, size, run->req.has_uid, run->req.uid,
                            run->req.operator, c->error };

        return store_thread_call(rn->store, insert_job, &a);
}

/* A START event for c. */
static int event_start(bench_runner_t *rn, const bench_run_t *run, const bench_candidate_t *c) {
        Tflite__Proto__BenchmarkEvent ev = TFLITE__PROTO__BENCHMARK_EVENT__INIT;
        Tflite__Proto__TFLiteSettings *ts = NULL;
        _cleanup_free_ uint8_t *eb = NULL;
        size_t en;
        int r;

        r = rt_settings_to_proto(&c->settings, &ts);
        if (r < 0)
                return r;
        ev.tflite_settings = ts;
        ev.has_event_type = 1;
        ev.event_type = TFLITE__PROTO__BENCHMARK_EVENT_TYPE__START;
        ev.has_boottime_us = 1;
        ev.boottime_us = acc_clock_us(CLOCK_BOOTTIME);
        ev.has_wallclock_us = 1;
        ev.wallclock_us = acc_clock_us(CLOCK_REALTIME);
        en = tflite__proto__benchmark_event__get_packed_size(&ev);
        eb = malloc(en);
        if (!eb) {
                tflite__proto__tflite_settings__free_unpacked(ts, NULL);
                return -ENOMEM;
        }
        (void) tflite__proto__benchmark_event__pack(&ev, eb);
        tflite__proto__tflite_settings__free_unpacked(ts, NULL);
        return event_record(rn, run, c, eb, en);
}

/* ---- a run ---- */

static bool runner_stopping(bench_runner_t *rn) {
        bool s;

        pthread_mutex_lock(&rn->mu);
        s = rn->stop;
        pthread_mutex_unlock(&rn->mu);
        return s;
}

static void run_message(bench_runner_t *rn, bench_run_t *run, const char *fmt, const char *arg) {
        pthread_mutex_lock(&rn->mu);
        (void) snprintf(run->message, sizeof(run->message), fmt, arg);
        pthread_mutex_unlock(&rn->mu);
}

/* Load the model bytes into a memfd and hash them. */
static int run_model(bench_runner_t *rn, bench_run_t *run, int *ret_fd) {
        _cleanup_free_ uint8_t *owned = NULL;
        const uint8_t *bytes = run->req.model;
        size_t size = run->req.model_size;
        int r;

        if (!bytes && run->req.model_fd >= 0) {
                r = acc_fd_read(run->req.model_fd, BENCH_MODEL_MAX, (void **) &owned, &size);
                if (r < 0)
                        return r;
                bytes = owned;
        } else if (!bytes && run->req.sha256[0]) {
                find_args_t a = { .sha256 = run->req.sha256, .req = &run->req };
                _cleanup_close_ int fd = -1;

                r = store_thread_call(rn->store, find_job, &a);
                if (r < 0)
                        return r;
                fd = open(a.path, O_RDONLY | O_CLOEXEC);
                free(a.path);
                if (fd < 0)
                        return -errno;
                r = acc_fd_read(fd, BENCH_MODEL_MAX, (void **) &owned, &size);
                if (r < 0)
                        return r;
                bytes = owned;
        }
        if (!bytes || size == 0)
                return -EINVAL;
        pthread_mutex_lock(&rn->mu);
        acc_sha256_hex(bytes, size, run->sha256);
        pthread_mutex_unlock(&rn->mu);
        r = memfd_with("acceld-bench-model", bytes, size);
        if (r < 0)
                return r;
        *ret_fd = r;
        return 0;
}

static void candidate_describe(bench_candidate_t *c) {
        const rt_driver_t *d;

        c->driver = rt_settings_driver_name(&c->settings);
        d = rt_driver_find(c->driver);
        (void) snprintf(c->driver_version, sizeof(c->driver_version), "%s=%s", c->driver,
                        d && d->version ? d->version : "unavailable");
        rt_settings_label(&c->settings, c->label, sizeof(c->label));
        c->median_us = c->p90_us = c->init_us = -1;
        c->max_memory_kb = -1;
}

/* Mark c skipped with the reason (under the runner's lock: progress
 * readers see the state and the reason together). */
__attribute__((format(printf, 3, 4)))
static void candidate_skip(bench_runner_t *rn, bench_candidate_t *c, const char *fmt, ...) {
        va_list ap;

        pthread_mutex_lock(&rn->mu);
        c->state = BENCH_STATE_SKIPPED;
        va_start(ap, fmt);
        (void) vsnprintf(c->error, sizeof(c->error), fmt, ap);
        va_end(ap);
        pthread_mutex_unlock(&rn->mu);
}

/* The candidates in run order, described: the reference path first when
 * its outputs are to be the goldens (added when the client listed none).
 * 0 and *ret_v / *ret_n, or -ENOMEM. */
static int run_candidates_build(const bench_run_t *run, bool need_golden, bench_candidate_t **ret_v,
                                size_t *ret_n) {
        size_t n = run->req.n_candidates, ref = SIZE_MAX, k = 0;
        bench_candidate_t *cands;

        for (size_t i = 0; i < n; i++)
                if (run->req.candidates[i].delegate == RT_DELEGATE_NONE && ref == SIZE_MAX)
                        ref = i;
        cands = calloc(n + 1, sizeof(*cands));
        if (!cands)
                return -ENOMEM;
        if (need_golden && ref == SIZE_MAX) {
                rt_settings_init(&cands[k++].settings);
                n++;
        } else if (need_golden) {
                (void) rt_settings_copy(&cands[k++].settings, &run->req.candidates[ref]);
        }
        for (size_t i = 0; i < run->req.n_candidates; i++)
                if (!need_golden || i != ref)
                        (void) rt_settings_copy(&cands[k++].settings, &run->req.candidates[i]);
        for (size_t i = 0; i < n; i++) {
                /* Measure what would run: PrepareModel clamps threads to
                 * acceld's CPU budget, so a candidate asking for more is
                 * the clamped setting (and records under its key). */
                (void) daemon_cpu_clamp(&cands[i].settings, NULL, 0);
                if (daemon_settings_store_key(&cands[i].settings, &cands[i].key) < 0)
                        cands[i].key = NULL;
                candidate_describe(&cands[i]);
        }
        *ret_v = cands;
        *ret_n = n;
        return 0;
}

/* The worker job every candidate of the run shares (th: its thresholds). */
static void run_job_init(const bench_runner_t *rn, bench_run_t *run, Acceld__BenchmarkWorkerJob *job,
                         Acceld__BenchmarkThresholds *th) {
        job->has_runs = 1;
        job->runs = run->req.runs;
        job->inputs = run->req.inputs;
        job->n_inputs = run->req.n_inputs;
        job->golden_outputs = run->req.outputs;
        job->n_golden_outputs = run->req.n_outputs;
        th->has_max_absolute_error = th->has_max_mean_squared_error = th->has_max_symmetric_kl_divergence = 1;
        th->max_absolute_error = (float) run->req.thresholds.max_abs_error;
        th->max_mean_squared_error = (float) run->req.thresholds.max_mse;
        th->max_symmetric_kl_divergence = (float) run->req.thresholds.max_kl;
        job->thresholds = th;
        job->plugin_dir = rn->plugin_dir;
        if (rn->weights_dir) {
                job->weights_dir = rn->weights_dir;
                job->model_key = run->sha256;
        }
        job->has_seed = 1;
        job->seed = 1;
}

/* Whether c may run: it has a key, the goldens exist when it needs them,
 * it has not failed too often with this driver version, and its START is
 * recorded. Marks it skipped (with why) when not. */
static bool candidate_admit(bench_runner_t *rn, bench_run_t *run, bench_candidate_t *c, bool missing_golden) {
        count_args_t a = { run->sha256, c->key, c->driver_version,
                           run->req.has_uid && !run->req.operator ? run->req.uid : 0 };
        int r;

        if (!c->key) {
                candidate_skip(rn, c, "%s", "out of memory");
                return false;
        }
        if (missing_golden) {
                candidate_skip(rn, c, "%s", "skipped: no golden outputs (the reference run failed)");
                return false;
        }
        r = store_thread_call(rn->store, count_job, &a);
        if (r >= BENCH_MAX_FAILURES) {
                candidate_skip(rn, c, "skipped: failed %d times with %s for this model", r, c->driver_version);
                return false;
        }
        r = event_start(rn, run, c);
        if (r < 0) {
                candidate_skip(rn, c, "cannot record START: %s", strerror(-r));
                return false;
        }
        return true;
}

/* The plan's groups the worker reported, into c. */
static void candidate_partitions_take(bench_candidate_t *c, const Acceld__BenchmarkWorkerResult *res) {
        size_t n = res->n_partition_nodes < res->n_partition_delegated ? res->n_partition_nodes
                                                                         : res->n_partition_delegated;

        free(c->partition_nodes);
        free(c->partition_delegated);
        c->partition_nodes = calloc(n + 1, sizeof(int32_t));
        c->partition_delegated = calloc(n + 1, sizeof(bool));
        c->n_partitions = 0;
        if (!c->partition_nodes || !c->partition_delegated)
                return;
        for (size_t i = 0; i < n; i++) {
                c->partition_nodes[i] = res->partition_nodes[i];
                c->partition_delegated[i] = res->partition_delegated[i];
        }
        c->n_partitions = n;
}

/* Run c in a worker and record its END/ERROR. The golden run (is_golden)
 * generates the inputs and returns its outputs: on success they become
 * the job's goldens and *golden keeps them. */
static void candidate_execute(bench_runner_t *rn, bench_run_t *run, int model_fd, Acceld__BenchmarkWorkerJob *job,
                              bench_candidate_t *c, bool is_golden, Acceld__BenchmarkWorkerResult **golden) {
        Acceld__BenchmarkWorkerResult *res = NULL;
        bench_candidate_t tmp;
        int r;

        pthread_mutex_lock(&rn->mu);
        c->state = BENCH_STATE_RUNNING;
        tmp = *c;
        pthread_mutex_unlock(&rn->mu);

        /* Run on a copy so progress readers never see half-written fields. */
        tmp.event = NULL;
        if (is_golden) {
                job->has_generate_inputs = job->has_return_data = 1;
                job->generate_inputs = run->req.n_inputs == 0;
                job->return_data = 1;
                job->golden_outputs = NULL;
                job->n_golden_outputs = 0;
        }
        r = bench_candidate_run(rn->worker_exe, model_fd, job, run->req.timeout_ms, &rn->stop, &tmp, &res);
        if (r == 0 && res)
                candidate_partitions_take(&tmp, res);
        if (r == 0 && tmp.pruned) {
                char note[256];

                (void) snprintf(note, sizeof(note),
                                "pruned after %u runs: its fastest run was over %lld us (the best median so far "
                                "x %.1f, at least +%d us%s)",
                                tmp.runs,
                                (long long) (tmp.runs < BENCH_PRUNE_AFTER_RUNS ? job->prune_early_above_us
                                                                               : job->prune_above_us),
                                tmp.runs < BENCH_PRUNE_AFTER_RUNS ? BENCH_PRUNE_EARLY_FACTOR : BENCH_PRUNE_FACTOR,
                                BENCH_PRUNE_MIN_GAP_US, tmp.runs < BENCH_PRUNE_AFTER_RUNS ? ", early" : "");
                set_error(&tmp, "%s", note);
        }
        if (is_golden) {
                job->has_generate_inputs = job->has_return_data = 0;
                job->generate_inputs = 0;
                job->return_data = 0;
                if (r == 0 && tmp.ok && res && res->n_outputs > 0) {
                        *golden = res;
                        res = NULL;
                        job->inputs = (*golden)->inputs;
                        job->n_inputs = (*golden)->n_inputs;
                        job->golden_outputs = (*golden)->outputs;
                        job->n_golden_outputs = (*golden)->n_outputs;
                }
        }
        if (res)
                acceld__benchmark_worker_result__free_unpacked(res, NULL);
        if (r < 0) {
                /* No child ran: record why, so START is not left open. */
                set_error(&tmp, "cannot start the worker: %s", strerror(-r));
                tmp.event = NULL;
        } else {
                int k = event_record(rn, run, &tmp, tmp.event, tmp.event_size);

                if (k < 0)
                        (void) log_warning_errno(k, "benchmark of %s with %s: cannot record the result",
                                                 run->sha256, tmp.label);
        }
        if (tmp.error[0])
                log_info("benchmark of model %s with %s: %s", run->sha256, tmp.label, tmp.error);

        pthread_mutex_lock(&rn->mu);
        tmp.state = BENCH_STATE_DONE;
        *c = tmp;
        pthread_mutex_unlock(&rn->mu);
}

/* Let selection pick the run's best setting and point run->best at it. */
static void run_best_select(bench_runner_t *rn, bench_run_t *run) {
        char versions[1024];
        int r;

        bench_driver_versions(versions, sizeof(versions));
        select_args_t a = { .sha256 = run->sha256, .driver_versions = versions,
                            .max_accuracy_drop = rn->max_accuracy_drop,
                            .uid = run->req.has_uid && !run->req.operator ? run->req.uid : 0 };

        r = store_thread_call(rn->store, select_job, &a);
        if (r == 0 && a.best_ok) {
                pthread_mutex_lock(&rn->mu);
                for (size_t i = 0; i < run->n; i++)
                        if (run->c[i].key && strcmp(run->c[i].key, a.best_key) == 0)
                                run->best = i;
                pthread_mutex_unlock(&rn->mu);
        }
}

/* The search's state over one run. */
typedef struct search {
        bool generated;                 /* the candidates are ours: stage 2 follows stage 1 */
        bool refined;                   /* stage 2 is in the list */
        bench_model_traits_t traits;
        int64_t started_us;             /* CLOCK_MONOTONIC */
        int64_t best_median_us;         /* of the correct candidates so far, -1: none */
} search_t;

/* What the model contains, for the generated candidates. */
static void search_traits(search_t *se, int model_fd) {
        rt_model_t *m = NULL;
        char err[256];

        if (rt_model_load_fd(model_fd, &m, err, sizeof(err)) == 0)
                bench_model_traits_get(m, &se->traits);
        (void) rt_model_free(m);
}

/* The budget left in us (INT64_MAX: no budget). */
static int64_t search_left_us(const bench_runner_t *rn, const search_t *se) {
        if (!rn->budget_ms)
                return INT64_MAX;
        return (int64_t) rn->budget_ms * 1000 - (acc_clock_us(CLOCK_MONOTONIC) - se->started_us);
}

/* Append stage 2 (bench/candidates.h) around the fastest correct XNNPACK
 * candidate of the run, if any. */
static void search_refine(bench_runner_t *rn, bench_run_t *run, search_t *se) {
        const bench_candidate_t *base = NULL;
        rt_settings_t *v = NULL;
        size_t n = 0;
        bench_candidate_t *grown;

        se->refined = true;
        for (size_t i = 0; i < run->n; i++) {
                const bench_candidate_t *c = &run->c[i];

                if (c->settings.delegate == RT_DELEGATE_XNNPACK && c->state == BENCH_STATE_DONE && c->ok &&
                    c->median_us >= 0 && (!base || c->median_us < base->median_us))
                        base = c;
        }
        if (!base || bench_candidates_refine(&se->traits, &base->settings, cpu_has_fp16_arith(),
                                             base->partition_nodes, base->partition_delegated, base->n_partitions,
                                             &v, &n) < 0)
                return;
        if (run->n + n > BENCH_MAX_CANDIDATES)
                n = BENCH_MAX_CANDIDATES > run->n ? BENCH_MAX_CANDIDATES - run->n : 0;
        pthread_mutex_lock(&rn->mu);
        grown = n ? realloc(run->c, (run->n + n) * sizeof(*grown)) : NULL;
        if (grown) {
                for (size_t i = 0; i < n; i++) {
                        bench_candidate_t *c = &grown[run->n + i];

                        *c = (bench_candidate_t) { .settings = v[i] };
                        rt_settings_init(&v[i]);
                        if (daemon_settings_store_key(&c->settings, &c->key) < 0)
                                c->key = NULL;
                        candidate_describe(c);
                }
                run->c = grown;
                run->n += n;
        }
        pthread_mutex_unlock(&rn->mu);
        for (size_t i = 0; i < n; i++)
                rt_settings_done(&v[i]);
        free(v);
}

/* The job's pruning threshold and share of the budget for candidate i. */
static void search_job_limits(const bench_runner_t *rn, const bench_run_t *run, const search_t *se, size_t i,
                              bool is_golden, Acceld__BenchmarkWorkerJob *job) {
        int64_t left = search_left_us(rn, se);
        size_t pending = run->n - i + (se->generated && !se->refined ? 4 : 0);

        job->has_prune_after_runs = 1;
        job->prune_after_runs = BENCH_PRUNE_AFTER_RUNS;
        job->has_prune_above_us = 0;
        job->prune_above_us = 0;
        job->has_prune_early_above_us = 0;
        job->prune_early_above_us = 0;
        if (!is_golden && se->best_median_us >= 0) {
                int64_t t = (int64_t) ((double) se->best_median_us * BENCH_PRUNE_FACTOR);

                if (t < se->best_median_us + BENCH_PRUNE_MIN_GAP_US)
                        t = se->best_median_us + BENCH_PRUNE_MIN_GAP_US;
                job->has_prune_above_us = 1;
                job->prune_above_us = t;
                job->has_prune_early_above_us = 1;
                job->prune_early_above_us = (int64_t) ((double) t * BENCH_PRUNE_EARLY_FACTOR / BENCH_PRUNE_FACTOR);
        }
        job->has_runs_time_limit_us = left != INT64_MAX;
        job->runs_time_limit_us = left != INT64_MAX ? (left > 0 ? left : 0) / (int64_t) (pending ? pending : 1) : 0;
        if (job->has_runs_time_limit_us && job->runs_time_limit_us < 1)
                job->runs_time_limit_us = 1;
        /* 80% of the timeout from the worker's start: slow candidates end
         * with fewer runs rather than killed (and counted as failures). */
        job->has_runs_hard_limit_us = 1;
        job->runs_hard_limit_us = (int64_t) run->req.timeout_ms * 800;
}

/* ---- confirmation: the closest candidates again, interleaved ---- */

typedef struct contender {
        size_t index;                           /* into run->c */
        int64_t medians[BENCH_CONFIRM_ROUNDS];  /* each completed round's */
        size_t rounds;
        int64_t *times;                         /* every completed round's runs (owned) */
        size_t n_times;
        bool failed;                            /* a round failed: no longer confirmed */
} contender_t;

static bool contender_taken(const contender_t *v, size_t n, size_t index) {
        for (size_t k = 0; k < n; k++)
                if (v[k].index == index)
                        return true;
        return false;
}

/* The candidates worth confirming, fastest first: correct, run to the end
 * (not pruned), within BENCH_CONFIRM_FACTOR of the best median or
 * BENCH_PRUNE_MIN_GAP_US of it (on a model of microseconds one window's
 * order is noise). */
static size_t confirm_pick(const bench_run_t *run, contender_t *v) {
        int64_t best = -1;
        size_t n = 0;

        for (size_t i = 0; i < run->n; i++) {
                const bench_candidate_t *c = &run->c[i];

                if (c->state == BENCH_STATE_DONE && c->ok && !c->pruned && c->median_us >= 0 && c->key && c->event &&
                    (best < 0 || c->median_us < best))
                        best = c->median_us;
        }
        if (best < 0)
                return 0;
        while (n < BENCH_CONFIRM_MAX) {
                ssize_t next = -1;

                for (size_t i = 0; i < run->n; i++) {
                        const bench_candidate_t *c = &run->c[i];

                        if (c->state != BENCH_STATE_DONE || !c->ok || c->pruned || c->median_us < 0 || !c->key ||
                            !c->event ||
                            ((double) c->median_us > BENCH_CONFIRM_FACTOR * (double) best &&
                             c->median_us > best + BENCH_PRUNE_MIN_GAP_US) ||
                            contender_taken(v, n, i))
                                continue;
                        if (next < 0 || c->median_us < run->c[next].median_us)
                                next = (ssize_t) i;
                }
                if (next < 0)
                        break;
                v[n++] = (contender_t) { .index = (size_t) next };
        }
        /* A variant in front is confirmed against the fastest plain
         * setting however far behind its one measurement put it: a
         * variant is chosen only over a plain setting measured alike
         * (bench/select.h). */
        if (n > 0 && bench_candidate_is_variant(&run->c[v[0].index].settings)) {
                ssize_t plain = -1;
                bool have = false;

                for (size_t k = 0; k < n; k++)
                        have |= !bench_candidate_is_variant(&run->c[v[k].index].settings);
                for (size_t i = 0; i < run->n && !have; i++) {
                        const bench_candidate_t *c = &run->c[i];

                        if (c->state == BENCH_STATE_DONE && c->ok && !c->pruned && c->median_us >= 0 && c->key &&
                            c->event && !bench_candidate_is_variant(&c->settings) &&
                            (plain < 0 || c->median_us < run->c[plain].median_us))
                                plain = (ssize_t) i;
                }
                if (plain >= 0)
                        v[n < BENCH_CONFIRM_MAX ? n++ : n - 1] = (contender_t) { .index = (size_t) plain };
        }
        return n;
}

/* One round of contender x: a fresh worker with the run's job (its
 * goldens), never pruned, its runs stopping at share_us. A round that
 * fails (an ERROR, wrong outputs) is recorded: it is the candidate's
 * latest outcome. */
static void confirm_round(bench_runner_t *rn, bench_run_t *run, int model_fd, Acceld__BenchmarkWorkerJob *job,
                          contender_t *x, int64_t share_us) {
        const bench_candidate_t *c = &run->c[x->index];   /* only this thread writes it */
        bench_candidate_t t = {};
        Tflite__Proto__BenchmarkEvent *ev = NULL;
        int64_t *grown;
        int r;

        job->has_prune_above_us = job->has_prune_early_above_us = 0;
        job->prune_above_us = job->prune_early_above_us = 0;
        job->has_runs_time_limit_us = share_us != INT64_MAX;
        job->runs_time_limit_us = share_us != INT64_MAX ? (share_us > 0 ? share_us : 1) : 0;
        t.key = strdup(c->key);
        if (!t.key || rt_settings_copy(&t.settings, &c->settings) < 0) {
                x->failed = true;
                goto out;
        }
        memcpy(t.driver_version, c->driver_version, sizeof(t.driver_version));
        memcpy(t.label, c->label, sizeof(t.label));
        r = bench_candidate_run(rn->worker_exe, model_fd, job, run->req.timeout_ms, &rn->stop, &t, NULL);
        if (r < 0 || runner_stopping(rn)) {
                x->failed = true;
                goto out;
        }
        if (!t.ok || t.median_us < 0) {
                x->failed = true;
                (void) event_record(rn, run, &t, t.event, t.event_size);
                log_info("benchmark of model %s with %s: a confirmation round failed: %s", run->sha256, t.label,
                         t.error);
                goto out;
        }
        ev = tflite__proto__benchmark_event__unpack(NULL, t.event_size, t.event);
        if (!ev || !ev->result || ev->result->n_inference_time_us == 0) {
                x->failed = true;
                goto out;
        }
        grown = realloc(x->times, (x->n_times + ev->result->n_inference_time_us) * sizeof(*grown));
        if (!grown) {
                x->failed = true;
                goto out;
        }
        memcpy(grown + x->n_times, ev->result->inference_time_us,
               ev->result->n_inference_time_us * sizeof(*grown));
        x->times = grown;
        x->n_times += ev->result->n_inference_time_us;
        x->medians[x->rounds++] = t.median_us;
out:
        if (ev)
                tflite__proto__benchmark_event__free_unpacked(ev, NULL);
        bench_candidate_done(&t);
}

/* The varint v into buf (10 bytes); its length. */
static size_t varint_put(uint64_t v, uint8_t *buf) {
        size_t n = 0;

        do {
                buf[n] = (uint8_t) (v & 0x7f);
                v >>= 7;
                if (v)
                        buf[n] |= 0x80;
                n++;
        } while (v);
        return n;
}

/* x's confirmed END event: its first END with the runs of every round and
 * each round's median (DAEMON_WORKER_EVENT_FIELD_ROUND_MEDIAN), recorded
 * and made the candidate's event and summary. */
static void confirm_record(bench_runner_t *rn, bench_run_t *run, const contender_t *x) {
        bench_candidate_t *c = &run->c[x->index];
        Tflite__Proto__BenchmarkEvent *ev = tflite__proto__benchmark_event__unpack(NULL, c->event_size, c->event);
        ProtobufCMessageUnknownField uf[BENCH_CONFIRM_ROUNDS], *old_uf;
        uint8_t varints[BENCH_CONFIRM_ROUNDS][10];
        int64_t *old_times, sorted[BENCH_CONFIRM_ROUNDS], *pooled = NULL;
        size_t old_n_uf, old_n_times, n;
        uint8_t *blob = NULL;
        int k;

        if (!ev || !ev->result) {
                if (ev)
                        tflite__proto__benchmark_event__free_unpacked(ev, NULL);
                return;
        }
        for (size_t i = 0; i < x->rounds; i++)
                uf[i] = (ProtobufCMessageUnknownField) { .tag = DAEMON_WORKER_EVENT_FIELD_ROUND_MEDIAN,
                                                          .wire_type = PROTOBUF_C_WIRE_TYPE_VARINT,
                                                          .len = varint_put((uint64_t) x->medians[i], varints[i]),
                                                          .data = varints[i] };
        /* The confirmed candidate was not pruned: it has no field of ours
         * to keep. */
        old_uf = ev->base.unknown_fields;
        old_n_uf = ev->base.n_unknown_fields;
        old_times = ev->result->inference_time_us;
        old_n_times = ev->result->n_inference_time_us;
        ev->base.unknown_fields = uf;
        ev->base.n_unknown_fields = x->rounds;
        ev->result->inference_time_us = x->times;
        ev->result->n_inference_time_us = x->n_times;
        ev->has_boottime_us = ev->has_wallclock_us = 1;
        ev->boottime_us = acc_clock_us(CLOCK_BOOTTIME);
        ev->wallclock_us = acc_clock_us(CLOCK_REALTIME);
        n = tflite__proto__benchmark_event__get_packed_size(ev);
        blob = malloc(n ? n : 1);
        if (blob)
                (void) tflite__proto__benchmark_event__pack(ev, blob);
        ev->base.unknown_fields = old_uf;
        ev->base.n_unknown_fields = old_n_uf;
        ev->result->inference_time_us = old_times;
        ev->result->n_inference_time_us = old_n_times;
        tflite__proto__benchmark_event__free_unpacked(ev, NULL);
        if (!blob)
                return;
        k = event_record(rn, run, c, blob, n);
        if (k < 0) {
                (void) log_warning_errno(k, "benchmark of %s with %s: cannot record the confirmed result",
                                         run->sha256, c->label);
                free(blob);
                return;
        }
        memcpy(sorted, x->medians, x->rounds * sizeof(sorted[0]));
        qsort(sorted, x->rounds, sizeof(sorted[0]), cmp_i64);
        pooled = malloc(x->n_times * sizeof(*pooled));
        if (pooled) {
                memcpy(pooled, x->times, x->n_times * sizeof(*pooled));
                qsort(pooled, x->n_times, sizeof(*pooled), cmp_i64);
        }
        pthread_mutex_lock(&rn->mu);
        free(c->event);
        c->event = blob;
        c->event_size = n;
        c->median_us = x->rounds % 2 ? sorted[x->rounds / 2]
                                     : (sorted[x->rounds / 2 - 1] + sorted[x->rounds / 2]) / 2;
        if (pooled)
                c->p90_us = pooled[(x->n_times * 9 + 9) / 10 - 1];
        c->runs = (uint32_t) x->n_times;
        c->rounds = (uint32_t) x->rounds;
        pthread_mutex_unlock(&rn->mu);
        free(pooled);
}

/* What one round of the contenders costs at least: each one's
 * initialization and BENCH_PRUNE_AFTER_RUNS runs, as measured. */
static int64_t confirm_round_cost_us(const bench_run_t *run, const contender_t *v, size_t n) {
        int64_t cost = 0;

        for (size_t k = 0; k < n; k++) {
                const bench_candidate_t *c = &run->c[v[k].index];

                cost += (c->init_us > 0 ? c->init_us : 0) + BENCH_PRUNE_AFTER_RUNS * c->median_us;
        }
        return cost;
}

/* Confirmation (runner.h): the contenders in BENCH_CONFIRM_ROUNDS rounds,
 * each round in an order rotated by one, within the search budget. */
static void run_confirm(bench_runner_t *rn, bench_run_t *run, int model_fd, Acceld__BenchmarkWorkerJob *job,
                        const search_t *se) {
        contender_t v[BENCH_CONFIRM_MAX];
        size_t n = confirm_pick(run, v), n_confirmed = 0, rounds = 0;
        bool spent = false;

        if (n < 2)
                return;
        /* Two rounds at least (a range needs two), else none. */
        if (search_left_us(rn, se) < 2 * confirm_round_cost_us(run, v, n)) {
                log_info("benchmark of model %s: no confirmation rounds, the search budget left is below two rounds "
                         "of its %zu closest candidates", run->sha256, n);
                for (size_t k = 0; k < n; k++)
                        free(v[k].times);
                return;
        }
        for (size_t r = 0; r < BENCH_CONFIRM_ROUNDS && !spent && !runner_stopping(rn); r++) {
                /* Whole rounds only: a round that could not end within the
                 * budget is not started. */
                if (search_left_us(rn, se) < confirm_round_cost_us(run, v, n)) {
                        spent = true;
                        break;
                }
                for (size_t j = 0; j < n && !runner_stopping(rn); j++) {
                        contender_t *x = &v[(j + r) % n];
                        int64_t left = search_left_us(rn, se);
                        size_t jobs_left = (BENCH_CONFIRM_ROUNDS - r) * n - j;

                        if (left <= 0) {
                                spent = true;
                                break;
                        }
                        if (!x->failed)
                                confirm_round(rn, run, model_fd, job, x,
                                              left == INT64_MAX ? INT64_MAX : left / (int64_t) jobs_left);
                }
                rounds += !spent;
        }
        for (size_t k = 0; k < n; k++) {
                if (!v[k].failed && v[k].rounds >= 2 && !runner_stopping(rn)) {
                        confirm_record(rn, run, &v[k]);
                        n_confirmed++;
                }
                free(v[k].times);
        }
        log_info("benchmark of model %s: %zu of %zu candidates within %.2fx of the best confirmed in %zu "
                 "interleaved rounds%s", run->sha256, n_confirmed, n, BENCH_CONFIRM_FACTOR, rounds,
                 spent ? " (the search budget ran out)" : "");
}

static void run_execute(bench_runner_t *rn, bench_run_t *run) {
        _cleanup_close_ int model_fd = -1;
        rt_settings_t *gen = NULL;
        size_t n_gen = 0;
        Acceld__BenchmarkWorkerJob job = ACCELD__BENCHMARK_WORKER_JOB__INIT;
        Acceld__BenchmarkThresholds th = ACCELD__BENCHMARK_THRESHOLDS__INIT;
        Acceld__BenchmarkWorkerResult *golden = NULL;
        search_t se = { .best_median_us = -1 };
        bench_candidate_t *cands;
        size_t n, n_pruned = 0, n_over = 0;
        bool need_golden;
        int r;

        se.started_us = acc_clock_us(CLOCK_MONOTONIC);
        r = run_model(rn, run, &model_fd);
        if (r < 0) {
                run_message(rn, run, "cannot read the model: %s", strerror(-r));
                return;
        }
        if (run->req.n_candidates == 0) {
                se.generated = true;
                search_traits(&se, model_fd);
                r = bench_candidates_generate(&se.traits, daemon_cpu_budget(), rt_driver_xnnpack() != NULL, &gen,
                                              &n_gen);
                if (r < 0) {
                        run_message(rn, run, "%s", strerror(-r));
                        return;
                }
                free(run->req.candidates);  /* the request's empty list */
                run->req.candidates = gen;
                run->req.n_candidates = n_gen;
        }
        need_golden = run->req.n_outputs == 0;
        r = run_candidates_build(run, need_golden, &cands, &n);
        if (r < 0) {
                run_message(rn, run, "%s", strerror(-r));
                return;
        }
        pthread_mutex_lock(&rn->mu);
        run->c = cands;
        run->n = n;
        pthread_mutex_unlock(&rn->mu);

        run_job_init(rn, run, &job, &th);
        for (size_t i = 0; !runner_stopping(rn); i++) {
                bool is_golden = need_golden && i == 0;
                bench_candidate_t *c;

                if (i == run->n && se.generated && !se.refined)
                        search_refine(rn, run, &se);
                if (i >= run->n)
                        break;
                c = &run->c[i];
                if (!is_golden && search_left_us(rn, &se) <= 0) {
                        candidate_skip(rn, c, "skipped: the search budget (benchmark_budget_ms = %u) is spent",
                                       rn->budget_ms);
                        n_over++;
                        continue;
                }
                search_job_limits(rn, run, &se, i, is_golden, &job);
                if (!candidate_admit(rn, run, c, need_golden && !is_golden && !golden))
                        continue;
                candidate_execute(rn, run, model_fd, &job, c, is_golden, &golden);
                n_pruned += c->pruned;
                if (c->ok && !c->pruned && c->median_us >= 0 &&
                    (se.best_median_us < 0 || c->median_us < se.best_median_us))
                        se.best_median_us = c->median_us;
        }
        if (n_pruned || n_over)
                log_info("benchmark of model %s: %zu candidates, %zu pruned as clearly slower, %zu not run "
                         "(search budget %u ms)", run->sha256, run->n, n_pruned, n_over, rn->budget_ms);
        if (se.generated && !runner_stopping(rn))
                run_confirm(rn, run, model_fd, &job, &se);
        /* This machine's round trip now, under the load the candidates
         * just ran under: the placement of the decisions made next. */
        (void) bench_placement_measure();
        run_best_select(rn, run);
        if (golden)
                acceld__benchmark_worker_result__free_unpacked(golden, NULL);
}

static bench_run_t *run_free(bench_run_t *run) {
        if (!run)
                return NULL;
        bench_request_done(&run->req);
        for (size_t i = 0; i < run->n; i++)
                bench_candidate_done(&run->c[i]);
        free(run->c);
        free(run);
        return NULL;
}

static void *runner_main(void *userdata) {
        bench_runner_t *rn = userdata;
        sigset_t all;

        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, NULL);
        pthread_mutex_lock(&rn->mu);
        for (;;) {
                bench_run_t *next = NULL;
                size_t finished = 0;

                /* The oldest queued run (the list is newest first). */
                for (bench_run_t *x = rn->runs; x; x = x->next)
                        if (!x->started)
                                next = x;
                if (rn->stop)
                        break;
                if (!next) {
                        pthread_cond_wait(&rn->cv, &rn->mu);
                        continue;
                }
                next->started = true;
                pthread_mutex_unlock(&rn->mu);
                run_execute(rn, next);
                pthread_mutex_lock(&rn->mu);
                next->finished = true;
                /* Forget the oldest finished runs beyond the limit. */
                for (bench_run_t **p = &rn->runs; *p;) {
                        if ((*p)->finished && ++finished > BENCH_KEEP_FINISHED) {
                                bench_run_t *old = *p;

                                *p = old->next;
                                (void) run_free(old);
                        } else
                                p = &(*p)->next;
                }
                if (rn->done_fn) {
                        char sha[ACC_SHA256_HEX_SIZE];

                        memcpy(sha, next->sha256, sizeof(sha));
                        pthread_mutex_unlock(&rn->mu);
                        if (sha[0])
                                rn->done_fn(rn->userdata, sha);
                        pthread_mutex_lock(&rn->mu);
                }
        }
        pthread_mutex_unlock(&rn->mu);
        return NULL;
}

int bench_runner_set_weights_dir(bench_runner_t *rn, const char *dir) {
        char *d = dir ? strdup(dir) : NULL;

        if (!rn || (dir && !d)) {
                free(d);
                return rn ? -ENOMEM : -EINVAL;
        }
        free(rn->weights_dir);
        rn->weights_dir = d;
        return 0;
}

int bench_runner_set_budget_ms(bench_runner_t *rn, uint32_t budget_ms) {
        if (!rn)
                return -EINVAL;
        rn->budget_ms = budget_ms;
        return 0;
}

int bench_runner_set_max_accuracy_drop(bench_runner_t *rn, double max_drop) {
        if (!rn || !(max_drop >= 0 && max_drop <= 1))
                return -EINVAL;
        rn->max_accuracy_drop = max_drop;
        return 0;
}

int bench_runner_start(store_thread_t *store, const char *worker_exe, const char *plugin_dir,
                       bench_run_done_fn done_fn, void *userdata, bench_runner_t **ret) {
        bench_runner_t *rn;
        int r;

        if (!store || !worker_exe || !ret)
                return -EINVAL;
        rn = calloc(1, sizeof(*rn));
        if (!rn)
                return -ENOMEM;
        rn->store = store;
        rn->done_fn = done_fn;
        rn->userdata = userdata;
        rn->next_id = 1;
        rn->max_accuracy_drop = BENCH_DEFAULT_MAX_ACCURACY_DROP;
        rn->budget_ms = BENCH_DEFAULT_BUDGET_MS;
        rn->worker_exe = strdup(worker_exe);
        rn->plugin_dir = plugin_dir ? strdup(plugin_dir) : NULL;
        if (!rn->worker_exe || (plugin_dir && !rn->plugin_dir)) {
                free(rn->worker_exe);
                free(rn->plugin_dir);
                free(rn);
                return -ENOMEM;
        }
        pthread_mutex_init(&rn->mu, NULL);
        pthread_cond_init(&rn->cv, NULL);
        r = -pthread_create(&rn->thread, NULL, runner_main, rn);
        if (r < 0) {
                pthread_cond_destroy(&rn->cv);
                pthread_mutex_destroy(&rn->mu);
                free(rn->worker_exe);
                free(rn->plugin_dir);
                free(rn);
                return r;
        }
        *ret = rn;
        return 0;
}

bench_runner_t *bench_runner_stop(bench_runner_t *rn) {
        if (!rn)
                return NULL;
        pthread_mutex_lock(&rn->mu);
        __atomic_store_n(&rn->stop, true, __ATOMIC_RELAXED);
        pthread_cond_signal(&rn->cv);
        pthread_mutex_unlock(&rn->mu);
        /* A running child is killed by its timeout at the latest; the
         * remaining candidates of its run are not started. */
        (void) pthread_join(rn->thread, NULL);
        while (rn->runs) {
                bench_run_t *x = rn->runs;

                rn->runs = x->next;
                (void) run_free(x);
        }
        pthread_cond_destroy(&rn->cv);
        pthread_mutex_destroy(&rn->mu);
        free(rn->worker_exe);
        free(rn->plugin_dir);
        free(rn->weights_dir);
        free(rn);
        return NULL;
}

int64_t bench_runner_submit(bench_runner_t *rn, bench_request_t *req) {
        bench_run_t *run;
        size_t queued = 0;
        int64_t id;

        if (!rn || !req)
                return -EINVAL;
        run = calloc(1, sizeof(*run));
        if (!run) {
                bench_request_done(req);
                return -ENOMEM;
        }
        run->req = *req;
        *req = (bench_request_t) { .model_fd = -1 };
        run->best = SIZE_MAX;
        if (run->req.runs == 0)
                run->req.runs = BENCH_DEFAULT_RUNS;
        if (run->req.timeout_ms == 0)
                run->req.timeout_ms = BENCH_DEFAULT_TIMEOUT_MS;
        if (run->req.thresholds.max_abs_error <= 0 && run->req.thresholds.max_mse <= 0 &&
            run->req.thresholds.max_kl <= 0)
                bench_thresholds_default(&run->req.thresholds);
        if (run->req.sha256[0])
                memcpy(run->sha256, run->req.sha256, sizeof(run->sha256));
        pthread_mutex_lock(&rn->mu);
        for (bench_run_t *x = rn->runs; x; x = x->next)
                if (!x->finished)
                        queued++;
        if (queued >= BENCH_QUEUE_MAX || rn->stop) {
                pthread_mutex_unlock(&rn->mu);
                (void) run_free(run);
                return -EAGAIN;
        }
        id = run->id = rn->next_id++;
        run->next = rn->runs;
        rn->runs = run;
        pthread_cond_signal(&rn->cv);
        pthread_mutex_unlock(&rn->mu);
        return id;
}

int bench_runner_progress(bench_runner_t *rn, int64_t id, const uint32_t *uid, bench_progress_fn fn,
                          void *userdata) {
        int r = -ENOENT;

        if (!rn || !fn)
                return -EINVAL;
        pthread_mutex_lock(&rn->mu);
        for (bench_run_t *x = rn->runs; x; x = x->next)
                if (x->id == id && (!uid || (x->req.has_uid && x->req.uid == *uid))) {
                        fn(userdata, x->sha256, x->finished, x->message, x->c, x->c ? x->n : 0, x->best);
                        r = 0;
                        break;
                }
        pthread_mutex_unlock(&rn->mu);
        return r;
}
