/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Targeted corruption: models built with tflite-builder, then built wrong on
 * purpose or patched byte by byte. Each must be refused with -EINVAL and the
 * exact message that names the fault, and never crash.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbt.h"
#include "model.h"
#include "tflite-builder.h"

/* FULLY_CONNECTED: in [1,4] float, weights [2,4] const, bias [2] const,
 * out [1,2]. Tensors 0..3; buffers: sentinel, weights, bias. */
static tfb_t *fc_builder(uint8_t options_type) {
        tfb_t *b = tfb_new();
        float w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, bias[2] = { 0.5f, -0.5f };
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "input", 2, TFB_DIMS(1, 4));
        int32_t wt = tfb_tensor_const(b, RT_TYPE_FLOAT32, "weights", 2, TFB_DIMS(2, 4), w, sizeof(w));
        int32_t bt = tfb_tensor_const(b, RT_TYPE_FLOAT32, "bias", 1, TFB_DIMS(2), bias, sizeof(bias));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "output", 2, TFB_DIMS(1, 2));
        tfb_option_t opts[] = { TFB_OPT_I8(0, RT_ACT_RELU) };
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_FULLY_CONNECTED, 1),
                                    .inputs = TFB_IDS(in, wt, bt), .n_inputs = 3, .outputs = TFB_IDS(out),
                                    .n_outputs = 1, .options_type = options_type, .options = opts,
                                    .n_options = 1 });
        tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1);
        return b;
}

static uint8_t *finish(tfb_t *b, size_t *size) {
        uint8_t *bytes = tfb_finish(b, size);
        ck_assert_ptr_nonnull(bytes);
        tfb_free(b);
        return bytes;
}

static uint8_t *fc_model(size_t *size) {
        return finish(fc_builder(RT_OPTIONS_FULLY_CONNECTED), size);
}

/* Loading must fail with -EINVAL and exactly `msg` (or a message starting
 * with it when prefix is true). Verify and both load paths agree. */
static void expect_fault(const uint8_t *bytes, size_t size, const char *msg, bool prefix) {
        char err[256] = "";
        ck_assert_int_eq(rt_model_verify(bytes, size, err, sizeof(err)), -EINVAL);
        if (prefix)
                ck_assert_msg(strncmp(err, msg, strlen(msg)) == 0, "got '%s', want '%s...'", err, msg);
        else
                ck_assert_str_eq(err, msg);
        rt_model_t *m = NULL;
        char err2[256] = "";
        ck_assert_int_eq(rt_model_load_buffer(bytes, size, true, &m, err2, sizeof(err2)), -EINVAL);
        ck_assert_ptr_null(m);
        ck_assert_str_eq(err2, err);
}

static void expect_built_fault(tfb_t *b, const char *msg, bool prefix) {
        size_t size;
        uint8_t *bytes = finish(b, &size);
        expect_fault(bytes, size, msg, prefix);
        free(bytes);
}

static fbt_table_t tensor_table(const uint8_t *bytes, size_t size, uint32_t i) {
        fbt_table_t root = fbt_root(bytes, size);
        fbt_table_t sg = fbt_vector_table(root, fbt_vector(root, 2, 4), 0);
        return fbt_vector_table(sg, fbt_vector(sg, 0, 4), i);
}

static fbt_table_t op_table(const uint8_t *bytes, size_t size, uint32_t i) {
        fbt_table_t root = fbt_root(bytes, size);
        fbt_table_t sg = fbt_vector_table(root, fbt_vector(root, 2, 4), 0);
        return fbt_vector_table(sg, fbt_vector(sg, 3, 4), i);
}

static void put32(uint8_t *bytes, uint32_t at, uint32_t v) {
        ck_assert_uint_ne(at, 0);
        memcpy(bytes + at, &v, 4);
}

START_TEST(test_corrupt_baseline_loads) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        char err[128];
        ck_assert_int_eq(rt_model_verify(bytes, size, err, sizeof(err)), 0);
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(bytes, size, false, &m, err, sizeof(err)), 0);
        ck_assert_int_eq(m->subgraphs[0].ops[0].builtin_code, RT_BUILTIN_FULLY_CONNECTED);
        ck_assert_int_eq(fbt_i8(m->subgraphs[0].ops[0].builtin_options, 0, 0), RT_ACT_RELU);
        rt_model_free(m);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_missing_identifier) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        memcpy(bytes + 4, "TFL2", 4);
        expect_fault(bytes, size, "not a TFLite model: missing \"TFL3\" file identifier", false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_vtable_out_of_range) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        fbt_table_t t = tensor_table(bytes, size, 2);
        put32(bytes, t.pos, (uint32_t) -0x100000); /* vtable 1 MiB past the table */
        expect_fault(bytes, size, "tensor 2: table: vtable out of bounds", false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_vtable_field_outside_table) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        fbt_table_t t = tensor_table(bytes, size, 0);
        int32_t soff;
        memcpy(&soff, bytes + t.pos, 4);
        uint32_t vt = (uint32_t) ((int64_t) t.pos - soff);
        uint16_t big = 0x7ff0; /* field 0 (shape) far outside the table */
        memcpy(bytes + vt + 4, &big, 2);
        expect_fault(bytes, size, "tensor 0: table: field 0 at offset 32752 outside its table", true);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_vector_past_end) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        fbt_table_t t = tensor_table(bytes, size, 1);
        fbt_vec_t shape = fbt_vector(t, 0, 4);
        ck_assert_uint_eq(shape.n, 2);
        put32(bytes, shape.pos, 0x10000000);
        expect_fault(bytes, size, "tensor 1: shape: vector of 268435456 elements runs past the end of the file",
                     false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_string_without_nul) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        fbt_table_t t = tensor_table(bytes, size, 3);
        uint32_t len;
        const char *name = fbt_string(t, 3, &len);
        ck_assert_str_eq(name, "output");
        ((uint8_t *) name)[len] = 'x';
        expect_fault(bytes, size, "tensor 3: name: string not NUL-terminated", false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_tensor_buffer_out_of_range) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        put32(bytes, fbt_field(tensor_table(bytes, size, 1), 2, 4), 99);
        expect_fault(bytes, size, "tensor 1: buffer 99 out of range (3 buffers)", false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_opcode_index_out_of_range) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        put32(bytes, fbt_field(op_table(bytes, size, 0), 0, 4), 7);
        expect_fault(bytes, size, "operator 0: opcode index 7 out of range (1 operator codes)", false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_operator_input_out_of_range) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        fbt_vec_t in = fbt_vector(op_table(bytes, size, 0), 1, 4);
        put32(bytes, (uint32_t) (in.data - bytes) + 4, 50);
        expect_fault(bytes, size, "operator 0 (FULLY_CONNECTED): input 1: tensor 50 out of range (4 tensors)", false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_wrong_options_type) {
        expect_built_fault(fc_builder(RT_OPTIONS_STRIDED_SLICE),
                           "operator 0 (FULLY_CONNECTED): builtin options type StridedSliceOptions, expected "
                           "FullyConnectedOptions", false);
}
END_TEST

START_TEST(test_corrupt_options_on_op_without_options) {
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_builtin(b, RT_BUILTIN_LOGISTIC, 1),
                                    .inputs = TFB_IDS(x), .n_inputs = 1, .outputs = TFB_IDS(x), .n_outputs = 1,
                                    .options_type = RT_OPTIONS_ADD });
        expect_built_fault(b, "operator 0 (LOGISTIC): builtin options type AddOptions, expected none", false);
}
END_TEST

START_TEST(test_corrupt_unknown_options_type) {
        expect_built_fault(fc_builder(200), "operator 0 (FULLY_CONNECTED): unknown builtin options type 200", false);
}
END_TEST

START_TEST(test_corrupt_bad_version) {
        tfb_t *b = fc_builder(RT_OPTIONS_FULLY_CONNECTED);
        tfb_set_version(b, 2);
        expect_built_fault(b, "unsupported schema version 2 (expected 3)", false);
}
END_TEST

START_TEST(test_corrupt_shape_overflow) {
        tfb_t *b = tfb_new();
        tfb_tensor(b, RT_TYPE_FLOAT32, "big", 3, TFB_DIMS(65536, 65536, 4));
        expect_built_fault(b, "tensor 0: shape [65536,65536,4] is too large (more than 2147483647 elements)", false);

        /* Fits in elements, not in bytes. */
        b = tfb_new();
        tfb_tensor(b, RT_TYPE_INT8, "ok", 1, TFB_DIMS(3));
        tfb_tensor(b, RT_TYPE_INT64, "big", 2, TFB_DIMS(65536, 8192));
        expect_built_fault(b, "tensor 1: shape [65536,8192] of int64 is too large (4294967296 bytes, limit 2147483647)",
                           false);

        /* Eight dimensions of 2^31-1 would overflow 64 bits if unchecked. */
        b = tfb_new();
        int32_t m = INT32_MAX;
        tfb_tensor(b, RT_TYPE_UINT8, "huge", 8, TFB_DIMS(m, m, m, m, m, m, m, m));
        expect_built_fault(b, "tensor 0: shape [2147483647,2147483647,", true);
}
END_TEST

START_TEST(test_corrupt_negative_dimension) {
        tfb_t *b = tfb_new();
        tfb_tensor(b, RT_TYPE_FLOAT32, "neg", 2, TFB_DIMS(1, -2));
        expect_built_fault(b, "tensor 0: shape: negative dimension -2 at axis 1", false);

        /* -1 is for shape_signature only. */
        b = tfb_new();
        tfb_tensor(b, RT_TYPE_FLOAT32, "neg", 2, TFB_DIMS(-1, 2));
        expect_built_fault(b, "tensor 0: shape: negative dimension -1 at axis 0", false);

        b = tfb_new();
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_FLOAT32, .rank = 2, .shape = TFB_DIMS(1, 2),
                                            .shape_signature = TFB_DIMS(-1, -3) });
        expect_built_fault(b, "tensor 0: shape_signature: negative dimension -3 at axis 1", false);
}
END_TEST

START_TEST(test_corrupt_rank_too_large) {
        tfb_t *b = tfb_new();
        tfb_tensor(b, RT_TYPE_FLOAT32, "r9", 9, TFB_DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1));
        expect_built_fault(b, "tensor 0: rank 9 exceeds 8", false);
}
END_TEST

START_TEST(test_corrupt_unknown_type) {
        tfb_t *b = tfb_new();
        tfb_tensor(b, (rt_type_t) 42, "t", 1, TFB_DIMS(1));
        expect_built_fault(b, "tensor 0: unknown type 42", false);
}
END_TEST

START_TEST(test_corrupt_constant_size_mismatch) {
        tfb_t *b = tfb_new();
        float w[3] = { 0 };
        tfb_tensor_const(b, RT_TYPE_FLOAT32, "w", 2, TFB_DIMS(2, 4), w, sizeof(w));
        expect_built_fault(b, "tensor 0: buffer 1 has 12 bytes, float32[2,4] needs 32", false);
}
END_TEST

START_TEST(test_corrupt_string_tensor_data) {
        /* Two strings "ab", "c": count, 3 offsets, bytes. */
        uint8_t good[4 + 12 + 3];
        int32_t hdr[4] = { 2, 16, 18, 19 };
        memcpy(good, hdr, 16);
        memcpy(good + 16, "abc", 3);
        tfb_t *b = tfb_new();
        tfb_tensor_const(b, RT_TYPE_STRING, "s", 1, TFB_DIMS(2), good, sizeof(good));
        size_t size;
        uint8_t *bytes = finish(b, &size);
        ck_assert_int_eq(rt_model_verify(bytes, size, NULL, 0), 0);
        free(bytes);

        hdr[2] = 40; /* past the end */
        memcpy(good, hdr, 16);
        b = tfb_new();
        tfb_tensor_const(b, RT_TYPE_STRING, "s", 1, TFB_DIMS(2), good, sizeof(good));
        expect_built_fault(b, "tensor 0: buffer 1: string offset 1 invalid", false);

        b = tfb_new();
        tfb_tensor_const(b, RT_TYPE_STRING, "s", 1, TFB_DIMS(3), good, sizeof(good));
        expect_built_fault(b, "tensor 0: buffer 1: string data holds 2 strings, shape needs 3", false);
}
END_TEST

START_TEST(test_corrupt_quantization) {
        tfb_t *b = tfb_new();
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_INT8, .rank = 2, .shape = TFB_DIMS(3, 2), .n_quant = 3,
                                            .scale = (const float[]) { 1, 2, 3 },
                                            .zero_point = (const int64_t[]) { 0, 0, 0 }, .quantized_dimension = 5 });
        expect_built_fault(b, "tensor 0: quantized_dimension 5 out of range for rank 2", false);

        b = tfb_new();
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_INT8, .rank = 2, .shape = TFB_DIMS(3, 2), .n_quant = 3,
                                            .scale = (const float[]) { 1, 2, 3 },
                                            .zero_point = (const int64_t[]) { 0, 0, 0 }, .quantized_dimension = 1 });
        expect_built_fault(b, "tensor 0: 3 scales for dimension 1 of size 2", false);

        b = tfb_new();
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_INT8, .rank = 1, .shape = TFB_DIMS(3), .n_quant = 1,
                                            .scale = (const float[]) { 1 }, .zero_point = (const int64_t[]) { 0 },
                                            .quantized_dimension = -1 });
        expect_built_fault(b, "tensor 0: negative quantized_dimension -1", false);
}
END_TEST

START_TEST(test_corrupt_custom_without_name) {
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_raw(b, 32, 32, NULL, 1), .inputs = TFB_IDS(x), .n_inputs = 1,
                                    .outputs = TFB_IDS(x), .n_outputs = 1 });
        expect_built_fault(b, "operator code 0: CUSTOM without a custom_code", false);
}
END_TEST

START_TEST(test_corrupt_opcode_max_of_codes) {
        /* Old files: only deprecated_builtin_code; new ones: builtin_code. */
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_raw(b, RT_BUILTIN_TANH, 0, NULL, 1), .inputs = TFB_IDS(x),
                                    .n_inputs = 1, .outputs = TFB_IDS(x), .n_outputs = 1 });
        tfb_op_add(b, &(tfb_op_t) { .opcode = tfb_opcode_raw(b, 127, RT_BUILTIN_BROADCAST_ARGS, NULL, 1),
                                    .inputs = TFB_IDS(x), .n_inputs = 1, .outputs = TFB_IDS(x), .n_outputs = 1 });
        size_t size;
        uint8_t *bytes = finish(b, &size);
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(bytes, size, false, &m, NULL, 0), 0);
        ck_assert_int_eq(m->subgraphs[0].ops[0].builtin_code, RT_BUILTIN_TANH);
        ck_assert_int_eq(m->subgraphs[0].ops[1].builtin_code, RT_BUILTIN_BROADCAST_ARGS);
        rt_model_free(m);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_signature_tensor_out_of_range) {
        tfb_t *b = fc_builder(RT_OPTIONS_FULLY_CONNECTED);
        tfb_signature_add(b, "serving_default", 0, (const char *[]) { "x" }, TFB_IDS(99), 1, NULL, NULL, 0);
        expect_built_fault(b, "signature 0: input 0: tensor 99 out of range (4 tensors)", false);

        b = fc_builder(RT_OPTIONS_FULLY_CONNECTED);
        tfb_signature_add(b, "serving_default", 3, NULL, NULL, 0, NULL, NULL, 0);
        expect_built_fault(b, "signature 0: subgraph 3 out of range (1 subgraphs)", false);
}
END_TEST

START_TEST(test_corrupt_subgraph_io_out_of_range) {
        tfb_t *b = fc_builder(RT_OPTIONS_FULLY_CONNECTED);
        tfb_io(b, TFB_IDS(0), 1, TFB_IDS(-1), 1);
        expect_built_fault(b, "subgraph output 0: tensor -1 out of range (4 tensors)", false);
}
END_TEST

START_TEST(test_corrupt_second_subgraph_named) {
        tfb_t *b = fc_builder(RT_OPTIONS_FULLY_CONNECTED);
        tfb_subgraph_add(b, "body");
        tfb_tensor(b, RT_TYPE_FLOAT32, "neg", 1, TFB_DIMS(-7));
        expect_built_fault(b, "subgraph 1: tensor 0: shape: negative dimension -7 at axis 0", false);
}
END_TEST

START_TEST(test_corrupt_external_buffer_outside_file) {
        tfb_t *b = tfb_new();
        int32_t buf = tfb_buffer_add_external(b, (const float[]) { 1, 2 }, 8);
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_FLOAT32, .rank = 1, .shape = TFB_DIMS(2),
                                            .buffer = (uint32_t) buf });
        size_t size;
        uint8_t *bytes = finish(b, &size);
        ck_assert_int_eq(rt_model_verify(bytes, size, NULL, 0), 0);
        /* Cut the appended data off: the offset now points past the end. */
        char want[160];
        fbt_table_t root = fbt_root(bytes, size);
        uint64_t off = fbt_u64(fbt_vector_table(root, fbt_vector(root, 4, 4), 1), 1, 0);
        ck_assert_uint_eq(off + 8, size);
        (void) snprintf(want, sizeof(want),
                        "buffer 1: data at offset %llu, size 8 lies outside the file (%zu bytes)",
                        (unsigned long long) off, size - 4);
        expect_fault(bytes, size - 4, want, false);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_truncated_every_length) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        for (size_t len = 0; len < size; len++) {
                /* A fresh allocation of exactly len bytes, so ASan sees any
                 * read past the end. */
                uint8_t *copy = malloc(len ? len : 1);
                memcpy(copy, bytes, len);
                char err[256] = "";
                ck_assert_msg(rt_model_verify(copy, len, err, sizeof(err)) == -EINVAL, "length %zu verified", len);
                ck_assert_msg(err[0] != '\0', "length %zu: no message", len);
                rt_model_t *m = NULL;
                ck_assert_int_eq(rt_model_load_buffer(copy, len, false, &m, NULL, 0), -EINVAL);
                ck_assert_ptr_null(m);
                free(copy);
        }
        ck_assert_int_eq(rt_model_verify(bytes, size, NULL, 0), 0);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_every_byte_flip_no_crash) {
        /* Not a correctness check of each flip (many are harmless), but every
         * single-byte change must load or fail cleanly. */
        size_t size;
        uint8_t *bytes = fc_model(&size);
        int rejected = 0;
        for (size_t i = 0; i < size; i++) {
                uint8_t *copy = malloc(size);
                memcpy(copy, bytes, size);
                copy[i] ^= 0xff;
                rt_model_t *m = NULL;
                char err[256] = "";
                int r = rt_model_load_buffer(copy, size, false, &m, err, sizeof(err));
                ck_assert(r == 0 || r == -EINVAL);
                if (r < 0) {
                        ck_assert(err[0] != '\0');
                        rejected++;
                }
                rt_model_free(m);
                free(copy);
        }
        ck_assert_int_gt(rejected, 0);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_small_error_buffers) {
        size_t size;
        uint8_t *bytes = fc_model(&size);
        memcpy(bytes + 4, "XXXX", 4);
        char err[4] = "zzz";
        ck_assert_int_eq(rt_model_verify(bytes, size, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "not");
        ck_assert_int_eq(rt_model_verify(bytes, size, err, 1), -EINVAL);
        ck_assert_str_eq(err, "");
        ck_assert_int_eq(rt_model_verify(bytes, size, NULL, 0), -EINVAL);
        ck_assert_int_eq(rt_model_verify(NULL, 0, NULL, 0), -EINVAL);
        free(bytes);
}
END_TEST

START_TEST(test_corrupt_shared_tables_budget) {
        /* Thousands of operator entries all pointing at one operator whose
         * input list is long: small file, quadratic walk. The verifier's
         * work budget must refuse it instead of grinding through. */
        enum { N_OPS = 3000, N_IN = 30000 };
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_FLOAT32, "x", 1, TFB_DIMS(2));
        int32_t *ins = calloc(N_IN, sizeof(int32_t));
        int32_t add = tfb_opcode_builtin(b, RT_BUILTIN_ADD, 1);
        tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = ins, .n_inputs = N_IN, .outputs = TFB_IDS(x),
                                    .n_outputs = 1 });
        free(ins);
        for (int i = 1; i < N_OPS; i++)
                tfb_op_add(b, &(tfb_op_t) { .opcode = add, .inputs = TFB_IDS(x), .n_inputs = 1,
                                            .outputs = TFB_IDS(x), .n_outputs = 1 });
        size_t size;
        uint8_t *bytes = finish(b, &size);
        ck_assert_int_eq(rt_model_verify(bytes, size, NULL, 0), 0);

        fbt_table_t root = fbt_root(bytes, size);
        fbt_table_t sg = fbt_vector_table(root, fbt_vector(root, 2, 4), 0);
        fbt_vec_t ops = fbt_vector(sg, 3, 4);
        ck_assert_uint_eq(ops.n, N_OPS);
        uint32_t op0 = fbt_vector_table(sg, ops, 0).pos;
        for (uint32_t k = 1; k < ops.n; k++) {
                uint32_t at = ops.pos + 4 + 4 * k;
                ck_assert_uint_gt(op0, at);
                put32(bytes, at, op0 - at);
        }
        char err[256] = "";
        ck_assert_int_eq(rt_model_verify(bytes, size, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strstr(err, "model too complex for its size"), "%s", err);
        free(bytes);
}
END_TEST

int main(void) {
        Suite *s = suite_create("reader-corrupt");
        TCase *tc = tcase_create("corrupt");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_corrupt_baseline_loads);
        tcase_add_test(tc, test_corrupt_missing_identifier);
        tcase_add_test(tc, test_corrupt_vtable_out_of_range);
        tcase_add_test(tc, test_corrupt_vtable_field_outside_table);
        tcase_add_test(tc, test_corrupt_vector_past_end);
        tcase_add_test(tc, test_corrupt_string_without_nul);
        tcase_add_test(tc, test_corrupt_tensor_buffer_out_of_range);
        tcase_add_test(tc, test_corrupt_opcode_index_out_of_range);
        tcase_add_test(tc, test_corrupt_operator_input_out_of_range);
        tcase_add_test(tc, test_corrupt_wrong_options_type);
        tcase_add_test(tc, test_corrupt_options_on_op_without_options);
        tcase_add_test(tc, test_corrupt_unknown_options_type);
        tcase_add_test(tc, test_corrupt_bad_version);
        tcase_add_test(tc, test_corrupt_shape_overflow);
        tcase_add_test(tc, test_corrupt_negative_dimension);
        tcase_add_test(tc, test_corrupt_rank_too_large);
        tcase_add_test(tc, test_corrupt_unknown_type);
        tcase_add_test(tc, test_corrupt_constant_size_mismatch);
        tcase_add_test(tc, test_corrupt_string_tensor_data);
        tcase_add_test(tc, test_corrupt_quantization);
        tcase_add_test(tc, test_corrupt_custom_without_name);
        tcase_add_test(tc, test_corrupt_opcode_max_of_codes);
        tcase_add_test(tc, test_corrupt_signature_tensor_out_of_range);
        tcase_add_test(tc, test_corrupt_subgraph_io_out_of_range);
        tcase_add_test(tc, test_corrupt_second_subgraph_named);
        tcase_add_test(tc, test_corrupt_external_buffer_outside_file);
        tcase_add_test(tc, test_corrupt_shared_tables_budget);
        tcase_add_test(tc, test_corrupt_truncated_every_length);
        tcase_add_test(tc, test_corrupt_every_byte_flip_no_crash);
        tcase_add_test(tc, test_corrupt_small_error_buffers);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
