/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Model mutation and the bounded child runs (mutator.h).
 *
 * The edits aim at the flatbuffer's structure rather than at weights: most
 * picks look for an aligned int32 that is small (a shape, an index, an
 * enum, a vtable entry or an offset; weights are rarely small integers),
 * then replace it with a boundary value, nudge it, or point it elsewhere in
 * the file. The rest are plain byte and bit edits anywhere.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <accel/accel.h>

#include "mutator.h"
#include "rt.h"

void mut_rng_seed(mut_rng_t *r, uint64_t seed, uint64_t index) {
        r->state = seed * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xbf58476d1ce4e5b9ull;
        (void) mut_rng_next(r);
}

uint64_t mut_rng_next(mut_rng_t *r) {
        uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

uint64_t mut_rng_below(mut_rng_t *r, uint64_t n) {
        return mut_rng_next(r) % n;
}

/* ---- corpus ---- */

static int name_cmp(const void *a, const void *b) {
        return strcmp(((const mut_model_t *) a)->name, ((const mut_model_t *) b)->name);
}

static int file_slurp(const char *path, uint8_t **ret, size_t *ret_size) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0 || st.st_size <= 0) {
                close(fd);
                return -EINVAL;
        }
        uint8_t *buf = malloc((size_t) st.st_size);
        size_t got = 0;
        while (buf && got < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t) st.st_size - got);
                if (n <= 0)
                        break;
                got += (size_t) n;
        }
        close(fd);
        if (!buf || got != (size_t) st.st_size) {
                free(buf);
                return buf ? -EIO : -ENOMEM;
        }
        *ret = buf;
        *ret_size = got;
        return 0;
}

static bool excluded(const char *name, const char *const *exclude) {
        for (size_t i = 0; exclude && exclude[i]; i++)
                if (strstr(name, exclude[i]))
                        return true;
        return false;
}

int mut_corpus_load(mut_corpus_t *c, const char *dir, size_t max_bytes, const char *const *exclude) {
        *c = (mut_corpus_t) { 0 };
        DIR *d = opendir(dir);
        if (!d)
                return -errno;
        struct dirent *e;
        int r = 0;
        while ((e = readdir(d))) {
                size_t len = strlen(e->d_name);
                if (len < 8 || strcmp(e->d_name + len - 7, ".tflite") != 0 || excluded(e->d_name, exclude))
                        continue;
                char path[4096];
                (void) snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                struct stat st;
                if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (max_bytes && (size_t) st.st_size > max_bytes)
                        continue;
                mut_model_t *v = realloc(c->models, (c->n + 1) * sizeof(*v));
                if (!v) {
                        r = -ENOMEM;
                        break;
                }
                c->models = v;
                mut_model_t *m = &c->models[c->n];
                *m = (mut_model_t) { .path = strdup(path), .name = strdup(e->d_name) };
                if (!m->path || !m->name || (r = file_slurp(path, &m->data, &m->size)) < 0) {
                        free(m->path);
                        free(m->name);
                        r = r < 0 ? r : -ENOMEM;
                        break;
                }
                c->n++;
        }
        closedir(d);
        if (r == 0 && c->n == 0)
                r = -ENOENT;
        if (r < 0) {
                mut_corpus_free(c);
                return r;
        }
        qsort(c->models, c->n, sizeof(*c->models), name_cmp);
        return 0;
}

void mut_corpus_free(mut_corpus_t *c) {
        for (size_t i = 0; i < c->n; i++) {
                free(c->models[i].path);
                free(c->models[i].name);
                free(c->models[i].data);
        }
        free(c->models);
        *c = (mut_corpus_t) { 0 };
}

/* ---- mutation ---- */

static int32_t get_i32(const uint8_t *p) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
}

static void put_i32(uint8_t *p, int32_t v) {
        memcpy(p, &v, 4);
}

/* An aligned position holding a small int32 (a likely structure field),
 * or any aligned position when none turns up. */
static size_t pick_small_int(mut_rng_t *r, const uint8_t *d, size_t size) {
        size_t words = size / 4, pos = 0;
        for (int tries = 0; tries < 256; tries++) {
                pos = mut_rng_below(r, words) * 4;
                int32_t v = get_i32(d + pos);
                if (v >= -1 && v < (1 << 20))
                        return pos;
        }
        return pos;
}

static const int32_t boundary[] = {
        0, 1, -1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 127, 128, 255, 256, 1023, 4096, 65535, 65536,
        0x7fffffff, (int32_t) 0x80000000, 0x7ffffffe, 0x40000000, 0x3fffffff, -2, -128, -255, 1 << 24,
};

static int edit_int32(mut_rng_t *r, uint8_t *d, size_t size, char *what, size_t what_size) {
        size_t pos = pick_small_int(r, d, size);
        int32_t old = get_i32(d + pos), v;
        const char *kind;
        switch (mut_rng_below(r, 5)) {
        case 0:
        case 1:
                v = boundary[mut_rng_below(r, sizeof(boundary) / sizeof(boundary[0]))];
                kind = "int32";
                break;
        case 2:
                v = (int32_t) ((uint32_t) old + (uint32_t) (int32_t) (mut_rng_below(r, 17) - 8));
                kind = "nudge";
                break;
        case 3:
                /* Another offset: somewhere in the file, aligned. */
                v = (int32_t) (mut_rng_below(r, size / 4) * 4) - (int32_t) pos;
                if (mut_rng_below(r, 2))
                        v = (int32_t) (mut_rng_below(r, size / 4) * 4);
                kind = "offset";
                break;
        default:
                v = (int32_t) (uint32_t) mut_rng_next(r);
                kind = "random";
                break;
        }
        put_i32(d + pos, v);
        return snprintf(what, what_size, "%s@%zu %d->%d; ", kind, pos, old, v);
}

static int edit_byte(mut_rng_t *r, uint8_t *d, size_t size, char *what, size_t what_size) {
        size_t pos = mut_rng_below(r, size);
        uint8_t old = d[pos];
        if (mut_rng_below(r, 2))
                d[pos] ^= (uint8_t) (1u << mut_rng_below(r, 8));
        else
                d[pos] = (uint8_t) mut_rng_next(r);
        return snprintf(what, what_size, "byte@%zu %u->%u; ", pos, old, d[pos]);
}

/* A small int16 field (vtable entries are uint16 offsets into a table). */
static int edit_vtable(mut_rng_t *r, uint8_t *d, size_t size, char *what, size_t what_size) {
        size_t pos = pick_small_int(r, d, size) + 2 * mut_rng_below(r, 2);
        uint16_t old, v;
        memcpy(&old, d + pos, 2);
        v = mut_rng_below(r, 2) ? (uint16_t) (old + mut_rng_below(r, 9) - 4) : (uint16_t) mut_rng_next(r);
        memcpy(d + pos, &v, 2);
        return snprintf(what, what_size, "u16@%zu %u->%u; ", pos, old, v);
}

int mut_mutant_make(const mut_corpus_t *c, uint64_t seed, uint64_t index, mut_mutant_t *ret) {
        mut_rng_t r;
        mut_rng_seed(&r, seed, index);
        *ret = (mut_mutant_t) { .model = &c->models[mut_rng_below(&r, c->n)] };
        ret->size = ret->model->size;
        ret->data = malloc(ret->size);
        if (!ret->data)
                return -ENOMEM;
        memcpy(ret->data, ret->model->data, ret->size);
        unsigned edits = 1 + (unsigned) mut_rng_below(&r, 4);
        size_t o = 0;
        for (unsigned k = 0; k < edits && ret->size >= 8; k++) {
                char *w = ret->what + o;
                size_t left = sizeof(ret->what) - o;
                int n;
                uint64_t kind = mut_rng_below(&r, 10);
                if (kind < 6)
                        n = edit_int32(&r, ret->data, ret->size, w, left);
                else if (kind < 8)
                        n = edit_byte(&r, ret->data, ret->size, w, left);
                else
                        n = edit_vtable(&r, ret->data, ret->size, w, left);
                if (n > 0 && (size_t) n < left)
                        o += (size_t) n;
        }
        ret->xnnpack = mut_rng_below(&r, 4) != 0;
        ret->input_seed = mut_rng_next(&r);
        return 0;
}

void mut_mutant_free(mut_mutant_t *m) {
        free(m->data);
        m->data = NULL;
}

const char *mut_outcome_name(mut_outcome_t o) {
        switch (o) {
        case MUT_EXECUTED: return "executed";
        case MUT_PREPARE_REFUSED: return "prepare-refused";
        case MUT_ALLOCATE_FAILED: return "allocate-failed";
        case MUT_EXECUTE_FAILED: return "execute-failed";
        case MUT_CLIENT_ERROR: return "client-error";
        case MUT_CRASHED: return "crashed";
        case MUT_HUNG: return "hung";
        }
        return "?";
}

/* ---- the child runs ---- */

static void fill(uint64_t seed, void *p, size_t n) {
        mut_rng_t r;
        mut_rng_seed(&r, seed, 0);
        uint8_t *b = p;
        /* Half the runs get zeros, half random bytes (NaNs, extremes). */
        if (seed & 1) {
                memset(p, 0, n);
                return;
        }
        for (size_t i = 0; i < n; i++)
                b[i] = (uint8_t) mut_rng_next(&r);
}

static const char *settings_json(const mut_mutant_t *m) {
        return m->xnnpack ? "{\"delegate\":\"XNNPACK\"}" : "{\"delegate\":\"NONE\"}";
}

static mut_outcome_t run_daemon(const mut_mutant_t *m, const char *socket) {
        accel_model_t *model = NULL;
        accel_interp_options_t *o = accel_interp_options_create();
        accel_interp_t *it = NULL;
        if (!o || accel_model_create(m->data, m->size, &model) < 0 ||
            accel_interp_options_set_socket(o, socket) < 0 ||
            accel_interp_options_set_settings_json(o, settings_json(m)) < 0)
                return MUT_CLIENT_ERROR;
        int r = accel_interp_create(model, o, &it);
        if (r < 0)
                return r == -ECONNREFUSED || r == -ENOENT ? MUT_CLIENT_ERROR : MUT_PREPARE_REFUSED;
        if (accel_interp_allocate_tensors(it) < 0)
                return MUT_ALLOCATE_FAILED;
        for (int32_t i = 0; i < accel_interp_input_count(it); i++) {
                accel_tensor_t *t = accel_interp_input_tensor(it, i);
                if (t && accel_tensor_data(t) && accel_tensor_type(t) != ACCEL_TYPE_STRING)
                        fill(m->input_seed + (uint64_t) i, accel_tensor_data(t), accel_tensor_byte_size(t));
        }
        mut_outcome_t out = accel_interp_invoke(it) < 0 ? MUT_EXECUTE_FAILED : MUT_EXECUTED;
        accel_interp_delete(it);
        accel_interp_options_delete(o);
        accel_model_delete(model);
        return out;
}

static mut_outcome_t run_inproc(const mut_mutant_t *m) {
        char err[512];
        rt_model_t *model = NULL;
        rt_settings_t s;
        rt_settings_init(&s);
        if (rt_settings_parse_json(settings_json(m), &s, err, sizeof(err)) < 0)
                return MUT_CLIENT_ERROR;
        if (rt_model_load_buffer(m->data, m->size, true, &model, err, sizeof(err)) < 0)
                return MUT_PREPARE_REFUSED;
        rt_interp_options_t *o = rt_interp_options_new();
        rt_interp_t *it = NULL;
        if (!o || rt_interp_options_set_settings(o, &s) < 0)
                return MUT_CLIENT_ERROR;
        if (rt_interp_create(model, o, &it, err, sizeof(err)) < 0)
                return MUT_PREPARE_REFUSED;
        if (rt_interp_allocate_tensors(it) < 0)
                return MUT_ALLOCATE_FAILED;
        for (int32_t i = 0; i < rt_interp_input_count(it); i++) {
                const rt_tensor_t *t = rt_interp_input_tensor(it, i);
                void *data = rt_interp_input_data(it, i);
                if (t && data && t->type != RT_TYPE_STRING)
                        fill(m->input_seed + (uint64_t) i, data, t->bytes);
        }
        mut_outcome_t out = rt_interp_invoke(it) < 0 ? MUT_EXECUTE_FAILED : MUT_EXECUTED;
        rt_interp_free(it);
        rt_interp_options_free(o);
        rt_settings_done(&s);
        rt_model_free(model);
        return out;
}

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000u + (uint64_t) ts.tv_nsec / 1000000u;
}

/* Wait for `pid` up to timeout_ms; kill it after that. */
static int wait_bounded(pid_t pid, unsigned timeout_ms, bool *ret_timed_out) {
        uint64_t end = now_ms() + timeout_ms;
        int status = 0;
        *ret_timed_out = false;
        for (;;) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid)
                        return status;
                if (w < 0 && errno != EINTR)
                        return -1;
                if (now_ms() >= end) {
                        *ret_timed_out = true;
                        kill(pid, SIGKILL);
                        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                                ;
                        return status;
                }
                struct timespec ts = { 0, 2 * 1000 * 1000 };
                nanosleep(&ts, NULL);
        }
}

mut_outcome_t mut_run(const mut_mutant_t *m, const char *socket, unsigned timeout_ms) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
                return MUT_CLIENT_ERROR;
        if (pid == 0) {
                /* The child's own noise (the runtime's messages) stays out
                 * of the report. */
                int devnull = open("/dev/null", O_WRONLY);
                if (devnull >= 0 && !getenv("MUTATE_VERBOSE")) {
                        dup2(devnull, STDOUT_FILENO);
                        if (socket)
                                dup2(devnull, STDERR_FILENO);
                }
                signal(SIGPIPE, SIG_IGN);
                _exit(socket ? run_daemon(m, socket) : run_inproc(m));
        }
        bool timed_out;
        int status = wait_bounded(pid, timeout_ms, &timed_out);
        if (timed_out)
                return MUT_HUNG;
        if (status < 0 || WIFSIGNALED(status))
                return MUT_CRASHED;
        int code = WEXITSTATUS(status);
        return code <= MUT_CLIENT_ERROR ? (mut_outcome_t) code : MUT_CRASHED;
}

bool mut_daemon_answers(const char *socket, unsigned timeout_ms) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
                return false;
        if (pid == 0) {
                accel_client_t *c = NULL;
                accel_hello_t *h = NULL;
                int r = accel_connect(socket, &c);
                if (r == 0)
                        r = accel_hello(c, "mutate", &h);
                accel_hello_free(h);
                accel_disconnect(c);
                _exit(r == 0 ? 0 : 1);
        }
        bool timed_out;
        int status = wait_bounded(pid, timeout_ms, &timed_out);
        return !timed_out && status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int mut_mutant_save(const mut_mutant_t *m, const char *dir, const char *prefix, uint64_t seed, uint64_t index) {
        char path[4096];
        (void) mkdir(dir, 0755);
        (void) snprintf(path, sizeof(path), "%s/%s-%llu-%llu.tflite", dir, prefix, (unsigned long long) seed,
                        (unsigned long long) index);
        FILE *f = fopen(path, "wb");
        if (!f)
                return -errno;
        bool ok = fwrite(m->data, 1, m->size, f) == m->size;
        ok &= fclose(f) == 0;
        (void) snprintf(path, sizeof(path), "%s/%s-%llu-%llu.txt", dir, prefix, (unsigned long long) seed,
                        (unsigned long long) index);
        f = fopen(path, "w");
        if (!f)
                return -errno;
        fprintf(f, "model %s\nseed %llu index %llu\ndelegate %s\nedits %s\n", m->model->name,
                (unsigned long long) seed, (unsigned long long) index, m->xnnpack ? "XNNPACK" : "NONE", m->what);
        ok &= fclose(f) == 0;
        return ok ? 0 : -EIO;
}
