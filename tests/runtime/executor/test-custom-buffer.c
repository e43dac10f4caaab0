/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rt_interp_set_tensor_buffer(): graph inputs and outputs in caller memory
 * (zero-copy), on real models with the XNNPACK driver and on the reference
 * kernels, against the arena path bit for bit.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "config.h"
#include "rt.h"

DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);
DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);

static const char *shared;

typedef struct fixture {
        rt_model_t *m;
        rt_interp_t *it;
        void *input;        /* golden input */
        size_t in_bytes;
        size_t out_bytes;
        void *want;         /* the arena path's output for `input` */
} fixture_t;

static void *file_read(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f, "cannot open %s", path);
        ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
        long n = ftell(f);
        ck_assert_int_ge(n, 1);
        rewind(f);
        void *p = malloc((size_t) n);
        ck_assert_ptr_nonnull(p);
        ck_assert_uint_eq(fread(p, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        *ret_size = (size_t) n;
        return p;
}

static void *buffer_new(size_t size) {
        size_t cap = (size + RT_BUFFER_ALIGN - 1) / RT_BUFFER_ALIGN * RT_BUFFER_ALIGN;
        void *p = aligned_alloc(RT_BUFFER_ALIGN, cap);
        ck_assert_ptr_nonnull(p);
        memset(p, 0xa5, cap);
        return p;
}

/* Load `name`, create an interpreter (XNNPACK or reference), allocate,
 * and run the golden input once on the arena path. */
static void fixture_init(fixture_t *f, const char *name, bool xnnpack) {
        char path[1024], err[512] = "";
        memset(f, 0, sizeof(*f));
        snprintf(path, sizeof(path), "%s/models/%s.tflite", shared, name);
        ck_assert_msg(rt_model_load_file(path, &f->m, err, sizeof(err)) == 0, "%s", err);
        rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_ptr_nonnull(o);
        if (xnnpack) {
                rt_settings_t s;
                rt_settings_init(&s);
                s.delegate = RT_DELEGATE_XNNPACK;
                ck_assert_int_eq(rt_interp_options_set_settings(o, &s), 0);
                rt_settings_done(&s);
                ck_assert_int_eq(rt_interp_options_set_num_threads(o, 1), 0);
        }
        ck_assert_msg(rt_interp_create(f->m, o, &f->it, err, sizeof(err)) == 0, "%s", err);
        rt_interp_options_free(o);
        if (xnnpack) {
                rt_interp_partition_t p[4];
                size_t n = rt_interp_partitions(f->it, p, 4);
                ck_assert_uint_ge(n, 1);
                ck_assert_str_eq(p[0].driver, "xnnpack");
        }
        ck_assert_int_eq(rt_interp_allocate_tensors(f->it), 0);
        snprintf(path, sizeof(path), "%s/models/golden/%s/input_0.bin", shared, name);
        f->input = file_read(path, &f->in_bytes);
        ck_assert_uint_eq(f->in_bytes, rt_interp_input_tensor(f->it, 0)->bytes);
        f->out_bytes = rt_interp_output_tensor(f->it, 0)->bytes;
        f->want = malloc(f->out_bytes);
        ck_assert_ptr_nonnull(f->want);
        ck_assert_int_eq(rt_interp_copy_in(f->it, 0, f->input, f->in_bytes), 0);
        ck_assert_int_eq(rt_interp_invoke(f->it), 0);
        ck_assert_int_eq(rt_interp_copy_out(f->it, 0, f->want, f->out_bytes), 0);
}

static void fixture_done(fixture_t *f) {
        rt_interp_free(f->it);
        rt_model_free(f->m);
        free(f->input);
        free(f->want);
}

/* Run with input and output 0 bound to caller buffers; the output must
 * land in `out` and equal the arena path's bit for bit. */
static void run_bound(fixture_t *f, const void *input, void *out, const void *want) {
        size_t in_size = f->in_bytes + RT_BUFFER_SLACK;
        void *in = buffer_new(in_size);
        memcpy(in, input, f->in_bytes);
        memset(out, 0xa5, f->out_bytes);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f->it, RT_IO_INPUT, 0, in, in_size), 0);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f->it, RT_IO_OUTPUT, 0, out, f->out_bytes), 0);
        ck_assert_ptr_eq(rt_interp_input_data(f->it, 0), in);
        ck_assert_ptr_eq(rt_interp_output_data(f->it, 0), out);
        ck_assert_msg(rt_interp_invoke(f->it) == 0, "%s", rt_interp_last_error(f->it));
        ck_assert_msg(memcmp(out, want, f->out_bytes) == 0, "caller output differs from the arena path");
        /* The input is read in place, never written. */
        ck_assert_int_eq(memcmp(in, input, f->in_bytes), 0);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f->it, RT_IO_INPUT, 0, NULL, 0), 0);
        free(in);
}

static void bitexact(const char *name, bool xnnpack) {
        fixture_t f;
        fixture_init(&f, name, xnnpack);
        void *out = buffer_new(f.out_bytes);
        run_bound(&f, f.input, out, f.want);
        fixture_done(&f);
        free(out);
}

START_TEST(test_custom_buffer_xnnpack_bitexact) {
#if HAVE_XNNPACK
        bitexact("mobilenet_v1_0.25_224_float", true);
#endif
}
END_TEST

START_TEST(test_custom_buffer_reference_bitexact) {
        bitexact("hello_world_float", false);
        bitexact("mobilenet_v1_0.25_128_quant", false);
}
END_TEST

/* Every output bound (several outputs, several partitions): each equals
 * the arena path's bit for bit. */
static void all_outputs_bitexact(const char *name) {
        fixture_t f;
        fixture_init(&f, name, true);
        int32_t n = rt_interp_output_count(f.it);
        ck_assert_int_ge(n, 1);
        void **want = calloc((size_t) n, sizeof(void *)), **out = calloc((size_t) n, sizeof(void *));
        ck_assert_ptr_nonnull(want);
        ck_assert_ptr_nonnull(out);
        for (int32_t k = 0; k < n; k++) {
                size_t bytes = rt_interp_output_tensor(f.it, k)->bytes;
                want[k] = malloc(bytes);
                ck_assert_int_eq(rt_interp_copy_out(f.it, k, want[k], bytes), 0);
                out[k] = buffer_new(bytes);
                ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, k, out[k],
                                                             rt_interp_tensor_buffer_bytes(f.it, RT_IO_OUTPUT, k)),
                                 0);
        }
        size_t in_size = rt_interp_tensor_buffer_bytes(f.it, RT_IO_INPUT, 0);
        void *in = buffer_new(in_size);
        memcpy(in, f.input, f.in_bytes);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 0, in, in_size), 0);
        ck_assert_msg(rt_interp_invoke(f.it) == 0, "%s", rt_interp_last_error(f.it));
        for (int32_t k = 0; k < n; k++) {
                ck_assert_msg(memcmp(out[k], want[k], rt_interp_output_tensor(f.it, k)->bytes) == 0,
                              "%s output %d differs from the arena path", name, k);
                free(want[k]);
                free(out[k]);
        }
        free(want);
        free(out);
        free(in);
        fixture_done(&f);
}

START_TEST(test_custom_buffer_xnnpack_all_outputs_bitexact) {
#if HAVE_XNNPACK
        all_outputs_bitexact("mp_hand_landmark_full");
        all_outputs_bitexact("deeplabv3_257_float");
#endif
}
END_TEST

/* Two inputs, pointers switched between invokes (XNNPACK sets its runtime
 * up again with the new external values). */
START_TEST(test_custom_buffer_switch_pointers) {
#if HAVE_XNNPACK
        fixture_t f;
        fixture_init(&f, "mobilenet_v1_0.25_224_float", true);
        /* A second input: the golden one mirrored, and its arena result. */
        float *in2 = malloc(f.in_bytes);
        ck_assert_ptr_nonnull(in2);
        size_t n = f.in_bytes / sizeof(float);
        for (size_t i = 0; i < n; i++)
                in2[i] = ((const float *) f.input)[n - 1 - i];
        void *want2 = malloc(f.out_bytes);
        ck_assert_int_eq(rt_interp_copy_in(f.it, 0, in2, f.in_bytes), 0);
        ck_assert_int_eq(rt_interp_invoke(f.it), 0);
        ck_assert_int_eq(rt_interp_copy_out(f.it, 0, want2, f.out_bytes), 0);
        ck_assert_int_ne(memcmp(want2, f.want, f.out_bytes), 0);
        void *out_a = buffer_new(f.out_bytes), *out_b = buffer_new(f.out_bytes);
        run_bound(&f, f.input, out_a, f.want);
        run_bound(&f, in2, out_b, want2);
        run_bound(&f, f.input, out_b, f.want);
        run_bound(&f, in2, out_a, want2);
        /* Back to the arena: the last output buffer is no longer written. */
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, 0, NULL, 0), 0);
        memset(out_a, 0x5a, f.out_bytes);
        ck_assert_int_eq(rt_interp_copy_in(f.it, 0, f.input, f.in_bytes), 0);
        ck_assert_int_eq(rt_interp_invoke(f.it), 0);
        ck_assert_ptr_ne(rt_interp_output_data(f.it, 0), out_a);
        ck_assert_int_eq(memcmp(rt_interp_output_data(f.it, 0), f.want, f.out_bytes), 0);
        for (size_t i = 0; i < f.out_bytes; i++)
                ck_assert_uint_eq(((uint8_t *) out_a)[i], 0x5a);
        free(in2);
        free(want2);
        free(out_a);
        free(out_b);
        fixture_done(&f);
#endif
}
END_TEST

START_TEST(test_custom_buffer_refuses_bad_buffers) {
        fixture_t f;
        fixture_init(&f, "hello_world_float", false);
        size_t need = rt_interp_tensor_buffer_bytes(f.it, RT_IO_INPUT, 0);
        ck_assert_uint_eq(need, f.in_bytes + RT_BUFFER_SLACK);
        /* Nothing reads the output: no slack. */
        ck_assert_uint_eq(rt_interp_tensor_buffer_bytes(f.it, RT_IO_OUTPUT, 0), f.out_bytes);
        ck_assert_uint_eq(rt_interp_tensor_buffer_bytes(f.it, RT_IO_OUTPUT, 1), 0);
        uint8_t *buf = buffer_new(need + 2 * RT_BUFFER_ALIGN);
        /* Misaligned. */
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 0, buf + 4, need), -EINVAL);
        ck_assert_ptr_nonnull(strstr(rt_interp_last_error(f.it), "64-byte aligned"));
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, 0, buf + 32, f.out_bytes), -EINVAL);
        /* Short: the data without the read slack, and less than the data. */
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 0, buf, f.in_bytes), -EINVAL);
        ck_assert_ptr_nonnull(strstr(rt_interp_last_error(f.it), "too small"));
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, 0, buf, f.out_bytes - 1), -EINVAL);
        /* Out of range, bad io. */
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 1, buf, need), -EINVAL);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, -1, buf, need), -EINVAL);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, (rt_io_t) 7, 0, buf, need), -EINVAL);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(NULL, RT_IO_INPUT, 0, buf, need), -EINVAL);
        /* Refusals left the arena binding alone. */
        ck_assert_ptr_ne(rt_interp_input_data(f.it, 0), buf);
        ck_assert_ptr_ne(rt_interp_input_data(f.it, 0), buf + 4);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 0, buf, need), 0);
        ck_assert_ptr_eq(rt_interp_input_data(f.it, 0), buf);
        free(buf);
        fixture_done(&f);
}
END_TEST

/* Bound at allocate, the tensors leave the arena; a reset then needs an
 * allocate, after which the arena is back and the buffers are untouched. */
START_TEST(test_custom_buffer_bound_at_allocate_and_reset) {
        fixture_t f;
        fixture_init(&f, "mobilenet_v1_0.25_128_quant", false);
        size_t arena = rt_interp_arena_bytes(f.it);
        size_t in_size = f.in_bytes + RT_BUFFER_SLACK;
        uint8_t *in = buffer_new(in_size), *out = buffer_new(f.out_bytes);
        memcpy(in, f.input, f.in_bytes);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 0, in, in_size), 0);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, 0, out, f.out_bytes), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(f.it), 0);
        /* The input's graph-long slot is no longer planned. */
        ck_assert_uint_lt(rt_interp_arena_bytes(f.it), arena);
        ck_assert_ptr_eq(rt_interp_input_data(f.it, 0), in);
        ck_assert_ptr_eq(rt_interp_output_data(f.it, 0), out);
        ck_assert_int_eq(rt_interp_invoke(f.it), 0);
        ck_assert_int_eq(memcmp(out, f.want, f.out_bytes), 0);
        /* copy_in / copy_out go through the caller buffers too. */
        uint8_t *copy = malloc(f.out_bytes);
        ck_assert_int_eq(rt_interp_copy_out(f.it, 0, copy, f.out_bytes), 0);
        ck_assert_int_eq(memcmp(copy, f.want, f.out_bytes), 0);
        free(copy);
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_INPUT, 0, NULL, 0), 0);
        ck_assert_int_eq(rt_interp_invoke(f.it), -EINVAL);
        ck_assert_ptr_null(rt_interp_input_data(f.it, 0));
        ck_assert_int_eq(rt_interp_set_tensor_buffer(f.it, RT_IO_OUTPUT, 0, NULL, 0), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(f.it), 0);
        ck_assert_uint_eq(rt_interp_arena_bytes(f.it), arena);
        memset(in, 0, in_size);
        memset(out, 0x5a, f.out_bytes);
        ck_assert_int_eq(rt_interp_copy_in(f.it, 0, f.input, f.in_bytes), 0);
        ck_assert_int_eq(rt_interp_invoke(f.it), 0);
        ck_assert_int_eq(memcmp(rt_interp_output_data(f.it, 0), f.want, f.out_bytes), 0);
        for (size_t i = 0; i < f.out_bytes; i++)
                ck_assert_uint_eq(out[i], 0x5a);
        free(in);
        free(out);
        fixture_done(&f);
}
END_TEST

int main(void) {
        shared = getenv("ACCELD_SHARED_DIR");
        char probe[1024];
        snprintf(probe, sizeof(probe), "%s/models/hello_world_float.tflite", shared ? shared : "");
        if (!shared || access(probe, R_OK) != 0) {
                fprintf(stderr, "skip: ACCELD_SHARED_DIR with models/ is not available\n");
                return 77;
        }
        Suite *s = suite_create("custom-buffer");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_custom_buffer_xnnpack_bitexact);
        tcase_add_test(tc, test_custom_buffer_reference_bitexact);
        tcase_add_test(tc, test_custom_buffer_xnnpack_all_outputs_bitexact);
        tcase_add_test(tc, test_custom_buffer_switch_pointers);
        tcase_add_test(tc, test_custom_buffer_refuses_bad_buffers);
        tcase_add_test(tc, test_custom_buffer_bound_at_allocate_and_reset);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
