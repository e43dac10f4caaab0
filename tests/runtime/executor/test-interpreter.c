/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interpreter end to end on real .tflite bytes written by tests/builder:
 * reader -> graph -> executor, with test-only custom ops.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "kernel.h"
#include "rt.h"
#include "tflite-builder.h"

DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);
DEFINE_POINTER_CLEANUP(rt_interp_options_t, rt_interp_options_free);
DEFINE_POINTER_CLEANUP(rt_model_t, rt_model_free);
DEFINE_POINTER_CLEANUP(tfb_t, tfb_free);

/* out = in0 + in1 (in1 may be a constant of the same shape) or in0 + 1. */
static int add_prepare(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static const void *seen_const_data;
static rt_alloc_t seen_const_alloc;

static int add_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *a = rt_node_input(ctx, node, 0), *b = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (b) {
                seen_const_data = b->data;
                seen_const_alloc = b->alloc;
        }
        for (size_t i = 0; i < rt_tensor_count(a); i++)
                ((float *) out->data)[i] = ((const float *) a->data)[i] + (b ? ((const float *) b->data)[i] : 1.0f);
        return 0;
}

static const rt_registration_t add_op = {
        .name = "ADD_ONE", .op = RT_OP_CUSTOM, .prepare = add_prepare, .invoke = add_invoke,
};

/* out = state; state += 1 (int8, input 0 is the variable). */
static int peek_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *st = rt_node_input(ctx, node, 0), *out = rt_node_output(ctx, node, 0);
        memcpy(out->data, st->data, st->bytes);
        for (size_t i = 0; i < st->bytes; i++)
                ((int8_t *) st->data)[i]++;
        return 0;
}

static const rt_registration_t peek_op = {
        .name = "PEEK", .op = RT_OP_CUSTOM, .prepare = add_prepare, .invoke = peek_invoke,
};

static rt_model_t *finish(tfb_t *b, uint8_t **ret_bytes) {
        size_t size = 0;
        uint8_t *bytes = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(bytes);
        rt_model_t *m = NULL;
        char err[256] = "";
        ck_assert_msg(rt_model_load_buffer(bytes, size, false, &m, err, sizeof(err)) == 0, "load: %s", err);
        *ret_bytes = bytes;
        return m;
}

static rt_interp_t *create(const rt_model_t *m, const rt_registration_t *reg) {
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_add_custom_op(o, reg->name, reg, 1, 1), 0);
        rt_interp_t *it = NULL;
        char err[256] = "";
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "create: %s", err);
        return it;
}

START_TEST(test_interp_constants_point_into_the_mapping) {
        _cleanup_(tfb_freep) tfb_t *b = tfb_new();
        const float k[4] = { 10, 20, 30, 40 };
        const tfb_tensor_t tin = { .type = RT_TYPE_FLOAT32, .rank = 2, .shape = TFB_DIMS(1, 4),
                                   .shape_signature = TFB_DIMS(-1, 4), .name = "in" };
        int32_t in = tfb_tensor_add(b, &tin);
        int32_t kc = tfb_tensor_const(b, RT_TYPE_FLOAT32, "k", 2, TFB_DIMS(1, 4), k, sizeof(k));
        int32_t mid = tfb_tensor(b, RT_TYPE_FLOAT32, "mid", 2, TFB_DIMS(1, 4));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 4));
        int32_t code = tfb_opcode_custom(b, "ADD_ONE", 1);
        tfb_op_add(b, &(tfb_op_t) { .opcode = code, .inputs = TFB_IDS(in, kc), .n_inputs = 2,
                                    .outputs = TFB_IDS(mid), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = code, .inputs = TFB_IDS(mid, -1), .n_inputs = 2,
                                    .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        _cleanup_free_ uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = finish(b, &bytes);
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(m, &add_op);
        const rt_tensor_t *ti = rt_interp_input_tensor(it, 0);
        ck_assert_str_eq(ti->name, "in");
        ck_assert_int_eq(ti->type, RT_TYPE_FLOAT32);
        int32_t rank = 0;
        const int32_t *sig = rt_interp_input_signature(it, 0, &rank);
        ck_assert_int_eq(rank, 2);
        ck_assert_int_eq(sig[0], -1);
        ck_assert_ptr_null(rt_interp_input_tensor(it, 1));
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        const float x[4] = { 1, 2, 3, 4 };
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        const float *y = rt_interp_output_data(it, 0);
        ck_assert_float_eq(y[0], 12.0f);
        ck_assert_float_eq(y[3], 45.0f);
        ck_assert_int_eq(seen_const_alloc, RT_ALLOC_CONST);
        ck_assert((const uint8_t *) seen_const_data >= m->buf &&
                  (const uint8_t *) seen_const_data + sizeof(k) <= m->buf + m->size);

        /* Batch is dynamic: resize to 3 re-derives every shape. */
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, TFB_DIMS(3, 4)), 0);
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 1, TFB_DIMS(12)), -EINVAL);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_output_tensor(it, 0)->dims[0], 3);
        ck_assert_uint_eq(rt_interp_output_tensor(it, 0)->bytes, 48);
}
END_TEST

START_TEST(test_interp_int8_variable_starts_at_zero_point) {
        _cleanup_(tfb_freep) tfb_t *b = tfb_new();
        float scale = 0.5f;
        int64_t zp = 5;
        const tfb_tensor_t tv = { .type = RT_TYPE_INT8, .rank = 1, .shape = TFB_DIMS(3), .name = "state",
                                  .n_quant = 1, .scale = &scale, .zero_point = &zp, .is_variable = true };
        int32_t st = tfb_tensor_add(b, &tv);
        int32_t out = tfb_tensor_quant(b, RT_TYPE_INT8, "out", 1, TFB_DIMS(3), 0.5f, 5, NULL, 0);
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, "PEEK", 1), .inputs = TFB_IDS(st),
                                    .n_inputs = 1, .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, NULL, 0, TFB_IDS(out), 1);
        _cleanup_free_ uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = finish(b, &bytes);
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(m, &peek_op);
        ck_assert_int_eq(rt_interp_input_count(it), 0);
        const rt_tensor_t *o = rt_interp_output_tensor(it, 0);
        ck_assert_uint_eq(o->quant.n, 1);
        ck_assert_float_eq(o->scale, 0.5f);
        ck_assert_int_eq(o->zero_point, 5);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        int8_t got[3];
        for (int k = 0; k < 3; k++) {
                ck_assert_int_eq(rt_interp_invoke(it), 0);
                ck_assert_int_eq(rt_interp_copy_out(it, 0, got, sizeof(got)), 0);
                /* Reset like TFLite: int8 state starts at its zero point. */
                ck_assert_int_eq(got[0], 5 + k);
                ck_assert_int_eq(got[2], 5 + k);
        }
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, got, sizeof(got)), 0);
        ck_assert_int_eq(got[1], 5);
}
END_TEST

START_TEST(test_interp_builtin_custom_override) {
        /* A custom op added by the embedding program resolves before the
         * builtin table (which has no ADD_ONE at all). */
        _cleanup_(tfb_freep) tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 1, TFB_DIMS(2));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, TFB_DIMS(2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, "ADD_ONE", 1), .inputs = TFB_IDS(in),
                                    .n_inputs = 1, .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        _cleanup_free_ uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = finish(b, &bytes);
        rt_interp_t *it = NULL;
        char err[256];
        ck_assert_int_eq(rt_interp_create(m, NULL, &it, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "node 0: unresolved custom op 'ADD_ONE'");
        it = create(m, &add_op);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_float_eq(((const float *) rt_interp_output_data(it, 0))[1], 1.0f);
        rt_interp_free(it);
}
END_TEST

typedef struct worker {
        const rt_model_t *model;
        float base;
        int failures;
} worker_t;

static void *worker_run(void *arg) {
        worker_t *w = arg;
        rt_interp_options_t *o = rt_interp_options_new();
        rt_interp_t *it = NULL;
        if (!o || rt_interp_options_add_custom_op(o, "ADD_ONE", &add_op, 1, 1) < 0 ||
            rt_interp_create(w->model, o, &it, NULL, 0) < 0 || rt_interp_allocate_tensors(it) < 0) {
                w->failures++;
                goto out;
        }
        for (int k = 0; k < 200; k++) {
                float x[2] = { w->base + (float) k, -w->base }, y[2];
                if (rt_interp_copy_in(it, 0, x, sizeof(x)) < 0 || rt_interp_invoke(it) < 0 ||
                    rt_interp_copy_out(it, 0, y, sizeof(y)) < 0 || y[0] != x[0] + 1.0f || y[1] != x[1] + 1.0f)
                        w->failures++;
        }
out:
        rt_interp_free(it);
        rt_interp_options_free(o);
        return NULL;
}

#if defined(__SSE__)
#include <xmmintrin.h>

static unsigned int seen_csr;

static int csr_invoke(rt_context_t *ctx, rt_node_t *node) {
        seen_csr = _mm_getcsr();
        return add_invoke(ctx, node);
}

static const rt_registration_t csr_op = {
        .name = "ADD_ONE", .op = RT_OP_CUSTOM, .prepare = add_prepare, .invoke = csr_invoke,
};

/* Kernels run with subnormals flushed (FTZ and DAZ, as TensorFlow Lite's
 * Invoke), and the caller gets its own MXCSR back, other bits included:
 * without the flags, with them already set, and with a rounding mode of
 * its own. */
START_TEST(test_interp_invoke_flushes_subnormals_and_restores_mxcsr) {
        _cleanup_(tfb_freep) tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 1, TFB_DIMS(2));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, TFB_DIMS(2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, "ADD_ONE", 1), .inputs = TFB_IDS(in),
                                    .n_inputs = 1, .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        _cleanup_free_ uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = finish(b, &bytes);
        rt_interp_t *it = create(m, &csr_op);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        const unsigned int saved = _mm_getcsr();
        const unsigned int callers[3] = { saved & ~0x8040u, saved | 0x8040u, (saved & ~0x8040u) | 0x6000u };
        for (int k = 0; k < 3; k++) {
                _mm_setcsr(callers[k]);
                seen_csr = 0;
                int r = rt_interp_invoke(it);
                unsigned int after = _mm_getcsr();
                _mm_setcsr(saved);
                ck_assert_int_eq(r, 0);
                ck_assert_uint_eq(seen_csr, callers[k] | 0x8040u);
                ck_assert_uint_eq(after, callers[k]);
        }
        rt_interp_free(it);
}
END_TEST
#endif

START_TEST(test_interp_threads_share_one_model) {
        _cleanup_(tfb_freep) tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 1, TFB_DIMS(2));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 1, TFB_DIMS(2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_custom(b, "ADD_ONE", 1), .inputs = TFB_IDS(in),
                                    .n_inputs = 1, .outputs = TFB_IDS(out), .n_outputs = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        _cleanup_free_ uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = finish(b, &bytes);
        worker_t w[3] = { { m, 0, 0 }, { m, 1000, 0 }, { m, 5000, 0 } };
        pthread_t th[3];
        for (int i = 0; i < 3; i++)
                ck_assert_int_eq(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
        for (int i = 0; i < 3; i++) {
                ck_assert_int_eq(pthread_join(th[i], NULL), 0);
                ck_assert_int_eq(w[i].failures, 0);
        }
}
END_TEST

static bool read_file(const char *path, void *buf, size_t size) {
        FILE *f = fopen(path, "rb");
        if (!f)
                return false;
        size_t n = fread(buf, 1, size, f);
        fclose(f);
        return n == size;
}

START_TEST(test_interp_real_model_batch_resize) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char path[1024], in_path[1024], out_path[1024];
        if (!shared)
                return;
        snprintf(path, sizeof(path), "%s/models/hello_world_float.tflite", shared);
        snprintf(in_path, sizeof(in_path), "%s/models/golden/hello_world_float/input_0.bin", shared);
        snprintf(out_path, sizeof(out_path), "%s/models/golden/hello_world_float/output_0.bin", shared);
        float x, want;
        if (!read_file(in_path, &x, 4) || !read_file(out_path, &want, 4))
                return;
        _cleanup_(rt_model_freep) rt_model_t *m = NULL;
        char err[256] = "";
        ck_assert_msg(rt_model_load_file(path, &m, err, sizeof(err)) == 0, "%s", err);
        rt_interp_t *it0 = NULL;
        if (rt_interp_create(m, NULL, &it0, err, sizeof(err)) < 0)
                return;  /* FULLY_CONNECTED not there yet */
        _cleanup_(rt_interp_freep) rt_interp_t *it = it0;
        /* The batch dimension is -1 in the signature. */
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, TFB_DIMS(3, 1)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        const rt_tensor_t *o = rt_interp_output_tensor(it, 0);
        ck_assert_int_eq(o->rank, 2);
        ck_assert_int_eq(o->dims[0], 3);
        const float xs[3] = { x, x, x };
        ck_assert_int_eq(rt_interp_copy_in(it, 0, xs, sizeof(xs)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        float ys[3];
        ck_assert_int_eq(rt_interp_copy_out(it, 0, ys, sizeof(ys)), 0);
        for (int i = 0; i < 3; i++)
                ck_assert_msg(fabsf(ys[i] - want) <= 1e-4f, "row %d: %g vs %g", i, ys[i], want);
        /* And back to one row: FULLY_CONNECTED takes its row count from
         * the last prepare, not from the tensor at each invoke. */
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, TFB_DIMS(1, 1)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_output_tensor(it, 0)->dims[0], 1);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, &x, sizeof(x)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        float y1;
        ck_assert_int_eq(rt_interp_copy_out(it, 0, &y1, sizeof(y1)), 0);
        ck_assert_msg(fabsf(y1 - want) <= 1e-4f, "one row: %g vs %g", y1, want);
}
END_TEST

/* in[4] -> *2 -> a -> +1 -> b -> *2 -> c -> +1 -> out, float32 [1, 4]:
 * a and c never live at once, so a plain arena plan lets them share bytes. */
static rt_model_t *chain_model(uint8_t **ret_bytes) {
        _cleanup_(tfb_freep) tfb_t *b = tfb_new();
        const float two[4] = { 2, 2, 2, 2 }, one[4] = { 1, 1, 1, 1 };
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
        int32_t c2 = tfb_tensor_const(b, RT_TYPE_FLOAT32, "two", 2, TFB_DIMS(1, 4), two, sizeof(two));
        int32_t c1 = tfb_tensor_const(b, RT_TYPE_FLOAT32, "one", 2, TFB_DIMS(1, 4), one, sizeof(one));
        int32_t t[4];
        const char *names[4] = { "a", "b", "c", "out" };
        for (int i = 0; i < 4; i++)
                t[i] = tfb_tensor(b, RT_TYPE_FLOAT32, names[i], 2, TFB_DIMS(1, 4));
        for (int i = 0; i < 4; i++) {
                bool mul = i % 2 == 0;
                tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, mul ? RT_BUILTIN_MUL : RT_BUILTIN_ADD, 1),
                                            .inputs = TFB_IDS(i ? t[i - 1] : in, mul ? c2 : c1), .n_inputs = 2,
                                            .outputs = TFB_IDS(t[i]), .n_outputs = 1 });
        }
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(t[3]), 1);
        return finish(b, ret_bytes);
}

static rt_interp_t *create_preserving(const rt_model_t *m, bool preserve) {
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_preserve_all_tensors(o, preserve), 0);
        rt_interp_t *it = NULL;
        char err[256] = "";
        ck_assert_msg(rt_interp_create(m, o, &it, err, sizeof(err)) == 0, "create: %s", err);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        return it;
}

START_TEST(test_interp_preserve_all_tensors_keeps_intermediates) {
        _cleanup_(freep) uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = chain_model(&bytes);
        _cleanup_(rt_interp_freep) rt_interp_t *plain = create_preserving(m, false);
        _cleanup_(rt_interp_freep) rt_interp_t *keep = create_preserving(m, true);
        ck_assert_int_eq(rt_interp_options_set_preserve_all_tensors(NULL, true), -EINVAL);
        /* Without preserving, the plan shares bytes between a and c. */
        ck_assert_uint_lt(rt_interp_arena_bytes(plain), rt_interp_arena_bytes(keep));
        const float x[4] = { 1, 2, 3, 4 };
        ck_assert_int_eq(rt_interp_tensor_count(keep), 7);
        for (int run = 0; run < 2; run++) {
                ck_assert_int_eq(rt_interp_copy_in(keep, 0, x, sizeof(x)), 0);
                ck_assert_int_eq(rt_interp_invoke(keep), 0);
                for (int k = 0; k < 4; k++) {
                        float a = x[k] * 2, b = a + 1, c = b * 2, out = c + 1;
                        const float want[4] = { a, b, c, out };
                        for (int t = 0; t < 4; t++) {
                                const rt_tensor_t *tt = rt_interp_tensor(keep, 3 + t);
                                ck_assert_ptr_nonnull(tt);
                                ck_assert_float_eq(((const float *) tt->data)[k], want[t]);
                        }
                }
        }
        /* The tensors by index are the graph's: inputs, outputs, constants. */
        ck_assert_ptr_eq(rt_interp_tensor(keep, 0), rt_interp_input_tensor(keep, 0));
        ck_assert_ptr_eq(rt_interp_tensor(keep, 6), rt_interp_output_tensor(keep, 0));
        ck_assert_str_eq(rt_interp_tensor(keep, 1)->name, "two");
        ck_assert_ptr_null(rt_interp_tensor(keep, 7));
        ck_assert_ptr_null(rt_interp_tensor(keep, -1));
        ck_assert_ptr_null(rt_interp_tensor(NULL, 0));
        ck_assert_int_eq(rt_interp_tensor_count(NULL), 0);
        /* Constants are readable, not writable. */
        ck_assert_float_eq(((const float *) rt_interp_tensor(keep, 1)->data)[0], 2.0f);
        ck_assert_ptr_null(rt_interp_tensor_data(keep, 1));
        ck_assert_ptr_nonnull(rt_interp_tensor_data(keep, 3));
}
END_TEST

START_TEST(test_interp_tensor_copy_in_any_tensor) {
        _cleanup_(freep) uint8_t *bytes = NULL;
        _cleanup_(rt_model_freep) rt_model_t *m = chain_model(&bytes);
        _cleanup_(rt_interp_freep) rt_interp_t *it = create_preserving(m, true);
        const float v[4] = { 9, 8, 7, 6 };
        /* An intermediate is set until the next invoke overwrites it. */
        ck_assert_int_eq(rt_interp_tensor_copy_in(it, 4, v, sizeof(v)), 0);
        ck_assert_float_eq(((const float *) rt_interp_tensor(it, 4)->data)[1], 8.0f);
        ck_assert_int_eq(rt_interp_tensor_copy_in(it, 0, v, sizeof(v)), 0);  /* the input, by index */
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_float_eq(((const float *) rt_interp_tensor(it, 4)->data)[1], 8 * 2 + 1.0f);
        ck_assert_float_eq(((const float *) rt_interp_output_tensor(it, 0)->data)[0], (9 * 2 + 1) * 2 + 1.0f);
        /* Refusals, each with a message. */
        ck_assert_int_eq(rt_interp_tensor_copy_in(it, 1, v, sizeof(v)), -EINVAL);
        ck_assert_msg(strstr(rt_interp_last_error(it), "constant"), "%s", rt_interp_last_error(it));
        ck_assert_float_eq(((const float *) rt_interp_tensor(it, 1)->data)[0], 2.0f);
        ck_assert_int_eq(rt_interp_tensor_copy_in(it, 4, v, 8), -EINVAL);
        ck_assert_msg(strstr(rt_interp_last_error(it), "expected 16 bytes"), "%s", rt_interp_last_error(it));
        ck_assert_int_eq(rt_interp_tensor_copy_in(it, 7, v, sizeof(v)), -EINVAL);
        ck_assert_msg(strstr(rt_interp_last_error(it), "out of range"), "%s", rt_interp_last_error(it));
        ck_assert_int_eq(rt_interp_tensor_copy_in(NULL, 4, v, sizeof(v)), -EINVAL);
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, TFB_DIMS(2, 4)), 0);
        ck_assert_int_eq(rt_interp_tensor_copy_in(it, 4, v, sizeof(v)), -EINVAL);
        ck_assert_msg(strstr(rt_interp_last_error(it), "not allocated"), "%s", rt_interp_last_error(it));
        ck_assert_ptr_null(rt_interp_tensor_data(it, 4));
}
END_TEST

int main(void) {
        Suite *s = suite_create("interpreter");
        TCase *tc = tcase_create("builder");
        tcase_add_test(tc, test_interp_constants_point_into_the_mapping);
        tcase_add_test(tc, test_interp_int8_variable_starts_at_zero_point);
        tcase_add_test(tc, test_interp_builtin_custom_override);
#if defined(__SSE__)
        tcase_add_test(tc, test_interp_invoke_flushes_subnormals_and_restores_mxcsr);
#endif
        tcase_add_test(tc, test_interp_real_model_batch_resize);
        tcase_add_test(tc, test_interp_threads_share_one_model);
        tcase_add_test(tc, test_interp_preserve_all_tensors_keeps_intermediates);
        tcase_add_test(tc, test_interp_tensor_copy_in_any_tensor);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
