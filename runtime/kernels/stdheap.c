/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libstdc++'s binary heap (stl_heap.h, stl_algo.h's __heap_select): a
 * hole sifted down to a leaf along the larger child, then the value pushed
 * back up from there. The exact steps decide where equal keys end up.
 */
#include "stdheap.h"

static bool less(const rt_heap_order_t *o, int32_t a, int32_t b) {
        return o->less(o->ctx, a, b);
}

/* std::__push_heap: value rises from `hole` towards `top`. */
static void push_up(const rt_heap_order_t *o, int32_t *f, ptrdiff_t hole, ptrdiff_t top, int32_t value) {
        ptrdiff_t parent = (hole - 1) / 2;
        while (hole > top && less(o, f[parent], value)) {
                f[hole] = f[parent];
                hole = parent;
                parent = (hole - 1) / 2;
        }
        f[hole] = value;
}

/* std::__adjust_heap: the hole at `hole` goes down to a leaf, then value
 * is pushed up from there. */
static void adjust(const rt_heap_order_t *o, int32_t *f, ptrdiff_t hole, ptrdiff_t len, int32_t value) {
        const ptrdiff_t top = hole;
        ptrdiff_t child = hole;
        while (child < (len - 1) / 2) {
                child = 2 * (child + 1);
                if (less(o, f[child], f[child - 1]))
                        child--;
                f[hole] = f[child];
                hole = child;
        }
        if ((len & 1) == 0 && child == (len - 2) / 2) {
                child = 2 * (child + 1);
                f[hole] = f[child - 1];
                hole = child - 1;
        }
        push_up(o, f, hole, top, value);
}

void rt_heap_make(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len) {
        if (len < 2)
                return;
        for (ptrdiff_t parent = (len - 2) / 2;; parent--) {
                adjust(o, f, parent, len, f[parent]);
                if (parent == 0)
                        return;
        }
}

/* std::__pop_heap(first, last, result): the top goes to *result and the
 * value that was there is sifted into f[0..len). */
static void pop_to(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len, int32_t *result) {
        int32_t value = *result;
        *result = f[0];
        adjust(o, f, 0, len, value);
}

void rt_heap_pop(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len) {
        if (len > 1)
                pop_to(o, f, len - 1, &f[len - 1]);
}

void rt_heap_sort(const rt_heap_order_t *o, int32_t *f, ptrdiff_t len) {
        while (len > 1) {
                len--;
                pop_to(o, f, len, &f[len]);
        }
}

void rt_heap_partial_sort(const rt_heap_order_t *o, int32_t *f, ptrdiff_t middle, ptrdiff_t len) {
        rt_heap_make(o, f, middle);
        for (ptrdiff_t i = middle; i < len; i++)
                if (less(o, f[i], f[0]))
                        pop_to(o, f, middle, &f[i]);
        rt_heap_sort(o, f, middle);
}

static bool greater_value(const void *ctx, int32_t a, int32_t b) {
        const float *v = ctx;
        return v[a] > v[b];
}

void rt_heap_argsort_desc(const float *vals, int32_t n, int32_t k, int32_t *idx) {
        for (int32_t i = 0; i < n; i++)
                idx[i] = i;
        rt_heap_partial_sort(&(rt_heap_order_t) { greater_value, vals }, idx, k, n);
}
