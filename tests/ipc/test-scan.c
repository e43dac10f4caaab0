/* SPDX-License-Identifier: Apache-2.0 */
/* ipc_frame_scan(): element counts and unpacked-size estimates, checked
 * against what protobuf-c really unpacks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ipc.h"

static size_t pack_request(const Acceld__Request *req, uint8_t **ret) {
        size_t n = acceld__request__get_packed_size(req);

        *ret = malloc(n ? n : 1);
        ck_assert_ptr_nonnull(*ret);
        ck_assert_uint_eq(acceld__request__pack(req, *ret), n);
        return n;
}

/* An Execute with `n` inputs of `bytes` bytes each, a few shape dims. */
static size_t execute_frame(size_t n, size_t bytes, uint8_t **ret) {
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ExecuteRequest e = ACCELD__EXECUTE_REQUEST__INIT;
        Acceld__TensorData *td = calloc(n, sizeof(*td));
        Acceld__TensorData **tds = calloc(n, sizeof(*tds));
        uint8_t *data = calloc(1, bytes ? bytes : 1);
        size_t len;

        ck_assert(td && tds && data);
        for (size_t i = 0; i < n; i++) {
                acceld__tensor_data__init(&td[i]);
                td[i].has_data = 1;
                td[i].data.data = data;
                td[i].data.len = bytes;
                tds[i] = &td[i];
        }
        e.has_handle = 1;
        e.handle = 3;
        e.n_inputs = n;
        e.inputs = tds;
        req.has_request_id = 1;
        req.request_id = 42;
        req.body_case = ACCELD__REQUEST__BODY_EXECUTE;
        req.execute = &e;
        len = pack_request(&req, ret);
        free(td);
        free(tds);
        free(data);
        return len;
}

START_TEST(test_scan_ordinary_request_passes_and_counts) {
        uint8_t *buf;
        size_t len = execute_frame(4, 1000, &buf);
        ipc_scan_limits_t lim = { .max_elements = 64, .max_bytes = 4 * len + 4096 };
        ipc_scan_result_t res;
        Acceld__Request *req;

        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), 0);
        ck_assert_uint_eq(res.request_id, 42);
        /* request_id, execute, handle, 4 inputs with a data field each */
        ck_assert_uint_eq(res.elements, 11);
        ck_assert_uint_ge(res.bytes, 4000);
        req = acceld__request__unpack(NULL, len, buf);
        ck_assert_ptr_nonnull(req);
        acceld__request__free_unpacked(req, NULL);
        free(buf);
}
END_TEST

START_TEST(test_scan_many_empty_elements_refused_early) {
        /* 1M empty inputs: 2 MB on the wire, far more unpacked. */
        uint8_t *buf;
        size_t len = execute_frame(1000000, 0, &buf);
        ipc_scan_limits_t lim = { .max_elements = 65536 };
        ipc_scan_result_t res;

        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), -E2BIG);
        ck_assert_uint_eq(res.request_id, 42);
        /* It stopped at the limit instead of walking all of it. */
        ck_assert_uint_eq(res.elements, 65537);

        /* Without a count limit, the size bound catches it. */
        lim = (ipc_scan_limits_t) { .max_bytes = 4 * len };
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), -ENOMEM);
        free(buf);
}
END_TEST

START_TEST(test_scan_packed_values_counted) {
        /* ResizeInputs with one shape of 100000 dims, packed or not. */
        Acceld__Request req = ACCELD__REQUEST__INIT;
        Acceld__ResizeInputsRequest ri = ACCELD__RESIZE_INPUTS_REQUEST__INIT;
        Acceld__TensorShape shape = ACCELD__TENSOR_SHAPE__INIT, *shapes[1] = { &shape };
        int32_t *dims = calloc(100000, sizeof(int32_t));
        ipc_scan_limits_t lim = { .max_elements = 50000 };
        ipc_scan_result_t res;
        uint8_t *buf;
        size_t len;

        ck_assert_ptr_nonnull(dims);
        for (int i = 0; i < 100000; i++)
                dims[i] = i % 100;
        shape.n_dims = 100000;
        shape.dims = dims;
        ri.n_shapes = 1;
        ri.shapes = shapes;
        req.body_case = ACCELD__REQUEST__BODY_RESIZE_INPUTS;
        req.resize_inputs = &ri;
        len = pack_request(&req, &buf);
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), -E2BIG);
        lim.max_elements = 200000;
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), 0);
        ck_assert_uint_ge(res.elements, 100000);
        ck_assert_uint_ge(res.bytes, 100000 * sizeof(int32_t));
        free(buf);
        free(dims);
}
END_TEST

/* The same dims sent packed (any parser accepts a packed run for a
 * repeated scalar): one field occurrence, 10000 values. */
START_TEST(test_scan_packed_run_counted_by_value) {
        enum { N = 10000 };
        uint8_t *buf = malloc(N + 16), *p = buf;
        ipc_scan_limits_t lim = { .max_elements = 5000 };
        ipc_scan_result_t res;
        Acceld__Request *req;
        size_t len;

        ck_assert_ptr_nonnull(buf);
        /* Request.resize_inputs (27) { shapes (2) { dims (1) packed } } */
        *p++ = (uint8_t) (((27 << 3) | 2) | 0x80);      /* tag 218: two varint bytes */
        *p++ = 0x01;
        *p++ = (uint8_t) (((N + 3 + 3) & 0x7f) | 0x80);
        *p++ = (uint8_t) (((N + 3 + 3) >> 7) & 0x7f);
        *p++ = (2 << 3) | 2;
        *p++ = (uint8_t) (((N + 3) & 0x7f) | 0x80);
        *p++ = (uint8_t) (((N + 3) >> 7) & 0x7f);
        *p++ = (1 << 3) | 2;
        *p++ = (uint8_t) ((N & 0x7f) | 0x80);
        *p++ = (uint8_t) ((N >> 7) & 0x7f);
        memset(p, 0x05, N);
        p += N;
        len = (size_t) (p - buf);
        req = acceld__request__unpack(NULL, len, buf);
        ck_assert_ptr_nonnull(req);
        ck_assert_uint_eq(req->resize_inputs->shapes[0]->n_dims, N);
        acceld__request__free_unpacked(req, NULL);

        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), -E2BIG);
        lim.max_elements = 2 * N;
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, buf, len, &lim, &res), 0);
        ck_assert_uint_eq(res.elements, 3 + N);
        ck_assert_uint_ge(res.bytes, N * sizeof(int32_t));
        free(buf);
}
END_TEST

START_TEST(test_scan_truncated_and_groups_are_bad) {
        static const uint8_t truncated[] = { 0x08 };                    /* tag, no varint */
        static const uint8_t overlong[] = { 0xaa, 0x01, 0x05, 0x00 };   /* field 21, length 5, 1 byte */
        static const uint8_t group[] = { 0x0b, 0x0c };                  /* start/end group */
        static const uint8_t unknown[] = { 0xf8, 0x3e, 0x01 };          /* field 1000 varint: kept */

        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, truncated, sizeof(truncated), NULL, NULL), -EBADMSG);
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, overlong, sizeof(overlong), NULL, NULL), -EBADMSG);
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, group, sizeof(group), NULL, NULL), -EBADMSG);
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, unknown, sizeof(unknown), NULL, NULL), 0);
        ck_assert_int_eq(ipc_frame_scan(&acceld__request__descriptor, NULL, 0, NULL, NULL), 0);
}
END_TEST

static Suite *scan_suite(void) {
        Suite *s = suite_create("ipc-scan");
        TCase *tc = tcase_create("scan");

        tcase_add_test(tc, test_scan_ordinary_request_passes_and_counts);
        tcase_add_test(tc, test_scan_many_empty_elements_refused_early);
        tcase_add_test(tc, test_scan_packed_values_counted);
        tcase_add_test(tc, test_scan_packed_run_counted_by_value);
        tcase_add_test(tc, test_scan_truncated_and_groups_are_bad);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        SRunner *sr = srunner_create(scan_suite());
        int failed;

        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
