/* SPDX-License-Identifier: Apache-2.0 */
/* Round trips: build a model with tflite-builder, load it, check every field. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbt.h"
#include "model.h"
#include "tflite-builder.h"

static rt_model_t *load(tfb_t *b, bool copy) {
        size_t size;
        uint8_t *bytes = tfb_finish(b, &size);
        ck_assert_ptr_nonnull(bytes);
        rt_model_t *m = NULL;
        char err[256];
        int r = rt_model_load_buffer(bytes, size, copy, &m, err, sizeof(err));
        ck_assert_msg(r == 0, "load failed: %d %s", r, err);
        if (copy)
                free(bytes);
        return m;
}

START_TEST(test_builder_minimal_roundtrip) {
        tfb_t *b = tfb_new();
        int32_t in = tfb_tensor(b, RT_TYPE_FLOAT32, "in", 2, TFB_DIMS(1, 4));
        int32_t out = tfb_tensor(b, RT_TYPE_FLOAT32, "out", 2, TFB_DIMS(1, 4));
        int32_t oc = tfb_opcode_builtin(b, RT_BUILTIN_RELU, 1);
        ck_assert_int_eq(tfb_op_add(b, &(tfb_op_t) { .opcode = oc, .inputs = TFB_IDS(in), .n_inputs = 1,
                                                     .outputs = TFB_IDS(out), .n_outputs = 1 }), 0);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1), 0);
        rt_model_t *m = load(b, true);
        tfb_free(b);

        ck_assert_uint_eq(m->version, 3);
        ck_assert_str_eq(m->description, "tflite-builder");
        ck_assert_int_eq(m->n_subgraphs, 1);
        ck_assert_uint_eq(m->n_buffers, 1);
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        ck_assert_str_eq(sg->name, "");
        ck_assert_int_eq(sg->n_tensors, 2);
        ck_assert_int_eq(sg->n_ops, 1);
        ck_assert_int_eq(sg->n_inputs, 1);
        ck_assert_int_eq(sg->inputs[0], 0);
        ck_assert_int_eq(sg->n_outputs, 1);
        ck_assert_int_eq(sg->outputs[0], 1);
        const rt_model_tensor_t *t = &sg->tensors[0];
        ck_assert_int_eq(t->type, RT_TYPE_FLOAT32);
        ck_assert_int_eq(t->rank, 2);
        ck_assert_int_eq(t->shape[0], 1);
        ck_assert_int_eq(t->shape[1], 4);
        ck_assert(!t->has_shape_signature);
        ck_assert_uint_eq(t->buffer, 0);
        ck_assert_ptr_null(t->data);
        ck_assert_uint_eq(t->data_bytes, 0);
        ck_assert_str_eq(t->name, "in");
        ck_assert_uint_eq(t->quant.n, 0);
        ck_assert(!t->is_variable);
        ck_assert_ptr_null(t->sparsity);
        const rt_model_op_t *op = &sg->ops[0];
        ck_assert_int_eq(op->builtin_code, RT_BUILTIN_RELU);
        ck_assert_int_eq(op->version, 1);
        ck_assert_ptr_null(op->custom_code);
        ck_assert_int_eq(op->n_inputs, 1);
        ck_assert_int_eq(op->inputs[0], 0);
        ck_assert_int_eq(op->n_outputs, 1);
        ck_assert_int_eq(op->outputs[0], 1);
        ck_assert_int_eq(op->n_intermediates, 0);
        ck_assert_uint_eq(op->builtin_options_type, 0);
        ck_assert(!fbt_present(op->builtin_options));
        ck_assert_ptr_null(op->custom_options);
        ck_assert_str_eq(rt_model_op_name(op), "RELU");
        ck_assert_int_eq(m->n_signatures, 0);
        ck_assert_int_eq(m->n_metadata, 0);
        ck_assert_ptr_null(m->min_runtime_version);
        rt_model_free(m);
}
END_TEST

START_TEST(test_builder_full_roundtrip) {
        tfb_t *b = tfb_new();
        ck_assert_int_eq(tfb_set_description(b, "round trip"), 0);
        ck_assert_int_eq(tfb_subgraph_name(b, "main"), 0);
        int32_t in = tfb_tensor_add(b, &(tfb_tensor_t) {
                .type = RT_TYPE_INT8, .rank = 4, .shape = TFB_DIMS(1, 5, 5, 3),
                .shape_signature = TFB_DIMS(-1, 5, 5, 3), .name = "input", .n_quant = 1,
                .scale = (const float[]) { 0.5f }, .zero_point = (const int64_t[]) { -3 }, .has_rank = true });
        int8_t w[2 * 3 * 3 * 3];
        for (size_t i = 0; i < sizeof(w); i++)
                w[i] = (int8_t) (i - 20);
        int32_t wbuf = tfb_buffer_add(b, w, sizeof(w));
        int32_t wt = tfb_tensor_add(b, &(tfb_tensor_t) {
                .type = RT_TYPE_INT8, .rank = 4, .shape = TFB_DIMS(2, 3, 3, 3), .buffer = (uint32_t) wbuf,
                .name = "weights", .n_quant = 2, .scale = (const float[]) { 0.25f, 0.125f },
                .zero_point = (const int64_t[]) { 0, 0 }, .quantized_dimension = 0 });
        int32_t bias[2] = { 100, -200 };
        int32_t bt = tfb_tensor_const(b, RT_TYPE_INT32, "bias", 1, TFB_DIMS(2), bias, sizeof(bias));
        int32_t out = tfb_tensor_quant(b, RT_TYPE_INT8, "output", 4, TFB_DIMS(1, 5, 5, 2), 0.75f, 7, NULL, 0);
        int32_t state = tfb_tensor_add(b, &(tfb_tensor_t) {
                .type = RT_TYPE_FLOAT32, .rank = 1, .shape = TFB_DIMS(4), .name = "state", .is_variable = true });
        int32_t conv = tfb_opcode_builtin(b, RT_BUILTIN_CONV_2D, 3);
        tfb_option_t opts[] = {
                TFB_OPT_I8(0, RT_PADDING_VALID), TFB_OPT_I32(1, 2), TFB_OPT_I32(2, 3),
                TFB_OPT_I8(3, RT_ACT_RELU6), TFB_OPT_I32(4, 1), TFB_OPT_I32(5, 1),
        };
        ck_assert_int_eq(tfb_op_add(b, &(tfb_op_t) {
                .opcode = conv, .inputs = TFB_IDS(in, wt, bt), .n_inputs = 3, .outputs = TFB_IDS(out),
                .n_outputs = 1, .intermediates = TFB_IDS(state), .n_intermediates = 1,
                .options_type = RT_OPTIONS_CONV_2D, .options = opts, .n_options = 6 }), 0);
        int32_t custom = tfb_opcode_custom(b, "MyOp", 2);
        uint8_t copts[5] = { 1, 2, 3, 4, 5 };
        ck_assert_int_eq(tfb_op_add(b, &(tfb_op_t) {
                .opcode = custom, .inputs = TFB_IDS(out, -1), .n_inputs = 2, .outputs = TFB_IDS(state),
                .n_outputs = 1, .custom_options = copts, .custom_options_size = sizeof(copts) }), 1);
        int32_t reshape = tfb_opcode_builtin(b, RT_BUILTIN_RESHAPE, 1);
        tfb_option_t ropts[] = { TFB_OPT_VEC_I32(0, TFB_IDS(2, 2), 2) };
        ck_assert_int_eq(tfb_op_add(b, &(tfb_op_t) {
                .opcode = reshape, .inputs = TFB_IDS(state), .n_inputs = 1, .outputs = TFB_IDS(state),
                .n_outputs = 1, .options_type = RT_OPTIONS_RESHAPE, .options = ropts, .n_options = 1 }), 2);
        /* A high op code that needs builtin_code (deprecated field = 127). */
        int32_t gelu = tfb_opcode_builtin(b, RT_BUILTIN_GELU, 1);
        tfb_option_t gopts[] = { TFB_OPT_BOOL(0, true) };
        ck_assert_int_eq(tfb_op_add(b, &(tfb_op_t) {
                .opcode = gelu, .inputs = TFB_IDS(state), .n_inputs = 1, .outputs = TFB_IDS(state),
                .n_outputs = 1, .options_type = RT_OPTIONS_GELU, .options = gopts, .n_options = 1 }), 3);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(in), 1, TFB_IDS(out), 1), 0);

        ck_assert_int_eq(tfb_subgraph_add(b, "second"), 1);
        int32_t x = tfb_tensor(b, RT_TYPE_BOOL, "x", 0, NULL);
        ck_assert_int_eq(tfb_io(b, TFB_IDS(x), 1, TFB_IDS(x), 1), 0);
        ck_assert_int_eq(tfb_subgraph_select(b, 0), 0);

        ck_assert_int_eq(tfb_signature_add(b, "serving_default", 0, (const char *[]) { "image" }, TFB_IDS(in), 1,
                                           (const char *[]) { "scores" }, TFB_IDS(out), 1), 0);
        ck_assert_int_eq(tfb_metadata_add(b, "min_runtime_version", "1.14.0\0\0\0\0", 10), 0);
        ck_assert_int_eq(tfb_metadata_add(b, "reduced_precision_support", "fp16", 4), 1);
        int32_t ext = tfb_buffer_add_external(b, (const float[]) { 1.5f, -2.5f }, 8);
        int32_t et = tfb_tensor_add(b, &(tfb_tensor_t) {
                .type = RT_TYPE_FLOAT32, .rank = 1, .shape = TFB_DIMS(2), .buffer = (uint32_t) ext, .name = "ext" });
        ck_assert_int_eq(et, 5);

        rt_model_t *m = load(b, true);
        tfb_free(b);

        ck_assert_str_eq(m->description, "round trip");
        ck_assert_int_eq(m->n_subgraphs, 2);
        ck_assert_uint_eq(m->n_buffers, 6); /* sentinel, w, bias, 2 metadata, external */
        const rt_model_subgraph_t *sg = &m->subgraphs[0];
        ck_assert_str_eq(sg->name, "main");
        ck_assert_int_eq(sg->n_tensors, 6);
        ck_assert_int_eq(sg->n_ops, 4);

        const rt_model_tensor_t *t = &sg->tensors[in];
        ck_assert_int_eq(t->type, RT_TYPE_INT8);
        ck_assert_int_eq(t->rank, 4);
        ck_assert(t->has_shape_signature);
        ck_assert_int_eq(t->shape_signature[0], -1);
        ck_assert_int_eq(t->shape_signature[3], 3);
        ck_assert_int_eq(t->shape[0], 1);
        ck_assert(t->has_rank);
        ck_assert_uint_eq(t->quant.n, 1);
        ck_assert(t->quant.scale[0] == 0.5f);
        ck_assert_int_eq(t->quant.zero_point[0], -3);
        ck_assert_int_eq(t->quant.axis, 0);

        t = &sg->tensors[wt];
        ck_assert_str_eq(t->name, "weights");
        ck_assert_uint_eq(t->buffer, (uint32_t) wbuf);
        ck_assert_uint_eq(t->data_bytes, sizeof(w));
        ck_assert_mem_eq(t->data, w, sizeof(w));
        /* Constant data points into the model's bytes, no copy. */
        ck_assert((const uint8_t *) t->data >= m->buf && (const uint8_t *) t->data < m->buf + m->size);
        ck_assert_uint_eq(t->quant.n, 2);
        ck_assert(t->quant.scale[1] == 0.125f);
        ck_assert_int_eq(t->quant.axis, 0);

        t = &sg->tensors[bt];
        ck_assert_int_eq(((const int32_t *) t->data)[1], -200);
        ck_assert_uint_eq((uintptr_t) t->data % 4, 0);
        t = &sg->tensors[out];
        ck_assert(t->quant.scale[0] == 0.75f);
        ck_assert_int_eq(t->quant.zero_point[0], 7);
        ck_assert_ptr_null(t->data);
        ck_assert(sg->tensors[state].is_variable);
        t = &sg->tensors[et];
        ck_assert_uint_eq(t->data_bytes, 8);
        ck_assert(((const float *) t->data)[1] == -2.5f);

        const rt_model_op_t *op = &sg->ops[0];
        ck_assert_int_eq(op->builtin_code, RT_BUILTIN_CONV_2D);
        ck_assert_int_eq(op->version, 3);
        ck_assert_int_eq(op->n_inputs, 3);
        ck_assert_int_eq(op->inputs[2], bt);
        ck_assert_int_eq(op->n_intermediates, 1);
        ck_assert_int_eq(op->intermediates[0], state);
        ck_assert_uint_eq(op->builtin_options_type, RT_OPTIONS_CONV_2D);
        ck_assert(fbt_present(op->builtin_options));
        ck_assert_int_eq(fbt_i8(op->builtin_options, 0, -1), RT_PADDING_VALID);
        ck_assert_int_eq(fbt_i32(op->builtin_options, 1, 0), 2);
        ck_assert_int_eq(fbt_i32(op->builtin_options, 2, 0), 3);
        ck_assert_int_eq(fbt_i8(op->builtin_options, 3, 0), RT_ACT_RELU6);

        op = &sg->ops[1];
        ck_assert_int_eq(op->builtin_code, RT_BUILTIN_CUSTOM);
        ck_assert_int_eq(op->version, 2);
        ck_assert_str_eq(op->custom_code, "MyOp");
        ck_assert_str_eq(rt_model_op_name(op), "MyOp");
        ck_assert_int_eq(op->inputs[1], -1);
        ck_assert_uint_eq(op->custom_options_size, 5);
        ck_assert_mem_eq(op->custom_options, copts, 5);

        op = &sg->ops[2];
        ck_assert_uint_eq(op->builtin_options_type, RT_OPTIONS_RESHAPE);
        fbt_vec_t ns = fbt_vector(op->builtin_options, 0, 4);
        ck_assert_uint_eq(ns.n, 2);
        ck_assert_int_eq(fbt_vec_i32(ns, 1), 2);

        op = &sg->ops[3];
        ck_assert_int_eq(op->builtin_code, RT_BUILTIN_GELU);
        ck_assert_str_eq(rt_model_op_name(op), "GELU");
        ck_assert(fbt_bool(op->builtin_options, 0, false));

        const rt_model_subgraph_t *sg1 = &m->subgraphs[1];
        ck_assert_str_eq(sg1->name, "second");
        ck_assert_int_eq(sg1->n_tensors, 1);
        ck_assert_int_eq(sg1->tensors[0].rank, 0);
        ck_assert_int_eq(sg1->tensors[0].type, RT_TYPE_BOOL);

        ck_assert_int_eq(m->n_signatures, 1);
        ck_assert_str_eq(m->signatures[0].key, "serving_default");
        ck_assert_int_eq(m->signatures[0].subgraph_index, 0);
        ck_assert_int_eq(m->signatures[0].n_inputs, 1);
        ck_assert_str_eq(m->signatures[0].inputs[0].name, "image");
        ck_assert_int_eq(m->signatures[0].inputs[0].tensor_index, in);
        ck_assert_str_eq(m->signatures[0].outputs[0].name, "scores");
        ck_assert_int_eq(m->signatures[0].outputs[0].tensor_index, out);

        ck_assert_int_eq(m->n_metadata, 2);
        ck_assert_str_eq(m->metadata[0].name, "min_runtime_version");
        ck_assert_uint_eq(m->metadata[0].size, 10);
        ck_assert_str_eq(m->min_runtime_version, "1.14.0");
        ck_assert_uint_eq(m->reduced_precision_support_size, 4);
        ck_assert_mem_eq(m->reduced_precision_support, "fp16", 4);
        rt_model_free(m);
}
END_TEST

START_TEST(test_builder_sparsity_roundtrip) {
        tfb_t *b = tfb_new();
        /* A 4x4 float matrix with a 2x2 block CSR layout. */
        rt_dim_metadata_t dims[4] = {
                { .format = RT_DIM_DENSE, .dense_size = 2 },
                { .format = RT_DIM_SPARSE_CSR,
                  .array_segments = { (const int32_t[]) { 0, 1, 2 }, 3, 4 },
                  .array_indices = { (const uint8_t[]) { 0, 1, 0, 0 }, 2, 1 } },
                { .format = RT_DIM_DENSE, .dense_size = 2 },
                { .format = RT_DIM_DENSE, .dense_size = 2 },
        };
        rt_sparsity_t sp = {
                .traversal_order = TFB_IDS(0, 1, 2, 3), .n_traversal_order = 4,
                .block_map = TFB_IDS(0, 1), .n_block_map = 2,
                .dim_metadata = dims, .n_dim_metadata = 4,
        };
        float values[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
        int32_t buf = tfb_buffer_add(b, values, sizeof(values));
        int32_t t = tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_FLOAT32, .rank = 2, .shape = TFB_DIMS(4, 4),
                                                       .buffer = (uint32_t) buf, .sparsity = &sp });
        ck_assert_int_eq(tfb_io(b, NULL, 0, TFB_IDS(t), 1), 0);
        rt_model_t *m = load(b, false);
        tfb_free(b);
        const rt_model_tensor_t *mt = &m->subgraphs[0].tensors[0];
        ck_assert_uint_eq(mt->data_bytes, sizeof(values));
        ck_assert_ptr_nonnull(mt->sparsity);
        const rt_sparsity_t *s = mt->sparsity;
        ck_assert_uint_eq(s->n_traversal_order, 4);
        ck_assert_int_eq(s->traversal_order[3], 3);
        ck_assert_uint_eq(s->n_block_map, 2);
        ck_assert_int_eq(s->block_map[1], 1);
        ck_assert_uint_eq(s->n_dim_metadata, 4);
        ck_assert_int_eq(s->dim_metadata[0].format, RT_DIM_DENSE);
        ck_assert_int_eq(s->dim_metadata[0].dense_size, 2);
        ck_assert_int_eq(s->dim_metadata[1].format, RT_DIM_SPARSE_CSR);
        ck_assert_uint_eq(s->dim_metadata[1].array_segments.n, 3);
        ck_assert_uint_eq(s->dim_metadata[1].array_segments.elem_size, 4);
        ck_assert_int_eq(((const int32_t *) s->dim_metadata[1].array_segments.data)[2], 2);
        ck_assert_uint_eq(s->dim_metadata[1].array_indices.n, 2);
        ck_assert_uint_eq(s->dim_metadata[1].array_indices.elem_size, 1);
        ck_assert_int_eq(((const uint8_t *) s->dim_metadata[1].array_indices.data)[1], 1);
        /* Borrowed buffer: the model points into the caller's bytes. */
        const uint8_t *bytes = m->buf;
        rt_model_free(m);
        free((void *) bytes);
}
END_TEST

START_TEST(test_builder_person_detect_axis) {
        /* A rank-1 per-channel bias with quantized_dimension 3, as in
         * person_detect_int8: accepted, axis read as 0. */
        tfb_t *b = tfb_new();
        int32_t bias[2] = { 1, 2 };
        int32_t buf = tfb_buffer_add(b, bias, sizeof(bias));
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_INT32, .rank = 1, .shape = TFB_DIMS(2),
                                            .buffer = (uint32_t) buf, .n_quant = 2,
                                            .scale = (const float[]) { 0.1f, 0.2f },
                                            .zero_point = (const int64_t[]) { 0, 0 }, .quantized_dimension = 3 });
        tfb_tensor_add(b, &(tfb_tensor_t) { .type = RT_TYPE_INT32, .rank = 1, .shape = TFB_DIMS(2),
                                            .buffer = (uint32_t) buf, .n_quant = 1,
                                            .scale = (const float[]) { 0.1f },
                                            .zero_point = (const int64_t[]) { 0 }, .quantized_dimension = 3 });
        rt_model_t *m = load(b, true);
        tfb_free(b);
        ck_assert_int_eq(m->subgraphs[0].tensors[0].quant.axis, 0);
        ck_assert_uint_eq(m->subgraphs[0].tensors[0].quant.n, 2);
        ck_assert_int_eq(m->subgraphs[0].tensors[1].quant.axis, 0);
        rt_model_free(m);
}
END_TEST

START_TEST(test_builder_load_file_and_fd) {
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_INT16, "x", 1, TFB_DIMS(3));
        tfb_io(b, TFB_IDS(x), 1, TFB_IDS(x), 1);
        size_t size;
        uint8_t *bytes = tfb_finish(b, &size);
        tfb_free(b);
        char path[] = "/tmp/test-reader-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, bytes, size), (ssize_t) size);
        free(bytes);

        rt_model_t *m = NULL;
        char err[128];
        ck_assert_int_eq(rt_model_load_file(path, &m, err, sizeof(err)), 0);
        ck_assert_int_eq(m->subgraphs[0].tensors[0].type, RT_TYPE_INT16);
        m = rt_model_free(m);
        ck_assert_int_eq(rt_model_load_fd(fd, &m, err, sizeof(err)), 0);
        ck_assert_str_eq(m->subgraphs[0].tensors[0].name, "x");
        rt_model_free(m);
        close(fd);
        unlink(path);
        ck_assert_int_eq(rt_model_load_file(path, &m, err, sizeof(err)), -ENOENT);
        ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST

/* rt_model_load_fd() maps only a memfd that can neither shrink nor change;
 * any other file is read into a private copy, so truncating it afterwards
 * (or while it is loaded) cannot fault the loader. */
START_TEST(test_builder_load_fd_maps_only_sealed_memfds) {
        static const int seals[] = { 0, F_SEAL_SHRINK, F_SEAL_WRITE, F_SEAL_SHRINK | F_SEAL_WRITE };
        tfb_t *b = tfb_new();
        int32_t x = tfb_tensor(b, RT_TYPE_INT16, "x", 1, TFB_DIMS(3));
        tfb_io(b, TFB_IDS(x), 1, TFB_IDS(x), 1);
        size_t size;
        uint8_t *bytes = tfb_finish(b, &size);
        tfb_free(b);

        for (size_t k = 0; k < sizeof(seals) / sizeof(seals[0]); k++) {
                int fd = memfd_create("test-reader", MFD_CLOEXEC | MFD_ALLOW_SEALING);
                rt_model_t *m = NULL;
                char err[128] = "";
                bool sealed = seals[k] == (F_SEAL_SHRINK | F_SEAL_WRITE);

                ck_assert_int_ge(fd, 0);
                ck_assert_int_eq(write(fd, bytes, size), (ssize_t) size);
                if (seals[k])
                        ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, seals[k]), 0);
                ck_assert_msg(rt_model_load_fd(fd, &m, err, sizeof(err)) == 0, "%s", err);
                ck_assert(sealed ? m->mapping != NULL : m->mapping == NULL);
                ck_assert(sealed ? m->owned_buf == NULL : m->owned_buf != NULL);
                if (!(seals[k] & F_SEAL_SHRINK))
                        ck_assert_int_eq(ftruncate(fd, 0), 0);
                ck_assert_str_eq(m->subgraphs[0].tensors[0].name, "x");
                rt_model_free(m);
                (void) close(fd);
        }
        free(bytes);
}
END_TEST

START_TEST(test_builder_misaligned_borrowed_buffer) {
        tfb_t *b = tfb_new();
        float w[3] = { 1, 2, 3 };
        int32_t t = tfb_tensor_const(b, RT_TYPE_FLOAT32, "w", 1, TFB_DIMS(3), w, sizeof(w));
        tfb_io(b, NULL, 0, TFB_IDS(t), 1);
        size_t size;
        uint8_t *bytes = tfb_finish(b, &size);
        tfb_free(b);
        uint8_t *odd = malloc(size + 1);
        memcpy(odd + 1, bytes, size);
        rt_model_t *m = NULL;
        ck_assert_int_eq(rt_model_load_buffer(odd + 1, size, false, &m, NULL, 0), 0);
        /* Copied to an aligned buffer rather than handing out misaligned floats. */
        ck_assert_ptr_ne(m->buf, odd + 1);
        const float *d = m->subgraphs[0].tensors[0].data;
        ck_assert_uint_eq((uintptr_t) d % 4, 0);
        ck_assert(d[2] == 3.0f);
        rt_model_free(m);
        free(odd);
        free(bytes);
}
END_TEST

START_TEST(test_builder_load_argument_errors) {
        rt_model_t *m = NULL;
        char err[64];
        ck_assert_int_eq(rt_model_load_buffer(NULL, 10, false, &m, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_model_load_buffer("x", 1, false, NULL, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_model_load_file(NULL, &m, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(rt_model_load_fd(-1, &m, err, sizeof(err)), -EINVAL);
        ck_assert_ptr_null(m);
        ck_assert_ptr_null(rt_model_free(NULL));
}
END_TEST

int main(void) {
        Suite *s = suite_create("reader-builder");
        TCase *tc = tcase_create("builder");
        tcase_add_test(tc, test_builder_minimal_roundtrip);
        tcase_add_test(tc, test_builder_full_roundtrip);
        tcase_add_test(tc, test_builder_sparsity_roundtrip);
        tcase_add_test(tc, test_builder_person_detect_axis);
        tcase_add_test(tc, test_builder_load_file_and_fd);
        tcase_add_test(tc, test_builder_load_fd_maps_only_sealed_memfds);
        tcase_add_test(tc, test_builder_misaligned_borrowed_buffer);
        tcase_add_test(tc, test_builder_load_argument_errors);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
