/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HASHTABLE, HASHTABLE_IMPORT, HASHTABLE_FIND and HASHTABLE_SIZE: TFLite's
 * kernels/hashtable/ (static hash tables, int64 -> string or string ->
 * int64). The table lives in the interpreter (rt_ctx_resource_object(),
 * kind "hashtable", id = table_id); a handle tensor holds the table id.
 * IMPORT fills the table the first time only (later imports are ignored,
 * as in TFLite, whose converter may leave the initializer in the graph);
 * the first of duplicate keys wins.
 */
#include <stdlib.h>
#include <string.h>

#include "control-internal.h"

static const char ht_kind[] = "hashtable";

typedef struct ht_slot {
        bool used;
        uint64_t hash;
        int64_t ikey;
        char *skey;     /* string keys (owned) */
        uint32_t sklen;
        int64_t ival;
        char *sval;     /* string values (owned) */
        uint32_t svlen;
} ht_slot_t;

typedef struct ht {
        rt_type_t key_type;
        rt_type_t value_type;
        bool typed;
        bool initialized;
        size_t n;
        size_t cap;     /* power of two, or 0 */
        ht_slot_t *slots;
} ht_t;

static void ht_destroy(void *obj) {
        ht_t *t = obj;
        for (size_t i = 0; i < t->cap; i++) {
                free(t->slots[i].skey);
                free(t->slots[i].sval);
        }
        free(t->slots);
}

/* FNV-1a over bytes. */
static uint64_t hash_bytes(const void *p, size_t n) {
        const uint8_t *b = p;
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < n; i++) {
                h ^= b[i];
                h *= 1099511628211ull;
        }
        return h;
}

static bool slot_match(const ht_t *t, const ht_slot_t *s, uint64_t h, int64_t ikey, const char *skey,
                       uint32_t sklen) {
        if (!s->used || s->hash != h)
                return false;
        if (t->key_type == RT_TYPE_INT64)
                return s->ikey == ikey;
        return s->sklen == sklen && memcmp(s->skey, skey, sklen) == 0;
}

/* The slot holding the key, or the empty slot where it would go. */
static ht_slot_t *ht_probe(const ht_t *t, uint64_t h, int64_t ikey, const char *skey, uint32_t sklen) {
        size_t mask = t->cap - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
                ht_slot_t *s = &t->slots[i];
                if (!s->used || slot_match(t, s, h, ikey, skey, sklen))
                        return s;
        }
}

static int ht_grow(ht_t *t) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        ht_slot_t *old = t->slots;
        size_t old_cap = t->cap;
        t->slots = calloc(cap, sizeof(*t->slots));
        if (!t->slots) {
                t->slots = old;
                return -ENOMEM;
        }
        t->cap = cap;
        for (size_t i = 0; i < old_cap; i++)
                if (old[i].used)
                        *ht_probe(t, old[i].hash, old[i].ikey, old[i].skey, old[i].sklen) = old[i];
        free(old);
        return 0;
}

/* ---- string tensors (TFLite layout: int32 n, int32 offsets[n + 1]) ---- */

/* String i of a serialized string tensor; NULL when malformed. */
static const char *str_get(const rt_tensor_t *t, size_t i, uint32_t *ret_len) {
        const uint8_t *p = t->data;
        if (!p || t->bytes < 8)
                return NULL;
        int32_t n;
        memcpy(&n, p, 4);
        if (n < 0 || i >= (size_t) n || 4 * ((size_t) n + 2) > t->bytes)
                return NULL;
        int32_t a, b;
        memcpy(&a, p + 4 + 4 * i, 4);
        memcpy(&b, p + 8 + 4 * i, 4);
        if (a < 0 || b < a || (size_t) b > t->bytes)
                return NULL;
        *ret_len = (uint32_t) (b - a);
        return (const char *) p + a;
}

/* Parse options: HashtableOptions table_id (0), key_dtype (1), value_dtype (2). */
typedef struct ht_params {
        int32_t table_id;
        rt_type_t key_type;
        rt_type_t value_type;
} ht_params_t;

static int ht_parse(const rt_node_t *node, void *ret_params, rt_context_t *ctx) {
        (void) ctx;
        ht_params_t *p = ret_params;
        p->table_id = fbt_i32(node->options, 0, 0);
        p->key_type = (rt_type_t) fbt_i8(node->options, 1, 0);
        p->value_type = (rt_type_t) fbt_i8(node->options, 2, 0);
        return 0;
}

static bool types_ok(rt_type_t k, rt_type_t v) {
        return (k == RT_TYPE_INT64 && v == RT_TYPE_STRING) || (k == RT_TYPE_STRING && v == RT_TYPE_INT64);
}

static int handle_prepare(rt_context_t *ctx, const char *op, const rt_tensor_t *h) {
        if (!h || (h->type != RT_TYPE_RESOURCE && h->type != RT_TYPE_INT32) || rt_tensor_count(h) != 1)
                return rt_ctx_error(ctx, "%s: input 0 must be one resource (or int32) handle", op);
        return 0;
}

/* The table a handle tensor names; NULL (with a message) if none. */
static ht_t *table_get(rt_context_t *ctx, const char *op, const rt_tensor_t *h) {
        if (!h->data || h->bytes < sizeof(int32_t)) {
                rt_ctx_error(ctx, "%s: the table handle has no data", op);
                return NULL;
        }
        int32_t id;
        memcpy(&id, h->data, sizeof(id));
        ht_t *t = rt_ctx_resource_object(ctx, ht_kind, id, 0, NULL);
        if (!t || !t->typed)
                rt_ctx_error(ctx, "%s: no hash table %d (HASHTABLE has not run)", op, id);
        return t && t->typed ? t : NULL;
}

static int hashtable_prepare(rt_context_t *ctx, rt_node_t *node) {
        const ht_params_t *p = node->params;
        if (!p)
                return rt_ctx_error(ctx, "HASHTABLE: node has no params");
        if (node->n_inputs != 0 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "HASHTABLE: expected no inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        if (!types_ok(p->key_type, p->value_type)) {
                rt_ctx_error(ctx, "HASHTABLE: %s keys with %s values are not supported (int64 -> string, string -> int64)",
                             rt_type_name(p->key_type), rt_type_name(p->value_type));
                return -ENOTSUP;
        }
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!out || (out->type != RT_TYPE_RESOURCE && out->type != RT_TYPE_INT32))
                return rt_ctx_error(ctx, "HASHTABLE: the output must be a resource (or int32) tensor");
        return rt_ctx_resize(ctx, node, 0, 1, (const int32_t[]) { 1 });
}

static int hashtable_invoke(rt_context_t *ctx, rt_node_t *node) {
        const ht_params_t *p = node->params;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        ht_t *t = rt_ctx_resource_object(ctx, ht_kind, p->table_id, sizeof(ht_t), ht_destroy);
        if (!t) {
                if (!ctx->resource_object) {
                        rt_ctx_error(ctx, "HASHTABLE: this context has no resources");
                        return -ENOTSUP;
                }
                return -ENOMEM;
        }
        if (!t->typed) {
                t->key_type = p->key_type;
                t->value_type = p->value_type;
                t->typed = true;
        } else if (t->key_type != p->key_type || t->value_type != p->value_type) {
                return rt_ctx_error(ctx, "HASHTABLE: table %d exists with %s -> %s entries", p->table_id,
                                    rt_type_name(t->key_type), rt_type_name(t->value_type));
        }
        if (!out->data || out->bytes < sizeof(int32_t))
                return rt_ctx_error(ctx, "HASHTABLE: the output has no storage");
        memcpy(out->data, &p->table_id, sizeof(int32_t));
        return 0;
}

const rt_registration_t rt_kernel_hashtable = {
        .name = "HASHTABLE",
        .op = RT_OP_HASHTABLE,
        .params_size = sizeof(ht_params_t),
        .parse = ht_parse,
        .prepare = hashtable_prepare,
        .invoke = hashtable_invoke,
};

/* ---- HASHTABLE_IMPORT: handle, keys, values ---- */

static int import_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 3 || node->n_outputs != 0)
                return rt_ctx_error(ctx, "HASHTABLE_IMPORT: expected 3 inputs and no outputs, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        int r = handle_prepare(ctx, "HASHTABLE_IMPORT", rt_node_input(ctx, node, 0));
        if (r < 0)
                return r;
        const rt_tensor_t *k = rt_node_input(ctx, node, 1), *v = rt_node_input(ctx, node, 2);
        if (!k || !v || !types_ok(k->type, v->type))
                return rt_ctx_error(ctx, "HASHTABLE_IMPORT: keys and values must be int64 and string, or string and int64");
        if (rt_tensor_count(k) != rt_tensor_count(v))
                return rt_ctx_error(ctx, "HASHTABLE_IMPORT: %zu keys but %zu values", rt_tensor_count(k),
                                    rt_tensor_count(v));
        return 0;
}

static int import_invoke(rt_context_t *ctx, rt_node_t *node) {
        ht_t *t = table_get(ctx, "HASHTABLE_IMPORT", rt_node_input(ctx, node, 0));
        if (!t)
                return -EINVAL;
        const rt_tensor_t *k = rt_node_input(ctx, node, 1), *v = rt_node_input(ctx, node, 2);
        if (k->type != t->key_type || v->type != t->value_type)
                return rt_ctx_error(ctx, "HASHTABLE_IMPORT: the table maps %s to %s, got %s and %s",
                                    rt_type_name(t->key_type), rt_type_name(t->value_type),
                                    rt_type_name(k->type), rt_type_name(v->type));
        if (t->initialized)
                return 0;
        const size_t n = rt_tensor_count(k);
        if (n > 0 && (!k->data || !v->data))
                return rt_ctx_error(ctx, "HASHTABLE_IMPORT: keys or values have no data");
        for (size_t i = 0; i < n; i++) {
                if ((t->n + 1) * 4 > t->cap * 3 && ht_grow(t) < 0)
                        return -ENOMEM;
                int64_t ikey = 0;
                const char *skey = NULL;
                uint32_t sklen = 0;
                uint64_t h;
                if (t->key_type == RT_TYPE_INT64) {
                        ikey = ((const int64_t *) k->data)[i];
                        h = hash_bytes(&ikey, sizeof(ikey));
                } else {
                        skey = str_get(k, i, &sklen);
                        if (!skey)
                                return rt_ctx_error(ctx, "HASHTABLE_IMPORT: malformed string key %zu", i);
                        h = hash_bytes(skey, sklen);
                }
                ht_slot_t *s = ht_probe(t, h, ikey, skey, sklen);
                if (s->used)
                        continue;  /* the first of duplicate keys wins */
                ht_slot_t ns = { .used = true, .hash = h, .ikey = ikey };
                if (skey) {
                        ns.skey = malloc(sklen ? sklen : 1);
                        if (!ns.skey)
                                return -ENOMEM;
                        memcpy(ns.skey, skey, sklen);
                        ns.sklen = sklen;
                }
                if (t->value_type == RT_TYPE_INT64) {
                        ns.ival = ((const int64_t *) v->data)[i];
                } else {
                        uint32_t len = 0;
                        const char *sv = str_get(v, i, &len);
                        ns.sval = sv ? malloc(len ? len : 1) : NULL;
                        if (!ns.sval) {
                                free(ns.skey);
                                if (!sv)
                                        return rt_ctx_error(ctx, "HASHTABLE_IMPORT: malformed string value %zu", i);
                                return -ENOMEM;
                        }
                        memcpy(ns.sval, sv, len);
                        ns.svlen = len;
                }
                *s = ns;
                t->n++;
        }
        t->initialized = true;
        return 0;
}

const rt_registration_t rt_kernel_hashtable_import = {
        .name = "HASHTABLE_IMPORT",
        .op = RT_OP_HASHTABLE_IMPORT,
        .prepare = import_prepare,
        .invoke = import_invoke,
};

/* ---- HASHTABLE_FIND: handle, keys, default value -> values ---- */

static int find_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 3 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "HASHTABLE_FIND: expected 3 inputs and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        int r = handle_prepare(ctx, "HASHTABLE_FIND", rt_node_input(ctx, node, 0));
        if (r < 0)
                return r;
        const rt_tensor_t *k = rt_node_input(ctx, node, 1), *d = rt_node_input(ctx, node, 2);
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!k || !d || !out || d->type != out->type || !types_ok(k->type, out->type))
                return rt_ctx_error(ctx, "HASHTABLE_FIND: int64 keys need string values and string keys int64 values, with a default of the value type");
        if (rt_tensor_count(d) != 1)
                return rt_ctx_error(ctx, "HASHTABLE_FIND: the default value must have one element");
        return rt_ctx_resize(ctx, node, 0, k->rank, k->dims);
}

static const ht_slot_t *ht_find(const ht_t *t, const rt_tensor_t *k, size_t i, bool *ret_bad) {
        int64_t ikey = 0;
        const char *skey = NULL;
        uint32_t sklen = 0;
        uint64_t h;
        *ret_bad = false;
        if (t->key_type == RT_TYPE_INT64) {
                ikey = ((const int64_t *) k->data)[i];
                h = hash_bytes(&ikey, sizeof(ikey));
        } else {
                skey = str_get(k, i, &sklen);
                if (!skey) {
                        *ret_bad = true;
                        return NULL;
                }
                h = hash_bytes(skey, sklen);
        }
        if (t->cap == 0)
                return NULL;
        const ht_slot_t *s = ht_probe(t, h, ikey, skey, sklen);
        return s->used ? s : NULL;
}

static int find_invoke(rt_context_t *ctx, rt_node_t *node) {
        ht_t *t = table_get(ctx, "HASHTABLE_FIND", rt_node_input(ctx, node, 0));
        if (!t)
                return -EINVAL;
        const rt_tensor_t *k = rt_node_input(ctx, node, 1), *d = rt_node_input(ctx, node, 2);
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (k->type != t->key_type || out->type != t->value_type)
                return rt_ctx_error(ctx, "HASHTABLE_FIND: the table maps %s to %s, got %s keys and %s output",
                                    rt_type_name(t->key_type), rt_type_name(t->value_type),
                                    rt_type_name(k->type), rt_type_name(out->type));
        const size_t n = rt_tensor_count(k);
        if ((n > 0 && !k->data) || !d->data)
                return rt_ctx_error(ctx, "HASHTABLE_FIND: keys or default value have no data");
        int r = rt_ctx_resize(ctx, node, 0, k->rank, k->dims);
        if (r < 0)
                return r;
        bool bad;
        if (t->value_type == RT_TYPE_INT64) {
                int64_t *y = out->data;
                if (n > 0 && (!y || out->bytes < n * sizeof(int64_t)))
                        return rt_ctx_error(ctx, "HASHTABLE_FIND: the output has no storage");
                const int64_t def = *(const int64_t *) d->data;
                for (size_t i = 0; i < n; i++) {
                        const ht_slot_t *s = ht_find(t, k, i, &bad);
                        if (bad)
                                return rt_ctx_error(ctx, "HASHTABLE_FIND: malformed string key %zu", i);
                        y[i] = s ? s->ival : def;
                }
                return 0;
        }
        /* String values: serialize n strings into out->data (executor-owned,
         * realloc()ed as needed). */
        uint32_t dlen = 0;
        const char *dstr = str_get(d, 0, &dlen);
        if (!dstr)
                return rt_ctx_error(ctx, "HASHTABLE_FIND: malformed default string");
        size_t total = 4 * (n + 2);
        for (size_t i = 0; i < n; i++) {
                const ht_slot_t *s = ht_find(t, k, i, &bad);
                total += s ? s->svlen : dlen;
        }
        if (total > INT32_MAX)
                return rt_ctx_error(ctx, "HASHTABLE_FIND: the output would exceed 2 GiB");
        if (out->bytes < total || !out->data) {
                void *p = realloc(out->data, total);
                if (!p)
                        return -ENOMEM;
                out->data = p;
        }
        out->bytes = total;
        uint8_t *o = out->data;
        int32_t cnt = (int32_t) n, off = (int32_t) (4 * (n + 2));
        memcpy(o, &cnt, 4);
        for (size_t i = 0; i < n; i++) {
                const ht_slot_t *s = ht_find(t, k, i, &bad);
                const char *src = s ? s->sval : dstr;
                uint32_t len = s ? s->svlen : dlen;
                memcpy(o + 4 + 4 * i, &off, 4);
                if (len)
                        memcpy(o + off, src, len);
                off += (int32_t) len;
        }
        memcpy(o + 4 + 4 * n, &off, 4);
        return 0;
}

const rt_registration_t rt_kernel_hashtable_find = {
        .name = "HASHTABLE_FIND",
        .op = RT_OP_HASHTABLE_FIND,
        .prepare = find_prepare,
        .invoke = find_invoke,
};

/* ---- HASHTABLE_SIZE: handle -> int64[1] ---- */

static int size_prepare(rt_context_t *ctx, rt_node_t *node) {
        if (node->n_inputs != 1 || node->n_outputs != 1)
                return rt_ctx_error(ctx, "HASHTABLE_SIZE: expected 1 input and 1 output, got %d and %d",
                                    node->n_inputs, node->n_outputs);
        int r = handle_prepare(ctx, "HASHTABLE_SIZE", rt_node_input(ctx, node, 0));
        if (r < 0)
                return r;
        const rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!out || out->type != RT_TYPE_INT64)
                return rt_ctx_error(ctx, "HASHTABLE_SIZE: the output must be int64");
        return rt_ctx_resize(ctx, node, 0, 1, (const int32_t[]) { 1 });
}

static int size_invoke(rt_context_t *ctx, rt_node_t *node) {
        ht_t *t = table_get(ctx, "HASHTABLE_SIZE", rt_node_input(ctx, node, 0));
        if (!t)
                return -EINVAL;
        rt_tensor_t *out = rt_node_output(ctx, node, 0);
        if (!out->data || out->bytes < sizeof(int64_t))
                return rt_ctx_error(ctx, "HASHTABLE_SIZE: the output has no storage");
        const int64_t n = (int64_t) t->n;
        memcpy(out->data, &n, sizeof(n));
        return 0;
}

const rt_registration_t rt_kernel_hashtable_size = {
        .name = "HASHTABLE_SIZE",
        .op = RT_OP_HASHTABLE_SIZE,
        .prepare = size_prepare,
        .invoke = size_invoke,
};
