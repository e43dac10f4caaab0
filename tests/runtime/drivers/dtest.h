/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for the driver tests: run a builder-made model with settings and
 * compare two runs.
 */
#pragma once

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "driver.h"
#include "rt.h"
#include "settings.h"
#include "tflite-builder.h"

#define DT_MAX_OUT 4

typedef struct dt_result {
        int create_err;
        int alloc_err;
        int invoke_err;
        char err[1024];
        void *out[DT_MAX_OUT];
        size_t out_bytes[DT_MAX_OUT];
        rt_type_t out_type[DT_MAX_OUT];
        int n_out;
        char parts[256];   /* "xnnpack:3 reference:1" */
        char why[1024];    /* the partitions' reasons, "; "-separated, and the delegation note */
        int n_delegated;   /* groups run by a non-reference driver */
        char nodes[64];    /* each partition's node (rt_interp_partition_t.node), "-1 2" */
} dt_result_t;

static inline void dt_result_done(dt_result_t *r) {
        for (int i = 0; i < DT_MAX_OUT; i++)
                free(r->out[i]);
        memset(r, 0, sizeof(*r));
}

/* Deterministic input pattern in the tensor's type. */
static inline void dt_fill(const rt_tensor_t *t, void *data, uint32_t seed) {
        uint32_t x = seed * 2654435761u + 1;
        size_t n = rt_tensor_count(t);
        for (size_t i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                uint32_t v = (x >> 8) & 0xffff;
                switch (t->type) {
                case RT_TYPE_FLOAT32:
                        ((float *) data)[i] = (float) v / 32768.0f - 1.0f;
                        break;
                case RT_TYPE_INT8:
                        ((int8_t *) data)[i] = (int8_t) (v & 0xff);
                        break;
                case RT_TYPE_UINT8:
                        ((uint8_t *) data)[i] = (uint8_t) (v & 0xff);
                        break;
                default:
                        memset(data, 0, t->bytes);
                        return;
                }
        }
}

/* Run model bytes once with settings s (NULL: reference); float inputs
 * all `*value` when value is not NULL, else dt_fill()'s pattern. */
static inline void dt_run_value(const uint8_t *buf, size_t size, const rt_settings_t *s, const float *value,
                                dt_result_t *res) {
        memset(res, 0, sizeof(*res));
        char err[512];
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(buf, size, true, &m, err, sizeof(err)), 0);
        rt_interp_options_t *o = rt_interp_options_new();
        if (s)
                ck_assert_int_eq(rt_interp_options_set_settings(o, s), 0);
        rt_interp_t *it = NULL;
        res->create_err = rt_interp_create(m, o, &it, res->err, sizeof(res->err));
        rt_interp_options_free(o);
        if (res->create_err < 0) {
                rt_model_free(m);
                return;
        }
        res->alloc_err = rt_interp_allocate_tensors(it);
        if (res->alloc_err == 0) {
                for (int32_t i = 0; i < rt_interp_input_count(it); i++) {
                        const rt_tensor_t *t = rt_interp_input_tensor(it, i);
                        if (value && t->type == RT_TYPE_FLOAT32)
                                for (size_t k = 0; k < t->bytes / sizeof(float); k++)
                                        ((float *) rt_interp_input_data(it, i))[k] = *value;
                        else
                                dt_fill(t, rt_interp_input_data(it, i), (uint32_t) i + 7);
                }
                res->invoke_err = rt_interp_invoke(it);
        }
        if (res->alloc_err < 0 || res->invoke_err < 0)
                snprintf(res->err, sizeof(res->err), "%s", rt_interp_last_error(it));
        else {
                res->n_out = rt_interp_output_count(it);
                for (int i = 0; i < res->n_out && i < DT_MAX_OUT; i++) {
                        const rt_tensor_t *t = rt_interp_output_tensor(it, i);
                        res->out_bytes[i] = t->bytes;
                        res->out_type[i] = t->type;
                        res->out[i] = malloc(t->bytes ? t->bytes : 1);
                        memcpy(res->out[i], t->data, t->bytes);
                }
        }
        rt_interp_partition_t parts[16];
        size_t np = rt_interp_partitions(it, parts, 16);
        size_t o2 = 0;
        for (size_t i = 0; i < np && i < 16; i++) {
                o2 += (size_t) snprintf(res->parts + o2, sizeof(res->parts) - o2, "%s%s:%d", i ? " " : "",
                                        parts[i].driver, parts[i].nodes);
                if (strcmp(parts[i].driver, "reference") != 0)
                        res->n_delegated++;
        }
        size_t o3 = 0;
        for (size_t i = 0; i < np && i < 16 && o3 < sizeof(res->nodes); i++)
                o3 += (size_t) snprintf(res->nodes + o3, sizeof(res->nodes) - o3, "%s%d", i ? " " : "",
                                        (int) parts[i].node);
        size_t w = 0;
        for (size_t i = 0; i < np && i < 16; i++)
                if (parts[i].why && parts[i].why[0] && w < sizeof(res->why))
                        w += (size_t) snprintf(res->why + w, sizeof(res->why) - w, "%s%s", w ? "; " : "",
                                               parts[i].why);
        const char *note = rt_interp_delegation_note(it);
        if (note[0] && w < sizeof(res->why))
                snprintf(res->why + w, sizeof(res->why) - w, "%s%s", w ? "; " : "", note);
        rt_interp_free(it);
        rt_model_free(m);
}

static inline void dt_run(const uint8_t *buf, size_t size, const rt_settings_t *s, dt_result_t *res) {
        dt_run_value(buf, size, s, NULL, res);
}

/* Assert two runs produced the same outputs: floats within atol + rtol,
 * integers within `steps`. */
static inline void dt_assert_close(const dt_result_t *a, const dt_result_t *b, double atol, double rtol, int steps) {
        ck_assert_int_eq(a->n_out, b->n_out);
        for (int i = 0; i < a->n_out; i++) {
                ck_assert_uint_eq(a->out_bytes[i], b->out_bytes[i]);
                size_t n = a->out_bytes[i] / rt_type_size(a->out_type[i]);
                for (size_t k = 0; k < n; k++) {
                        double x, y;
                        switch (a->out_type[i]) {
                        case RT_TYPE_FLOAT32:
                                x = ((float *) a->out[i])[k];
                                y = ((float *) b->out[i])[k];
                                ck_assert_msg(fabs(x - y) <= atol + rtol * fabs(y),
                                              "output %d element %zu: %g vs %g", i, k, x, y);
                                break;
                        case RT_TYPE_INT8:
                                x = ((int8_t *) a->out[i])[k];
                                y = ((int8_t *) b->out[i])[k];
                                ck_assert_msg(fabs(x - y) <= steps, "output %d element %zu: %g vs %g", i, k, x, y);
                                break;
                        case RT_TYPE_UINT8:
                                x = ((uint8_t *) a->out[i])[k];
                                y = ((uint8_t *) b->out[i])[k];
                                ck_assert_msg(fabs(x - y) <= steps, "output %d element %zu: %g vs %g", i, k, x, y);
                                break;
                        default:
                                ck_assert_int_eq(memcmp(a->out[i], b->out[i], a->out_bytes[i]), 0);
                                k = n;
                                break;
                        }
                }
        }
}

static inline rt_settings_t dt_xnnpack(int threads) {
        rt_settings_t s;
        rt_settings_init(&s);
        s.delegate = RT_DELEGATE_XNNPACK;
        s.xnnpack_num_threads = threads;
        return s;
}

/* Build, run on reference and XNNPACK, compare; returns the XNNPACK run's
 * delegated group count (result in *ret_x, freed by the caller). */
static inline int dt_compare(tfb_t *b, double atol, double rtol, int steps, dt_result_t *ret_x) {
        size_t size = 0;
        _cleanup_free_ uint8_t *buf = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(buf);
        dt_result_t ref;
        dt_run(buf, size, NULL, &ref);
        ck_assert_msg(ref.create_err == 0 && ref.alloc_err == 0 && ref.invoke_err == 0, "reference: %s", ref.err);
        rt_settings_t s = dt_xnnpack(1);
        dt_run(buf, size, &s, ret_x);
        ck_assert_msg(ret_x->create_err == 0 && ret_x->alloc_err == 0 && ret_x->invoke_err == 0, "xnnpack: %s",
                      ret_x->err);
        dt_assert_close(ret_x, &ref, atol, rtol, steps);
        dt_result_done(&ref);
        return ret_x->n_delegated;
}

/* main() of an XNNPACK driver test: with "models" as argv[1] the cases
 * add_models() adds (exit 77 when ACCELD_SHARED_DIR has no shared models),
 * else those of add_unit(); exit 77 in a build without XNNPACK. */
static inline int dt_xnnpack_main(int argc, char **argv, const char *name, void (*add_unit)(TCase *),
                                  void (*add_models)(TCase *)) {
        if (!rt_driver_xnnpack()) {
                fprintf(stderr, "built without XNNPACK: skipping\n");
                return 77;
        }
        bool models = argc > 1 && strcmp(argv[1], "models") == 0;
        if (models) {
                const char *shared = getenv("ACCELD_SHARED_DIR");
                char path[1024];
                snprintf(path, sizeof(path), "%s/models/blazeface_front_float.tflite", shared ? shared : "");
                if (!shared || access(path, R_OK) != 0) {
                        fprintf(stderr, "SKIP: the shared models are not here (ACCELD_SHARED_DIR)\n");
                        return 77;
                }
        }
        Suite *s = suite_create(name);
        TCase *tc = tcase_create(name);
        tcase_set_timeout(tc, 120);
        (models ? add_models : add_unit)(tc);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
