/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libstdc++'s heap algorithms, step for step, over an array of int32
 * indices with the caller's "less". TensorFlow Lite sorts with
 * std::partial_sort and std::make_heap / pop_heap / sort_heap; these are
 * not stable, so where keys tie (or the comparison is not a strict weak
 * order, as with NaN) the order they leave is the algorithm's own. Kernels
 * that must give TFLite's order of equal keys use these; any other sort
 * gives the same answer only when no two keys tie.
 *
 * Pure functions; any thread.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* true when a goes before b in the heap's order (std's comp(a, b)). */
typedef bool (*rt_heap_less_fn)(const void *ctx, int32_t a, int32_t b);

typedef struct rt_heap_order {
        rt_heap_less_fn less;
        const void *ctx;
} rt_heap_order_t;

/* std::make_heap(f, f + len). */
void rt_heap_make(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len);

/* std::pop_heap(f, f + len): the top moves to f[len - 1]. */
void rt_heap_pop(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len);

/* std::sort_heap(f, f + len). */
void rt_heap_sort(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len);

/* std::partial_sort(f, f + middle, f + len): the first `middle` of f in
 * order, the rest in the order the heap selection leaves them. */
void rt_heap_partial_sort(const rt_heap_order_t *o, int32_t *f, ptrdiff_t middle, ptrdiff_t len);

/* Indices 0..n-1 into idx, then the first k by decreasing vals[] as
 * std::partial_sort with comp(i, j) = vals[i] > vals[j] leaves them. */
void rt_heap_argsort_desc(const float *vals, int32_t n, int32_t k, int32_t *idx);
