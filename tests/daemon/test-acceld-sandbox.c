/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox of driver hosts and benchmark workers (daemon/host/sandbox.h)
 * against the real acceld: the faulty plugin's "escape" mode tries what a
 * hostile plugin did (write the state directory, open acceld.db, reach
 * acceld's fds, memory and process, shrink a weights-cache file, keep fds
 * it was not handed, take uid 0) and every attempt must be refused, with
 * acceld started as root (hosts drop to another uid) and as an
 * unprivileged user (hosts enter a user and mount namespace). Also: every
 * memfd acceld hands out is sealed against shrinking, and a weights-cache
 * file planted with a recomputed payload hash is a miss with correct
 * outputs, never a hit.
 * argv: acceld, accelctl, the faulty plugin (its folder becomes
 * ACCELD_PLUGIN_DIR). Runs as root (it starts acceld as another user).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xxhash.h>

#include "accel/accel.h"
#include "harness-faulty.h"
#include "tfb-models.h"
#include "tflite-builder.h"

#define TEST_USER "acceld-sbxtest"

static harness_daemon_t d;
static char cfg[400];
static char *add_path;

static void config_write(void) {
        (void) snprintf(cfg, sizeof(cfg), "%s", harness_faulty_config(&d, "max_execution_ms = 10000\n"));
}

/* acceld as root, as CI runs it: hosts and workers drop their uid. */
static void up_root(void) {
        const char *args[] = { "--config", cfg, NULL };

        harness_prepare(&d);
        config_write();
        harness_start(&d, args, harness_faulty_env(), -1);
        harness_wait_ready(&d, d.sock);
        add_path = harness_faulty_add_model(&d);
}

static void down(void) {
        free(add_path);
        add_path = NULL;
        harness_cleanup(&d);
}

/* Run the ADD model once with `settings` on a = {1,2,3,4}, b = {10,...}.
 * The error text (caller frees) or NULL when it ran, with y checked. */
static char *run_add(const char *settings) {
        static const float a[4] = { 1, 2, 3, 4 }, b[4] = { 10, 20, 30, 40 };
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        char *msg = NULL;
        int r;

        ck_assert_int_eq(accel_model_create_from_file(add_path, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, settings), 0);
        r = accel_interp_create(m, o, &it);
        if (r == 0)
                r = accel_interp_allocate_tensors(it);
        if (r == 0) {
                memcpy(accel_tensor_data(accel_interp_input_tensor(it, 0)), a, sizeof(a));
                memcpy(accel_tensor_data(accel_interp_input_tensor(it, 1)), b, sizeof(b));
                r = accel_interp_invoke(it);
        }
        if (r == 0) {
                const float *y = accel_tensor_data(accel_interp_output_tensor(it, 0));
                for (int i = 0; i < 4; i++)
                        ck_assert_float_eq(y[i], a[i] + b[i]);
        } else
                msg = strdup(accel_last_error());
        (void) accel_interp_delete(it);
        (void) accel_interp_options_delete(o);
        (void) accel_model_delete(m);
        return msg;
}

/* out = FC(in [1,16], DEQUANTIZE(w [32,16] float16)): its folded weights
 * go through the weights cache. Runs once and checks all 32 outputs. */
#define FP16_W(r, c) tfb_model_fp16_fc_weight(32, 16, 7, 13, 16.0f, r, c)
static void run_fp16(void) {
        size_t size;
        uint8_t *buf = tfb_model_fp16_fc(32, 16, 7, 13, 16.0f, &size);
        accel_interp_options_t *o = accel_interp_options_create();
        accel_model_t *m = NULL;
        accel_interp_t *it = NULL;

        ck_assert_int_eq(accel_model_create(buf, size, &m), 0);
        free(buf);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, "{\"delegate\":\"NONE\"}"), 0);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        accel_interp_options_delete(o);
        ck_assert_int_eq(accel_interp_allocate_tensors(it), 0);
        float *in = accel_tensor_data(accel_interp_input_tensor(it, 0));
        for (int k = 0; k < 16; k++)
                in[k] = (float) (k - 8) * 0.125f;
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        const float *y = accel_tensor_data(accel_interp_output_tensor(it, 0));
        for (int o2 = 0; o2 < 32; o2++) {
                double acc = 0;
                for (int k = 0; k < 16; k++)
                        acc += (double) (k - 8) * 0.125 * (double) FP16_W(o2, k);
                float want = (float) acc, diff = y[o2] - want;
                ck_assert_msg(diff < 1e-5f && diff > -1e-5f, "output %d: %g, want %g", o2, y[o2], want);
        }
        accel_interp_delete(it);
        accel_model_delete(m);
}

static struct accel_weights_cache_status wcache_status(void) {
        accel_client_t *c = NULL;
        accel_daemon_status_t *s = NULL;
        struct accel_weights_cache_status w;

        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_int_eq(accel_get_status(c, &s), 0);
        w = s->weights_cache;
        w.directory = NULL;
        accel_daemon_status_free(s);
        accel_disconnect(c);
        return w;
}

static bool daemon_alive(void) {
        return d.pid > 0 && kill(d.pid, 0) == 0 && waitpid(d.pid, NULL, WNOHANG) == 0;
}

/* Every attempt the escape mode makes must be refused. */
static void escape_check(const char *msg) {
        static const char *const names[] = {
                "state-create=", "weights-create=", "weights-truncate=", "models-create=", "db-write=",
                "db-read=",      "proc-fds=",       "proc-mem=",         "ptrace=",        "signal=",
                "setuid0=",
        };
        const char *refused;

        ck_assert_ptr_nonnull(msg);
        fprintf(stderr, "escape: %s\n", msg);
        ck_assert_msg(strstr(msg, "socket Operation not permitted, exec Operation not permitted"), "%s", msg);
        ck_assert_msg(strstr(msg, "; allowed: none; "), "an escape was allowed: %s", msg);
        refused = strstr(msg, "; refused: ");
        ck_assert_ptr_nonnull(refused);
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                ck_assert_msg(strstr(refused, names[i]), "%s was not tried: %s", names[i], msg);
        /* A weights file was there to shrink: refused for access, not
         * for lack of a file. */
        ck_assert_msg(!strstr(refused, "weights-truncate=ENOENT"), "%s", msg);
}

static char *escape_settings(long handed) {
        char *s;
        ck_assert_int_gt(asprintf(&s,
                                  "{\"delegate\":\"faulty\",\"plugin_settings\":{\"mode\":\"escape\","
                                  "\"state_dir\":\"%s\",\"handed_fds\":%ld}}",
                                  d.state, handed),
                         0);
        return s;
}

/* The driver host acceld started (its child running --driver-host). */
static pid_t host_pid(void) {
        DIR *dir = opendir("/proc");
        struct dirent *de;
        pid_t found = 0;

        ck_assert_ptr_nonnull(dir);
        while (!found && (de = readdir(dir))) {
                char path[300], buf[4096];
                int pid = atoi(de->d_name), ppid = 0;
                FILE *f;
                size_t n;

                if (pid <= 0)
                        continue;
                snprintf(path, sizeof(path), "/proc/%d/stat", pid);
                if (!(f = fopen(path, "re")))
                        continue;
                n = fread(buf, 1, sizeof(buf) - 1, f);
                fclose(f);
                buf[n] = 0;
                const char *rp = strrchr(buf, ')');
                if (!rp || sscanf(rp + 2, "%*c %d", &ppid) != 1 || ppid != d.pid)
                        continue;
                snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
                if (!(f = fopen(path, "re")))
                        continue;
                n = fread(buf, 1, sizeof(buf) - 1, f);
                fclose(f);
                for (size_t i = 0; i < n; i++)
                        if (!buf[i])
                                buf[i] = ' ';
                buf[n] = 0;
                if (strstr(buf, "--driver-host"))
                        found = pid;
        }
        closedir(dir);
        return found;
}

/* The value of `field` ("Uid:") in /proc/<pid>/status. */
static void proc_status(pid_t pid, const char *field, char *ret, size_t size) {
        char path[64], line[512];
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        ck_assert_ptr_nonnull(f);
        ret[0] = 0;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, field, strlen(field)) == 0) {
                        const char *v = line + strlen(field);
                        while (*v == ' ' || *v == '\t')
                                v++;
                        snprintf(ret, size, "%s", v);
                        ret[strcspn(ret, "\n")] = 0;
                }
        fclose(f);
}

static void host_confined(pid_t pid, unsigned want_uid) {
        char v[256], want[64];

        proc_status(pid, "Uid:", v, sizeof(v));
        snprintf(want, sizeof(want), "%u\t%u\t%u\t%u", want_uid, want_uid, want_uid, want_uid);
        ck_assert_msg(strcmp(v, want) == 0, "host uid: %s, want %s", v, want);
        proc_status(pid, "NoNewPrivs:", v, sizeof(v));
        ck_assert_str_eq(v, "1");
        proc_status(pid, "Seccomp:", v, sizeof(v));
        ck_assert_str_eq(v, "2");
        proc_status(pid, "CapEff:", v, sizeof(v));
        ck_assert_str_eq(v, "0000000000000000");
}

static unsigned driver_uid(void) {
        const struct passwd *pw = getpwnam("acceld-driver");
        return pw ? (unsigned) pw->pw_uid : 65534u;
}

/* acceld as root: the host runs as acceld-driver (or nobody) and every
 * escape is refused; acceld keeps serving. */
START_TEST(test_sandbox_root_escapes_refused) {
        char *settings, *msg;
        pid_t host;

        up_root();
        run_fp16();     /* a weights-cache file to attack */
        settings = escape_settings(3);
        msg = run_add(settings);
        escape_check(msg);
        ck_assert_msg(strstr(msg, "weights-create=EACCES"), "%s", msg);
        free(msg);
        free(settings);
        host = host_pid();
        ck_assert_int_gt(host, 0);
        host_confined(host, driver_uid());
        ck_assert(daemon_alive());
        msg = run_add("{\"delegate\":\"faulty\"}");
        ck_assert_msg(msg == NULL, "%s", msg);
        run_fp16();
        down();
}
END_TEST

/* Every memfd acceld created and handed to a host is sealed: even root
 * (this test) cannot shrink it through /proc, and acceld lives on. */
START_TEST(test_sandbox_memfds_sealed) {
        char path[64];
        DIR *dir;
        struct dirent *de;
        int tried = 0;

        up_root();
        /* The model stays prepared while acceld's fds are looked at: its
         * regions (and the host's) go with the last handle. */
        accel_model_t *m = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;

        ck_assert_int_eq(accel_model_create_from_file(add_path, &m), 0);
        ck_assert_int_eq(accel_interp_options_set_socket(o, d.sock), 0);
        ck_assert_int_eq(accel_interp_options_set_settings_json(o, "{\"delegate\":\"faulty\"}"), 0);
        ck_assert_msg(accel_interp_create(m, o, &it) == 0, "%s", accel_last_error());
        ck_assert_msg(accel_interp_allocate_tensors(it) == 0, "%s", accel_last_error());
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        snprintf(path, sizeof(path), "/proc/%d/fd", (int) d.pid);
        dir = opendir(path);
        ck_assert_ptr_nonnull(dir);
        while ((de = readdir(dir))) {
                char fpath[320], target[256];
                ssize_t n;
                int fd;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
                n = readlink(fpath, target, sizeof(target) - 1);
                target[n > 0 ? n : 0] = 0;
                if (strncmp(target, "/memfd:acceld", 13) != 0)
                        continue;
                fd = open(fpath, O_RDWR | O_CLOEXEC);
                ck_assert_int_ge(fd, 0);
                ck_assert_msg(ftruncate(fd, 0) < 0 && errno == EPERM, "%s can be shrunk", target);
                ck_assert_int_ne(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK, 0);
                close(fd);
                tried++;
        }
        closedir(dir);
        ck_assert_int_gt(tried, 0);
        ck_assert_msg(accel_interp_invoke(it) == 0, "%s", accel_last_error());
        (void) accel_interp_delete(it);
        (void) accel_interp_options_delete(o);
        (void) accel_model_delete(m);
        ck_assert(daemon_alive());
        down();
}
END_TEST

/* Damage a weights file as an attacker who could write it would: other
 * weights, and the payload hash recomputed. */
static void wcache_plant(void) {
        char cmd[400], path[512];
        FILE *p;
        int fd;
        struct stat st;

        snprintf(cmd, sizeof(cmd), "ls %s/weights/*.acw", d.state);
        p = popen(cmd, "r");
        ck_assert_ptr_nonnull(p);
        ck_assert_ptr_nonnull(fgets(path, sizeof(path), p));
        pclose(p);
        path[strcspn(path, "\n")] = 0;
        fd = open(path, O_RDWR | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_int_gt(st.st_size, 4096 + 2048);
        size_t n = (size_t) st.st_size - 4096;
        uint8_t *payload = malloc(n);
        ck_assert_int_eq(pread(fd, payload, n, 4096), (ssize_t) n);
        /* The weights are the payload's last 32 x 16 floats. */
        float *w = (float *) (payload + n - 2048);
        for (int i = 0; i < 512; i++)
                w[i] += 1.0f;
        uint64_t hash = XXH3_64bits_withSeed(payload, n, 0xc2b2ae3d27d4eb4full);
        ck_assert_int_eq(pwrite(fd, payload, n, 4096), (ssize_t) n);
        ck_assert_int_eq(pwrite(fd, &hash, 8, 24), 8);
        close(fd);
        free(payload);
}

/* A planted file with a correct payload hash is a miss: acceld removes it,
 * folds again, and the outputs stay right. */
START_TEST(test_sandbox_planted_wcache_file_is_a_miss) {
        struct accel_weights_cache_status w;

        up_root();
        run_fp16();
        ck_assert_int_eq(harness_signal_and_wait(&d, SIGTERM), 0);
        wcache_plant();
        harness_resume(&d, (const char *const[]) { "--config", cfg, NULL });
        run_fp16();
        w = wcache_status();
        ck_assert_uint_eq(w.hits, 0);
        ck_assert_uint_eq(w.corrupt, 1);
        ck_assert_uint_eq(w.inserts, 1);
        down();
}
END_TEST

/* A benchmark candidate that escapes from its worker: it fails, saying
 * that nothing was allowed. */
static void bench_escape_check(void) {
        char *settings = escape_settings(5);
        const char *cands[1] = { settings };
        accel_bench_options_t bo = { .candidates_json = cands, .n_candidates = 1, .runs = 1, .timeout_ms = 30000 };
        accel_client_t *c = NULL;
        uint64_t run = 0;
        bool done = false, tried = false;
        int fd = open(add_path, O_RDONLY | O_CLOEXEC);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(accel_connect(d.sock, &c), 0);
        ck_assert_msg(accel_bench_start(c, fd, NULL, &bo, &run) == 0, "%s", accel_last_error());
        close(fd);
        for (int i = 0; i < 600 && !done; i++) {
                accel_bench_progress_t *p = NULL;
                ck_assert_int_eq(accel_bench_progress(c, run, &p), 0);
                done = p->finished;
                for (size_t k = 0; done && k < p->n_candidates; k++) {
                        const accel_bench_candidate_t *cd = &p->candidates[k];
                        if (!strstr(cd->settings_json, "faulty"))
                                continue;       /* the reference run */
                        tried = true;
                        fprintf(stderr, "worker escape: %s\n", cd->error);
                        ck_assert_int_eq(cd->ok, 0);
                        ck_assert_msg(strstr(cd->error, "escape"), "%s", cd->error);
                        ck_assert_msg(strstr(cd->error, "allowed: none"), "an escape was allowed: %s", cd->error);
                }
                accel_bench_progress_free(p);
                if (!done)
                        usleep(100000);
        }
        ck_assert(done);
        ck_assert(tried);
        accel_disconnect(c);
        free(settings);
}

/* Benchmark workers get the same sandbox. */
START_TEST(test_sandbox_bench_worker_escapes_refused) {
        up_root();
        run_fp16();
        bench_escape_check();
        ck_assert(daemon_alive());
        down();
}
END_TEST

/* acceld as an unprivileged user (the packaged units): hosts and workers
 * keep its uid but live in their own user and mount namespaces, where the
 * state directory is hidden and the file system read-only. */
START_TEST(test_sandbox_unprivileged_escapes_refused) {
        const struct passwd *pw;
        char cmd[600], *settings, *msg, ns_a[128], ns_h[128], path[64];
        pid_t pid, host;
        ssize_t n;

        /* A user left by a run that failed half-way goes first. */
        snprintf(cmd, sizeof(cmd), "userdel %s 2>/dev/null; useradd --system --no-create-home --shell /usr/sbin/nologin %s",
                 TEST_USER, TEST_USER);
        if (system(cmd) != 0 || !(pw = getpwnam(TEST_USER))) {
                fprintf(stderr, "SKIP: cannot create the user %s\n", TEST_USER);
                return;
        }
        uid_t uid = pw->pw_uid;
        gid_t gid = pw->pw_gid;
        harness_prepare(&d);
        config_write();
        ck_assert_int_eq(chown(d.dir, uid, gid), 0);
        add_path = harness_faulty_add_model(&d);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                (void) putenv((char *) harness_faulty_env()[0]);
                if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
                        _exit(126);
                execl(harness_acceld(), harness_acceld(), "--socket", d.sock, "--state-dir", d.state, "--log-level",
                      "debug", "--log-target", "stderr", "--config", cfg, (char *) NULL);
                _exit(127);
        }
        d.pid = pid;
        harness_wait_ready(&d, d.sock);
        run_fp16();
        settings = escape_settings(3);
        msg = run_add(settings);
        escape_check(msg);
        /* Not for want of permission: the file system is read-only there. */
        ck_assert_msg(strstr(msg, "weights-create=EROFS"), "%s", msg);
        free(msg);
        free(settings);
        host = host_pid();
        ck_assert_int_gt(host, 0);
        host_confined(host, (unsigned) uid);
        snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int) d.pid);
        n = readlink(path, ns_a, sizeof(ns_a) - 1);
        ck_assert_int_gt(n, 0);
        ns_a[n] = 0;
        snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int) host);
        n = readlink(path, ns_h, sizeof(ns_h) - 1);
        ck_assert_int_gt(n, 0);
        ns_h[n] = 0;
        ck_assert_str_ne(ns_a, ns_h);
        ck_assert(daemon_alive());
        msg = run_add("{\"delegate\":\"faulty\"}");
        ck_assert_msg(msg == NULL, "%s", msg);
        run_fp16();
        bench_escape_check();
        ck_assert(daemon_alive());
        down();
        snprintf(cmd, sizeof(cmd), "userdel %s", TEST_USER);
        (void) system(cmd);
}
END_TEST

static Suite *sandbox_suite(void) {
        Suite *s = suite_create("sandbox");
        TCase *tc = tcase_create("sandbox");

        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_sandbox_root_escapes_refused);
        tcase_add_test(tc, test_sandbox_memfds_sealed);
        tcase_add_test(tc, test_sandbox_planted_wcache_file_is_a_miss);
        tcase_add_test(tc, test_sandbox_bench_worker_escapes_refused);
        tcase_add_test(tc, test_sandbox_unprivileged_escapes_refused);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        harness_init(argc, argv);
        if (!harness_faulty_init(argc, argv))
                return 77;
        if (geteuid() != 0) {
                fprintf(stderr, "SKIP: the sandbox tests start acceld as root and as another user\n");
                return 77;
        }
        sr = srunner_create(sandbox_suite());
        srunner_run_all(sr, CK_NORMAL);
        (void) !system("userdel " TEST_USER " 2>/dev/null");
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
