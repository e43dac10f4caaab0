/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Native TensorFlow Lite (libtensorflowlite_c.so, 2.9 C API) loaded with
 * dlopen() at run time, never linked: the differential tester's oracle.
 * Only the builtin kernels are used (no delegate), on one thread.
 *
 *   dt_native_t *n;
 *   if (dt_native_open(path, &n, err, sizeof(err)) < 0) ... skip ...
 *   dt_native_run(n, model, size, inputs, in_sizes, n_in, outs, out_sizes, n_out, err, sizeof(err));
 *   dt_native_close(n);
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dt_native dt_native_t;

/* The library's default location inside a checkout (bench/fetch-native-tflite.sh). */
#define DT_NATIVE_DEFAULT_SUBPATH "bench/out/tfjs-tflite-node-0.0.2/cc_deps/linux_amd64/libtensorflowlite_c.so"

/* 0, -ENOENT (no library) or -ENOSYS (a symbol is missing); message in err. */
int dt_native_open(const char *path, dt_native_t **ret, char *err, size_t err_size);
void dt_native_close(dt_native_t *n);
const char *dt_native_version(const dt_native_t *n);

/* Run the next models with TensorFlow Lite's own XNNPACK delegate (2.9,
 * float ops, 1 thread): the upstream accelerated path, the second oracle
 * of our XNNPACK driver (docs/conformance.md). 0, or -ENOSYS when the
 * library has no XNNPACK delegate. */
int dt_native_use_xnnpack(dt_native_t *n, bool on);

/* The delegate's flags (TFLITE_XNNPACK_DELEGATE_FLAG_*: 1 QS8, 2 QU8, i.e.
 * also the signed / unsigned 8-bit quantized ops); 0, the default, is
 * float ops only. */
#define DT_NATIVE_XNNPACK_QS8 1u
#define DT_NATIVE_XNNPACK_QU8 2u
void dt_native_xnnpack_flags(dt_native_t *n, uint32_t flags);

/*
 * Build an interpreter for `model` (1 thread), copy inputs[i] in, invoke
 * once and return malloc'ed copies of every output in outs[i] (sizes in
 * out_sizes; at most max_out). Returns the output count, -EINVAL when
 * TensorFlow Lite refuses the model or its inputs (creation, allocation or
 * invoke failed; its log in err), or -ENOMEM.
 */
int dt_native_run(dt_native_t *n, const void *model, size_t size, void *const *inputs, const size_t *in_sizes,
                  int n_in, void **outs, size_t *out_sizes, int max_out, char *err, size_t err_size);
