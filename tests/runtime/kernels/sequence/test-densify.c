/* SPDX-License-Identifier: Apache-2.0 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kharness.h"
#include "model.h"
#include "sequence.h"

/* A sparse constant: dense shape `dims`, compressed `values`. */
static int32_t sparse_tensor(kh_t *h, rt_type_t type, int32_t rank, const int32_t *dims, const void *values,
                             size_t bytes, const rt_sparsity_t *sp) {
        int32_t t = kh_tensor(h, type, rank, dims, NULL);
        h->tensors[t].data = (void *) values;
        h->tensors[t].bytes = bytes;
        h->tensors[t].alloc = RT_ALLOC_CONST;
        h->tensors[t].sparsity = sp;
        return t;
}

START_TEST(test_densify_csr_float) {
        /* [[1 0 0 2] [0 0 0 0] [0 3 4 0]] */
        static const float values[] = { 1, 2, 3, 4 };
        static const uint8_t segments[] = { 0, 2, 2, 4 };
        static const uint16_t indices[] = { 0, 3, 1, 2 };
        static const int32_t order[] = { 0, 1 };
        rt_dim_metadata_t dm[2] = {
                { .format = RT_DIM_DENSE, .dense_size = 3 },
                { .format = RT_DIM_SPARSE_CSR,
                  .array_segments = { segments, 4, 1 },
                  .array_indices = { indices, 4, 2 } },
        };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = 2, .dim_metadata = dm,
                             .n_dim_metadata = 2 };
        kh_t h;
        kh_init(&h);
        int32_t in = sparse_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 3, 4 }, values, sizeof(values), &sp);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), 0);
        ck_assert_int_eq(h.tensors[out].rank, 2);
        ck_assert_int_eq(h.tensors[out].dims[0], 3);
        ck_assert_int_eq(h.tensors[out].dims[1], 4);
        static const float want[12] = { 1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 4, 0 };
        ck_assert_mem_eq(h.tensors[out].data, want, sizeof(want));
        kh_done(&h);
}
END_TEST

START_TEST(test_densify_block_sparse_int8) {
        /* 4x4 of 2x2 blocks: block (0,1) = 1 2 / 3 4, block (1,0) = 5 6 / 7 8 */
        static const int8_t values[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
        static const int32_t segments[] = { 0, 1, 2 };
        static const int32_t indices[] = { 1, 0 };
        static const int32_t order[] = { 0, 1, 2, 3 };
        static const int32_t block_map[] = { 0, 1 };
        rt_dim_metadata_t dm[4] = {
                { .format = RT_DIM_DENSE, .dense_size = 2 },
                { .format = RT_DIM_SPARSE_CSR,
                  .array_segments = { segments, 3, 4 },
                  .array_indices = { indices, 2, 4 } },
                { .format = RT_DIM_DENSE, .dense_size = 2 },
                { .format = RT_DIM_DENSE, .dense_size = 2 },
        };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = 4, .block_map = block_map,
                             .n_block_map = 2, .dim_metadata = dm, .n_dim_metadata = 4 };
        kh_t h;
        kh_init(&h);
        int32_t in = sparse_tensor(&h, RT_TYPE_INT8, 2, (int32_t[]){ 4, 4 }, values, sizeof(values), &sp);
        int32_t out = kh_tensor(&h, RT_TYPE_INT8, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), 0);
        static const int8_t want[16] = { 0, 0, 1, 2, 0, 0, 3, 4, 5, 6, 0, 0, 7, 8, 0, 0 };
        ck_assert_mem_eq(h.tensors[out].data, want, sizeof(want));
        kh_done(&h);
}
END_TEST

START_TEST(test_densify_float16_dense_levels) {
        /* All-dense metadata is a plain copy (float16 raw bits). */
        static const uint16_t values[] = { 0x3c00, 0x4000, 0x4200, 0x4400 };
        static const int32_t order[] = { 0, 1 };
        rt_dim_metadata_t dm[2] = {
                { .format = RT_DIM_DENSE, .dense_size = 2 },
                { .format = RT_DIM_DENSE, .dense_size = 2 },
        };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = 2, .dim_metadata = dm,
                             .n_dim_metadata = 2 };
        kh_t h;
        kh_init(&h);
        int32_t in = sparse_tensor(&h, RT_TYPE_FLOAT16, 2, (int32_t[]){ 2, 2 }, values, sizeof(values), &sp);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT16, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), 0);
        ck_assert_mem_eq(h.tensors[out].data, values, sizeof(values));
        kh_done(&h);
}
END_TEST

START_TEST(test_densify_rejects_out_of_range_index) {
        static const float values[] = { 1, 2 };
        static const int32_t segments[] = { 0, 2 };
        static const int32_t indices[] = { 0, 4 };  /* column 4 of 4 */
        static const int32_t order[] = { 0, 1 };
        rt_dim_metadata_t dm[2] = {
                { .format = RT_DIM_DENSE, .dense_size = 1 },
                { .format = RT_DIM_SPARSE_CSR,
                  .array_segments = { segments, 2, 4 },
                  .array_indices = { indices, 2, 4 } },
        };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = 2, .dim_metadata = dm,
                             .n_dim_metadata = 2 };
        kh_t h;
        kh_init(&h);
        int32_t in = sparse_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 4 }, values, sizeof(values), &sp);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "out of range"));
        kh_done(&h);
}
END_TEST

START_TEST(test_densify_rejects_too_few_values) {
        static const float values[] = { 1 };
        static const int32_t segments[] = { 0, 2 };
        static const int32_t indices[] = { 0, 1 };
        static const int32_t order[] = { 0, 1 };
        rt_dim_metadata_t dm[2] = {
                { .format = RT_DIM_DENSE, .dense_size = 1 },
                { .format = RT_DIM_SPARSE_CSR,
                  .array_segments = { segments, 2, 4 },
                  .array_indices = { indices, 2, 4 } },
        };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = 2, .dim_metadata = dm,
                             .n_dim_metadata = 2 };
        kh_t h;
        kh_init(&h);
        int32_t in = sparse_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 4 }, values, sizeof(values), &sp);
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), -EINVAL);
        kh_done(&h);
}
END_TEST

START_TEST(test_densify_rejects_dense_input_and_bad_order) {
        kh_t h;
        kh_init(&h);
        int32_t in = kh_const(&h, RT_TYPE_FLOAT32, 1, (int32_t[]){ 2 }, (float[]){ 1, 2 });
        int32_t out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "not a sparse"));
        kh_done(&h);

        static const int32_t order[] = { 1, 1 };
        rt_dim_metadata_t dm[2] = {
                { .format = RT_DIM_DENSE, .dense_size = 1 },
                { .format = RT_DIM_DENSE, .dense_size = 1 },
        };
        rt_sparsity_t sp = { .traversal_order = order, .n_traversal_order = 2, .dim_metadata = dm,
                             .n_dim_metadata = 2 };
        kh_init(&h);
        static const float v[] = { 1 };
        in = sparse_tensor(&h, RT_TYPE_FLOAT32, 2, (int32_t[]){ 1, 1 }, v, sizeof(v), &sp);
        out = kh_tensor(&h, RT_TYPE_FLOAT32, 0, NULL, NULL);
        ck_assert_int_eq(kh_run(&h, &rt_kernel_densify, NULL, &in, 1, &out, 1), -EINVAL);
        ck_assert_ptr_nonnull(strstr(h.error, "traversal order"));
        kh_done(&h);
}
END_TEST

int main(void) {
        Suite *s = suite_create("kernels-sequence-densify");
        TCase *tc = tcase_create("densify");
        tcase_add_test(tc, test_densify_csr_float);
        tcase_add_test(tc, test_densify_block_sparse_int8);
        tcase_add_test(tc, test_densify_float16_dense_levels);
        tcase_add_test(tc, test_densify_rejects_out_of_range_index);
        tcase_add_test(tc, test_densify_rejects_too_few_values);
        tcase_add_test(tc, test_densify_rejects_dense_input_and_bad_order);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
