/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Executor and interpreter: arena sharing, variable tensors, resize and
 * re-prepare, dynamic outputs, scratch, copy checks, profiling, unknown ops.
 * Models are built in memory (tmodel.h); ops are test-only custom ops.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "executor.h"
#include "tmodel.h"

DEFINE_POINTER_CLEANUP(rt_interp_t, rt_interp_free);
DEFINE_POINTER_CLEANUP(rt_interp_options_t, rt_interp_options_free);
DEFINE_POINTER_CLEANUP(rt_resolver_t, rt_resolver_free);

/* ---- test ops ---- */

static int same_shape_prepare(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        if (!in || in->type != RT_TYPE_FLOAT32)
                return rt_ctx_error(ctx, "ADD_ONE wants a float32 input");
        return rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
}

static int add_one_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0), *out = rt_node_output(ctx, node, 0);
        const float *x = in->data;
        float *y = out->data;
        for (size_t i = 0; i < rt_tensor_count(in); i++)
                y[i] = x[i] + 1.0f;
        return 0;
}

static const rt_registration_t add_one = {
        .name = "ADD_ONE", .op = RT_OP_CUSTOM,
        .prepare = same_shape_prepare, .invoke = add_one_invoke,
};

/* state += x; out = state (input 1 is a variable tensor). */
static int accum_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0), *st = rt_node_input(ctx, node, 1);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        const float *x = in->data;
        float *s = st->data, *y = out->data;
        for (size_t i = 0; i < rt_tensor_count(in); i++) {
                s[i] += x[i];
                y[i] = s[i];
        }
        return 0;
}

static const rt_registration_t accum = {
        .name = "ACCUM", .op = RT_OP_CUSTOM,
        .prepare = same_shape_prepare, .invoke = accum_invoke,
};

/* Output is [n] where n = (int) x[0], known only at invoke. */
static int iota_prepare(rt_context_t *ctx, rt_node_t *node) {
        return ctx->set_dynamic(ctx, node->outputs[0]);
}

static int iota_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int32_t n = (int32_t) ((const float *) in->data)[0];
        int r = rt_ctx_resize(ctx, node, 0, 1, &n);
        if (r < 0)
                return r;
        float *y = rt_node_output(ctx, node, 0)->data;
        for (int32_t i = 0; i < n; i++)
                y[i] = (float) i;
        return 0;
}

static const rt_registration_t iota = {
        .name = "IOTA", .op = RT_OP_CUSTOM, .prepare = iota_prepare, .invoke = iota_invoke,
};

/* Copies through a scratch buffer of the input's size. */
typedef struct scratch_data {
        int32_t id;
} scratch_data_t;

static int scratch_init(rt_context_t *ctx, rt_node_t *node, void **ret) {
        *ret = calloc(1, sizeof(scratch_data_t));
        return *ret ? 0 : -ENOMEM;
}

static void scratch_free(rt_context_t *ctx, void *data) {
        free(data);
}

static int scratch_prepare(rt_context_t *ctx, rt_node_t *node) {
        scratch_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        int r = ctx->request_scratch(ctx, node, in->bytes ? in->bytes : rt_tensor_count(in) * 4, &d->id);
        if (r < 0)
                return r;
        return same_shape_prepare(ctx, node);
}

static int scratch_invoke(rt_context_t *ctx, rt_node_t *node) {
        scratch_data_t *d = node->user_data;
        rt_tensor_t *in = rt_node_input(ctx, node, 0), *out = rt_node_output(ctx, node, 0);
        float *tmp = ctx->get_scratch(ctx, node, d->id);
        if (!tmp)
                return rt_ctx_error(ctx, "no scratch");
        size_t n = rt_tensor_count(in);
        for (size_t i = 0; i < n; i++)
                tmp[i] = ((const float *) in->data)[i] * 2.0f;
        memcpy(out->data, tmp, n * 4);
        return 0;
}

static const rt_registration_t scratch_op = {
        .name = "SCRATCH", .op = RT_OP_CUSTOM, .init = scratch_init, .free = scratch_free,
        .prepare = scratch_prepare, .invoke = scratch_invoke,
};

/* Copies a serialized string tensor into the output's (realloc()ed) buffer. */
static int str_prepare(rt_context_t *ctx, rt_node_t *node) {
        return ctx->set_dynamic(ctx, node->outputs[0]);
}

static int str_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0), *out = rt_node_output(ctx, node, 0);
        int r = rt_ctx_resize(ctx, node, 0, in->rank, in->dims);
        if (r < 0)
                return r;
        /* Grow by one byte per invoke, to exercise realloc of our buffer. */
        size_t cap = out->bytes + 1 > in->bytes ? out->bytes + 1 : in->bytes;
        void *p = realloc(out->data, cap);
        if (!p)
                return -ENOMEM;
        memcpy(p, in->data, in->bytes);
        out->data = p;
        out->bytes = in->bytes;
        return 0;
}

static const rt_registration_t str_copy = {
        .name = "STR_COPY", .op = RT_OP_CUSTOM, .prepare = str_prepare, .invoke = str_invoke,
};

/* ---- helpers ---- */

/* in -> ADD_ONE x3 -> out, [1, n] float32. */
static void chain3(tm_t *m, int32_t n) {
        tm_init(m);
        int32_t in = tm_tensor(m, RT_TYPE_FLOAT32, "in", 2, 1, n);
        int32_t t1 = tm_tensor(m, RT_TYPE_FLOAT32, "t1", 2, 1, n);
        int32_t t2 = tm_tensor(m, RT_TYPE_FLOAT32, "t2", 2, 1, n);
        int32_t out = tm_tensor(m, RT_TYPE_FLOAT32, "out", 2, 1, n);
        tm_op(m, 0, "ADD_ONE", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { t1 });
        tm_op(m, 0, "ADD_ONE", 1, 1, (int32_t[]) { t1 }, 1, (int32_t[]) { t2 });
        tm_op(m, 0, "ADD_ONE", 1, 1, (int32_t[]) { t2 }, 1, (int32_t[]) { out });
        tm_io(m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
}

static rt_interp_options_t *options_with(const rt_registration_t *const *regs, size_t n) {
        rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_ptr_nonnull(o);
        for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(rt_interp_options_add_custom_op(o, regs[i]->name, regs[i], 1, 1), 0);
        return o;
}

static rt_interp_t *create(const tm_t *m, const rt_registration_t *const *regs, size_t n) {
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = options_with(regs, n);
        rt_interp_t *it = NULL;
        char err[256] = "";
        int r = rt_interp_create(&m->model, o, &it, err, sizeof(err));
        ck_assert_msg(r == 0, "create: %d %s", r, err);
        return it;
}

/* ---- tests ---- */

START_TEST(test_executor_arena_shares_disjoint_lifetimes) {
        tm_t m;
        chain3(&m, 256);
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(&m, (const rt_registration_t *[]) { &add_one }, 1);
        ck_assert_uint_eq(rt_interp_arena_bytes(it), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        /* Four 1 KiB tensors: the input lives throughout, t1 dies at node 1
         * and the output (born at node 2) takes its place. */
        ck_assert_uint_eq(rt_interp_arena_bytes(it), 3072);
        float x[256], y[256];
        for (int i = 0; i < 256; i++)
                x[i] = (float) i;
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        for (int i = 0; i < 256; i++)
                ck_assert_float_eq(y[i], (float) i + 3.0f);
        /* The input survives the invoke: a second run gives the same. */
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert_float_eq(y[255], 258.0f);
}
END_TEST

START_TEST(test_executor_variable_persists_across_invokes) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 1, 4);
        int32_t st = tm_tensor(&m, RT_TYPE_FLOAT32, "state", 1, 4);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 1, 4);
        m.tensors[st].is_variable = true;
        tm_op(&m, 0, "ACCUM", 1, 2, (int32_t[]) { in, st }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(&m, (const rt_registration_t *[]) { &accum }, 1);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        const float x[4] = { 1, 2, 3, 4 };
        float y[4];
        for (int k = 1; k <= 3; k++) {
                ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), 0);
                ck_assert_int_eq(rt_interp_invoke(it), 0);
                ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
                for (int i = 0; i < 4; i++)
                        ck_assert_float_eq(y[i], x[i] * (float) k);
        }
        /* Allocating again resets the state to zero. */
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert_float_eq(y[3], 4.0f);
}
END_TEST

START_TEST(test_executor_resize_reprepares_all_nodes) {
        tm_t m;
        chain3(&m, 4);
        tm_signature(&m, 0, (const int32_t[]) { -1, 4 });
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(&m, (const rt_registration_t *[]) { &add_one }, 1);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_output_tensor(it, 0)->dims[0], 1);
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, (const int32_t[]) { 3, 4 }), 0);
        /* Not allocated after a resize. */
        ck_assert_int_eq(rt_interp_invoke(it), -EINVAL);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        const rt_tensor_t *o = rt_interp_output_tensor(it, 0);
        ck_assert_int_eq(o->rank, 2);
        ck_assert_int_eq(o->dims[0], 3);
        ck_assert_int_eq(o->dims[1], 4);
        ck_assert_uint_eq(o->bytes, 48);
        float x[12], y[12];
        for (int i = 0; i < 12; i++)
                x[i] = (float) -i;
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert_float_eq(y[11], -8.0f);
        /* The signature fixes dimension 1. */
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, (const int32_t[]) { 3, 5 }), -EINVAL);
        ck_assert_ptr_nonnull(strstr(rt_interp_last_error(it), "dimension 1 is fixed at 4"));
}
END_TEST

START_TEST(test_executor_unknown_custom_op_names_op_and_node) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 1, 4);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 1, 4);
        tm_op(&m, 0, "fake-op-double", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        rt_interp_t *it = NULL;
        char err[256] = "";
        ck_assert_int_eq(rt_interp_create(&m.model, NULL, &it, err, sizeof(err)), -EINVAL);
        ck_assert_ptr_null(it);
        ck_assert_str_eq(err, "node 0: unresolved custom op 'fake-op-double'");
}
END_TEST

START_TEST(test_executor_unsupported_version_is_refused) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 1, 4);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 1, 4);
        tm_op(&m, 0, "ADD_ONE", 4, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_add_custom_op(o, "ADD_ONE", &add_one, 1, 3), 0);
        rt_interp_t *it = NULL;
        char err[256] = "";
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, err, sizeof(err)), -ENOTSUP);
        ck_assert_str_eq(err, "node 0: custom op 'ADD_ONE' version 4 is not supported");
}
END_TEST

START_TEST(test_executor_unsupported_builtin_version_message) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 1, 4);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 1, 4);
        tm_op(&m, 27, NULL, 4, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        /* Only our own table: SVDF versions 1..3. */
        _cleanup_(rt_resolver_freep) rt_resolver_t *empty = rt_resolver_new();
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_resolver(o, empty), 0);
        ck_assert_int_eq(rt_interp_options_add_builtin_op(o, 27, &add_one, 1, 3), 0);
        ck_assert_int_eq(rt_interp_options_add_builtin_op(o, RT_OP_CUSTOM, &add_one, 1, 3), -EINVAL);
        rt_interp_t *it = NULL;
        char err[256] = "";
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, err, sizeof(err)), -ENOTSUP);
        ck_assert_str_eq(err, "node 0: op SVDF (builtin 27) version 4 is not supported");
        m.ops[0].version = 3;
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, err, sizeof(err)), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        rt_interp_free(it);
        /* Unknown builtin. */
        m.ops[0].builtin_code = 28;
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "node 0: unsupported builtin op TANH (builtin 28)");
}
END_TEST

START_TEST(test_executor_copy_size_mismatch_fails) {
        tm_t m;
        chain3(&m, 4);
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(&m, (const rt_registration_t *[]) { &add_one }, 1);
        float x[5] = { 0 };
        /* Before allocate. */
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, 16), -EINVAL);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, x, 16), -EINVAL);
        ck_assert_ptr_null(rt_interp_output_data(it, 0));
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), -EINVAL);
        ck_assert_str_eq(rt_interp_last_error(it), "input 0 'in': expected 16 bytes (float32[1x4]), got 20");
        ck_assert_int_eq(rt_interp_copy_in(it, 1, x, 16), -EINVAL);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, 16), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, x, 12), -EINVAL);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, x, 16), 0);
        ck_assert_float_eq(x[0], 3.0f);
}
END_TEST

START_TEST(test_executor_profiling_gives_per_node_entries) {
        tm_t m;
        chain3(&m, 4);
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o =
                options_with((const rt_registration_t *[]) { &add_one }, 1);
        ck_assert_int_eq(rt_interp_options_enable_profiling(o, true), 0);
        rt_interp_t *it = NULL;
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, NULL, 0), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        const rt_node_profile_t *p = NULL;
        ck_assert_uint_eq(rt_interp_profile(it, &p), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_uint_eq(rt_interp_profile(it, &p), 3);
        for (int i = 0; i < 3; i++) {
                ck_assert_int_eq(p[i].node, i);
                ck_assert_str_eq(p[i].op_name, "ADD_ONE");
                ck_assert_uint_eq(p[i].runs, 2);
                ck_assert_uint_ge(p[i].total_us, p[i].last_us);
        }
        rt_interp_free(it);
}
END_TEST

START_TEST(test_executor_dynamic_output_sized_at_invoke) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "n", 1, 1);
        int32_t mid = tm_tensor(&m, RT_TYPE_FLOAT32, "iota", 0);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 0);
        tm_op(&m, 0, "IOTA", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { mid });
        /* A node after a dynamic tensor is prepared at invoke time. */
        tm_op(&m, 0, "ADD_ONE", 1, 1, (int32_t[]) { mid }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        _cleanup_(rt_interp_freep) rt_interp_t *it =
                create(&m, (const rt_registration_t *[]) { &iota, &add_one }, 2);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_ptr_null(rt_interp_output_data(it, 0));
        for (int n = 5; n <= 9; n += 4) {
                float x = (float) n;
                ck_assert_int_eq(rt_interp_copy_in(it, 0, &x, 4), 0);
                ck_assert_int_eq(rt_interp_invoke(it), 0);
                const rt_tensor_t *o = rt_interp_output_tensor(it, 0);
                ck_assert_int_eq(o->rank, 1);
                ck_assert_int_eq(o->dims[0], n);
                ck_assert_int_eq(o->alloc, RT_ALLOC_DYNAMIC);
                const float *y = rt_interp_output_data(it, 0);
                ck_assert_float_eq(y[n - 1], (float) n);
        }
}
END_TEST

START_TEST(test_executor_scratch_lives_in_arena) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 1, 16);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 1, 16);
        tm_op(&m, 0, "SCRATCH", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        _cleanup_(rt_interp_freep) rt_interp_t *it =
                create(&m, (const rt_registration_t *[]) { &scratch_op }, 1);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        /* in, out and the scratch are alive at node 0: 3 x 64 bytes. */
        ck_assert_uint_eq(rt_interp_arena_bytes(it), 192);
        float x[16], y[16];
        for (int i = 0; i < 16; i++)
                x[i] = (float) i;
        ck_assert_int_eq(rt_interp_copy_in(it, 0, x, sizeof(x)), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        ck_assert_int_eq(rt_interp_copy_out(it, 0, y, sizeof(y)), 0);
        ck_assert_float_eq(y[15], 30.0f);
}
END_TEST

START_TEST(test_executor_string_input_checked_and_output_adopted) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_STRING, "s", 1, 2);
        int32_t out = tm_tensor(&m, RT_TYPE_STRING, "o", 1, 2);
        tm_op(&m, 0, "STR_COPY", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        _cleanup_(rt_interp_freep) rt_interp_t *it = create(&m, (const rt_registration_t *[]) { &str_copy }, 1);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        /* 2 strings "ab", "c": count, 3 offsets, 3 bytes. */
        uint8_t buf[19];
        int32_t hdr[4] = { 2, 16, 18, 19 };
        memcpy(buf, hdr, 16);
        memcpy(buf + 16, "abc", 3);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, buf, sizeof(buf) - 1), -EINVAL);
        int32_t one = 1;
        uint8_t bad[19];
        memcpy(bad, buf, sizeof(bad));
        memcpy(bad, &one, 4);
        ck_assert_int_eq(rt_interp_copy_in(it, 0, bad, sizeof(bad)), -EINVAL);
        ck_assert_ptr_nonnull(strstr(rt_interp_last_error(it), "holds 1 strings, the tensor has 2 elements"));
        ck_assert_int_eq(rt_interp_copy_in(it, 0, buf, sizeof(buf)), 0);
        for (int k = 0; k < 3; k++) {
                ck_assert_int_eq(rt_interp_invoke(it), 0);
                uint8_t got[19];
                ck_assert_int_eq(rt_interp_copy_out(it, 0, got, sizeof(got)), 0);
                ck_assert_int_eq(memcmp(got, buf, sizeof(buf)), 0);
        }
}
END_TEST

START_TEST(test_executor_model_file_unknown_op) {
        const char *shared = getenv("ACCELD_SHARED_DIR");
        if (!shared)
                return;
        char path[1024];
        snprintf(path, sizeof(path), "%s/models/malformed/model_invoking_error.tflite", shared);
        rt_model_t *m = NULL;
        char err[256] = "";
        if (rt_model_load_file(path, &m, err, sizeof(err)) == -ENOENT)
                return;
        ck_assert_msg(m, "load: %s", err);
        rt_interp_t *it = NULL;
        ck_assert_int_eq(rt_interp_create(m, NULL, &it, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "node 0: unresolved custom op 'fake-op-double'");
        rt_model_free(m);
}
END_TEST

static int count_reported;

static void reporter(void *user, const char *fmt, va_list ap) {
        char buf[256];
        vsnprintf(buf, sizeof(buf), fmt, ap);
        if (strstr(buf, "fake-op"))
                (*(int *) user)++;
}

START_TEST(test_executor_error_reporter_called) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 1, 4);
        tm_op(&m, 0, "fake-op", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { in });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { in });
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        count_reported = 0;
        ck_assert_int_eq(rt_interp_options_set_error_reporter(o, reporter, &count_reported), 0);
        rt_interp_t *it = NULL;
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, NULL, 0), -EINVAL);
        ck_assert_int_eq(count_reported, 1);
}
END_TEST

START_TEST(test_executor_options_validate) {
        _cleanup_(rt_interp_options_freep) rt_interp_options_t *o = rt_interp_options_new();
        ck_assert_int_eq(rt_interp_options_set_num_threads(o, 0), -EINVAL);
        ck_assert_int_eq(rt_interp_options_set_num_threads(o, 2), 0);
        ck_assert_int_eq(rt_interp_options_add_custom_op(o, "", &add_one, 1, 1), -EINVAL);
        ck_assert_int_eq(rt_interp_options_add_custom_op(o, "X", &add_one, 2, 1), -EINVAL);
        tm_t m;
        chain3(&m, 4);
        ck_assert_int_eq(rt_interp_options_add_custom_op(o, "ADD_ONE", &add_one, 1, 1), 0);
        rt_interp_t *it = NULL;
        ck_assert_int_eq(rt_interp_create(&m.model, o, &it, NULL, 0), 0);
        o = rt_interp_options_free(o);  /* the interpreter keeps its own copies */
        ck_assert_int_eq(rt_interp_num_threads(it), 2);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_invoke(it), 0);
        rt_interp_free(it);
}
END_TEST

START_TEST(test_resolver_find_versions_and_override) {
        _cleanup_(rt_resolver_freep) rt_resolver_t *r = rt_resolver_new();
        static const rt_registration_t a = { .name = "ADD", .op = 0 }, b = { .name = "ADD2", .op = 0 };
        static const rt_registration_t c = { .name = "MYOP", .op = RT_OP_CUSTOM };
        ck_assert_int_eq(rt_resolver_add_versions(r, &a, 1, 2), 0);
        ck_assert_ptr_eq(rt_resolver_find(r, 0, NULL, 1), &a);
        ck_assert_ptr_eq(rt_resolver_find(r, 0, NULL, 0), &a);
        ck_assert_ptr_null(rt_resolver_find(r, 0, NULL, 3));
        ck_assert(rt_resolver_has_op(r, 0, NULL));
        ck_assert_int_eq(rt_resolver_add(r, &b), 0);
        ck_assert_ptr_eq(rt_resolver_find(r, 0, NULL, 1), &b);
        ck_assert_ptr_eq(rt_resolver_find(r, 0, NULL, 7), &b);
        ck_assert_int_eq(rt_resolver_add(r, &c), 0);
        ck_assert_ptr_eq(rt_resolver_find(r, RT_OP_CUSTOM, "MYOP", 1), &c);
        ck_assert_ptr_null(rt_resolver_find(r, RT_OP_CUSTOM, "OTHER", 1));
        ck_assert_ptr_null(rt_resolver_find(r, 1, NULL, 1));
        static const rt_registration_t unnamed = { .op = RT_OP_CUSTOM };
        ck_assert_int_eq(rt_resolver_add(r, &unnamed), -EINVAL);
        ck_assert_uint_eq(rt_resolver_size(r), 3);
        _cleanup_(rt_resolver_freep) rt_resolver_t *top = rt_resolver_new();
        ck_assert_int_eq(rt_resolver_set_fallback(top, r), 0);
        ck_assert_ptr_eq(rt_resolver_find(top, RT_OP_CUSTOM, "MYOP", 1), &c);
}
END_TEST

static int add_three_invoke(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0), *out = rt_node_output(ctx, node, 0);
        const float *bias = node->params;
        for (size_t i = 0; i < rt_tensor_count(in); i++)
                ((float *) out->data)[i] = ((const float *) in->data)[i] + *bias;
        return 0;
}

static const rt_registration_t add_three = {
        .name = "GROUP", .op = RT_OP_CUSTOM, .prepare = same_shape_prepare, .invoke = add_three_invoke,
};

DEFINE_POINTER_CLEANUP(rt_exec_t, rt_exec_free);

START_TEST(test_executor_plan_replaced_by_group_node) {
        tm_t m;
        chain3(&m, 4);
        _cleanup_(rt_resolver_freep) rt_resolver_t *r = rt_resolver_new();
        ck_assert_int_eq(rt_resolver_add(r, &add_one), 0);
        rt_exec_t *e0 = NULL;
        char err[256] = "";
        ck_assert_msg(rt_exec_new(&m.model, 0, r, &e0, err, sizeof(err)) == 0, "%s", err);
        _cleanup_(rt_exec_freep) rt_exec_t *e = e0;
        /* A node standing for nodes 0..2, as a driver partition would. */
        float bias = 3.0f;
        int32_t idx = -1;
        ck_assert_int_eq(rt_exec_add_node(e, &add_three, (const int32_t[]) { 0 }, 1, (const int32_t[]) { 3 }, 1,
                                          &bias, &idx), 0);
        ck_assert_int_eq(idx, 3);
        /* Node 2 reads tensor 2, which node 1 writes later. */
        ck_assert_int_eq(rt_exec_set_plan(e, (const int32_t[]) { 0, 2, 1 }, 3), -EINVAL);
        ck_assert_str_eq(rt_exec_error(e), "plan position 1: node 2 reads tensor 2 before it is produced");
        ck_assert_int_eq(rt_exec_set_plan(e, (const int32_t[]) { 0, 0 }, 2), -EINVAL);
        ck_assert_int_eq(rt_exec_set_plan(e, (const int32_t[]) { idx }, 1), 0);
        ck_assert(rt_exec_needs_allocate(e));
        ck_assert_int_eq(rt_exec_set_profiling(e, true), 0);
        ck_assert_int_eq(rt_exec_allocate(e), 0);
        /* Only the input and the output are left: 2 x 64 bytes. */
        ck_assert_uint_eq(rt_exec_arena_bytes(e), 128);
        rt_graph_t *g = rt_exec_graph(e);
        float *x = g->tensors[0].data;
        for (int i = 0; i < 4; i++)
                x[i] = (float) i;
        ck_assert_int_eq(rt_exec_invoke(e), 0);
        ck_assert_float_eq(((const float *) g->tensors[3].data)[3], 6.0f);
        const rt_exec_profile_t *p = NULL;
        ck_assert_uint_eq(rt_exec_profile(e, &p), 1);
        ck_assert_str_eq(p[0].op_name, "GROUP");
        ck_assert_int_eq(p[0].node, 3);
}
END_TEST

static int bad_prepare(rt_context_t *ctx, rt_node_t *node) {
        rt_tensor_t *in = rt_node_input(ctx, node, 0);
        if (in->dims[0] > 4)
                return rt_ctx_error(ctx, "at most 4 rows, got %d", in->dims[0]);
        return same_shape_prepare(ctx, node);
}

static int bad_invoke(rt_context_t *ctx, rt_node_t *node) {
        return -ENOTSUP;
}

static const rt_registration_t bad_op = {
        .name = "BAD", .op = RT_OP_CUSTOM, .prepare = bad_prepare, .invoke = bad_invoke,
};

START_TEST(test_executor_kernel_errors_name_the_node) {
        tm_t m;
        tm_init(&m);
        int32_t in = tm_tensor(&m, RT_TYPE_FLOAT32, "in", 2, 1, 4);
        int32_t mid = tm_tensor(&m, RT_TYPE_FLOAT32, "mid", 2, 1, 4);
        int32_t out = tm_tensor(&m, RT_TYPE_FLOAT32, "out", 2, 1, 4);
        tm_op(&m, 0, "ADD_ONE", 1, 1, (int32_t[]) { in }, 1, (int32_t[]) { mid });
        tm_op(&m, 0, "BAD", 1, 1, (int32_t[]) { mid }, 1, (int32_t[]) { out });
        tm_io(&m, 1, (int32_t[]) { in }, 1, (int32_t[]) { out });
        _cleanup_(rt_interp_freep) rt_interp_t *it =
                create(&m, (const rt_registration_t *[]) { &add_one, &bad_op }, 2);
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, (const int32_t[]) { 5, 4 }), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), -EINVAL);
        ck_assert_str_eq(rt_interp_last_error(it), "node 1 (BAD): at most 4 rows, got 5");
        ck_assert_int_eq(rt_interp_invoke(it), -EINVAL);
        ck_assert_int_eq(rt_interp_resize_input(it, 0, 2, (const int32_t[]) { 2, 4 }), 0);
        ck_assert_int_eq(rt_interp_allocate_tensors(it), 0);
        ck_assert_int_eq(rt_interp_invoke(it), -ENOTSUP);
        ck_assert_str_eq(rt_interp_last_error(it), "node 1 (BAD): invoke failed: Operation not supported");
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("executor");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_executor_arena_shares_disjoint_lifetimes);
        tcase_add_test(tc, test_executor_variable_persists_across_invokes);
        tcase_add_test(tc, test_executor_resize_reprepares_all_nodes);
        tcase_add_test(tc, test_executor_unknown_custom_op_names_op_and_node);
        tcase_add_test(tc, test_executor_unsupported_version_is_refused);
        tcase_add_test(tc, test_executor_unsupported_builtin_version_message);
        tcase_add_test(tc, test_executor_copy_size_mismatch_fails);
        tcase_add_test(tc, test_executor_profiling_gives_per_node_entries);
        tcase_add_test(tc, test_executor_dynamic_output_sized_at_invoke);
        tcase_add_test(tc, test_executor_scratch_lives_in_arena);
        tcase_add_test(tc, test_executor_string_input_checked_and_output_adopted);
        tcase_add_test(tc, test_executor_model_file_unknown_op);
        tcase_add_test(tc, test_executor_error_reporter_called);
        tcase_add_test(tc, test_executor_options_validate);
        tcase_add_test(tc, test_resolver_find_versions_and_override);
        tcase_add_test(tc, test_executor_plan_replaced_by_group_node);
        tcase_add_test(tc, test_executor_kernel_errors_name_the_node);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(suite());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
