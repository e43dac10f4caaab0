/* SPDX-License-Identifier: Apache-2.0 */
/*
 * serving-bench: what serving through acceld costs (docs/performance.md,
 * "Serving"). Needs a running acceld (--socket).
 *
 *   serving-bench latency    MODEL --socket S [--settings JSON] [--runs N]
 *       in-process (runtime/rt.h) vs acceld with shared-memory tensors vs
 *       acceld with inline tensors, interleaved run by run; medians and
 *       the daemon/in-process ratio.
 *   serving-bench throughput MODEL --socket S [--settings JSON] [--clients N] [--seconds T]
 *                 [--batch N] [--batch-delay-us D]   (p50/p99 round trip per invoke)
 *   serving-bench rss2 MODEL --socket S --settings JSON --settings2 JSON   (a second setting's memory)
 *       N client threads, one interpreter (connection) each, on one shared
 *       instance; inferences per second.
 *   serving-bench selected   MODEL --socket S [--settings JSON] [--runs N] [--input FILE]...
 *                 [--min-sample-us US]
 *       acceld alone (no in-process interpreter competing for the CPUs),
 *       shared-memory tensors, with acceld's own choice of settings unless
 *       --settings: 25 warm-up invokes, then N timed samples, each the mean
 *       of "batch" invokes timed together (1 unless --min-sample-us asks for
 *       samples of at least US microseconds), in microseconds with three
 *       decimals; the round trip's min/median/p90, the median compute
 *       time, the settings key acceld
 *       applied, and acceld's CPU time (user+sys, all its threads, from
 *       /proc/PID/stat of the socket's peer) per invoke. Inputs from the
 *       files (raw bytes, one per input in order), else zeros.
 *   serving-bench lane       MODEL --socket S [--settings JSON] [--runs N] [--input FILE]...
 *       what an invoke costs beyond its compute, over the socket and over a
 *       lane (docs/architecture.md "Lanes"): two interpreters of one
 *       instance, shared-memory tensors, one with lanes off, invoked in
 *       turn run by run; for each the round trip's min/median/p90, the
 *       median compute time acceld measured, and the median of round trip
 *       minus compute per invoke (the overhead).
 *   --lane 0 turns lanes off for the other modes (default: libaccel's,
 *       on when acceld offers them); JSON's "lane" says which ran.
 *   serving-bench rss        MODEL --socket S [--settings JSON] [--clients N]
 *       acceld's RSS growth with 1 and with N clients on the model, vs the
 *       RSS of N in-process interpreters (each with its own model copy, as
 *       N separate applications would have).
 *
 * Output is one JSON object on stdout.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "clock.h"
#include "file-read.h"
#include "accel/accel.h"
#include "rt.h"

typedef struct args {
        const char *mode, *model, *socket, *settings;
        int runs, clients, seconds;
        int batch, batch_delay_us;      /* PrepareModel batching; 0: acceld's */
        const char *settings2;          /* rss2: the second setting */
        const char *inputs[16];         /* selected: input files, in order */
        int n_inputs;
        int lane;                       /* -1: libaccel's default; 0 off; 1 on */
        double min_sample_us;           /* selected: invokes per sample (bench_batch_size()) */
} args_t;

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n) {
        qsort(v, n, sizeof(*v), cmp_u64);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, const char *why) {
        fprintf(stderr, "serving-bench: %s: %s\n", what, why);
        exit(1);
}

/* ---- in-process ---- */

typedef struct local {
        rt_model_t *m;
        rt_interp_t *it;
} local_t;

static void local_open(const args_t *a, local_t *l) {
        char err[512] = "";
        rt_interp_options_t *o = rt_interp_options_new();
        rt_settings_t s;

        if (rt_model_load_file(a->model, &l->m, err, sizeof(err)) < 0)
                die(a->model, err);
        if (a->settings) {
                if (rt_settings_parse_json(a->settings, &s, err, sizeof(err)) < 0)
                        die("--settings", err);
                (void) rt_interp_options_set_settings(o, &s);
                rt_settings_done(&s);
        }
        if (rt_interp_create(l->m, o, &l->it, err, sizeof(err)) < 0)
                die("rt_interp_create", err);
        rt_interp_options_free(o);
        if (rt_interp_allocate_tensors(l->it) < 0)
                die("allocate", rt_interp_last_error(l->it));
        for (int32_t i = 0; i < rt_interp_input_count(l->it); i++) {
                const rt_tensor_t *t = rt_interp_input_tensor(l->it, i);

                memset(rt_interp_input_data(l->it, i), 0, t->bytes);
        }
}

static void local_close(local_t *l) {
        rt_interp_free(l->it);
        rt_model_free(l->m);
}

/* ---- through acceld ---- */

static accel_interp_t *remote_open_lane(const args_t *a, bool inline_tensors, int lane) {
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;

        if (accel_model_create_from_file(a->model, &m) < 0)
                die(a->model, accel_last_error());
        (void) accel_interp_options_set_socket(o, a->socket);
        if (a->settings)
                (void) accel_interp_options_set_settings_json(o, a->settings);
        (void) accel_interp_options_set_inline_tensors(o, inline_tensors);
        if (lane >= 0)
                (void) accel_interp_options_set_lane(o, lane != 0);
        if (a->batch > 0)
                (void) accel_interp_options_set_batching(o, (uint32_t) a->batch, (uint32_t) a->batch_delay_us);
        if (accel_interp_create(m, o, &it) < 0 || accel_interp_allocate_tensors(it) < 0)
                die("acceld", accel_last_error());
        accel_interp_options_delete(o);
        accel_model_delete(m);
        return it;
}

static accel_interp_t *remote_open(const args_t *a, bool inline_tensors) {
        return remote_open_lane(a, inline_tensors, a->lane);
}

/* Inputs from the --input files (raw bytes, in order), else zeros. */
static void inputs_load(const args_t *a, accel_interp_t *it) {
        for (int i = 0; i < a->n_inputs; i++) {
                accel_tensor_t *t = accel_interp_input_tensor(it, i);
                void *data = NULL;
                size_t size = 0;

                if (!t)
                        die(a->inputs[i], "the model has fewer inputs");
                if (acc_file_read(a->inputs[i], &data, &size) < 0)
                        die(a->inputs[i], "cannot read");
                if (size != accel_tensor_byte_size(t))
                        die(a->inputs[i], "size differs from the input tensor's");
                memcpy(accel_tensor_data(t), data, size);
                free(data);
        }
}

static void remote_invoke(accel_interp_t *it) {
        if (accel_interp_invoke(it) < 0)
                die("invoke", accel_last_error());
}

static int latency(const args_t *a) {
        local_t l;
        accel_interp_t *shm, *inl;
        uint64_t *tl = calloc((size_t) a->runs, 8), *ts = calloc((size_t) a->runs, 8), *ti = calloc((size_t) a->runs, 8);
        uint64_t *cs = calloc((size_t) a->runs, 8), ml, ms, mi, mc;

        local_open(a, &l);
        shm = remote_open(a, false);
        inl = remote_open(a, true);
        for (int w = 0; w < 5; w++) {
                (void) rt_interp_invoke(l.it);
                remote_invoke(shm);
                remote_invoke(inl);
        }
        for (int k = 0; k < a->runs; k++) {
                uint64_t t0 = acc_now_us();

                if (rt_interp_invoke(l.it) < 0)
                        die("invoke", rt_interp_last_error(l.it));
                tl[k] = acc_now_us() - t0;
                t0 = acc_now_us();
                remote_invoke(shm);
                ts[k] = acc_now_us() - t0;
                accel_interp_last_timing(shm, NULL, &cs[k], NULL);
                t0 = acc_now_us();
                remote_invoke(inl);
                ti[k] = acc_now_us() - t0;
        }
        ml = median(tl, (size_t) a->runs);
        ms = median(ts, (size_t) a->runs);
        mi = median(ti, (size_t) a->runs);
        mc = median(cs, (size_t) a->runs);
        printf("{\"mode\": \"latency\", \"model\": \"%s\", \"settings\": %s, \"runs\": %d,\n"
               " \"median_us\": {\"in_process\": %llu, \"daemon_shm\": %llu, \"daemon_inline\": %llu, "
               "\"daemon_compute\": %llu},\n"
               " \"ratio_shm_vs_in_process\": %.4f, \"ratio_inline_vs_shm\": %.4f,\n"
               " \"daemon_shm_zero_copy\": %s}\n",
               a->model, a->settings ? a->settings : "null", a->runs, (unsigned long long) ml,
               (unsigned long long) ms, (unsigned long long) mi, (unsigned long long) mc,
               (double) ms / (double) ml, (double) mi / (double) ms,
               accel_interp_last_zero_copy(shm) ? "true" : "false");
        accel_interp_delete(shm);
        accel_interp_delete(inl);
        local_close(&l);
        free(tl);
        free(ts);
        free(ti);
        free(cs);
        return 0;
}

/* ---- acceld alone, its own settings ---- */

static int selected(const args_t *a) {
        accel_interp_t *it = remote_open(a, false);
        uint64_t *rt = calloc((size_t) a->runs, 8), *cs = calloc((size_t) a->runs, 8);
        struct ucred peer;
        socklen_t len = sizeof(peer);
        long pid = -1;

        if (!rt || !cs)
                die("selected", "out of memory");
        if (getsockopt(accel_interp_fd(it), SOL_SOCKET, SO_PEERCRED, &peer, &len) == 0)
                pid = (long) peer.pid;
        inputs_load(a, it);
        for (int w = 0; w < 5; w++)
                remote_invoke(it);
        /* --min-sample-us: a sample is the mean of `batch` invokes timed
         * together (bench_batch_size()), round trip and compute alike; the
         * warm invokes' mean sets it. */
        uint64_t w0 = acc_now_ns();
        for (int w = 0; w < 20; w++)
                remote_invoke(it);
        const int batch = bench_batch_size((double) (acc_now_ns() - w0) / 20.0, a->min_sample_us);
        uint64_t cpu0 = pid > 0 ? bench_proc_cpu_us(pid) : 0;
        for (int k = 0; k < a->runs; k++) {
                uint64_t t0 = acc_now_ns(), compute = 0;

                for (int b = 0; b < batch; b++) {
                        uint64_t c = 0;

                        remote_invoke(it);
                        accel_interp_last_timing(it, NULL, &c, NULL);
                        compute += c;
                }
                rt[k] = (acc_now_ns() - t0 + (uint64_t) batch / 2) / (uint64_t) batch;
                cs[k] = (compute * 1000u + (uint64_t) batch / 2) / (uint64_t) batch;
        }
        uint64_t cpu1 = pid > 0 ? bench_proc_cpu_us(pid) : 0;
        bench_stats_t st;
        char why[512];
        size_t n = 0;

        /* The reason as a JSON string: its quotes become apostrophes. */
        for (const char *p = accel_interp_placement_reason(it); *p && n < sizeof(why) - 1; p++)
                why[n++] = *p == '"' ? '\'' : *p == '\\' ? '/' : *p;
        why[n] = 0;
        bench_stats_compute(rt, (size_t) a->runs, &st);
        printf("{\"mode\": \"selected\", \"model\": \"%s\", \"settings\": %s, \"settings_key\": \"%s\", "
               "\"runs\": %d, \"batch\": %d,\n \"round_trip_us\": ",
               a->model, a->settings ? a->settings : "null", accel_interp_settings_key(it), a->runs, batch);
        bench_stats_print_us(&st);
        printf(", \"compute_median_us\": %.3f, \"daemon_cpu_us_per_run\": %.3f, \"zero_copy\": %s, \"lane\": %s,"
               " \"placement\": \"%s\", \"placement_reason\": \"%s\"}\n",
               (double) median(cs, (size_t) a->runs) / 1e3,
               cpu1 > cpu0 ? (double) (cpu1 - cpu0) / ((double) a->runs * batch) : 0.0,
               accel_interp_last_zero_copy(it) ? "true" : "false", accel_interp_uses_lane(it) ? "true" : "false",
               accel_interp_placement(it), why);
        accel_interp_delete(it);
        free(rt);
        free(cs);
        return 0;
}

/* ---- the socket against a lane, interleaved ---- */

static void lane_print(const char *name, uint64_t *rt, uint64_t *cs, uint64_t *ov, int runs, bool last) {
        bench_stats_t st;
        uint64_t c = median(cs, (size_t) runs), o = median(ov, (size_t) runs);

        bench_stats_compute(rt, (size_t) runs, &st);
        printf(" \"%s\": {\"round_trip_us\": {\"min\": %llu, \"median\": %llu, \"p90\": %llu}, "
               "\"compute_median_us\": %llu, \"overhead_median_us\": %llu}%s\n", name,
               (unsigned long long) st.min, (unsigned long long) st.median, (unsigned long long) st.p90,
               (unsigned long long) c, (unsigned long long) o, last ? "}" : ",");
}

static int lane_compare(const args_t *a) {
        accel_interp_t *it[2];
        uint64_t *rt[2], *cs[2], *ov[2];

        it[0] = remote_open_lane(a, false, 0);
        it[1] = remote_open_lane(a, false, 1);
        if (!accel_interp_uses_lane(it[1]))
                die("lane", "acceld offered no lane (max_lanes = 0, or a limit)");
        for (int i = 0; i < 2; i++) {
                rt[i] = calloc((size_t) a->runs, 8);
                cs[i] = calloc((size_t) a->runs, 8);
                ov[i] = calloc((size_t) a->runs, 8);
                if (!rt[i] || !cs[i] || !ov[i])
                        die("lane", "out of memory");
                inputs_load(a, it[i]);
                for (int w = 0; w < 5; w++)
                        remote_invoke(it[i]);
        }
        for (int k = 0; k < a->runs; k++)
                for (int i = 0; i < 2; i++) {
                        /* One invoke each in turn: the socket's invoke
                         * takes longer than the lane thread's spin, so
                         * every lane invoke here wakes a sleeping thread
                         * (the futex path; `selected` measures the loop). */
                        uint64_t t0 = acc_now_us(), t1;

                        remote_invoke(it[i]);
                        t1 = acc_now_us();
                        rt[i][k] = t1 - t0;
                        accel_interp_last_timing(it[i], NULL, &cs[i][k], NULL);
                        ov[i][k] = rt[i][k] > cs[i][k] ? rt[i][k] - cs[i][k] : 0;
                }
        printf("{\"mode\": \"lane\", \"model\": \"%s\", \"settings\": %s, \"runs\": %d, \"zero_copy\": %s,\n",
               a->model, a->settings ? a->settings : "null", a->runs,
               accel_interp_last_zero_copy(it[0]) && accel_interp_last_zero_copy(it[1]) ? "true" : "false");
        lane_print("socket", rt[0], cs[0], ov[0], a->runs, false);
        lane_print("lane", rt[1], cs[1], ov[1], a->runs, true);
        for (int i = 0; i < 2; i++) {
                accel_interp_delete(it[i]);
                free(rt[i]);
                free(cs[i]);
                free(ov[i]);
        }
        return 0;
}

/* ---- throughput ---- */

typedef struct worker {
        const args_t *a;
        accel_interp_t *it;
        uint64_t end_us;
        uint64_t done;
        uint64_t *lat;                  /* round trip of each invoke, us */
        size_t n_lat, cap_lat;
} worker_t;

static void *worker_main(void *p) {
        worker_t *w = p;

        for (uint64_t t0 = acc_now_us(); t0 < w->end_us; t0 = acc_now_us()) {
                remote_invoke(w->it);
                if (w->n_lat == w->cap_lat) {
                        w->cap_lat = w->cap_lat ? 2 * w->cap_lat : 1024;
                        w->lat = realloc(w->lat, w->cap_lat * sizeof(*w->lat));
                        if (!w->lat)
                                die("throughput", "out of memory");
                }
                w->lat[w->n_lat++] = acc_now_us() - t0;
                w->done++;
        }
        return NULL;
}

/* The q-quantile (0..1) of sorted v. */
static uint64_t quantile(const uint64_t *v, size_t n, double q) {
        size_t k = (size_t) (q * (double) (n - 1) + 0.5);
        return n ? v[k < n ? k : n - 1] : 0;
}

static int throughput(const args_t *a) {
        worker_t *w = calloc((size_t) a->clients, sizeof(*w));
        pthread_t *t = calloc((size_t) a->clients, sizeof(*t));
        uint64_t total = 0, t0, t1;

        for (int i = 0; i < a->clients; i++) {
                w[i].a = a;
                w[i].it = remote_open(a, false);
                remote_invoke(w[i].it);
        }
        t0 = acc_now_us();
        for (int i = 0; i < a->clients; i++) {
                w[i].end_us = t0 + (uint64_t) a->seconds * 1000000u;
                pthread_create(&t[i], NULL, worker_main, &w[i]);
        }
        for (int i = 0; i < a->clients; i++) {
                pthread_join(t[i], NULL);
                total += w[i].done;
        }
        t1 = acc_now_us();
        uint64_t *all = malloc((total ? total : 1) * sizeof(*all));
        size_t n = 0;
        if (!all)
                die("throughput", "out of memory");
        for (int i = 0; i < a->clients; i++) {
                memcpy(all + n, w[i].lat, w[i].n_lat * sizeof(*all));
                n += w[i].n_lat;
        }
        qsort(all, n, sizeof(*all), cmp_u64);
        printf("{\"mode\": \"throughput\", \"model\": \"%s\", \"settings\": %s, \"clients\": %d, \"batch\": %d, "
               "\"seconds\": %.2f, \"inferences\": %llu, \"per_second\": %.1f, \"p50_us\": %llu, \"p99_us\": %llu}\n",
               a->model, a->settings ? a->settings : "null", a->clients, a->batch, (double) (t1 - t0) / 1e6,
               (unsigned long long) total, (double) total * 1e6 / (double) (t1 - t0),
               (unsigned long long) quantile(all, n, 0.50), (unsigned long long) quantile(all, n, 0.99));
        free(all);
        for (int i = 0; i < a->clients; i++) {
                accel_interp_delete(w[i].it);
                free(w[i].lat);
        }
        free(w);
        free(t);
        return 0;
}

/* ---- memory ---- */

/* A line of /proc/PID/status in kB ("VmRSS", "RssShmem", ...). */
static long status_kb(pid_t pid, const char *key) {
        char path[64], line[256], fmt[64];
        long kb = -1;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        (void) snprintf(fmt, sizeof(fmt), "%s: %%ld kB", key);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, fmt, &kb) == 1)
                        break;
        fclose(f);
        return kb;
}

static long rss_kb(pid_t pid) {
        return status_kb(pid, "VmRSS");
}

static pid_t daemon_pid(const args_t *a) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        pid_t pid;

        if (accel_connect(a->socket, &c) < 0 || accel_get_status(c, &s) < 0)
                die("acceld", accel_last_error());
        pid = (pid_t) s->pid;
        accel_daemon_status_free(s);
        accel_disconnect(c);
        return pid;
}

/* RSS of a child that holds n independent in-process interpreters. */
static long local_rss(const args_t *a, int n) {
        int pfd[2];
        pid_t pid;
        long kb = -1;

        if (pipe(pfd) < 0)
                return -1;
        pid = fork();
        if (pid == 0) {
                local_t *l = calloc((size_t) n, sizeof(*l));
                long before = rss_kb(getpid()), after;

                for (int i = 0; i < n; i++) {
                        local_open(a, &l[i]);
                        (void) rt_interp_invoke(l[i].it);
                }
                after = rss_kb(getpid()) - before;
                (void) !write(pfd[1], &after, sizeof(after));
                _exit(0);
        }
        (void) close(pfd[1]);
        (void) !read(pfd[0], &kb, sizeof(kb));
        (void) close(pfd[0]);
        (void) waitpid(pid, NULL, 0);
        return kb;
}

static int memory(const args_t *a) {
        pid_t pid = daemon_pid(a);
        long base = rss_kb(pid), one, many, l1, ln;
        accel_interp_t **its = calloc((size_t) a->clients, sizeof(*its));
        worker_t *w = calloc((size_t) a->clients, sizeof(*w));
        pthread_t *t = calloc((size_t) a->clients, sizeof(*t));

        /* Steady state for one client too: a second of invokes. */
        its[0] = remote_open(a, false);
        w[0].it = its[0];
        w[0].end_us = acc_now_us() + 1000000u;
        (void) worker_main(&w[0]);
        one = rss_kb(pid);
        long one_shm = status_kb(pid, "RssShmem");
        for (int i = 1; i < a->clients; i++)
                its[i] = remote_open(a, false);
        /* All clients invoke at once for a second, so the daemon grows its
         * interpreter pool as far as its workers allow. */
        for (int i = 0; i < a->clients; i++) {
                w[i].it = its[i];
                w[i].end_us = acc_now_us() + 1000000u;
                pthread_create(&t[i], NULL, worker_main, &w[i]);
        }
        for (int i = 0; i < a->clients; i++)
                pthread_join(t[i], NULL);
        many = rss_kb(pid);
        long many_shm = status_kb(pid, "RssShmem");
        l1 = local_rss(a, 1);
        ln = local_rss(a, a->clients);
        printf("{\"mode\": \"rss\", \"model\": \"%s\", \"settings\": %s, \"clients\": %d,\n"
               " \"daemon_kb\": {\"idle\": %ld, \"one_client\": %ld, \"n_clients\": %ld},\n"
               " \"daemon_growth_kb\": {\"one_client\": %ld, \"n_clients\": %ld},\n"
               " \"daemon_shmem_kb\": {\"one_client\": %ld, \"n_clients\": %ld},\n"
               " \"ratio_n_vs_one\": %.3f,\n"
               " \"in_process_kb\": {\"one_interpreter\": %ld, \"n_interpreters\": %ld},\n"
               " \"ratio_daemon_n_vs_in_process_n\": %.3f}\n",
               a->model, a->settings ? a->settings : "null", a->clients, base, one, many, one - base, many - base,
               one_shm, many_shm, (double) (many - base) / (double) (one - base), l1, ln, (double) (many - base) / (double) ln);
        for (int i = 0; i < a->clients; i++)
                accel_interp_delete(its[i]);
        free(its);
        free(w);
        free(t);
        return 0;
}

/* rss2: what a second setting of the same model (another thread count)
 * adds to acceld, against what the first added. */
static int memory_two(const args_t *a) {
        pid_t pid = daemon_pid(a);
        args_t b = *a;
        long base = rss_kb(pid), one, two;
        accel_interp_t *x, *y;
        uint64_t t0 = acc_now_us(), c1, c2;

        x = remote_open(a, false);
        c1 = acc_now_us() - t0;
        remote_invoke(x);
        one = rss_kb(pid);
        b.settings = a->settings2;
        t0 = acc_now_us();
        y = remote_open(&b, false);
        c2 = acc_now_us() - t0;
        remote_invoke(y);
        two = rss_kb(pid);
        printf("{\"mode\": \"rss2\", \"model\": \"%s\", \"settings\": [%s, %s],\n"
               " \"daemon_kb\": {\"idle\": %ld, \"first\": %ld, \"both\": %ld},\n"
               " \"growth_kb\": {\"first\": %ld, \"second\": %ld}, \"ratio_second_vs_first\": %.3f,\n"
               " \"compile_us\": {\"first\": %llu, \"second\": %llu}, \"prepare_round_trip_us\": [%llu, %llu]}\n",
               a->model, a->settings ? a->settings : "null", a->settings2 ? a->settings2 : "null", base, one, two,
               one - base, two - one, (double) (two - one) / (double) (one - base),
               (unsigned long long) accel_interp_compile_us(x), (unsigned long long) accel_interp_compile_us(y),
               (unsigned long long) c1, (unsigned long long) c2);
        accel_interp_delete(x);
        accel_interp_delete(y);
        return 0;
}

int main(int argc, char **argv) {
        args_t a = { .runs = 50, .clients = 8, .seconds = 3, .lane = -1 };

        if (argc < 3) {
                fprintf(stderr, "usage: %s latency|selected|lane|throughput|rss|rss2 MODEL --socket PATH [--settings JSON] [--runs N] "
                                "[--clients N] [--seconds T] [--batch N] [--batch-delay-us D] [--input FILE]... "
                                "[--min-sample-us US]\n", argv[0]);
                return 2;
        }
        a.mode = argv[1];
        a.model = argv[2];
        for (int i = 3; i + 1 < argc; i += 2) {
                if (strcmp(argv[i], "--socket") == 0)
                        a.socket = argv[i + 1];
                else if (strcmp(argv[i], "--settings") == 0)
                        a.settings = argv[i + 1];
                else if (strcmp(argv[i], "--runs") == 0)
                        a.runs = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--clients") == 0)
                        a.clients = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--seconds") == 0)
                        a.seconds = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--settings2") == 0)
                        a.settings2 = argv[i + 1];
                else if (strcmp(argv[i], "--input") == 0 && a.n_inputs < 16)
                        a.inputs[a.n_inputs++] = argv[i + 1];
                else if (strcmp(argv[i], "--batch") == 0)
                        a.batch = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--lane") == 0)
                        a.lane = atoi(argv[i + 1]) != 0;
                else if (strcmp(argv[i], "--batch-delay-us") == 0)
                        a.batch_delay_us = atoi(argv[i + 1]);
                else if (strcmp(argv[i], "--min-sample-us") == 0)
                        a.min_sample_us = atof(argv[i + 1]);
                else {
                        fprintf(stderr, "serving-bench: unknown option %s\n", argv[i]);
                        return 2;
                }
        }
        if (a.runs < 1 || a.clients < 1 || a.seconds < 1)
                return 2;
        if (strcmp(a.mode, "latency") == 0)
                return latency(&a);
        if (strcmp(a.mode, "throughput") == 0)
                return throughput(&a);
        if (strcmp(a.mode, "selected") == 0)
                return selected(&a);
        if (strcmp(a.mode, "lane") == 0)
                return lane_compare(&a);
        if (strcmp(a.mode, "rss") == 0)
                return memory(&a);
        if (strcmp(a.mode, "rss2") == 0 && a.settings2)
                return memory_two(&a);
        fprintf(stderr, "serving-bench: unknown mode %s\n", a.mode);
        return 2;
}
