/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The weights cache (runtime/wcache.h) and what uses it: files written once
 * and found again by a second cache object (a restart), a damaged file
 * detected, removed and rebuilt, LRU eviction under the quota that spares
 * mapped files, folded float16 weights shared by two interpreters and
 * identical to a run without the cache, and the drivers' hook (driver.h)
 * used by a driver registered here. The writer's key: a file planted with
 * a recomputed payload hash is a miss for the writer; readers never write.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "driver.h"
#include "dtest.h"
#include "tfb-models.h"
#include "fold.h"
#include "wcache.h"

static char dir[256];

static void setup(void) {
        snprintf(dir, sizeof(dir), "/tmp/acceld-wcache-test-%d", (int) getpid());
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf %s %s.key", dir, dir);
        ck_assert_int_eq(system(cmd), 0);
}

static void teardown(void) {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf %s %s.key", dir, dir);
        (void) system(cmd);
}

static int count_files(void) {
        char cmd[400];
        snprintf(cmd, sizeof(cmd), "ls %s/*.acw 2>/dev/null | wc -l", dir);
        FILE *p = popen(cmd, "r");
        int n = -1;
        ck_assert_int_eq(fscanf(p, "%d", &n), 1);
        pclose(p);
        return n;
}

static rt_wcache_blob_t *insert(rt_wcache_t *c, const char *key, const void *data, size_t size) {
        struct iovec iov = { (void *) data, size };
        rt_wcache_blob_t *b = NULL;
        ck_assert_int_eq(rt_wcache_insert(c, key, &iov, 1, &b), 0);
        return b;
}

START_TEST(test_insert_then_lookup_across_reopen) {
        rt_wcache_t *c = NULL;
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        uint8_t data[5000];
        for (size_t i = 0; i < sizeof(data); i++)
                data[i] = (uint8_t) (i * 7);
        rt_wcache_blob_t *a = NULL, *b = insert(c, "k/one", data, sizeof(data));
        /* Same process: the mapping is shared, not mapped twice. */
        ck_assert_int_eq(rt_wcache_lookup(c, "k/one", &a), 0);
        ck_assert_ptr_eq(a, b);
        rt_wcache_blob_t *none = NULL;
        ck_assert_int_eq(rt_wcache_lookup(c, "k/two", &none), -ENOENT);
        ck_assert_ptr_null(none);
        rt_wcache_stats_t st;
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.inserts, 1);
        ck_assert_uint_eq(st.hits, 1);
        ck_assert_uint_eq(st.misses, 1);
        ck_assert_uint_eq(st.mapped_bytes, RT_WCACHE_HEADER_SIZE + sizeof(data));
        rt_wcache_blob_unref(a);
        rt_wcache_blob_unref(b);
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.mapped_bytes, 0);
        rt_wcache_close(c);

        /* A new cache object on the same directory (a restart) finds it. */
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        ck_assert_int_eq(rt_wcache_lookup(c, "k/one", &b), 0);
        size_t size = 0;
        const uint8_t *p = rt_wcache_blob_data(b, &size);
        ck_assert_uint_eq(size, sizeof(data));
        ck_assert_int_eq(memcmp(p, data, size), 0);
        rt_wcache_entry_t *e = NULL;
        size_t n = 0;
        ck_assert_int_eq(rt_wcache_list(c, &e, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert(e[0].valid && e[0].mapped);
        ck_assert_msg(strncmp(e[0].key, "k/one|rt=", 9) == 0, "%s", e[0].key);
        free(e);
        rt_wcache_blob_unref(b);
        rt_wcache_close(c);
}
END_TEST

/* Flip one payload byte, or cut the file: the next process to map it sees
 * the damage, removes the file, reports a miss, and a new insert works. */
START_TEST(test_corrupt_file_detected_and_rebuilt) {
        rt_wcache_t *c = NULL;
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        float w[1000];
        for (int i = 0; i < 1000; i++)
                w[i] = (float) i * 0.5f;
        rt_wcache_blob_unref(insert(c, "weights", w, sizeof(w)));
        rt_wcache_entry_t *e = NULL;
        size_t n = 0;
        ck_assert_int_eq(rt_wcache_list(c, &e, &n), 0);
        ck_assert_uint_eq(n, 1);
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, e[0].file);
        free(e);
        rt_wcache_close(c);

        int fd = open(path, O_RDWR);
        ck_assert_int_ge(fd, 0);
        if (_i == 0) {
                uint8_t byte;
                ck_assert_int_eq(pread(fd, &byte, 1, RT_WCACHE_HEADER_SIZE + 1234), 1);
                byte ^= 0x10;
                ck_assert_int_eq(pwrite(fd, &byte, 1, RT_WCACHE_HEADER_SIZE + 1234), 1);
        } else {
                ck_assert_int_eq(ftruncate(fd, RT_WCACHE_HEADER_SIZE + 100), 0);
        }
        close(fd);

        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        rt_wcache_blob_t *b = NULL;
        ck_assert_int_eq(rt_wcache_lookup(c, "weights", &b), -ENOENT);
        rt_wcache_stats_t st;
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.corrupt, 1);
        ck_assert_uint_eq(st.misses, 1);
        ck_assert_int_eq(access(path, F_OK), -1);
        b = insert(c, "weights", w, sizeof(w));
        size_t size;
        ck_assert_int_eq(memcmp(rt_wcache_blob_data(b, &size), w, sizeof(w)), 0);
        rt_wcache_blob_unref(b);
        rt_wcache_close(c);
}
END_TEST

/* Quota of three 8 KiB files: a fourth evicts the least recently used one
 * that nobody maps; a mapped file survives even when it is the oldest. */
START_TEST(test_quota_evicts_least_recently_used) {
        size_t one = RT_WCACHE_HEADER_SIZE + 4096;
        rt_wcache_t *c = NULL;
        ck_assert_int_eq(rt_wcache_open(dir, 3 * one, &c), 0);
        uint8_t page[4096];
        memset(page, 1, sizeof(page));
        rt_wcache_blob_t *held = insert(c, "a", page, sizeof(page));  /* oldest, but mapped */
        rt_wcache_blob_unref(insert(c, "b", page, sizeof(page)));
        rt_wcache_blob_unref(insert(c, "c", page, sizeof(page)));
        ck_assert_int_eq(count_files(), 3);
        /* Make the ages unambiguous: a oldest, then b, then c. */
        rt_wcache_entry_t *e = NULL;
        size_t n = 0;
        ck_assert_int_eq(rt_wcache_list(c, &e, &n), 0);
        for (size_t i = 0; i < n; i++) {
                char path[512];
                snprintf(path, sizeof(path), "%s/%s", dir, e[i].file);
                time_t base = time(NULL) - 100;
                time_t age = e[i].key[0] == 'a' ? base : e[i].key[0] == 'b' ? base + 10 : base + 20;
                struct timespec ts[2] = { { age, 0 }, { age, 0 } };
                ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
        }
        free(e);
        rt_wcache_blob_unref(insert(c, "d", page, sizeof(page)));
        ck_assert_int_eq(count_files(), 3);
        rt_wcache_stats_t st;
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.evictions, 1);
        ck_assert_uint_eq(st.bytes, 3 * one);
        rt_wcache_blob_t *b = NULL;
        /* "b" went (the oldest unmapped one); "a" stayed because it is mapped. */
        rt_wcache_blob_unref(held);
        rt_wcache_close(c);
        ck_assert_int_eq(rt_wcache_open(dir, 3 * one, &c), 0);
        ck_assert_int_eq(rt_wcache_lookup(c, "b", &b), -ENOENT);
        ck_assert_int_eq(rt_wcache_lookup(c, "a", &b), 0);
        rt_wcache_blob_unref(b);
        ck_assert_int_eq(rt_wcache_lookup(c, "c", &b), 0);
        rt_wcache_blob_unref(b);
        /* Bigger than the whole quota: refused, nothing removed. */
        uint8_t *big = calloc(1, 3 * one);
        struct iovec iov = { big, 3 * one };
        ck_assert_int_eq(rt_wcache_insert(c, "huge", &iov, 1, &b), -EDQUOT);
        free(big);
        ck_assert_int_eq(count_files(), 3);
        uint64_t removed = 0, bytes = 0;
        ck_assert_int_eq(rt_wcache_clear(c, &removed, &bytes), 0);
        ck_assert_uint_eq(removed, 3);
        ck_assert_uint_eq(bytes, 3 * one);
        ck_assert_int_eq(count_files(), 0);
        rt_wcache_close(c);
}
END_TEST

/* ---- folding ---- */

/* out = FC(in [1,8], DEQUANTIZE(w16 [6,8] float16)). */
#define FP16_W(r, c) tfb_model_fp16_fc_weight(6, 8, 5, 11, 8.0f, r, c)
static uint8_t *fp16_model(size_t *ret_size) {
        return tfb_model_fp16_fc(6, 8, 5, 11, 8.0f, ret_size);
}

/* Run once with the cache (c may be NULL); copy the 6 outputs. */
static void run_cached(const uint8_t *buf, size_t size, rt_delegate_t delegate, rt_wcache_t *c, float out[6]) {
        char err[512];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = delegate;
        snprintf(s.delegate_name, sizeof(s.delegate_name), "%s", delegate == RT_DELEGATE_XNNPACK ? "XNNPACK" : "NONE");
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        if (c)
                ck_assert_int_eq(rt_interp_options_set_weights_cache(o, c, "0123456789abcdef"), 0);
        rt_interp_t *it = NULL;
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "%s", err);
        rt_interp_options_free(o);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        float *in = rt_interp_input_data(it, 0);
        for (int i = 0; i < 8; i++)
                in[i] = (float) (i - 3) * 0.25f;
        ck_assert_msg(rt_interp_invoke(it) == 0, "%s", rt_interp_last_error(it));
        memcpy(out, rt_interp_output_tensor(it, 0)->data, 6 * sizeof(float));
        rt_interp_free(it);
        rt_model_free(m);
}

START_TEST(test_fold_shared_and_identical) {
        rt_delegate_t delegate = _i == 0 ? RT_DELEGATE_NONE : RT_DELEGATE_XNNPACK;
        if (delegate == RT_DELEGATE_XNNPACK && !rt_driver_xnnpack())
                return;
        size_t size;
        _cleanup_free_ uint8_t *buf = fp16_model(&size);
        float plain[6], first[6], second[6], third[6];
        run_cached(buf, size, delegate, NULL, plain);
        rt_wcache_t *c = NULL;
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        run_cached(buf, size, delegate, c, first);
        rt_wcache_stats_t st;
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.misses, 1);
        ck_assert_uint_eq(st.inserts, 1);
        run_cached(buf, size, delegate, c, second);
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.hits, 1);
        ck_assert_uint_eq(st.inserts, 1);
        rt_wcache_close(c);
        /* After a restart: the file is found, nothing is computed again. */
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        run_cached(buf, size, delegate, c, third);
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.hits, 1);
        ck_assert_uint_eq(st.inserts, 0);
        rt_wcache_close(c);
        ck_assert_int_eq(memcmp(plain, first, sizeof(plain)), 0);
        ck_assert_int_eq(memcmp(plain, second, sizeof(plain)), 0);
        ck_assert_int_eq(memcmp(plain, third, sizeof(plain)), 0);
        /* Hand-computed check of one output: sum_k in[k] * w[0][k]. */
        double want = 0;
        for (int k = 0; k < 8; k++)
                want += (double) (k - 3) * 0.25 * (double) FP16_W(0, k);
        ck_assert_double_eq_tol(plain[0], want, 1e-6);
}
END_TEST

/* ---- the drivers' hook ---- */

static int hook_hits, hook_misses;
static float hook_seen_sum;

static int wt_supported(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_settings_t *s,
                        bool *ret_supported, char (*reasons)[RT_DRIVER_REASON_MAX]) {
        (void) d;
        (void) s;
        for (int32_t i = 0; i < g->n_nodes; i++) {
                ret_supported[i] = g->nodes[i].op == RT_BUILTIN_FULLY_CONNECTED;
                reasons[i][0] = 0;
        }
        return 0;
}

typedef struct wt_prepared {
        const rt_driver_weights_t *w;
        void *ref;
        const float *packed;    /* [0] = sum of the weights, from the cache */
} wt_prepared_t;

/* "Packs" the FC weights into their sum, through the hook. */
static int wt_prepare(const rt_driver_t *d, const rt_driver_graph_t *g, const rt_driver_group_t *group,
                      const rt_settings_t *s, uint64_t deadline_ns, void **ret_prepared, rt_driver_error_t *e) {
        (void) d;
        (void) s;
        (void) deadline_ns;
        (void) e;
        ck_assert_ptr_nonnull(g->weights);
        const rt_node_t *n = &g->nodes[group->nodes[0]];
        const rt_tensor_t *w = &g->tensors[n->inputs[1]];
        ck_assert(rt_tensor_is_const(w));
        wt_prepared_t *p = calloc(1, sizeof(*p));
        p->w = g->weights;
        const void *data = NULL;
        size_t size = 0;
        int r = g->weights->lookup(g->weights, "wtest/v1/sum", &data, &size, &p->ref);
        if (r == 0) {
                hook_hits++;
        } else {
                ck_assert_int_eq(r, -ENOENT);
                hook_misses++;
                float sum = 0;
                for (size_t k = 0; k < rt_tensor_count(w); k++)
                        sum += ((const float *) w->data)[k];
                ck_assert_int_eq(g->weights->insert(g->weights, "wtest/v1/sum", &sum, sizeof(sum), &data, &p->ref), 0);
                size = sizeof(sum);
        }
        ck_assert_uint_eq(size, sizeof(float));
        p->packed = data;
        hook_seen_sum = p->packed[0];
        *ret_prepared = p;
        return 0;
}

static int wt_execute(void *prepared, const rt_driver_graph_t *g, char *err, size_t err_size) {
        (void) prepared;
        (void) g;
        (void) err;
        (void) err_size;
        return 0;
}

static void wt_release(void *prepared) {
        wt_prepared_t *p = prepared;
        if (p) {
                p->w->unref(p->w, p->ref);
                free(p);
        }
}

static const rt_driver_t wt_driver = {
        .abi_version = RT_DRIVER_ABI_VERSION,
        .name = "wtest",
        .version = "1",
        .type = RT_DRIVER_TYPE_ACCELERATOR,
        .supported_ops = wt_supported,
        .prepare = wt_prepare,
        .execute = wt_execute,
        .release = wt_release,
};

static void run_plugin(const uint8_t *buf, size_t size, rt_wcache_t *c) {
        char err[512];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_PLUGIN;
        snprintf(s.delegate_name, sizeof(s.delegate_name), "wtest");
        ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
        ck_assert_int_eq(rt_interp_options_set_weights_cache(o, c, "feedfacefeedface"), 0);
        rt_interp_t *it = NULL;
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "%s", err);
        rt_interp_options_free(o);
        ck_assert_msg(rt_interp_allocate_tensors(it) == 0, "%s", rt_interp_last_error(it));
        rt_interp_free(it);
        rt_model_free(m);
}

START_TEST(test_driver_hook_lookup_insert) {
        ck_assert_int_eq(rt_driver_register(&wt_driver), 0);
        size_t size;
        _cleanup_free_ uint8_t *buf = fp16_model(&size);
        rt_wcache_t *c = NULL;
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        hook_hits = hook_misses = 0;
        run_plugin(buf, size, c);
        ck_assert_int_eq(hook_misses, 1);
        ck_assert_int_eq(hook_hits, 0);
        run_plugin(buf, size, c);
        ck_assert_int_eq(hook_hits, 1);
        rt_wcache_close(c);
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        run_plugin(buf, size, c);
        ck_assert_int_eq(hook_hits, 2);
        ck_assert_int_eq(hook_misses, 1);
        /* The driver saw float32 weights (folded from float16) and its
         * cached sum is theirs. */
        float want = 0;
        for (int i = 0; i < 48; i++)
                want += FP16_W(i / 8, i % 8);
        ck_assert_float_eq_tol(hook_seen_sum, want, 1e-5f);
        rt_wcache_close(c);
        ck_assert_int_eq(rt_driver_unregister("wtest"), 0);
}
END_TEST

/* The one file in dir (path into buf). */
static void only_file(char *buf, size_t size) {
        rt_wcache_t *c = NULL;
        rt_wcache_entry_t *e = NULL;
        size_t n = 0;
        ck_assert_int_eq(rt_wcache_open_readonly(dir, &c), 0);
        ck_assert_int_eq(rt_wcache_list(c, &e, &n), 0);
        ck_assert_uint_eq(n, 1);
        snprintf(buf, size, "%s/%s", dir, e[0].file);
        free(e);
        rt_wcache_close(c);
}

/* Change the payload and recompute its hash, as someone who can write the
 * directory but does not hold the key would. */
static void plant(const char *path) {
        int fd = open(path, O_RDWR | O_CLOEXEC);
        struct stat st;
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstat(fd, &st), 0);
        size_t n = (size_t) st.st_size - RT_WCACHE_HEADER_SIZE;
        uint8_t *p = malloc(n);
        ck_assert_int_eq(pread(fd, p, n, RT_WCACHE_HEADER_SIZE), (ssize_t) n);
        for (size_t i = 0; i < n; i++)
                p[i] ^= 0x5a;
        uint64_t h = XXH3_64bits_withSeed(p, n, 0xc2b2ae3d27d4eb4full);
        ck_assert_int_eq(pwrite(fd, p, n, RT_WCACHE_HEADER_SIZE), (ssize_t) n);
        ck_assert_int_eq(pwrite(fd, &h, sizeof(h), 24), (ssize_t) sizeof(h));
        close(fd);
        free(p);
}

/* A file whose payload hash checks but whose tag does not (planted) is a
 * miss for the writer, removed and counted as corrupt; the payload hash is
 * right (a reader, which has no key, takes it: readers cannot write). */
START_TEST(test_planted_file_is_a_miss) {
        rt_wcache_t *c = NULL, *rd = NULL;
        rt_wcache_blob_t *b = NULL;
        rt_wcache_stats_t st;
        uint8_t data[8192];
        char path[600];

        for (size_t i = 0; i < sizeof(data); i++)
                data[i] = (uint8_t) (i * 13);
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        rt_wcache_blob_unref(insert(c, "w", data, sizeof(data)));
        rt_wcache_close(c);
        only_file(path, sizeof(path));
        plant(path);

        ck_assert_int_eq(rt_wcache_open_readonly(dir, &rd), 0);
        ck_assert_int_eq(rt_wcache_lookup(rd, "w", &b), 0);
        rt_wcache_blob_unref(b);
        rt_wcache_close(rd);

        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        ck_assert_int_eq(rt_wcache_lookup(c, "w", &b), -ENOENT);
        rt_wcache_stats(c, &st);
        ck_assert_uint_eq(st.corrupt, 1);
        ck_assert_uint_eq(st.hits, 0);
        ck_assert_int_eq(access(path, F_OK), -1);
        rt_wcache_close(c);
}
END_TEST

/* The key lives beside the directory, 0600; a key anyone else could read
 * is replaced, which makes every existing file a miss. */
START_TEST(test_key_file_private) {
        rt_wcache_t *c = NULL;
        rt_wcache_blob_t *b = NULL;
        uint8_t data[100] = { 1, 2, 3 };
        char key[600], path[600];
        struct stat st;

        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        rt_wcache_blob_unref(insert(c, "w", data, sizeof(data)));
        rt_wcache_close(c);
        snprintf(key, sizeof(key), "%s.key", dir);
        ck_assert_int_eq(stat(key, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0600);
        ck_assert_int_eq(st.st_size, 32);
        /* Not in the directory: nothing there is the key. */
        only_file(path, sizeof(path));
        ck_assert_int_eq(chmod(key, 0644), 0);
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        ck_assert_int_eq(stat(key, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0600);
        ck_assert_int_eq(rt_wcache_lookup(c, "w", &b), -ENOENT);
        rt_wcache_close(c);
}
END_TEST

/* A reader finds what the writer stored but never writes, removes or
 * touches a file: inserts and clears are -EROFS, and a damaged file is a
 * miss that stays for the writer to remove. */
START_TEST(test_reader_never_writes) {
        rt_wcache_t *c = NULL, *rd = NULL;
        rt_wcache_blob_t *b = NULL;
        struct iovec iov;
        uint8_t data[5000];
        char path[600];
        struct stat before, after;

        for (size_t i = 0; i < sizeof(data); i++)
                data[i] = (uint8_t) i;
        ck_assert_int_eq(rt_wcache_open_readonly(dir, &rd), -ENOENT);   /* no directory made */
        ck_assert_int_eq(rt_wcache_open(dir, 0, &c), 0);
        rt_wcache_blob_unref(insert(c, "w", data, sizeof(data)));
        rt_wcache_close(c);
        only_file(path, sizeof(path));
        struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
        ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
        ck_assert_int_eq(stat(path, &before), 0);

        ck_assert_int_eq(rt_wcache_open_readonly(dir, &rd), 0);
        ck_assert_int_eq(rt_wcache_lookup(rd, "w", &b), 0);
        size_t size = 0;
        ck_assert_int_eq(memcmp(rt_wcache_blob_data(b, &size), data, sizeof(data)), 0);
        rt_wcache_blob_unref(b);
        iov = (struct iovec) { data, sizeof(data) };
        ck_assert_int_eq(rt_wcache_insert(rd, "other", &iov, 1, &b), -EROFS);
        ck_assert_int_eq(rt_wcache_clear(rd, NULL, NULL), -EROFS);
        ck_assert_int_eq(stat(path, &after), 0);
        ck_assert_int_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);

        int fd = open(path, O_RDWR | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(pwrite(fd, "x", 1, RT_WCACHE_HEADER_SIZE + 7), 1);
        close(fd);
        rt_wcache_close(rd);
        ck_assert_int_eq(rt_wcache_open_readonly(dir, &rd), 0);
        ck_assert_int_eq(rt_wcache_lookup(rd, "w", &b), -ENOENT);
        ck_assert_int_eq(access(path, F_OK), 0);
        rt_wcache_close(rd);
}
END_TEST

int main(void) {
        Suite *s = suite_create("wcache");
        TCase *tc = tcase_create("wcache");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_insert_then_lookup_across_reopen);
        tcase_add_test(tc, test_planted_file_is_a_miss);
        tcase_add_test(tc, test_key_file_private);
        tcase_add_test(tc, test_reader_never_writes);
        tcase_add_loop_test(tc, test_corrupt_file_detected_and_rebuilt, 0, 2);
        tcase_add_test(tc, test_quota_evicts_least_recently_used);
        tcase_add_loop_test(tc, test_fold_shared_and_identical, 0, 2);
        tcase_add_test(tc, test_driver_hook_lookup_insert);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
