/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "arena.h"

size_t rt_arena_align(size_t bytes) {
        if (bytes > SIZE_MAX - (RT_ARENA_ALIGN - 1))
                return SIZE_MAX;
        return (bytes + RT_ARENA_ALIGN - 1) & ~(size_t) (RT_ARENA_ALIGN - 1);
}

static int by_size_desc(const void *a, const void *b) {
        const rt_arena_item_t *x = *(const rt_arena_item_t *const *) a;
        const rt_arena_item_t *y = *(const rt_arena_item_t *const *) b;
        if (x->bytes != y->bytes)
                return x->bytes < y->bytes ? 1 : -1;
        if (x->first != y->first)
                return x->first < y->first ? -1 : 1;
        return x < y ? -1 : (x > y ? 1 : 0);
}

static int by_offset(const void *a, const void *b) {
        const rt_arena_item_t *x = *(const rt_arena_item_t *const *) a;
        const rt_arena_item_t *y = *(const rt_arena_item_t *const *) b;
        if (x->offset != y->offset)
                return x->offset < y->offset ? -1 : 1;
        return x < y ? -1 : (x > y ? 1 : 0);
}

static bool overlaps(const rt_arena_item_t *a, const rt_arena_item_t *b) {
        return a->first <= b->last && b->first <= a->last;
}

int rt_arena_plan(rt_arena_item_t *items, size_t n, size_t *ret_size) {
        if (!ret_size || (n > 0 && !items))
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (items[i].first > items[i].last)
                        return -EINVAL;
        rt_arena_item_t **order = calloc(n + 1, sizeof(*order));
        rt_arena_item_t **live = calloc(n + 1, sizeof(*live));
        if (!order || !live) {
                free(order);
                free(live);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                order[i] = &items[i];
                items[i].offset = 0;
        }
        qsort(order, n, sizeof(*order), by_size_desc);

        size_t total = 0;
        int r = 0;
        for (size_t k = 0; k < n; k++) {
                rt_arena_item_t *it = order[k];
                size_t need = rt_arena_align(it->bytes);
                if (need == SIZE_MAX) {
                        r = -ENOMEM;
                        break;
                }
                if (need == 0)
                        continue;
                /* Already placed items that live at the same time, by offset. */
                size_t n_live = 0;
                for (size_t j = 0; j < k; j++)
                        if (order[j]->bytes > 0 && overlaps(order[j], it))
                                live[n_live++] = order[j];
                qsort(live, n_live, sizeof(*live), by_offset);
                size_t best = SIZE_MAX, best_gap = SIZE_MAX, cursor = 0;
                for (size_t j = 0; j < n_live; j++) {
                        size_t start = live[j]->offset;
                        if (start > cursor && start - cursor >= need && start - cursor < best_gap) {
                                best = cursor;
                                best_gap = start - cursor;
                        }
                        size_t end = live[j]->offset + rt_arena_align(live[j]->bytes);
                        if (end > cursor)
                                cursor = end;
                }
                if (best == SIZE_MAX)
                        best = cursor;
                if (best > SIZE_MAX - need) {
                        r = -ENOMEM;
                        break;
                }
                it->offset = best;
                if (best + need > total)
                        total = best + need;
        }
        free(order);
        free(live);
        if (r < 0)
                return r;
        *ret_size = total;
        return 0;
}
