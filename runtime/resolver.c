/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "resolver.h"

typedef struct entry {
        const rt_registration_t *reg;
        int32_t min_version;
        int32_t max_version;
} entry_t;

struct rt_resolver {
        entry_t *entries;
        size_t n;
        size_t cap;
        const rt_resolver_t *fallback;
};

rt_resolver_t *rt_resolver_new(void) {
        return calloc(1, sizeof(rt_resolver_t));
}

rt_resolver_t *rt_resolver_free(rt_resolver_t *r) {
        if (!r)
                return NULL;
        free(r->entries);
        free(r);
        return NULL;
}

int rt_resolver_add_versions(rt_resolver_t *r, const rt_registration_t *reg, int32_t min_version,
                             int32_t max_version) {
        if (!r || !reg || reg->op < 0 || min_version > max_version)
                return -EINVAL;
        if (reg->op == RT_OP_CUSTOM && (!reg->name || !reg->name[0]))
                return -EINVAL;
        if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 128;
                entry_t *e = realloc(r->entries, cap * sizeof(entry_t));
                if (!e)
                        return -ENOMEM;
                r->entries = e;
                r->cap = cap;
        }
        r->entries[r->n++] = (entry_t) { reg, min_version, max_version };
        return 0;
}

int rt_resolver_add(rt_resolver_t *r, const rt_registration_t *reg) {
        return rt_resolver_add_versions(r, reg, 1, INT32_MAX);
}

static bool entry_matches(const entry_t *e, int32_t op, const char *custom_name) {
        if (e->reg->op != op)
                return false;
        if (op != RT_OP_CUSTOM)
                return true;
        return custom_name && strcmp(e->reg->name, custom_name) == 0;
}

const rt_registration_t *rt_resolver_find(const rt_resolver_t *r, int32_t op, const char *custom_name,
                                          int32_t version) {
        if (!r)
                return NULL;
        if (version <= 0)
                version = 1;
        /* Newest first, so later additions override earlier ones. */
        for (size_t i = r->n; i > 0; i--) {
                const entry_t *e = &r->entries[i - 1];
                if (entry_matches(e, op, custom_name) && version >= e->min_version &&
                    version <= e->max_version)
                        return e->reg;
        }
        return r->fallback ? rt_resolver_find(r->fallback, op, custom_name, version) : NULL;
}

bool rt_resolver_has_op(const rt_resolver_t *r, int32_t op, const char *custom_name) {
        if (!r)
                return false;
        for (size_t i = 0; i < r->n; i++)
                if (entry_matches(&r->entries[i], op, custom_name))
                        return true;
        return r->fallback ? rt_resolver_has_op(r->fallback, op, custom_name) : false;
}

int rt_resolver_set_fallback(rt_resolver_t *r, const rt_resolver_t *fallback) {
        if (!r || fallback == r)
                return -EINVAL;
        r->fallback = fallback;
        return 0;
}

static rt_resolver_t *builtins;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

static void builtins_make(void) {
        rt_resolver_t *r = rt_resolver_new();
        if (!r)
                return;
        if (rt_kernels_register_builtins(r) < 0) {
                rt_resolver_free(r);
                return;
        }
        builtins = r;
}

const rt_resolver_t *rt_resolver_builtins(void) {
        (void) pthread_once(&builtins_once, builtins_make);
        return builtins;
}

size_t rt_resolver_size(const rt_resolver_t *r) {
        return r ? r->n : 0;
}
