/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every real model in ../shared/models loads and matches manifest.json
 * (subgraph 0 io names, types, shapes; op histogram), and every file in
 * malformed/ is refused with -EINVAL and a message (except
 * model_invoking_error.tflite, whose only fault is an unknown custom op that
 * is caught at resolve time). Skipped (77) without ACCELD_SHARED_DIR.
 */
#include <check.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"

static const char *shared_dir;
static json_object *manifest;

static const char *jstr(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static json_object *jget(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void check_io(const char *model, const char *kind, const rt_model_t *m, const int32_t *idx, int32_t n,
                     json_object *list) {
        ck_assert_msg(n == (int32_t) json_object_array_length(list), "%s: %d %s, manifest has %zu", model, n, kind,
                      json_object_array_length(list));
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        for (int32_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(list, (size_t) i);
                ck_assert_int_ge(idx[i], 0);
                ck_assert_int_lt(idx[i], sg->n_tensors);
                const rt_model_tensor_t *t = &sg->tensors[idx[i]];
                ck_assert_msg(strcmp(t->name, jstr(e, "name")) == 0, "%s: %s %d named '%s', manifest '%s'", model,
                              kind, i, t->name, jstr(e, "name"));
                ck_assert_msg(strcmp(rt_type_name(t->type), jstr(e, "type")) == 0, "%s: %s %d is %s, manifest %s",
                              model, kind, i, rt_type_name(t->type), jstr(e, "type"));
                /* Outputs whose shape is only known at run time are
                 * declared with another shape in the file. */
                json_object *shape = jget(e, "declared_shape");
                if (!shape)
                        shape = jget(e, "shape");
                ck_assert_msg(t->rank == (int32_t) json_object_array_length(shape), "%s: %s %d rank %d", model, kind,
                              i, t->rank);
                for (int32_t a = 0; a < t->rank; a++)
                        ck_assert_msg(t->shape[a] == json_object_get_int(json_object_array_get_idx(shape, (size_t) a)),
                                      "%s: %s %d dim %d is %d", model, kind, i, a, t->shape[a]);
        }
}

static void check_ops(const char *model, const rt_model_t *m, json_object *ops) {
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        int32_t total = 0;
        json_object_object_foreach(ops, name, count) {
                int32_t expect = json_object_get_int(count), got = 0;
                const char *custom = strncmp(name, "CUSTOM:", 7) == 0 ? name + 7 : NULL;
                for (int32_t o = 0; o < sg->n_ops; o++) {
                        const rt_model_op_t *op = &sg->ops[o];
                        if (custom ? (op->builtin_code == RT_BUILTIN_CUSTOM && strcmp(op->custom_code, custom) == 0)
                                   : (op->builtin_code != RT_BUILTIN_CUSTOM && strcmp(rt_op_name(op->builtin_code), name) == 0))
                                got++;
                }
                ck_assert_msg(got == expect, "%s: %d x %s, manifest says %d", model, got, name, expect);
                total += expect;
        }
        ck_assert_msg(total == sg->n_ops, "%s: %d ops, manifest histogram sums to %d", model, sg->n_ops, total);
}

START_TEST(test_models_load_and_match_manifest) {
        json_object *models = jget(manifest, "models");
        ck_assert_ptr_nonnull(models);
        size_t n = json_object_array_length(models), loaded = 0;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(models, i);
                const char *file = jstr(e, "file");
                json_object *in_set = jget(e, "file_in_set");
                if (in_set && !json_object_get_boolean(in_set))
                        continue; /* mp_pose_landmark_heavy is not stored */
                char path[PATH_MAX];
                (void) snprintf(path, sizeof(path), "%s/models/%s", shared_dir, file);
                rt_model_t *m = NULL;
                char err[256];
                int r = rt_model_load_file(path, &m, err, sizeof(err));
                ck_assert_msg(r == 0, "%s: %d %s", file, r, err);
                ck_assert_uint_eq(m->version, 3);
                ck_assert_int_ge(m->n_subgraphs, 1);
                const rt_model_subgraph_t *sg = &m->subgraphs[0];
                check_io(file, "input", m, sg->inputs, sg->n_inputs, jget(e, "inputs"));
                check_io(file, "output", m, sg->outputs, sg->n_outputs, jget(e, "outputs"));
                check_ops(file, m, jget(e, "ops"));
                rt_model_free(m);
                loaded++;
        }
        /* 48 manifest entries, one of them not stored. */
        ck_assert_uint_eq(loaded, n - 1);
        ck_assert_uint_ge(loaded, 47);
        printf("reader: %zu models loaded and matched the manifest\n", loaded);
}
END_TEST

START_TEST(test_models_malformed_rejected) {
        json_object *list = jget(manifest, "malformed");
        ck_assert_ptr_nonnull(list);
        size_t n = json_object_array_length(list), rejected = 0;
        for (size_t i = 0; i < n; i++) {
                const char *file = jstr(json_object_array_get_idx(list, i), "file");
                char path[PATH_MAX];
                ck_assert_ptr_nonnull(file);
                (void) snprintf(path, sizeof(path), "%s/models/%s", shared_dir ? shared_dir : ".", file);
                rt_model_t *m = NULL;
                char err[256] = "unset";
                int r = rt_model_load_file(path, &m, err, sizeof(err));
                if (strstr(file, "model_invoking_error")) {
                        /* Well-formed; its unknown custom op fails at resolve. */
                        ck_assert_msg(r == 0, "%s: %d %s", file, r, err);
                        ck_assert_int_eq(m->subgraphs[0].n_ops, 1);
                        ck_assert_int_eq(m->subgraphs[0].ops[0].builtin_code, RT_BUILTIN_CUSTOM);
                        ck_assert_str_eq(rt_model_op_name(&m->subgraphs[0].ops[0]), "fake-op-double");
                        rt_model_free(m);
                        continue;
                }
                ck_assert_msg(r == -EINVAL, "%s: load returned %d", file, r);
                ck_assert_ptr_null(m);
                ck_assert_msg(err[0] != '\0' && strcmp(err, "unset") != 0, "%s: no message", file);
                rejected++;
        }
        ck_assert_uint_eq(rejected, n - 1);
        ck_assert_uint_eq(rejected, 8);
        printf("reader: %zu malformed files rejected\n", rejected);
}
END_TEST

START_TEST(test_models_fuzz_seeds_missing_identifier) {
        const char *files[] = { "fuzz_int32_max_dim", "fuzz_malicious", "fuzz_multidim_overflow",
                                "fuzz_negative_overflow", "fuzz_valid_rect", "fuzz_valid_small" };
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                char path[PATH_MAX];
                (void) snprintf(path, sizeof(path), "%s/models/malformed/%s.tflite", shared_dir, files[i]);
                rt_model_t *m = NULL;
                char err[256];
                ck_assert_int_eq(rt_model_load_file(path, &m, err, sizeof(err)), -EINVAL);
                ck_assert_str_eq(err, "not a TFLite model: missing \"TFL3\" file identifier");
        }
}
END_TEST

/* The fuzz seeds with "TFL3" patched in still fail, on their real faults. */
START_TEST(test_models_fuzz_seeds_semantic_faults) {
        static const struct {
                const char *file;
                const char *msg;
        } cases[] = {
                { "fuzz_int32_max_dim", "tensor 1: buffer 1 has 1024 bytes, int8[2147483647,1] needs 2147483647" },
                { "fuzz_malicious", "tensor 1: shape [1073741825,4] is too large" },
                { "fuzz_negative_overflow", "tensor 1: shape [1610612737,4] is too large" },
                { "fuzz_valid_rect", "operator 0 (FULLY_CONNECTED): " },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char path[PATH_MAX];
                (void) snprintf(path, sizeof(path), "%s/models/malformed/%s.tflite", shared_dir, cases[i].file);
                FILE *f = fopen(path, "rb");
                ck_assert_ptr_nonnull(f);
                uint8_t buf[4096];
                size_t size = fread(buf, 1, sizeof(buf), f);
                fclose(f);
                memcpy(buf + 4, "TFL3", 4);
                char err[256];
                ck_assert_int_eq(rt_model_verify(buf, size, err, sizeof(err)), -EINVAL);
                ck_assert_msg(strncmp(err, cases[i].msg, strlen(cases[i].msg)) == 0, "%s: %s", cases[i].file, err);
        }
}
END_TEST

START_TEST(test_models_person_detect_axis) {
        char path[PATH_MAX];
        (void) snprintf(path, sizeof(path), "%s/models/person_detect_int8.tflite", shared_dir);
        rt_model_t *m = NULL;
        char err[256];
        ck_assert_int_eq(rt_model_load_file(path, &m, err, sizeof(err)), 0);
        int rank1_quant = 0;
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        for (int32_t t = 0; t < sg->n_tensors; t++) {
                const rt_model_tensor_t *x = &sg->tensors[t];
                ck_assert_int_lt(x->quant.axis, x->rank > 0 ? x->rank : 1);
                if (x->rank == 1 && x->quant.n > 0) {
                        ck_assert_int_eq(x->quant.axis, 0);
                        rank1_quant++;
                }
        }
        ck_assert_int_ge(rank1_quant, 14);
        rt_model_free(m);
}
END_TEST

START_TEST(test_models_metadata_and_signatures) {
        char path[PATH_MAX];
        (void) snprintf(path, sizeof(path), "%s/models/hello_world_float.tflite", shared_dir);
        rt_model_t *m = NULL;
        char err[256];
        ck_assert_int_eq(rt_model_load_file(path, &m, err, sizeof(err)), 0);
        ck_assert_str_eq(m->min_runtime_version, "1.5.0");
        ck_assert_int_eq(m->n_signatures, 1);
        ck_assert_str_eq(m->signatures[0].key, "serving_default");
        ck_assert_int_eq(m->signatures[0].subgraph_index, 0);
        ck_assert_int_eq(m->signatures[0].n_inputs, 1);
        ck_assert_int_eq(m->signatures[0].n_outputs, 1);
        rt_model_free(m);
}
END_TEST

int main(void) {
        shared_dir = getenv("ACCELD_SHARED_DIR");
        char path[PATH_MAX];
        if (!shared_dir || snprintf(path, sizeof(path), "%s/models/manifest.json", shared_dir) <= 0 ||
            access(path, R_OK) < 0) {
                fprintf(stderr, "SKIP: ACCELD_SHARED_DIR/models/manifest.json not available\n");
                return 77;
        }
        manifest = json_object_from_file(path);
        if (!manifest) {
                fprintf(stderr, "cannot parse %s\n", path);
                return EXIT_FAILURE;
        }
        Suite *s = suite_create("reader-models");
        TCase *tc = tcase_create("models");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_models_load_and_match_manifest);
        tcase_add_test(tc, test_models_malformed_rejected);
        tcase_add_test(tc, test_models_fuzz_seeds_missing_identifier);
        tcase_add_test(tc, test_models_fuzz_seeds_semantic_faults);
        tcase_add_test(tc, test_models_person_detect_axis);
        tcase_add_test(tc, test_models_metadata_and_signatures);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        json_object_put(manifest);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
